"""A user's repository, from nothing to CI: init, edit, check from a subfolder, lock, the CI
template's steps on a pull request, and a published schema version edited in place — caught.

Everything runs for real: ``contract-harness`` as a subprocess, git with a bare "origin" on
disk, and every ``run:`` step of the composite action and of the reusable workflow executed with
bash as GitHub's runner would (tests/helpers/workflow_steps.py). The templates install the harness as
they do for any user, from their own files (a commit of this work tree standing for the
harness's repository at the ref a user pins), into a Python of their own that has the
dependencies but no harness, with no package index (``PIP_NO_INDEX=1``).
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import __version__
from tests.helpers.paths import REPO
from tests.helpers.workflow_steps import JobRun, harness_source, run_steps, runner_env, scratch_python

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1"}
ENV = runner_env(GIT_ENV)
#: The harness's repository as the templates name it (job.workflow_repository).
HARNESS_REPOSITORY = "OWNER/tool-contract-harness"
ACTION_STEPS: list[dict[str, Any]] = yaml.safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
WORKFLOW = yaml.safe_load((REPO / ".github/workflows/contract-harness.yml").read_text())
WORKFLOW_STEPS: list[dict[str, Any]] = WORKFLOW["jobs"]["contracts"]["steps"]


def sh(cwd: Path, *argv: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(argv), cwd=cwd, env=ENV, capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, f"{argv}: {proc.stdout}{proc.stderr}"
    return proc


def harness(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return sh(cwd, sys.executable, "-m", "harness.cli", *argv, ok=False)


def inputs(defaults: dict[str, Any], **given: str) -> dict[str, str]:
    """The inputs a caller gives, over the template's declared defaults."""
    return {name: str(spec.get("default", "")) for name, spec in defaults.items()} | given


