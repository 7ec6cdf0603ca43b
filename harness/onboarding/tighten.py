"""``--strict``: a tightened copy of an imported schema, to become its next version.

Real-world schemas leave objects open and strings unbounded. The tightened copy:

- **closes objects**: ``additionalProperties: false`` where a node declares its members. A node
  composed with others (an ``allOf`` member, a ``$ref`` with sibling properties, a ``oneOf`` /
  ``anyOf`` / ``then`` / ``else`` branch of a node that declares members itself) is left to the
  node composing it, which is closed with ``unevaluatedProperties: false`` in 2019-09 / 2020-12,
  or in older dialects with ``additionalProperties: false`` and the union of every member's
  property names (listed as ``true``), so composition keeps working. Nodes that declare no
  members, or allow others on purpose (``patternProperties``, an ``additionalProperties``
  schema), stay open and are listed;
- **bounds strings and arrays from the examples**: ``maxLength`` / ``maxItems`` become the next
  power of two at or above four times the longest value observed at that node (at least
  :data:`MIN_LENGTH` / :data:`MIN_ITEMS`), or :data:`UNSEEN_LENGTH` / :data:`UNSEEN_ITEMS` where
  no example reaches the node;
- **bounds integers**: ``maximum`` 2^53-1 (the I-JSON interoperable range) and ``minimum: 0``
  where every observed value is non-negative;
- **keeps identifiers non-empty**: ``minLength: 1`` on string properties named like an
  identifier (``id``, ``*_id``, ``*Id``) when every observed value is non-empty.

Nothing already stated is changed. The result says what was closed, bounded and left open.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.drift.shape import json_type
from harness.pointer import resolve
from harness.schemas import Document, Node, dialect_of
from harness.schemas.dialects import ALTERNATIVES

MIN_LENGTH = 256
MIN_ITEMS = 32
UNSEEN_LENGTH = 4096
UNSEEN_ITEMS = 1024
MAX_SAFE_INTEGER = 2**53 - 1

_ALTERNATIVES = ("oneOf", "anyOf", "then", "else")
_OPENERS = ("additionalProperties", "unevaluatedProperties", "patternProperties")
_IDENTIFIER = re.compile(r"(^|_)id$|[a-z0-9]Id$")


@dataclass(frozen=True, slots=True)
class Tightened:
    """The tightened schema and what was done to it (pointers into the schema)."""

    schema: Any
    closed: tuple[str, ...] = ()
    bounded: tuple[tuple[str, str, int], ...] = ()
    left_open: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default=())


def _chain(document: Document, pointer: str) -> list[str]:
    """``pointer`` and every pointer its reference chain reaches (as the schema model resolves
    it, within the document)."""
    seen = [pointer]
    node = document.by_pointer.get(pointer)
    while node is not None:
        node = document.target(node)
        if node is None or node.document is not document or node.pointer in seen:
            break
        seen.append(node.pointer)
    return seen


def _target(document: Document, pointer: str) -> str | None:
    """The pointer the node's reference names in the same document, or None."""
    chain = _chain(document, pointer)
    return chain[1] if len(chain) > 1 else None


def _declares(node: Mapping[str, Any]) -> bool:
    return isinstance(node.get("properties"), dict)


def _members(document: Document, node: Mapping[str, Any], pointer: str) -> list[str]:
    """Pointers of the subschemas composed into ``node`` at the same instance location (each
    ``$ref`` chain followed): ``allOf`` members always; ``oneOf`` / ``anyOf`` / ``then`` /
    ``else`` branches and a sibling ``$ref`` when the node declares members of its own."""
    direct = []
    if isinstance(node.get("allOf"), list):
        direct += [f"{pointer}/allOf/{i}" for i in range(len(node["allOf"]))]
    if _declares(node) or "allOf" in node:
        for key in _ALTERNATIVES:
            value = node.get(key)
            if isinstance(value, list):
                direct += [f"{pointer}/{key}/{i}" for i in range(len(value))]
            elif isinstance(value, dict):
                direct.append(f"{pointer}/{key}")
    out = [target for member in direct for target in _chain(document, member)]
    ref = _target(document, pointer)
    if ref is not None and _declares(node):
        out += _chain(document, ref)
    return out


def _union(document: Document, pointer: str, seen: set[str]) -> tuple[list[str], str | None]:
    """Property names a node and its composed members declare; or why it must stay open."""
    node = resolve(document.schema, pointer)
    names = list(node.get("properties", {})) if isinstance(node, dict) and _declares(node) else []
    for target in _members(document, node, pointer) if isinstance(node, dict) else []:
        if target in seen:
            continue
        seen.add(target)
        sub = resolve(document.schema, target)
        if not isinstance(sub, dict):
            continue
        if any(k in sub and sub[k] is not False for k in _OPENERS):
            return names, f"a composed member ({target or '/'}) allows other members"
        more, reason = _union(document, target, seen)
        if reason:
            return names, reason
        names += [n for n in more if n not in names]
    return names, None


def _matches(node: Node | None, value: Any) -> bool:
    """Cheap test whether an alternative may describe ``value`` (by JSON type)."""
    if node is None or not isinstance(node.schema, dict):
        return node is None or node.schema is not False
    types = node.types
    if not types:
        return True
    kind = _json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


def _json_type(value: Any) -> str:
    """The JSON type of a value, an integral float counting as an integer (as JSON Schema does)."""
    if isinstance(value, float) and value.is_integer():
        return "integer"
    return json_type(value)


#: The in-place keywords an example is followed through: the alternatives (``allOf``, ``anyOf``,
#: ``oneOf``, ``then``, ``else``) and the dependent schemas. A branch or dependent schema that
#: does not apply to an example (by JSON type, its member absent) may still see it: a bound only
#: grows with what is seen, so the tightened schema still accepts every example.
_THROUGH = ALTERNATIVES | {"dependentSchemas", "dependencies"}


