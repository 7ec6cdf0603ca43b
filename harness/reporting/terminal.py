"""The terminal face: a progress bar on a terminal (in a CI log or a pipe, a status line every
:data:`STATUS_EVERY_S` seconds of a long run instead), then a summary table and every case
that did not hold, with a command to reproduce it. A
:class:`~harness.reporting.Contributor` adds what its kind of run has (drift's checks, fuzz's
properties) and may say how its problems and its verdict read."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from harness.events import (
    FAILED,
    FINDING,
    PASSED,
    CaseFinished,
    CaseResult,
    CaseStarted,
    Event,
    RunFinished,
    RunStarted,
    Summary,
    coverage_line,
    fold,
    saved_line,
    undecided_line,
)
from harness.reporting.base import Contributor
from harness.reporting.files import problem_lines

if TYPE_CHECKING:  # the progress bar's module is imported when a bar is shown (a terminal, not CI)
    from rich.progress import Progress


#: Where no bar is drawn (CI, a pipe), a run longer than this says where it is this often, on
#: stderr: a CI log shows the run is alive, and a runner that stops silent jobs does not stop it.
STATUS_EVERY_S = 30.0


def interactive(stream: TextIO) -> bool:
    """A progress bar only for a person at a terminal, never in CI logs."""
    return stream.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class TerminalReporter:
    def __init__(self, *, stream: TextIO | None = None, progress: bool | None = None,
                 max_problems: int = 50, width: int | None = None, contributor: Contributor | None = None,
                 status_every_s: float | None = None, status_stream: TextIO | None = None,
                 verbose: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.console = Console(file=self.stream, width=width or (None if self.stream.isatty() else 140),
                               highlight=False, soft_wrap=False)
        self.show_progress = interactive(sys.stderr) if progress is None else progress
        #: Status lines instead of the bar: only when neither was asked for nor refused.
        every = STATUS_EVERY_S if status_every_s is None else status_every_s
        self._status_every = every if progress is None and not self.show_progress else None
        self._status_stream = status_stream
        self._started = self._next_status = 0.0
        self._done = 0
        self._total: int | None = None
        #: A streamed run (its cases not counted first) counts its tools: the bar's total is theirs.
        self._tools: tuple[str, ...] = ()
        self._tool: str | None = None
        self._tools_begun = 0
        #: Details a person needs only to understand the run's cost (saved verdicts used).
        self.verbose = verbose
        self.max_problems = max_problems
        self.contributor = contributor or Contributor()
        #: The cases that did not hold and are shown: the first ``max_problems`` (all of them for a
        #: contributor that writes its own text of problems); ``not_held`` counts every one.
        self.problems: list[CaseResult] = []
        self.not_held = 0
        self._keep_all = type(self.contributor).terminal_problems is not Contributor.terminal_problems
        self._progress: Progress | None = None
        self._task: Any = None

    def handle(self, event: Event) -> None:
        self.contributor.handle(event)
        if isinstance(event, RunStarted):
            # Streamed (total None): the cases are made tool by tool, uncounted; the tools are known.
            self._tools = event.tools if event.total is None else ()
            total = len(self._tools) if event.total is None else event.total
            if self.show_progress and total != 0:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

                counts = "{task.fields[failed]} not held"
                if self._tools:  # the bar counts tools; the cases so far beside it
                    counts = "tools, {task.fields[cases]:,} cases, " + counts
                self._progress = Progress(
                    TextColumn(f"[bold]{self.contributor.progress_label}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn(counts), TextColumn("{task.description}"),
                    TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True,
                )
                self._progress.start()
                self._task = self._progress.add_task("", total=total, failed=0, cases=0)
            if self._status_every is not None:
                self._total = event.total
                self._started = time.monotonic()
                self._next_status = self._started + self._status_every
        elif isinstance(event, CaseStarted):
            if self._progress is not None:
                self._progress.update(self._task, description=f"{event.tool} {event.id.rsplit('::', 1)[-1]}")
        elif isinstance(event, CaseFinished):
            self._done += 1
            if event.result.status != PASSED:
                self.not_held += 1
                if self._keep_all or len(self.problems) < self.max_problems:
                    self.problems.append(event.result)
            # A streamed run's cases come tool after tool: a new tool means the one before is done.
            new_tool = event.result.tool != self._tool
            tool_done = bool(self._tools) and new_tool and self._tool is not None
            self._tools_begun += new_tool
            self._tool = event.result.tool
            if self._progress is not None:
                advance = int(tool_done) if self._tools else 1
                self._progress.update(self._task, advance=advance, failed=self.not_held, cases=self._done)
            elif self._status_every is not None and time.monotonic() >= self._next_status:
                self._status(event.result.tool)
        elif isinstance(event, RunFinished):
            if self._progress is not None:
                if self._tools and self._tool is not None:
                    self._progress.update(self._task, advance=1)  # the last tool's cases are done
                self._progress.stop()
            self.render(event.summary)

    def _status(self, tool: str) -> None:
        now = time.monotonic()
        assert self._status_every is not None
        self._next_status = now + self._status_every
        stream = self._status_stream or sys.stderr
        of = f" of {self._total:,}" if self._total else ""
        at = f"at {tool} (tool {self._tools_begun} of {len(self._tools)})" if self._tools else f"at {tool}"
        stream.write(f"{self.contributor.progress_label}: {self._done:,}{of} done, {self.not_held:,} not held, "
                     f"{at} ({now - self._started:.0f} s)\n")
        stream.flush()

    def render(self, summary: Summary) -> None:
        console = self.console
        contributor = self.contributor
        for part in contributor.terminal_head():
            _print(console, part)
        table = contributor.terminal_table(summary)
        if table is None:
            header, rows = summary.table()
            # Without colour (a CI log, a file), what rich would draw, without its layout machinery.
            drawn = None if console.color_system else plain_table(contributor.table_title, header, rows, console)
            if drawn is not None:
                console.file.write(drawn)
            else:
                console.print(summary_table(summary, contributor.table_title))
        else:
            console.print(table)
        for part in contributor.terminal_body():
            _print(console, part)
        # soft_wrap: a line is never broken at the console's width, so `reproduce with:` stays
        # one line that can be pasted into a shell, whatever the terminal or COLUMNS says.
        for note in summary.notes:
            console.print(f"note: {note}", markup=False, soft_wrap=True)
        texts = contributor.terminal_problems(self.problems)
        if texts is None:
            texts = [problem_text(r) for r in self.problems[: self.max_problems]]
            if self.not_held > len(texts):
                texts.append(f"... and {self.not_held - len(texts)} more (see the JSON report)")
        for text in texts:
            console.print(text, markup=False, soft_wrap=True)
        if summary.coverage:
            console.print(coverage_line(summary.coverage), markup=False)  # wrapped to the terminal
        if self.verbose and summary.differential and summary.differential.get("saved"):
            console.print(saved_line(summary.differential), markup=False, soft_wrap=True)
        if summary.differential and summary.differential.get("undecided"):
            console.print(undecided_line(summary.differential), markup=False, soft_wrap=True)
        console.print(contributor.verdict(summary) or verdict(summary), markup=False)


def _print(console: Console, part: Any) -> None:
    if isinstance(part, str):
        console.print(part, markup=False, soft_wrap=True)
    else:
        console.print(part)


def verdict(summary: Summary) -> str:
    """The terminal's last line for a run of cases."""
    if summary.ok:
        return f"all {summary.total} cases held ({summary.duration_s:.1f}s)"
    return (f"{summary.count(FAILED)} failed, {summary.count(FINDING)} findings, {summary.count(PASSED)} held "
            f"of {summary.total} cases ({summary.duration_s:.1f}s)")


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 1) -> Table:
    """A rich table; the first ``left`` columns left-aligned, the others (counts) right-aligned
    and never wrapped. Cells are plain text (a tool or file name is never read as markup; and
    rich renders a row of 100 tools' counts a fifth faster without parsing any)."""
    found = Table(title=title, title_justify="left")
    for index, name in enumerate(header):
        found.add_column(name, justify="left" if index < left else "right", no_wrap=index >= left)
    for row in rows:
        found.add_row(*(Text(cell) for cell in row))
    return found


