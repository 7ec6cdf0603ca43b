"""The real-tools corpus, imported and checked: three MCP servers and thirteen GitHub operations.

Every example must be accepted by the imported contract except the three the corpus README names
as violating their own schemas, which must be filed as historical fixtures rejected at the
schema layer with the pointer the corpus gives. The GitHub operations go through the OpenAPI
importer: the test rebuilds an OpenAPI 3.0 document from each operation's source schema (the
corpus keeps GitHub's schema before conversion), summary, path and examples, so GitHub's own
``nullable`` and ``example`` spellings meet the real converter. Nothing is copied into the
project: the corpus is read from the shared folder at test time (skipped where absent).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness import load_contract
from harness.cases import cases_for
from harness.cli import main
from harness.codes import Layer
from harness.datafiles import load_yaml
from harness.engine import Engine
from harness.events import PASSED
from harness.onboarding import import_openapi
from tests.helpers.paths import corpus, corpus_files, corpus_params

pytestmark = pytest.mark.corpus

MCP_SOURCES = ("mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory")
FIXTURE_SOURCES = ("accepted", "rejected", "historical")
INTEGER_PARAMS = re.compile(r"(_number|_id)$")


def known_invalid() -> dict[tuple[str, str], str]:
    """(operation, case) -> instance pointer, for the examples the corpus README names."""
    root = corpus("real-tools")
    named = re.findall(r"`github-rest-api/([^/`]+)/examples/([^/`]+)\.json`", (root / "README.md").read_text())
    manifest = json.loads((root / "github-rest-api/manifest.json").read_text())
    pointers = {(t["tool"], c["case"]): c["errors"][0]["path"] for t in manifest["tools"] for c in t["cases"] if not c["valid"]}
    assert sorted(named) == sorted(pointers), "README and manifest disagree on the known-invalid examples"
    return {key: pointers[key] for key in named}


def fixture_verdicts(contract_dir: Path) -> dict[str, Any]:
    engine = Engine()
    contract = load_contract(contract_dir)
    return {case.id: engine.evaluate(case) for case in cases_for(contract, sources=FIXTURE_SOURCES).cases}


# ------------------------------------------------------------------------------ MCP servers


@pytest.fixture(scope="module")
def mcp_projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = corpus("real-tools")
    out = {}
    for source in MCP_SOURCES:
        project = tmp_path_factory.mktemp(source)
        code = main(["import", "mcp", "--from", str(root / source / "tools-list.response.json"),
                     "--captures", str(root / source), "--into", str(project)])
        assert code == 0
        out[source] = project
    return out


@pytest.mark.parametrize("source", MCP_SOURCES)
def test_every_mcp_tool_with_an_output_schema_is_imported_in_its_dialect(source: str, mcp_projects: dict[str, Path]) -> None:
    manifest = json.loads((corpus("real-tools") / source / "manifest.json").read_text())
    contracts = sorted((mcp_projects[source] / "contracts").iterdir())
    assert len(contracts) == manifest["toolsWithOutputSchema"]
    for directory in contracts:
        contract = load_contract(directory)
        assert contract.validator().dialect == "draft-07"
        assert contract.envelope is None


@pytest.mark.parametrize("source", MCP_SOURCES)
def test_every_mcp_example_is_accepted_byte_for_byte_from_the_raw_line(source: str, mcp_projects: dict[str, Path]) -> None:
    root = corpus("real-tools") / source
    project = mcp_projects[source]
    examples = sorted(root.glob("*/examples/*.json"))
    assert examples
    for example in examples:
        tool, case = example.parent.parent.name, example.stem
        fixture = project / "fixtures/accepted" / tool / f"{case}.json"
        assert json.loads(fixture.read_bytes()) == json.loads(example.read_bytes())
        assert fixture.read_bytes() in (root / tool / "raw" / f"{case}.json").read_bytes()
    verdicts = {k: v for d in sorted((project / "contracts").iterdir()) for k, v in fixture_verdicts(d).items()}
    assert len(verdicts) == len(examples)
    assert {r.status for r in verdicts.values()} == {PASSED}


@pytest.mark.parametrize("source", MCP_SOURCES)
def test_is_error_captures_are_skipped_never_filed(source: str, mcp_projects: dict[str, Path]) -> None:
    manifest = json.loads((corpus("real-tools") / source / "manifest.json").read_text())
    errors = {(c["tool"], c["case"]) for c in manifest["cases"] if c["isError"]}
    filed = {(p.parent.name, p.stem) for p in (mcp_projects[source] / "fixtures").rglob("*.json")}
    assert not errors & filed
    if source != "mcp-server-everything":  # the everything server's captures hold no isError case
        assert errors


def test_the_mcp_requests_are_the_captured_arguments(mcp_projects: dict[str, Path]) -> None:
    project = mcp_projects["mcp-server-everything"]
    contract = load_contract(project / "contracts/get-structured-content")
    request = json.loads((corpus("real-tools") / "mcp-server-everything/get-structured-content/requests/chicago.json").read_text())
    sidecar = load_yaml(project / "fixtures/accepted/get-structured-content/chicago.case.yaml")
    assert sidecar["request"] == {"args": request["params"]["arguments"]}
    assert contract.request_example in ({"location": "New York"}, {"location": "Chicago"}, {"location": "Los Angeles"})


# ------------------------------------------------------------------------------ GitHub REST


def _rewrite(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (v.replace("#/$defs/", "#/components/schemas/") if k == "$ref" and isinstance(v, str) else _rewrite(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite(v) for v in node]
    return node


def github_openapi(root: Path) -> dict[str, Any]:
    """An OpenAPI 3.0 document of the corpus operations, from GitHub's own unconverted schemas."""
    document: dict[str, Any] = {
        "openapi": "3.0.3", "info": {"title": "GitHub REST (real-tools corpus)", "version": "1.1.4"},
        "servers": [{"url": "https://api.github.com"}], "paths": {}, "components": {"schemas": {}},
    }
    for op_dir in sorted(p for p in root.iterdir() if (p / "tool.json").is_file()):
        tool = json.loads((op_dir / "tool.json").read_text())
        source = json.loads((op_dir / "source-schema.openapi-3.0.json").read_text())
        for name, sub in source.get("$defs", {}).items():
            document["components"]["schemas"][name] = _rewrite(sub)
        first_request = json.loads(sorted((op_dir / "requests").glob("*.json"))[0].read_text())
        parameters = []
        for name in re.findall(r"\{([^}]+)\}", tool["path"]):
            integer = bool(INTEGER_PARAMS.search(name))
            example = first_request["pathParams"].get(name, "1" if integer else name)
            parameters.append({"name": name, "in": "path", "required": True,
                               "schema": {"type": "integer" if integer else "string"},
                               "example": int(example) if integer else example})
        examples = {ex.stem: {"value": json.loads(ex.read_text())} for ex in sorted((op_dir / "examples").glob("*.json"))}
        media = {"schema": _rewrite({k: v for k, v in source.items() if k != "$defs"}), "examples": examples}
        document["paths"].setdefault(tool["path"], {})[tool["method"].lower()] = {
            "operationId": tool["operationId"], "summary": tool["summary"], "parameters": parameters,
            "responses": {str(tool["successStatus"]): {"description": "success", "content": {"application/json": media}}},
        }
    return document


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = corpus("real-tools") / "github-rest-api"
    work = tmp_path_factory.mktemp("github")
    spec = work / "github.openapi.json"
    spec.write_text(json.dumps(github_openapi(root)))
    operations = [json.loads(p.read_text())["operationId"] for p in sorted(root.glob("*/tool.json"))]
    project = work / "project"
    return project, import_openapi(project, spec, operations)


