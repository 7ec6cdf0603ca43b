"""Reporters: events in, text out. The engine never prints; each face picks its reporters.

A reporter is anything with ``handle(event)`` (:class:`Reporter`). File reporters collect
results and write once, atomically, when the run finishes.
"""

from __future__ import annotations

from typing import Protocol

from harness.engine import Event


class Reporter(Protocol):
    def handle(self, event: Event) -> None: ...


def dispatch(events: object, reporters: list[Reporter]) -> None:
    for event in events:  # type: ignore[attr-defined]
        for reporter in reporters:
            reporter.handle(event)
