"""The one event family every runner yields, and the summary every reporter shows.

The engine (fixtures, mutations), fuzz and drift each yield these events: ``RunStarted``, then
per case ``CaseStarted`` (optional), ``CaseFinished`` with its :class:`CaseResult` or
``CaseSkipped``, and ``RunFinished`` with the run's :class:`Summary` (per tool, the cases by
rejecting layer and by status). A runner that carries more subclasses an event
(``DriftChecked(CaseFinished)``, ``PropertyFinished``, ``FuzzFinished(RunFinished)``): a reporter
that knows nothing of it still handles the case. This module imports nothing but the layer
vocabulary, so a face that only prints a summary (the pytest plugin's table in an xdist
controller) or a reporter loads no engine, boundary or validator. A :class:`Section` is a table
a runner hands to a reporter to show beside its cases (or, for ``compat``, instead of them).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from harness.codes import LAYER_ORDER, Layer
from harness.frozen import fast_frozen

if TYPE_CHECKING:
    from harness.cases import CaseExpectation, ToolCoverage

PASSED, FAILED, FINDING = "passed", "failed", "finding"
ACCEPTED_COLUMN = "accepted"
#: The source of a finding about a contract's published schema versions (schemas.lock): decided
#: before the run, by no layer.
VERSIONS = "versions"


@dataclass
class ToolSummary:
    tool: str
    columns: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    operators: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        return sum(self.statuses.values())


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
    :class:`harness.differential.check.Differential`)."""
    from harness.differential.bounded import PATTERN_TIMEOUT_S

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


def table_lines(header: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """The table in plain aligned columns (the first left, the counts right, two spaces apart);
    wider than ``width``, :func:`fold`-ed: a block per row, its first cell whole."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    if sum(widths) + 2 * (len(widths) - 1) > width:
        return fold(header, rows, width)
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))) for row in [header, *rows]]


@fast_frozen
@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case, judged. ``payload`` is kept only for cases that did not pass."""

    id: str
    tool: str
    source: str
    status: str
    problem: str | None
    expected: CaseExpectation
    layer: Layer | None
    code: str | None
    instance_pointer: str | None
    schema_pointer: str | None
    message: str | None
    detail: str
    operator: str | None
    pointer: str | None
    original: str
    mutated: str
    fixture: str | None
    version: int
    contract_dir: str
    now: str | None
    request: dict[str, Any] | None
    duration_s: float
    payload: bytes | None = field(default=None, repr=False)
    reproduce: str | None = None
    #: The first bytes of the payload, for people (HTML report); never parsed.
    excerpt: str = ""
    #: ``contract``: the payload is the contract object of a tool with an adapter.
    shape: str = "upstream"
    #: A near miss that got through (``contract_gap``, ``missed``): what to change in the
    #: contract, and the check waiver to paste to keep it on purpose, in one line.
    fix: str | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as the class and its fields' values, in order (``--jobs`` sends every result
        # to the parent): about 4x cheaper to load than a slots dataclass's own state.
        return type(self), _RESULT_FIELDS(self)

    @property
    def actual(self) -> str:
        return self.code or ACCEPTED_COLUMN

    @property
    def column(self) -> str:
        """Where the case lands in the tools x layers table (a finding about a published version,
        which no layer decided, in none of its columns: it counts among the cases and findings)."""
        if self.layer:
            return self.layer.value
        return VERSIONS if self.source == VERSIONS else ACCEPTED_COLUMN

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "source": self.source,
            "operator": self.operator,
            "pointer": self.pointer,
            "fixture": self.fixture,
            "version": self.version,
            "expected": self.expected.to_dict(),
            "actual": {
                "accepted": self.layer is None and self.problem != "error" and self.source != VERSIONS,
                "layer": self.layer.value if self.layer else None,
                "code": self.code,
                "instance_pointer": self.instance_pointer,
                "schema_pointer": self.schema_pointer,
                "message": self.message,
            },
            "status": self.status,
            "problem": self.problem,
            "detail": self.detail,
            "original": self.original,
            "mutated": self.mutated,
            "reproduce": self.reproduce,
            "fix": self.fix,
            "duration_s": round(self.duration_s, 6),
        }


_RESULT_FIELDS = operator.attrgetter(*(f.name for f in fields(CaseResult)))


# ------------------------------------------------------------------------ events
#
# One family for every runner: the engine (fixtures, mutations), fuzz and drift. A runner that
# carries more subclasses an event (``DriftChecked(CaseFinished)``, ``PropertyFinished``,
# ``FuzzFinished(RunFinished)``): a reporter that knows nothing of it still handles the case.


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run begins: how many cases it has (None when they are streamed, not counted first) and
    for which tools."""

    total: int | None
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CaseStarted:
    """A case about to run (for a progress display; runners whose cases are quick skip it)."""

    index: int
    id: str
    tool: str


@dataclass(frozen=True, slots=True)
class CaseFinished:
    index: int
    result: CaseResult


@dataclass(frozen=True, slots=True)
class CaseSkipped:
    """A case deliberately not run (drift: a request that may change data, an upstream with no
    sample requests). Never a failure, and not counted in the summary; reporters that know
    nothing of the reason may ignore it."""

    id: str
    tool: str
    reason: str


@dataclass(frozen=True, slots=True)
class RunFinished:
    summary: Summary


Event = RunStarted | CaseStarted | CaseFinished | CaseSkipped | RunFinished


@dataclass(frozen=True, slots=True)
class Section:
    """Extra content from another command: a title and a table (rows of cells)."""

    title: str
    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    note: str = ""
