"""Build hook: ship this repository's own contracts and fixtures as the embedded demo.

The project keeps its contracts where a user's live (top-level ``contracts/`` and
``fixtures/``); a wheel copies both into ``harness/demo/`` so that ``contract-harness check
--demo`` works anywhere after ``pip install``. Editable installs copy nothing:
``harness.contract.demo_root()`` reads the checkout's folders directly. Everything else is in
pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DEMO_FOLDERS = ("contracts", "fixtures")


class BuildWithDemo(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "harness" / "demo"
        for name in DEMO_FOLDERS:
            # Byte-exact copies: fixtures hold duplicate keys, BOMs, invalid UTF-8 on purpose.
            shutil.copytree(HERE / name, target / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithDemo})
