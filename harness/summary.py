"""The summary of a run: per tool, the cases by rejecting layer and by status.

Every runner (the engine, fuzz, drift) ends with one, and every reporter shows it; it imports
nothing but the layer vocabulary, so a face that only prints it (the pytest plugin's table in
an xdist controller) loads no boundary or validator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.codes import LAYER_ORDER

if TYPE_CHECKING:
    from harness.engine import CaseResult

PASSED, FAILED, FINDING = "passed", "failed", "finding"
ACCEPTED_COLUMN = "accepted"


@dataclass
class ToolSummary:
    tool: str
    columns: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    operators: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        return sum(self.statuses.values())


@dataclass(frozen=True, slots=True)
class ToolCoverage:
    """What one contract's near misses probed: the agent-visible fields, the operator classes
    (an operator, or a variant of a labelled one), the (field, class) pairs probed — each
    applicable pair at least once, whatever ``--max-mutants`` says — and how many cases that
    coverage kept past the cap."""

    tool: str
    fields: int
    classes: int
    pairs: int
    added: int

    def to_dict(self) -> dict[str, int]:
        return {"fields": self.fields, "operator_classes": self.classes, "pairs": self.pairs,
                "added_past_cap": self.added}

    def line(self) -> str:
        return (f"{self.tool}: {self.fields} agent-visible field{'s' if self.fields != 1 else ''} x "
                f"{self.classes} operator class{'es' if self.classes != 1 else ''}: {self.pairs:,} probed"
                + (f" ({self.added:,} past --max-mutants)" if self.added else ""))


@dataclass
class Summary:
    tools: dict[str, ToolSummary] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    #: The differential check's counts (:meth:`Differential.counts`), when it ran.
    differential: dict[str, int] | None = None
    #: What each contract's near misses probed (``check``: the contracts that made mutations).
    coverage: list[ToolCoverage] = field(default_factory=list)

    def add(self, result: CaseResult) -> None:
        self.count_case(result.tool, result.column, result.status, result.operator)

    def count_case(self, tool: str, column: str, status: str, operator: str | None = None) -> None:
        """Count one case of ``tool``: the layer that rejected it (``column``) and its status."""
        counts = self.tools.get(tool)
        if counts is None:
            counts = self.tools[tool] = ToolSummary(tool)
        counts.columns[column] += 1
        counts.statuses[status] += 1
        if operator:
            counts.operators.add(operator)

    def count(self, status: str) -> int:
        return sum(t.statuses[status] for t in self.tools.values())

    @property
    def total(self) -> int:
        return sum(t.total for t in self.tools.values())

    @property
    def ok(self) -> bool:
        return self.count(FAILED) == 0 and self.count(FINDING) == 0

    @staticmethod
    def columns() -> list[str]:
        return [layer.value for layer in LAYER_ORDER] + [ACCEPTED_COLUMN]

    def table(self) -> tuple[list[str], list[list[str]]]:
        """The tools x layers table every report shows: header, then one row per tool (cases,
        one count per layer and accepted, failed, findings)."""
        header = ["tool", "cases", *self.columns(), "failed", "findings"]
        rows = [[name, str(tool.total), *(str(tool.columns.get(c, 0)) for c in self.columns()),
                 str(tool.statuses.get(FAILED, 0)), str(tool.statuses.get(FINDING, 0))]
                for name, tool in sorted(self.tools.items())]
        return header, rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "passed": self.count(PASSED),
            "failed": self.count(FAILED),
            "findings": self.count(FINDING),
            "ok": self.ok,
            "duration_s": round(self.duration_s, 3),
            "notes": self.notes,
            **({"differential": dict(self.differential)} if self.differential is not None else {}),
            **({"coverage": {c.tool: c.to_dict() for c in self.coverage}} if self.coverage else {}),
            "tools": {
                name: {
                    "total": t.total,
                    "by_layer": {c: t.columns.get(c, 0) for c in self.columns()},
                    "passed": t.statuses.get(PASSED, 0),
                    "failed": t.statuses.get(FAILED, 0),
                    "findings": t.statuses.get(FINDING, 0),
                    "operators": sorted(t.operators),
                }
                for name, t in sorted(self.tools.items())
            },
        }


def coverage_line(coverage: list[ToolCoverage]) -> str:
    """What the run's near misses probed, in one line: the agent-visible fields, and the (field,
    operator class) pairs, every one that applies, whatever ``--max-mutants`` says."""
    fields, pairs, added = (sum(c.fields for c in coverage), sum(c.pairs for c in coverage),
                            sum(c.added for c in coverage))
    tools = len(coverage)
    return (f"coverage: {fields:,} agent-visible field{'s' if fields != 1 else ''} of {tools:,} tool"
            f"{'s' if tools != 1 else ''}, {pairs:,} field x operator-class pair{'s' if pairs != 1 else ''} probed"
            + (f" ({added:,} case{'s' if added != 1 else ''} past --max-mutants)" if added else ""))


def undecided_line(counts: dict[str, int]) -> str:
    """The documents the differential check could not compare (see
    :class:`harness.engine.Differential`)."""
    from harness.differential import PATTERN_TIMEOUT_S

    n = counts["undecided"]
    return (f"differential: {n:,} document{'s' if n != 1 else ''} not compared: the reference validator gave no "
            f"verdict within its bounds ({PATTERN_TIMEOUT_S:g} s a pattern search, Python's recursion limit); the "
            "production validator's verdict stands")


def saved_line(counts: dict[str, int]) -> str:
    """What the differential check took from the reference verdicts earlier runs saved."""
    return (f"differential: {counts['saved']:,} of {counts['compared']:,} documents compared with the reference's "
            "verdict saved by an earlier run (--no-saved-verdicts validates them afresh)")


def fold(header: Sequence[str], rows: Sequence[Sequence[str]], width: int, *, left: int = 1) -> list[str]:
    """A table too wide for ``width`` columns as one block per row: the row's first ``left`` cells
    (the tool) on a line of their own, whole, then its ``header value`` pairs wrapped to
    ``width`` (a single pair wider than that stands alone on its line)."""
    lines = []
    for row in rows:
        lines.append(" ".join(row[:left]))
        line = ""
        pairs = [f"{name} {value}" for name, value in zip(header[left:], row[left:], strict=True)]
        for index, pair in enumerate(pairs):
            piece = pair + ("," if index < len(pairs) - 1 else "")
            if line and len(line) + 1 + len(piece) > width:
                lines.append(line)
                line = ""
            line = f"{line} {piece}" if line else f"  {piece}"
        if line:
            lines.append(line)
    return lines
