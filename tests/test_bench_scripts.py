"""Every benchmark under bench/ starts: its imports resolve (bench/harness.py must not shadow
the package) and its options parse. The measurements themselves are run by hand."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.paths import REPO

SCRIPTS = sorted(p for p in (REPO / "bench").glob("*.py") if not p.name.startswith("_"))


def test_there_is_a_benchmark_per_capability() -> None:
    assert {p.stem for p in SCRIPTS} >= {"boundary", "harness", "compat", "drift", "fuzz"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_starts_and_explains_its_options(script) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("usage:") and "Traceback" not in proc.stderr


def test_every_recorded_run_names_its_benchmark_command_and_figures() -> None:
    import json

    lines = (REPO / "bench/results/history.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        run = json.loads(line)
        assert {"bench", "command", "figures"} <= run.keys(), line
        assert run["figures"] and run["command"].strip(), line
