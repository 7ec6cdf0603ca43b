"""The harness as a user runs it: ``contract-harness`` (or ``pytest``) in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(cwd: Path, *argv: str, timeout: float = 300, **env: str) -> tuple[int, str, str]:
    """``contract-harness ARGV`` — or ``pytest`` when ARGV starts with it — in a subprocess in
    ``cwd``: exit code, stdout, stderr. ``env``: variables added to this process's environment
    (hypothesis's storage and PYTEST_ADDOPTS are left out: the run chooses its own)."""
    if argv[0] == "pytest":
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv[1:]]
    else:
        command = [sys.executable, "-m", "harness.cli", *argv]
    environ = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_STORAGE_DIRECTORY", "PYTEST_ADDOPTS")}
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**environ, **env})
    return proc.returncode, proc.stdout, proc.stderr