def test_all_thirteen_github_operations_are_imported(github: tuple[Path, Any]) -> None:
    _, imported = github
    assert len(imported.written.tools) == 13
    notes = [n for t in imported.written.tools for n in t.notes]
    # Every upstream's base URL comes from ${API_BASE_URL} (never the description's host), and an
    # operation that may change data gets no sample request: both are said. Nothing else is.
    expected = [n for n in notes if n.startswith("the upstream reads its base URL from ${API_BASE_URL}: set it to a "
                                                 "sandbox or staging copy of https://api.github.com")
                or "may change data: the upstream has no requests" in n]
    assert notes == expected, "every example has its request, every parameter an example"
    assert sum("base URL" in n for n in notes) == 13
    assert sorted(t.tool for t in imported.written.tools) == sorted(p.parent.name for p in corpus_files("real-tools", "github-rest-api/*/tool.json"))


@pytest.mark.parametrize("schema_file", corpus_params("real-tools", "github-rest-api/*/schema.json"), ids=lambda p: p.parent.name)
def test_the_openapi_converter_reproduces_the_corpus_conversion_exactly(schema_file: Path, github: tuple[Path, Any]) -> None:
    project, _ = github
    expected = json.loads(schema_file.read_text())
    expected.pop("$id")
    assert json.loads((project / "contracts" / schema_file.parent.name / "schemas/v1.json").read_text()) == expected


