"""hypothesis's local constants leave this package's modules out (harness.fuzz.generate.constants),
so a property draws the same examples whatever the process ran before it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import harness.engine
from harness.fuzz.generate.constants import exclude_own_modules

#: Fuzz one demo tool alone, then the three, then it alone again, in one fresh process; print
#: the distinct documents each run drew for it.
_RUNS = r"""
import json, sys
from harness import load_contract
from harness.fuzz.runner import FuzzFinished, FuzzOptions, fuzz
root = sys.argv[1]
tool = load_contract(root + "/review_status")
others = [load_contract(root + "/" + name) for name in ("deployment_status", "job_status")]
def drawn(contracts):
    for event in fuzz(contracts, FuzzOptions()):
        if isinstance(event, FuzzFinished):
            return event.report.generators["review_status"]["documents"]
print(json.dumps([drawn([tool]), drawn([*others, tool]), drawn([tool])]))
"""


def test_hypothesis_finds_the_users_modules_local_and_ours_not(tmp_path: Path) -> None:
    from hypothesis.internal.conjecture import providers

    exclude_own_modules()
    users = tmp_path / "adapters" / "ticket_adapter.py"
    users.parent.mkdir()
    users.write_text("LEGACY = 'legacy_ok'\n")
    assert providers.is_local_module_file(str(users))
    assert not providers.is_local_module_file(harness.engine.__file__)


def test_a_property_draws_the_same_examples_first_or_after_others(tmp_path: Path) -> None:
    contracts = Path(__file__).resolve().parent.parent / "contracts"
    done = subprocess.run([sys.executable, "-c", _RUNS, str(contracts)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600, check=False,
                          env={**__import__("os").environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path / "h")})
    assert done.returncode == 0, done.stderr
    first, after, again = json.loads(done.stdout.splitlines()[-1])
    assert first["generated"] > 0
    assert first == after == again
