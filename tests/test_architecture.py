"""Which way the imports go (docs/architecture.md): checked on the modules each one loads, in a
fresh interpreter, and on every import statement of the boundary package."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from tests.helpers.paths import REPO

#: What the boundary may import from the rest of the package: the vocabulary, the contract's
#: records and the schema model. Never the loader, the engine, a runner or a face.
BOUNDARY_MAY_IMPORT = ("harness.codes", "harness.errors", "harness.pointer", "harness.timeutil", "harness.files",
                       "harness.frozen", "harness.contract.records", "harness.schemas")


def _loaded(module: str) -> set[str]:
    code = f"import json, sys\nimport {module}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('harness'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_every_import_statement_of_the_boundary_stays_below_it() -> None:
    found: dict[str, str] = {}
    for path in sorted((REPO / "harness/boundary").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name.startswith("harness.") and not name.startswith("harness.boundary"):
                    found[name] = path.name
    assert found, "the boundary imports nothing of the package? the scan is broken"
    assert {name: where for name, where in found.items()
            if not name.startswith(BOUNDARY_MAY_IMPORT)} == {}


def test_importing_the_boundary_loads_the_contract_records_and_not_the_loader() -> None:
    # The package loads its names on first use: its pipeline is what runs a contract.
    loaded = _loaded("harness.boundary.pipeline")
    assert "harness.contract.records" in loaded
    assert not loaded & {"harness.contract.load", "harness.documents", "harness.engine", "harness.cases",
                         "harness.mutations", "harness.reporting", "harness.differential"}


@pytest.mark.parametrize("module", ["harness.contract.records", "harness.registry", "harness.contract"])
def test_the_bottom_layers_load_nothing_above_them(module: str) -> None:
    loaded = _loaded(module)
    assert not {m for m in loaded if m.startswith(("harness.boundary", "harness.engine", "harness.reporting"))}
