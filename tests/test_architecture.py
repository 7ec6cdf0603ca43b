"""Which way the imports go (docs/architecture.md): the layer diagram, checked on every import
statement of the package — at the top of a module, inside a function, under ``TYPE_CHECKING``
alike (a lazy import hides a cycle from Python, not from a reader) — and on the modules a
bottom layer loads in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

#: The diagram of docs/architecture.md, bottom row first: a part of the package imports parts
#: of its own row (with no cycle) and of the rows below it, never of a row above. A part is a
#: top-level module or package of ``harness``; ``contract``'s records and loader are two.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("vocabulary", frozenset({"codes", "errors", "pointer", "timeutil", "files", "state", "frozen", "locate", "strict_json",
                              "internals", "version", "lazy", "digests", "redaction", "markdown"})),
    ("what things are", frozenset({"contract.records", "schemas", "registry", "datafiles"})),
    ("run a contract on bytes", frozenset({"boundary", "differential"})),
    ("load a contract", frozenset({"contract", "contract.load", "contract.schema_checks", "project", "lock"})),
    ("case sources", frozenset({"cases", "mutations", "corpus"})),
    ("runners", frozenset({"events", "engine", "parallel", "fuzz", "drift", "compat", "lint"})),
    ("views and tools", frozenset({"reporting", "guard", "onboarding", "sandbox", "demo", "docgen"})),
    ("faces", frozenset({"cli", "pytest_plugin", "pytest_items", "pytest_schedule", "pytest_options"})),
    ("the public API", frozenset({"harness", "__main__"})),
)
ROW = {part: index for index, (_, parts) in enumerate(LAYERS) for part in parts}
PACKAGE = REPO / "harness"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """The package's modules ``name`` imports, wherever the statement is, with its line: ``from
    package import module`` names the package (whose ``__init__`` runs first) and the module."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            if target in MODULES and target != name:
                yield target, node.lineno


GRAPH = {name: sorted(set(_imports(name, path))) for name, path in MODULES.items()}


def part_of(module: str) -> str:
    tokens = module.split(".")
    if len(tokens) == 1:
        return "harness"
    if tokens[1] == "contract" and len(tokens) > 2:
        return f"contract.{tokens[2]}"
    return tokens[1]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:  # given back: a test after this one may be about the default limit
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_every_part_of_the_package_has_a_row_in_the_diagram() -> None:
    assert {part_of(name) for name in MODULES} == set(ROW)


def test_no_module_imports_a_part_of_a_row_above_its_own() -> None:
    upward = [f"{name}:{line} -> {target} ({LAYERS[ROW[part_of(name)]][0]} -> {LAYERS[ROW[part_of(target)]][0]})"
              for name, targets in GRAPH.items() for target, line in targets
              if ROW[part_of(target)] > ROW[part_of(name)]]
    assert upward == []


def test_no_two_modules_import_each_other_however_indirectly() -> None:
    assert _cycles({name: {target for target, _ in targets} for name, targets in GRAPH.items()}) == []


def test_no_two_parts_of_one_row_import_each_other_however_indirectly() -> None:
    parts: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        parts.setdefault(part_of(name), set()).update(part_of(t) for t, _ in targets if part_of(t) != part_of(name))
    assert _cycles(parts) == []


def test_the_scan_sees_imports_inside_functions_and_under_type_checking() -> None:
    # harness/cli/__init__.py imports each command's module inside a function; the boundary's
    # records come in under TYPE_CHECKING somewhere: both must be edges of the graph.
    assert any(target.startswith("harness.cli.") for target, _ in GRAPH["harness.cli"])
    assert sum(len(targets) for targets in GRAPH.values()) > 800


#: What the boundary may import from the rest of the package: the vocabulary, the contract's
#: records and the schema model. Never the loader, the engine, a runner or a face.
BOUNDARY_MAY_IMPORT = ("harness.codes", "harness.errors", "harness.pointer", "harness.timeutil", "harness.files",
                       "harness.frozen", "harness.strict_json", "harness.lazy", "harness.locate", "harness.contract.records",
                       "harness.schemas")


def _loaded(module: str) -> set[str]:
    code = f"import json, sys\nimport {module}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('harness'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_every_import_statement_of_the_boundary_stays_below_it() -> None:
    found = {target: name for name, targets in GRAPH.items() if name.startswith("harness.boundary")
             for target, _ in targets if not target.startswith("harness.boundary")}
    assert found, "the boundary imports nothing of the package? the scan is broken"
    assert {target: name for target, name in found.items() if not target.startswith(BOUNDARY_MAY_IMPORT)} == {}


def test_importing_the_boundary_loads_its_layers_and_not_the_loader() -> None:
    # The package loads its names on first use: its pipeline is what runs a contract.
    loaded = _loaded("harness.boundary.pipeline")
    assert {"harness.boundary.schema", "harness.boundary.validator", "harness.strict_json"} <= loaded
    assert not loaded & {"harness.contract.load", "harness.datafiles", "harness.engine", "harness.cases",
                         "harness.mutations", "harness.reporting", "harness.differential"}


@pytest.mark.parametrize("module", ["harness.contract.records", "harness.registry", "harness.contract"])
def test_the_bottom_layers_load_nothing_above_them(module: str) -> None:
    loaded = _loaded(module)
    assert not {m for m in loaded if m.startswith(("harness.boundary", "harness.engine", "harness.reporting"))}


def test_every_contract_error_raised_with_a_file_and_a_pointer_can_find_its_line() -> None:
    # errors.py imports nothing that reads files: a raiser hands it the locator.
    missing = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "ContractError":
                given = {keyword.arg for keyword in node.keywords}
                if {"file", "pointer"} <= given and "locate" not in given:
                    missing.append(f"{name}:{node.lineno}")
    assert missing == []
