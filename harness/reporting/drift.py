"""Drift reports: the check reporters, extended with what a drift run adds.

Every drift check is also an ordinary case (``source: drift``), so the terminal table, the
JSON report (valid against ``harness/report.schema.json``), JUnit and Markdown work as for
``check``. These reporters add the drift detail: per check the upstream, what was sent, the
verdict, the shape changes (kind, location, before -> after) and what was recorded; the JSON
report gains a top-level ``drift`` section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

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
from harness.engine import CaseResult, Event, Summary
from harness.reporting.files import (
    JsonReporter,
    JUnitReporter,
    MarkdownReporter,
    _cell,
    code_span,
    json_report,
    junit_xml,
    markdown,
)
from harness.reporting.html import HtmlReporter, Section
from harness.reporting.terminal import TerminalReporter, summary_table

_MARK = {HELD: "held", DRIFTED: "DRIFTED", REJECTED: "REJECTED", UNAVAILABLE: "FAILED", NOT_CALLED: "not called"}


class _Checks:
    """Mixin, first in the bases: keep the drift checks of a run, in order, then let the report
    it extends handle the event as a case."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.checks: list[DriftCheck] = []
        super().__init__(*args, **kwargs)

    def handle(self, event: Event) -> None:
        if isinstance(event, DriftChecked | DriftNotCalled) and event.check is not None:
            self.checks.append(event.check)
        super().handle(event)  # type: ignore[misc]

    @property
    def not_called(self) -> list[DriftNotCalled]:
        return [
            DriftNotCalled(c.id, c.tool, c.detail(), c) for c in self.checks if c.status == NOT_CALLED
        ]


def sent(check: DriftCheck) -> str:
    """What was sent (or would have been), with the opt-in that allowed it."""
    return check.target + (" [side_effects: allowed]" if check.side_effects else "")


def drift_section(checks: list[DriftCheck], summary: Summary, budget_s: float | None) -> dict[str, Any]:
    counts = {status: sum(1 for c in checks if c.status == status) for status in STATUSES}
    return {
        "budget_s": budget_s,
        "duration_s": round(summary.duration_s, 3),
        "counts": counts,
        "checks": [c.to_dict() for c in checks],
    }


class DriftJsonReporter(_Checks, JsonReporter):
    def __init__(self, path: str | Path, budget_s: float | None = None) -> None:
        super().__init__(path, command="drift")
        self.budget_s = budget_s

    def document(self) -> dict[str, Any]:
        assert self.summary is not None
        return json_report(
            self.results,
            self.summary,
            "drift",
            extra={"drift": drift_section(self.checks, self.summary, self.budget_s)},
        )


def junit_properties(checks: dict[str, DriftCheck]) -> Any:
    def properties(result: CaseResult) -> dict[str, str]:
        check = checks.get(result.id)
        if check is None:
            return {}
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

    return properties


class DriftJUnitReporter(_Checks, JUnitReporter):
    def render(self) -> str:
        assert self.summary is not None
        by_id = {c.id: c for c in self.checks}
        return junit_xml(
            self.results, self.summary, "contract-harness-drift", junit_properties(by_id), skipped=self.not_called
        )


def drift_markdown(checks: list[DriftCheck], results: list[CaseResult], summary: Summary) -> str:
    """The check report's Markdown (verdict line, layer table, problems), then every check with
    its upstream and status, and every shape change."""
    lines = [
        markdown(results, summary, title="Drift").rstrip("\n"),
        "",
        "### Upstreams",
        "",
        "| check | status | sent | result |",
        "|---|---|---|---|",
    ]
    for check in checks:
        lines.append(
            f"| {code_span(check.id)} | {check.status.replace('_', ' ')} | {code_span(sent(check))} | "
            f"{_cell(check.detail(limit=1))} |"
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
                    f"{code_span(change.path or '/')} | {_cell(change.before)} | {_cell(change.after)} |"
                )
    return "\n".join(lines) + "\n"


class DriftMarkdownReporter(_Checks, MarkdownReporter):
    def render(self) -> str:
        assert self.summary is not None
        return drift_markdown(self.checks, self.results, self.summary)


class DriftTerminalReporter(_Checks, TerminalReporter):
    """One line per check, then the detail of every check that did not hold."""

    def __init__(
        self,
        *,
        stream: TextIO | None = None,
        budget_s: float | None = None,
        width: int | None = None,
    ) -> None:
        super().__init__(stream=stream, progress=False, width=width)
        self.budget_s = budget_s

    def render(self, summary: Summary) -> None:
        console = self.console
        console.print(summary_table(summary, title="drift checks by rejecting layer"))
        for note in summary.notes:
            console.print(f"note: {note}", markup=False, soft_wrap=True)
        for check in self.checks:
            console.print(f"{_MARK[check.status]:<10} {check.id}  {sent(check)}", markup=False, soft_wrap=True)
        for check in self.checks:
            if check.status != HELD:
                console.print(check_text(check), markup=False, soft_wrap=True)
        counts = {s: sum(1 for c in self.checks if c.status == s) for s in STATUSES}
        budget = f", budget {self.budget_s:g}s" if self.budget_s is not None else ""
        verdict = "no drift" if counts[HELD] + counts[NOT_CALLED] == len(self.checks) else "drift"
        if self.checks and counts[NOT_CALLED] == len(self.checks):
            verdict = "nothing called"
        not_called = f", {counts[NOT_CALLED]} not called" if counts[NOT_CALLED] else ""
        console.print(
            f"{verdict}: {counts[HELD]} held, {counts[DRIFTED]} drifted, {counts[REJECTED]} rejected, "
            f"{counts[UNAVAILABLE]} failed{not_called} of {len(self.checks)} checks "
            f"({summary.duration_s:.1f}s{budget})",
            markup=False,
        )


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


def drift_sections(checks: list[DriftCheck]) -> list[Section]:
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


class DriftHtmlReporter(_Checks, HtmlReporter):
    def __init__(self, path: str | Path) -> None:
        super().__init__(path, title="Drift report")

    def render(self) -> str:
        self.sections = drift_sections(self.checks)
        return super().render()
