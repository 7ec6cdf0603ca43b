"""Reporters: events in, text out. The engine never prints; each face picks its reporters.

One reporter per format — :class:`~harness.reporting.terminal.TerminalReporter`,
:class:`~harness.reporting.files.JsonReporter`, :class:`~harness.reporting.files.JUnitReporter`,
:class:`~harness.reporting.files.MarkdownReporter`, :class:`~harness.reporting.html.HtmlReporter`
— for every runner: ``check`` (fixtures and mutations), ``drift`` and ``fuzz`` all yield the one
event family of :mod:`harness.engine`. What a kind of run adds (drift's upstreams and shape
changes, fuzz's properties and generator statistics) is a :class:`Contributor`: each reporter
passes it every event, then asks it for that format's part.

A reporter takes each event as it comes and keeps only what its format still needs (the JSON
reporter an encoded line per case, the terminal reporter the cases that did not hold); file
reporters write once, atomically, when the run finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from harness.engine import CaseResult, Event, RunFinished, Summary

if TYPE_CHECKING:
    from harness.reporting.html import Section


class Reporter(Protocol):
    def handle(self, event: Event) -> None: ...


class Contributor:
    """What one kind of run adds to every report of its cases; this base adds nothing (``check``).

    A contributor sees every event before its reporter does (:meth:`handle`), then answers the
    reporter's questions. ``None`` from a hook means "the standard part".
    """

    #: The JSON report's ``"report": "contract-harness/<command>"``.
    command = "check"
    #: The Markdown heading's and (with " report") the HTML page's title.
    title = "Contract harness"
    #: JUnit testsuites are ``<junit_suite>.<tool>``.
    junit_suite = "contract-harness"
    #: The terminal's tools x layers table.
    table_title = "cases by rejecting layer"
    #: What the table's columns count (under the Markdown table).
    table_note = ("Each layer column counts the cases that layer rejected; `accepted` counts cases that passed "
                  "every layer.")
    #: The progress bar's word.
    progress_label = "checking"

    def handle(self, event: Event) -> None:
        """Keep what this contributor renders (drift checks, the fuzz report)."""

    # -- terminal
    def terminal_head(self) -> list[Any]:
        """Lines or rich renderables before the tools x layers table."""
        return []

    def terminal_table(self, summary: Summary) -> Any | None:
        """The tools x layers table, when this run's differs from the standard one."""
        return None

    def terminal_body(self) -> list[Any]:
        """Lines or rich renderables after the table, before the notes."""
        return []

    def terminal_problems(self, problems: Sequence[CaseResult]) -> list[str] | None:
        """The text of every case that did not hold (None: each case's standard text, capped)."""
        return None

    def verdict(self, summary: Summary) -> str | None:
        """The terminal's last line."""
        return None

    # -- JSON
    def json_case(self, result: CaseResult, data: dict[str, Any]) -> dict[str, Any]:
        """A case of the JSON report (``data`` is :meth:`CaseResult.to_dict`)."""
        return data

    def json_members(self, summary: Summary) -> dict[str, Any]:
        """Top-level members the JSON report gains (``drift``, ``fuzz``)."""
        return {}

    # -- JUnit
    def junit_properties(self, case_id: str) -> dict[str, str]:
        """Testcase properties beside the standard ones (asked when the file is written)."""
        return {}

    # -- Markdown
    def heading(self, summary: Summary) -> str | None:
        """What follows ``## <title>: `` in the Markdown report."""
        return None

    def markdown_sections(self) -> list[str]:
        """Lines after the tools x layers table."""
        return []

    def markdown_problems(self, problems: Sequence[CaseResult]) -> list[str] | None:
        """The Markdown of the cases that did not hold (None: the standard table)."""
        return None

    # -- HTML
    def html_sections(self) -> list[Section]:
        """Tables after the matrix."""
        return []

    def html_page(self, summary: Summary, *, title: str, generated_at: str) -> str | None:
        """A page of this run's own in place of the tools x case kinds matrix (None: the matrix)."""
        return None


def dispatch(events: Iterable[Event], reporters: Sequence[Reporter]) -> Summary | None:
    """Hand every event to every reporter, in order; return the run's summary (None if the
    events ended without a :class:`~harness.engine.RunFinished`)."""
    summary = None
    for event in events:
        for reporter in reporters:
            reporter.handle(event)
        if isinstance(event, RunFinished):
            summary = event.summary
    return summary


def reporters_for(files: Mapping[str, str | None], contributor: Callable[[], Contributor] = Contributor, *,
                  progress: bool | None = None, **terminal: Any) -> list[Reporter]:
    """The terminal reporter and one file reporter per format named in ``files`` (``json``,
    ``junit``, ``markdown``, ``html`` -> path or None), each with its own ``contributor()``."""
    from harness.reporting.files import JsonReporter, JUnitReporter, MarkdownReporter
    from harness.reporting.html import HtmlReporter
    from harness.reporting.terminal import TerminalReporter

    formats: dict[str, Callable[..., Reporter]] = {
        "json": JsonReporter, "junit": JUnitReporter, "markdown": MarkdownReporter, "html": HtmlReporter}
    found: list[Reporter] = [TerminalReporter(progress=progress, contributor=contributor(), **terminal)]
    for name, path in files.items():
        if path:
            found.append(formats[name](path, contributor=contributor()))
    return found
