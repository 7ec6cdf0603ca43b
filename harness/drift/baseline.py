"""The baseline a live response is compared with, and ``--record``, which adds to it.

The baseline of a tool is ``fixtures/historical/<tool>/``: every historical fixture the current
schema version accepts (its sidecar's ``expect``) contributes its shape; their merge is what
the upstream has been seen to send. Historical shapes the current version rejects are kept as
*known* shapes, so a response that falls back to one is named ("seen before as ...").

Recording writes each new shape (a response that parsed, with a fingerprint no historical
fixture has) into ``fixtures/historical/<tool>/<upstream>-<UTC time>/`` with a sidecar holding
the time, upstream, request, verdict and what ``check`` must conclude when it replays it. The
folder is assembled aside and renamed into place, so a run cut short leaves nothing half
written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from harness.boundary.pipeline import Verdict
from harness.contract import Contract
from harness.corpus import PAYLOAD_SUFFIX, SIDECAR_SUFFIX, fixtures_for
from harness.drift.check import verdict_summary
from harness.drift.shape import Hints, Shape, document_shape, merge_all
from harness.errors import RejectedInput
from harness.files import write_atomic
from harness.redaction import Redactor
from harness.strict_json import strict_loads
from harness.timeutil import format_rfc3339

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class Baseline:
    """``shapes``: the shape of each accepted historical fixture (``fixtures``: their ids, in the
    same order); ``shape``: their merge (None: nothing accepted yet). ``known``: (fixture id,
    shape digest) of every historical fixture, accepted or not."""

    shape: Shape | None
    fixtures: tuple[str, ...]
    known: tuple[tuple[str, str], ...]
    shapes: tuple[Shape, ...] = ()

    @property
    def digests(self) -> frozenset[str]:
        return frozenset(digest for _, digest in self.known)

    def seen_as(self, shape: Shape) -> str | None:
        """The historical fixture that had exactly this shape, if any."""
        for fixture, digest in self.known:
            if digest == shape.digest:
                return fixture
        return None


def hints_for(contract: Contract, enum_fields: tuple[str, ...] = ()) -> Hints:
    """Enum-like locations and free-form maps of what the upstream sends: from the vendor schema
    for a tool with an adapter, else from the contract's current schema."""
    schema = (contract.vendor_document() if contract.adapter and contract.vendor_schema is not None
              else contract.document())
    return Hints.from_schema(schema, enum_fields)


def load_baseline(contract: Contract, hints: Hints) -> Baseline:
    accepted: list[Shape] = []
    used: list[str] = []
    known: list[tuple[str, str]] = []
    for fixture in fixtures_for(contract, ("historical",)):
        if getattr(fixture, "shape", "upstream") != "upstream":
            continue  # a contract-object fixture (compat), not bytes an upstream sent
        try:
            document = strict_loads(fixture.read(), max_depth=contract.limits.max_depth)
        except RejectedInput:
            continue  # a body that never parsed has no shape to compare with
        shape = document_shape(document, hints)
        known.append((fixture.id, shape.digest))
        if fixture.expect.accept:
            accepted.append(shape)
            used.append(fixture.id)
    return Baseline(merge_all(accepted), tuple(used), tuple(known), tuple(accepted))


# --------------------------------------------------------------------------- recording


def _slug(text: str) -> str:
    return _SLUG.sub("_", text).strip("_")[:60] or "request"


def expectation_of(verdict: Verdict) -> Any:
    if verdict.accepted:
        return "accept"
    expect: dict[str, Any] = {
        "layer": verdict.layer.value if verdict.layer else None,
        "code": verdict.code,
    }
    return expect


class Recorder:
    """New shapes of one contract's upstream, staged and then moved into place together."""

    def __init__(
        self, contract: Contract, upstream: str, *, clock: datetime | None = None, redactor: Redactor | None = None
    ) -> None:
        self.contract = contract
        self.upstream = upstream
        self.redactor = redactor or Redactor({})
        moment = (clock or datetime.now(UTC)).astimezone(UTC)
        self.recorded_at = format_rfc3339(moment.replace(microsecond=0))
        self.label = f"{_slug(upstream)}-{moment.strftime('%Y%m%dT%H%M%SZ')}"
        self._entries: list[tuple[str, bytes, dict[str, Any]]] = []
        self._names: set[str] = set()

    def add(self, raw: bytes, request: Mapping[str, Any], verdict: Verdict, label: str, description: str) -> str:
        """Stage one response; returns the fixture id it will have."""
        name = _slug(label)
        while name in self._names:
            name += "_"
        self._names.add(name)
        expect = expectation_of(verdict)
        sidecar = {
            "description": description,
            "upstream": self.upstream,
            "recorded_at": self.recorded_at,
            # Replays judge freshness at the moment of recording, not at the contract's default.
            "now": format_rfc3339(verdict.audit.at.astimezone(UTC)),
            "request": json.loads(json.dumps(dict(request))),
            "expect": expect,
            "expect_by_version": {self.contract.version: expect},
            "verdict": {**verdict_summary(verdict), "raw_sha256": verdict.audit.raw_sha256},
        }
        # The body was refused if it held a secret; the sidecar's text goes through the redactor.
        self._entries.append((name, raw, self.redactor.value(sidecar)))
        return f"{self.contract.tool}::historical::{self.label}/{name}"

    def commit(self) -> Path | None:
        """Write the staged responses into a new label folder at once; None if nothing staged."""
        if not self._entries:
            return None
        base = self.contract.fixtures_dir("historical")
        base.mkdir(parents=True, exist_ok=True)
        target = base / self.label
        suffix = 1
        while target.exists():
            suffix += 1
            target = base / f"{self.label}-{suffix}"
        # Staged beside the tool's folder (not inside it), so a loader never sees it half done.
        staging = Path(tempfile.mkdtemp(prefix=f".{self.contract.tool}.record-", dir=base.parent))
        try:
            for name, raw, sidecar in self._entries:
                write_atomic(staging / f"{name}{PAYLOAD_SUFFIX}", raw)
                text = yaml.safe_dump(sidecar, sort_keys=False, allow_unicode=True, width=100)
                write_atomic(staging / f"{name}{SIDECAR_SUFFIX}", text.encode("utf-8"))
            os.chmod(staging, 0o755)
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._entries.clear()
        return target
