from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.helpers.contracts import item


def test_check_on_the_embedded_demo_holds(capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--demo", "--no-progress", "--json", "report.json"])
    out, err = capsys.readouterr()
    assert code == 0, out
    assert err == ""
    assert "cases by rejecting layer" in out and "review_status" in out
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["summary"]["ok"] and report["summary"]["failed"] == 0
    assert set(report["summary"]["tools"]) == {"review_status", "job_status", "deployment_status"}


def test_failing_case_prints_ids_layers_and_a_reproduce_command(capsys, make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    make_contract()
    rejected = tmp_path / "fixtures/rejected/item_status"
    rejected.mkdir(parents=True)
    (rejected / "mislabelled.json").write_bytes(item().replace(b"it-7", b"it-8"))
    (rejected / "mislabelled.case.yaml").write_text("expect: {layer: schema}\n")
    code = main(["check", str(tmp_path), "--no-progress", "--cases-dir", str(tmp_path / "cases")])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "FAILED item_status::rejected::mislabelled (wrong_layer)" in out
    assert "expected: schema" in out and "actual:   binding.item_id at /data/item_id" in out
    assert "reproduce with: contract-harness verify" in out
    assert list((tmp_path / "cases/item_status").glob("*.json"))


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check", "--demo", "--shard", "3/2"], "--shard"),
        (["check", "--demo", "--shard", "x"], "I/N"),
        (["check", "--demo", "--tool", "nope"], "unknown tool nope (known: deployment_status, job_status, review_status)"),
        (["check", "--demo", "--operator", "frobnicate"], "unknown operator 'frobnicate' in --operator (known: "),
        (["check", "--demo", "--operator", "wrong_typ"], "'wrong_typ' in --operator (did you mean wrong_type?)"),
        (["check", "--demo", "--max-mutants", "-1"], "--max-mutants"),
        (["check", "/no/such/dir"], "contract.missing"),
        (["check", "--demo", "contracts"], "give CONTRACTS or --demo, not both"),
    ],
)
def test_check_usage_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, needle) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2
    assert needle in err.strip().splitlines()[-1]


def test_shards_together_cover_the_whole_run(capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    totals = []
    for i in (1, 2):
        assert main(["check", "--demo", "--tool", "review_status", "--shard", f"{i}/2", "--no-progress", "--json", f"s{i}.json"]) == 0
        totals.append(json.loads(Path(f"s{i}.json").read_text())["summary"]["total"])
    assert main(["check", "--demo", "--tool", "review_status", "--no-progress", "--json", "all.json"]) == 0
    capsys.readouterr()
    assert sum(totals) == json.loads(Path("all.json").read_text())["summary"]["total"]


def test_check_is_quiet_in_ci_and_never_draws_a_progress_bar(tmp_path) -> None:
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--demo", "--tool", "deployment_status"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\r" not in proc.stderr and "checking" not in proc.stderr
    assert "all 56 cases held" in proc.stdout or "cases held" in proc.stdout


def test_check_collects_cycles_less_often_while_it_runs_and_gives_the_thresholds_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from harness.cli._common import GC_THRESHOLDS
    from harness.reporting.terminal import TerminalReporter

    during: list[tuple[int, int, int]] = []
    handle = TerminalReporter.handle

    def watched(self: TerminalReporter, event: object) -> None:
        during.append(gc.get_threshold())
        handle(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(TerminalReporter, "handle", watched)
    before = gc.get_threshold()
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--demo", "--no-progress", "--jobs", "1", "--tool", "review_status"]) == 0
    assert gc.get_threshold() == before
    assert during and all(t[0] >= GC_THRESHOLDS[0] for t in during)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_case_in_a_report_file_carries_its_rejections_reason(capsys, tmp_path, monkeypatch, jobs) -> None:  # type: ignore[no-untyped-def]
    # Without a report file, check leaves the schema layer's reason of a case that held unasked
    # (nothing shows it); a report file shows every case, so every one is explained.
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--demo", "--no-progress", "--jobs", jobs, "--no-saved-verdicts"]) == 0
    table = capsys.readouterr().out
    assert main(["check", "--demo", "--no-progress", "--jobs", jobs, "--no-saved-verdicts", "--json", "report.json"]) == 0
    with_report = capsys.readouterr().out
    assert table.split("all ")[0] == with_report.split("all ")[0]  # the same tools x layers table
    cases = json.loads((tmp_path / "report.json").read_text())["cases"]
    codes = {case["actual"]["code"] for case in cases}
    assert "schema.unexplained" not in codes and {"schema.additionalProperties", "schema.type"} <= codes


def test_a_project_checked_from_elsewhere_keeps_its_state_in_its_own_folder(
        capsys, make_contract, tmp_path, tmp_path_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Saved verdicts and reproductions belong to the project checked, not to whichever folder
    # the command ran from (a CI step, a shell in the home folder).
    from tests.helpers.contracts import item

    contract = make_contract()
    project = contract.parent.parent
    accepted = project / "fixtures" / "accepted" / "item_status"
    accepted.mkdir(parents=True)
    (accepted / "ok.json").write_bytes(item())
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    assert main(["check", str(contract), "--no-progress", "--max-mutants", "2"]) == 0, capsys.readouterr().out
    assert list((project / ".contract-harness" / "check" / "reference").iterdir())
    assert not (elsewhere / ".contract-harness").exists()
