"""What an importer produces before anything touches the disk: one draft per tool.

A :class:`ToolDraft` holds the ``contract.yaml`` data, the first schema version as the source
published it, and the payloads offered as fixtures (:class:`Candidate`); the judge decides
later, with the real boundary, which become accepted and which historical fixtures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True, slots=True)
class Candidate:
    """A payload offered as a fixture, with the request it answered when known."""

    name: str
    payload: bytes
    args: Mapping[str, Any] | None
    description: str
    upstream: str | None = None
    recorded_at: str | None = None
    #: A designed negative (``init``'s example): filed under ``fixtures/rejected/``.
    negative: bool = False


@dataclass(frozen=True, slots=True)
class Skipped:
    """A capture that cannot be a fixture (an ``isError`` result, a JSON-RPC error, ...)."""

    name: str
    reason: str


@dataclass(frozen=True, slots=True)
class ToolDraft:
    """One contract to write: ``contract.yaml`` data, ``schemas/v1.json``, fixture candidates."""

    tool: str
    source_name: str
    contract: Mapping[str, Any]
    schema: Any
    header: str = ""
    candidates: tuple[Candidate, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = field(default=())
    #: The schema was inferred from samples (the source published none).
    inferred: bool = False


def header(origin: str, what: str) -> str:
    """The comment at the top of an imported ``contract.yaml``: where it came from, what to review."""
    return (
        f"{origin}\n"
        f"The {what} is kept as published (lint says where it is open); review agent_view:\n"
        "it lists every top-level property, and the model will see every one of them."
    )


def dump_yaml(data: Any, header: str = "") -> bytes:
    """YAML for people: keys in the order given, short leaf collections inline."""
    text: str = yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100
    )
    comment = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return (comment + text).encode("utf-8")


def dump_json(data: Any) -> bytes:
    """A schema or payload file: indented, UTF-8, a final newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def first_line(text: str | None, limit: int = 500) -> str:
    """The first non-empty line of a description, cut to ``limit`` characters."""
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."
    return ""
