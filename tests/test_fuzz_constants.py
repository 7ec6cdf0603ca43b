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


def test_the_cheap_location_check_agrees_with_hypothesiss_for_every_module_loaded(tmp_path: Path) -> None:
    # The wrapper asks a twin of hypothesis's ModuleLocation.from_path (each folder resolved
    # once) before hypothesis's own rule: for every module file this process has, and for a
    # local file reached through a symlinked folder and a symlinked file, the same answer.
    import os

    from hypothesis.internal.scrutineer import ModuleLocation

    from harness.fuzz.generate.constants import _locator

    located = _locator()
    assert located is not None
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "mod.py").write_text("X = 1\n")
    os.symlink(tmp_path / "real", tmp_path / "linked")
    os.symlink(os.__file__, tmp_path / "stdlib_os.py")  # a local-looking name for a stdlib file
    paths = {getattr(m, "__file__", None) for m in list(sys.modules.values())} - {None}
    paths |= {str(tmp_path / "linked" / "mod.py"), str(tmp_path / "stdlib_os.py"), str(tmp_path / "real" / "mod.py")}
    assert len(paths) > 200
    differ = {p: located(p) for p in paths if located(p) != (ModuleLocation.from_path(p) is ModuleLocation.LOCAL)}
    assert differ == {}
    assert located(str(tmp_path / "linked" / "mod.py")) and not located(str(tmp_path / "stdlib_os.py"))


def test_hypothesiss_random_is_registered_without_a_collection_and_still_managed(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # In a new thread (hypothesis's random is per thread): after priming, the first @given makes
    # no random of its own (so runs no gc.collect), and the primed one is the one it seeds.
    import gc
    import threading

    import hypothesis.core
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.internal import entropy

    from harness.fuzz.generate.start import prime_global_random

    collections: list[int] = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(1) or real(*a))
    seen: dict[str, object] = {}

    def run() -> None:
        prime_global_random()
        primed = hypothesis.core.threadlocal._hypothesis_global_random
        seen["primed"] = primed
        seen["managed"] = primed in list(entropy.RANDOMS_TO_MANAGE.values())
        drawn: list[int] = []

        @settings(max_examples=5, derandomize=True, database=None)
        @given(st.integers())
        def collect(value: int) -> None:
            drawn.append(value)

        collect()
        seen["after"] = hypothesis.core.threadlocal._hypothesis_global_random
        seen["drawn"] = drawn

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen["primed"] is not None and seen["managed"] is True
    assert seen["after"] is seen["primed"] and len(seen["drawn"]) == 5  # type: ignore[arg-type]
    assert collections == []
