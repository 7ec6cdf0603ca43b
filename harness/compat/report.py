"""The compat report: one version pair, everything found about it, and whether it holds.

:class:`CompatReport` is what :func:`harness.compat.compare` returns and what every reporter
(:mod:`harness.compat.render`) reads: both schemas' ids and hashes, the declared policy and the
verdicts against it, the change table, witnesses, the replay matrix and the unsupported
pointers. ``ok`` is true when every :class:`Check` holds; the pytest plugin makes one item of
each check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.compat.assess import Assessed, Assessment, Contradiction
from harness.compat.model import Direction, Evidence, Policy, Verdict
from harness.compat.normalise import Side, Unsupported
from harness.compat.replay import Row
from harness.compat.witness import Witness
from harness.errors import clip, excerpt


@dataclass(frozen=True, slots=True)
class SchemaInfo:
    label: str
    version: int | None
    schema_id: str | None
    sha256: str
    file: str | None
    dialect: str

    @classmethod
    def of(cls, side: Side, version: int | None) -> SchemaInfo:
        return cls(side.label, version, side.schema_id, side.sha256, side.file, side.dialect)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "version": self.version, "id": self.schema_id,
                "sha256": self.sha256, "file": self.file, "dialect": self.dialect}


@dataclass(frozen=True, slots=True)
class Check:
    """One thing the report asserts: the policy, the classifier, one replayed fixture."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class ModelChange:
    pointer: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class CompatReport:
    """Everything ``compare`` found about one version pair."""

    tool: str | None
    old: SchemaInfo
    new: SchemaInfo
    policy: Policy
    policy_source: str
    assessment: Assessment
    replay: tuple[Row, ...]
    unsupported: tuple[tuple[str, Unsupported], ...]
    models: tuple[ModelChange, ...]
    seconds: float

    # ------------------------------------------------------------------ verdicts
    @property
    def changes(self) -> tuple[Assessed, ...]:
        return self.assessment.changes

    @property
    def contradictions(self) -> tuple[Contradiction, ...]:
        return self.assessment.contradictions

    def verdict(self, direction: Direction) -> Verdict:
        return self.assessment.verdict(direction)

    def evidence(self, direction: Direction) -> Evidence:
        return self.assessment.evidence(direction)

    @property
    def violations(self) -> tuple[Assessed, ...]:
        """Changes that break a direction the policy protects (unknown counts as breaking)."""
        return tuple(a for a in self.changes
                     if any(a.verdict(d) is not Verdict.SAFE for d in self.policy.directions))

    @property
    def checks(self) -> tuple[Check, ...]:
        found = []
        held = [d for d in self.policy.directions if self.verdict(d) is not Verdict.SAFE]
        verdicts = ", ".join(f"{d.value}: {self.verdict(d).value} ({self.evidence(d).value})" for d in Direction)
        if held:
            detail = f"policy {self.policy.value} violated: {verdicts}; {len(self.violations)} change(s) break it"
        else:
            detail = f"policy {self.policy.value} holds: {verdicts}"
        found.append(Check("policy", not held, detail))
        found.append(Check(
            "classifier", not self.contradictions,
            "; ".join(c.message for c in self.contradictions) or "no witness contradicts a static verdict",
        ))
        for row in self.replay:
            problems = [c.problem for c in row.cells if c.problem]
            expected = any(c.expected is not None for c in row.cells)
            if expected or problems:
                found.append(Check(f"replay::{row.fixture}", not problems,
                                   "; ".join(p for p in problems if p) or "as expected"))
        return tuple(found)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "ok": self.ok,
            "old": self.old.to_dict(),
            "new": self.new.to_dict(),
            "policy": {"name": self.policy.value, "source": self.policy_source},
            "verdicts": {d.value: {"verdict": self.verdict(d).value, "evidence": self.evidence(d).value,
                                   "rules": list(self.assessment.basis(d))}
                         for d in Direction},
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
            "changes": [_change_dict(a) for a in self.changes],
            "unattributed_witnesses": [w.to_dict() for w in self.assessment.unattributed],
            "contradictions": [{"message": c.message, "witness": c.witness.to_dict()} for c in self.contradictions],
            "replay": [row.to_dict() for row in self.replay],
            "unsupported": [
                {"version": label, "pointer": u.pointer, "keyword": u.keyword, "reason": u.reason,
                 "location": u.location.display("")}
                for label, u in self.unsupported
            ],
            "content_models": [{"pointer": m.pointer, "old": m.old, "new": m.new} for m in self.models],
            "generated": {d.value: {"checked": s.checked, "rejected": len(s.rejected), **s.stats.to_dict()}
                          for d, s in self.assessment.sampled.items()},
            "searches": {d.value: s.to_dict() for d, s in self.assessment.searches.items()},
            "seconds": round(self.seconds, 3),
        }


def decided_by(report: CompatReport, direction: Direction, limit: int = 3) -> str:
    """The rules that decided a direction's verdict, for a report line: ``CMP301
    max_length_tightened, CMP109 object_closed and 2 more`` (empty when no change decides)."""
    rules = report.assessment.basis(direction)
    more = f" and {len(rules) - limit} more" if len(rules) > limit else ""
    return ", ".join(rules[:limit]) + more


def value_text(value: Any, limit: int = 80) -> str:
    """A value as the report shows it: a marker such as ``(absent)`` as it is, anything else as
    compact JSON (:func:`harness.errors.excerpt`), cut at ``limit`` characters."""
    if isinstance(value, str) and value.startswith("(") and value.endswith(")"):
        return clip(value, limit)
    return excerpt(value, limit, compact=True)


def _change_dict(assessed: Assessed) -> dict[str, Any]:
    change = assessed.change
    return {
        "rule": change.rule.id,
        "class": change.rule.name,
        "pointer": change.pointer,
        "old_pointer": change.old_pointer,
        "new_pointer": change.new_pointer,
        "old_location": change.old_location,
        "new_location": change.new_location,
        "subject": change.subject,
        "before": value_text(change.before, 200),
        "after": value_text(change.after, 200),
        "static": {"reader": change.reader.value, "writer": change.writer.value},
        "reader": {"verdict": assessed.reader.value, "evidence": assessed.reader_evidence.value},
        "writer": {"verdict": assessed.writer.value, "evidence": assessed.writer_evidence.value},
        "note": change.note,
        "witnesses": [w.to_dict() for w in assessed.witnesses],
    }


def witnesses_of(report: CompatReport) -> list[tuple[Assessed | None, Witness]]:
    """Every witness with the change it proves (None for a pair-level one)."""
    found: list[tuple[Assessed | None, Witness]] = [(a, w) for a in report.changes for w in a.witnesses]
    found += [(None, w) for w in report.assessment.unattributed]
    return found
