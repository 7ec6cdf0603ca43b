"""``check`` in memory flat in the number of cases: cases streamed through the engine, reports
spooled and written atomically, the reference validator asked once per distinct document.

What is measured (memory, cases per second) is in bench/harness.py; here, what must hold
whatever the machine: the same reports as before, nothing half-written, nothing missed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import junit_xml
import pytest

from harness import load_contract
from harness.cases import Case, CaseExpectation, cases_for
from harness.codes import Layer
from harness.contract import Contract
from harness.engine import Engine
from harness.events import FAILED, FINDING, CaseFinished, CaseSkipped, Event, RunFinished, RunStarted
from harness.reporting import dispatch
from harness.reporting.files import JUnitReporter, _properties, junit_case, skipped_case
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema, item

ROOT = Path(__file__).resolve().parent.parent


def _events(demo: Callable[[str], Contract]) -> list[Event]:
    """A demo run, with one case turned into a failure and one into a finding, and a skipped
    case: every kind of testcase a report holds."""
    cases = [c for tool in ("review_status", "job_status") for c in cases_for(demo(tool), max_mutants=6).cases]
    events = list(Engine(differential=False).run(cases))
    changed: list[Event] = []
    for event in events:
        if isinstance(event, CaseFinished) and event.index == 3:
            event = replace(event, result=replace(event.result, status=FAILED, problem="missed",
                                                  detail="expected schema, but the result was accepted"))
        elif isinstance(event, CaseFinished) and event.index == 7:
            event = replace(event, result=replace(event.result, status=FINDING, problem="contract_gap",
                                                  detail="the schema accepts <this> & \x01 that"))
        changed.append(event)
        if isinstance(event, RunStarted):
            changed.append(CaseSkipped("job_status::drift::x", "job_status", "no sample request"))
    return changed


def _junit_at_once(events: list[Event]) -> str:
    """The JUnit report as it was built before reports were streamed: every testcase held, then
    junit-xml's whole document, then the properties added to it."""
    finished = [e.result for e in events if isinstance(e, CaseFinished)]
    skipped = [e for e in events if isinstance(e, CaseSkipped)]
    summary = next(e.summary for e in events if isinstance(e, RunFinished))
    cases: dict[str, list[Any]] = {}
    properties = {}
    for result in finished:
        testcase = junit_case(result)
        cases.setdefault(result.tool, []).append(testcase)
        properties[(result.tool, testcase.name)] = _properties(result)
    for skip in skipped:
        cases.setdefault(skip.tool, []).append(skipped_case(skip))
    suites = []
    for tool in sorted(cases):
        counts = summary.tools[tool].columns
        props = {f"rejected_by_{c}" if c != "accepted" else "accepted": str(counts.get(c, 0))
                 for c in summary.columns()}
        suites.append(junit_xml.TestSuite(f"contract-harness.{tool}", cases[tool], properties=props))
    root = ET.fromstring(junit_xml.to_xml_report_string(suites, encoding="utf-8"))
    for suite in root.iter("testsuite"):
        for testcase in suite.iter("testcase"):
            found = properties.get((testcase.get("classname", ""), testcase.get("name", "")))
            if found:
                element = ET.Element("properties")
                for name, value in found.items():
                    ET.SubElement(element, "property", name=name, value=value)
                testcase.insert(0, element)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


def test_the_streamed_junit_report_is_byte_for_byte_the_one_built_at_once(
        demo: Callable[[str], Contract], tmp_path: Path) -> None:
    events = _events(demo)
    dispatch(events, [JUnitReporter(tmp_path / "r.xml")])
    written = (tmp_path / "r.xml").read_text()
    assert written == _junit_at_once(events)
    root = ET.fromstring(written)
    assert root.get("failures") == "2" and len(root.findall(".//skipped")) == 1
    assert "\x01" not in written  # an illegal XML character is removed, as junit-xml removes it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.xml"]  # the spool went with the run


def test_the_engine_makes_each_case_only_when_the_previous_one_is_reported(demo: Callable[[str], Contract]) -> None:
    made: list[str] = []
    cases = cases_for(demo("review_status"), max_mutants=4).cases

    def lazily() -> Iterator[Case]:
        for case in cases:
            made.append(case.id)
            yield case

    events = Engine(differential=False).run(lazily(), tools=["review_status"])
    started = next(events)
    assert isinstance(started, RunStarted) and started.total is None and started.tools == ("review_status",)
    assert made == []
    for event in events:
        if isinstance(event, CaseFinished):
            assert made[-1] == event.result.id and len(made) == event.index + 1
    assert len(made) == len(cases)


def _differential_contract(make_contract: Callable[..., Path]) -> Contract:
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"], "note": {"type": "string", "format": "regex"}})
    return load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))


