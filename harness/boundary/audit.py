"""The operator's record of every verdict, kept apart from what the agent sees.

One JSON Lines record per verdict: contract and adapter version, upstream, request id, outcome,
layer, code, pointers, the validator's message (values masked), and the sha256 and size of the
raw bytes. Optionally a protected copy of the raw bytes is kept in a directory, named by its
sha256, written atomically and readable by the owner only.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.timeutil import format_rfc3339


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


class JsonlAuditSink:
    """Appends one JSON line per record; each line is written whole and flushed."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")

    def write(self, record: AuditRecord) -> None:
        line = record.to_json() + "\n"
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


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class RawStore:
    """Protected copies of raw upstream bytes, content-addressed by sha256."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)

    def keep(self, raw: bytes, sha256: str) -> Path:
        path = self.directory / f"{sha256}.bin"
        if not path.exists():
            write_atomic(path, raw, mode=0o600)
        return path
