from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

DEMO_ACCEPTED = "fixtures/accepted/review_status/approved.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_accepted_payload_exits_0_and_prints_the_agent_result(capsys, demo_root: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "verify", str(demo_root / "contracts/review_status"), str(demo_root / DEMO_ACCEPTED))
    assert code == 0
    assert out.splitlines()[0] == "review_status v1: accepted (success)"
    assert '"decision": "approved"' in out


def test_rejected_payload_exits_1_with_layer_code_pointer_and_message(capsys, demo_root: Path) -> None:  # type: ignore[no-untyped-def]
    payload = demo_root / "fixtures/rejected/review_status/approval_with_instruction.json"
    code, out, _ = run(capsys, "verify", str(demo_root / "contracts/review_status"), str(payload))
    assert code == 1
    assert out.splitlines()[:4] == [
        "review_status v1: rejected at schema: schema.additionalProperties",
        "  pointer:        /data",
        "  schema pointer: /$defs/reviewStatus/additionalProperties",
        "  message:        Additional properties are not allowed ('message', 'admin_override' were unexpected)",
    ]
    assert "Ignore all prior" not in out


def test_json_output_and_audit_file(capsys, demo_root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    audit = tmp_path / "audit.jsonl"
    payload = demo_root / "fixtures/rejected/job_status/other_project.json"
    code, out, _ = run(capsys, "verify", str(demo_root / "contracts/job_status"), str(payload),
                       "--json", "--audit", str(audit))
    doc = json.loads(out)
    assert code == 1
    assert (doc["accepted"], doc["layer"], doc["code"]) == (False, "binding", "binding.project_id")
    assert doc["agent_result"]["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    record = json.loads(audit.read_text())
    assert record["code"] == "binding.project_id" and record["adapter_version"] == "2.0.0"


def test_request_and_now_options_override_the_sidecar(capsys, demo_root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    request = tmp_path / "request.yaml"
    request.write_text("args: {project_id: copperhead, run_id: run_8f3K2j5H1g9d}\n")
    payload = demo_root / "fixtures/rejected/job_status/other_project.json"
    code, out, _ = run(capsys, "verify", str(demo_root / "contracts/job_status"), str(payload),
                       "--request", str(request), "--now", "2026-11-01T12:01:00Z")
    assert code == 0, out
    code, out, _ = run(capsys, "verify", str(demo_root / "contracts/job_status"), str(payload),
                       "--request", str(request), "--now", "2026-11-01T14:00:00Z")
    assert code == 1 and "freshness.stale" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["verify", "no/such/dir", "x.json"], "contract.missing"),
        (["verify", "{demo}/contracts/review_status", "no-such-payload.json"], "usage.invalid"),
        (["verify", "{demo}/contracts/review_status", "{demo}/" + DEMO_ACCEPTED, "--now", "yesterday"], "usage.invalid"),
        (["verify", "{demo}/contracts/review_status", "{demo}/" + DEMO_ACCEPTED, "--version", "7"], "contract.unknown_version"),
        (["verify"], "usage.invalid"),
        (["frobnicate"], "usage.invalid"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, demo_root: Path, argv: list[str], needle: str) -> None:  # type: ignore[no-untyped-def]
    argv = [a.replace("{demo}", str(demo_root)) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert needle in lines[-1] and "Traceback" not in err


def test_console_script_reads_stdin_and_never_shows_a_traceback(demo_root: Path) -> None:
    # The script installed beside this interpreter (the venv need not be on PATH).
    exe = shutil.which("contract-harness", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert exe, "the console script must be installed (pip install -e .)"
    contract = str(demo_root / "contracts/review_status")
    proc = subprocess.run([exe, "verify", contract, "-"], input=b"[" * 5_000,
                          capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert b"transport.max_depth" in proc.stdout and not proc.stderr
    proc = subprocess.run([exe, "verify", contract + "/nope", "-"], input=b"{}", capture_output=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count(b"\n") == 1


def test_a_fixture_without_sidecar_is_judged_at_the_contract_fixture_clock(capsys, demo_root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.copytree(demo_root / "contracts", tmp_path / "contracts")
    shutil.copytree(demo_root / "fixtures", tmp_path / "fixtures")
    fixture = tmp_path / "fixtures/accepted/job_status/failed_run.json"
    fixture.with_name("failed_run.case.yaml").unlink()
    code, out, _ = run(capsys, "verify", str(tmp_path / "contracts/job_status"), str(fixture))
    assert code == 0, out
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(fixture.read_bytes())
    code, out, _ = run(capsys, "verify", str(tmp_path / "contracts/job_status"), str(outside))
    assert code == 1 and "freshness.stale" in out  # the wall clock: observed in 2026-11-01


SECRET = "tok-S3cr3t-Value/42"
UPSTREAM_YAML = """\
tool: item_status
version: 1
request:
  schema: {type: object, properties: {item_id: {type: string}}}
  example: {item_id: it-7}
agent_view:
  item_id: /data/item_id
upstreams:
  api:
    http:
      url: "https://api.example.test/items/{item_id}"
      headers: {Authorization: "Bearer ${ITEM_API_TOKEN}"}
    requests: [{item_id: it-7}]
"""


def test_verify_redacts_an_upstream_secret_from_its_output_and_the_audit_file(  # type: ignore[no-untyped-def]
    capsys, make_contract, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.helpers.contracts import envelope_schema

    data = {"type": "object", "required": ["item_id"], "properties": {"item_id": {"type": "string"}},
            "additionalProperties": {"type": "string"}}
    directory = make_contract("item_status", UPSTREAM_YAML, {1: envelope_schema("item_status", data)})
    monkeypatch.setenv("ITEM_API_TOKEN", SECRET)
    # The upstream echoes the token as a member name (a pointer and a message carry it), once
    # plain and once JSON-escaped.
    payload = tmp_path / "echo.json"
    escaped = SECRET.replace("/", "\\/")
    payload.write_text('{"tool": "item_status", "request_id": "req.J7q94MkP", "outcome": "success", '
                       f'"data": {{"item_id": "it-7", "{escaped}": 5}}}}')
    audit = tmp_path / "audit.jsonl"
    for options in ([], ["--json"]):
        code, out, _ = run(capsys, "verify", str(directory), str(payload), "--audit", str(audit), *options)
        assert code == 1
        assert SECRET not in out and SECRET.replace("/", "~1") not in out
        assert "${ITEM_API_TOKEN}" in out
    text = audit.read_text()
    assert len(text.splitlines()) == 2 and SECRET.replace("/", "~1") not in text and SECRET not in text
    assert json.loads(text.splitlines()[0])["instance_pointer"] == "/data/${ITEM_API_TOKEN}"
