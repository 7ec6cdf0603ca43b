"""What a drift run adds to the reports: :class:`DriftContributor`.

Every drift check is also an ordinary case (``source: drift``), so the terminal table, the JSON
report (valid against ``harness/report.schema.json``), JUnit, Markdown and HTML work as for
``check``. The contributor adds the drift detail: per check the upstream, what was sent, the
verdict, the shape changes (kind, location, before -> after) and what was recorded; the JSON
report gains a top-level ``drift`` section.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.drift.check import (
    DRIFTED,
    HELD,
    NOT_CALLED,
    REJECTED,
    STATUSES,
    UNAVAILABLE,
    DriftCheck,
    DriftChecked,
    DriftNotCalled,
)
from harness.events import CaseResult, Event, Section, Summary
from harness.markdown import code_span
from harness.reporting.base import Contributor
from harness.reporting.files import md_cell

_MARK = {HELD: "held", DRIFTED: "DRIFTED", REJECTED: "REJECTED", UNAVAILABLE: "FAILED", NOT_CALLED: "not called"}


class DriftContributor(Contributor):
    """Keeps the run's drift checks (sent and not sent), in order, and renders them in every format."""

    command = "drift"
    title = "Drift"
    progress_label = "drift"
    junit_suite = "contract-harness-drift"
    table_title = "drift checks by rejecting layer"

    def __init__(self, budget_s: float | None = None) -> None:
        self.budget_s = budget_s
        self.checks: list[DriftCheck] = []
        self._by_id: dict[str, DriftCheck] = {}

    def handle(self, event: Event) -> None:
        if isinstance(event, DriftChecked | DriftNotCalled) and event.check is not None:
            self.checks.append(event.check)
            self._by_id[event.check.id] = event.check

    def terminal_problems(self, problems: Sequence[CaseResult]) -> list[str]:
        """One line per check, then the detail of every check that did not hold."""
        lines = [f"{_MARK[check.status]:<10} {check.id}  {sent(check)}" for check in self.checks]
        return lines + [check_text(check) for check in self.checks if check.status != HELD]

    def verdict(self, summary: Summary) -> str:
        counts = {s: sum(1 for c in self.checks if c.status == s) for s in STATUSES}
        budget = f", budget {self.budget_s:g}s" if self.budget_s is not None else ""
        verdict = "no drift" if counts[HELD] + counts[NOT_CALLED] == len(self.checks) else "drift"
        if self.checks and counts[NOT_CALLED] == len(self.checks):
            verdict = "nothing called"
        not_called = f", {counts[NOT_CALLED]} not called" if counts[NOT_CALLED] else ""
        return (f"{verdict}: {counts[HELD]} held, {counts[DRIFTED]} drifted, {counts[REJECTED]} rejected, "
                f"{counts[UNAVAILABLE]} failed{not_called} of {len(self.checks)} checks "
                f"({summary.duration_s:.1f}s{budget})")

    def json_members(self, summary: Summary) -> dict[str, Any]:
        return {"drift": drift_section(self.checks, summary, self.budget_s)}

    def junit_properties(self, case_id: str) -> dict[str, str]:
        check = self._by_id.get(case_id)
        return {} if check is None else junit_properties(check)

    def markdown_sections(self) -> list[str]:
        return drift_markdown(self.checks)

    def html_sections(self) -> list[Section]:
        return drift_sections(self.checks)


def sent(check: DriftCheck) -> str:
    """What was sent (or would have been), with the opt-in that allowed it."""
    return check.target + (" [side_effects: allowed]" if check.side_effects else "")


def drift_section(checks: Sequence[DriftCheck], summary: Summary, budget_s: float | None) -> dict[str, Any]:
    counts = {status: sum(1 for c in checks if c.status == status) for status in STATUSES}
    return {
        "budget_s": budget_s,
        "duration_s": round(summary.duration_s, 3),
        "counts": counts,
        "checks": [c.to_dict() for c in checks],
    }


def junit_properties(check: DriftCheck) -> dict[str, str]:
    """A drift check's JUnit testcase properties."""
    props = {
        "upstream": check.upstream,
        "upstream_kind": check.kind,
        "target": check.target,
        "drift_status": check.status,
        "changes": str(len(check.changes)),
    }
    if check.reason:
        props["reason"] = check.reason
    if check.side_effects:
        props["side_effects"] = check.side_effects
    for index, change in enumerate(check.changes[:20]):
        props[f"change_{index + 1}"] = change.describe()
    return props


def drift_markdown(checks: Sequence[DriftCheck]) -> list[str]:
    """Every check with its upstream and status, then every shape change (Markdown)."""
    lines = [
        "### Upstreams",
        "",
        "| check | status | sent | result |",
        "|---|---|---|---|",
    ]
    for check in checks:
        lines.append(
            f"| {code_span(check.id)} | {check.status.replace('_', ' ')} | {code_span(sent(check))} | "
            f"{md_cell(check.detail(limit=1))} |"
        )
    changed = [c for c in checks if c.changes]
    if changed:
        lines += [
            "",
            "### Shape changes",
            "",
            "| check | change | location | before | after |",
            "|---|---|---|---|---|",
        ]
        for check in changed:
            for change in check.changes:
                lines.append(
                    f"| {code_span(check.id)} | {change.kind.replace('_', ' ')} | "
                    f"{code_span(change.path or '/')} | {md_cell(change.before)} | {md_cell(change.after)} |"
                )
    return lines


def check_text(check: DriftCheck) -> str:
    """Everything the operator needs about one check that did not hold."""
    if check.status == NOT_CALLED:
        return "\n".join(
            [f"\n{_MARK[check.status].upper()} {check.id} ({check.reason})", f"  not sent: {sent(check)}",
             f"  {check.detail()}"]
        )
    lines = [f"\n{_MARK[check.status]} {check.id}", f"  sent:     {sent(check)}"]
    verdict = check.verdict
    if check.status == UNAVAILABLE:
        lines.append(f"  reason:   {check.reason}")
    if verdict is not None and not verdict.accepted:
        where = f" at {verdict.instance_pointer or '/'}" if verdict.instance_pointer is not None else ""
        lines.append(f"  verdict:  {verdict.code}{where}")
        if verdict.message:
            lines.append(f"  message:  {verdict.message}")
        lines.append(f"  agent:    {verdict.agent_json}")
    for change in check.changes:
        lines.append(
            f"  change:   {change.kind.replace('_', ' ')} at {change.path or '/'}: {change.before} -> {change.after}"
        )
    if check.seen_before:
        lines.append(f"  seen before as {check.seen_before}")
    for note in check.notes:
        lines.append(f"  note:     {note}")
    if check.stderr.strip():
        tail = check.stderr.strip().splitlines()[-5:]
        lines += ["  stderr (tail):"] + [f"    {line}" for line in tail]
    if check.recorded:
        lines.append(f"  recorded: {check.recorded}")
    return "\n".join(lines)


def drift_sections(checks: Sequence[DriftCheck]) -> list[Section]:
    """The HTML report's drift sections: every check, then every shape change."""
    upstreams = Section(
        "Upstreams",
        ["check", "status", "sent", "result"],
        [[c.id, c.status.replace("_", " "), sent(c), c.detail(limit=1)] for c in checks],
        note="One row per sample request and per advertised MCP schema.",
    )
    changes = Section(
        "Shape changes",
        ["check", "change", "location", "before", "after"],
        [[c.id, ch.kind.replace("_", " "), ch.path or "/", ch.before, ch.after] for c in checks for ch in c.changes],
        note="Against fixtures/historical/ (responses) or the contract's schema (outputSchema).",
    )
    return [upstreams, changes]
