"""compat on the demo tools: the CLI, the replay matrix and its attribution rule, the API."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.compat import Budget, Direction, Verdict, compare, consecutive_pairs

FAST = ["--examples", "15", "--samples", "6"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_deployment_status_v2_rejects_old_shapes_and_holds_its_writer_policy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "compat", "deployment_status", "--from", "1", "--to", "2", *FAST,
                       "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md"),
                       "--html", str(tmp_path / "r.html"))
    assert code == 0, out
    assert out.splitlines()[0] == "deployment_status: v1 -> v2: OK (policy writer, from contract (compat.policy))"
    report = json.loads((tmp_path / "r.json").read_text())
    rules = ["CMP109 object_closed", "CMP204 enum_introduced"]
    assert report["verdicts"] == {"reader": {"verdict": "breaking", "evidence": "witness", "rules": rules},
                                  "writer": {"verdict": "safe", "evidence": "sampled", "rules": rules}}
    assert "writer-safe (new documents accepted by old readers): safe (sampled; decided by CMP109 object_closed, " \
           "CMP204 enum_introduced)" in out
    assert {c["class"] for c in report["changes"]} == {"object_closed", "enum_introduced"}
    assert report["old"]["sha256"] != report["new"]["sha256"] and report["new"]["id"].endswith("v2.json")
    extra = next(r for r in report["replay"] if r["fixture"].endswith("v1-open/extra_member"))
    assert [c["accepted"] for c in extra["cells"]] == [True, False]
    assert extra["cells"][1]["attributed_to"].startswith("CMP109 object_closed")
    assert "## Replay" in (tmp_path / "r.md").read_text()
    page = (tmp_path / "r.html").read_text()
    assert "<title>Compat report — deployment_status: v1 -&gt; v2</title>" in page
    assert '<span class="verdict ok">OK: ' in page and "<script" not in page
    for heading in ("Versions", "Verdicts", "Checks", "Changes", "Witnesses", "Replay"):
        assert f"<h2>{heading}</h2>" in page
    assert "<td>reader</td><td>breaking</td><td>witness</td>" in page and "CMP109" in page


def test_job_status_breaks_both_ways_so_the_reader_policy_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compat", "job_status", "--policy", "reader", *FAST)
    assert code == 1
    assert "FAILED policy: policy reader violated" in out
    code, out, _ = run(capsys, "compat", "job_status", *FAST)  # declared: v2 is a deliberate break
    assert code == 0, out


def test_v1_contract_shapes_are_rejected_by_v2_at_the_changed_keyword(demo) -> None:  # type: ignore[no-untyped-def]
    report = compare(demo("job_status"), 1, 2, budget=Budget(examples=15, samples=6))
    rows = {row.fixture.rsplit("::", 1)[1]: row for row in report.replay}
    cancelled = rows["contract-v1/cancelled_run"].cells
    assert cancelled[0].accepted and cancelled[1].code == "schema.enum"
    assert cancelled[1].attributed_to is not None and "enum_narrowed" in cancelled[1].attributed_to
    missing = rows["contract-v1/failed_run_without_attempt"].cells[1]
    assert missing.code == "schema.required" and "required_property_added" in (missing.attributed_to or "")
    assert report.verdict(Direction.WRITER) is Verdict.BREAKING
    assert consecutive_pairs(demo("job_status")) == [(1, 2)]


def _project_with_bad_revision(demo_root: Path, tmp_path: Path, sidecar: str) -> Path:
    """A copy of the demo project with one more deployment_status historical fixture."""
    project = tmp_path / "project"
    shutil.copytree(demo_root / "contracts", project / "contracts")
    shutil.copytree(demo_root / "fixtures", project / "fixtures")
    folder = project / "fixtures/historical/deployment_status/v1-open"
    (folder / "bad_revision.json").write_text(json.dumps(
        {"environment": "staging", "revision": "NOT-HEX", "state": "healthy"}))
    (folder / "bad_revision.case.yaml").write_text(sidecar)
    return project


def test_an_expected_rejection_for_an_unrelated_reason_fails_the_replay(
    capsys: pytest.CaptureFixture[str], demo_root: Path, tmp_path: Path
) -> None:
    # A bad revision: both versions reject it by pattern, which v1 -> v2 did not change.
    project = _project_with_bad_revision(
        demo_root, tmp_path, "expect_by_version:\n  1: accept\n  2: {layer: schema, code: schema.pattern}\n")
    code, out, _ = run(capsys, "compat", "deployment_status", "--contracts", str(project), *FAST)
    assert code == 1
    assert "FAIL deployment_status::historical::v1-open/bad_revision" in out
    assert "expected accept, got schema.pattern" in out


def test_a_rejection_that_is_not_where_the_versions_differ_is_reported(
    capsys: pytest.CaptureFixture[str], demo_root: Path, tmp_path: Path
) -> None:
    project = _project_with_bad_revision(
        demo_root, tmp_path, "expect_by_version:\n  2: {layer: schema, code: schema.pattern}\n")
    v1 = project / "contracts/deployment_status/schemas/v1.json"
    schema = json.loads(v1.read_text())
    schema["properties"]["revision"]["maxLength"] = 4  # v1 now rejects long revisions, v2 does not
    v1.write_text(json.dumps(schema))
    # An edit of a published version: compat would refuse it first; here v1 is a draft.
    (project / "contracts/deployment_status/schemas.lock").unlink()
    code, out, _ = run(capsys, "compat", "deployment_status", "--contracts", str(project), *FAST)
    assert code == 1
    assert "which is not where v1 -> v2 changed" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["compat", "nope"], "tools: deployment_status, job_status, review_status"),
        (["compat", "job_status", "--from", "7"], "job_status has no version 7 (versions: 1, 2)"),
        (["compat", "review_status"], "no version before v1"),
        (["compat", "job_status", "--policy", "lenient"], "usage.invalid"),
        (["compat", "job_status", "--examples", "-1"], "--examples and --samples must be at least 0"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_witness_against_a_safe_verdict_fails_loudly() -> None:
    from harness.compat import RULES, Direction
    from harness.compat.assess import assess
    from harness.compat.normalise import prepare
    from harness.compat.registry import CompatRuleRegistry

    lying = CompatRuleRegistry()  # enum_narrowed claims to be safe both ways
    for rule in RULES:
        safe = rule.name == "enum_narrowed"
        lying.rule(rule.id, group=rule.group, reader="safe" if safe else rule.reader,
                   writer="safe" if safe else rule.writer, example=rule.example,
                   keywords=tuple(rule.keywords))(rule.detect)
    old, new = prepare({"enum": ["a", "b"]}, label="old"), prepare({"enum": ["a"]}, label="new")
    result = assess(old, new, Budget(examples=10, samples=4), registry=lying)
    assert result.contradictions, "the witness for the removed value must contradict 'safe'"
    message = result.contradictions[0].message
    assert message.startswith("classifier bug: CMP201") and "reader-safe" in message
    assert result.contradictions[0].direction is Direction.READER


def test_examples_zero_gives_the_static_classification_without_any_search(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compat", "job_status", "--examples", "0", "--samples", "0", "--policy", "none")
    assert code == 0, out
    assert "(witness)" not in out and "reader breaking (static)" in out
