"""What every reporter shares: the :class:`Reporter` protocol, the :class:`Contributor` a kind
of run adds to each report, and the :class:`Section` it adds to the HTML page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from harness.events import CaseResult, Event, Section, Summary


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
