"""What a newcomer reads: each message points the right way.

``--debug`` after the command, ``compat``'s positional CONTRACTS, did-you-mean only for close
names, a report path named as given, drift without upstreams, the caching line under ``-v``
only, and the progress bar's total.
"""

from __future__ import annotations

import io
import itertools
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import closest, did_you_mean

HARNESS = [sys.executable, "-m", "harness.cli"]


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARNESS, *argv], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    made = run(tmp_path, "init", "order_status")
    assert made.returncode == 0, made.stderr
    return tmp_path


def test_debug_is_accepted_after_the_command_as_before_it(project: Path) -> None:
    for argv in (["--debug", "check", "--json", "/proc/x"], ["check", "--json", "/proc/x", "--debug"],
                 ["import", "mcp", "--debug", "--from", "/no/such/file"]):
        shown = run(project, *argv)
        assert shown.returncode != 0 and "Traceback (most recent call last)" in shown.stderr, (argv, shown.stderr)
    quiet = run(project, "check", "--json", "/proc/x")
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown", "--html"])
@pytest.mark.parametrize("target", ["/proc/x", "/proc/no/such/folder/x"])
def test_a_report_path_that_cannot_be_written_is_named_as_given(project: Path, option: str, target: str) -> None:
    failed = run(project, "check", "--no-progress", option, target)
    assert failed.returncode == 2
    assert failed.stderr.startswith(f"contract-harness: error: usage.invalid: cannot write {option} {target}: ")
    assert ".spool" not in failed.stderr and failed.stdout == ""  # refused before the run


