"""An adapter is the project's code, run inside the boundary: whatever it does — ``sys.exit()``
when imported or when called, a loop that never returns — ends as one line or one rejection,
never as the harness's own exit or a hang.

A copy of the demo's job_status with its adapter replaced by a hostile one in the project, and
real ``contract-harness`` runs in a subprocess.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from harness import Boundary, load_contract
from harness.contract.records import DEFAULT_ADAPTER_TIMEOUT_S
from tests.helpers.cli import run_cli

TOOL = "job_status"
FIXTURE = f"fixtures/accepted/{TOOL}/failed_run.json"


def _project(tmp_path: Path, demo_root: Path, adapter: str) -> Path:
    root = tmp_path / "project"
    shutil.copytree(demo_root / "fixtures" / "accepted" / TOOL, root / "fixtures" / "accepted" / TOOL)
    shutil.copytree(demo_root / "contracts" / TOOL, root / "contracts" / TOOL)
    (root / "hostile_adapter.py").write_text(textwrap.dedent(adapter))
    contract = root / "contracts" / TOOL / "contract.yaml"
    text = contract.read_text().replace("adapter: harness.demo.adapters:job_status_from_runs_api",
                                        "adapter: hostile_adapter:adapt")
    contract.write_text(text.replace("limits: {max_bytes: 65536, max_depth: 12}",
                                     "limits: {max_bytes: 65536, max_depth: 12, adapter_timeout_s: 0.5}"))
    return root


EXITS_ON_IMPORT = """\
    import sys
    sys.exit(3)
    def adapt(document, request):
        return document
"""

LOOPS = """\
    def adapt(document, request):
        while True:
            try:
                pass
            except Exception:  # an adapter that swallows every error still stops
                pass
"""

EXITS_WHEN_CALLED = """\
    import sys
    def adapt(document, request):
        sys.exit(3)
"""


@pytest.mark.parametrize("command", [("verify", f"contracts/{TOOL}", FIXTURE), ("check",), ("check", "--jobs", "2")])
def test_an_adapter_that_exits_at_import_is_one_line_with_a_stable_code(
        tmp_path: Path, demo_root: Path, command: tuple[str, ...]) -> None:
    project = _project(tmp_path, demo_root, EXITS_ON_IMPORT)
    code, out, err = run_cli(project, *command)
    assert code == 2 and out == "", out + err
    assert err == (f"contract-harness: error: contract.adapter_import: contracts/{TOOL}/contract.yaml:30:1: "
                   "/adapter: adapter 'hostile_adapter:adapt' cannot be imported: SystemExit: 3\n")


@pytest.mark.parametrize(("adapter", "code", "message"), [
    (LOOPS, "adapter.timeout", "adapter did not return within adapter_timeout_s=0.5"),
    (EXITS_WHEN_CALLED, "adapter.error", "adapter raised SystemExit"),
], ids=["never returns", "exits when called"])
def test_an_adapter_that_never_returns_or_exits_when_called_is_a_rejection_at_its_layer(
        tmp_path: Path, demo_root: Path, adapter: str, code: str, message: str) -> None:
    project = _project(tmp_path, demo_root, adapter)
    exit_code, out, err = run_cli(project, "verify", f"contracts/{TOOL}", FIXTURE, timeout=120)
    assert (exit_code, err) == (1, ""), out + err
    assert out.splitlines()[0] == f"job_status v2: rejected at adapter: {code}"
    assert f"  message:        {message}" in out


def test_the_bound_is_the_contracts_and_leaves_the_timer_as_it_found_it(
        tmp_path: Path, demo_root: Path) -> None:
    import signal

    project = _project(tmp_path, demo_root, LOOPS)
    contract = load_contract(project / "contracts" / TOOL)
    assert contract.limits.adapter_timeout_s == 0.5 and DEFAULT_ADAPTER_TIMEOUT_S == 10.0
    before = signal.getsignal(signal.SIGALRM)
    verdict = Boundary(contract).check((project / FIXTURE).read_bytes(), None, now="2026-01-01T12:00:00Z")
    assert (verdict.layer, verdict.code) == ("adapter", "adapter.timeout")
    assert signal.getsignal(signal.SIGALRM) is before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