def test_every_github_example_is_accepted_except_the_three_known_to_violate_their_schema(github: tuple[Path, Any]) -> None:
    _, imported = github
    invalid = known_invalid()
    assert len(invalid) == 3
    seen: dict[tuple[str, str], Any] = {}
    for outcome in imported.written.tools:
        for fixture in outcome.fixtures:
            seen[(outcome.tool, fixture.name)] = fixture
    examples = corpus_files("real-tools", "github-rest-api/*/examples/*.json")
    assert len(seen) == len(examples) == 18
    for (tool, case), fixture in sorted(seen.items()):
        if (tool, case) in invalid:
            assert (fixture.kind, fixture.code.split(".")[0], fixture.pointer) == ("historical", "schema", invalid[(tool, case)])
        else:
            assert fixture.kind == "accepted", (tool, case, fixture)


def test_check_holds_on_every_github_fixture_and_rejects_the_three_at_the_schema_layer(github: tuple[Path, Any]) -> None:
    project, _ = github
    invalid = known_invalid()
    results = {k: v for d in sorted((project / "contracts").iterdir()) for k, v in fixture_verdicts(d).items()}
    assert len(results) == 18
    assert {r.status for r in results.values()} == {PASSED}
    rejected = {(r.tool, r.id.rsplit("/", 1)[-1]): r for r in results.values() if r.layer is not None}
    assert set(rejected) == set(invalid)
    for key, result in rejected.items():
        assert (result.layer, result.instance_pointer) == (Layer.SCHEMA, invalid[key])


def test_path_parameters_echoed_by_github_become_bindings_matching_the_corpus_requests(github: tuple[Path, Any]) -> None:
    project, _ = github
    root = corpus("real-tools") / "github-rest-api"
    manifest = {t["tool"]: t for t in json.loads((root / "manifest.json").read_text())["tools"]}
    bound = {}
    for directory in sorted((project / "contracts").iterdir()):
        contract = load_contract(directory)
        bound[contract.tool] = {b.name: b.result for b in contract.bindings}
        for case in manifest[contract.tool]["cases"]:
            if not case["pathParamsDerived"] or not contract.bindings:
                continue
            folder = project / "fixtures" / "accepted" / contract.tool
            if not case["valid"]:
                folder = project / "fixtures" / "historical" / contract.tool / "imported"
            args = load_yaml(folder / f"{case['case']}.case.yaml")["request"]["args"]
            expected = json.loads((root / contract.tool / "requests" / f"{case['case']}.json").read_text())["pathParams"]
            assert {k: str(v) for k, v in args.items()} == expected
    assert bound["pulls.get"] == {"pull_number": "/number"}
    assert bound["checks.get"] == {"check_run_id": "/id"}
    assert bound["repos.get-content"] == {}  # a directory listing is an array: nothing to echo


def test_strict_versions_of_every_real_tool_still_accept_every_observed_example(tmp_path: Path) -> None:
    root = corpus("real-tools")
    spec = tmp_path / "github.openapi.json"
    spec.write_text(json.dumps(github_openapi(root / "github-rest-api")))
    operations = [json.loads(p.read_text())["operationId"] for p in sorted((root / "github-rest-api").glob("*/tool.json"))]
    imported = import_openapi(tmp_path / "github", spec, operations, strict=True, compat=False)
    for source in MCP_SOURCES:
        assert main(["import", "mcp", "--strict", "--no-compat", "--from", str(root / source / "tools-list.response.json"),
                     "--captures", str(root / source), "--into", str(tmp_path / source)]) == 0
    assert all(t.strict is not None and t.strict.current for t in imported.written.tools)
    for directory in [*(tmp_path / "github/contracts").iterdir(), *(tmp_path / s / "contracts" / t for s in MCP_SOURCES
                                                                   for t in [p.name for p in (tmp_path / s / "contracts").iterdir()])]:
        contract = load_contract(directory)
        assert contract.version == 2
        assert {r.status for r in fixture_verdicts(directory).values()} <= {PASSED}