def test_compat_takes_contracts_as_positional_paths_and_keeps_the_option(
        project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    schemas = project / "contracts/order_status/schemas"
    shutil.copy(schemas / "v1.json", schemas / "v2.json")
    contract = project / "contracts/order_status/contract.yaml"
    contract.write_text(contract.read_text().replace("version: 1", "version: 2"))
    fast = ["--examples", "2", "--samples", "2"]
    monkeypatch.chdir(project.parent)
    for where in ([str(project)], [str(project / "contracts")], [str(project / "contracts/order_status")],
                  ["--contracts", str(project)]):
        assert main(["compat", "order_status", *where, *fast]) == 0, where
        assert capsys.readouterr().out.startswith("order_status: v1 -> v2: OK")
    # TOOL given as its contract folder, as check takes it, from the folder above the project
    assert main(["compat", str(project / "contracts/order_status"), *fast]) == 0
    assert capsys.readouterr().out.startswith("order_status: v1 -> v2: OK")
    assert main(["compat", "order_staus", str(project), *fast]) == 2
    assert capsys.readouterr().err.strip().endswith("(tools: order_status) (did you mean 'order_status'?)")
    assert main(["compat", "order_status", str(project / "nope"), *fast]) == 2
    assert f"CONTRACTS '{project / 'nope'}' is not a directory" in capsys.readouterr().err


@pytest.mark.parametrize(("word", "choices", "expected"), [
    ("order_status", ["job_status", "review_status", "deployment_status", "service_status"], None),
    ("tiket_status", ["ticket_status", "job_status"], "ticket_status"),
    ("ticket_staus", ["ticket_status"], "ticket_status"),
    ("revew_status", ["review_status", "job_status"], "review_status"),
    ("wrong_typ", ["wrong_type", "wrong_tool"], "wrong_type"),
    ("get_wether", ["get_weather", "echo"], "get_weather"),
    ("x", ["y"], None),
])
def test_did_you_mean_suggests_only_a_close_name(word: str, choices: list[str], expected: str | None) -> None:
    assert closest(word, choices) == expected
    assert did_you_mean(word, choices) == (f" (did you mean {expected!r}?)" if expected else "")


def test_the_guard_suggests_no_unrelated_contract_for_a_tool_the_server_does_not_list(
        make_contract: Any, tmp_path: Path) -> None:
    from tests.helpers.guard import STATUS_SCHEMA, STATUS_YAML, TEST_SERVER, guard

    # The server lists service_status; the contract guards order_status: no typo of it.
    make_contract("order_status", STATUS_YAML.replace("service_status", "order_status"), {1: STATUS_SCHEMA})
    with guard(server=TEST_SERVER, cwd=tmp_path) as peer:
        peer.initialize()
        first = peer.request("tools/list")
        peer.request("tools/list", {"cursor": first["result"]["nextCursor"]})
        peer.close()
    assert "contract 'order_status' guards MCP tool 'order_status', which the server does not list" in peer.stderr
    assert "did you mean" not in peer.stderr and "--map" not in peer.stderr


def test_drift_without_upstreams_says_what_is_missing_and_pytest_drift_skips_with_the_reason(project: Path) -> None:
    refused = run(project, "drift")
    assert refused.returncode == 2
    line = refused.stderr.strip()
    assert line == ("contract-harness: error: upstream.none: no upstreams to check: order_status declares no upstreams "
                    "in contract.yaml (docs/drift.md: an http, command or mcp source and the requests to send it)")
    ran = subprocess.run([sys.executable, "-m", "pytest", "--drift", "--no-fuzz", "-rs", "-p", "no:cacheprovider"],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout
    assert ("SKIPPED [1] contracts/order_status/contract.yaml: order_status: its contract.yaml declares no upstreams "
            "(the live sources drift sends requests to), nothing to check") in ran.stdout


def test_the_saved_verdicts_line_is_shown_under_verbose_only(project: Path) -> None:
    assert run(project, "check", "--no-progress").returncode == 0  # saves the reference's verdicts
    quiet, verbose = run(project, "check", "--no-progress"), run(project, "check", "--no-progress", "-v")
    assert "saved by an earlier run" not in quiet.stdout
    assert "documents compared with the reference's verdict saved by an earlier run" in verbose.stdout


def test_the_progress_bar_of_a_streamed_run_counts_its_tools(demo: Callable[[str], Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cases import cases_for
    from harness.engine import Engine
    from harness.events import CaseFinished, RunStarted
    from harness.reporting import dispatch
    from harness.reporting.terminal import TerminalReporter

    tools = ["review_status", "deployment_status"]
    made = [cases_for(demo(tool), max_mutants=3).cases for tool in tools]
    events = list(Engine(differential=False).run(iter(itertools.chain(*made)), [], tools=tools))
    assert isinstance(events[0], RunStarted) and events[0].total is None  # streamed: no count first
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = TerminalReporter(stream=io.StringIO(), progress=True)
    dispatch(events, [bar])
    assert bar._progress is not None
    (task,) = bar._progress.tasks
    assert (task.total, task.completed) == (2, 2)
    assert task.fields["cases"] == sum(isinstance(e, CaseFinished) for e in events) == sum(map(len, made))

    status = io.StringIO()
    monkeypatch.setenv("CI", "true")
    dispatch(events, [TerminalReporter(stream=io.StringIO(), status_every_s=0.0, status_stream=status)])
    lines = status.getvalue().splitlines()
    assert lines[0].startswith("checking: 1 done, 0 not held, at review_status (tool 1 of 2)")
    assert "at deployment_status (tool 2 of 2)" in lines[-1]


def test_pytest_collects_the_projects_contracts_from_any_folder_inside_and_says_from_where(project: Path) -> None:
    (project / "tests").mkdir()

    def pytest_in(folder: Path, *argv: str) -> str:
        ran = subprocess.run([sys.executable, "-m", "pytest", "--no-fuzz", "-p", "no:cacheprovider", *argv],
                             cwd=folder, capture_output=True, text=True, timeout=300)
        assert ran.returncode in (0, 5), ran.stdout + ran.stderr
        return ran.stdout

    from_tests = pytest_in(project / "tests", "-q")
    assert (f"contract-harness: 66 items of 1 contract (order_status) from {project / 'contracts'}/ "
            "(the project around tests/)") in from_tests
    assert "66 passed" in from_tests
    from_fixtures = pytest_in(project / "fixtures/rejected", "-q")
    assert "66 passed" in from_fixtures and "(the contracts of the fixtures folder pytest ran in)" in from_fixtures
    given = pytest_in(project, "tests")
    assert ("contract-harness: no contract collected from the paths given; the project's contracts are in "
            "contracts/ (`pytest` with no path, or `pytest contracts/`, collects them)") in given


def test_a_fuzz_failure_says_what_was_expected_and_what_happened(tmp_path: Path) -> None:
    """An adapter that crashes: the boundary reports adapter.error as it would for a clean
    refusal, so the text says what the property wanted and what the adapter raised."""
    from harness.contract import demo_root

    for folder in ("contracts/job_status", "fixtures/accepted/job_status", "fixtures/rejected/job_status"):
        if (demo_root() / folder).is_dir():
            shutil.copytree(demo_root() / folder, tmp_path / folder)
    (tmp_path / "crashing.py").write_text(
        "from harness.demo.adapters import job_status_from_runs_api\n\n\n"
        "def adapt(document, request):\n"
        "    if 'error' not in document and document['run'].get('attempt_number', 1) > 3:\n"
        "        raise KeyError('retries')\n"
        "    return job_status_from_runs_api(document, request)\n")
    contract = tmp_path / "contracts/job_status/contract.yaml"
    contract.write_text(contract.read_text().replace("harness.demo.adapters:job_status_from_runs_api",
                                                     "crashing:adapt"))
    (tmp_path / "contracts/job_status/schemas.lock").unlink()
    env = {"PYTHONPATH": str(tmp_path)}
    ran = subprocess.run([*HARNESS, "fuzz", "--no-progress", "--property", "adapter_maps_cleanly"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env={**__import__("os").environ, **env})
    assert ran.returncode == 1, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert "job_status: adapter_maps_cleanly failed after" in ran.stdout and "generated 0 examples" not in ran.stdout
    assert "  expected: a contract object, or a refusal (ValueError: adapter.error)" in lines
    assert "  actual:   KeyError: 'retries' (a crash, which the boundary also reports as adapter.error)" in lines
    example = next(line for line in lines if line.startswith("  example:  "))
    assert example.endswith("after the first failure)") or example.endswith("not shrunk"), example
    assert "tries" not in example
    assert json.loads(example.split("  example:  ", 1)[1].rsplit(" (", 2)[0])["run"]["attempt_number"] > 3


def test_a_misspelt_tool_is_named_with_the_close_one(project: Path) -> None:
    done = run(project / "contracts", "check", "--tool", "order_staus")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("unknown tool order_staus (known: order_status) (did you mean 'order_status'?)")
    far = run(project, "check", "--tool", "job_status")
    assert far.stderr.strip().endswith("unknown tool job_status (known: order_status)")
