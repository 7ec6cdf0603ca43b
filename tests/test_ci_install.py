"""The CI templates install the harness with nothing published: from their own files.

A user's repository made from scratch, a Python with the harness's dependencies but no harness,
and no package index (``PIP_NO_INDEX=1``): the composite action's and the reusable workflow's
default steps install the harness from the template's own files — a commit standing for the
harness's repository at the ref the user pinned — and every step runs green. A pin of a
release that is not on the index fails at the install step, and says so; a git URL installs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers.paths import REPO
from tests.helpers.workflow_steps import JobRun, harness_source, run_steps, runner_env, scratch_python

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
ACTION = yaml.safe_load((REPO / "action.yml").read_text())
WORKFLOW = yaml.safe_load((REPO / ".github/workflows/contract-harness.yml").read_text())
HARNESS_REPOSITORY = "OWNER/tool-contract-harness"
STEPS = ("install", "lint", "versions", "check", "compat", "fuzz", "verdict")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("harness")
    return folder, harness_source(REPO, folder, GIT_ENV)


def _user_repository(base: Path) -> Path:
    """A new repository with one scaffolded tool, its state committed on main (``origin`` a
    bare repository beside it), and a pull request branch."""
    origin, repo = base / "origin.git", base / "user"
    repo.mkdir()
    env = runner_env(GIT_ENV)
    for cwd, argv in ((base, ["git", "init", "--quiet", "--bare", "-b", "main", str(origin)]),
                      (repo, ["git", "init", "--quiet", "-b", "main"]),
                      (repo, ["git", "remote", "add", "origin", str(origin)])):
        subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    made = subprocess.run([sys.executable, "-m", "harness.cli", "init", "order_status"],
                          cwd=repo, env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    for argv in (["add", "-A"], ["commit", "--quiet", "-m", "order_status"], ["push", "--quiet", "origin", "main"],
                 ["checkout", "--quiet", "-b", "pr"]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True)
    return repo


def _job(base: Path, source: tuple[Path, str], which: str, **given: str) -> JobRun:
    folder, sha = source
    repo = _user_repository(base)
    python = scratch_python(base / "python")
    env = runner_env(GIT_ENV, python=python)
    if which == "action":
        steps, declared = ACTION["runs"]["steps"], ACTION["inputs"]
    else:  # after the caller's own checkout: the harness's checkout, then its action
        steps, declared = WORKFLOW["jobs"]["contracts"]["steps"][1:], WORKFLOW[True]["workflow_call"]["inputs"]
    inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()} | given
    return run_steps(steps, inputs=inputs, cwd=repo, env=env,
                     github={"base_ref": "main", "event_name": "pull_request", "action_path": str(folder)},
                     job={"workflow_repository": HARNESS_REPOSITORY, "workflow_sha": sha},
                     sources={HARNESS_REPOSITORY: folder})


@pytest.mark.parametrize("which", ["action", "workflow"])
def test_the_default_steps_install_from_the_templates_own_files_and_run_green(
        tmp_path: Path, source: tuple[Path, str], which: str) -> None:
    job = _job(tmp_path, source, which)
    outcomes = {s.id: s.outcome for s in job.steps if s.id in STEPS}
    assert outcomes == dict.fromkeys(STEPS, "success"), {s.id: s.output[-1500:] for s in job.steps}
    installed = job["install"].output
    where = source[0] if which == "action" else tmp_path / "user/.tool-contract-harness"
    assert f"installing {where}" in installed and "Successfully installed tool-contract-harness-" in installed
    assert "contract-harness 0." in installed
    assert "schemas.lock: 1 version of 1 tool recorded, none changed since FETCH_HEAD" in job["versions"].output
    assert "all " in job["check"].output and "cases held" in job["check"].output
    assert job.summary.startswith("# Contract harness\n\n## Contract harness: ")
    if which == "workflow":  # its own repository at the commit it was called with
        head = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True)
        assert head.stdout.strip() == source[1]


def test_a_release_pinned_before_any_is_published_fails_at_the_install_step_and_says_why(
        tmp_path: Path, source: tuple[Path, str]) -> None:
    job = _job(tmp_path, source, "action", **{"harness-version": "0.1.0"})
    assert job["install"].outcome == "failure"
    assert "installing tool-contract-harness==0.1.0" in job["install"].output
    assert "No matching distribution found for tool-contract-harness==0.1.0" in job["install"].output
    assert job["verdict"].outcome == "failure" and job["check"].outcome == "skipped"


def test_a_git_url_installs_the_harness_as_harness_package(tmp_path: Path, source: tuple[Path, str]) -> None:
    folder, sha = source
    job = _job(tmp_path, source, "action", **{"harness-package": f"git+file://{folder}@{sha}", "fuzz": "false"})
    assert job["install"].outcome == "success", job["install"].output
    assert f"installing git+file://{folder}@{sha}" in job["install"].output
    assert job["check"].outcome == "success" and job["verdict"].outcome == "success"
