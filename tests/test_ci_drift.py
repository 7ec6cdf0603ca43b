"""The reusable drift workflow (.github/workflows/drift.yml) in a user's repository made from scratch.

A new repository whose contracts were imported from an MCP server it keeps beside them (a stdio
server that needs ``WEATHER_STATION``, recorded as ``${WEATHER_STATION}``), a Python with the
harness's dependencies but no harness, no package index: every ``run:`` step of the workflow
runs as the runner would. The harness installs from the workflow's own repository at the commit
it was called with; the variable comes from the repository's secrets and reaches the server and
no report; a matrix of two shards checks each contract once; and without the
secret the run fails, which on a schedule is the notification.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.paths import REPO
from tests.helpers.workflow_steps import JobRun, harness_source, run_steps, runner_env, scratch_python

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
WORKFLOW = yaml.safe_load((REPO / ".github/workflows/drift.yml").read_text())
HARNESS_REPOSITORY = "OWNER/tool-contract-harness"
SECRET = "station-s3cret-7f2c"
TOOLS = {"explode", "get_weather", "echo", "service_status", "tickets.search"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The harness's repository (a commit), a runner's Python without the harness, and the
    user's repository with its contracts, made once for the runs below."""
    base = tmp_path_factory.mktemp("drift-ci")
    folder = base / "harness"
    folder.mkdir()
    sha = harness_source(REPO, folder, GIT_ENV)
    python = scratch_python(base / "python")
    repo = base / "user"
    (repo / "servers").mkdir(parents=True)
    shutil.copy(REPO / "tests/servers/mcp_stdio.py", repo / "servers/weather.py")
    (repo / "samples.json").write_text(json.dumps({"get_weather": {"city": "Oslo"}, "echo": {"text": "hi"}}))
    env = runner_env({**GIT_ENV, "WEATHER_STATION": "used-by-the-import-only"}, python=python)
    imported = subprocess.run(
        [str(python), "-c", "import sys; from harness.cli import main; sys.exit(main(sys.argv[1:]))",
         "import", "mcp", "--into", ".", "--env", "WEATHER_STATION", "--sample", "samples.json",
         "--", "python", "servers/weather.py", "--require-env=WEATHER_STATION"],
        cwd=repo, env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=300,
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    for argv in (["init", "--quiet", "-b", "main"], ["add", "-A"], ["commit", "--quiet", "-m", "contracts"]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True)
    return {"source": folder, "sha": sha, "python": python, "repo": repo}


def _job(world: dict[str, Any], *, skip_install: bool = False, secrets: dict[str, str] | None = None,
         **given: str) -> JobRun:
    steps = WORKFLOW["jobs"]["drift"]["steps"][1:]  # after the caller's own checkout
    if skip_install:  # the runner's Python has it from an earlier run of this module
        steps = [s for s in steps if s.get("id") != "install" and "repository" not in s.get("with", {})]
    declared = WORKFLOW[True]["workflow_call"]["inputs"]  # YAML 1.1 reads `on` as true
    inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()} | given
    repo = world["repo"]
    shutil.rmtree(repo / "drift-reports", ignore_errors=True)
    shutil.rmtree(repo / ".tool-contract-harness", ignore_errors=True)
    return run_steps(steps, inputs=inputs, cwd=repo, env=runner_env(GIT_ENV, python=world["python"]),
                     github={"workspace": str(repo)},
                     job={"workflow_repository": HARNESS_REPOSITORY, "workflow_sha": world["sha"]},
                     sources={HARNESS_REPOSITORY: world["source"]}, secrets=secrets)


def _reports(repo: Path) -> dict[str, str]:
    return {str(p.relative_to(repo)): p.read_text(errors="replace") for p in (repo / "drift-reports").rglob("*")
            if p.is_file()}


def test_a_matrix_of_two_shards_installs_from_the_workflows_own_files_maps_the_secret_and_checks_each_contract_once(
        world: dict[str, Any]) -> None:
    first = _job(world, secrets={"WEATHER_STATION": SECRET, "OTHER": "x"}, shard="1/2")
    outcomes = {s.id: s.outcome for s in first.steps if s.id in ("install", "env", "drift")}
    assert outcomes == {"install": "success", "env": "success", "drift": "success"}, \
        {s.id: s.output[-1500:] for s in first.steps}
    installed = first["install"].output
    assert f"installing {world['repo'] / '.tool-contract-harness'}" in installed
    assert "Successfully installed tool-contract-harness-" in installed
    assert "WEATHER_STATION: from the repository secrets" in first["env"].output
    assert first["drift"].outputs["artifact"] == "drift-reports-1-of-2"
    assert first.summary.startswith("## Drift")
    reports = _reports(world["repo"])
    first_tools = {c["tool"] for c in json.loads(reports["drift-reports/drift.json"])["drift"]["checks"]}
    # The server got the secret (it answers with it as station_id): no report holds it.
    assert [name for name, text in reports.items() if SECRET in text] == []
    assert all(SECRET not in step.output for step in first.steps)

    second = _job(world, skip_install=True, secrets={"WEATHER_STATION": SECRET}, shard="2/2")
    assert second["drift"].outcome == "success", second["drift"].output[-1500:]
    second_tools = {c["tool"] for c in json.loads(_reports(world["repo"])["drift-reports/drift.json"])["drift"]["checks"]}
    assert first_tools | second_tools == TOOLS and not first_tools & second_tools


def test_without_the_secret_the_run_fails_in_one_line_and_the_summary_says_where(world: dict[str, Any]) -> None:
    job = _job(world, skip_install=True, secrets={})
    assert "WEATHER_STATION: not a repository secret" in job["env"].output
    assert job["drift"].outcome == "failure"
    assert "upstream.env_missing" in job["drift"].output and "WEATHER_STATION" in job["drift"].output
    assert "Drift did not run to the end" in job.summary
