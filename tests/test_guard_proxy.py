"""``contract-harness guard``: the proxy, run as a real subprocess in front of real MCP servers
over stdio (our stdlib test server and the demo sandbox), spoken to line by line."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.guard.lines import HEAD
from tests.helpers.guard import (
    CONTRACT_HARNESS,
    TEST_SERVER,
    audit_lines,
    guard,
    logged,
    weather_project,
)

CANARY = "CANARY-7f3a"
VIEW = {"city": "Oslo", "temperature_c": 21.5, "conditions": "clear"}


@pytest.fixture
def project(make_contract: Any) -> Path:
    return weather_project(make_contract)


def _structured(answer: dict[str, Any]) -> Any:
    return answer["result"]["structuredContent"]


def test_a_guarded_call_returns_the_agent_view_and_never_the_servers_text(project: Path) -> None:
    server = [*TEST_SERVER, "--canary"]
    with guard(server=server, cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        assert peer.close() == 0
    result = answer["result"]
    # The projection, not the upstream document: station_id is not in the agent view.
    assert result["structuredContent"] == VIEW
    assert result["isError"] is False
    assert [json.loads(block["text"]) for block in result["content"]] == [VIEW]
    assert CANARY not in peer.raw.decode()


def test_tools_list_shows_each_guarded_tool_with_its_agent_view_schema_and_hides_the_rest(project: Path) -> None:
    from harness.contract import load_contract

    with guard(server=TEST_SERVER, cwd=project) as peer:
        peer.initialize()
        listed = peer.request("tools/list")
        page_two = peer.request("tools/list", {"cursor": listed["result"]["nextCursor"]})
        peer.close()
    tools = {t["name"]: t for t in listed["result"]["tools"] + page_two["result"]["tools"]}
    assert sorted(tools) == ["explode", "get_weather", "service_status"]  # echo, tickets/search hidden
    view = load_contract(project / "contracts" / "get_weather").view_schema()
    assert tools["get_weather"]["outputSchema"] == view
    # Built from the contract: its request schema, its description; of the server's entry only
    # the boolean hints (its title and its two-line description are the server's text).
    contract = load_contract(project / "contracts" / "get_weather")
    assert tools["get_weather"] == {
        "name": "get_weather", "description": "Current weather for a city.",
        "inputSchema": contract.request_schema, "outputSchema": view, "annotations": {"readOnlyHint": True},
    }
    assert listed["result"]["nextCursor"].startswith("guard-cursor.")  # never the server's own cursor
    assert 'hid 1 tool(s) without a contract: "tickets/search"' in peer.stderr
    assert 'hid 1 tool(s) without a contract: "echo"' in peer.stderr


def test_a_call_of_a_tool_without_a_contract_is_answered_with_the_failure_envelope_and_never_sent(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, f"--log={log}"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("echo", {"text": "hello"})
        peer.close()
    result = answer["result"]
    assert result["isError"] is True
    envelope = result["structuredContent"]
    assert envelope["outcome"] == "failure" and envelope["error"] == {"code": "NOT_FOUND", "retryable": False}
    assert json.loads(result["content"][0]["text"]) == envelope
    assert [m.get("method") for m in logged(log)] == ["initialize", "notifications/initialized"]
    (record,) = audit_lines(audit)
    assert record["guard"]["event"] == "denied" and record["tool"] == "echo"
    assert 'denied a call of "echo"' in peer.stderr


@pytest.mark.parametrize("secret", ["gt-S3cr3t/Token-9", "gt-first-line\ngt-second-line"])
def test_the_audit_file_and_the_diagnostics_never_hold_a_secret_the_contracts_use(
    make_contract: Any, tmp_path: Path, secret: str
) -> None:
    from tests.helpers.guard import WEATHER_SCHEMA, WEATHER_YAML

    text = WEATHER_YAML.format(timeout=10).replace(
        'meta: {request_id: "{request_id}"}', 'meta: {request_id: "{request_id}", auth: "${GUARD_TOKEN}"}'
    )
    assert "GUARD_TOKEN" in text
    make_contract("get_weather", text, {1: WEATHER_SCHEMA})
    audit = tmp_path / "audit.jsonl"
    # A client that names a tool with the token's value (pasted, or echoed from a prompt): the
    # denial is audited and logged, through the one redactor.
    with guard("--audit", str(audit), server=TEST_SERVER, cwd=tmp_path, env={"GUARD_TOKEN": secret}) as peer:
        peer.initialize()
        peer.call(secret, {})
        peer.call(secret.replace("/", "%2F"), {})
        peer.close()
    written = audit.read_text()
    assert len(written.splitlines()) == 2
    assert secret not in written and "%2F" not in written and secret not in peer.stderr
    assert "line" not in peer.stderr and "S3cr3t" not in peer.stderr  # no part of it, in any spelling
    assert [line["tool"] for line in audit_lines(audit)] == ["${GUARD_TOKEN}", "${GUARD_TOKEN}"]
    assert 'denied a call of "${GUARD_TOKEN}"' in peer.stderr


def test_allow_unguarded_lets_tools_without_a_contract_through_and_says_so_loudly(project: Path) -> None:
    with guard("--allow-unguarded", server=TEST_SERVER, cwd=project) as peer:
        peer.initialize()
        listed = peer.request("tools/list")
        answer = peer.call("echo", {"text": "hello"})
        peer.close()
    assert [t["name"] for t in listed["result"]["tools"]] == ["get_weather", "tickets/search"]
    assert answer["result"] == {"content": [{"type": "text", "text": "hello"}]}
    assert "WARNING: --allow-unguarded" in peer.stderr


def test_a_result_that_violates_the_contract_yields_the_failure_envelope_and_an_audit_record(
    project: Path, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=TEST_SERVER, cwd=project) as peer:
        peer.initialize()
        answer = peer.call("service_status")
        peer.close()
    envelope = _structured(answer)
    assert answer["result"]["isError"] is True
    assert envelope["tool"] == "service_status" and envelope["outcome"] == "failure"
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert "exploded" not in peer.raw.decode()
    (record,) = audit_lines(audit)
    assert (record["layer"], record["code"], record["instance_pointer"]) == ("schema", "schema.enum", "/state")
    assert record["request_id"] == envelope["request_id"] and record["request_id"].startswith("guard.")
    # The raw bytes judged are structuredContent exactly as it stood in the JSON-RPC line.
    assert record["raw_sha256"] == hashlib.sha256(b'{"state":"exploded"}').hexdigest()
    assert record["raw_size"] == len(b'{"state":"exploded"}')
    assert record["guard"]["mcp_tool"] == "service_status" and record["guard"]["event"] == "answered"
    assert "rejected by schema: schema.enum at /state" in peer.stderr


def test_a_duplicate_member_in_structured_content_is_rejected_at_parse(project: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--dup"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert _structured(answer)["error"]["code"] == "INVALID_RESPONSE"
    assert "Paris" not in peer.raw.decode()
    assert audit_lines(audit)[0]["code"] == "parse.duplicate_member"


def test_an_is_error_result_becomes_the_failure_envelope_without_its_text(project: Path) -> None:
    with guard(server=TEST_SERVER, cwd=project) as peer:
        peer.initialize()
        answer = peer.call("explode")
        peer.close()
    assert answer["result"]["isError"] is True
    assert _structured(answer)["error"] == {"code": "TOOL_ERROR", "retryable": False}
    assert "boom" not in peer.raw.decode()


def test_arguments_outside_the_request_schema_are_refused_before_the_call_is_sent(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with guard(server=[*TEST_SERVER, f"--log={log}"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": ""})
        peer.close()
    result = answer["result"]
    assert result["isError"] is True and "structuredContent" not in result
    assert "the call of 'get_weather' was not sent" in result["content"][0]["text"]
    assert "tools/call" not in [m.get("method") for m in logged(log)]


def test_the_contracts_meta_is_sent_with_the_guards_request_id_and_the_clients_meta_is_kept(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, f"--log={log}"], cwd=project) as peer:
        peer.initialize()
        peer.call("get_weather", {"city": "Oslo"},
                  meta={"progressToken": "p1", "dev.contract-harness/call": "token-1"})
        peer.close()
    (sent,) = [m for m in logged(log) if m.get("method") == "tools/call"]
    request_id = audit_lines(audit)[0]["request_id"]
    assert sent["params"]["_meta"] == {"progressToken": "p1", "request_id": request_id}
    assert sent["params"]["arguments"] == {"city": "Oslo"}


def test_a_call_past_its_timeout_gets_the_failure_envelope_and_is_cancelled_at_the_server(
    make_contract: Any, tmp_path: Path
) -> None:
    project = weather_project(make_contract, timeout=0.5)
    log = tmp_path / "server.log"
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--slow-weather=2", f"--log={log}"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"}, ident=7)
        assert _structured(answer)["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}
        # The late answer is dropped: the next answer the client reads is the ping's.
        assert peer.request("ping", ident=8) == {"jsonrpc": "2.0", "id": 8, "result": {}}
        peer.close()
    cancelled = [m for m in logged(log) if m.get("method") == "notifications/cancelled"]
    assert [c["params"]["requestId"] for c in cancelled] == [7]
    assert [m.get("id") for m in peer.seen].count(7) == 1
    record = audit_lines(audit)[0]
    assert record["guard"]["event"] == "timeout" and "timeout_s=0.5" in record["message"]
    assert "dropped the late answer to JSON-RPC id 7" in peer.stderr


def test_an_answer_past_the_contracts_message_cap_is_refused(project: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    # max_bytes 4096 -> max_message_bytes 4*4096 + 64 KiB = 81920: 200 kB is past it.
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--big-weather=200000"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert _structured(answer)["error"]["code"] == "INVALID_RESPONSE"
    record = audit_lines(audit)[0]
    assert record["code"] == "transport.max_bytes" and "max_message_bytes=81920" in record["message"]


def test_a_line_past_the_guards_own_cap_is_never_buffered_and_still_answered(project: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    options = ("--audit", str(audit), "--max-message-bytes", "20000")
    with guard(*options, server=[*TEST_SERVER, "--big-weather=50000"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert _structured(answer)["error"]["code"] == "INVALID_RESPONSE"
    record = audit_lines(audit)[0]
    assert record["code"] == "transport.max_bytes" and "max_message_bytes=20000" in record["message"]
    assert record["raw_size"] == HEAD  # only the head of the line was ever kept


def test_progress_of_a_guarded_call_is_relayed_without_its_message(project: Path) -> None:
    with guard(server=[*TEST_SERVER, "--progress"], cwd=project) as peer:
        peer.initialize()
        peer.call("get_weather", {"city": "Oslo"}, meta={"progressToken": "p1"})
        peer.close()
    (progress,) = [m for m in peer.seen if m.get("method") == "notifications/progress"]
    assert progress["params"] == {"progressToken": "p1", "progress": 1, "total": 2}
    assert CANARY not in peer.raw.decode()


def test_the_server_dying_mid_call_answers_the_call_and_the_guard_exits_with_its_status(
    project: Path, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--exit-on-call"], cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        assert peer.next_message() is None  # then the guard closes its output, as the server did
        status = peer.process.wait(20)
    assert _structured(answer)["error"]["code"] == "UPSTREAM_UNAVAILABLE"
    assert status == 5
    assert "exited with status 5" in audit_lines(audit)[0]["message"]
    assert "the server exited with status 5" in peer.stderr


def test_a_task_augmented_call_of_a_guarded_tool_is_refused_and_listed_as_forbidden(project: Path) -> None:
    with guard(server=[*TEST_SERVER, "--tasks"], cwd=project) as peer:
        peer.initialize()
        listed = peer.request("tools/list")
        answer = peer.call("get_weather", {"city": "Oslo"}, params={"task": {"ttl": 1000}})
        peer.close()
    weather = next(t for t in listed["result"]["tools"] if t["name"] == "get_weather")
    assert weather["execution"] == {"taskSupport": "forbidden"}
    assert answer["error"]["code"] == -32601


def test_a_modern_call_loses_the_tasks_capability_and_gets_a_complete_result(project: Path, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {},
                                                                      "x.example/other": {}}},
    }
    with guard(server=[*TEST_SERVER, f"--log={log}"], cwd=project) as peer:
        answer = peer.call("get_weather", {"city": "Oslo"}, meta=meta)
        peer.close()
    assert answer["result"]["resultType"] == "complete" and _structured(answer) == VIEW
    (sent,) = [m for m in logged(log) if m.get("method") == "tools/call"]
    capabilities = sent["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert capabilities == {"extensions": {"x.example/other": {}}}


def test_a_ping_is_answered_as_the_guard_rebuilds_it_and_an_unpassed_surface_is_never_sent(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with guard(server=[*TEST_SERVER, f"--log={log}"], cwd=project) as peer:
        peer.send(b'{"jsonrpc":"2.0","id":"a b","method":"ping"}')
        peer.send(b'{"jsonrpc": "2.0", "id": 9, "method": "resources/list"}')
        peer.wait_for(lambda m: m.get("id") == 9)
        peer.close()
    lines = bytes(peer.raw).splitlines()
    assert b'{"jsonrpc":"2.0","id":"a b","result":{}}' in lines
    assert b'{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}' in lines
    assert [m["method"] for m in logged(log)] == ["ping"]
    assert 'refused a client request for method "resources/list": not a method the guard relays (pass it with ' \
           "--pass resources)" in peer.stderr


def test_a_passed_surface_is_relayed_byte_for_byte(project: Path) -> None:
    with guard("--pass", "resources", server=TEST_SERVER, cwd=project) as peer:
        peer.send(b'{"jsonrpc": "2.0", "id": 9, "method": "resources/list"}')
        peer.wait_for(lambda m: m.get("id") == 9)
        peer.close()
    lines = bytes(peer.raw).splitlines()
    assert b'{"jsonrpc": "2.0", "id": 9, "error": {"code": -32601, "message": "Method not found: resources/list"}}' in lines
    assert "WARNING: --pass resources: these surfaces pass UNCHECKED" in peer.stderr


def test_a_contract_guards_the_mcp_tool_its_upstream_names(make_contract: Any, tmp_path: Path) -> None:
    make_contract("tickets.search", """\
        tool: tickets.search
        version: 1
        request: {schema: {type: object, required: [query], properties: {query: {type: string}}}, example: {query: x}}
        envelope: null
        agent_view: {total: /total}
        upstreams:
          server:
            mcp: {command: python, args: [tests/servers/mcp_stdio.py], tool: tickets/search}
        """, {1: {"type": "object", "required": ["total", "items"],
                  "properties": {"total": {"type": "integer"}, "items": {"type": "array"}}}})
    with guard(server=TEST_SERVER, cwd=tmp_path) as peer:
        peer.initialize()
        answer = peer.call("tickets/search", {"query": "printer"})
        peer.close()
    assert _structured(answer) == {"total": 1}


def test_a_map_option_puts_a_contract_in_front_of_a_differently_named_tool(make_contract: Any, tmp_path: Path) -> None:
    from tests.helpers.guard import STATUS_SCHEMA, STATUS_YAML

    make_contract("health", STATUS_YAML.replace("service_status", "health"), {1: STATUS_SCHEMA})
    with guard("--map", "service_status=health", server=TEST_SERVER, cwd=tmp_path) as peer:
        peer.initialize()
        first = peer.request("tools/list")
        second = peer.request("tools/list", {"cursor": first["result"]["nextCursor"]})
        answer = peer.call("service_status")
        peer.close()
    assert [t["name"] for t in first["result"]["tools"] + second["result"]["tools"]] == ["service_status"]
    assert _structured(answer)["tool"] == "health"  # the failure envelope names the contract
    assert "does not list" not in peer.stderr


def test_a_contract_whose_tool_the_server_does_not_list_is_named_with_the_nearest_tool(
    make_contract: Any, tmp_path: Path
) -> None:
    from tests.helpers.guard import WEATHER_SCHEMA, WEATHER_YAML

    make_contract("get_wether", WEATHER_YAML.format(timeout=5).replace("tool: get_weather", "tool: get_wether"),
                  {1: WEATHER_SCHEMA})
    with guard(server=TEST_SERVER, cwd=tmp_path) as peer:
        peer.initialize()
        first = peer.request("tools/list")
        peer.request("tools/list", {"cursor": first["result"]["nextCursor"]})
        peer.close()
    assert ("contract 'get_wether' guards MCP tool 'get_wether', which the server does not list "
            "(did you mean 'get_weather'? fix the contract's tool, or map it with --map get_weather=get_wether)"
            ) in peer.stderr


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], "error: guard.no_command: no server command"),
        (["--contracts", "nowhere", "--", "true"], "nowhere: not a directory"),
        (["--map", "x", "--", "true"], "--map 'x': expected MCP_NAME=TOOL"),
        (["--map", "x=nope", "--", "true"], "--map names no contract 'nope'"),
        (["--", "no-such-program-7f3a"], "program 'no-such-program-7f3a' not found"),
        (["--audit", "/proc/no/such/dir/audit.jsonl", "--", "true"], "error: guard.audit: cannot open"),
        (["--timeout", "0", "--", "true"], "--timeout must be greater than 0"),
        (["--upstream", "x", "--tool", "nope", "--", "true"], "unknown tool nope"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(
    project: Path, arguments: list[str], expected: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from harness.cli import main

    monkeypatch.chdir(project)
    assert main(["guard", *arguments]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], err


def test_the_guard_finds_the_projects_contracts_from_a_subfolder(project: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    with guard(server=TEST_SERVER, cwd=sub) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert _structured(answer) == VIEW


def test_without_contracts_the_guard_refuses_to_start_rather_than_guard_with_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.cli import main

    if any((parent / "contracts").is_dir() for parent in tmp_path.parents):
        pytest.skip(f"a contracts/ folder exists above {tmp_path}")
    monkeypatch.chdir(tmp_path)
    assert main(["guard", "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"contract-harness: error: guard.no_contracts: no contracts/ folder in {tmp_path} or above")
    assert "--demo" in err and len(err.strip().splitlines()) == 1


def test_the_installed_command_reports_a_bad_configuration_in_one_line(project: Path) -> None:
    done = subprocess.run([CONTRACT_HARNESS, "guard", "--", "no-such-program-7f3a"], cwd=project,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("contract-harness: error: upstream.program_not_found: guard COMMAND: program "
                                  "'no-such-program-7f3a' not found")
    assert len(done.stderr.strip().splitlines()) == 1


def test_two_contracts_for_one_mcp_tool_are_a_configuration_error(
    make_contract: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers.guard import STATUS_SCHEMA, STATUS_YAML

    make_contract("service_status", STATUS_YAML, {1: STATUS_SCHEMA})
    make_contract("health", STATUS_YAML.replace("service_status", "health"), {1: STATUS_SCHEMA})
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["guard", "--map", "service_status=health", "--", "true"]) == 2
    err = capsys.readouterr().err
    assert "guard.duplicate_tool" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the demo sandbox

def _sandbox(profile: str, *extra: str) -> list[str]:
    return [CONTRACT_HARNESS, "sandbox", "--mcp", "--profile", profile, *extra]


SAMPLES = [
    ("review_status", {"change_id": "CR-1042"}),
    ("review_status", {"change_id": "CR-1043"}),
    ("job_status", {"project_id": "bluebird", "run_id": "run_8f3K2j5H1g9d"}),
    ("job_status", {"project_id": "bluebird", "run_id": "run_2aB4c6D8e0fG"}),
    ("deployment_status", {"environment": "staging"}),
    ("deployment_status", {"environment": "production"}),
]


def test_the_hostile_demo_server_yields_only_failure_envelopes_and_an_audit_record_each(
    demo_root: Path, tmp_path: Path
) -> None:
    from harness.sandbox.scenarios import INSTRUCTION

    audit = tmp_path / "audit.jsonl"
    options = ("--demo", "--audit", str(audit))
    with guard(*options, server=_sandbox("hostile", "--huge-bytes", "300000"), cwd=tmp_path) as peer:
        peer.initialize()
        answers = [peer.call(tool, args, timeout=30) for tool, args in SAMPLES]
        assert peer.close() == 0
    assert all(a["result"]["isError"] for a in answers)
    assert {_structured(a)["error"]["code"] for a in answers} == {"INVALID_RESPONSE"}
    text = peer.raw.decode()
    assert INSTRUCTION not in text and "<html>" not in text.lower() and "NaN" not in text
    codes = [(r["tool"], r["code"]) for r in audit_lines(audit)]
    assert codes == [
        ("review_status", "parse.duplicate_member"),
        ("review_status", "schema.additionalProperties"),
        ("job_status", "parse.non_finite_number"),
        ("job_status", "transport.max_depth"),
        ("deployment_status", "parse.syntax"),
        ("deployment_status", "transport.max_bytes"),
    ]


def test_the_stable_demo_server_answers_each_tool_with_its_agent_view(demo_root: Path, tmp_path: Path) -> None:
    options = ("--contracts", str(demo_root / "contracts"))
    with guard(*options, server=_sandbox("stable"), cwd=tmp_path) as peer:
        peer.initialize()
        review = peer.call("review_status", {"change_id": "CR-1042"}, timeout=30)
        deployment = peer.call("deployment_status", {"environment": "staging"}, timeout=30)
        peer.close()
    assert _structured(review) == {"change_id": "CR-1042", "decision": "approved", "reviewed_by": "alice"}
    assert _structured(deployment) == {"environment": "staging", "revision": "a83f19c", "state": "healthy"}


def test_an_argument_a_meta_template_cannot_use_is_refused_before_sending(make_contract: Any, tmp_path: Path) -> None:
    from tests.helpers.guard import WEATHER_SCHEMA

    yaml_text = """\
        tool: get_weather
        version: 1
        request: {schema: {type: object}, example: {city: Oslo}}
        envelope: null
        agent_view: {city: /city}
        upstreams:
          server:
            mcp: {command: python, args: [x.py], meta: {city: "{city}"}}
        """
    make_contract("get_weather", yaml_text, {1: WEATHER_SCHEMA})
    with guard(server=TEST_SERVER, cwd=tmp_path) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": {"name": "Oslo"}})
        later = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert answer["result"]["isError"] is True
    assert "was not sent: " in answer["result"]["content"][0]["text"]
    assert "needs a string or number" in answer["result"]["content"][0]["text"]
    assert _structured(later) == {"city": "Oslo"}  # the relay carries on


def test_a_guarded_call_the_client_cancels_ends_there_and_its_late_answer_is_dropped(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--slow-weather=1", f"--log={log}"], cwd=project) as peer:
        peer.initialize()
        peer.send({"jsonrpc": "2.0", "id": 21, "method": "tools/call",
                   "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}})
        peer.notify("notifications/cancelled", {"requestId": 21, "reason": "the user gave up"})
        assert peer.request("ping", ident=22, timeout=30) == {"jsonrpc": "2.0", "id": 22, "result": {}}
        peer.close()
    assert 21 not in [m.get("id") for m in peer.seen]
    cancelled = [m for m in logged(log) if m.get("method") == "notifications/cancelled"]
    assert [c["params"] for c in cancelled] == [{"requestId": 21, "reason": "the user gave up"}]
    (record,) = audit_lines(audit)
    assert record["guard"]["event"] == "cancelled" and record["message"] == "cancelled by the client"


def test_an_input_required_answer_is_refused_unless_the_contract_allows_it(project: Path, tmp_path: Path) -> None:
    modern = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--input-required"], cwd=project) as peer:
        asked = peer.call("get_weather", {"city": "Oslo"}, meta=modern)
        peer.close()
    result = asked["result"]
    assert result["isError"] is True and result["resultType"] == "complete"
    assert result["structuredContent"]["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert "Which Oslo" not in peer.raw.decode() and "s1" not in peer.raw.decode()
    (record,) = audit_lines(audit)
    assert record["code"] == "transport.input_required" and record["guard"]["event"] == "answered"


def test_an_allowed_input_request_reaches_the_client_as_the_protocol_defines_it_and_the_retry_is_guarded(
    make_contract: Any, tmp_path: Path
) -> None:
    from tests.helpers.guard import STATUS_SCHEMA, STATUS_YAML, WEATHER_SCHEMA, WEATHER_YAML

    text = WEATHER_YAML.format(timeout=10).replace("      timeout_s:", "      input_required: allowed\n      timeout_s:")
    make_contract("get_weather", text, {1: WEATHER_SCHEMA})
    make_contract("service_status", STATUS_YAML, {1: STATUS_SCHEMA})
    modern = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    audit, log = tmp_path / "audit.jsonl", tmp_path / "server.log"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--input-required", f"--log={log}"], cwd=tmp_path) as peer:
        asked = peer.call("get_weather", {"city": "Oslo"}, meta=modern)
        state = asked["result"]["requestState"]
        retried = peer.call("get_weather", {"city": "Oslo"}, meta=modern,
                            params={"requestState": state, "inputResponses": {"which": {"action": "accept"}}})
        forged = peer.call("get_weather", {"city": "Oslo"}, meta=modern, params={"requestState": "s1"})
        # The same request, in a session that negotiated a version without input_required.
        peer.initialize()
        old = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert asked["result"] == {"resultType": "input_required", "requestState": state, "inputRequests": {
        "which": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Which Oslo?", "requestedSchema": {"type": "object", "properties": {}}}}}}
    assert state.startswith("guard-state.")
    assert retried["result"] == {"content": [{"type": "text", "text": json.dumps(VIEW, separators=(",", ":"))}],
                                 "structuredContent": VIEW, "isError": False, "resultType": "complete"}
    sent = [m["params"] for m in logged(log) if m.get("method") == "tools/call"]
    assert sent[1]["requestState"] == "s1"  # the server got its own state back
    assert forged["error"] == {"code": -32602, "message": "Invalid params: unknown requestState"}
    assert len(sent) == 3  # the forged retry was never sent
    assert old["result"]["structuredContent"]["error"]["code"] == "INVALID_RESPONSE"
    events = [(r["guard"]["event"], r["outcome"]) for r in audit_lines(audit)]
    assert events == [("input_required", "input_required"), ("answered", "success"), ("answered", "failure")]


def test_a_protocol_error_from_mcps_reserved_range_reaches_the_client_rebuilt(project: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with guard("--audit", str(audit), server=[*TEST_SERVER, "--version-error"], cwd=project) as peer:
        answer = peer.call("service_status")
        peer.close()
    # The code and the versions the guard knows; the server's message and unknown values are gone.
    assert answer["error"] == {"code": -32022, "message": "the server answered with error -32022",
                               "data": {"supported": ["2025-11-25"]}}
    (record,) = audit_lines(audit)
    assert record["guard"]["event"] == "protocol_error"


def test_a_terminate_signal_stops_the_server_and_the_guard(project: Path) -> None:
    import signal

    with guard(server=TEST_SERVER, cwd=project) as peer:
        peer.initialize()
        peer.process.send_signal(signal.SIGTERM)
        assert peer.next_message() is None
        assert peer.process.wait(20) == 0
    assert "SIGTERM: stopping the server" in peer.stderr


def test_the_guard_starts_without_the_engine_reporters_or_drift_runner() -> None:
    # What a guard needs is the boundary and the relay; an MCP client starts it often.
    script = (
        "import sys\n"
        "from harness.cli import main\n"
        "code = main(['guard', '--demo', '--', 'true'])\n"
        "heavy = ('deepdiff', 'harness.engine', 'harness.drift.runner', 'harness.drift.diff', 'harness.reporting',\n"
        "         'harness.mutations', 'harness.cli.check')\n"
        "print(code, sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.stdout.strip() == "0 []", done.stdout + done.stderr


def test_the_relay_reads_and_writes_the_servers_pipes_through_asyncios_own_streams() -> None:
    # The hot path skips anyio's stream wrapper (a cancellation check and a loop iteration per
    # write); it finds the asyncio streams inside anyio's process streams. If a new anyio hid
    # them, the relay would still work through the wrapper, only slower: this says so.
    import anyio

    from harness.drift.process import stop
    from harness.guard.stdio import ProcessServer, start_server

    async def main() -> tuple[bool, bool]:
        process = await start_server([sys.executable, "-c", "import sys; sys.stdin.read()"])
        try:
            server = ProcessServer(process, cap=1 << 20)
            return server._writer is not None, server._reader is not None
        finally:
            await stop(process)

    assert anyio.run(main, backend="asyncio") == (True, True)


def test_a_variable_the_contracts_server_needs_is_checked_before_the_guard_starts_it(
    make_contract: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`drift` and `import` stop on an `env:` variable the environment lacks; so does the guard
    when it starts the server itself. A remote server (--url) was started by someone else."""
    from harness.cli import main
    from harness.contract import load_contract
    from harness.guard.policy import Guard
    from tests.helpers.guard import STATUS_SCHEMA, STATUS_YAML

    recorded = STATUS_YAML + ("upstreams:\n  station:\n    mcp:\n      command: python\n      args: [server.py]\n"
                              "      env: {STATION_TOKEN: '${GUARD_TEST_STATION_TOKEN}'}\n    requests: [{}]\n")
    directory = make_contract("service_status", recorded, {1: STATUS_SCHEMA})
    monkeypatch.delenv("GUARD_TEST_STATION_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["guard", "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("contract-harness: error: upstream.env_missing: the server's environment variable "
                          "GUARD_TEST_STATION_TOKEN is not set"), err
    assert len(err.strip().splitlines()) == 1
    contract = load_contract(directory)
    assert "service_status" in Guard.from_contracts([contract], environ={}, starts_server=False).tools
    given = Guard.from_contracts([contract], environ={"GUARD_TEST_STATION_TOKEN": "t"}, starts_server=True)
    assert "service_status" in given.tools