class _Observations:
    """Longest string, largest array, smallest integer seen at each schema node."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.lengths: dict[str, int] = {}
        self.shortest: dict[str, int] = {}
        self.items: dict[str, int] = {}
        self.lowest: dict[str, int | float] = {}

    def observe(self, sample: Any) -> None:
        """Every value of ``sample`` at each node of this document that describes it
        (:meth:`~harness.schemas.Document.walk_instance`: properties, patternProperties,
        additionalProperties, items, references and :data:`_THROUGH`), where its JSON type fits."""
        for _, value, nodes in self.document.walk_instance(sample, through=_THROUGH):
            for node in nodes:
                if node.document is self.document and isinstance(node.schema, dict) and _matches(node, value):
                    self._record(node.pointer, value)

    def _record(self, here: str, value: Any) -> None:
        if isinstance(value, str):
            self.lengths[here] = max(self.lengths.get(here, 0), len(value))
            self.shortest[here] = min(self.shortest.get(here, len(value)), len(value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            self.lowest[here] = min(self.lowest.get(here, value), value)
        elif isinstance(value, list):
            self.items[here] = max(self.items.get(here, 0), len(value))


def _close(document: Document, pointer: str, node: dict[str, Any], types: set[str], modern: bool) -> str | None:
    """Close one node: ``"closed"``, the reason it stays open, or None when not an object.

    A node composed of others is closed with ``unevaluatedProperties: false`` where the dialect
    has it (2019-09, 2020-12), else with ``additionalProperties: false`` and every member's
    property names listed (``true``), which draft-07 needs to see through composition."""
    if not (_declares(node) or "object" in types or "allOf" in node):
        return None
    names, reason = _union(document, pointer, {pointer})
    if reason is not None:
        return reason
    if not names and not _declares(node):
        if "object" not in types or any(isinstance(node.get(k), list) for k in ("oneOf", "anyOf")):
            return None  # not an object of its own, or its alternatives are closed one by one
        return "it declares no members (a free-form object)"
    if modern and _members(document, node, pointer):
        node["unevaluatedProperties"] = False
        return "closed"
    properties = node.setdefault("properties", {})
    for name in names:
        properties.setdefault(name, True)
    node["additionalProperties"] = False
    return "closed"


def _is_identifier(pointer: str) -> bool:
    head, _, name = pointer.rpartition("/")
    return head.endswith("/properties") and bool(_IDENTIFIER.search(name.replace("~1", "/").replace("~0", "~")))


def _bound(observed: int | None, floor: int, unseen: int) -> int:
    if observed is None:
        return unseen
    target, bound = max(4 * observed, floor), 1
    while bound < target:
        bound *= 2
    return bound


def tighten(schema: Any, samples: Iterable[Any] = ()) -> Tightened:
    """A tightened copy of ``schema``; ``samples`` are documents it accepts (the examples)."""
    tight = copy.deepcopy(schema)
    if not isinstance(tight, dict):
        return Tightened(tight, notes=("the schema is not an object; nothing to tighten",))
    document = Document(tight)
    seen = _Observations(document)
    for sample in samples:
        seen.observe(sample)
    nodes = {n.pointer: n.schema for n in document.nodes if isinstance(n.schema, dict)}
    modern = dialect_of(tight) in ("2019-09", "2020-12")
    composed: dict[str, str] = {}
    for pointer, node in nodes.items():
        for target in _members(document, node, pointer):
            composed.setdefault(target, pointer or "/")
    closed: list[str] = []
    bounded: list[tuple[str, str, int]] = []
    left_open: list[tuple[str, str]] = []
    notes: list[str] = []
    for pointer, node in nodes.items():
        shown = pointer or "/"
        types = set(document.by_pointer[pointer].types or ())
        # A composed node is closed, with its members, by the node composing it.
        if pointer not in composed and not any(k in node for k in _OPENERS):
            outcome = _close(document, pointer, node, types, modern)
            if outcome == "closed":
                closed.append(shown)
            elif outcome:
                left_open.append((shown, outcome))
        if "string" in types and "maxLength" not in node and not ({"enum", "const"} & set(node)):
            node["maxLength"] = _bound(seen.lengths.get(pointer), MIN_LENGTH, UNSEEN_LENGTH)
            bounded.append((shown, "maxLength", node["maxLength"]))
        observed_non_empty = seen.shortest.get(pointer, 0) > 0
        if "string" in types and "minLength" not in node and _is_identifier(pointer) and observed_non_empty:
            node["minLength"] = 1
            bounded.append((shown, "minLength", 1))
        if "array" in types and "maxItems" not in node:
            node["maxItems"] = _bound(seen.items.get(pointer), MIN_ITEMS, UNSEEN_ITEMS)
            bounded.append((shown, "maxItems", node["maxItems"]))
        if "integer" in types and not ({"enum", "const"} & set(node)):
            if "maximum" not in node and "exclusiveMaximum" not in node:
                node["maximum"] = MAX_SAFE_INTEGER
                bounded.append((shown, "maximum", MAX_SAFE_INTEGER))
            lowest = seen.lowest.get(pointer)
            if "minimum" not in node and "exclusiveMinimum" not in node and lowest is not None and lowest >= 0:
                node["minimum"] = 0
                bounded.append((shown, "minimum", 0))
    if "$id" in tight:
        del tight["$id"]
        notes.append("$id dropped: two versions of one contract cannot share an id")
    return Tightened(tight, tuple(closed), tuple(bounded), tuple(left_open), tuple(notes))
