"""A first ``agent_view`` for an imported schema: its top-level properties.

Properties are read through local ``$ref``, ``allOf`` (merged) and ``oneOf``/``anyOf``
(alternatives): a property is required in the view only when every alternative requires it.
When the top level is not always an object with declared properties (an array, a free map, a
``oneOf`` with a non-object branch), the view is the whole result under one name, ``result``.
The author is expected to narrow it; this is where the review starts, not where it ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.onboarding.names import unique, view_name
from harness.pointer import MISSING, escape_token, resolve

WHOLE_RESULT = "result"
_MAX_HOPS = 32


def deref(node: Any, root: Any) -> Any:
    """Follow local ``$ref`` chains (``True`` when a reference leaves the document)."""
    for _ in range(_MAX_HOPS):
        if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)):
            return node
        ref = node["$ref"]
        if not ref.startswith("#"):
            return True
        target = resolve(root, ref[1:])
        if target is MISSING:
            return True
        node = target
    return node


@dataclass(frozen=True, slots=True)
class ObjectShape:
    """Declared properties (in order) and the required ones, of one alternative."""

    properties: tuple[str, ...]
    required: frozenset[str]


def declared_types(node: Any) -> set[str]:
    """The JSON types a schema node names in ``type`` (empty when it names none)."""
    declared = node.get("type") if isinstance(node, Mapping) else None
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return set()


def top_level_shapes(schema: Any, root: Any | None = None, depth: int = 0) -> list[ObjectShape] | None:
    """The object shapes a document of ``schema`` may have at the top, or None when it may be
    something else (or the shape is unknown)."""
    root = schema if root is None else root
    node = deref(schema, root)
    if not isinstance(node, Mapping) or depth > _MAX_HOPS:
        return None
    types = declared_types(node)
    if types and "object" not in types:
        return None
    alternatives: list[ObjectShape] | None = None
    for key in ("oneOf", "anyOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            found: list[ObjectShape] = []
            for branch in branches:
                shapes = top_level_shapes(branch, root, depth + 1)
                if shapes is None:
                    return None
                found.extend(shapes)
            alternatives = found if alternatives is None else _cross(alternatives, found)
    own = _own_shape(node, root, depth)
    if own is None and alternatives is None:
        return None
    if alternatives is None:
        assert own is not None
        return [own]
    return alternatives if own is None else _cross([own], alternatives)


def _own_shape(node: Mapping[str, Any], root: Any, depth: int) -> ObjectShape | None:
    properties: list[str] = []
    required: set[str] = set()
    declared = False
    parts: list[Any] = [node]
    if isinstance(node.get("allOf"), list):
        parts.extend(node["allOf"])
    for index, part in enumerate(parts):
        part = deref(part, root) if index else part
        if not isinstance(part, Mapping):
            continue
        if index and any(k in part for k in ("oneOf", "anyOf", "allOf")):
            nested = top_level_shapes(part, root, depth + 1)
            if nested is not None and len(nested) == 1:
                declared = True
                properties.extend(p for p in nested[0].properties if p not in properties)
                required |= nested[0].required
            continue
        if isinstance(part.get("properties"), Mapping):
            declared = True
            properties.extend(p for p in part["properties"] if p not in properties)
        if isinstance(part.get("required"), list):
            required |= {r for r in part["required"] if isinstance(r, str)}
    if not declared:
        return None
    return ObjectShape(tuple(properties), frozenset(required))


def _cross(left: list[ObjectShape], right: list[ObjectShape]) -> list[ObjectShape]:
    """Alternatives of two keywords that both apply: every pair, merged."""
    out = []
    for a in left:
        for b in right:
            names = a.properties + tuple(p for p in b.properties if p not in a.properties)
            out.append(ObjectShape(names, a.required | b.required))
    return out


def derive_agent_view(schema: Any) -> dict[str, Any]:
    """``agent_view`` mapping for ``contract.yaml``: ``name: /pointer`` or
    ``name: {pointer, optional: true}`` for properties not required in every alternative."""
    shapes = top_level_shapes(schema)
    if not shapes:
        return {WHOLE_RESULT: ""}
    order: list[str] = []
    for shape in shapes:
        order.extend(p for p in shape.properties if p not in order)
    if not order:
        return {WHOLE_RESULT: ""}
    always = frozenset.intersection(*(s.required for s in shapes))
    view: dict[str, Any] = {}
    for key, prop in zip(unique(view_name(p) for p in order), order, strict=True):
        pointer = "/" + escape_token(prop)
        view[key] = pointer if prop in always else {"pointer": pointer, "optional": True}
    return view
