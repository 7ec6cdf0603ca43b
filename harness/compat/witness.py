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

import contextlib
import copy
import json
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import find
from hypothesis.errors import HypothesisWarning

from harness.boundary.validator import SchemaValidator, SchemaViolation, validator_for
from harness.compat.model import Budget, Direction
from harness.compat.normalise import REF_TARGET, Side
from harness.fuzz.generate.documents import (
    GenerationStats,
    OutOfTime,
    from_lowered,
    quiet_settings,
    sample,
    time_budget,
)
from harness.fuzz.generate.edges import formatted
from harness.fuzz.generate.lower import lower
from harness.fuzz.generate.sampling import sampled
from harness.pointer import MISSING, join, resolve, split
from harness.schemas import keywords as kw
from harness.schemas.dialects import REPORTED_WHOLE, SCALAR_KEYWORDS
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


def _only(node: dict[str, Any], kind: str) -> None:
    """Restrict a node on the way to the focus to the container type the path needs (a
    ``[null, object]`` node would otherwise be satisfied by ``null``, and the path not exist)."""
    types = node.get("type")
    if types is None or (isinstance(types, list) and kind in types):
        node["type"] = [kind]


def _focus(node: Any, tokens: list[str], extra: Any) -> Any:
    # Not keywords.walk (nor in anchors): one pointer is followed, and the instance path to it made.
    if not tokens:
        return _conjoin(node, extra)
    if not isinstance(node, dict):
        return node
    node = dict(node)
    head, rest = tokens[0], tokens[1:]
    if head in kw.SUBSCHEMA:
        node[head] = _focus(node.get(head, {}), rest, extra)
        if head == "items":
            node["minItems"] = max(node.get("minItems", 0), len(node.get("prefixItems") or []) + 1)
            _only(node, "array")
        return node
    if not rest:
        return node
    member, rest = rest[0], rest[1:]
    if head in kw.MAP:
        node[head] = {**node[head], member: _focus(node[head][member], rest, extra)}
        if head in ("properties", "dependentSchemas"):
            node["required"] = sorted({*(node.get("required") or []), member})
            _only(node, "object")
    elif head == "prefixItems":
        index = int(member)
        items = list(node[head])
        items[index] = _focus(items[index], rest, extra)
        node[head] = items
        node["minItems"] = max(node.get("minItems", 0), index + 1)
        _only(node, "array")
    elif head in ("oneOf", "anyOf"):
        node[head] = [_focus(node[head][int(member)], rest, extra)]  # take this branch
    elif head == "allOf":
        members = list(node[head])
        members[int(member)] = _focus(members[int(member)], rest, extra)
        node[head] = members
    return node


def _plain(tree: Any) -> Any:
    """A canonical tree without the bookkeeping keys (for the generator)."""
    if not isinstance(tree, dict):
        return tree
    return kw.map_subschemas({k: v for k, v in tree.items() if k != REF_TARGET}, _plain)


def _generable(tree: Any) -> Any:
    """``tree`` without the ``not`` subschemas about objects or arrays: hypothesis-jsonschema
    generates those by rejection, pathologically slowly. What is generated is then a superset,
    and every value is still judged by the validator of the schema as written (and by the
    search's own condition), so nothing invalid gets through: it only costs discards."""
    if not isinstance(tree, dict):
        return tree
    # a not may stay when it says something about one value only, not about members or items
    kept = {k: v for k, v in tree.items()
            if not (k == "not" and not (isinstance(v, dict) and set(v) <= SCALAR_KEYWORDS
                                        and not {"object", "array"} & set(_as_list(v.get("type")))))}
    return kw.map_subschemas(kept, _generable)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


# --------------------------------------------------------------------------- searching