def test_a_disagreement_is_reported_on_every_case_that_holds_the_document_though_compared_once(
        make_contract: Callable[..., Path]) -> None:
    contract = _differential_contract(make_contract)
    # A Python-only regex construct: invalid for ECMA-262 (jsonschema-rs), valid for python's re.
    payload = item(note="(?P<n>a)")
    cases = [Case(f"item_status::rejected::pyregex{i}", "item_status", "rejected", contract,
                  CaseExpectation(False, (Layer.SCHEMA,)), lambda: payload) for i in range(3)]
    engine = Engine()
    results = [e.result for e in engine.run(cases) if isinstance(e, CaseFinished)]
    assert [(r.status, r.problem) for r in results] == [("finding", "differential")] * 3
    assert all("(jsonschema) says valid" in r.detail for r in results)
    assert (engine.differentials.compared, engine.differentials.remembered) == (1, 2)


def test_documents_that_differ_only_in_key_order_share_a_comparison_but_not_one_and_one_point_oh(
        make_contract: Callable[..., Path]) -> None:
    contract = _differential_contract(make_contract)
    engine = Engine()
    assert engine.differentials.check(contract, 1, {"a": 1, "b": [1]}) is None
    assert engine.differentials.check(contract, 1, {"b": [1], "a": 1}) is None
    assert engine.differentials.check(contract, 1, {"b": [1.0], "a": 1}) is None
    assert (engine.differentials.compared, engine.differentials.remembered) == (2, 1)


def test_a_disagreement_is_still_found_by_check_when_the_fixture_is_mutated(
        make_contract: Callable[..., Path], tmp_path: Path) -> None:
    _differential_contract(make_contract)
    folder = tmp_path / "fixtures" / "rejected" / "item_status"
    folder.mkdir(parents=True)
    (folder / "pyregex.json").write_bytes(item(note="(?P<n>a)"))
    (folder / "pyregex.case.yaml").write_text("expect: {layer: schema, code: schema.format}\n")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--no-progress", "--json", "r.json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FINDING item_status::rejected::pyregex (differential)" in done.stdout


def _spooling(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` holds a file open in ``folder`` (its report's spool)."""
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return False
    return any(link.startswith(str(folder) + "/") for link in links)


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (its children, theirs, ...), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting to be reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _interrupted_check(tmp_path: Path, how: signal.Signals) -> tuple[int, Path]:
    """A ``check --jobs 2`` on the demo stopped by ``how`` while it writes its reports; also
    asserts that none of its worker processes is left once it has ended."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("r.json", "r.xml"):
        (out / name).write_text("the previous report\n")
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", "check", "--demo", "--no-progress", "--jobs", "2",
                              "--json", str(out / "r.json"), "--junit", str(out / "r.xml")],
                             cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             # Ctrl-C as at a terminal, even where the suite was started in the
                             # background (`&`), which hands its children SIGINT ignored
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not _spooling(child.pid, out):
        assert child.poll() is None, "check finished before it could be interrupted"
        assert time.monotonic() < deadline, "check never started spooling its report"
        time.sleep(0.01)
    workers = _descendants(child.pid)
    assert len(workers) == 2, workers  # forked for --jobs 2, at work
    child.send_signal(how)
    code = child.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)], f"workers left behind after {how.name}"
    return code, out


@pytest.mark.parametrize(("how", "code"), [(signal.SIGKILL, -signal.SIGKILL), (signal.SIGTERM, -signal.SIGTERM),
                                           (signal.SIGINT, 130)], ids=["kill -9", "kill", "Ctrl-C"])
def test_a_check_stopped_mid_run_leaves_no_worker_and_the_previous_reports_whole(
        tmp_path: Path, how: signal.Signals, code: int) -> None:
    if not Path("/proc/self/fd").is_dir():  # pragma: no cover - Linux only
        pytest.skip("needs /proc to see the run's open spool")
    ended, out = _interrupted_check(tmp_path, how)  # Ctrl-C: exit 130, killed: the signal's
    assert ended == code
    assert sorted(p.name for p in out.iterdir()) == ["r.json", "r.xml"]
    assert all((out / name).read_text() == "the previous report\n" for name in ("r.json", "r.xml"))


_ORPHAN = """
import os, sys, time
from harness import parallel

if sys.argv[1] == "pipe":
    sys.platform = "darwin"  # the watch a platform without PR_SET_PDEATHSIG uses
watch = os.pipe()
parent = os.getpid()
child = os.fork()
if child == 0:
    parallel.die_with_parent(parent, watch)
    time.sleep(120)
    os._exit(0)
print(child, flush=True)
time.sleep(120)
"""


def test_a_worker_dies_with_its_parent_by_either_watch(tmp_path: Path) -> None:
    if not Path("/proc/self/stat").exists():  # pragma: no cover - Linux only
        pytest.skip("needs /proc to see the processes")
    for how in ("prctl", "pipe"):
        if how == "prctl" and sys.platform != "linux":  # pragma: no cover
            continue
        parent = subprocess.Popen([sys.executable, "-c", _ORPHAN, how], stdout=subprocess.PIPE, text=True)
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        time.sleep(0.3)  # the worker's watch is set
        assert _alive(worker)
        parent.kill()
        parent.wait(timeout=10)
        parent.stdout.close()
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker), f"the worker outlived its parent ({how})"