class Folding:
    """:func:`table` where the console is wide enough for every cell whole; where it is not, the
    table folded into one block per row: the row's first ``left`` cells (the tool) on a line of
    their own, then ``header value`` pairs wrapped to the width. A tool's name and a count are
    never cut or squeezed (a rich table narrower than its cells would shrink the first column to
    nothing and end counts in an ellipsis)."""

    def __init__(self, title: str, header: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 1) -> None:
        self.title, self.header, self.rows, self.left = title, list(header), [list(r) for r in rows], left

    def width(self) -> int:
        """The table's width with every cell whole: the widest cell of each column, a space on
        each side and a rule between columns and at both edges."""
        from rich.cells import cell_len

        cells = [self.header, *self.rows]
        return sum(max(cell_len(row[i]) for row in cells) + 3 for i in range(len(self.header))) + 1

    def fits(self, width: int) -> bool:
        return self.width() <= width

    def folded(self, width: int) -> list[str]:
        """The rows as blocks (:func:`harness.events.fold`); the title is the console's to wrap."""
        return fold(self.header, self.rows, width, left=self.left)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.fits(options.max_width):
            yield table(self.title, self.header, self.rows, left=self.left)
        else:
            if self.title:
                yield Text(self.title)  # wrapped at spaces, as rich wraps a table's title
            for line in self.folded(options.max_width):
                yield Text(line, no_wrap=True, overflow="ignore")


