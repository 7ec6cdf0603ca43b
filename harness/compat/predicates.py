"""Questions about canonical (aligned) schema nodes that the classifier and the rules both ask:
the types a node allows, its finite values, the names it requires or forbids, whether two
branches are provably disjoint, whether a property name matches a pattern.

They read a node and the in-place members that always apply with it (``allOf`` members and
expanded references) and answer conservatively: ``disjoint`` is true only when no document can
match both nodes.
"""

from __future__ import annotations

import functools
from typing import Any

from harness.boundary.validator import validator_for
from harness.compat.normalise import json_key
from harness.drift.shape import json_type
from harness.errors import ContractError
from harness.schemas import keywords as kw


def types_of(node: Any) -> set[str] | None:
    """The ``type`` list of the node itself (None when it has none)."""
    if isinstance(node, dict) and isinstance(node.get("type"), list):
        return set(node["type"])
    return None


def effective_types(node: Any) -> set[str] | None:
    """The types a node allows, its in-place members' ``type`` included (None: any type)."""
    found = types_of(node)
    for _, member in members(node):
        theirs = effective_types(member)
        if theirs is not None:
            found = theirs if found is None else intersect_types(found, theirs)
    return found


def intersect_types(a: set[str], b: set[str]) -> set[str]:
    """The types both allow (an ``integer`` is a ``number``)."""
    both = a & b
    if ("number" in a and "integer" in b) or ("integer" in a and "number" in b):
        both.add("integer")
    return both


def finite_values(node: Any) -> list[Any] | None:
    if not isinstance(node, dict):
        return [] if node is False else None
    if "const" in node:
        return [node["const"]]
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    types = types_of(node)
    if types is not None and types <= {"null", "boolean"}:
        return ([None] if "null" in types else []) + ([False, True] if "boolean" in types else [])
    return None


def members(node: Any) -> list[tuple[tuple[str, ...], Any]]:
    """Unconditional in-place members of a node (aligned, or canonical with lists): allOf members
    and expanded references."""
    # Not keywords.walk: an aligned tree keys allOf's members by their pairing ("0:1"), a map
    # where walk reads a list.
    if not isinstance(node, dict):
        return []
    all_of = node.get("allOf") or {}
    items = all_of.items() if isinstance(all_of, dict) else ((str(i), sub) for i, sub in enumerate(all_of))
    found: list[tuple[tuple[str, ...], Any]] = [(("allOf", key), sub) for key, sub in items]
    target = kw.inlined(node)
    if target is not None:
        found.append((("$ref",), target))
    return found


def branches(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, list) else []


def required_names(node: Any) -> set[str]:
    if not isinstance(node, dict):
        return set()
    found = set(node.get("required") or [])
    for _, member in members(node):
        found |= required_names(member)
    return found


def property_schemas(node: Any, name: str) -> list[Any]:
    if not isinstance(node, dict):
        return []
    found = [node["properties"][name]] if name in (node.get("properties") or {}) else []
    for _, member in members(node):
        found += property_schemas(member, name)
    return found


def forbids(node: Any, name: str) -> bool:
    """Does the node (or a member) reject every object holding ``name``?"""
    if not isinstance(node, dict):
        return node is False
    if (node.get("properties") or {}).get(name) is False:
        return True
    closed = node.get("additionalProperties") is False and not node.get("patternProperties")
    if closed and name not in (node.get("properties") or {}):
        return True
    if (node.get("unevaluatedProperties") is False and "additionalProperties" not in node
            and not _may_evaluate(node, name)):
        return True
    return any(forbids(member, name) for _, member in members(node))


def _may_evaluate(node: Any, name: str) -> bool:
    """Might ``name`` be evaluated at this instance by the node or an in-place applicator below
    it (a declared property, a pattern, an ``additionalProperties``)? Conservative: True when
    unsure."""
    if not isinstance(node, dict):
        return False
    if name in (node.get("properties") or {}) or node.get("patternProperties") or "additionalProperties" in node:
        return True
    for key in kw.IN_PLACE:
        value = node.get(key)
        subs = branches(value) if key in kw.MEMBERED else [value]
        if key == "not" or value is None:
            continue  # not's annotations are dropped
        if any(_may_evaluate(sub, name) or (isinstance(sub, dict) and "unevaluatedProperties" in sub) for sub in subs):
            return True
    return False


def _types_disjoint(a: set[str] | None, b: set[str] | None) -> bool:
    if a is None or b is None:
        return False
    return not (_widen(a) & _widen(b))


def _widen(types: set[str]) -> set[str]:
    """JSON Schema's "number" includes integers."""
    return types | ({"integer"} if "number" in types else set())


def disjoint(a: Any, b: Any) -> bool:
    """True when no document can match both branches (provably: by type, by finite values, or by
    a discriminator property or a name one requires and the other forbids)."""
    if a is False or b is False:
        return True
    types_a, types_b = effective_types(a), effective_types(b)
    if _types_disjoint(types_a, types_b):
        return True
    values_a, values_b = finite_values(a), finite_values(b)
    if values_a is not None and values_b is not None and not (
            {json_key(v) for v in values_a} & {json_key(v) for v in values_b}):
        return True
    for values, types in ((values_a, types_b), (values_b, types_a)):
        if values is not None and types is not None and not any(_typed(v, types) for v in values):
            return True
    if {"object"} not in (types_a, types_b):
        return False  # non-objects satisfy property-based discriminators vacuously
    for name in required_names(a) & required_names(b):
        for x in property_schemas(a, name):
            for y in property_schemas(b, name):
                vx, vy = finite_values(x), finite_values(y)
                if vx is not None and vy is not None and not ({json_key(v) for v in vx} & {json_key(v) for v in vy}):
                    return True
    return any(forbids(b, n) for n in required_names(a)) or any(forbids(a, n) for n in required_names(b))


def _typed(value: Any, types: set[str]) -> bool:
    """Is ``value`` of one of ``types`` (``1.0`` is an integer, integers are numbers)?"""
    found = json_type(value)
    if found == "number" and float(value).is_integer():
        found = "integer"
    return found in _widen(types)


def all_disjoint(nodes: list[Any]) -> bool:
    """True when no two of ``nodes`` can match the same document (provably)."""
    return all(disjoint(x, y) for i, x in enumerate(nodes) for y in nodes[i + 1:])


@functools.lru_cache(maxsize=512)
def _pattern_validator(pattern: str) -> Any:
    return validator_for({"pattern": pattern})


def matches(pattern: str, name: str) -> bool:
    """Does ``name`` match ``pattern`` as the production validator reads it (ECMA 262)?"""
    try:
        return bool(_pattern_validator(pattern).is_valid(name))
    except ContractError:
        return False


def matches_everything(pattern: str) -> bool:
    return pattern in ("", ".*", "^.*", "^.*$", "[\\s\\S]*", "^[\\s\\S]*$")


def pattern_names(pattern: str) -> frozenset[str] | None:
    """Every name ``pattern`` matches, when they are few (``^(foo|bar)$``); None otherwise."""
    from harness.compat.patterns import finite

    found = finite(pattern)
    return None if found is None or not all(matches(pattern, s) for s in found) else found


def pattern_examples(pattern: str, limit: int = 12) -> list[str]:
    """Some names matching ``pattern`` (found with greenery where it can read the pattern)."""
    from harness.compat.patterns import examples

    return [s for s in examples(pattern, limit) if matches(pattern, s)]
