"""One event family, one reporter per format: check, drift and fuzz runs through the same reporters.

A runner that carries more subclasses the engine's events (``PropertyFinished(CaseFinished)``,
``FuzzFinished(RunFinished)``, ``DriftChecked(CaseFinished)``), so a reporter that knows nothing
of fuzz still reports its cases; a contributor adds what the run has. Reporters fold each event in
as it comes: what they write is what the batch functions build from every result at once.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.errors import MarkupError

from harness.cases import cases_for
from harness.contract import Contract
from harness.engine import Engine
from harness.events import CaseFinished, CaseResult, CaseStarted, Event, RunFinished, RunStarted
from harness.fuzz import FuzzOptions, fuzz
from harness.fuzz.runner import FuzzFinished, FuzzStarted, PropertyFinished, PropertyStarted
from harness.reporting import Contributor, dispatch, reporters_for
from harness.reporting.files import JsonReporter, JUnitReporter, MarkdownReporter, dump_report, json_report
from harness.reporting.fuzz import FuzzContributor
from harness.reporting.html import HtmlReporter, render
from harness.reporting.terminal import TerminalReporter, plain_table, table


@pytest.fixture(scope="module")
def fuzz_events(demo: Callable[[str], Contract], tmp_path_factory: pytest.TempPathFactory) -> list[Event]:
    options = FuzzOptions(examples=3, properties=("survives_any_bytes", "accepts_valid"),
                          fixtures_dir=tmp_path_factory.mktemp("fuzz"))
    return list(fuzz([demo("review_status"), demo("deployment_status")], options))


def test_a_fuzz_run_yields_the_engine_s_events(fuzz_events: list[Event]) -> None:
    kinds = [type(e) for e in fuzz_events]
    assert kinds[0] is FuzzStarted and kinds[-1] is FuzzFinished
    assert kinds[1:-1] == [PropertyStarted, PropertyFinished] * 4
    assert isinstance(fuzz_events[0], RunStarted) and isinstance(fuzz_events[-1], RunFinished)
    started, finished = fuzz_events[1], fuzz_events[2]
    assert isinstance(started, CaseStarted) and isinstance(finished, CaseFinished)
    assert isinstance(finished, PropertyFinished)
    assert started.id == finished.result.id == finished.outcome.id == "review_status::fuzz::accepts_valid"
    last = fuzz_events[-1]
    assert isinstance(last, FuzzFinished) and last.summary.to_dict()["total"] == 4


def test_reporters_that_know_nothing_of_fuzz_report_its_properties_as_cases(fuzz_events: list[Event],
                                                                            tmp_path: Path) -> None:
    stream = io.StringIO()
    reporters = [TerminalReporter(stream=stream, progress=False), JsonReporter(tmp_path / "r.json"),
                 JUnitReporter(tmp_path / "r.xml"), MarkdownReporter(tmp_path / "r.md"), HtmlReporter(tmp_path / "r.html")]
    summary = dispatch(fuzz_events, reporters)
    assert summary is not None and summary.ok
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["report"] == "contract-harness/check" and "fuzz" not in report
    assert [c["id"] for c in report["cases"]] == [e.result.id for e in fuzz_events if isinstance(e, CaseFinished)]
    assert len(ET.parse(tmp_path / "r.xml").getroot().findall(".//testcase")) == 4
    assert "cases by rejecting layer" in stream.getvalue() and "all 4 cases held" in stream.getvalue()
    assert (tmp_path / "r.md").read_text().startswith("## Contract harness: 4 cases, 2 tools — all held")


def test_the_fuzz_contributor_adds_its_part_to_every_format(fuzz_events: list[Event], tmp_path: Path) -> None:
    files = {name: str(tmp_path / f"r.{name}") for name in ("json", "junit", "markdown", "html")}
    reporters = reporters_for(files, FuzzContributor, progress=False, stream=io.StringIO())
    dispatch(fuzz_events, reporters)
    terminal = reporters[0]
    assert isinstance(terminal, TerminalReporter) and isinstance(terminal.stream, io.StringIO)
    text = terminal.stream.getvalue()
    assert text.startswith("fuzz profile ci: 3 examples per property and tool")
    assert "properties by tool" in text and "generated documents" in text
    assert text.rstrip().splitlines()[-1].startswith("all 4 properties held on 2 tools")
    report = json.loads(Path(files["json"]).read_text())
    assert report["report"] == "contract-harness/fuzz"
    assert set(report["fuzz"]["tools"]) == {"review_status", "deployment_status"}
    props = {p.get("name") for p in ET.parse(files["junit"]).getroot().iter("property")}
    assert {"property", "examples", "generated", "discarded", "unique"} <= props
    markdown = Path(files["markdown"]).read_text()
    assert markdown.startswith("## Contract fuzz: all 4 properties held on 2 tools")
    assert "| tool | `accepts_valid` | `survives_any_bytes` |" in markdown
    assert "<h2>Generated documents</h2>" in Path(files["html"]).read_text()


def _check_events(demo: Callable[[str], Contract]) -> list[Event]:
    collected = cases_for(demo("review_status"), max_mutants=6)
    return list(Engine(differential=False).run(collected.cases, collected.notes))


def _results(events: list[Event]) -> list[CaseResult]:
    return [e.result for e in events if isinstance(e, CaseFinished)]


def _without_times(text: str) -> str:
    return re.sub(r'"(generated_at|duration_s)": [^,\n]+', r'"\1": X', text)


def test_the_json_reporter_fed_event_by_event_writes_what_json_report_builds_at_once(
        demo: Callable[[str], Contract], tmp_path: Path) -> None:
    events = _check_events(demo)
    reporter = JsonReporter(tmp_path / "r.json")
    for event in events:
        reporter.handle(event)
    assert reporter.count == len(_results(events)) > 20
    assert not any(isinstance(v, list) for v in vars(reporter).values())  # spooled on arrival, nothing kept
    last = events[-1]
    assert isinstance(last, RunFinished)
    at_once = dump_report(json_report(_results(events), last.summary))
    assert _without_times((tmp_path / "r.json").read_text()) == _without_times(at_once)


def test_the_html_reporter_fed_event_by_event_writes_what_render_builds_at_once(
        demo: Callable[[str], Contract], tmp_path: Path) -> None:
    events = _check_events(demo)
    dispatch(events, [HtmlReporter(tmp_path / "r.html")])
    last = events[-1]
    assert isinstance(last, RunFinished)
    assert (tmp_path / "r.html").read_text() == render(_results(events), last.summary)


class _Counting(Contributor):
    def __init__(self) -> None:
        self.seen: list[type[Any]] = []

    def handle(self, event: Event) -> None:
        self.seen.append(type(event))

    def markdown_sections(self) -> list[str]:
        return [f"### Seen: {len(self.seen)} events"]


def test_a_reporter_hands_its_contributor_every_event_before_asking_for_its_part(
        demo: Callable[[str], Contract], tmp_path: Path) -> None:
    events = _check_events(demo)
    contributor = _Counting()
    dispatch(events, [MarkdownReporter(tmp_path / "r.md", contributor=contributor)])
    assert contributor.seen == [type(e) for e in events]
    assert f"### Seen: {len(events)} events" in (tmp_path / "r.md").read_text()


def test_the_progress_bar_runs_on_a_terminal_and_leaves_the_report_as_it_is(
        fuzz_events: list[Event], capsys: pytest.CaptureFixture[str]) -> None:
    shown, plain = io.StringIO(), io.StringIO()
    with_bar = TerminalReporter(stream=shown, progress=True)
    dispatch(fuzz_events, [with_bar])
    dispatch(fuzz_events, [TerminalReporter(stream=plain, progress=False)])
    assert with_bar._progress is not None  # a bar was made (its module imported when needed)
    # The bar is transient, on stderr: the report itself is the same text with or without it.
    assert _without_timings(shown.getvalue()) == _without_timings(plain.getvalue())
    assert "all 4 cases held" in shown.getvalue()
    capsys.readouterr()


def test_without_a_bar_a_long_run_says_where_it_is_on_stderr_and_the_report_stays_the_same(
        demo: Callable[[str], Contract], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")  # a CI log: no bar
    events = _check_events(demo)
    cases = sum(isinstance(e, CaseFinished) for e in events)
    every, never, off = io.StringIO(), io.StringIO(), io.StringIO()
    outputs = []
    for status, progress, seconds in ((every, None, 0.0), (never, None, 3600.0), (off, False, 0.0)):
        shown = io.StringIO()
        dispatch(events, [TerminalReporter(stream=shown, progress=progress, status_every_s=seconds,
                                           status_stream=status)])
        outputs.append(_without_timings(shown.getvalue()))
    lines = every.getvalue().splitlines()
    assert len(lines) == cases and lines[-1].startswith(f"checking: {cases} of {cases} done, 0 not held, at ")
    assert re.fullmatch(rf"checking: 1 of {cases} done, 0 not held, at review_status \(\d+ s\)", lines[0]), lines[0]
    assert never.getvalue() == off.getvalue() == ""  # a short run, or --no-progress: no line
    assert outputs[0] == outputs[1] == outputs[2]


def _without_timings(text: str) -> str:
    return re.sub(r"\(\d+(\.\d+)?s\)", "(s)", text)


# Mostly printable ASCII (the tables the terminal draws itself), some of everything else.
_CELL = st.text(st.characters(min_codepoint=32, max_codepoint=126) | st.characters(max_codepoint=0x2FFF),
                max_size=12)


@settings(max_examples=300, deadline=None)
@given(title=_CELL, header=st.lists(_CELL.filter(bool), min_size=1, max_size=6), data=st.data(),
       width=st.integers(10, 140), left=st.integers(0, 2))
def test_the_summary_table_is_drawn_exactly_as_rich_draws_it(title, header, data, width, left) -> None:  # type: ignore[no-untyped-def]
    # The terminal draws the summary table itself where it can (a hundred tools' rows cost rich
    # ~0.4 s): its text must be rich's, byte for byte; elsewhere it leaves the table to rich.
    rows = data.draw(st.lists(st.lists(_CELL, min_size=len(header), max_size=len(header)), max_size=5))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, highlight=False, soft_wrap=False)
    try:
        console.print(table(title, header, rows, left=left))
    except MarkupError:  # a title or header rich reads as broken markup: never the terminal's own
        return
    drawn = plain_table(title, header, rows, console, left=left)
    if drawn is not None:
        assert drawn == buffer.getvalue()


def test_a_hundred_tools_table_is_drawn_without_rich_in_a_ci_log() -> None:
    rows = [[f"tool_{n:04}", "650", "50", "0"] for n in range(100)]
    console = Console(file=io.StringIO(), width=140, highlight=False, soft_wrap=False)
    assert plain_table("cases by rejecting layer", ["tool", "cases", "transport", "findings"], rows, console)
    assert plain_table("t", ["tool", "cases"], [["tööl", "1"]], console) is None  # rich decides widths of that
