"""A first ``agent_view`` for an imported schema: its top-level properties.

Properties are read through the schema model: references, ``allOf`` (merged) and
``oneOf``/``anyOf`` (alternatives): a property is required in the view only when every alternative requires it.
When the top level is not always an object with declared properties (an array, a free map, a
``oneOf`` with a non-object branch), the view is the whole result under one name, ``result``.
The author is expected to narrow it; this is where the review starts, not where it ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.onboarding.names import unique, view_name
from harness.pointer import escape_token
from harness.schemas import Document, Node

WHOLE_RESULT = "result"
_MAX_DEPTH = 32


def deref(node: Node | None) -> Node | None:
    """The node with its reference chain followed (as the schema model resolves it); None
    when a reference cannot be followed."""
    seen: set[Node] = set()
    while node is not None and node not in seen:
        seen.add(node)
        ref = node.document.reference(node)
        if ref is None:
            return node
        node = ref.target
    return node


@dataclass(frozen=True, slots=True)
class ObjectShape:
    """Declared properties (in order) and the required ones, of one alternative."""

    properties: tuple[str, ...]
    required: frozenset[str]


def top_level_shapes(schema: Document | Any) -> list[ObjectShape] | None:
    """The object shapes a document of ``schema`` (or of its model) may have at the top, or
    None when it may be something else (or the shape is unknown)."""
    document = schema if isinstance(schema, Document) else Document(schema)
    return _shapes(document.root, 0)


def _shapes(start: Node, depth: int) -> list[ObjectShape] | None:
    node = deref(start)
    if node is None or not isinstance(node.schema, dict) or depth > _MAX_DEPTH:
        return None
    types = node.types
    if types and "object" not in types:
        return None
    alternatives: list[ObjectShape] | None = None
    for key in ("oneOf", "anyOf"):
        branches = node.document.kids(node, key)
        if branches:
            found: list[ObjectShape] = []
            for branch in branches:
                shapes = _shapes(branch, depth + 1)
                if shapes is None:
                    return None
                found.extend(shapes)
            alternatives = found if alternatives is None else _cross(alternatives, found)
    own = _own_shape(node, depth)
    if own is None and alternatives is None:
        return None
    if alternatives is None:
        assert own is not None
        return [own]
    return alternatives if own is None else _cross([own], alternatives)


def _own_shape(node: Node, depth: int) -> ObjectShape | None:
    properties: list[str] = []
    required: set[str] = set()
    declared = False
    parts: list[Node | None] = [node, *(deref(p) for p in node.document.kids(node, "allOf"))]
    for index, part in enumerate(parts):
        if part is None or not isinstance(part.schema, dict):
            continue
        if index and any(part.has(k) for k in ("oneOf", "anyOf", "allOf")):
            nested = _shapes(part, depth + 1)
            if nested is not None and len(nested) == 1:
                declared = True
                properties.extend(p for p in nested[0].properties if p not in properties)
                required |= nested[0].required
            continue
        if isinstance(part.get("properties"), dict):
            declared = True
            properties.extend(p for p in part.raw["properties"] if p not in properties)
        if isinstance(part.get("required"), list):
            required |= {r for r in part.raw["required"] if isinstance(r, str)}
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


def derive_agent_view(schema: Document | Any) -> dict[str, Any]:
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
