"""The operator's record of every verdict, kept apart from what the agent sees.

One JSON Lines record per verdict: contract and adapter version, upstream, request id, outcome,
layer, code, pointers, the validator's message (values and member names masked), and the sha256
and size of the raw bytes. Optionally a protected copy of the raw bytes is kept in a directory, named by its
sha256, written atomically and readable by the owner only.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.errors import printable_path
from harness.files import OutputError, open_append, write_atomic
from harness.timeutil import format_rfc3339

__all__ = ["AuditRecord", "AuditSink", "JsonlAuditSink", "MemoryAuditSink", "RawStore"]


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One verdict as the operator sees it. ``at`` is the clock the verdict was judged by."""

    at: datetime
    tool: str
    contract_version: int
    adapter: str | None
    adapter_version: str | None
    upstream: str | None
    request_id: str
    accepted: bool
    outcome: str
    layer: str | None
    code: str | None
    agent_code: str | None
    instance_pointer: str | None
    schema_pointer: str | None
    message: str | None
    raw_sha256: str
    raw_size: int
    raw_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = format_rfc3339(self.at)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


# Where a validator's message quotes member names the upstream chose (values are masked by the
# validator already): the list of unexpected members, a name held to ``propertyNames``, and the
# parse layer's repeated member name.
_NAME_LIST = re.compile(
    r"((?:Additional|Unevaluated) properties are not (?:allowed|valid under the given schema) )\(.*"
)
_LEADING_NAME = re.compile(r'^"(?:[^"\\]|\\.)*"')
_REPEATED_NAME = re.compile(r"member name (?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") repeats")
NAME_MASK = "<name>"


def mask_names(message: str | None, schema_pointer: str | None = None) -> str | None:
    """``message`` with the member names an upstream sent masked, for the audit record: a name
    in the audit log is upstream text (an injected instruction, a token used as a key) kept for
    months. The verdict's own diagnostics keep them for the person reading a report."""
    if message is None:
        return None
    masked = _NAME_LIST.sub(lambda m: f"{m.group(1)}({NAME_MASK} unexpected)", message)
    masked = _REPEATED_NAME.sub(f"member name {NAME_MASK} repeats", masked)
    if schema_pointer is not None and "/propertyNames" in schema_pointer:
        masked = _LEADING_NAME.sub(NAME_MASK, masked)
    return masked


@runtime_checkable
class AuditSink(Protocol):
    """Where audit records go. ``write`` must not raise on a well-formed record."""

    def write(self, record: AuditRecord) -> None: ...


class MemoryAuditSink:
    """Keeps records in a list (tests, embedding)."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def write(self, record: AuditRecord) -> None:
        self.records.append(record)


class Redacts(Protocol):
    """What an audit sink needs of :class:`harness.redaction.Redactor` (the boundary imports
    nothing above its layer): a copy of a record with every secret replaced."""

    def value(self, obj: Any) -> Any: ...


class JsonlAuditSink:
    """Appends one JSON line per record; each line is written whole and flushed.

    ``redactor`` (:class:`harness.redaction.Redactor`) replaces every spelling of a secret
    in each line before it is written: the audit log is kept for months, and a message or a
    pointer may quote what an upstream echoed of a token."""

    def __init__(self, path: str | Path, *, redactor: Redacts | None = None) -> None:
        self.path = Path(path)
        self.redactor = redactor
        self._lock = threading.Lock()
        # Never through a symlink, never into a FIFO or device (harness.files.open_append).
        self._file = os.fdopen(open_append(self.path, "audit file"), "a", encoding="utf-8")

    def write(self, record: AuditRecord) -> None:
        self._line(record.to_dict())

    def _line(self, data: Any) -> None:
        if self.redactor is not None:
            data = self.redactor.value(data)
        line = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def __enter__(self) -> JsonlAuditSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RawStore:
    """Protected copies of raw upstream bytes, content-addressed by sha256."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        if self.directory.is_symlink() or (self.directory.exists() and not self.directory.is_dir()):
            raise OutputError(f"--keep-raw {printable_path(self.directory)} is not a directory",
                              code="output.not_regular")
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise OutputError(f"cannot create --keep-raw {printable_path(self.directory)}: {exc.strerror}") from None

    def keep(self, raw: bytes, sha256: str) -> Path:
        path = self.directory / f"{sha256}.bin"
        if not path.exists():
            write_atomic(path, raw, mode=0o600)
        return path
