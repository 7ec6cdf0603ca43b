"""``import mcp`` against the demo MCP server (``contract-harness sandbox --mcp``), then ``drift``
on what it wrote: the imported upstream must work as written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness import load_contract
from harness.cli import main
from harness.datafiles import load_yaml

SANDBOX = [sys.executable, "-m", "harness", "sandbox", "--mcp"]
SAMPLES = {
    "review_status": {"change_id": "CR-1042"},
    "job_status": {"project_id": "bluebird", "run_id": "run_8f3K2j5H1g9d"},
    "deployment_status": [{"environment": "staging"}, {"environment": "production"}],
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sandbox")
    samples = root / "samples.json"
    samples.write_text(json.dumps(SAMPLES))
    assert main(["import", "mcp", "--into", str(root), "--sample", str(samples), "--", *SANDBOX]) == 0
    return root


def test_every_demo_tool_is_imported_from_the_live_server_in_its_dialect(project: Path) -> None:
    assert sorted(p.name for p in (project / "contracts").iterdir()) == ["deployment_status", "job_status", "review_status"]
    assert load_contract(project / "contracts/review_status").validator().dialect == "draft-07"
    assert load_contract(project / "contracts/deployment_status").validator().dialect == "2020-12"


def test_every_sampled_result_is_an_accepted_fixture_with_its_request(project: Path) -> None:
    accepted = sorted(str(p.relative_to(project / "fixtures/accepted")) for p in (project / "fixtures/accepted").rglob("*.json"))
    assert accepted == ["deployment_status/sample_1.json", "deployment_status/sample_2.json",
                        "job_status/sample_1.json", "review_status/sample_1.json"]
    sidecar = load_yaml(project / "fixtures/accepted/deployment_status/sample_2.case.yaml")
    assert sidecar["request"] == {"args": {"environment": "production"}}
    assert sidecar["upstream"] == "contract-harness-sandbox"


def test_the_upstream_points_back_at_the_server(project: Path) -> None:
    upstream = load_contract(project / "contracts/deployment_status").upstreams[0]
    assert (upstream.name, upstream.kind) == ("contract-harness-sandbox", "mcp")
    assert dict(upstream.config) == {"command": SANDBOX[0], "args": SANDBOX[1:], "tool": "deployment_status"}
    assert [dict(r) for r in upstream.requests] == SAMPLES["deployment_status"]


def test_check_and_verify_hold_on_the_imported_fixtures(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert main(["check", "--no-progress", "--source", "accepted"]) == 0
    assert main(["verify", "contracts/review_status", "fixtures/accepted/review_status/sample_1.json"]) == 0


def test_drift_runs_on_the_imported_upstreams_as_written_and_finds_none(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert main(["drift", "--json", "drift.json"]) == 0
    report = json.loads((project / "drift.json").read_text())
    assert report["summary"]["total"] == 7  # three advertised schemas and four sample calls
