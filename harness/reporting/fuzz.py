"""Reporters of a fuzz run: terminal, JSON, JUnit XML, Markdown and HTML.

Each property on each tool is one case of the harness's report formats (id
``<tool>::fuzz::<property>``, source ``fuzz``), so the JSON report keeps its structure and
schema; it gains a ``fuzz`` section with the profile, the per-property outcomes and the
generator statistics of each tool (generated, discarded as invalid, unique, boundary values).
In a fuzz report, ``summary.tools.<tool>.by_layer`` counts the boundary verdicts of the
generated examples by the layer that decided them.
"""

from __future__ import annotations

import abc
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.codes import LAYER_ORDER
from harness.engine import FAILED, FINDING, PASSED
from harness.files import write_atomic
from harness.fuzz.model import ACCEPTED
from harness.fuzz.properties import PROPERTIES
from harness.fuzz.runner import FuzzEvent, FuzzFinished, FuzzReport, FuzzStarted, Outcome, PropertyStarted
from harness.reporting.files import code_span, dump_report, json_report, junit_xml
from harness.reporting.html import Section, render
from harness.reporting.terminal import interactive

_COLUMNS = [layer.value for layer in LAYER_ORDER] + [ACCEPTED]
_SHOWN_BYTES = 400


def _cell(outcome: Outcome | None) -> str:
    if outcome is None:
        return "n/a"
    if outcome.status == PASSED:
        return f"held ({outcome.examples})"
    return "FINDING" if outcome.status == FINDING else "FAILED"


def _rate(stats: dict[str, Any]) -> str:
    return f"{stats.get('discard_rate', 0.0) * 100:.1f}%"


def generator_rows(report: FuzzReport) -> list[list[str]]:
    """tool, source, generated, discarded, discard rate, unique, boundary values."""
    rows = []
    for tool, generators in sorted(report.generators.items()):
        for source in ("documents", "vendor"):
            stats = generators.get(source)
            if stats:
                rows.append([tool, source, str(stats["generated"]), str(stats["discarded"]), _rate(stats),
                             str(stats["unique"]), str(stats.get("boundary", 0))])
    return rows


def _properties(report: FuzzReport) -> list[str]:
    seen = {o.prop for o in report.outcomes}
    return [name for name in PROPERTIES.names() if name in seen]


def _by_tool(report: FuzzReport) -> dict[str, dict[str, Outcome]]:
    tools: dict[str, dict[str, Outcome]] = {}
    for outcome in report.outcomes:
        tools.setdefault(outcome.tool, {})[outcome.prop] = outcome
    for tool in report.not_applicable:
        tools.setdefault(tool, {})
    return tools


def _example(payload: bytes) -> str:
    text = payload[:_SHOWN_BYTES].decode("utf-8", "backslashreplace")
    more = f" ... ({len(payload):,} bytes)" if len(payload) > _SHOWN_BYTES else f" ({len(payload)} bytes)"
    return text + more


def outcome_text(outcome: Outcome) -> str:
    """A failing property, for people: what was expected, what happened, the shrunk example,
    the fixture written for it and how to reproduce it."""
    head = "FINDING" if outcome.status == FINDING else "FAILED"
    lines = [f"{head} {outcome.id} ({outcome.problem})", f"  property: {PROPERTIES[outcome.prop].summary}"
             if outcome.prop in PROPERTIES else f"  property: {outcome.prop}"]
    f = outcome.finding
    if f is not None:
        lines.append(f"  expected: {f.expected.describe() or 'a verdict'}")
        where = f" at {f.instance_pointer or '/'}" if f.layer and f.instance_pointer is not None else ""
        lines.append(f"  actual:   {f.actual}{where}")
    lines.append(f"  detail:   {outcome.detail}")
    if f is not None:
        if f.message:
            lines.append(f"  message:  {f.message}")
        if f.operator:
            lines.append(f"  mutation: {f.operator} at {f.pointer or '/'}: {f.original} -> {f.mutated}")
        lines.append(f"  example:  {_example(f.payload)}, shrunk after {outcome.shrinks} tries")
        lines.append(f"  request:  {json.dumps(dict(f.request), ensure_ascii=False)}  now: {f.now.isoformat()}")
    if outcome.fixture:
        lines.append(f"  fixture:  {outcome.fixture} (+ .case.yaml): copy fixtures/ into the project to keep it")
    if outcome.reproduce:
        lines.append(f"  reproduce with: {outcome.reproduce}")
    if outcome.blob and outcome.reproduce:
        lines.append(f"  this example exactly: {outcome.reproduce} --blob {outcome.blob}")
    return "\n".join(lines)


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def verdict_line(report: FuzzReport) -> str:
    examples = _n(sum(o.examples for o in report.outcomes), "example")
    total = _n(len(report.outcomes), "property", "properties")
    tools = _n(len({o.tool for o in report.outcomes}), "tool")
    if report.ok:
        return f"all {total} held on {tools} ({examples}, {report.duration_s:.1f}s)"
    return (f"{report.count(FAILED)} failed, {_n(report.count(FINDING), 'finding')}, {report.count(PASSED)} held "
            f"of {total} on {tools} ({examples}, {report.duration_s:.1f}s)")


