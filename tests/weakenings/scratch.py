"""Scratch copies of one demo tool, to be weakened and checked.

A scratch copy is a project of its own (``contracts/<tool>/`` and ``fixtures/*/<tool>/``) in a
temporary folder, made from this repository's top-level ``contracts/`` and ``fixtures/``, with
two differences from the original, both needed to measure the contract checks themselves:

- no ``schemas.lock``: the lock refuses any published version edited in place
  (``contract.version_changed``), so with it every weakening applied to ``v1`` would be
  "caught" by the lock, whatever the checks see. A real weakening arrives as a new version (or
  before the version is recorded); without the lock the copy is judged as such a draft is.
- an adapter that lives in this repository's package (``harness.demo.adapters``) is copied to
  ``<tool>_adapter.py`` at the copy's root and the contract points there, so a weakening can
  edit the adapter's source without touching the installed package. The baseline copy has the
  same relocation and checks clean (``tests/test_weakenings.py``). A project that already keeps
  its adapter at ``<tool>_adapter.py`` beside ``contracts/`` (``bench/unseen``) has it copied
  as it is.

The editing helpers refuse to edit what is not there (a key missing, a text not found once):
when the demo contracts change under the catalogue, an entry fails loudly instead of measuring
an unweakened copy.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness.pointer import MISSING, resolve

REPO = Path(__file__).resolve().parents[2]
PACKAGE_ADAPTERS = "harness.demo.adapters"
FIXTURE_KINDS = ("accepted", "rejected", "historical")


class CatalogueError(AssertionError):
    """A weakening could not be applied as written: the demo contract changed under it."""


@dataclass(frozen=True, slots=True)
class Scratch:
    """One tool's scratch project: ``root`` holds ``contracts/<tool>`` and ``fixtures/``."""

    root: Path
    tool: str

    @property
    def directory(self) -> Path:
        return self.root / "contracts" / self.tool

    def schema_path(self, name: str) -> Path:
        """``v1``, ``v2`` or ``vendor``: ``contracts/<tool>/schemas/<name>.json``."""
        return self.directory / "schemas" / f"{name}.json"

    @property
    def adapter_path(self) -> Path:
        return self.root / f"{self.tool}_adapter.py"

    @contextmanager
    def schema(self, name: str) -> Iterator[dict[str, Any]]:
        """The schema as a dict, written back when the block ends."""
        path = self.schema_path(name)
        if not path.is_file():
            raise CatalogueError(f"{self.tool}: no schema {path.name}")
        document = json.loads(path.read_text(encoding="utf-8"))
        yield document
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")

    @contextmanager
    def contract(self) -> Iterator[dict[str, Any]]:
        """``contract.yaml`` as a dict, written back (comments dropped) when the block ends."""
        path = self.directory / "contract.yaml"
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        yield document
        path.write_text(yaml.safe_dump(document, sort_keys=False, width=120), encoding="utf-8")

    def replace_in_adapter(self, old: str, new: str) -> None:
        """Edit the scratch adapter's source: ``old`` must occur exactly once."""
        text = self.adapter_path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise CatalogueError(f"{self.adapter_path.name}: expected {old!r} once, found it {text.count(old)} times")
        self.adapter_path.write_text(text.replace(old, new), encoding="utf-8")

    def add_fixture(self, kind: str, name: str, payload: Any, sidecar: dict[str, Any]) -> None:
        folder = self.root / "fixtures" / kind / self.tool
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        (folder / f"{name}.case.yaml").write_text(yaml.safe_dump(sidecar, sort_keys=False), encoding="utf-8")

    def files(self) -> dict[str, bytes]:
        """Every file of the copy by relative path (to tell a weakened copy from the baseline)."""
        return {str(p.relative_to(self.root)): p.read_bytes()
                for p in sorted(self.root.rglob("*")) if p.is_file() and ".contract-harness" not in p.parts}


def at(document: Any, pointer: str) -> Any:
    """The node at ``pointer``; a :class:`CatalogueError` when there is none."""
    node = resolve(document, pointer)
    if node is MISSING:
        raise CatalogueError(f"nothing at {pointer!r}")
    return node


def make_scratch(tool: str, destination: Path, source: Path = REPO) -> Scratch:
    """Copy ``tool`` from ``source`` (a project root) into ``destination`` (created; must not
    exist): contract without its lock, every fixture folder of the tool, the adapter relocated."""
    if destination.exists():
        raise FileExistsError(destination)
    scratch = Scratch(destination, tool)
    shutil.copytree(source / "contracts" / tool, scratch.directory, ignore=shutil.ignore_patterns("schemas.lock"))
    for kind in FIXTURE_KINDS:
        folder = source / "fixtures" / kind / tool
        if folder.is_dir():
            shutil.copytree(folder, destination / "fixtures" / kind / tool)
    contract_file = scratch.directory / "contract.yaml"
    text = contract_file.read_text(encoding="utf-8")
    marker = f"adapter: {PACKAGE_ADAPTERS}:"
    if marker in text:
        # A line edit, not a YAML round trip: the baseline copy keeps every other byte.
        contract_file.write_text(text.replace(marker, f"adapter: {scratch.adapter_path.stem}:"), encoding="utf-8")
        shutil.copyfile(REPO / "harness" / "demo" / "adapters.py", scratch.adapter_path)
    elif (source / scratch.adapter_path.name).is_file():
        # A project keeping the adapter beside contracts/ as <tool>_adapter.py (the unseen set).
        shutil.copyfile(source / scratch.adapter_path.name, scratch.adapter_path)
    return scratch
