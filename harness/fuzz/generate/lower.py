"""Lower a Draft 2020-12 schema to the draft-07 form ``hypothesis-jsonschema`` understands.

hypothesis-jsonschema stops at draft-07 semantics: it ignores ``unevaluatedProperties``,
``unevaluatedItems``, ``prefixItems``, ``dependentRequired``, ``dependentSchemas``,
``minContains``/``maxContains`` and cannot follow dynamic references. A generator that simply
ignores them produces documents the production validator rejects (a closed object written
with ``unevaluatedProperties: false`` comes out open). :func:`lower` rewrites what has an
*exactly* equivalent draft-07 spelling:

- local ``$ref`` and ``$defs``: inlined (:func:`harness.schemas.resolve.expand`);
- ``prefixItems`` + ``items`` -> ``items: [...]`` + ``additionalItems``;
- ``dependentRequired`` / ``dependentSchemas`` -> ``dependencies``;
- ``unevaluatedProperties`` whose evaluated names are all visible (the object's own
  ``properties``/``patternProperties`` and those of its ``allOf`` members and references, which
  must all hold) -> ``additionalProperties`` plus ``true`` stubs for the visible names; dropped
  when an ``additionalProperties`` in the same place already evaluates every name;
- ``unevaluatedItems`` likewise, when the evaluated positions are all visible.

Everything else is left in place and reported in ``Lowered.inexact``: the generator then
produces a superset, and callers re-validate each value with the production validator (see
:mod:`harness.fuzz.generate.documents`), so an inexact lowering costs discards, never wrong output.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.pointer import join
from harness.schemas import keywords as kw
from harness.schemas.resolve import Expanded, expand

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
#: Keywords that mean nothing to the generator and may confuse its reference resolver.
_DROP = frozenset({"$id", "$anchor", "$dynamicAnchor", "$schema", "$vocabulary", "$comment"})
#: Branches that apply only when they hold: their names are not always evaluated (every
#: in-place applicator but ``allOf`` and the references).
_CONDITIONAL = tuple(sorted(kw.IN_PLACE - {"allOf"} - kw.REFERENCES))

_ITEM_KEYWORDS = ("prefixItems", "items", "unevaluatedItems", "contains")


@dataclass(frozen=True, slots=True)
class Lowered:
    """A draft-07 schema for the generator, and what could not be lowered exactly."""

    schema: Any
    #: ``(pointer, what)`` for every construct left as written (the generator ignores it).
    inexact: tuple[tuple[str, str], ...] = ()

    @property
    def exact(self) -> bool:
        return not self.inexact


#: Unconditional in-place members: ``allOf`` members and expanded references.
_MEMBERS = frozenset({"allOf", "$ref"})
_NAME_KEYWORDS = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")


def _cluster(node: Any, *, members_only: bool) -> list[dict[str, Any]]:
    """The node and its unconditional in-place members, at any depth (objects only); with
    ``members_only``, the members alone."""
    return [sub for path, sub, _ in kw.walk(node, into=_MEMBERS)
            if isinstance(sub, dict) and (path or not members_only)]


def _visible(node: Any, *, members_only: bool = False) -> tuple[set[str], set[str], bool, bool]:
    """Names and patterns a node evaluates, whether it evaluates *every* name, and whether the
    answer is exact (no conditional branch contributes)."""
    names: set[str] = set()
    patterns: set[str] = set()
    everything, exact = False, True
    for sub in _cluster(node, members_only=members_only):
        names.update(sub.get("properties", {}) or {})
        patterns.update(sub.get("patternProperties", {}) or {})
        everything = everything or "additionalProperties" in sub or "unevaluatedProperties" in sub
        for key in _CONDITIONAL:
            value = sub.get(key)
            if isinstance(value, list):
                branches = value
            elif key == "dependentSchemas" and isinstance(value, dict):
                branches = list(value.values())
            else:
                branches = [value]
            for branch in branches:
                if key != "not" and isinstance(branch, dict) and _declares_names(branch):
                    exact = False
    return names, patterns, everything, exact


def _declares_names(node: Mapping[str, Any]) -> bool:
    return any(k in sub for sub in _cluster(node, members_only=False) for k in _NAME_KEYWORDS)


def _visible_items(node: Any, *, members_only: bool = False) -> tuple[int, bool, bool]:
    """Prefix length evaluated, whether every position is evaluated, and exactness."""
    length, everything, exact = 0, False, True
    for sub in _cluster(node, members_only=members_only):
        length = max(length, len(sub.get("prefixItems", []) or []))
        everything = everything or "items" in sub or "unevaluatedItems" in sub
        exact = exact and "contains" not in sub  # contains annotates the positions it matched
        for key in _CONDITIONAL:
            value = sub.get(key)
            for branch in value if isinstance(value, list) else [value]:
                if isinstance(branch, dict) and any(k in branch for k in _ITEM_KEYWORDS):
                    exact = False
    return length, everything, exact


class _Lowerer:
    def __init__(self) -> None:
        self.inexact: list[tuple[str, str]] = []

    def lower(self, node: Any, pointer: str) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        self._unevaluated_properties(node, pointer)
        self._unevaluated_items(node, pointer)
        out: dict[str, Any] = {}

        def lowered(key: str, value: Any) -> Any:  # the keyword's subschemas lowered, each at its pointer
            return kw.map_held(key, value, lambda sub, tokens: self.lower(sub, pointer + join(tokens)))

        for key, value in node.items():
            if key in _DROP:
                continue
            if key == "$ref":
                if isinstance(value, dict | bool):
                    out["allOf"] = [*out.get("allOf", []), lowered(key, value)]
                else:
                    self.inexact.append((pointer, f"$ref {value!r} (not expanded)"))
            elif key in ("$dynamicRef", "$recursiveRef"):
                self.inexact.append((pointer, key))
            elif key == "prefixItems":
                out["items"] = lowered(key, value)
                if "items" in node:
                    out["additionalItems"] = lowered("items", node["items"])
            elif key == "items" and "prefixItems" in node:
                continue
            elif key == "dependentRequired":
                out.setdefault("dependencies", {}).update({k: list(v) for k, v in value.items()})
            elif key == "dependentSchemas":
                out.setdefault("dependencies", {}).update(lowered(key, value))
            elif key in ("minContains", "maxContains", "unevaluatedProperties", "unevaluatedItems"):
                self.inexact.append((pointer, key))
            elif key == "allOf":
                out["allOf"] = [*lowered(key, value), *out.get("allOf", [])]
            elif kw.holds(key, value) is not None:
                out[key] = lowered(key, value)
            else:
                out[key] = copy.deepcopy(value)
        return out

    def _unevaluated_properties(self, node: dict[str, Any], pointer: str) -> None:
        if "unevaluatedProperties" not in node:
            return
        closure = node["unevaluatedProperties"]
        if "additionalProperties" in node:
            del node["unevaluatedProperties"]  # additionalProperties already evaluates every name
            return
        names, patterns, everything, exact = _visible(node, members_only=True)
        own_exact = _visible({k: v for k, v in node.items() if k != "unevaluatedProperties"})[3]
        if everything and exact:
            del node["unevaluatedProperties"]
            return
        if not (exact and own_exact):
            return  # left in place; reported when the key is visited
        del node["unevaluatedProperties"]
        properties = dict(node.get("properties", {}) or {})
        for name in sorted(names - set(properties)):
            properties[name] = True
        if properties:
            node["properties"] = properties
        pattern_properties = dict(node.get("patternProperties", {}) or {})
        for pattern in sorted(patterns - set(pattern_properties)):
            pattern_properties[pattern] = True
        if pattern_properties:
            node["patternProperties"] = pattern_properties
        node["additionalProperties"] = closure

    def _unevaluated_items(self, node: dict[str, Any], pointer: str) -> None:
        if "unevaluatedItems" not in node:
            return
        closure = node["unevaluatedItems"]
        if "items" in node:
            del node["unevaluatedItems"]
            return
        length, everything, exact = _visible_items(node, members_only=True)
        length = max(length, len(node.get("prefixItems", []) or []))
        exact = exact and "contains" not in node
        own_exact = _visible_items({k: v for k, v in node.items() if k != "unevaluatedItems"})[2]
        if not (exact and own_exact):
            return
        del node["unevaluatedItems"]
        if everything:
            return
        prefix = list(node.get("prefixItems", []) or [])
        prefix += [True] * (length - len(prefix))
        if prefix:
            node["prefixItems"] = prefix
        node["items"] = closure


def lower(schema: Any, *, expanded: bool = False, **expand_options: Any) -> Lowered:
    """Lower ``schema`` for hypothesis-jsonschema; see the module docstring.

    ``schema`` is a written schema (its references are expanded first, with ``base_uri`` and
    ``resources`` from ``expand_options``), or an already expanded tree when ``expanded`` is
    true (a :class:`~harness.schemas.resolve.Expanded` is accepted as well).
    """
    notes: list[tuple[str, str]] = []
    if isinstance(schema, Expanded):
        tree, notes = schema.schema, [(u.pointer, f"{u.keyword}: {u.reason}") for u in schema.unmodelled]
    elif expanded:
        tree = schema
    else:
        result = expand(schema, **expand_options)
        tree, notes = result.schema, [(u.pointer, f"{u.keyword}: {u.reason}") for u in result.unmodelled]
    lowerer = _Lowerer()
    lowered = lowerer.lower(tree, "")
    if isinstance(lowered, dict):
        lowered = {"$schema": DRAFT_07, **lowered}
    return Lowered(lowered, tuple(dict.fromkeys([*notes, *lowerer.inexact])))
