"""The nightly drift workflow does what docs/drift.md says, with this project's commands.

(tests/test_workflows.py validates every workflow against GitHub's schema and actionlint;
tests/test_ci_drift.py runs every step of the reusable drift workflow it calls.)"""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from harness.cli import build_parser

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "nightly-drift.yml"


def test_it_runs_nightly_and_on_demand_through_the_reusable_drift_workflow_with_the_repositorys_secrets() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    job = workflow["jobs"]["drift"]
    assert job["uses"] == "./.github/workflows/drift.yml" and job["secrets"] == "inherit"
    declared = yaml.safe_load((WORKFLOWS / "drift.yml").read_text())[True]["workflow_call"]["inputs"]
    assert set(job["with"]) <= set(declared)
    # The embedded sandbox only when no HARNESS_SANDBOX_URL secret was mapped.
    assert 'if [ -z "${HARNESS_SANDBOX_URL:-}" ]; then' in job["with"]["setup"]
    assert workflow["permissions"] == {"contents": "read"}


def test_the_reusable_drift_workflow_uploads_the_reports_and_writes_the_job_summary() -> None:
    steps = yaml.safe_load((WORKFLOWS / "drift.yml").read_text())["jobs"]["drift"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "${{ inputs.project }}/${{ inputs.reports }}/"
    assert any('>> "$GITHUB_STEP_SUMMARY"' in s.get("run", "") for s in steps)


def test_it_runs_the_nightly_fuzz_profile_with_the_example_database_cached() -> None:
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["fuzz"]["steps"]
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".contract-harness/fuzz/examples"
    run = next(s["run"] for s in steps if "contract-harness fuzz" in s.get("run", ""))
    assert "--profile nightly" in run and "--fixtures-out reports/" in run
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "reports/"


def test_its_contract_harness_commands_parse() -> None:
    text = WORKFLOW.read_text().replace("\\\n", " ")
    commands = [line.strip() for line in text.splitlines() if line.strip().startswith("contract-harness ")]
    assert {c.split()[1] for c in commands} == {"sandbox", "fuzz"}
    parser = build_parser()
    env = {"$HARNESS_SANDBOX_PROFILE": "stable", "$REPORTS": "reports"}
    for command in commands:
        line = command.split(" > ")[0]
        for name, value in env.items():
            line = line.replace(name, value)
        parser.parse_args(shlex.split(line)[1:])  # exits 2 on an unknown option or value
