"""``schemas.lock`` is read as a contract's other files are: a regular file in the contract's
folder, under a size cap, strict UTF-8; its errors never quote it, and ``--base`` refuses what
git would read as an option or what would break the error line.

Real ``contract-harness`` runs in a subprocess, on a project made with ``init``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

TOOL = "weather_lookup"


@pytest.fixture
def project(init_project: Path) -> Path:
    code, out, err = run_cli(init_project, "lock")
    assert code == 0, out + err
    return init_project


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A readable file outside the project, standing for /etc/passwd."""
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    return path


def _replace_lock(project: Path, *, data: bytes | None = None, link: Path | None = None) -> Path:
    lock = project / "contracts" / TOOL / "schemas.lock"
    lock.unlink()  # never write through what a test made a symlink
    if link is not None:
        lock.symlink_to(link)
    elif data is not None:
        lock.write_bytes(data)
    return lock


@pytest.mark.parametrize("command", [("check",), ("lock", "--check"), ("fuzz", "--examples", "1")])
def test_a_lock_symlinked_out_of_the_contract_is_refused_without_quoting_its_target(
        project: Path, secret: Path, command: tuple[str, ...]) -> None:
    _replace_lock(project, link=secret)
    code, out, err = run_cli(project, *command)
    assert code == 2, out + err
    assert err == (f"contract-harness: error: file.outside: contracts/{TOOL}/schemas.lock: schemas.lock resolves "
                   f"outside contracts/{TOOL}; a symlink may not lead out of it\n")
    assert "root:" not in out + err


def test_a_lock_line_that_is_no_entry_is_named_by_its_number_never_quoted(project: Path) -> None:
    _replace_lock(project, data=b"# header\nroot:x:0:0:root:/root:/bin/bash\n")
    code, out, err = run_cli(project, "check")
    assert code == 2 and "root:" not in out + err
    assert err == (f"contract-harness: error: contract.invalid_lock: contracts/{TOOL}/schemas.lock: line 2 is not "
                   "'v<N> sha256:<64 hex digits>' (nor a # comment)\n")


@pytest.mark.parametrize(("content", "expected"), [
    (b"v1 \xff\n", "file.unreadable: contracts/weather_lookup/schemas.lock:1:4: not UTF-8 text (byte 3: invalid "
                   "start byte)"),
    (b"#" * 70_000, "file.too_large: contracts/weather_lookup/schemas.lock: schemas.lock is 70,000 bytes; the cap "
                    "is 65,536"),
])
def test_a_lock_that_is_not_utf8_or_too_large_is_one_line_with_a_stable_code(
        project: Path, content: bytes, expected: str) -> None:
    _replace_lock(project, data=content)
    code, out, err = run_cli(project, "lock", "--check")
    assert (code, out, err) == (2, "", f"contract-harness: error: {expected}\n")


def test_a_lock_that_is_a_fifo_or_a_dangling_symlink_is_an_error_never_a_missing_lock(project: Path) -> None:
    lock = _replace_lock(project)
    os.mkfifo(lock)
    code, _, err = run_cli(project, "check")
    assert code == 2 and "file.not_regular: " in err and "schemas.lock is a FIFO, not a regular file" in err, err
    lock.unlink()
    lock.symlink_to("missing.lock")
    code, _, err = run_cli(project, "check")
    assert code == 2 and err.count("\n") == 1 and "contract.missing" in err, err


@pytest.mark.parametrize("ref", ["main\nfoo", "HEAD\r", "--output=x", "main\x1b[31m"])
def test_a_base_ref_with_a_line_break_or_a_leading_dash_is_one_line_with_a_stable_code(
        project: Path, ref: str) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    code, out, err = run_cli(project, "lock", "--check", f"--base={ref}")
    assert (code, out) == (2, "")
    assert err == ("contract-harness: error: lock.bad_ref: --base: not a git ref (empty, starting with '-', or "
                   "holding a control character or line break)\n")
    assert not (project / "x").exists()