ACTION_INPUTS = yaml.safe_load((REPO / "action.yml").read_text())["inputs"]
WORKFLOW_INPUTS = WORKFLOW[True]["workflow_call"]["inputs"]  # YAML 1.1 reads `on` as true


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The runner: a Python with the dependencies and no harness, the harness's repository at a
    commit (what a user's ``@ref`` resolves to), and the steps' environment."""
    base = tmp_path_factory.mktemp("runner")
    (base / "harness").mkdir()
    sha = harness_source(REPO, base / "harness", GIT_ENV)
    python = scratch_python(base / "python")
    return {"source": base / "harness", "sha": sha, "env": runner_env(GIT_ENV, python=python)}


def pull_request(repo: Path, steps: list[dict[str, Any]], declared: dict[str, Any], runner: dict[str, Any],
                 **given: str) -> JobRun:
    """One job of a template on a pull request: the composite action (its steps, run from the
    harness's files) or the reusable workflow (its steps after the caller's checkout)."""
    job = run_steps(steps, inputs=inputs(declared, **given),
                    github={"base_ref": "main", "event_name": "pull_request", "action_path": str(runner["source"])},
                    cwd=repo, env=runner["env"], job={"workflow_repository": HARNESS_REPOSITORY,
                                                      "workflow_sha": runner["sha"]},
                    sources={HARNESS_REPOSITORY: runner["source"]})
    shutil.rmtree(repo / ".tool-contract-harness", ignore_errors=True)  # the runner's workspace is the job's
    return job


def edit_json(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2) + "\n")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user's repository after init and a first edit, locked, pushed to main."""
    base = tmp_path_factory.mktemp("user")
    origin, repo = base / "origin.git", base / "tickets"
    sh(base, "git", "init", "--quiet", "--bare", "-b", "main", str(origin))
    repo.mkdir()
    sh(repo, "git", "init", "--quiet", "-b", "main")
    sh(repo, "git", "remote", "add", "origin", str(origin))
    return repo


def test_a_user_repository_from_init_to_a_caught_in_place_edit(repo: Path, runner: dict[str, Any]) -> None:
    # 1. Nothing yet: every command says how to start, none runs the demo silently.
    none = harness(repo, "check")
    assert none.returncode == 2 and "project.not_found" in none.stderr and "contract-harness init" in none.stderr

    # 2. init: a contract that passes, and the repository's git files.
    made = harness(repo, "init", "ticket_status")
    assert made.returncode == 0, made.stderr
    assert "/.contract-harness/" in (repo / ".gitignore").read_text().splitlines()
    assert "fixtures/** -text" in (repo / ".gitattributes").read_text().splitlines()

    # 3. Edit: a new state, and a fixture that uses it.
    schema = repo / "contracts/ticket_status/schemas/v1.json"
    edit_json(schema, lambda s: s["$defs"]["data"]["properties"]["state"]["enum"].append("escalated"))
    accepted = repo / "fixtures/accepted/ticket_status"
    (accepted / "escalated.json").write_text((accepted / "ok.json").read_text().replace('"ok"', '"escalated"'))

    # 4. check from a subfolder finds the project; a misspelt fixture folder is refused in one line.
    held = harness(repo / "contracts/ticket_status", "check", "--no-progress")
    assert held.returncode == 0, held.stdout + held.stderr
    assert "cases held" in held.stdout
    (repo / "fixtures/accepted/ticket_staus").mkdir()
    typo = harness(repo / "fixtures/accepted", "check")
    assert typo.returncode == 2
    assert typo.stderr.strip() == ("contract-harness: error: fixture.unknown_tool: ticket_staus/: fixtures for tool "
                                   "'ticket_staus', which has no contract (contracts/ticket_staus/contract.yaml) "
                                   "(did you mean 'ticket_status'?)")
    (repo / "fixtures/accepted/ticket_staus").rmdir()

    # 5. Publish: record v1 in schemas.lock, commit, push to main.
    locked = harness(repo, "lock")
    assert locked.returncode == 0 and "ticket_status: recorded v1" in locked.stdout
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "--quiet", "-m", "ticket_status v1")
    sh(repo, "git", "push", "--quiet", "origin", "main")
    assert not sh(repo, "git", "status", "--porcelain").stdout  # .contract-harness/ is ignored

    # 6. A pull request that changes nothing published: every step of the composite action runs and holds.
    sh(repo, "git", "checkout", "--quiet", "-b", "more-fixtures")
    (accepted / "pending.json").write_text((accepted / "ok.json").read_text().replace('"ok"', '"pending"'))
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "--quiet", "-m", "a pending fixture")
    job = pull_request(repo, ACTION_STEPS, ACTION_INPUTS, runner)
    outcomes = {s.id: s.outcome for s in job.steps if not s.id.startswith("step")}
    assert outcomes == {"install": "success", "lint": "success", "versions": "success", "check": "success",
                        "compat": "success", "fuzz": "success", "verdict": "success"}, \
        {s.id: s.output[-800:] for s in job.steps}
    assert job["verdict"].outcome == "success"
    assert f"installing {runner['source']}" in job["install"].output  # the action's own files, no index
    assert f"Successfully installed tool-contract-harness-{__version__}" in job["install"].output
    assert "schemas.lock: 1 version of 1 tool recorded, none changed since FETCH_HEAD" in job["versions"].output
    assert "ticket_status: version unchanged (v1)" in job["compat"].output
    reports = repo / "contract-reports"
    assert json.loads((reports / "check.json").read_text())["summary"]["ok"]
    assert json.loads((reports / "lint.sarif").read_text())["runs"][0]["results"] == []
    assert json.loads((reports / "fuzz.json").read_text())["summary"]["ok"]
    assert job["check"].outputs == {"report": "contract-reports/check.json"}
    assert "cases by rejecting layer" in job.summary or "ticket_status" in job.summary

    # 7. The in-place edit: v1 loosened, lock left alone. The reusable workflow's steps (the
    # same as the action's) catch it twice; lint and check still run and report.
    edit_json(schema, lambda s: s["$defs"]["data"]["properties"]["item_id"].update(maxLength=4096))
    sh(repo, "git", "commit", "--quiet", "-am", "loosen item_id")
    job = pull_request(repo, WORKFLOW_STEPS[1:], WORKFLOW_INPUTS, runner, fuzz="false")
    assert job["versions"].outcome == "failure" and job["check"].outcome == "failure"
    assert job["lint"].outcome == "success" and job["fuzz"].outcome == "skipped"
    changed = ("contracts/ticket_status/schemas/v1.json: v1 changed in place: add v2 (a published version never "
               "changes; schemas.lock records sha256:")
    assert changed in job["versions"].output
    # check: a finding of the tool (exit 1), its cases checked all the same
    assert "FINDING ticket_status::versions::v1 (version_changed)" in job["check"].output
    assert "detail:   v1 changed in place: add v2" in job["check"].output
    assert json.loads((repo / "contract-reports/check.json").read_text())["summary"]["findings"] == 1
    assert job["verdict"].outcome == "failure"
    assert "::error::contract-harness failed: versions check" in job["verdict"].output

    # 8. Covering it up by re-recording the lock: `lock` refuses; a rewritten lock file passes
    # the lock check on its own, but not the comparison with the base branch.
    refused = harness(repo, "lock")
    assert refused.returncode == 1 and "v1 changed in place: add v2" in refused.stderr
    (repo / "contracts/ticket_status/schemas.lock").unlink()
    assert harness(repo, "lock").returncode == 0
    assert harness(repo, "lock", "--check").returncode == 0
    sh(repo, "git", "fetch", "--quiet", "origin", "main")
    caught = harness(repo, "lock", "--check", "--base", "FETCH_HEAD")
    assert caught.returncode == 1
    assert caught.stderr.strip().startswith(
        "contract-harness: error: contract.version_changed: contracts/ticket_status/schemas/v1.json: v1 changed in place: "
        "add v2 (a published version never changes; FETCH_HEAD has sha256:")

    # 9. The right way: v1 back as published, the change as v2 (reader-compatible), recorded.
    sh(repo, "git", "checkout", "--quiet", "main", "--", "contracts")
    v2 = json.loads(schema.read_text())
    v2["$defs"]["data"]["properties"]["state"]["enum"].append("closed")
    (schema.parent / "v2.json").write_text(json.dumps(v2, indent=2) + "\n")
    contract = repo / "contracts/ticket_status/contract.yaml"
    contract.write_text(contract.read_text().replace("version: 1", "version: 2") + "compat: {policy: reader}\n")
    assert harness(repo, "lock").stdout.strip() == (
        "ticket_status: recorded v2 in contracts/ticket_status/schemas.lock")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "--quiet", "-m", "ticket_status v2")
    job = pull_request(repo, ACTION_STEPS, ACTION_INPUTS, runner, fuzz="false")
    assert [s.outcome for s in job.steps if s.id in ("versions", "check", "compat")] == ["success"] * 3, \
        {s.id: s.output[-800:] for s in job.steps}
    assert "schemas.lock: 2 versions of 1 tool recorded, none changed since FETCH_HEAD" in job["versions"].output
    assert json.loads((reports / "compat-ticket_status.json").read_text())["ok"] is True
    assert job["verdict"].outcome == "success"
    # The job summary: one heading hierarchy (an H1, each report an H2, their parts H3 or below).
    levels = [len(line) - len(line.lstrip("#")) for line in job.summary.splitlines()
              if line.startswith("#") and line.lstrip("#").startswith(" ")]
    assert levels[0] == 1 and levels.count(1) == 1, levels
    assert all(later <= earlier + 1 for earlier, later in itertools.pairwise(levels)), levels
    titles = [line for line in job.summary.splitlines() if line.startswith("## ")]
    # (the fuzz report is step 6's, left in the reports folder: a runner's workspace would be new)
    assert titles[0].startswith("## Contract harness: ") and "v1 -> v2" in titles[1], titles
