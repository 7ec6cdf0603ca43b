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
from harness.schemas import Document, Node

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


def example_of(schema: Node | Any) -> Any:
    """A value for ``schema`` (a schema, or a node of the schema model), or ``MISSING`` when
    none can be guessed."""
    node = schema if isinstance(schema, Node) else Document(schema).root
    return _example(node, 0)


def _example(start: Node, depth: int) -> Any:
    node = deref(start)
    if node is None or node.schema is True:
        return {}  # true, or a reference the model cannot follow: anything goes
    if depth > _MAX_DEPTH:
        return MISSING
    raw = node.raw
    if not isinstance(node.schema, dict):
        return MISSING
    if "const" in raw:
        return raw["const"]
    if "default" in raw:
        return raw["default"]
    for key in ("examples", "enum"):
        values = raw.get(key)
        if isinstance(values, list) and values:
            return next((v for v in values if v is not None), values[0])
    if "example" in raw:
        return raw["example"]
    kids = node.document.kids
    for key in ("oneOf", "anyOf"):
        for branch in kids(node, key):
            value = _example(branch, depth + 1)
            if value is not MISSING:
                return value
    kind = _type(raw)
    if kind is None and isinstance(raw.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in kids(node, "allOf"):
            value = _example(part, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    return _of_type(kind, node, depth)


def _type(node: Mapping[str, Any]) -> str | None:
    declared = node.get("type")
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), declared[0] if declared else None)
    if declared is None and ("properties" in node or "required" in node):
        return "object"
    return declared if isinstance(declared, str) else None


def _of_type(kind: str | None, node: Node, depth: int) -> Any:
    raw = node.raw
    if kind == "object":
        properties = {k.key: k for k in node.document.kids(node, "properties")}
        out: dict[str, Any] = {}
        for name in raw.get("required") or ():
            member = properties.get(name)
            value = _example(member, depth + 1) if member is not None else {}
            if value is MISSING:
                return MISSING
            out[name] = value
        return out
    if kind == "array":
        count = raw.get("minItems", 0) if isinstance(raw.get("minItems"), int) else 0
        if not count:
            return []
        items = [k for k in node.document.kids(node, "items") if k.key is None]
        item = _example(items[0], depth + 1) if items else {}
        return MISSING if item is MISSING else [item] * count
    if kind == "string":
        fmt = raw.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        length = raw.get("minLength", 1) if isinstance(raw.get("minLength"), int) else 1
        return "x" * max(length, 1)
    if kind in ("integer", "number"):
        low = raw.get("minimum", raw.get("exclusiveMinimum"))
        if isinstance(low, int | float) and not isinstance(low, bool):
            value = low + 1 if "minimum" not in raw else low
            return int(value) if kind == "integer" else value
        return 1
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return MISSING
