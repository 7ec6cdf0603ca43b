"""One drift check, judged: a live response (or an advertised schema) against the contract
and against what the upstream sent before.

Statuses: ``held`` (accepted, shape as before), ``drifted`` (accepted, but the shape changed,
or the advertised schema differs from the contract's), ``rejected`` (the boundary refused the
response; the layer and code say why), ``failed`` (no response to judge: unavailable, not
found, a tool error), ``not_called`` (deliberately not sent: no sample requests, or a request
that may change data without ``side_effects: allowed``). ``held`` and ``not_called`` let
``contract-harness drift`` exit 0; a not-called check is reported, never counted as a case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.boundary.pipeline import Verdict
from harness.cases import CaseExpectation
from harness.drift.diff import Change
from harness.drift.shape import Shape
from harness.events import FAILED, FINDING, PASSED, CaseFinished, CaseResult, CaseSkipped

HELD, DRIFTED, REJECTED, UNAVAILABLE, NOT_CALLED = "held", "drifted", "rejected", "failed", "not_called"
STATUSES = (HELD, DRIFTED, REJECTED, UNAVAILABLE, NOT_CALLED)
RESPONSE, OUTPUT_SCHEMA = "response", "output_schema"

_CASE_STATUS = {HELD: PASSED, DRIFTED: FINDING, REJECTED: FAILED, UNAVAILABLE: FAILED}
_EXPECT_ACCEPT = CaseExpectation(True)


@dataclass(frozen=True, slots=True)
class DriftCheck:
    """One response (``subject: response``) or one advertised schema (``output_schema``)."""

    id: str
    tool: str
    upstream: str
    kind: str
    subject: str
    target: str
    status: str
    version: int
    contract_dir: str
    request: Mapping[str, Any] | None = None
    verdict: Verdict | None = None
    reason: str | None = None
    changes: tuple[Change, ...] = ()
    shape: Shape | None = None
    baseline: tuple[str, ...] = ()
    seen_before: str | None = None
    recorded: str | None = None
    notes: tuple[str, ...] = ()
    info: Mapping[str, Any] = field(default_factory=dict)
    stderr: str = ""
    duration_s: float = 0.0
    payload: bytes | None = field(default=None, repr=False)
    dialect: str | None = None
    #: ``allowed`` when the upstream opts in to requests that may change data (shown in reports).
    side_effects: str | None = None

    @property
    def problem(self) -> str | None:
        if self.status in (HELD, NOT_CALLED):
            return None
        if self.status == UNAVAILABLE:
            return "upstream_failure"
        if self.status == REJECTED:
            return "unexpected_rejection"
        return "schema_drift" if self.subject == OUTPUT_SCHEMA else "drift"

    def detail(self, limit: int = 3) -> str:
        """One line: the verdict, then the changes (the first ``limit``)."""
        verdict = self.verdict
        if self.status == NOT_CALLED:
            return "not called: " + "; ".join(self.notes)
        if self.status == UNAVAILABLE:
            head = f"no result ({self.reason}): {verdict.message if verdict else ''}".rstrip(": ")
        elif self.status == REJECTED and verdict is not None:
            where = f" at {verdict.instance_pointer or '/'}" if verdict.instance_pointer is not None else ""
            head = f"rejected by {verdict.code}{where}"
        elif self.subject == OUTPUT_SCHEMA:
            head = (
                "the advertised outputSchema differs from the contract's"
                if self.changes
                else "the advertised outputSchema matches the contract's"
            )
            if self.dialect:
                head += f" ({self.dialect})"
        elif self.changes:
            head = "accepted, but the shape changed"
        else:
            head = "accepted" + (f", shape as in {len(self.baseline)} historical sample(s)" if self.baseline else "")
        parts = [head]
        if self.changes:
            shown = "; ".join(c.describe() for c in self.changes[:limit])
            more = f"; and {len(self.changes) - limit} more" if len(self.changes) > limit else ""
            parts.append(f"{len(self.changes)} change(s): {shown}{more}")
        if self.seen_before:
            parts.append(f"seen before as {self.seen_before}")
        parts.extend(self.notes)
        return "; ".join(parts)

    def to_case_result(self) -> CaseResult:
        verdict = self.verdict
        return CaseResult(
            id=self.id,
            tool=self.tool,
            source="drift",
            status=_CASE_STATUS[self.status],
            problem=self.problem,
            expected=_EXPECT_ACCEPT,
            layer=verdict.layer if verdict else None,
            code=verdict.code if verdict else None,
            instance_pointer=verdict.instance_pointer if verdict else None,
            schema_pointer=verdict.schema_pointer if verdict else None,
            message=verdict.message if verdict else None,
            detail=self.detail(),
            operator=None,
            pointer=None,
            original="",
            mutated="",
            fixture=None,
            version=self.version,
            contract_dir=self.contract_dir,
            now=verdict.audit.at.isoformat() if verdict else None,
            request=dict(self.request) if self.request is not None and self.payload is not None else None,
            duration_s=self.duration_s,
            payload=self.payload,
        )

    def to_dict(self) -> dict[str, Any]:
        verdict = self.verdict
        return {
            "id": self.id,
            "tool": self.tool,
            "upstream": self.upstream,
            "kind": self.kind,
            "subject": self.subject,
            "target": self.target,
            "status": self.status,
            "reason": self.reason,
            "request": dict(self.request) if self.request is not None else None,
            "verdict": None if verdict is None else verdict_summary(verdict, "agent_result"),
            "changes": [c.to_dict() for c in self.changes],
            "seen_before": self.seen_before,
            "baseline": list(self.baseline),
            "fingerprint": None if self.shape is None else {"digest": self.shape.digest, **self.shape.to_dict()},
            "dialect": self.dialect,
            "side_effects": self.side_effects,
            "recorded": self.recorded,
            "notes": list(self.notes),
            "info": dict(self.info),
            "stderr": self.stderr,
            "duration_s": round(self.duration_s, 6),
        }


_VERDICT_KEYS = ("accepted", "outcome", "layer", "code", "instance_pointer", "schema_pointer", "message")


def verdict_summary(verdict: Verdict, *extra: str) -> dict[str, Any]:
    """What a drift report (and a recorded sidecar) says of a verdict: its main keys, plus
    ``extra`` keys of :meth:`Verdict.to_dict` (e.g. ``agent_result``)."""
    data = verdict.to_dict()
    return {key: data[key] for key in (*_VERDICT_KEYS, *extra)}


@dataclass(frozen=True, slots=True)
class DriftChecked(CaseFinished):
    """A :class:`~harness.engine.CaseFinished` that also carries the drift check: reporters that
    know nothing of drift see an ordinary case; drift reporters read ``check``."""

    check: DriftCheck | None = None


@dataclass(frozen=True, slots=True)
class DriftNotCalled(CaseSkipped):
    """A :class:`~harness.engine.CaseSkipped` for a drift check that was deliberately not sent;
    drift reporters list ``check`` (status ``not_called``) with the others."""

    check: DriftCheck | None = None
