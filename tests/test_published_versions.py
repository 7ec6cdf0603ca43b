"""A published schema version changed in place is one finding of its tool; ``init`` records v1,
a draft record until git commits it.

Everything runs for real: ``contract-harness`` as a subprocess, in git repositories made here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def sh(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **GIT_ENV})


def harness(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return sh(cwd, sys.executable, "-m", "harness.cli", *argv)


def loosen(project: Path, tool: str, value: str = "loosened") -> None:
    schema = project / "contracts" / tool / "schemas/v1.json"
    document = json.loads(schema.read_text())
    document["$defs"]["data"]["properties"]["state"]["enum"].append(value)
    schema.write_text(json.dumps(document, indent=2) + "\n")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    assert sh(tmp_path, "git", "init", "--quiet", "-b", "main").returncode == 0
    for tool in ("order_status", "ticket_status"):
        made = harness(tmp_path, "init", tool)
        assert made.returncode == 0, made.stderr
    assert sh(tmp_path, "git", "add", "-A").returncode == 0
    assert sh(tmp_path, "git", "commit", "--quiet", "-m", "two tools").returncode == 0
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_version_changed_in_place_is_a_finding_of_its_tool_and_every_tool_is_checked(repo: Path, jobs: str) -> None:
    loosen(repo, "ticket_status")
    done = harness(repo, "check", "--no-progress", "--jobs", jobs, "--json", "r.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FINDING ticket_status::versions::v1 (version_changed)" in done.stdout
    assert "  file:     contracts/ticket_status/schemas/v1.json" in done.stdout
    assert "  reproduce with: contract-harness lock --check contracts/ticket_status" in done.stdout
    report = json.loads((repo / "r.json").read_text())
    tools = report["summary"]["tools"]
    assert (tools["ticket_status"]["findings"], tools["order_status"]["findings"]) == (1, 0)
    assert tools["ticket_status"]["passed"] == tools["order_status"]["passed"] > 20  # both checked whole
    (finding,) = [c for c in report["cases"] if c["status"] != "passed"]
    assert (finding["source"], finding["problem"], finding["actual"]["accepted"]) == ("versions", "version_changed",
                                                                                     False)
    assert sum(tools["ticket_status"]["by_layer"].values()) == tools["ticket_status"]["total"] - 1


def test_init_records_v1_a_draft_until_committed(tmp_path: Path) -> None:
    assert sh(tmp_path, "git", "init", "--quiet", "-b", "main").returncode == 0
    made = harness(tmp_path, "init", "ticket_status")
    assert "recorded v1 in contracts/ticket_status/schemas.lock" in made.stdout
    assert "      contract-harness lock   (once v1 says what your tool sends" in made.stdout
    assert harness(tmp_path, "lock", "--check").returncode == 0  # a pull request of it passes as scaffolded

    loosen(tmp_path, "ticket_status", "escalated")  # the scaffold edited before it is committed
    assert harness(tmp_path, "check", "--no-progress").returncode == 0
    behind = harness(tmp_path, "lock", "--check")
    assert behind.returncode == 1
    assert "v1 changed since schemas.lock recorded it (a record not committed yet): run `contract-harness lock`" in \
        behind.stderr
    assert harness(tmp_path, "lock").stdout.strip() == "ticket_status: recorded v1 in contracts/ticket_status/schemas.lock"
    assert harness(tmp_path, "lock", "--check").returncode == 0

    assert sh(tmp_path, "git", "add", "-A").returncode == 0
    assert sh(tmp_path, "git", "commit", "--quiet", "-m", "v1").returncode == 0
    loosen(tmp_path, "ticket_status", "closed")  # now published: an edit is in place
    assert harness(tmp_path, "check", "--no-progress").returncode == 1
    refused = harness(tmp_path, "lock")
    assert refused.returncode == 1 and "v1 changed in place: add v2" in refused.stderr


def test_outside_git_a_recorded_version_is_published(tmp_path: Path) -> None:
    assert harness(tmp_path, "init", "ticket_status").returncode == 0
    loosen(tmp_path, "ticket_status")
    done = harness(tmp_path, "check", "--no-progress")
    assert done.returncode == 1 and "FINDING ticket_status::versions::v1 (version_changed)" in done.stdout
