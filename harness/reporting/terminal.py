"""The terminal face: a progress bar on a terminal (quiet in CI), then a summary table and
every case that did not hold, with a command to reproduce it."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.engine import FAILED, FINDING, PASSED, CaseFinished, CaseResult, Event, RunFinished, RunStarted, Summary
from harness.reporting.files import problem_lines


def interactive(stream: TextIO) -> bool:
    """A progress bar only for a person at a terminal, never in CI logs."""
    return stream.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class TerminalReporter:
    def __init__(self, *, stream: TextIO | None = None, progress: bool | None = None,
                 max_problems: int = 50, width: int | None = None) -> None:
        self.stream = stream or sys.stdout
        self.console = Console(file=self.stream, width=width or (None if self.stream.isatty() else 140),
                               highlight=False, soft_wrap=False)
        self.show_progress = interactive(sys.stderr) if progress is None else progress
        self.max_problems = max_problems
        self.problems: list[CaseResult] = []
        self._progress: Progress | None = None
        self._task: Any = None

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            if self.show_progress and event.total:
                self._progress = Progress(
                    TextColumn("[bold]checking"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[failed]} not held"), TimeElapsedColumn(),
                    console=Console(file=sys.stderr), transient=True,
                )
                self._progress.start()
                self._task = self._progress.add_task("cases", total=event.total, failed=0)
        elif isinstance(event, CaseFinished):
            if event.result.status != PASSED:
                self.problems.append(event.result)
            if self._progress is not None:
                self._progress.update(self._task, advance=1, failed=len(self.problems))
        elif isinstance(event, RunFinished):
            if self._progress is not None:
                self._progress.stop()
            self.render(event.summary)

    def render(self, summary: Summary) -> None:
        console = self.console
        console.print(summary_table(summary))
        # soft_wrap: a line is never broken at the console's width, so `reproduce with:` stays
        # one line that can be pasted into a shell, whatever the terminal or COLUMNS says.
        for note in summary.notes:
            console.print(f"note: {note}", markup=False, soft_wrap=True)
        for r in self.problems[: self.max_problems]:
            console.print(problem_text(r), markup=False, soft_wrap=True)
        if len(self.problems) > self.max_problems:
            console.print(f"... and {len(self.problems) - self.max_problems} more (see the JSON report)")
        failed, findings = summary.count(FAILED), summary.count(FINDING)
        if summary.ok:
            console.print(f"all {summary.total} cases held ({summary.duration_s:.1f}s)", markup=False)
        else:
            console.print(f"{failed} failed, {findings} findings, {summary.count(PASSED)} held "
                          f"of {summary.total} cases ({summary.duration_s:.1f}s)", markup=False)


def summary_table(summary: Summary, title: str = "cases by rejecting layer") -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("tool")
    table.add_column("cases", justify="right")
    for column in Summary.columns():
        table.add_column(column, justify="right")
    table.add_column("failed", justify="right")
    table.add_column("findings", justify="right")
    for name, tool in sorted(summary.tools.items()):
        table.add_row(name, str(tool.total), *(str(tool.columns.get(c, 0)) for c in Summary.columns()),
                      str(tool.statuses.get(FAILED, 0)), str(tool.statuses.get(FINDING, 0)))
    return table


def problem_text(r: CaseResult) -> str:
    head = "FINDING" if r.status == FINDING else "FAILED"
    return "\n".join([f"\n{head} {r.id} ({r.problem})", *("  " + line for line in problem_lines(r))])
