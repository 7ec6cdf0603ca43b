"""Reporters: events in, text out. The engine never prints; each face picks its reporters.

One reporter per format — :class:`~harness.reporting.terminal.TerminalReporter`,
:class:`~harness.reporting.files.JsonReporter`, :class:`~harness.reporting.files.JUnitReporter`,
:class:`~harness.reporting.files.MarkdownReporter`, :class:`~harness.reporting.html.HtmlReporter`
— for every runner: ``check`` (fixtures and mutations), ``drift`` and ``fuzz`` all yield the one
event family of :mod:`harness.events`. What a kind of run adds (drift's upstreams and shape
changes, fuzz's properties and generator statistics) is a :class:`Contributor`: each reporter
passes it every event, then asks it for that format's part.

A reporter takes each event as it comes and keeps only what its format still needs (the JSON
reporter an encoded line per case, the terminal reporter the cases that did not hold); file
reporters write once, atomically, when the run finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from harness.events import Event, RunFinished, Summary
from harness.reporting.base import Contributor as Contributor
from harness.reporting.base import Reporter as Reporter


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