def _profile_line(report: FuzzReport) -> str:
    seed = f", seed {report.seed}" if report.seed is not None else ""
    return f"fuzz profile {report.profile.name}: {report.max_examples} examples per property and tool{seed}"


# --------------------------------------------------------------------------- terminal


class FuzzTerminalReporter:
    """A progress bar on a terminal (never in CI), then the tables and every failure."""

    def __init__(self, *, stream: TextIO | None = None, progress: bool | None = None,
                 width: int | None = None) -> None:
        self.stream = stream or sys.stdout
        self.console = Console(file=self.stream, width=width or (None if self.stream.isatty() else 140),
                               highlight=False, soft_wrap=False)
        self.show_progress = interactive(sys.stderr) if progress is None else progress
        self._progress: Progress | None = None
        self._task: Any = None

    def handle(self, event: FuzzEvent) -> None:
        if isinstance(event, FuzzStarted):
            if self.show_progress and event.total:
                self._progress = Progress(
                    TextColumn("[bold]fuzzing"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.description}"), TimeElapsedColumn(),
                    console=Console(file=sys.stderr), transient=True,
                )
                self._progress.start()
                self._task = self._progress.add_task("", total=event.total)
        elif isinstance(event, PropertyStarted):
            if self._progress is not None:
                self._progress.update(self._task, description=f"{event.tool} {event.prop}",
                                      completed=event.index)
        elif isinstance(event, FuzzFinished):
            if self._progress is not None:
                self._progress.stop()
            self.render(event.report)

    def render(self, report: FuzzReport) -> None:
        console = self.console
        console.print(_profile_line(report), markup=False)
        names = _properties(report)
        table = Table(title="properties by tool", title_justify="left")
        table.add_column("tool")
        for name in names:
            table.add_column(name, justify="right")
        for tool, outcomes in sorted(_by_tool(report).items()):
            table.add_row(tool, *(_cell(outcomes.get(name)) for name in names))
        console.print(table)
        layers = Table(title="verdicts by deciding layer (one per example, one per mutant for rejects_near_misses)",
                       title_justify="left")
        layers.add_column("tool")
        for column in _COLUMNS:
            layers.add_column(column, justify="right")
        summary = report.summary()
        for tool, counts in sorted(summary.tools.items()):
            layers.add_row(tool, *(str(counts.columns.get(c, 0)) for c in _COLUMNS))
        console.print(layers)
        generators = Table(title="generated documents", title_justify="left")
        for column in ("tool", "source", "generated", "discarded", "discard rate", "unique", "boundary values"):
            generators.add_column(column, justify="left" if column in ("tool", "source") else "right")
        for row in generator_rows(report):
            generators.add_row(*row)
        console.print(generators)
        for note in report.notes:
            console.print(f"note: {note}", markup=False)
        for outcome in report.outcomes:
            if not outcome.ok:  # unwrapped: commands and examples stay copyable
                console.print("\n" + outcome_text(outcome), markup=False, soft_wrap=True)
        console.print(verdict_line(report), markup=False)


# --------------------------------------------------------------------------- files


def fuzz_json(report: FuzzReport) -> dict[str, Any]:
    """The JSON report of a fuzz run (``harness/report.schema.json``, with its ``fuzz`` part).

    A case that did not hold carries its shrunk example's verdict under ``actual``; one that
    held did what was expected of every example (``actual.accepted`` = ``expected.accept``)."""
    data = json_report([o.case_result() for o in report.outcomes], report.summary(), "fuzz",
                       extra={"fuzz": report.to_dict()})
    for case in data["cases"]:
        if case["status"] == PASSED:
            case["actual"]["accepted"] = case["expected"]["accept"]
    return data


