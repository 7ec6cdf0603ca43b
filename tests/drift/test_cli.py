"""contract-harness drift and contract-harness sandbox, as a person or a CI job runs them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness import validator_for
from harness.cli import main
from tests.drift.conftest import sandbox_env

pytestmark = pytest.mark.drift


#: The CLI as this interpreter runs it: no console script on PATH needed (the venv may not be
#: activated); tests/test_cli_verify.py checks the installed script itself.
CLI = [sys.executable, "-m", "harness"]


def reports(tmp_path: Path) -> list[str]:
    return [
        "--json",
        str(tmp_path / "r.json"),
        "--junit",
        str(tmp_path / "r.xml"),
        "--markdown",
        str(tmp_path / "r.md"),
        "--cases-dir",
        str(tmp_path / "cases"),
    ]


def drift_cli(project: Path, tmp_path: Path, *argv: str) -> int:
    """contract-harness drift on the sandbox upstreams of ``project``, writing every report."""
    return main(["drift", str(project), "--upstream", "sandbox", *argv, *reports(tmp_path)])


def valid_report(path: Path) -> dict[str, Any]:
    """The JSON report, checked against the schema the package publishes."""
    report: dict[str, Any] = json.loads(path.read_text())
    schema = json.loads(resources.files("harness").joinpath("report.schema.json").read_text())
    assert not validator_for(schema).violations(report)
    return report


def test_no_drift_is_exit_0_and_the_json_report_follows_its_published_schema(
    project: Path,
    sandbox: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in sandbox_env(sandbox, "stable").items():
        monkeypatch.setenv(name, value)
    assert drift_cli(project, tmp_path) == 0
    report = valid_report(tmp_path / "r.json")
    assert report["report"] == "contract-harness/drift" and report["summary"]["ok"] is True
    assert report["drift"]["counts"] == {"held": 6, "drifted": 0, "rejected": 0, "failed": 0, "not_called": 0}
    out = capsys.readouterr().out
    assert "no drift: 6 held, 0 drifted, 0 rejected, 0 failed of 6 checks" in out
    assert sandbox.url not in out + (tmp_path / "r.json").read_text()  # ${HARNESS_SANDBOX_URL}, not its value


def test_drift_is_exit_1_and_every_report_names_the_changes(
    project: Path,
    sandbox: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(sandbox, "drifted")["HARNESS_SANDBOX_URL"])
    assert drift_cli(project, tmp_path, "--tool", "deployment_status", "--tool", "job_status") == 1
    out = capsys.readouterr().out
    assert "  change:   object where string at /state: string -> object" in out
    assert "  seen before as deployment_status::historical::maintenance-banner/state_object" in out
    report = valid_report(tmp_path / "r.json")
    cases = {c["id"]: c for c in report["cases"]}
    assert cases["deployment_status::drift::sandbox[staging]"]["problem"] == "unexpected_rejection"
    assert cases["job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]"]["problem"] == "drift"
    check = next(c for c in report["drift"]["checks"] if c["id"].endswith("[staging]"))
    assert {
        "kind": "object_where_string",
        "path": "/state",
        "before": "string",
        "after": "object",
    } in check["changes"]
    assert check["verdict"]["agent_result"]["error"]["code"] == "INVALID_RESPONSE"
    props = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "r.xml").getroot().iter("property")}
    assert props["upstream"] == "sandbox" and "change_1" in props
    markdown = (tmp_path / "r.md").read_text()
    assert "### Shape changes" in markdown and "| object where string | `/state` | string | object |" in markdown


def test_a_rejected_response_comes_with_a_command_that_reproduces_its_verdict(
    project: Path, sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(sandbox, "hostile")["HARNESS_SANDBOX_URL"])
    drift_cli(project, tmp_path, "--tool", "review_status")
    case = next(c for c in valid_report(tmp_path / "r.json")["cases"] if c["id"].endswith("[CR-1042]"))
    argv = shlex.split(case["reproduce"])
    assert argv[:2] == ["contract-harness", "verify"]
    done = subprocess.run([*CLI, *argv[1:], "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and json.loads(done.stdout)["code"] == "parse.duplicate_member"


def test_an_unset_variable_is_one_line_and_exit_2_before_anything_is_sent(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_SANDBOX")}
    done = subprocess.run([*CLI, "drift", "--demo"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(
        "contract-harness: error: upstream.env_unset: environment variable HARNESS_SANDBOX_URL is not set (needed by "
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["--upstream", "nope"],
            "usage.invalid: unknown upstream nope (known: sandbox, sandbox-mcp)",
        ),
        (["--concurrency", "0"], "usage.invalid: concurrency must be at least 1, not 0"),
        (["--tool", "nope"], "usage.invalid: unknown tool nope"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    project: Path,
    sandbox: Any,
    argv: list[str],
    needle: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox.url)
    assert main(["drift", str(project), *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_the_sandbox_command_prints_the_export_line_and_serves_until_interrupted(
    tmp_path: Path,
) -> None:
    with subprocess.Popen(
        [*CLI, "sandbox", "--port", "0", "--profile", "drifted"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            line = process.stdout.readline()  # type: ignore[union-attr]
            assert line.startswith("export HARNESS_SANDBOX_URL=http://127.0.0.1:")
            url = line.strip().split("=", 1)[1]
            state = httpx.get(f"{url}/deployment_status/staging", timeout=5).json()["state"]
            assert state["message"].startswith("Maintenance window")
        finally:
            process.send_signal(signal.SIGINT)
            assert stopped(process) == 0


def stopped(process: subprocess.Popen[str]) -> int | None:
    """The exit status of ``process`` within 10 s, or None: then it is killed (never waited for
    without end, as leaving ``Popen``'s block would)."""
    try:
        return process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_sandbox_stops_cleanly_on_a_signal_even_started_in_the_background(stop: signal.Signals) -> None:
    # A shell starts a background job (`&`) with SIGINT ignored; Python then has no Ctrl-C handler.
    with subprocess.Popen(
        [*CLI, "sandbox", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    ) as process:
        try:
            assert process.stdout.readline().startswith("export HARNESS_SANDBOX_URL=")  # type: ignore[union-attr]
        finally:
            process.send_signal(stop)
            assert stopped(process) == 0


def test_a_taken_port_is_one_line_and_exit_2(sandbox: Any, capsys: pytest.CaptureFixture[str]) -> None:
    port = sandbox.server_address[1]
    assert main(["sandbox", "--port", str(port)]) == 2
    assert f"sandbox.port: cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
