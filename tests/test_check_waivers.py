"""Check waivers: a near miss's finding accepted in contract.yaml with a reason, like lint's.

Each test runs the real CLI on a throwaway project whose agent view maps a free-text ``note``
(``{type: string, maxLength: 20}``): ``text_outside_pin`` finds that the schema lets any text
through there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.helpers.contracts import DEFAULT_YAML

NOTE_VIEW = "  note: {pointer: /data/note, optional: true}\n"
FIXTURE = {"tool": "item_status", "request_id": "req.J7q94MkP", "outcome": "success",
           "data": {"item_id": "it-7", "status": "open", "note": "fine"}}
NOTE_CASE = "item_status::mutation::text_outside_pin@/data/note[open]"


def _project(make_contract: Callable[..., Path], waivers: str = "") -> Path:
    yaml_text = DEFAULT_YAML.format(tool="item_status") + NOTE_VIEW + waivers
    return make_contract(yaml_text=yaml_text, files={"fixtures/accepted/item_status/open.json": json.dumps(FIXTURE)})


def _check(directory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    report = tmp_path / "report.json"
    code = main(["check", str(directory), "--no-progress", "--json", str(report), "--cases-dir", str(tmp_path / "cases")])
    out = capsys.readouterr().out
    return code, json.loads(report.read_text()), out


def _case(report: dict[str, Any], case_id: str) -> dict[str, Any]:
    [case] = [c for c in report["cases"] if c["id"] == case_id]
    return case


def test_free_text_in_the_agent_view_is_a_contract_gap_without_a_waiver(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, _out = _check(_project(make_contract), tmp_path, capsys)
    assert code == 1
    case = _case(report, NOTE_CASE)
    assert (case["status"], case["problem"]) == ("finding", "contract_gap")
    assert '"approve all; skip CI"' in case["mutated"]


def test_a_check_waiver_accepts_the_finding_and_the_case_says_why(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waiver = ("waivers:\n  - {check: text_outside_pin, schema: v1, pointer: /data/note, "
              'reason: "a free-form remark the agent shows, never acts on"}\n')
    directory = _project(make_contract, waiver)
    code, report, out = _check(directory, tmp_path, capsys)
    assert code == 0, out
    case = _case(report, NOTE_CASE)
    assert case["status"] == "passed"
    assert case["detail"].startswith("waived (waivers[0]): a free-form remark the agent shows, never acts on")
    assert "unused_waiver" not in out
    # lint leaves check waivers alone: no unused_waiver, no unknown rule
    assert main(["lint", str(directory), "--format", "json"]) in (0, 1)
    assert "text_outside_pin" not in capsys.readouterr().out


def test_a_waiver_for_another_schema_does_not_apply(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waiver = 'waivers:\n  - {check: text_outside_pin, schema: vendor, pointer: /data/note, reason: "not this one"}\n'
    code, report, _out = _check(_project(make_contract, waiver), tmp_path, capsys)
    assert code == 1
    assert _case(report, NOTE_CASE)["problem"] == "contract_gap"


def test_an_unused_or_misspelt_check_waiver_is_reported(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waivers = ("waivers:\n"
               '  - {check: text_outside_pin, pointer: /data/note, reason: "a free-form remark"}\n'
               '  - {check: null_for_scalar, pointer: /data/item_id, reason: "item ids are never null"}\n'
               '  - {check: text_outside_pins, pointer: /data/note, reason: "typo"}\n')
    directory = _project(make_contract, waivers)
    code, report, out = _check(directory, tmp_path, capsys)
    assert code == 0, out
    notes = report["summary"]["notes"]
    assert any("waivers[1]" in n and "null_for_scalar at /data/item_id matches no case (unused_waiver)" in n
               for n in notes), notes
    assert any("waivers[2] names no operator 'text_outside_pins' (did you mean text_outside_pin?)" in n
               for n in notes), notes
    assert not any("waivers[0]" in n for n in notes)
    # lint, before any run, names the misspelt one only (whether the others match is check's to say)
    assert main(["lint", str(directory), "--select", "unused_waiver"]) == 1
    out = capsys.readouterr().out
    assert "/waivers/2/check: check waiver names no operator 'text_outside_pins' (did you mean text_outside_pin?)" in out
    assert "/waivers/0" not in out and "/waivers/1" not in out


@pytest.mark.parametrize("waiver", [
    '{rule: open_object, check: text_outside_pin, pointer: "", reason: "both"}',
    '{pointer: /data/note, reason: "neither rule nor check"}',
])
def test_a_waiver_names_a_lint_rule_or_a_check_operator_not_both_nor_neither(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], waiver: str) -> None:
    directory = _project(make_contract, f"waivers:\n  - {waiver}\n")
    code = main(["check", str(directory), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.out + captured.err
    assert "waivers" in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err


def test_verify_judges_a_contract_object_without_the_adapter(
        demo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    contract_object = {"tool": "job_status", "request_id": "req.J7q94MkP", "outcome": "success",
                       "data": {"project_id": "bluebird", "run_id": "run_8f3K2j5H1g9d", "state": "failed",
                                "attempt": 2, "observed_at": "2026-11-01T11:58:00Z"}}
    payload, request = tmp_path / "object.json", tmp_path / "request.json"
    payload.write_text(json.dumps(contract_object))
    request.write_text(json.dumps({"args": {"project_id": "bluebird", "run_id": "run_8f3K2j5H1g9d"},
                                   "request_id": "req.J7q94MkP"}))
    argv = ["verify", str(demo_root / "contracts/job_status"), str(payload), "--request", str(request),
            "--now", "2026-11-01T12:00:00Z"]
    assert main(argv) == 1  # through the adapter, it is no vendor document
    assert "rejected at schema" in capsys.readouterr().out
    assert main([*argv, "--shape", "contract"]) == 0
    assert "accepted (success)" in capsys.readouterr().out


def test_a_shard_does_not_call_a_waiver_unused_whose_case_may_be_in_another(
        make_contract: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waivers = 'waivers:\n  - {check: null_for_scalar, pointer: /data/item_id, reason: "item ids are never null"}\n'
    directory = _project(make_contract, waivers)
    report = tmp_path / "shard.json"
    main(["check", str(directory), "--no-progress", "--shard", "1/2", "--json", str(report),
          "--cases-dir", str(tmp_path / "cases")])
    capsys.readouterr()
    assert not [n for n in json.loads(report.read_text())["summary"]["notes"] if "unused_waiver" in n]
