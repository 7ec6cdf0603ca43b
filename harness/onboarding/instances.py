"""A small, deterministic example of a schema: the default request of an imported tool.

Taken from what the schema says first (``const``, ``default``, ``examples``, ``enum``), then
built from ``type`` with only the required members. The caller validates the result: this is a
best guess, never a claim that the schema is satisfiable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.onboarding.view import deref
from harness.pointer import MISSING

_MAX_DEPTH = 16
_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


def example_of(schema: Any, root: Any | None = None, depth: int = 0) -> Any:
    """A value for ``schema``, or ``MISSING`` when none can be guessed."""
    root = schema if root is None else root
    node = deref(schema, root)
    if node is True:
        return {}
    if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
        return MISSING
    if "const" in node:
        return node["const"]
    if "default" in node:
        return node["default"]
    for key in ("examples", "enum"):
        values = node.get(key)
        if isinstance(values, list) and values:
            return next((v for v in values if v is not None), values[0])
    if "example" in node:
        return node["example"]
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key) or ():
            value = example_of(branch, root, depth + 1)
            if value is not MISSING:
                return value
    kind = _type(node)
    if kind is None and isinstance(node.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in node["allOf"]:
            value = example_of(part, root, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    return _of_type(kind, node, root, depth)


def _type(node: Mapping[str, Any]) -> str | None:
    declared = node.get("type")
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), declared[0] if declared else None)
    if declared is None and ("properties" in node or "required" in node):
        return "object"
    return declared if isinstance(declared, str) else None


def _of_type(kind: str | None, node: Mapping[str, Any], root: Any, depth: int) -> Any:
    if kind == "object":
        given = node.get("properties")
        properties: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        out: dict[str, Any] = {}
        for name in node.get("required") or ():
            value = example_of(properties.get(name, True), root, depth + 1)
            if value is MISSING:
                return MISSING
            out[name] = value
        return out
    if kind == "array":
        count = node.get("minItems", 0) if isinstance(node.get("minItems"), int) else 0
        if not count:
            return []
        item = example_of(node.get("items", True), root, depth + 1)
        return MISSING if item is MISSING else [item] * count
    if kind == "string":
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        length = node.get("minLength", 1) if isinstance(node.get("minLength"), int) else 1
        return "x" * max(length, 1)
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        if isinstance(low, int | float) and not isinstance(low, bool):
            value = low + 1 if "minimum" not in node else low
            return int(value) if kind == "integer" else value
        return 1
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return MISSING