def at_location(schema_pointer: str, location: str | None) -> bool:
    """Is a validator's schema pointer at ``location`` (a keyword's written pointer, possibly
    ``resource#pointer``) or inside it? Always true for no location."""
    if location is None:
        return True
    pointer = location.split("#", 1)[1] if "#" in location else location
    if schema_pointer == pointer or schema_pointer.startswith(pointer + "/"):
        return True
    # A union, negation or contains fails as a whole: a change inside it is what made it fail.
    if schema_pointer.rsplit("/", 1)[-1] in REPORTED_WHOLE and pointer.startswith(schema_pointer + "/"):
        return True
    # jsonschema-rs reads a name such as "+1" as an array index and writes it "1": compare
    # token by token with that spelling allowed.
    have, want = split(schema_pointer), split(pointer)
    return len(have) >= len(want) and all(h == w or ((w[:1] == "+" and w[1:].isdigit() and h == w[1:].lstrip("0"))
                                                      or h == w[1:]) for h, w in zip(have, want, strict=False))


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


def anchors(tree: Any, pointer: str) -> tuple[list[tuple[int, list[str | int]]], bool]:
    """The value positions on the way to the schema node at ``pointer``: ``(n, path)`` where the
    first ``n`` tokens of the pointer reach a subschema that applies to the value at instance
    ``path``, root first; and whether the node at ``pointer`` applies to the last one's value.
    The walk stops where the instance position is not known (a pattern,
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
        elif head in kw.IN_PLACE & kw.MEMBERED and i + 1 < len(tokens):
            members = node.get(head)
            member = tokens[i + 1]
            node = members.get(member) if isinstance(members, dict) else (
                members[int(member)] if isinstance(members, list) and member.isdigit() and int(member) < len(members)
                else None)
            i += 2
            continue  # the same instance
        elif head in kw.IN_PLACE - kw.MEMBERED:
            node, i = node.get(head), i + 1
            continue
        else:
            break
        found.append((i, instance))
    return found, i >= len(tokens)


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


@dataclass(slots=True)
class Searches:
    """What the targeted searches of one direction did: how many ran, found a witness, were
    answered by a built document (no generation), and were stopped by the ``--seconds`` clock
    (a safety net: a search normally ends when it finds a witness or has tried its examples)."""

    run: int = 0
    found: int = 0
    built: int = 0
    clock: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"run": self.run, "found": self.found, "built": self.built, "stopped_by_clock": self.clock}


@dataclass(slots=True)
class Bases:
    """Documents one version accepts, to build its targeted witnesses in (see :func:`search`):
    the seeds it accepts, and documents grown to reach deeper positions, kept by the schema
    pointer of the position they were grown for (a ``oneOf`` branch's own)."""

    documents: list[Any] = field(default_factory=list)
    grown: dict[str, list[Any]] = field(default_factory=dict)
    searches: Searches = field(default_factory=Searches)
    #: the documents are seeds the version accepts (not the simplest document generated)
    seeded: bool = False

    def for_pointer(self, pointer: str) -> list[Any]:
        """The documents to try for a focus at ``pointer``: those grown along the same
        ``oneOf``/``anyOf`` branches first (newest first), then the seeds."""
        return [*self.grown.get(_branch_key(pointer), ()), *self.documents]

    def keep(self, pointer: str, document: Any) -> None:
        kept = self.grown.setdefault(_branch_key(pointer), [])
        kept.insert(0, document)
        del kept[8:]


def _branch_key(pointer: str) -> str:
    """The pointer up to its last ``oneOf``/``anyOf`` branch (documents grown below one branch
    must not stand in for another's)."""
    tokens = split(pointer)
    last = max((i for i, token in enumerate(tokens[:-1]) if token in ("oneOf", "anyOf")), default=-2)
    return join(tokens[:last + 2])


def search(
    direction: Direction,
    source: Side,
    other: Side,
    pointer: str,
    extra: Any,
    location: str | None,
    budget: Budget,
    bases: Bases | None = None,
) -> Witness | None:
    """A minimal document valid under ``source`` whose focus holds ``extra`` and that ``other``
    rejects at ``location``; None when ``budget.examples`` candidates find none.

    With ``bases`` (documents ``source`` accepts) the search stays local, cheapest first:

    1. edits of a base that make the focus hold ``extra`` with nothing generated (a name
       removed; the base itself when it already holds);
    2. values generated for the one name (or array position) ``extra`` asks to be present, from
       what constrains that name in the source, put into a base;
    3. values generated from the subschema of the deepest value position on the way to the
       focus that a base has room for, put there.

    Each candidate is the whole document, judged by both validators. Only without room in any
    base is the whole source schema searched; a local search that finds nothing leaves the
    verdict to the static rules (no search runs against the clock)."""
    if budget.examples < 1:
        return None
    counts = bases.searches if bases is not None else Searches()
    counts.run += 1
    found = _search(direction, source, other, pointer, extra, location, budget, bases, counts)
    counts.found += found is not None
    return found


def _search(direction: Direction, source: Side, other: Side, pointer: str, extra: Any, location: str | None,
            budget: Budget, bases: Bases | None, counts: Searches) -> Witness | None:
    tree, tokens = source.tree, split(pointer)

    def judged(documents: list[Any]) -> Witness | None:
        for document in documents:
            if source.validator.is_valid(document):
                violation = _rejection(other.validator, document, location)
                if violation is not None:
                    return _make(direction, json.loads(json.dumps(document)), source, other, violation, "targeted")
        return None

    steps, exact = anchors(tree, pointer)
    documents = bases.for_pointer(pointer) if bases is not None else []
    for depth, path in reversed(steps if documents else []):
        rooms = [d for d in documents if _has_room(d, path)][:3]
        if not rooms:
            continue
        if depth != steps[-1][0] and bases is not None:
            # No base reaches the focus: first grow one that does (the simplest value at this
            # position with the path to the focus present), then work at the focus itself.
            grown = _grow(source, join(tokens[depth:]), resolve(tree, tokens[:depth]), path, rooms, budget,
                          steps[-1][1], counts)
            if grown is not None:
                (depth, path), rooms = steps[-1], [grown]
                bases.keep(pointer, grown)  # later searches below the same position start from it
        if exact and depth == steps[-1][0]:
            node = resolve(tree, tokens)
            for plan in _edits(node, extra, path, rooms):
                if isinstance(plan, list):
                    found = judged(plan)
                    counts.built += found is not None
                else:
                    _where, schema, make = plan
                    # the simplest JSON values first (a new name may hold anything: null)
                    found = judged([d for value in _SIMPLEST for d in make(value)])
                    counts.built += found is not None
                    if found is None:
                        found = _find(direction, source, other, "", schema, {}, location, budget, make, counts)
                if found is not None:
                    return found
            if isinstance(node, dict) and "format" in node and _direct(node, extra):
                return None  # the edge strings failed; random strings of that format are shorter
        local = resolve(tree, tokens[:depth])
        return _find(direction, source, other, join(tokens[depth:]), local, extra, location, budget,
                     lambda value, rooms=rooms, path=path: [_put(d, path, value) for d in rooms], counts)
    return _find(direction, source, other, pointer, tree, extra, location, budget, lambda value: [value], counts)


def _grow(source: Side, pointer: str, local: Any, path: list[str | int], rooms: list[Any],
          budget: Budget, reach: list[str | int], counts: Searches) -> Any:
    """A document ``source`` accepts, one of ``rooms`` with the value at ``path`` replaced by
    the simplest value of ``local`` in which the instance path to ``pointer`` (``reach``)
    exists."""
    focused = _plain(focus(local, pointer, {}))
    if focused is False or local is MISSING:
        return None
    try:
        strategy = _values(focused, validator_for(as_schema(focused)))
    except Exception:
        return None
    grown: list[Any] = []

    def fits(value: Any) -> bool:
        for document in rooms:
            candidate = _put(document, path, value)
            if _has_room(candidate, reach) and source.validator.is_valid(candidate):
                grown.append(candidate)
                return True
        return False

    try:
        with time_budget(budget.seconds), _quiet():
            find(strategy, fits, settings=quiet_settings(budget.examples))
    except OutOfTime:
        counts.clock += 1
        return None
    except Exception:
        return None
    return grown[-1] if grown else None


Plan = list[Any] | tuple[list[str | int], Any, Any]
#: Tried before any generation where one value is wanted: each document is judged whole anyway.
_SIMPLEST: tuple[Any, ...] = (None, 0, "", False, {}, [])


def _edits(node: Any, extra: Any, path: list[str | int], bases: list[Any]) -> list[Plan]:
    """Cheap ways to make the value at ``path`` of a base hold ``extra``: finished documents,
    or ``(path, schema, documents)`` to generate one value for (see :func:`search`). The bases
    have room for a value at ``path``; some may hold one already."""
    if not bases or not isinstance(extra, dict):
        return []
    keys = set(extra)
    if keys <= {"required", "properties"} and all(v is False for v in (extra.get("properties") or {}).values()):
        absent = list(extra.get("properties") or {})
        wanted = [n for n in extra.get("required") or [] if n not in absent]
        plans: list[Plan] = []
        edited = [_without(d, path, absent) for d in bases]
        edited = [d for d in edited if isinstance(resolve(d, [str(s) for s in path]), dict)]
        missing = [n for n in wanted if any(n not in resolve(d, [str(s) for s in path]) for d in edited)]
        if not missing:
            return [edited]
        name = missing[0]
        schema = _name_schema(node, name)
        if schema is not False:
            plans.append(([*path, name], schema,
                          lambda value, docs=edited, where=[*path, name]: [_put(d, where, value) for d in docs]))
        return plans
    if ("minItems" in keys and keys <= {"minItems", "type"} and extra.get("type", "array") == "array"
            and isinstance(extra["minItems"], int) and isinstance(node, dict)):
        count, unique = extra["minItems"], node.get("uniqueItems") is True
        lists = [(d, resolve(d, [str(s) for s in path])) for d in bases]
        done = [d for d, value in lists if isinstance(value, list) and len(value) >= count]
        if done:
            return [done]
        if unique:
            return []
        # repeat the items a base holds, or one generated item, up to the length asked
        padded = [_put(d, path, (value * count)[:count]) for d, value in lists if isinstance(value, list) and value]
        prefix = node.get("prefixItems") or []
        item = node.get("items", {})
        plans = [padded] if padded else []
        if not prefix and item is not False:
            plans.append(([*path, 0], item,
                          lambda value, docs=bases, where=path, n=count: [_put(d, where, [value] * n) for d in docs]))
        return plans
    if not keys:
        return [list(bases)]
    values = _direct(node, extra)
    if values:
        return [[_put(d, path, v) for v in values for d in bases]]
    return []


def _direct(node: Any, extra: Any) -> list[Any]:
    """Values built, not searched, for the edges ``extra`` asks of a string or number node: a
    string of the asked length (in the node's ``format``: a 257-character URI, which random
    generation does not reach), a number just past a bound, a ``const``."""
    if not isinstance(node, dict) or not isinstance(extra, dict):
        return []
    if "const" in extra and set(extra) <= {"const", "type"}:
        return [extra["const"]]
    types = set(_as_list(node.get("type"))) or set(_as_list(extra.get("type")))
    if extra.get("type") == "string" and "string" in types and "pattern" not in node:
        lengths = [n for n in (extra.get("minLength"), extra.get("maxLength")) if isinstance(n, int)]
        strings = [formatted(node["format"], n) if isinstance(node.get("format"), str) else "a" * n
                   for n in dict.fromkeys(lengths)]
        return [s for s in strings if s is not None]
    if extra.get("type") == "number" and types & {"number", "integer"} and "multipleOf" not in node:
        whole = "number" not in types
        found: list[Any] = []
        for key, step in (("exclusiveMinimum", 1), ("minimum", 0), ("exclusiveMaximum", -1), ("maximum", 0)):
            bound = extra.get(key)
            if isinstance(bound, int | float) and not isinstance(bound, bool):
                value = (int(bound) if float(bound).is_integer() else bound) + step
                found.append(int(value) if whole and float(value).is_integer() else value)
        return found
    return []


def _name_schema(node: Any, name: str) -> Any:
    """What constrains property ``name`` in an object node (its declaration, the patterns it
    matches, else ``additionalProperties``; ``{}`` when nothing does)."""
    if not isinstance(node, dict):
        return {}
    from harness.compat.predicates import matches

    parts = []
    if name in (node.get("properties") or {}):
        parts.append(node["properties"][name])
    parts += [sub for pattern, sub in (node.get("patternProperties") or {}).items() if matches(pattern, name)]
    if not parts and "additionalProperties" in node:
        parts.append(node["additionalProperties"])
    if any(p is False for p in parts):
        return False
    parts = [p for p in parts if p not in ({}, True)]
    return {} if not parts else parts[0] if len(parts) == 1 else {"allOf": parts}


def _without(document: Any, path: list[str | int], names: list[str]) -> Any:
    value = resolve(document, [str(s) for s in path])
    if not names or not isinstance(value, dict) or not any(n in value for n in names):
        return document
    return _put(document, path, {k: v for k, v in value.items() if k not in names})


def _find(direction: Direction, source: Side, other: Side, pointer: str, tree: Any, extra: Any,
          location: str | None, budget: Budget, documents: Any, counts: Searches) -> Witness | None:
    """Search values of ``tree`` focused at ``pointer`` with ``extra``; each value gives the
    candidate ``documents(value)``; the first that ``source`` accepts and ``other`` rejects at
    ``location`` is the witness."""
    focused = _plain(focus(tree, pointer, extra))
    if focused is False or tree is MISSING:
        return None
    try:
        strategy = _values(focused, _local_validator(focused, source, tree))
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
        with time_budget(budget.seconds), _quiet():
            find(strategy, condition, settings=quiet_settings(budget.examples))
    except OutOfTime:
        counts.clock += 1
        return None
    except Exception:  # NoSuchExample, HypothesisException, and whatever a rare schema raises
        return None
    if not hit:
        return None
    document, violation = hit[-1]
    return _make(direction, json.loads(json.dumps(document)), source, other, violation, "targeted")


def _values(tree: Any, validator: SchemaValidator, **options: Any) -> Any:
    """Values of an expanded ``tree`` that ``validator`` accepts, each sampled from one
    hypothesis seed (harness.fuzz.generate.sampling: seed 0, the first, is the simplest), from
    a strategy compiled once (hypothesis-jsonschema's own rebuilds object strategies at every
    draw)."""
    return sampled(from_lowered(lower(_generable(tree), expanded=True), validator, compiled=True, **options))


def _local_validator(focused: Any, source: Side, tree: Any) -> SchemaValidator:
    """The validator generated values are filtered by: the source's own for the whole tree,
    else one compiled from the focused subschema."""
    if tree is source.tree:
        return source.validator
    return validator_for(as_schema(focused))


def bases_for(source: Side, seeds: Any, budget: Budget) -> Bases:
    """Documents ``source`` accepts to put targeted values into: the seeds it accepts (the
    contract's fixtures), else the simplest document it accepts."""
    found = [document for document in seeds if source.validator.is_valid(document)][:8]
    if found or budget.examples < 1:
        return Bases(found, seeded=bool(found))
    try:
        strategy = _values(_plain(source.tree), source.validator)
        with _quiet():
            found += sample(strategy, 1, seconds=budget.seconds)
    except Exception:
        return Bases()
    return Bases(found)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """hypothesis warns when it builds the repr of a strategy over a large schema (which our
    searches never print); under ``-W error`` that warning would end a search silently."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Generating overly large repr", category=HypothesisWarning)
        yield


def generated(direction: Direction, source: Side, other: Side, n: int, seconds: float | None = None,
              bases: Bases | None = None, pointers: Sequence[str] = ()) -> Sampled:
    """``n`` documents generated from ``source`` and judged by ``other``.

    When ``source`` accepts some seed documents (``bases``, a contract's fixtures) and the
    changes sit at ``pointers``, the documents are those seeds with one changed position
    regenerated each (round the pointers, one value per position): every document is real
    traffic but for the changed value, and each changed position is exercised. Otherwise
    whole documents are generated from the schema (slow for large schemas: each is built in
    full)."""
    result = Sampled(direction)
    if n <= 0:
        return result
    if bases is not None and bases.seeded:
        # positions whose edges can be built first, then the deepest: a leaf is made anew in
        # milliseconds, a large object is generated in full
        chosen = sorted(dict.fromkeys(pointers),
                        key=lambda p: (not _edge_values(resolve(source.tree, split(p))), -len(split(p))))
        documents = bases.documents[:n]
        documents += _regenerated(source, bases, chosen, n - len(documents), seconds, result.stats)
    else:
        try:
            strategy = _values(_plain(source.tree), source.validator, stats=result.stats)
            with _quiet():
                documents = sample(strategy, n, seconds=seconds)
        except Exception:
            return result
    for document in documents:
        result.checked += 1
        if not other.validator.is_valid(document):
            result.rejected.append((document, other.validator.all_violations(document)))
    return result


def _regenerated(source: Side, bases: Bases, pointers: list[str], n: int, seconds: float | None,
                 stats: GenerationStats) -> list[Any]:
    """Up to ``n`` seeds, each with the value at one pointer's position made anew, round the
    pointers (three rounds at most): the edges of a string or number node (its longest and
    shortest string, in its format; its bounds), built directly, then values generated from the
    node, each kept when the whole document stays valid. A pointer whose position no seed holds
    (or the whole document: generating it is the slow way) is passed over."""
    plans = []
    for pointer in pointers:
        steps, exact = anchors(source.tree, pointer)
        depth, path = steps[-1]
        rooms = [d for d in bases.for_pointer(pointer) if resolve(d, [str(s) for s in path]) is not MISSING][:3]
        if len(steps) > 1 and rooms:
            plans.append((split(pointer), exact, depth, path, rooms))
    found: list[Any] = []
    values: dict[int, list[Any]] = {}
    for round_ in range(3):
        for index, (tokens, exact, depth, path, rooms) in enumerate(plans):
            if len(found) >= n:
                return found
            if index not in values:
                values[index] = (_edge_values(resolve(source.tree, tokens)) if exact else []) + _drawn(
                    _plain(resolve(source.tree, tokens[:depth])), 3, seconds, stats)
            document = next((c for v in values[index][round_::3] for c in (_put(d, path, v) for d in rooms)
                             if source.validator.is_valid(c)), None)
            if document is not None:
                found.append(document)
    return found


def _drawn(local: Any, n: int, seconds: float | None, stats: GenerationStats) -> list[Any]:
    """Up to ``n`` values of a subschema (none when it cannot be generated on its own)."""
    try:
        strategy = _values(local, validator_for(as_schema(local)), stats=stats)
        with _quiet():
            return sample(strategy, n, seconds=seconds)
    except Exception:
        return []


def _edge_values(node: Any) -> list[Any]:
    """The values at the edges of a string or number node's own bounds (see :func:`_direct`)."""
    if not isinstance(node, dict):
        return []
    found: list[Any] = []
    for key in ("maxLength", "minLength"):
        if isinstance(node.get(key), int):
            found += _direct(node, {"type": "string", "minLength": node[key], "maxLength": node[key]})
    for key in ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"):
        if key in node:
            found += _direct(node, {"type": "number", key: node[key]})
    return found


def from_sample(direction: Direction, source: Side, other: Side, document: Any,
                violations: list[SchemaViolation], location: str | None) -> Witness | None:
    """A generated document as the witness of a change, if it was rejected at ``location``."""
    violation = next((v for v in violations if matches_location(v, location)), None)
    if violation is None:
        return None
    return _make(direction, document, source, other, violation, "generated")
