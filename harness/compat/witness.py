"""Witnesses: documents that prove (or probe) a verdict.

A witness for the *reader* direction is valid under the old version and rejected by the new
one; for the *writer* direction the reverse. Two sources:

- **targeted**: each change carries recipes (:class:`~harness.compat.registry.Target`): the
  source version's tree with one node conjoined with a constraint (the removed enum value, a
  string of the old ``maxLength``, no value for the newly required key, ...) and the instance
  path to that node forced to exist. hypothesis searches it, derandomized; its generation
  starts from the simplest example (``"0000000"``, ``0``, the shortest arrays), so the first hit
  is the minimal one in practice and is not shrunk further (shrinking cost seconds a witness).
  A hit counts for the change only when the other version rejects it
  *at the change's keyword* (its schema location), not for some unrelated reason.
- **generated**: documents generated from each whole version and checked against the other;
  a rejection is attributed to the change whose location rejected it.

Every document is re-validated with the production validator of its source version first.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import find
from hypothesis.errors import HypothesisException, NoSuchExample

from harness.boundary.schema import SchemaValidator, SchemaViolation, validator_for
from harness.compat.model import Budget, Direction
from harness.compat.normalise import REF_TARGET, Side
from harness.pointer import MISSING, join, resolve, split
from harness.schemas import keywords as kw
from harness.schemas.generate import (
    GenerationStats,
    OutOfTime,
    from_lowered,
    quiet_settings,
    sample,
    time_budget,
)
from harness.schemas.lower import lower
from harness.schemas.resolve import as_schema


@dataclass(frozen=True, slots=True)
class Witness:
    """A document one version accepts and the other rejects, with the rejection."""

    direction: Direction
    document: Any
    accepted_by: str
    rejected_by: str
    keyword: str
    instance_pointer: str
    schema_pointer: str
    message: str
    origin: str  # "targeted" or "generated"

    def to_dict(self) -> dict[str, Any]:
        return {
            "direction": self.direction.value,
            "document": self.document,
            "accepted_by": self.accepted_by,
            "rejected_by": self.rejected_by,
            "keyword": self.keyword,
            "instance_pointer": self.instance_pointer,
            "schema_pointer": self.schema_pointer,
            "message": self.message,
            "origin": self.origin,
        }


@dataclass(slots=True)
class Sampled:
    """Documents generated from one version and judged by the other."""

    direction: Direction
    checked: int = 0
    rejected: list[tuple[Any, list[SchemaViolation]]] = field(default_factory=list)
    #: the documents the source accepted (the first few; bases for targeted searches)
    documents: list[Any] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)


# --------------------------------------------------------------------------- focusing


def _conjoin(node: Any, extra: Any) -> Any:
    if extra in ({}, True):
        return node
    if node is False:
        return False
    if node in ({}, True):
        return copy.deepcopy(extra)
    out = dict(node)
    out["allOf"] = [*(out.get("allOf") or []), extra]
    return out


def focus(tree: Any, pointer: str, extra: Any) -> Any:
    """``tree`` with the node at ``pointer`` conjoined with ``extra``, and the instance path to
    that node made to exist (properties required, arrays long enough, the branch taken)."""
    return _focus(tree, split(pointer), extra)


def _focus(node: Any, tokens: list[str], extra: Any) -> Any:
    if not tokens:
        return _conjoin(node, extra)
    if not isinstance(node, dict):
        return node
    node = dict(node)
    head, rest = tokens[0], tokens[1:]
    if head in kw.SINGLE or head == "$ref":
        node[head] = _focus(node.get(head, {}), rest, extra)
        if head == "items":
            node["minItems"] = max(node.get("minItems", 0), len(node.get("prefixItems") or []) + 1)
        return node
    if not rest:
        return node
    member, rest = rest[0], rest[1:]
    if head in kw.MAP:
        node[head] = {**node[head], member: _focus(node[head][member], rest, extra)}
        if head in ("properties", "dependentSchemas"):
            node["required"] = sorted({*(node.get("required") or []), member})
    elif head == "prefixItems":
        index = int(member)
        items = list(node[head])
        items[index] = _focus(items[index], rest, extra)
        node[head] = items
        node["minItems"] = max(node.get("minItems", 0), index + 1)
    elif head in ("oneOf", "anyOf"):
        node[head] = [_focus(node[head][int(member)], rest, extra)]  # take this branch
    elif head == "allOf":
        members = list(node[head])
        members[int(member)] = _focus(members[int(member)], rest, extra)
        node[head] = members
    return node


def _plain(tree: Any) -> Any:
    """A canonical tree without the bookkeeping keys (for the generator)."""
    if isinstance(tree, list):
        return [_plain(v) for v in tree]
    if not isinstance(tree, dict):
        return tree
    return {k: _plain(v) for k, v in tree.items() if k != REF_TARGET}


#: What a ``not`` may say and still be generated from directly: about one value, not its members.
_SCALAR_NOT = frozenset({
    "type", "const", "enum", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength",
})


def _generable(tree: Any) -> Any:
    """``tree`` without the ``not`` subschemas about objects or arrays: hypothesis-jsonschema
    generates those by rejection, pathologically slowly. What is generated is then a superset,
    and every value is still judged by the validator of the schema as written (and by the
    search's own condition), so nothing invalid gets through: it only costs discards."""
    if not isinstance(tree, dict):
        return tree
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if key == "not" and not (isinstance(value, dict) and set(value) <= _SCALAR_NOT
                                 and not {"object", "array"} & set(_as_list(value.get("type")))):
            continue
        if key in kw.MAP and isinstance(value, dict):
            out[key] = {name: _generable(sub) for name, sub in value.items()}
        elif key in kw.LIST and isinstance(value, list):
            out[key] = [_generable(sub) for sub in value]
        elif key in kw.SINGLE or key == "$ref":
            out[key] = _generable(value)
        else:
            out[key] = value
    return out


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


# --------------------------------------------------------------------------- searching


def at_location(schema_pointer: str, location: str | None) -> bool:
    """Is a validator's schema pointer at ``location`` (a keyword's written pointer, possibly
    ``resource#pointer``) or inside it? Always true for no location."""
    if location is None:
        return True
    pointer = location.split("#", 1)[1] if "#" in location else location
    return schema_pointer == pointer or schema_pointer.startswith(pointer + "/")


def matches_location(violation: SchemaViolation, location: str | None) -> bool:
    return at_location(violation.schema_pointer, location)


def _rejection(validator: SchemaValidator, document: Any, location: str | None) -> SchemaViolation | None:
    """The violation at ``location`` (any, when None) if ``validator`` rejects ``document``."""
    if validator.is_valid(document):
        return None
    violations = validator.all_violations(document)
    if location is None:
        return validator.violations(document)[0]
    return next((v for v in violations if matches_location(v, location)), None)


def _make(direction: Direction, document: Any, source: Side, other: Side,
          violation: SchemaViolation, origin: str) -> Witness:
    return Witness(direction, document, source.label, other.label, violation.keyword,
                   violation.instance_pointer, violation.schema_pointer, violation.message, origin)


def anchors(tree: Any, pointer: str) -> list[tuple[int, list[str | int]]]:
    """The value positions on the way to the schema node at ``pointer``: ``(n, path)`` where the
    first ``n`` tokens of the pointer reach a subschema that applies to the value at instance
    ``path``, root first. The walk stops where the instance position is not known (a pattern,
    ``additionalProperties``, ``contains``)."""
    tokens = split(pointer)
    found: list[tuple[int, list[str | int]]] = [(0, [])]
    node: Any = tree
    instance: list[str | int] = []
    i = 0
    while i < len(tokens) and isinstance(node, dict):
        head = tokens[i]
        if head == "properties" and i + 1 < len(tokens):
            instance = [*instance, tokens[i + 1]]
            node, i = (node.get(head) or {}).get(tokens[i + 1]), i + 2
        elif head == "prefixItems" and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            instance = [*instance, int(tokens[i + 1])]
            node, i = (node.get(head) or [None] * (int(tokens[i + 1]) + 1))[int(tokens[i + 1])], i + 2
        elif head == "items":
            instance = [*instance, len(node.get("prefixItems") or [])]
            node, i = node.get(head), i + 1
        elif head in ("allOf", "anyOf", "oneOf", "dependentSchemas") and i + 1 < len(tokens):
            members = node.get(head)
            member = tokens[i + 1]
            node = members.get(member) if isinstance(members, dict) else (
                members[int(member)] if isinstance(members, list) and member.isdigit() and int(member) < len(members)
                else None)
            i += 2
            continue  # the same instance
        elif head in ("$ref", "not", "if", "then", "else"):
            node, i = node.get(head), i + 1
            continue
        else:
            break
        found.append((i, instance))
    return found


def _has_room(document: Any, path: list[str | int]) -> bool:
    """Can a value be put at ``path`` (every container above it exists)?"""
    node = document
    for step in path[:-1]:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return False
            node = node[step]
        else:
            if not isinstance(node, dict) or step not in node:
                return False
            node = node[step]
    if not path:
        return True
    last = path[-1]
    return isinstance(node, list) and isinstance(last, int) and last <= len(node) if isinstance(last, int) \
        else isinstance(node, dict)


def _put(document: Any, path: list[str | int], value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``path`` (appended to an array one short)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, list):
        out = list(document)
        assert isinstance(head, int)
        if head == len(out):
            out.append(_put(None, rest, value) if rest else value)
        else:
            out[head] = _put(out[head], rest, value)
        return out
    out_map = dict(document)
    out_map[head] = _put(out_map.get(head), rest, value) if rest else value
    return out_map


def search(
    direction: Direction,
    source: Side,
    other: Side,
    pointer: str,
    extra: Any,
    location: str | None,
    budget: Budget,
    bases: list[Any] | None = None,
) -> Witness | None:
    """A minimal document valid under ``source`` whose focus holds ``extra`` and that ``other``
    rejects at ``location``; None when ``budget.examples`` candidates find none.

    With ``bases`` (documents ``source`` accepts), the search is local: values are generated
    from the subschema of the deepest value position on the way to the focus that one of them
    has room for, and put there; the whole document is then judged. Without room in any, or
    when the local search finds nothing, the whole source schema is searched (the same as
    with no bases)."""
    if budget.examples < 1:
        return None
    tree = source.tree
    tried_root = False
    for depth, path in reversed(anchors(tree, pointer) if bases else []):
        rooms = [d for d in bases or () if _has_room(d, path)][:3]
        if not rooms:
            continue
        tokens = split(pointer)
        local = resolve(tree, tokens[:depth])
        found = _find(direction, source, other, join(tokens[depth:]), local, extra, location, budget,
                      lambda value, rooms=rooms, path=path: [_put(d, path, value) for d in rooms])
        if found is not None:
            return found
        tried_root = tried_root or depth == 0
        break  # one local search; then the whole schema
    if tried_root:
        return None
    return _find(direction, source, other, pointer, tree, extra, location, budget, lambda value: [value])


def _find(direction: Direction, source: Side, other: Side, pointer: str, tree: Any, extra: Any,
          location: str | None, budget: Budget, documents: Any) -> Witness | None:
    """Search values of ``tree`` focused at ``pointer`` with ``extra``; each value gives the
    candidate ``documents(value)``; the first that ``source`` accepts and ``other`` rejects at
    ``location`` is the witness."""
    focused = _plain(focus(tree, pointer, extra))
    if focused is False or tree is MISSING:
        return None
    try:
        strategy = from_lowered(lower(_generable(focused), expanded=True), _local_validator(focused, source, tree))
    except Exception:
        return None
    hit: list[tuple[Any, SchemaViolation]] = []

    def condition(value: Any) -> bool:
        for document in documents(value):
            if not source.validator.is_valid(document):
                continue
            violation = _rejection(other.validator, document, location)
            if violation is not None:
                hit.append((document, violation))
                return True
        return False

    try:
        with time_budget(budget.seconds):
            find(strategy, condition, settings=quiet_settings(budget.examples))
    except (NoSuchExample, HypothesisException, OutOfTime):
        return None
    except Exception:
        return None
    if not hit:
        return None
    document, violation = hit[-1]
    return _make(direction, json.loads(json.dumps(document)), source, other, violation, "targeted")


def _local_validator(focused: Any, source: Side, tree: Any) -> SchemaValidator:
    """The validator generated values are filtered by: the source's own for the whole tree,
    else one compiled from the focused subschema."""
    if tree is source.tree:
        return source.validator
    return validator_for(as_schema(focused))


def bases_for(source: Side, seeds: Any, sampled: Sampled | None, budget: Budget) -> list[Any]:
    """Documents ``source`` accepts to put targeted values into: the seeds it accepts (the
    contract's fixtures), the documents generated from it, else the simplest one it accepts."""
    found = []
    for document in seeds:
        if source.validator.is_valid(document):
            found.append(document)
    if sampled is not None:
        found += sampled.documents
    if found or budget.examples < 1:
        return found[:8]
    try:
        strategy = from_lowered(lower(_generable(_plain(source.tree)), expanded=True), source.validator)
        with time_budget(budget.seconds):
            found.append(find(strategy, lambda _: True, settings=quiet_settings(min(budget.examples, 10))))
    except Exception:
        return []
    return found


def generated(direction: Direction, source: Side, other: Side, n: int, seconds: float | None = None) -> Sampled:
    """``n`` documents generated from ``source`` (the whole schema) judged by ``other``."""
    result = Sampled(direction)
    if n <= 0:
        return result
    try:
        strategy = from_lowered(lower(_generable(_plain(source.tree)), expanded=True), source.validator,
                                stats=result.stats)
        documents = sample(strategy, n, seconds=seconds)
    except Exception:
        return result
    for document in documents:
        result.checked += 1
        if len(result.documents) < 4:
            result.documents.append(document)
        if not other.validator.is_valid(document):
            result.rejected.append((document, other.validator.all_violations(document)))
    return result


def from_sample(direction: Direction, source: Side, other: Side, document: Any,
                violations: list[SchemaViolation], location: str | None) -> Witness | None:
    """A generated document as the witness of a change, if it was rejected at ``location``."""
    violation = next((v for v in violations if matches_location(v, location)), None)
    if violation is None:
        return None
    return _make(direction, document, source, other, violation, "generated")
