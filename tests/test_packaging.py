"""The package ships this repository's contracts and fixtures as the embedded demo.

The repository keeps them at the top level, where a user's live; setup.py's build hook copies
them into ``harness/demo/`` of every built package. Built here offline with this interpreter's
setuptools (``setup.py build_py``, the step that lays out a wheel's files; ``sdist`` for the
source archive) from a copy of the sources, then run from the built tree alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "harness", "contracts", "fixtures")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, src / name)
    return src


def _setup(source: Path, *argv: str) -> None:
    proc = subprocess.run([sys.executable, "setup.py", "-q", *argv], cwd=source, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_built_package_carries_the_demo_byte_exact_and_runs_it_anywhere(source: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    _setup(source, "build_py", "--build-lib", str(lib))
    demo = lib / "harness" / "demo"
    for name in ("contracts", "fixtures"):
        assert _files(demo / name) == _files(REPO / name), f"{name} differs in the built package"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(lib)}  # before the editable install's finder
    where = subprocess.run([sys.executable, "-c", "from harness.contract import demo_root; print(demo_root())"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.strip() == str(demo)
    ran = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--demo", "--no-progress"],
                         cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "cases held" in ran.stdout and "deployment_status" in ran.stdout
    none = subprocess.run([sys.executable, "-m", "harness.cli", "check"], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=60)
    assert none.returncode == 2 and "project.not_found" in none.stderr and none.stdout == ""


def test_the_source_archive_holds_the_demo_folders(source: Path, tmp_path: Path) -> None:
    _setup(source, "sdist", "--dist-dir", str(tmp_path))
    [archive] = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    expected = {f"{name}/{rel}" for name in ("contracts", "fixtures") for rel in _files(REPO / name)}
    assert expected <= names
    assert "setup.py" in names


def test_in_a_checkout_the_demo_is_the_repositorys_own_contracts() -> None:
    from harness.contract import demo_root

    assert demo_root() == REPO
