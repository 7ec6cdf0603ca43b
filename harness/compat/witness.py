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

from harness.boundary.schema import SchemaValidator, SchemaViolation
from harness.compat.model import Budget, Direction
from harness.compat.normalise import REF_TARGET, Side
from harness.pointer import split
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


def search(
    direction: Direction,
    source: Side,
    other: Side,
    pointer: str,
    extra: Any,
    location: str | None,
    budget: Budget,
) -> Witness | None:
    """A minimal document valid under ``source`` whose focus holds ``extra`` and that ``other``
    rejects at ``location``; None when the budget finds none."""
    tree = _plain(focus(source.tree, pointer, extra))
    if tree is False:
        return None
    try:
        strategy = from_lowered(lower(tree, expanded=True), source.validator)
    except Exception:
        return None
    def condition(doc: Any) -> bool:
        return _rejection(other.validator, doc, location) is not None

    try:
        with time_budget(budget.seconds):
            document = find(strategy, condition, settings=quiet_settings(budget.examples))
    except (NoSuchExample, HypothesisException, OutOfTime):
        return None
    except Exception:
        return None
    violation = _rejection(other.validator, document, location)
    assert violation is not None
    return _make(direction, json.loads(json.dumps(document)), source, other, violation, "targeted")


def generated(direction: Direction, source: Side, other: Side, n: int, seconds: float | None = None) -> Sampled:
    """``n`` documents generated from ``source`` (the whole schema) judged by ``other``."""
    result = Sampled(direction)
    if n <= 0:
        return result
    try:
        strategy = from_lowered(lower(_plain(source.tree), expanded=True), source.validator, stats=result.stats)
        documents = sample(strategy, n, seconds=seconds)
    except Exception:
        return result
    for document in documents:
        result.checked += 1
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
