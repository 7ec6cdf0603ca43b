"""Layer 7, ``projection``: build a fresh agent-facing object from declared fields only.

The validated result is never handed over wholesale. A new object is built from the
``agent_view`` pointers, and it must validate against the *view schema*: a closed object
derived from the contract schema (each field's subschema found by walking the pointer through
``properties``, ``items``, local ``$ref`` and the branches of ``allOf``/``oneOf``/``anyOf``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from harness.boundary.base import Evaluation, Rejection
from harness.boundary.compiled import view_validator
from harness.codes import PROJECTION_MISSING_FIELD, PROJECTION_VIEW_INVALID
from harness.pointer import MISSING, is_index, resolve, split

if TYPE_CHECKING:
    from harness.contract.records import Contract

_DEFS_KEYS = ("$defs", "definitions")
_BRANCHES = ("allOf", "oneOf", "anyOf")
_MAX_REF_HOPS = 32


def _deref(node: Any, root: Any) -> Any:
    hops = 0
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and hops < _MAX_REF_HOPS:
        ref = node["$ref"]
        if not ref.startswith("#"):
            return node  # another file: kept as a reference (the view compiles with the registry)
        target = resolve(root, ref[1:])
        if target is MISSING:
            return True
        node = target
        hops += 1
    return node


def expand_schema(node: Any, root: Any, depth: int = 0) -> Iterator[Any]:
    """The schema and, transitively, its applicator branches (refs followed)."""
    node = _deref(node, root)
    if not isinstance(node, Mapping) or depth > _MAX_REF_HOPS:
        return
    yield node
    for key in _BRANCHES:
        for branch in node.get(key, ()) or ():
            yield from expand_schema(branch, root, depth + 1)


def _step(node: Mapping[str, Any], token: str) -> Any:
    properties = node.get("properties")
    if isinstance(properties, Mapping) and token in properties:
        return properties[token]
    if is_index(token):
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and int(token) < len(prefix):
            return prefix[int(token)]
        if isinstance(node.get("items"), Mapping | bool):
            return node["items"]
    return MISSING


def subschema_at(schema: Any, pointer: str) -> Any:
    """The schema governing ``pointer`` in documents valid under ``schema`` (``True`` if none)."""
    candidates: list[Any] = [schema]
    for token in split(pointer):
        following: list[Any] = []
        for candidate in candidates:
            for node in expand_schema(candidate, schema):
                found = _step(node, token)
                if found is not MISSING:
                    following.append(found)
        if not following:
            return True
        candidates = following
    resolved = [_deref(c, schema) for c in candidates]
    unique: list[Any] = []
    for item in resolved:
        if item not in unique:
            unique.append(item)
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def derive_view_schema(contract: Contract, version: int | None = None) -> dict[str, Any]:
    """The closed schema every agent ``data`` object of this contract must satisfy."""
    schema = contract.schema(version)
    properties = {f.name: copy.deepcopy(subschema_at(schema, f.pointer)) for f in contract.agent_view}
    view: dict[str, Any] = {}
    if isinstance(schema, Mapping) and "$schema" in schema:
        view["$schema"] = schema["$schema"]
    view.update(
        {
            "type": "object",
            "required": [f.name for f in contract.agent_view if not f.optional],
            "properties": properties,
            "additionalProperties": False,
        }
    )
    if isinstance(schema, Mapping):
        for key in _DEFS_KEYS:
            if key in schema:
                view[key] = copy.deepcopy(schema[key])
    return view


def check(ev: Evaluation) -> Rejection | None:
    """Copy each agent_view field into a new object and hold it to the view schema."""
    if ev.outcome == "failure":
        return None
    data: dict[str, Any] = {}
    for field in ev.contract.agent_view:
        value = resolve(ev.result, field.tokens)
        if value is MISSING:
            if field.optional:
                continue
            return Rejection(
                PROJECTION_MISSING_FIELD,
                f"agent_view field {field.name!r} finds nothing at {field.pointer}",
                instance_pointer=field.pointer,
            )
        # No copy needed: the document was parsed for this check alone, and the agent receives
        # a serialisation of the projection (Verdict.agent_json), never these objects.
        data[field.name] = value
    validator = view_validator(ev.contract, ev.version)
    if not validator.is_valid(data):
        violation = validator.violations(data)[0]
        return Rejection(
            PROJECTION_VIEW_INVALID,
            f"agent view fails schema.{violation.keyword}: {violation.message}",
            instance_pointer=violation.instance_pointer,
            schema_pointer=violation.schema_pointer,
        )
    ev.view = data
    return None
