"""One node's set of instances, written one way: the node merged with the members that always
apply with it.

Two versions of a node often say the same thing differently: ``type: string`` and ``allOf:
[{type: string}]``, a one-member ``oneOf``, a ``oneOf`` over branches no document can match
twice (the same set as an ``anyOf``), an ``allOf`` member repeated, an ``allOf`` that nothing
can satisfy (``number`` and ``string``). :func:`flatten` rewrites a canonical node (see
:mod:`harness.compat.normalise`) so that such pairs become equal, without changing which
documents it accepts:

- ``true`` is ``{}``; a ``false`` member, an empty type intersection, an empty ``enum``
  intersection or two different ``const`` make the node ``false`` (it accepts nothing);
- ``false`` branches of ``anyOf``/``oneOf`` are dropped (they never match); a one-member
  ``anyOf``/``oneOf`` is that member, applied in place; a ``oneOf`` whose branches are
  provably disjoint is an ``anyOf``;
- an expanded ``$ref`` and the ``allOf`` members are merged into the node keyword by keyword
  where that is exact (``type`` intersected, ``required`` united, bounds the tighter, equal
  values kept, ``properties`` merged name by name); a member whose keywords depend on siblings
  it would gain or lose (``additionalProperties`` next to ``properties``, ``items`` next to
  ``prefixItems``, ``then`` next to ``if``, ``unevaluated*``) stays an ``allOf`` member, and
  repeated members are kept once.

Only the node itself and its in-place members are rewritten; subschemas below stay as they are
(their own differences are compared where they are).
"""

from __future__ import annotations

from typing import Any

from harness.compat.normalise import REF_TARGET, json_key, unique_sorted
from harness.compat.predicates import all_disjoint
from harness.schemas import keywords as kw
from harness.schemas.dialects import (
    COUNT_BOUNDS,
    LOWER_BOUNDS,
    REF_KEYWORDS,
    SIBLING_GROUPS,
    UNEVALUATED,
    UNIONS,
    UPPER_BOUNDS,
)

#: A member holding one of these merges into no node: what ``unevaluated*`` sees depends on every
#: applicator beside it, and a dynamic reference's target on the path that reached it.
_NEVER = UNEVALUATED | {k for k in REF_KEYWORDS if k != "$ref"}


def flatten(node: Any) -> Any:
    """``node`` with its in-place members merged in where exact (see the module docstring)."""
    # Not keywords.walk: only the node and the members applying with it are rewritten, merged
    # into one node, and the subschemas below are left as they are.
    if node is True:
        return {}
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != REF_TARGET}
    members: list[Any] = list(out.pop("allOf", None) or [])
    if kw.inlined(out) is not None:
        members.append(out.pop("$ref"))
    for keyword in UNIONS:
        if not isinstance(out.get(keyword), list):
            continue
        branches = [flatten(b) for b in out[keyword] if b is not False]
        if not branches:
            return False
        if len(branches) == 1:
            del out[keyword]
            members.append(branches[0])
        elif all(isinstance(b, dict) and set(b) == {"type"} for b in branches) and (
                keyword == "anyOf" or all_disjoint(branches)):
            del out[keyword]  # a union of bare types is one type list
            members.append({"type": sorted({t for b in branches for t in b["type"]})})
        elif keyword == "oneOf" and all_disjoint(branches):
            del out[keyword]
            if "anyOf" in out:
                members.append({"anyOf": branches})
            else:
                out["anyOf"] = branches
        else:
            out[keyword] = branches
    kept: list[Any] = []
    for member in members:
        flat = flatten(member)
        if flat is False:
            return False
        if flat == {}:
            continue
        kept.extend(flat.pop("allOf", []))  # the member's own unmerged members apply here too
        try:
            merged = _merge(out, flat)
        except _Empty:
            return False
        if merged is None:
            kept.append(flat)
        else:
            out = merged
    if kept:
        out["allOf"] = unique_sorted(kept)
    return _impossible(out)


def _impossible(node: dict[str, Any]) -> Any:
    if node.get("type") == []:
        return False
    for low, high in COUNT_BOUNDS:
        if isinstance(node.get(low), int) and isinstance(node.get(high), int) and node[low] > node[high]:
            return False
    return node


def _conflicts(node: dict[str, Any], member: dict[str, Any]) -> bool:
    if _NEVER & set(member):
        return True
    for group in SIBLING_GROUPS:
        mine, theirs = group & set(node), group & set(member)
        if mine and theirs and not (mine | theirs) <= {"properties", "patternProperties"}:
            return True
    return False


class _Empty(Exception):
    """The node and a member together accept nothing."""


def _merge(node: dict[str, Any], member: dict[str, Any]) -> dict[str, Any] | None:
    """``node`` and ``member`` as one node; None when not exactly mergeable (:class:`_Empty`
    when the two together accept nothing)."""
    if _conflicts(node, member):
        return None
    out = dict(node)
    for key, value in member.items():
        if key not in out:
            out[key] = value
            continue
        mine = out[key]
        if json_key(mine) == json_key(value):
            continue
        if key == "type":
            out[key] = _types(mine, value)
        elif key == "required":
            out[key] = unique_sorted([*mine, *value])
        elif key == "enum" and isinstance(mine, list) and isinstance(value, list):
            theirs = {json_key(v) for v in value}
            out[key] = [v for v in mine if json_key(v) in theirs]
            if not out[key]:
                raise _Empty
        elif key == "const":
            raise _Empty
        elif key in UPPER_BOUNDS and _number(mine) and _number(value):
            out[key] = min(mine, value)
        elif key in LOWER_BOUNDS and _number(mine) and _number(value):
            out[key] = max(mine, value)
        elif key == "uniqueItems" and isinstance(mine, bool) and isinstance(value, bool):
            out[key] = mine or value
        elif key in kw.MAP and isinstance(mine, dict) and isinstance(value, dict):
            both = dict(mine)
            for name, sub in value.items():
                both[name] = sub if name not in both else flatten({"allOf": [both[name], sub]})
            out[key] = both
        elif key == "dependentRequired" and isinstance(mine, dict) and isinstance(value, dict):
            out[key] = {n: unique_sorted([*mine.get(n, []), *value.get(n, [])]) for n in {**mine, **value}}
        else:
            return None
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _types(a: list[str], b: list[str]) -> list[str]:
    found = set(a) & set(b)
    if ("number" in a and "integer" in b) or ("integer" in a and "number" in b):
        found.add("integer")
    return sorted(found)


def combinators(node: Any) -> frozenset[str]:
    """The composition keywords a node is written with (``allOf``/``anyOf``/``oneOf``, an
    expanded ``$ref``)."""
    if not isinstance(node, dict):
        return frozenset()
    return frozenset(k for k in (*kw.BRANCHES, "$ref") if k in node)


def union(node: Any) -> tuple[str, list[Any], dict[str, Any]] | None:
    """``(keyword, branches, rest)`` when a flattened node is an ``anyOf``/``oneOf`` (with
    ``rest`` the keywords beside it, applying to every branch); else None."""
    if not isinstance(node, dict):
        return None
    for keyword in UNIONS:
        if isinstance(node.get(keyword), list):
            rest = {k: v for k, v in node.items() if k != keyword}
            return keyword, list(node[keyword]), rest
    return None
