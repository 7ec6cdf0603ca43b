"""The pytest plugin's opt-in drift items, tested with pytester on a real project."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
import yaml

from tests.drift.conftest import sandbox_env

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.drift


@pytest.fixture
def drift_project(pytester: pytest.Pytester, demo_root: Any) -> pytest.Pytester:
    """The deployment tool only, with its HTTP upstream only (no MCP server to start)."""
    for part in ("contracts", "fixtures/historical"):
        shutil.copytree(demo_root / part / "deployment_status", pytester.path / part / "deployment_status")
    contract = pytester.path / "contracts/deployment_status/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    del data["upstreams"]["sandbox-mcp"]
    data["upstreams"]["sandbox"]["http"]["timeout_s"] = 1
    contract.write_text(yaml.safe_dump(data))
    return pytester


def test_drift_items_are_opt_in(drift_project: pytest.Pytester) -> None:
    result = drift_project.runpytest("--co", "-q", "-m", "drift")
    assert not any("::drift::" in line for line in result.stdout.lines)


def test_with_drift_each_sample_request_is_an_item_marked_drift(
    drift_project: pytest.Pytester, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(sandbox, "stable")["HARNESS_SANDBOX_URL"])
    collected = drift_project.runpytest("--drift", "--co", "-q", "-m", "drift")
    assert [line for line in collected.stdout.lines if "::drift::" in line] == [
        "contracts/deployment_status/contract.yaml::drift::sandbox[staging]",
        "contracts/deployment_status/contract.yaml::drift::sandbox[production]",
    ]
    drift_project.runpytest("--drift", "-q", "-m", "drift").assert_outcomes(passed=2)


def test_a_drifted_item_fails_with_its_changes(
    drift_project: pytest.Pytester, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(sandbox, "drifted")["HARNESS_SANDBOX_URL"])
    result = drift_project.runpytest("--drift", "-q", "-m", "drift", "--junitxml=out.xml")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*REJECTED deployment_status::drift::sandbox?staging?",
            "*verdict:  schema.enum at /state*",
            "*change:   object where string at /state: string -> object*",
        ]
    )
    assert 'name="drift_status" value="rejected"' in (drift_project.path / "out.xml").read_text()


def test_an_unset_variable_is_a_one_line_collection_error(
    drift_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HARNESS_SANDBOX_URL", raising=False)
    result = drift_project.runpytest("--drift", "-q", "-m", "drift")
    result.stdout.fnmatch_lines(["*upstream.env_unset: environment variable HARNESS_SANDBOX_URL is not set*"])
    assert result.ret != 0


def test_a_request_drift_may_not_send_is_a_skipped_item_that_says_why(
    drift_project: pytest.Pytester, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(sandbox, "stable")["HARNESS_SANDBOX_URL"])
    contract = drift_project.path / "contracts/deployment_status/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    data["upstreams"]["sandbox"]["http"]["method"] = "POST"
    data["upstreams"]["idle"] = {"http": {"url": "${HARNESS_SANDBOX_URL}/x"}, "requests": []}
    contract.write_text(yaml.safe_dump(data))
    result = drift_project.runpytest("--drift", "-q", "-m", "drift", "-rs")
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines(["*not called: POST may change data*"])
    result.stdout.fnmatch_lines(["*not called: no sample requests*"])


def test_with_the_plugins_scheduling_an_upstreams_items_run_in_one_worker_and_call_it_once_a_request(
    drift_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two items, two workers: xdist alone gives one to each, and each worker would run the whole
    # upstream (its first item does): every sample request sent twice.
    from harness.sandbox.http import _Handler, serving

    calls: list[str] = []

    class Counting(_Handler):
        def do_GET(self) -> None:
            calls.append(self.path)
            super().do_GET()

    with serving(port=0) as server:
        server.RequestHandlerClass = Counting
        monkeypatch.setenv("HARNESS_SANDBOX_URL", sandbox_env(server, "stable")["HARNESS_SANDBOX_URL"])
        result = drift_project.runpytest_subprocess("--drift", "-m", "drift", "-n", "2", "-v", "--contract-scheduling",
                                                    timeout=300)
    result.assert_outcomes(passed=2)
    workers = {line.split("]")[0] for line in result.stdout.lines if line.startswith("[gw") and "::drift::" in line}
    assert len(workers) == 1, result.stdout.str()
    assert len(calls) == 2, calls  # staging and production, once each
