from __future__ import annotations

import json
import shlex
import subprocess
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

from harness import load_contract, validator_for
from harness.cases import cases_for
from harness.engine import Engine
from harness.reporting import dispatch
from harness.reporting.files import JsonReporter, JUnitReporter, MarkdownReporter, json_report, write_reproduction
from tests.helpers.contracts import item


@pytest.fixture
def broken_project(make_contract, tmp_path):  # type: ignore[no-untyped-def]
    """A project with one accepted fixture, one rejected fixture whose sidecar is wrong."""
    d = make_contract()
    accepted = tmp_path / "fixtures/accepted/item_status"
    rejected = tmp_path / "fixtures/rejected/item_status"
    accepted.mkdir(parents=True)
    rejected.mkdir(parents=True)
    (accepted / "ok.json").write_bytes(item())
    (rejected / "mislabelled.json").write_bytes(item().replace(b"it-7", b"it-8"))
    (rejected / "mislabelled.case.yaml").write_text("expect: {layer: schema}\n")
    return load_contract(d)


def _run(contract, tmp_path: Path):  # type: ignore[no-untyped-def]
    collected = cases_for(contract, max_mutants=10)
    json_path, junit_path, md_path = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    dispatch(Engine().run(collected.cases), [JsonReporter(json_path), JUnitReporter(junit_path), MarkdownReporter(md_path)])
    return json.loads(json_path.read_text()), ET.parse(junit_path).getroot(), md_path.read_text(), collected.cases


def test_json_report_validates_against_its_published_schema(broken_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    report, _, _, cases = _run(broken_project, tmp_path)
    schema = json.loads(resources.files("harness").joinpath("report.schema.json").read_text())
    violations = validator_for(schema).violations(report)
    assert not violations, violations[:3]
    assert report["report"] == "contract-harness/check"
    assert len(report["cases"]) == len(cases)
    bad = next(c for c in report["cases"] if c["status"] != "passed")
    assert bad["id"] == "item_status::rejected::mislabelled"
    assert (bad["expected"]["layer"], bad["actual"]["layer"], bad["actual"]["code"]) == ("schema", "binding", "binding.item_id")
    assert bad["problem"] == "wrong_layer"


def test_junit_report_parses_back_with_one_testcase_per_case(broken_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, root, _, cases = _run(broken_project, tmp_path)
    testcases = root.findall(".//testcase")
    assert len(testcases) == len(cases)
    assert {t.get("classname") for t in testcases} == {"item_status"}
    failing = [t for t in testcases if t.find("failure") is not None]
    assert [t.get("name") for t in failing] == ["rejected::mislabelled"]
    props = {p.get("name"): p.get("value") for p in failing[0].findall("properties/property")}
    assert props["expected_layer"] == "schema" and props["actual_layer"] == "binding"
    assert props["actual_code"] == "binding.item_id"
    suite_props = {p.get("name"): p.get("value") for p in root.find("testsuite").findall("properties/property")}
    by_binding = [t for t in testcases
                  if {p.get("name"): p.get("value") for p in t.findall("properties/property")}["actual_layer"] == "binding"]
    assert suite_props["rejected_by_binding"] == str(len(by_binding)) and by_binding


def test_the_junit_report_leaves_out_every_character_xml_does_not_allow() -> None:
    from harness.reporting.files import legal_xml

    text = "".join(map(chr, range(0x110000)))
    written = legal_xml(ET.tostring(ET.Element("testcase", name=text), encoding="unicode"))
    kept = ET.fromstring(written).get("name") or ""  # an XML parser reads it back
    assert not set(kept) & {"\x00", "\x08", "\x0b", "\x1f", "\x7f", "\x9f", chr(0xD800), chr(0xDFFF), "\ufdd0",
                            "\ufffe", "\uffff", "\U0001fffe", "\U0010ffff"}
    assert {"\x85", "\xa0", "\ud7ff", "\ue000", "\ufffd", "\U00010000", "\U0010fffd"} <= set(kept)


def test_markdown_report_has_the_layer_table_and_the_failing_case(broken_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, _, md, _ = _run(broken_project, tmp_path)
    assert md.startswith("## Contract harness: ")
    assert "| tool | cases | transport | parse | schema | adapter | binding | freshness | projection | accepted |" in md
    assert "`item_status::rejected::mislabelled`" in md and "wrong_layer" in md


def test_reproduce_command_reproduces_the_verdict(broken_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine()
    case = next(c for c in cases_for(broken_project).cases if c.source == "rejected")
    result = write_reproduction(engine.evaluate(case), tmp_path / "cases")
    assert result.reproduce and result.reproduce.startswith("contract-harness verify ")
    proc = subprocess.run([*shlex.split(result.reproduce), "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["code"] == "binding.item_id"


def test_report_files_are_written_atomically(broken_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _run(broken_project, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("r.", ".r."))) == ["r.json", "r.md", "r.xml"]


def test_summary_json_counts_match_the_cases(demo) -> None:  # type: ignore[no-untyped-def]
    collected = cases_for(demo("review_status"))
    events = list(Engine().run(collected.cases))
    results = [e.result for e in events[1:-1]]
    report = json_report(results, events[-1].summary)
    by_layer = report["summary"]["tools"]["review_status"]["by_layer"]
    assert sum(by_layer.values()) == len(results) == report["summary"]["total"]


def test_json_report_is_one_case_per_line_and_parses_back_to_the_same_document() -> None:
    from harness.reporting.files import dump_report

    document = {"report": "contract-harness/check", "summary": {"notes": ["a \"cases\" note"]},
                "cases": [{"id": "t::accepted::a", "detail": "</script>\u2028é"}, {"id": "t::rejected::b"}]}
    text = dump_report(document)
    assert json.loads(text) == document
    lines = text.split("\n")  # not splitlines(): U+2028 is a line break to it, not to JSON
    assert '    {"id": "t::accepted::a", "detail": "</script>\u2028é"},' in lines
    assert '    {"id": "t::rejected::b"}' in lines
    # The marker text inside the document itself: still exact, by the slow path.
    odd = {**document, "summary": {"notes": ["\u0000cases\u0000"]}}
    assert json.loads(dump_report(odd)) == odd
