"""Throwaway contracts for tests: the ``item_status`` envelope schema, its default
``contract.yaml``, a conforming result, and a writer for a project of such files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

ENVELOPE_DATA = {
    "type": "object",
    "required": ["item_id", "status"],
    "properties": {
        "item_id": {"type": "string", "pattern": "^it-[0-9]{1,6}$", "maxLength": 9},
        "status": {"enum": ["open", "closed"]},
        "note": {"type": "string", "maxLength": 20},
    },
    "additionalProperties": False,
}


def envelope_schema(tool: str, data_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``item_status`` envelope for ``tool``: a success carrying ``data_schema`` (default
    :data:`ENVELOPE_DATA`) or a failure carrying the standard error."""
    rid = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.]{7,63}$", "maxLength": 64}
    error = {
        "type": "object",
        "required": ["code", "retryable"],
        "properties": {"code": {"enum": ["NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE"]},
                       "retryable": {"type": "boolean"}},
        "additionalProperties": False,
    }

    def branch(outcome: str, member: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["tool", "request_id", "outcome", member],
            "properties": {"tool": {"const": tool}, "request_id": rid, "outcome": {"const": outcome}, member: schema},
            "additionalProperties": False,
        }

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "oneOf": [branch("success", "data", data_schema or ENVELOPE_DATA), branch("failure", "error", error)],
    }


DEFAULT_YAML = """\
tool: {tool}
version: 1
request:
  schema: {{type: object, properties: {{item_id: {{type: string}}}}}}
  example: {{item_id: it-7}}
bindings:
  - {{name: item_id, result: /data/item_id, request: /args/item_id}}
agent_view:
  item_id: /data/item_id
  status: /data/status
"""


def item(tool: str = "item_status", **data: Any) -> bytes:
    body = {"item_id": "it-7", "status": "open", **data}
    return json.dumps(
        {"tool": tool, "request_id": "req.J7q94MkP", "outcome": "success", "data": body}
    ).encode()


def write_contract(
    root: Path,
    tool: str = "item_status",
    yaml_text: str | None = None,
    schemas: dict[int, Any] | None = None,
    files: dict[str, str | bytes] | None = None,
) -> Path:
    """Write ``root/contracts/<tool>/contract.yaml`` and ``schemas/v<N>.json`` (and any other
    ``files``, relative to ``root``); returns the contract's folder."""
    directory = root / "contracts" / tool
    (directory / "schemas").mkdir(parents=True, exist_ok=True)
    text = DEFAULT_YAML.format(tool=tool) if yaml_text is None else textwrap.dedent(yaml_text)
    (directory / "contract.yaml").write_text(text)
    for version, schema in (schemas or {1: envelope_schema(tool)}).items():
        (directory / "schemas" / f"v{version}.json").write_text(json.dumps(schema, indent=1))
    for rel, content in (files or {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return directory
