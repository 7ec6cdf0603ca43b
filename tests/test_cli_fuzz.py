"""``contract-harness fuzz``: the ci profile on the demo, reports, failures, usage errors."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from typing import Any

import pytest

from harness import validator_for
from harness.cli import main
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema


def test_the_ci_profile_passes_on_the_demo_tools_and_writes_every_report(capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    code = main(["fuzz", "--demo", "--profile", "ci", "--no-progress", "--json", "fuzz.json", "--markdown", "fuzz.md",
                 "--junit", "fuzz.xml", "--html", "fuzz.html"])
    out, err = capsys.readouterr()
    assert code == 0, out
    assert err == ""
    assert "all 13 properties held on 3 tools (1,300 examples" in out
    assert not (tmp_path / ".contract-harness/fuzz/fixtures").exists()  # nothing failed, nothing written

    report = json.loads((tmp_path / "fuzz.json").read_text())
    schema = json.loads(resources.files("harness").joinpath("report.schema.json").read_text())
    assert not validator_for(schema).violations(report)
    assert report["report"] == "contract-harness/fuzz" and report["summary"]["ok"]
    fuzz = report["fuzz"]
    assert (fuzz["profile"], fuzz["derandomized"], fuzz["max_examples"]) == ("ci", True, 100)
    assert len(report["cases"]) == 13 and {c["source"] for c in report["cases"]} == {"fuzz"}
    assert fuzz["tools"]["review_status"]["not_applicable"] == ["adapter_maps_cleanly"]
    assert "adapter_maps_cleanly" in fuzz["tools"]["job_status"]["properties"]
    for tool in fuzz["tools"].values():
        for source in ("documents", "vendor"):
            if source in tool["generator"]:
                stats = tool["generator"][source]
                assert stats["generated"] > 0 and stats["discard_rate"] < 0.05 and stats["unique"] > 0
        assert all(p["examples"] == 100 for p in tool["properties"].values())
    near = fuzz["tools"]["job_status"]["properties"]["rejects_near_misses"]["labels"]
    assert set(near) >= {"add_extra_property", "duplicate_member", "stretch_string", "break_binding", "stale_timestamp"}

    testcases = ET.parse(tmp_path / "fuzz.xml").getroot().findall(".//testcase")
    assert len(testcases) == 13 and {t.get("classname") for t in testcases} == set(fuzz["tools"])
    props = {p.get("name"): p.get("value") for p in testcases[0].findall("properties/property")}
    assert props["examples"] == "100" and int(props["generated"]) > 0 and "discarded" in props

    markdown = (tmp_path / "fuzz.md").read_text()
    assert markdown.startswith("## Contract fuzz: all 13 properties held")
    assert "| job_status | held (100) | held (100) | held (100) | held (100) | held (100) |" in markdown
    assert "| tool | source | generated | discarded as invalid | discard rate | unique | boundary values |" in markdown

    page = (tmp_path / "fuzz.html").read_text()  # fuzz's own page: properties, not cases
    assert "all 13 properties held on 3 tools (1,300 examples" in page and "cases" not in page.split("<h2>")[0]
    assert [h.split("</h2>")[0] for h in page.split("<h2>")[1:]] == [
        "Properties by tool", "Examples", "Verdicts by deciding layer", "Generated documents"]
    assert '<tr><td>job_status</td><td class="ok">held (100)</td>' in page
    assert "<td>job_status</td><td>adapter_maps_cleanly</td><td>100</td><td>generated</td>" in page
    assert 'id="matrix"' not in page and "<script" not in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page  # self-contained


def test_a_failing_property_exits_1_with_the_example_the_fixture_and_how_to_replay_it(capsys, make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    data: dict[str, Any] = dict(ENVELOPE_DATA)
    del data["additionalProperties"]
    make_contract(schemas={1: envelope_schema("item_status", data)})
    out_dir = tmp_path / "out"
    argv = ["fuzz", str(tmp_path), "--examples", "30", "--no-progress", "--fixtures-out", str(out_dir),
            "--json", str(tmp_path / "f.json"), "--junit", str(tmp_path / "f.xml"), "--markdown", str(tmp_path / "f.md"),
            "--html", str(tmp_path / "f.html")]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "FINDING item_status::fuzz::rejects_near_misses (contract_gap)" in out
    assert "  mutation: add_extra_property at /data: (absent) -> debug: hx-canary-" in out
    assert "0 failed, 1 finding, 3 held of 4 properties on 1 tool" in out
    (fixture,) = out_dir.glob("fixtures/rejected/item_status/fuzz-rejects_near_misses-*.json")
    assert fixture.with_name(fixture.name.replace(".json", ".case.yaml")).is_file()
    assert f"  fixture:  {fixture}" in out

    report = json.loads((tmp_path / "f.json").read_text())
    schema = json.loads(resources.files("harness").joinpath("report.schema.json").read_text())
    assert not validator_for(schema).violations(report)
    case = next(c for c in report["cases"] if c["status"] != "passed")
    assert (case["id"], case["status"], case["problem"]) == ("item_status::fuzz::rejects_near_misses", "finding", "contract_gap")
    assert (case["operator"], case["pointer"], case["expected"]["layer"], case["actual"]["accepted"]) == (
        "add_extra_property", "/data", "schema", True)
    assert case["fixture"] == str(fixture) and case["reproduce"].startswith("contract-harness fuzz ")
    outcome = report["fuzz"]["tools"]["item_status"]["properties"]["rejects_near_misses"]
    assert outcome["blob"] and outcome["fixture"] == str(fixture) and outcome["shrinks"] > 0
    failures = [t for t in ET.parse(tmp_path / "f.xml").getroot().iter("testcase") if t.find("failure") is not None]
    assert [t.get("name") for t in failures] == ["fuzz::rejects_near_misses"]
    assert failures[0].find("failure").get("type") == "finding.contract_gap"  # type: ignore[union-attr]
    markdown = (tmp_path / "f.md").read_text()
    assert "### Properties that did not hold" in markdown and "--blob " in markdown and str(fixture) in markdown
    page = (tmp_path / "f.html").read_text()
    assert '<h3 class="bad">item_status::fuzz::rejects_near_misses</h3>' in page
    assert "  reproduce with: contract-harness fuzz " in page and "shrunk (hypothesis tried " in page
    assert '<td class="bad">FINDING</td>' in page

    replay = next(line for line in out.splitlines() if line.startswith("  this example exactly: "))
    command = shlex.split(replay.split(": ", 1)[1])
    assert command[:2] == ["contract-harness", "fuzz"] and "--blob" in command
    assert main([*command[1:], "--no-progress", "--fixtures-out", str(out_dir)]) == 1
    assert "FINDING item_status::fuzz::rejects_near_misses (contract_gap)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["fuzz", "--demo", "--examples", "0"], "--examples must be at least 1"),
        (["fuzz", "--demo", "--property", "frobnicate"], "unknown property 'frobnicate' in --property (known: accepts_valid,"),
        (["fuzz", "--demo", "--property", "accept_valid"], "'accept_valid' in --property (did you mean accepts_valid?)"),
        (["fuzz", "--demo", "--tool", "nope"], "unknown tool nope (known: deployment_status, job_status, review_status)"),
        (["fuzz", "--demo", "--blob", "AXic"], "--blob replays one example: give exactly one --tool and one --property"),
        (["fuzz", "--demo", "--tool", "review_status", "--property", "adapter_maps_cleanly", "--blob", "AXic"],
         "property adapter_maps_cleanly does not apply to review_status"),
        (["fuzz", "--demo", "--tool", "review_status", "--property", "accepts_valid", "--blob", "not-a-blob"], "--blob"),
        (["fuzz", "--demo", "--profile", "weekly"], "invalid choice: 'weekly'"),
        (["fuzz", "/no/such/dir"], "contract.missing"),
        (["fuzz"], "project.not_found: no contracts/ folder in "),
    ],
)
def test_fuzz_usage_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, needle) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2
    assert needle in err.strip().splitlines()[-1]


def test_fuzz_is_quiet_in_ci_and_never_draws_a_progress_bar(tmp_path) -> None:
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "fuzz", "--demo", "--tool", "deployment_status",
                           "--property", "accepts_valid", "--examples", "5"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\r" not in proc.stderr and "fuzzing" not in proc.stderr
    assert "all 1 property held on 1 tool (5 examples" in proc.stdout


def test_a_held_property_reports_what_every_example_did(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    argv = ["fuzz", "--demo", "--tool", "deployment_status", "--property", "accepts_valid", "--property", "rejects_near_misses",
            "--examples", "5", "--no-progress", "--json", "r.json"]
    assert main(argv) == 0
    capsys.readouterr()
    cases = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert cases["deployment_status::fuzz::accepts_valid"]["actual"]["accepted"] is True
    assert cases["deployment_status::fuzz::rejects_near_misses"]["actual"]["accepted"] is False
    assert cases["deployment_status::fuzz::rejects_near_misses"]["detail"] == "held on 5 examples"


def test_hypothesis_caches_go_under_contract_harness_not_a_hypothesis_folder(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "fuzz", "--demo", "--tool", "review_status",
                           "--property", "survives_any_bytes", "--examples", "20", "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / ".hypothesis").exists()
    assert (tmp_path / ".contract-harness/hypothesis/unicode_data").is_dir()
