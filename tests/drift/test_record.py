"""--record: new shapes into fixtures/historical/, with sidecars, whole or not at all."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import load_contract
from harness.cases import cases_for
from harness.engine import Engine
from tests.drift.conftest import item_contract, sandbox_env

pytestmark = pytest.mark.drift
HTTP = ["sandbox"]
STAGING = "deployment_status::drift::sandbox[staging]"
RUN_1 = "job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]"
CR_1042 = "review_status::drift::sandbox[CR-1042]"


def historical_files(project: Path) -> set[Path]:
    return {p.relative_to(project) for p in (project / "fixtures/historical").rglob("*") if p.is_file()}


def test_new_shapes_are_recorded_with_sidecars_and_check_replays_them(project: Path, sandbox: Any, drift: Any) -> None:
    before = historical_files(project)
    checks, summary, _ = drift(project, sandbox_env(sandbox, "drifted"), upstreams=HTTP, record=True)
    recorded = {cid: c.recorded for cid, c in checks.items() if c.recorded}
    assert set(recorded) == {RUN_1, CR_1042}
    # The staging state object is a shape the historical fixtures already hold: named, not recorded.
    assert checks[STAGING].seen_before == "deployment_status::historical::maintenance-banner/state_object"
    new = historical_files(project) - before
    assert len(new) == 4 and all(p.suffix in (".json", ".yaml") for p in new)
    side_path = next(p for p in new if p.parts[2] == "review_status" and p.name.endswith(".case.yaml"))
    sidecar = yaml.safe_load((project / side_path).read_text())
    assert sidecar["upstream"] == "sandbox" and sidecar["request"]["args"] == {"change_id": "CR-1042"}
    assert sidecar["expect"] == {"layer": "schema", "code": "schema.enum"}
    assert sidecar["verdict"]["code"] == "schema.enum" and sidecar["recorded_at"].endswith("Z")
    assert any("recorded new shapes into" in note for note in summary.notes)
    for tool in ("deployment_status", "job_status", "review_status"):
        contract = load_contract(project / "contracts" / tool)
        results = [Engine().evaluate(c) for c in cases_for(contract, sources=["historical"]).cases]
        assert {r.status for r in results} == {"passed"}, [r.detail for r in results if r.status != "passed"]


def test_a_recorded_accepted_shape_is_baseline_on_the_next_run_and_nothing_is_recorded_twice(
    project: Path, sandbox: Any, drift: Any
) -> None:
    drift(project, sandbox_env(sandbox, "drifted"), upstreams=HTTP, record=True)
    files = historical_files(project)
    checks, _, _ = drift(project, sandbox_env(sandbox, "drifted"), upstreams=HTTP, record=True)
    assert historical_files(project) == files
    assert checks[RUN_1].status == "held"  # the new field is now a shape seen before
    staging = checks[STAGING]
    assert staging.status == "rejected" and staging.seen_before is not None  # still refused, and named


def test_a_recording_that_fails_leaves_nothing_behind(
    project: Path, sandbox: Any, drift: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.drift.baseline as baseline

    calls: list[Path] = []

    def disk_full(path: Path, data: bytes, mode: int = 0o644) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        path.write_bytes(data)

    monkeypatch.setattr(baseline, "write_atomic", disk_full)
    before = historical_files(project)
    checks, summary, _ = drift(
        project,
        sandbox_env(sandbox, "drifted"),
        tools=["review_status"],
        upstreams=HTTP,
        record=True,
    )
    assert historical_files(project) == before
    # Nothing was written, so no check claims a recording (each says why instead).
    assert [c.recorded for c in checks.values()] == [None] * len(checks)
    assert any("not recorded: writing the recording failed" in c.notes for c in checks.values())
    assert not [p for p in (project / "fixtures/historical").iterdir() if p.name.startswith(".")]
    assert any("recording failed, nothing written (OSError: No space left on device)" in n for n in summary.notes)


def test_a_response_that_carries_a_secret_is_never_recorded(make_contract: Any, tmp_path: Path, drift: Any) -> None:
    (tmp_path / "tool.py").write_text(
        "import json, os, sys\n"
        "print(json.dumps({'tool': 'item_status', 'request_id': sys.argv[1], 'outcome': 'success',"
        " 'data': {'item_id': 'it-7', 'status': 'open', 'note': os.environ['ITEM_TOKEN']}}))\n"
    )
    command = {"argv": [sys.executable, "tool.py", "{request_id}"], "env": {"ITEM_TOKEN": "${ITEM_TOKEN}"}}
    item_contract(make_contract, {"cli": {"command": command, "requests": [{"item_id": "it-7"}]}})
    checks, _, _ = drift(tmp_path, {"ITEM_TOKEN": "s3cr3t-echo"}, record=True)
    check = checks["item_status::drift::cli[it-7]"]
    assert check.recorded is None and "not recorded: the body contains the value of ${ITEM_TOKEN}" in check.notes
    assert not (tmp_path / "fixtures").exists()
