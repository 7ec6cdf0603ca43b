"""Small questions about one subschema that several rules ask."""

from __future__ import annotations

import json

from harness.schemas.document import Node

__all__ = ["declares_object", "excludes_objects", "has_int", "is_closed_set",
           "patterns", "pinned_value"]


def declares_object(node: Node) -> bool:
    """The node says its instance is an object: ``type: object``, or untyped ``properties``."""
    types = node.types
    if types is not None:
        return "object" in types
    return any(isinstance(node.get(k), dict) for k in ("properties", "patternProperties"))


def excludes_objects(node: Node) -> bool:
    """No object can pass the node (its ``type``, ``const`` or ``enum`` rule objects out)."""
    types = node.types
    if types is not None and "object" not in types:
        return True
    if node.has("const"):
        return not isinstance(node.raw["const"], dict)
    values = node.get("enum")
    return isinstance(values, list) and not any(isinstance(v, dict) for v in values)


def is_closed_set(node: Node) -> bool:
    """``const``, or an ``enum``: the value is one of a finite, listed set."""
    return node.has("const") or isinstance(node.get("enum"), list)


def pinned_value(node: Node) -> str | None:
    """The one value a node allows (``const`` or a one-element ``enum``), as canonical JSON."""
    if node.has("const"):
        return json.dumps(node.raw["const"], sort_keys=True)
    values = node.get("enum")
    if isinstance(values, list) and len(values) == 1:
        return json.dumps(values[0], sort_keys=True)
    return None


def patterns(node: Node) -> list[tuple[str, str, str]]:
    """``(what, regex, pointer)`` for the node's ``pattern`` and ``patternProperties`` keys."""
    found = []
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        found.append(("pattern", pattern, node.at("pattern")))
    keys = node.get("patternProperties")
    for key in keys if isinstance(keys, dict) else ():
        found.append(("patternProperties key", key, node.at("patternProperties", key)))
    return found


def has_int(node: Node, keyword: str) -> bool:
    value = node.get(keyword)
    return isinstance(value, int | float) and not isinstance(value, bool)
