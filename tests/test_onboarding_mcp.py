"""``import mcp``: contracts from a live MCP server over stdio, a saved tools/list, saved calls."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import load_contract
from harness.cli import main
from harness.datafiles import load_yaml
from harness.onboarding import OnboardingError, import_mcp
from harness.onboarding.draft import Candidate, Skipped
from harness.onboarding.mcp import Call, candidate_from_call, parse_tools_list

SERVER = [sys.executable, str(Path(__file__).parent / "servers" / "mcp_stdio.py")]
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
SAMPLES = {
    "get_weather": [{"city": "Oslo"}, {"city": "Bergen"}],
    "tickets/search": {"query": "printer"},
    "service_status": {},
    "explode": {},
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """One live import from the test server (started for real, over stdio), shared by the tests below."""
    root = tmp_path_factory.mktemp("live")
    samples = [(tool, args) for tool, value in SAMPLES.items() for args in (value if isinstance(value, list) else [value])]
    return root, import_mcp(root, command=SERVER, samples=samples)


def test_every_tool_with_an_output_schema_gets_a_contract(live: tuple[Path, Any]) -> None:
    root, imported = live
    assert [t.tool for t in imported.written.tools] == ["get_weather", "tickets.search", "service_status", "explode"]
    assert sorted(p.name for p in (root / "contracts").iterdir()) == ["explode", "get_weather", "service_status", "tickets.search"]


def test_the_published_schema_and_its_dialect_are_kept(live: tuple[Path, Any]) -> None:
    root, _ = live
    schema = json.loads((root / "contracts/get_weather/schemas/v1.json").read_text())
    assert schema["$schema"] == DRAFT_07
    assert "additionalProperties" not in schema
    assert load_contract(root / "contracts/get_weather").validator().dialect == "draft-07"


def test_the_contract_is_a_bare_result_with_a_view_a_request_and_an_upstream(live: tuple[Path, Any]) -> None:
    root, _ = live
    contract = load_contract(root / "contracts/get_weather")
    assert contract.envelope is None
    assert [(f.name, f.pointer, f.optional) for f in contract.agent_view] == [
        ("city", "/city", False), ("temperature_c", "/temperature_c", False),
        ("conditions", "/conditions", False), ("station_id", "/station_id", True),
    ]
    assert contract.request_example == {"city": "Oslo"}
    assert contract.description == "Current weather for a city."
    upstream = contract.upstreams[0]
    assert (upstream.name, upstream.kind) == ("test-weather.server", "mcp")
    assert upstream.config == {"command": SERVER[0], "args": SERVER[1:], "tool": "get_weather"}
    assert [dict(r) for r in upstream.requests] == [{"city": "Oslo"}, {"city": "Bergen"}]


def test_a_tool_name_with_a_slash_is_mapped_and_the_upstream_keeps_the_real_name(live: tuple[Path, Any]) -> None:
    root, _ = live
    contract = load_contract(root / "contracts/tickets.search")
    assert contract.tool == "tickets.search"
    assert contract.upstreams[0].config["tool"] == "tickets/search"
    assert contract.raw["x-imported"]["tool"] == "tickets/search"


def test_sampled_results_are_filed_byte_for_byte_with_their_request(live: tuple[Path, Any]) -> None:
    root, _ = live
    payload = (root / "fixtures/accepted/get_weather/sample_2.json").read_bytes()
    assert payload == b'{"city":"Bergen","temperature_c":21.5,"conditions":"clear","station_id":"OSL-1"}'
    sidecar = load_yaml(root / "fixtures/accepted/get_weather/sample_2.case.yaml")
    assert sidecar["request"] == {"args": {"city": "Bergen"}}
    assert sidecar["upstream"] == "test-weather.server"
    assert "recorded_at" in sidecar


def test_a_result_that_violates_its_own_schema_becomes_a_historical_fixture(live: tuple[Path, Any]) -> None:
    root, imported = live
    sidecar = load_yaml(root / "fixtures/historical/service_status/imported/sample_1.case.yaml")
    assert sidecar["expect"] == {"layer": "schema", "code": "schema.enum", "pointer": "/state"}
    outcome = next(t for t in imported.written.tools if t.tool == "service_status")
    assert [(f.kind, f.code) for f in outcome.fixtures] == [("historical", "schema.enum")]


def test_an_is_error_result_is_skipped_with_the_reason(live: tuple[Path, Any]) -> None:
    _, imported = live
    outcome = next(t for t in imported.written.tools if t.tool == "explode")
    assert outcome.fixtures == ()
    assert [s.name for s in outcome.skipped] == ["sample_1"]
    assert "isError" in outcome.skipped[0].reason


def test_no_tool_gets_a_drift_request_that_was_not_sampled_and_succeeded(tmp_path: Path) -> None:
    imported = import_mcp(tmp_path, command=SERVER, samples=[("explode", {})])
    # explode was sampled and answered isError; get_weather is read-only but was never called:
    # neither gets a guessed request, and the summary says why.
    assert load_contract(tmp_path / "contracts/explode").upstreams[0].requests == ()
    assert load_contract(tmp_path / "contracts/get_weather").upstreams[0].requests == ()
    notes = {t.tool: " ".join(t.notes) for t in imported.written.tools}
    assert "no sampled call succeeded" in notes["explode"] and "side_effects: allowed" in notes["explode"]
    assert "no call was sampled" in notes["get_weather"] and "side_effects" not in notes["get_weather"]
    imported = import_mcp(tmp_path / "sampled", command=SERVER, samples=[("get_weather", {"city": "Oslo"})],
                          tools=["get_weather"])
    assert load_contract(tmp_path / "sampled/contracts/get_weather").upstreams[0].requests == ({"city": "Oslo"},)


def test_the_imported_contracts_pass_check_on_their_fixtures(live: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = live
    monkeypatch.chdir(root)
    assert main(["check", "--no-progress", "--source", "accepted", "--source", "historical"]) == 0


def test_a_duplicated_member_in_structured_content_is_refused_as_drift_refuses_it(tmp_path: Path) -> None:
    imported = import_mcp(tmp_path, command=[*SERVER, "--dup"], samples=[("get_weather", {"city": "Oslo"})],
                          tools=["get_weather"])
    outcome = imported.written.tools[0]
    assert outcome.fixtures == ()
    assert [s.name for s in outcome.skipped] == ["sample_1"]
    assert "parse.duplicate_member" in outcome.skipped[0].reason
    assert not (tmp_path / "fixtures").exists()


@pytest.mark.parametrize(
    ("flags", "code", "words"),
    [
        (["--crash-on-start"], "import.server_failed", "missing configuration file"),
        (["--crash-on-list"], "import.server_failed", "lost the database"),
        (["--clash"], "import.name_clash", "--name a.b=NEW_NAME"),
    ],
)
def test_a_server_that_fails_is_one_line_and_writes_nothing(
    flags: list[str], code: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "mcp", "--into", str(tmp_path / "p"), "--", *SERVER, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"contract-harness: error: {code}: ") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "p").exists()


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError) as caught:
        import_mcp(tmp_path, command=[*SERVER, "--hang"], timeout_s=1.0)
    assert caught.value.code == "import.server_timeout"


def test_a_command_that_does_not_exist_is_reported(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError, match="No such file") as caught:
        import_mcp(tmp_path, command=[str(tmp_path / "no-such-server")])
    assert caught.value.code == "import.server_failed"


def test_sampling_a_tool_the_server_does_not_list_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError, match="'nope'") as caught:
        import_mcp(tmp_path, command=SERVER, samples=[("nope", {})])
    assert caught.value.code == "import.unknown_tool"


# ------------------------------------------------------------------ saved tools/list and calls

TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
    {"name": "lookup", "inputSchema": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}}},
     "outputSchema": {"$schema": DRAFT_07, "type": "object", "required": ["value"], "properties": {"value": {"type": "string"}}}},
    {"name": "no_schema", "inputSchema": {"type": "object"}},
]}}


def saved(tmp_path: Path, content: Any = TOOLS_LIST) -> Path:
    path = tmp_path / "tools-list.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_a_saved_tools_list_imports_without_a_server_and_without_an_upstream(tmp_path: Path) -> None:
    imported = import_mcp(tmp_path / "p", from_file=saved(tmp_path))
    assert [t.tool for t in imported.written.tools] == ["lookup"]
    contract = load_contract(tmp_path / "p/contracts/lookup")
    assert contract.upstreams == ()
    assert contract.request_example == {"key": "x"}


def test_a_saved_tools_list_with_a_command_records_the_upstream_without_starting_it(tmp_path: Path) -> None:
    import_mcp(tmp_path / "p", from_file=saved(tmp_path), command=["npx", "-y", "lookup-server"])
    upstream = load_contract(tmp_path / "p/contracts/lookup").upstreams[0]
    assert (upstream.name, dict(upstream.config)) == ("mcp", {"command": "npx", "args": ["-y", "lookup-server"], "tool": "lookup"})


def test_paged_tools_list_responses_as_json_lines_are_read_in_order(tmp_path: Path) -> None:
    pages = [{"jsonrpc": "2.0", "id": 2, "result": {"tools": TOOLS_LIST["result"]["tools"][:1], "nextCursor": "2"}},
             {"jsonrpc": "2.0", "id": 3, "result": {"tools": TOOLS_LIST["result"]["tools"][1:]}}]
    tools = parse_tools_list("\n".join(json.dumps(p) for p in pages).encode(), "pages")
    assert [t.name for t in tools] == ["lookup", "no_schema"]


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("not json", "import.tools_list_invalid"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}, "import.server_error"),
        ({"result": {"tools": [{"name": "a"}, {"name": "a"}]}}, "import.tools_list_invalid"),
        ({"result": {"tools": [{"name": "a", "inputSchema": {}}]}}, "import.no_output_schema"),
        ('{"result": {"tools": [], "tools": []}}', "import.tools_list_invalid"),
    ],
)
def test_a_bad_tools_list_is_refused_with_its_code(content: Any, code: str, tmp_path: Path) -> None:
    with pytest.raises(OnboardingError) as caught:
        import_mcp(tmp_path / "p", from_file=saved(tmp_path, content))
    assert caught.value.code == code
    assert not (tmp_path / "p").exists()


def test_asking_for_a_tool_without_output_schema_says_so(tmp_path: Path) -> None:
    with pytest.raises(OnboardingError, match="no_schema") as caught:
        import_mcp(tmp_path / "p", from_file=saved(tmp_path), tools=["no_schema"])
    assert caught.value.code == "import.no_output_schema"


def test_an_output_schema_that_does_not_compile_stops_the_import_naming_the_tool(tmp_path: Path) -> None:
    broken = json.loads(json.dumps(TOOLS_LIST))
    broken["result"]["tools"][0]["outputSchema"] = {"$ref": "https://schemas.example.com/value.json"}
    with pytest.raises(OnboardingError, match="'lookup'") as caught:
        import_mcp(tmp_path / "p", from_file=saved(tmp_path, broken))
    assert caught.value.code == "contract.remote_ref"
    assert not (tmp_path / "p").exists()


def test_captured_calls_become_fixtures_named_after_their_case(tmp_path: Path) -> None:
    captures = tmp_path / "captures" / "lookup"
    (captures / "requests").mkdir(parents=True)
    (captures / "raw").mkdir()
    (captures / "requests/answer.json").write_text(json.dumps({"method": "tools/call", "params": {"name": "lookup", "arguments": {"key": "k1"}}}))
    (captures / "raw/answer.json").write_bytes(b'{"result":{"content":[],"structuredContent": {"value" : "v1"}},"jsonrpc":"2.0","id":4}')
    imported = import_mcp(tmp_path / "p", from_file=saved(tmp_path), captures=tmp_path / "captures")
    assert (tmp_path / "p/fixtures/accepted/lookup/answer.json").read_bytes() == b'{"value" : "v1"}'
    assert imported.written.tools[0].fixtures[0].kind == "accepted"
    assert load_contract(tmp_path / "p/contracts/lookup").request_example == {"key": "k1"}


def test_the_cli_refuses_sampling_without_a_live_server_and_a_command_or_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text('{"lookup": {"key": "k"}}')
    into = str(tmp_path / "p")
    assert main(["import", "mcp", "--into", into, "--from", str(saved(tmp_path)), "--sample", str(samples)]) == 2
    assert main(["import", "mcp", "--into", into]) == 2
    assert not (tmp_path / "p").exists()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2  # one line per refusal
    assert all(line.startswith("contract-harness: error: usage.invalid: ") for line in err)


def test_a_message_refused_as_a_whole_is_skipped_as_drift_would_refuse_it() -> None:
    found = candidate_from_call(Call("t", "c", None, b'{"jsonrpc":"2.0","id":1,"result":1,"result":{"structuredContent":{}}}'), None)
    assert isinstance(found, Skipped) and "parse.duplicate_member" in found.reason


def test_a_json_rpc_error_line_is_skipped() -> None:
    found = candidate_from_call(Call("t", "c", {}, b'{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}'), "mcp")
    assert isinstance(found, Skipped) and "JSON-RPC error -32602" in found.reason
    ok = candidate_from_call(Call("t", "c", {}, b'{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{}}}'), "mcp")
    assert isinstance(ok, Candidate) and ok.payload == b"{}"


def test_a_clash_is_resolved_with_name_and_the_upstream_keeps_each_real_name(tmp_path: Path) -> None:
    assert main(["import", "mcp", "--into", str(tmp_path), "--name", "a.b=a_b", "--", *SERVER, "--clash"]) == 0
    assert load_contract(tmp_path / "contracts/a.b").upstreams[0].config["tool"] == "a/b"
    assert load_contract(tmp_path / "contracts/a_b").upstreams[0].config["tool"] == "a.b"


def test_only_the_tools_asked_for_are_imported(tmp_path: Path) -> None:
    imported = import_mcp(tmp_path, command=SERVER, tools=["service_status"])
    assert [t.tool for t in imported.written.tools] == ["service_status"]
    assert sorted(p.name for p in (tmp_path / "contracts").iterdir()) == ["service_status"]


def test_a_sample_that_failed_is_reported_and_never_kept_as_a_drift_request(tmp_path: Path) -> None:
    imported = import_mcp(
        tmp_path, command=SERVER, tools=["get_weather", "explode"],
        samples=[("get_weather", {"city": "Oslo"}), ("get_weather", {}), ("explode", {})],
    )
    weather = load_contract(tmp_path / "contracts/get_weather").upstreams[0]
    assert [dict(r) for r in weather.requests] == [{"city": "Oslo"}]  # not the call refused for its arguments
    outcome = next(t for t in imported.written.tools if t.tool == "get_weather")
    assert [s.name for s in outcome.skipped] == ["sample_2"]
    assert "-32602" in outcome.skipped[0].reason and "nor as a drift request" in outcome.skipped[0].reason
    explode = next(t for t in imported.written.tools if t.tool == "explode")
    assert load_contract(tmp_path / "contracts/explode").upstreams[0].requests == ()
    assert any("no sampled call succeeded" in note for note in explode.notes)


def test_an_argument_every_sample_echoes_is_bound_so_checks_echo_cases_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    imported = import_mcp(tmp_path, command=SERVER, tools=["get_weather"],
                          samples=[("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})])
    contract = load_contract(tmp_path / "contracts/get_weather")
    assert [(b.name, b.result, b.request) for b in contract.bindings] == [("city", "/city", "/args/city")]
    assert any("bound the echoed argument 'city' at /city" in note for note in imported.written.tools[0].notes)
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-progress", "--json", "check.json"])
    capsys.readouterr()
    cases = json.loads((tmp_path / "check.json").read_text())["cases"]
    echoes = [c for c in cases if c["operator"] == "change_echo"]
    assert len(echoes) == 2 and {c["status"] for c in echoes} == {"passed"}
    assert [c["id"] for c in cases if c["status"] == "failed"] == []


def test_an_echo_a_sample_contradicts_is_not_bound(tmp_path: Path) -> None:
    # --dup: structuredContent names city twice, so the sample is refused before the boundary;
    # with no accepted sample, nothing proves the echo and nothing is bound.
    import_mcp(tmp_path, command=[*SERVER, "--dup"], tools=["get_weather"], samples=[("get_weather", {"city": "Oslo"})])
    assert load_contract(tmp_path / "contracts/get_weather").bindings == ()


def test_the_server_gets_the_variables_env_names_and_the_upstream_records_only_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.drift.process import INHERITED
    from harness.drift.server_env import server_environment

    argv = [*SERVER, "--require-env=WEATHER_STATION"]
    monkeypatch.setenv("WEATHER_STATION", "station-from-the-env")
    with pytest.raises(OnboardingError) as failed:  # set here, but not given to the server: as drift starts it
        import_mcp(tmp_path / "without", command=argv)
    assert failed.value.code == "import.server_failed" and "WEATHER_STATION is not set" in str(failed.value)
    import_mcp(tmp_path, command=argv, env=["WEATHER_STATION"], tools=["get_weather"],
               samples=[("get_weather", {"city": "Oslo"})])
    contract_file = tmp_path / "contracts/get_weather/contract.yaml"
    assert b"station-from-the-env" in (tmp_path / "fixtures/accepted/get_weather/sample_1.json").read_bytes()
    assert "station-from-the-env" not in contract_file.read_text()
    contract = load_contract(contract_file.parent)
    (upstream,) = contract.upstreams
    assert upstream.config["env"] == {"WEATHER_STATION": "${WEATHER_STATION}"}
    given = server_environment(contract, upstream, {"WEATHER_STATION": "w", "PATH": "/bin", "OTHER_SECRET": "x"})
    assert given == {"PATH": "/bin", "WEATHER_STATION": "w"} and set(given) <= {*INHERITED, "WEATHER_STATION"}
    monkeypatch.chdir(tmp_path)
    assert main(["drift", "--json", "drift.json"]) == 0
    assert {c["status"] for c in json.loads((tmp_path / "drift.json").read_text())["drift"]["checks"]} == {"held"}
    capsys.readouterr()
    monkeypatch.delenv("WEATHER_STATION")
    assert main(["drift"]) == 2
    err = capsys.readouterr().err
    assert "upstream.env_missing" in err and "WEATHER_STATION" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(OnboardingError) as missing:
        import_mcp(tmp_path / "unset", command=argv, env=["WEATHER_STATION"])
    assert missing.value.code == "upstream.env_missing"
    assert main(["import", "mcp", "--into", str(tmp_path / "unset"), "--env", "WEATHER_STATION", "--", *argv]) == 2
    assert "upstream.env_missing" in capsys.readouterr().err


def test_a_tool_without_output_schema_imports_from_its_sampled_plain_text_as_an_inferred_bounded_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"echo": [{"text": "hello there"}, {"text": "say \"hi\"\nplease"}]}))
    project = tmp_path / "project"
    assert main(["import", "mcp", "--into", str(project), "--sample", str(samples), "--", *SERVER]) == 0
    out = capsys.readouterr().out
    assert "contracts/echo, 2 accepted (schema INFERRED from samples)" in out
    assert "the schema is INFERRED from 2 sampled results" in out
    schema = json.loads((project / "contracts/echo/schemas/v1.json").read_text())
    assert schema == {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "maxLength": 256}
    contract_text = (project / "contracts/echo/contract.yaml").read_text()
    assert contract_text.startswith("# Imported from test-weather/server") and "# INFERRED: " in contract_text
    contract = load_contract(project / "contracts/echo")
    assert contract.raw["x-imported"]["output_schema"] == "inferred from 2 sampled results"
    assert contract.upstreams[0].config["result"] == "text_string"
    # The plain text, kept as the JSON string it was in the message (escapes as sent).
    assert (project / "fixtures/accepted/echo/sample_2.json").read_bytes() == b'"say \\"hi\\"\\nplease"'
    monkeypatch.chdir(project)
    main(["check", "--no-progress", "--json", "check.json", "--tool", "echo"])
    assert json.loads((project / "check.json").read_text())["summary"]["failed"] == 0
    file = project / "contracts/echo/contract.yaml"
    file.write_text(file.read_text().replace("    requests:", "    side_effects: allowed\n    requests:"))
    capsys.readouterr()
    assert main(["drift", "--tool", "echo", "--json", "drift.json"]) == 0
    checks = {c["id"]: c for c in json.loads((project / "drift.json").read_text())["drift"]["checks"]}
    # The sample with a line break gets a label of its own: every id stays on its line.
    assert sorted(checks) == [f"echo::drift::test-weather.server[{label}]"
                              for label in ("hello there", "outputSchema", "request-2")]
    assert {c["status"] for c in checks.values()} == {"held"}  # none published, as output_schema: none says
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("please")]
    main(["lint", "contracts/echo"])
    assert "free_text_in_agent_view" in capsys.readouterr().out  # lint flags what the model sees: free text


def test_a_tool_with_neither_schema_nor_sample_is_skipped_with_a_note_and_the_rest_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported = import_mcp(tmp_path / "api", command=SERVER)
    assert [(s.name, s.reason) for s in imported.skipped] == [
        ("echo", "no outputSchema and not sampled (--sample it to draft a contract)")]
    assert len(imported.written.tools) == 4
    assert main(["import", "mcp", "--into", str(tmp_path / "cli"), "--", *SERVER]) == 0
    assert "  skipped tool 'echo': no outputSchema and not sampled" in capsys.readouterr().out
    with pytest.raises(OnboardingError) as asked:  # asked for by name: said, not skipped
        import_mcp(tmp_path / "asked", command=SERVER, tools=["echo"])
    assert asked.value.code == "import.no_output_schema" and "--sample it" in str(asked.value)


def test_import_keeps_the_harness_state_out_of_git_as_init_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".gitignore").write_text("node_modules/")
    assert main(["import", "mcp", "--into", str(project), "--from", str(saved(tmp_path))]) == 0
    assert "added to .gitignore: /.contract-harness/" in capsys.readouterr().out
    assert (project / ".gitignore").read_text() == "node_modules/\n/.contract-harness/\n"
    assert (project / ".gitattributes").read_text() == "fixtures/** -text\n"
    (project / "contracts/lookup").rename(tmp_path / "moved")  # import again: nothing added twice
    assert main(["import", "mcp", "--into", str(project), "--from", str(saved(tmp_path))]) == 0
    assert "added to" not in capsys.readouterr().out
    assert (project / ".gitignore").read_text() == "node_modules/\n/.contract-harness/\n"


def test_import_records_the_versions_it_writes_so_the_versions_check_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert main(["import", "mcp", "--into", str(project), "--from", str(saved(tmp_path))]) == 0
    assert "recorded v1 in contracts/lookup/schemas.lock" in capsys.readouterr().out
    assert (project / "contracts/lookup/schemas.lock").read_text().splitlines()[-1].startswith("v1 ")
    assert main(["lock", "--check", str(project / "contracts")]) == 0


def test_a_variable_named_in_the_command_line_is_filled_in_and_recorded_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = tmp_path / "calls.log"
    monkeypatch.setenv("WEATHER_CALLS", str(calls))
    import_mcp(tmp_path, command=[*SERVER, "--calls=${WEATHER_CALLS}"], tools=["get_weather"],
               samples=[("get_weather", {"city": "Oslo"})])
    assert calls.read_text() == "get_weather\n"  # the server got the value
    contract = load_contract(tmp_path / "contracts/get_weather")
    assert contract.upstreams[0].config["args"] == [SERVER[1], "--calls=${WEATHER_CALLS}"]
    assert str(calls) not in (tmp_path / "contracts/get_weather/contract.yaml").read_text()
    monkeypatch.chdir(tmp_path)
    assert main(["drift"]) == 0  # drift fills it in the same way
    capsys.readouterr()
    assert calls.read_text() == "get_weather\nget_weather\n"