def fuzz_junit(report: FuzzReport) -> str:
    """One testsuite per tool, one testcase per property, with the examples and generator
    statistics as testcase properties."""
    text = junit_xml([o.case_result() for o in report.outcomes], report.summary(),
                     suite_name="contract-harness-fuzz")
    root = ET.fromstring(text)
    outcomes = {(o.tool, f"fuzz::{o.prop}"): o for o in report.outcomes}
    for testcase in root.iter("testcase"):
        outcome = outcomes.get((testcase.get("classname", ""), testcase.get("name", "")))
        if outcome is None:
            continue
        props = testcase.find("properties")
        if props is None:
            props = ET.Element("properties")
            testcase.insert(0, props)
        stats = report.generators.get(outcome.tool, {}).get("documents", {})
        extra = {"property": outcome.prop, "examples": str(outcome.examples),
                 "generated": str(stats.get("generated", 0)), "discarded": str(stats.get("discarded", 0)),
                 "unique": str(stats.get("unique", 0))}
        if outcome.blob:
            extra["blob"] = outcome.blob
        if outcome.fixture:
            extra["fixture"] = outcome.fixture
        for name, value in extra.items():
            ET.SubElement(props, "property", name=name, value=value)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def fuzz_markdown(report: FuzzReport, title: str = "Contract fuzz") -> str:
    """For a CI job summary: verdict, properties by tool, generator statistics, failures."""
    lines = [f"## {title}: {verdict_line(report)}", "", _profile_line(report) + ".", ""]
    names = _properties(report)
    lines.append("| tool | " + " | ".join(f"`{n}`" for n in names) + " |")
    lines.append("|---|" + "---:|" * len(names))
    for tool, outcomes in sorted(_by_tool(report).items()):
        lines.append(f"| {tool} | " + " | ".join(_cell(outcomes.get(n)) for n in names) + " |")
    lines += ["", "| tool | source | generated | discarded as invalid | discard rate | unique | boundary values |",
              "|---|---|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in generator_rows(report)]
    problems = [o for o in report.outcomes if not o.ok]
    if problems:
        lines += ["", "### Properties that did not hold", ""]
        for outcome in problems:
            lines += [f"**{code_span(outcome.id, cell=False)}** — {outcome.status} ({outcome.problem}): "
                      f"{_md(outcome.detail)}", ""]
            if outcome.finding is not None:
                lines += ["```json", _example(outcome.finding.payload), "```", ""]
            if outcome.fixture:
                lines += [f"Fixture written: {code_span(outcome.fixture, cell=False)} (with its `.case.yaml`).", ""]
            if outcome.reproduce:
                lines += ["```sh", outcome.reproduce]
                if outcome.blob:
                    lines.append(f"{outcome.reproduce} --blob {outcome.blob}")
                lines += ["```", ""]
    if report.notes:
        lines += ["", "### Notes", ""] + [f"- {_md(n)}" for n in report.notes]
    return "\n".join(lines).rstrip() + "\n"


def fuzz_html(report: FuzzReport, title: str = "Contract fuzz report") -> str:
    """The harness's HTML report of the properties as cases (the summary counts verdicts by
    deciding layer), with the properties by tool and the generator statistics as sections."""
    names = _properties(report)
    sections = [
        Section("Properties by tool", ["tool", *names],
                [[tool, *(_cell(outcomes.get(n)) for n in names)]
                 for tool, outcomes in sorted(_by_tool(report).items())],
                note=_profile_line(report) + "."),
        Section("Generator statistics", ["tool", "source", "generated", "discarded as invalid", "discard rate",
                                         "unique", "boundary values"], generator_rows(report),
                note="Every generated value is re-validated by the production validator; "
                     "the ones it rejects are discarded and counted."),
    ]
    if report.notes:
        sections.append(Section("Notes", ["note"], [[n] for n in report.notes]))
    return render([o.case_result() for o in report.outcomes], report.summary(), title=title, sections=sections)


class _FileReporter(abc.ABC):
    """Renders the finished run into one file, written atomically."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def handle(self, event: FuzzEvent) -> None:
        if isinstance(event, FuzzFinished):
            write_atomic(self.path, self.render(event.report).encode("utf-8"), what="report")

    @abc.abstractmethod
    def render(self, report: FuzzReport) -> str:
        """The file's whole text."""


class FuzzJsonReporter(_FileReporter):
    def render(self, report: FuzzReport) -> str:
        return dump_report(fuzz_json(report))


class FuzzJUnitReporter(_FileReporter):
    def render(self, report: FuzzReport) -> str:
        return fuzz_junit(report)


class FuzzMarkdownReporter(_FileReporter):
    def render(self, report: FuzzReport) -> str:
        return fuzz_markdown(report)


class FuzzHtmlReporter(_FileReporter):
    def render(self, report: FuzzReport) -> str:
        return fuzz_html(report)
