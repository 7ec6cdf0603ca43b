"""``import openapi``: contracts from OpenAPI 3.0 and 3.1 descriptions, checked as written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness import load_contract
from harness.cases import cases_for
from harness.cli import main
from harness.datafiles import load_yaml
from harness.engine import Engine
from harness.events import PASSED
from harness.onboarding import OnboardingError, import_openapi
from harness.onboarding.openapi import Bundle, Spec

DATA = Path(__file__).parent / "data" / "openapi"
SPEC_30 = DATA / "helpdesk-3.0.yaml"
SPEC_31 = DATA / "helpdesk-3.1.json"
FIXTURE_SOURCES = ("accepted", "rejected", "historical")


def fixture_results(contract_dir: Path) -> dict[str, Any]:
    contract = load_contract(contract_dir)
    engine = Engine()
    return {case.id: engine.evaluate(case) for case in cases_for(contract, sources=FIXTURE_SOURCES).cases}


@pytest.fixture(scope="module")
def helpdesk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("helpdesk")
    import_openapi(root, SPEC_30, ["tickets/get", "tickets/search", "comments/create", "threads/get"])
    return root


def schema_of(root: Path, tool: str, version: int = 1) -> Any:
    return json.loads((root / "contracts" / tool / "schemas" / f"v{version}.json").read_text())


def test_the_success_response_schema_is_bundled_into_defs_in_draft_2020_12(helpdesk: Path) -> None:
    schema = schema_of(helpdesk, "tickets.get")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$ref"] == "#/$defs/Ticket"
    assert set(schema["$defs"]) == {"Ticket", "User"}
    assert "components" not in json.dumps(schema)


def test_openapi_30_nullable_is_converted_in_all_three_spellings(helpdesk: Path) -> None:
    ticket = schema_of(helpdesk, "tickets.get")["$defs"]["Ticket"]["properties"]
    assert ticket["closed_at"] == {"type": ["string", "null"], "format": "date-time"}
    assert ticket["resolution"]["enum"] == ["fixed", "wontfix", None]
    assert ticket["assignee"] == {
        "description": "Who works on it.",
        "anyOf": [{"allOf": [{"$ref": "#/$defs/User"}]}, {"type": "null"}],
    }
    assert "nullable" not in json.dumps(schema_of(helpdesk, "tickets.get"))


def test_example_becomes_examples_and_boolean_exclusive_bounds_become_numbers(helpdesk: Path) -> None:
    assert schema_of(helpdesk, "tickets.get")["$defs"]["Ticket"]["properties"]["ticket_id"]["examples"] == [1042]
    search = schema_of(helpdesk, "tickets.search")["properties"]
    assert search["total"] == {"type": "integer", "minimum": 0}
    assert search["score_floor"] == {"type": "number", "exclusiveMinimum": 0}


def test_recursive_schemas_are_bundled_once_and_compile(helpdesk: Path) -> None:
    schema = schema_of(helpdesk, "threads.get")
    assert schema["$defs"]["Comment"]["properties"]["replies"]["items"] == {"$ref": "#/$defs/Comment"}
    load_contract(helpdesk / "contracts" / "threads.get")


def test_response_examples_become_fixtures_judged_by_the_boundary(helpdesk: Path) -> None:
    accepted = sorted(p.name for p in (helpdesk / "fixtures/accepted/tickets.get").glob("*.json"))
    assert accepted == ["closed.json", "open.json"]  # "closed" was behind a $ref to components/examples
    drifted = helpdesk / "fixtures/historical/tickets.get/imported/drifted.case.yaml"
    assert load_yaml(drifted)["expect"] == {"layer": "schema", "code": "schema.enum", "pointer": "/state"}
    results = fixture_results(helpdesk / "contracts" / "tickets.get")
    assert {r.status for r in results.values()} == {PASSED}
    assert len(results) == 3


def test_a_single_example_and_examples_behind_a_response_ref_are_imported(helpdesk: Path) -> None:
    assert (helpdesk / "fixtures/accepted/tickets.search/example.json").is_file()
    assert json.loads((helpdesk / "fixtures/accepted/comments.create/example.json").read_text())["author"] == "ada"


def test_a_path_parameter_the_response_echoes_becomes_a_binding(helpdesk: Path) -> None:
    contract = load_contract(helpdesk / "contracts" / "tickets.get")
    assert [(b.name, b.result, b.request) for b in contract.bindings] == [("ticket_id", "/ticket_id", "/args/ticket_id")]
    assert contract.request_example == {"ticket_id": 1042}
    closed = load_yaml(helpdesk / "fixtures/accepted/tickets.get/closed.case.yaml")
    assert closed["request"] == {"args": {"ticket_id": 1043}}  # the request this example answers


def test_a_parameter_that_names_a_collection_is_not_bound(helpdesk: Path) -> None:
    assert load_contract(helpdesk / "contracts" / "comments.create").bindings == ()


def test_required_query_parameters_are_request_args_and_part_of_the_url(helpdesk: Path) -> None:
    contract = load_contract(helpdesk / "contracts" / "tickets.search")
    assert contract.request_example == {"q": "printer"}
    upstream = contract.upstreams[0]
    assert (upstream.name, upstream.kind) == ("eu.helpdesk.example.com", "http")
    assert upstream.config["url"] == "${API_BASE_URL}/search?q={q}"  # never the description's production host
    assert contract.request_schema["required"] == ["q"]


def test_the_agent_view_lists_top_level_properties_optional_where_not_required(helpdesk: Path) -> None:
    contract = load_contract(helpdesk / "contracts" / "tickets.get")
    view = {f.name: (f.pointer, f.optional) for f in contract.agent_view}
    assert view["title"] == ("/title", False)
    assert view["tags"] == ("/tags", True)
    assert contract.envelope is None


def test_openapi_31_keeps_its_schemas_and_reads_the_base_url_from_the_environment(tmp_path: Path) -> None:
    imported = import_openapi(tmp_path, SPEC_31, ["getTicketStatus"])
    outcome = imported.written.tools[0]
    assert outcome.count("accepted") == 2
    schema = schema_of(tmp_path, "getTicketStatus")
    assert schema["$defs"]["TicketStatus"]["properties"]["note"] == {"type": ["string", "null"], "examples": ["waiting on vendor"]}
    contract = load_contract(tmp_path / "contracts" / "getTicketStatus")
    assert contract.upstreams[0].config["url"] == "${API_BASE_URL}/tickets/{ticket_id}/status"
    assert contract.request_example == {"ticket_id": "T-1042"}
    assert [b.result for b in contract.bindings] == ["/ticket_id"]
    assert any("API_BASE_URL" in note for note in outcome.notes)


def test_the_imported_contract_verifies_at_once(helpdesk: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(helpdesk)
    assert main(["verify", "contracts/tickets.get", "fixtures/accepted/tickets.get/open.json"]) == 0
    assert "accepted" in capsys.readouterr().out
    assert main(["check", "--no-progress", "--source", "accepted", "--source", "historical"]) == 0


@pytest.mark.parametrize(
    ("operation", "code", "words"),
    [
        ("tickets/delete", "import.no_json_schema", "204: no body"),
        ("attachments/get", "import.no_json_schema", "application/octet-stream"),
        ("legacy/get", "import.remote_ref", "never fetched"),
        ("ticket/get", "import.operation_not_found", "did you mean 'tickets/get'"),
    ],
)
def test_an_operation_that_cannot_be_imported_is_one_line_and_writes_nothing(
    operation: str, code: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "openapi", str(SPEC_30), "--operation", operation, "--into", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"contract-harness: error: {code}: ")
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "p").exists()


def test_a_bad_operation_among_good_ones_writes_none_of_them(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError):
        import_openapi(tmp_path, SPEC_30, ["tickets/get", "legacy/get"])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "name", "code"),
    [
        ('{"swagger": "2.0", "paths": {}}', "s.json", "import.openapi_version"),
        ('{"openapi": "4.0.0", "paths": {}}', "s.json", "import.openapi_version"),
        ('{"openapi": "3.0.0", "paths": {}, "paths": {}}', "s.json", "import.spec_invalid"),
        ("openapi: 3.0.0\nopenapi: 3.1.0\n", "s.yaml", "import.spec_invalid"),
        ("[1, 2]", "s.json", "import.spec_invalid"),
    ],
)
def test_descriptions_that_are_not_openapi_3_are_refused(text: str, name: str, code: str, tmp_path: Path) -> None:
    spec = tmp_path / name
    spec.write_text(text)
    with pytest.raises(OnboardingError) as caught:
        import_openapi(tmp_path / "out", spec, ["x"])
    assert caught.value.code == code


def test_a_missing_description_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError) as caught:
        import_openapi(tmp_path, tmp_path / "nope.yaml", ["x"])
    assert caught.value.code == "import.spec_unreadable"


def test_component_names_are_escaped_in_the_rewritten_references() -> None:
    spec = Spec({"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"a/b c": {"type": "string"}}}}, "3.1", "t")
    bundle = Bundle(spec)
    schema = bundle.document({"$ref": "#/components/schemas/a~1b%20c"})
    assert schema["$ref"] == "#/$defs/a~1b%20c"
    assert schema["$defs"] == {"a/b c": {"type": "string"}}
    from harness import validator_for

    assert validator_for(schema).is_valid("x") and not validator_for(schema).is_valid(1)


def test_strict_adds_a_tightened_v2_and_the_compat_report_replays_every_fixture(tmp_path: Path) -> None:
    imported = import_openapi(tmp_path, SPEC_30, ["tickets/get"], strict=True)
    outcome, review = imported.written.tools[0], imported.reviews[0]
    assert outcome.strict is not None and outcome.strict.current and outcome.strict.rejects == ()
    contract = load_contract(tmp_path / "contracts/tickets.get")
    assert contract.versions == (1, 2) and contract.version == 2
    assert contract.raw["compat"] == {"by_version": {"2": "writer"}}
    assert contract.schema(2)["$defs"]["Ticket"]["additionalProperties"] is False
    report = review.compat
    assert report is not None and report.ok and report.policy.value == "writer"
    assert {a.change.rule.name for a in report.changes} >= {"object_closed", "max_length_tightened"}
    assert sorted(row.fixture for row in report.replay) == [
        "tickets.get::accepted::closed", "tickets.get::accepted::open", "tickets.get::historical::imported/drifted"]
    assert review.lint.counts()["open_object"] == 2  # v1 as published is open; v2 is not
    assert all(f.schema == "v1" for f in review.lint.findings if f.rule == "open_object")


def test_a_strict_version_that_rejects_an_observed_shape_is_written_but_not_made_current(tmp_path: Path) -> None:
    spec = tmp_path / "extra.yaml"
    spec.write_text(SPEC_31.read_text().replace('"note": null}}', '"note": null, "escalated": true}}'))
    imported = import_openapi(tmp_path / "p", spec, ["getTicketStatus"], strict=True)
    strict = imported.written.tools[0].strict
    assert strict is not None and not strict.current and strict.rejects == ("open",)
    contract = load_contract(tmp_path / "p/contracts/getTicketStatus")
    assert (contract.versions, contract.version) == ((1, 2), 1)
    report = imported.reviews[0].compat
    assert report is not None
    row = next(r for r in report.replay if r.fixture.endswith("accepted::open"))
    assert row.cells[0].reason == "accepted" and "additionalProperties" in row.cells[1].reason


def test_the_cli_prints_lint_and_compat_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "openapi", str(SPEC_30), "--operation", "tickets/get", "--strict", "--into", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "lint tickets.get: 16 findings (free_text_in_agent_view 8," in out and "open_object 2" in out
    assert "compat tickets.get v1 -> v2: OK under policy writer" in out
    assert "ok   tickets.get::historical::imported/drifted: v1 schema.enum at /state | v2 schema.enum at /state" in out


def test_importing_over_an_existing_contract_is_refused_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["import", "openapi", str(SPEC_30), "--operation", "tickets/get", "--operation", "tickets/search", "--into", str(tmp_path)]
    assert main(["import", "openapi", str(SPEC_30), "--operation", "tickets/search", "--into", str(tmp_path)]) == 0
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("contract-harness: error: import.exists: contracts/tickets.search, fixtures/accepted/tickets.search already exist")
    assert sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()) == before


def test_a_post_operation_gets_no_sample_requests_and_drift_would_not_call_it(helpdesk: Path) -> None:
    upstream = load_contract(helpdesk / "contracts" / "comments.create").upstreams[0]
    assert (upstream.config["method"], upstream.requests, upstream.side_effects_allowed) == ("POST", (), False)
    assert len(load_contract(helpdesk / "contracts" / "tickets.get").upstreams[0].requests) == 1  # GET: one


def test_the_base_url_comes_from_the_variable_an_option_names_never_from_the_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "openapi", str(SPEC_30), "--operation", "tickets/get", "--into", str(tmp_path),
                 "--base-url-env", "HELPDESK_STAGING_URL"]) == 0
    out = capsys.readouterr().out
    text = (tmp_path / "contracts/tickets.get/contract.yaml").read_text()
    assert "${HELPDESK_STAGING_URL}/tickets/{ticket_id}" in text and "helpdesk.example.com/v2" not in text
    assert "set it to a sandbox or staging copy of https://eu.helpdesk.example.com/v2" in out


def test_a_base_url_variable_that_is_no_variable_name_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "openapi", str(SPEC_30), "--operation", "tickets/get", "--into", str(tmp_path),
                 "--base-url-env", "https://prod.example.com"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not an environment variable name" in err
    assert not (tmp_path / "contracts").exists()


@pytest.mark.parametrize("kind", ["fifo", "too_large", "directory"])
@pytest.mark.parametrize("source", ["openapi", "mcp --from", "mcp --captures"])
def test_an_import_input_that_is_no_regular_file_or_past_its_cap_is_one_line_exit_2(
    kind: str, source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    name = "spec.json" if source == "openapi" else "list.json"
    target = tmp_path / name
    if source == "mcp --captures":
        target = tmp_path / "captures" / "lookup" / "raw" / "case.json"
        target.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(target)  # a read would block forever: refused without opening it for good
    elif kind == "directory":
        target.mkdir()
    else:
        with target.open("wb") as sparse:  # past the cap without writing 17 MB
            sparse.truncate(17 << 20)
    argv = {
        "openapi": ["import", "openapi", str(target), "--operation", "x"],
        "mcp --from": ["import", "mcp", "--from", str(target)],
        "mcp --captures": ["import", "mcp", "--from", str(tmp_path / "none.json"), "--captures",
                           str(tmp_path / "captures")],
    }[source]
    if source == "mcp --captures":
        (tmp_path / "none.json").write_text(json.dumps({"tools": [{"name": "lookup", "inputSchema": {"type": "object"},
                                                                   "outputSchema": {"type": "object"}}]}))
    code = main([*argv, "--into", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    expected = {"fifo": "a FIFO, not a regular file", "directory": "a directory, not a regular file",
                "too_large": "the cap is 16,777,216"}[kind]
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()