def plain_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], console: Console, *,
                left: int = 1) -> str | None:
    """:func:`table` as rich draws it on ``console`` without colour, written directly: a row of
    100 tools' counts costs rich about 4 ms to lay out, this a few µs. None where rich would have
    to decide more than widths (a cell that is not printable ASCII or that starts or ends with a
    space, markup in the title or header, a table or title wider than the console): rich draws
    :func:`table` then. tests/test_reporters.py holds the two to the same text."""
    cells = [list(header), *(list(row) for row in rows)]
    if any(len(row) != len(header) for row in cells) or not all(
            cell.isascii() and cell.isprintable() and cell == cell.strip()
            for cell in (title, *(c for row in cells for c in row))):
        return None
    if any("[" in text for text in (title, *header)):  # rich reads the title and header as markup
        return None
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    total = sum(widths) + 3 * len(widths) + 1
    if not header or total > console.width or len(title) > total:
        return None

    def line(row: Sequence[str], edge: str, between: str) -> str:
        parts = [f" {c.ljust(w)} " if i < left else f" {c.rjust(w)} "
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        return f"{edge}{between.join(parts)}{edge}"

    def rule(first: str, fill: str, middle: str, last: str) -> str:
        return first + middle.join(fill * (w + 2) for w in widths) + last

    drawn = [title.ljust(total) if title else None, rule("┏", "━", "┳", "┓"), line(header, "┃", "┃"),
             rule("┡", "━", "╇", "┩"), *(line(row, "│", "│") for row in cells[1:]), rule("└", "─", "┴", "┘")]
    return "".join(f"{text}\n" for text in drawn if text is not None)


def summary_table(summary: Summary, title: str = "cases by rejecting layer") -> Folding:
    return Folding(title, *summary.table())


def problem_text(r: CaseResult) -> str:
    head = "FINDING" if r.status == FINDING else "FAILED"
    return "\n".join([f"\n{head} {r.id} ({r.problem})", *("  " + line for line in problem_lines(r))])
