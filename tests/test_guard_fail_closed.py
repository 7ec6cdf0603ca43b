"""The guard fails closed: no server text reaches the client but through the boundary, and no
hidden tool reaches the server. Each test is one way a hostile peer tried to get around it: a
scripted server that writes raw JSON-RPC lines (tests/servers/scripted_mcp.py, lenient in what
it runs) behind the real ``contract-harness guard``, spoken to by the ``mcp`` SDK's
``ClientSession`` or, for what no SDK would send, line by line."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers.guard import CONTRACT_HARNESS, StdioPeer, audit_lines, weather_project
from tests.helpers.paths import REPO

SCRIPTED = [sys.executable, str(REPO / "tests" / "servers" / "scripted_mcp.py")]
CANARY = "CANARY-91c2"
WEATHER = {"city": "Oslo", "temperature_c": 21.5, "conditions": "clear"}
VIEW = WEATHER


@pytest.fixture
def project(make_contract: Any) -> Path:
    return weather_project(make_contract, timeout=2)


def _script(tmp_path: Path, **lines: list[str]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({k.replace("__", "/").replace("_colon_", ":"): v for k, v in lines.items()}))
    return path


def _result(body: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": "{id}", "result": body}).replace('"{id}"', "{id}")


def _guard_argv(project: Path, script: Path, log: Path, *options: str) -> list[str]:
    return [CONTRACT_HARNESS, "guard", "--contracts", str(project / "contracts"), "--timeout", "5",
            "--audit", str(project / "audit.jsonl"), *options, "--", *SCRIPTED, str(script), f"--log={log}"]


@asynccontextmanager
async def sdk_session(argv: list[str], stderr: Path, **options: Any) -> AsyncIterator[Any]:
    """The SDK's own client, over stdio, with the guard as its server."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:])
    with stderr.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write, **options) as session:
            yield session


def run_sdk(project: Path, script: Path, calls: list[tuple[str, dict[str, Any]]], *options: str,
            session_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Initialize, list, call each tool; every byte the server received and the client saw."""
    log, stderr = project / "server.log", project / "guard.stderr"
    seen: dict[str, Any] = {"results": []}

    async def scenario() -> None:
        with anyio.fail_after(40):
            async with sdk_session(_guard_argv(project, script, log, *options), stderr,
                                   **(session_options or {})) as session:
                seen["init"] = await session.initialize()
                seen["tools"] = await session.list_tools()
                for name, args in calls:
                    seen["results"].append(await session.call_tool(name, args))

    anyio.run(scenario)
    seen["server"] = log.read_bytes() if log.exists() else b""
    seen["stderr"] = stderr.read_text()
    seen["client"] = json.dumps([seen["init"].model_dump(mode="json"), seen["tools"].model_dump(mode="json"),
                                 *(r.model_dump(mode="json") for r in seen["results"])])
    return seen


# --------------------------------------------------------------------------- server -> client
def test_an_input_required_result_carries_no_server_text_and_is_audited(project: Path, tmp_path: Path) -> None:
    # The worst path: one member turned any result into an unguarded one.
    hostile = {"resultType": "input_required", "content": [{"type": "text", "text": CANARY}],
               "structuredContent": {"city": CANARY}, "requestState": CANARY,
               "inputRequests": {"q": {"method": "elicitation/create",
                                       "params": {"message": CANARY, "requestedSchema": {"type": "object"}}}}}
    script = _script(tmp_path, **{"tools/call:get_weather": [_result(hostile)]})
    seen = run_sdk(project, script, [("get_weather", {"city": "Oslo"})])
    (result,) = seen["results"]
    assert result.is_error and result.structured_content["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert CANARY not in seen["client"]
    (record,) = audit_lines(project / "audit.jsonl")
    assert record["code"] == "transport.input_required" and record["guard"]["event"] == "answered"


def test_protocol_meta_on_an_accepted_result_is_not_relayed(project: Path, tmp_path: Path) -> None:
    answer = {"content": [{"type": "text", "text": json.dumps(WEATHER)}], "structuredContent": WEATHER,
              "_meta": {"io.modelcontextprotocol/serverInfo": {"name": CANARY, "version": CANARY},
                        "io.modelcontextprotocol/related-task": {"taskId": CANARY}}}
    script = _script(tmp_path, **{"tools/call:get_weather": [_result(answer)]})
    seen = run_sdk(project, script, [("get_weather", {"city": "Oslo"})])
    (result,) = seen["results"]
    assert not result.is_error and result.structured_content == VIEW
    assert result.meta is None and CANARY not in seen["client"]


def test_progress_keeps_only_the_token_and_its_numbers(project: Path, tmp_path: Path) -> None:
    progress = ('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1,'
                '"total":"' + CANARY + '","message":"' + CANARY + '","extra":"' + CANARY + '",'
                '"_meta":{"x":"' + CANARY + '"}}}')
    answer = _result({"content": [], "structuredContent": WEATHER})
    script = _script(tmp_path, **{"tools/call:get_weather": [progress % '"p-1"', progress % '"not-ours"', answer]})
    received: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        received.append((value, total, message))

    log, stderr = tmp_path / "server.log", tmp_path / "stderr"

    async def scenario() -> Any:
        async with sdk_session(_guard_argv(project, script, log), stderr) as session:
            await session.initialize()
            return await session.call_tool("get_weather", {"city": "Oslo"}, progress_callback=on_progress)

    # The SDK picks its own progress token: the script's "p-1" is not it, so both are dropped;
    # a line-level test below sends a token of the client's own.
    result = anyio.run(scenario)
    assert result.structured_content == VIEW and received == []

    with StdioPeer(_guard_argv(project, script, log), cwd=project) as peer:
        peer.initialize()
        peer.call("get_weather", {"city": "Oslo"}, meta={"progressToken": "p-1"})
        peer.close()
    notes = [m for m in peer.seen if m.get("method") == "notifications/progress"]
    assert [n["params"] for n in notes] == [{"progressToken": "p-1", "progress": 1}]
    assert CANARY not in peer.raw.decode()


def test_a_negotiation_error_on_a_guarded_call_reaches_the_client_without_the_servers_text(
    project: Path, tmp_path: Path
) -> None:
    error = json.dumps({"jsonrpc": "2.0", "id": "{id}", "error": {
        "code": -32042, "message": CANARY, "data": {"elicitations": [{"message": CANARY}], "supported": [CANARY]}}})
    script = _script(tmp_path, **{"tools/call:get_weather": [error.replace('"{id}"', "{id}")]})
    with StdioPeer(_guard_argv(project, script, tmp_path / "log"), cwd=project) as peer:
        peer.initialize()
        answer = peer.call("get_weather", {"city": "Oslo"})
        peer.close()
    assert answer["error"] == {"code": -32042, "message": "the server answered with error -32042",
                               "data": {"supported": []}}
    assert CANARY not in peer.raw.decode()
    (record,) = audit_lines(project / "audit.jsonl")
    assert record["guard"]["event"] == "protocol_error"


@pytest.mark.parametrize(
    "lines",
    [
        # A line that is both a request and an answer, under the call's id.
        ['{"jsonrpc":"2.0","id":{id},"method":"sampling/createMessage","result":{"content":[{"type":"text","text":"'
         + CANARY + '"}],"structuredContent":{"city":"' + CANARY + '"}}}'],
        # A notification carrying an id and a result.
        ['{"jsonrpc":"2.0","method":"notifications/message","id":{id},"result":{"structuredContent":"' + CANARY
         + '"}}'],
        # An answer with id null.
        ['{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"' + CANARY + '"}}'],
        ['{"jsonrpc":"2.0","id":null,"result":{"content":[{"type":"text","text":"' + CANARY + '"}]}}'],
        # An id of another type, a float, a boolean.
        ['{"jsonrpc":"2.0","id":"{id}","result":{"structuredContent":"' + CANARY + '"}}'],
        ['{"jsonrpc":"2.0","id":true,"result":{"structuredContent":"' + CANARY + '"}}'],
        # A batch of answers, and an answer with a member no answer has.
        ['[{"jsonrpc":"2.0","id":{id},"result":{"structuredContent":"' + CANARY + '"}}]'],
        ['{"jsonrpc":"2.0","id":{id},"result":{"structuredContent":{}},"error":{"code":1,"message":"'
         + CANARY + '"}}'],
    ],
)
def test_a_server_line_that_is_not_exactly_one_kind_never_reaches_the_client(
    project: Path, tmp_path: Path, lines: list[str]
) -> None:
    script = _script(tmp_path, **{"tools/call:get_weather": lines})
    with StdioPeer([*_guard_argv(project, script, tmp_path / "log")[:4], "--timeout", "1",
                    *_guard_argv(project, script, tmp_path / "log")[6:]], cwd=project) as peer:
        peer.initialize()
        peer.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}})
        answer = peer.wait_for(lambda m: m.get("id") == 7)
        peer.close()
    assert answer["result"]["isError"] is True  # refused, or unanswered within the contract's timeout
    assert CANARY not in peer.raw.decode()
    assert len(audit_lines(project / "audit.jsonl")) == 1


def test_the_servers_instructions_name_descriptions_logs_and_requests_never_reach_the_client(
    project: Path, tmp_path: Path
) -> None:
    init = _result({"protocolVersion": "2025-11-25", "instructions": f"SYSTEM: {CANARY}",
                    "capabilities": {"tools": {"listChanged": True}, "logging": {}, "experimental": {CANARY: {}},
                                     "resources": {"subscribe": True}},
                    "serverInfo": {"name": CANARY, "version": CANARY, "title": CANARY}})
    listed = _result({"tools": [{"name": "get_weather", "title": CANARY, "description": f"Weather. {CANARY}",
                                 "inputSchema": {"type": "object", "description": CANARY},
                                 "annotations": {"title": CANARY, "readOnlyHint": True}, "_meta": {"x": CANARY},
                                 "icons": [{"src": CANARY}]}],
                      "nextCursor": CANARY, "_meta": {"y": CANARY}})
    log_note = ('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"' + CANARY
                + '"}}')
    sampling = ('{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"maxTokens":5,'
                '"messages":[{"role":"user","content":{"type":"text","text":"' + CANARY + '"}}]}}')
    answer = _result({"content": [{"type": "text", "text": CANARY}], "structuredContent": WEATHER})
    script = _script(tmp_path, initialize=[init, log_note, sampling], **{"tools/list": [listed],
                                                                         "tools/call:get_weather": [answer]})
    sampled: list[Any] = []

    async def sample(context: Any, params: Any) -> Any:
        sampled.append(params)
        raise AssertionError("the guard relayed a sampling request")

    seen = run_sdk(project, script, [("get_weather", {"city": "Oslo"})], session_options={"sampling_callback": sample})
    assert CANARY not in seen["client"] and not sampled
    assert seen["init"].server_info.name == "contract-harness-guard" and seen["init"].instructions is None
    assert seen["init"].capabilities.model_dump(exclude_none=True) == {"tools": {"list_changed": True}}
    (tool,) = seen["tools"].tools
    assert tool.description == "Current weather for a city." and tool.annotations.read_only_hint is True
    # The server got an error for its sampling request, never shown to the client.
    assert b'"id":"s-1","error":{"code":-32601' in seen["server"]
    assert 'refused the server\'s request "sampling/createMessage": not one the guard relays (pass it with --pass ' \
           "sampling)" in seen["stderr"]


# --------------------------------------------------------------------------- client -> server
HIDDEN = ["delete_item", "Delete_Item"]


@pytest.mark.parametrize(
    ("line", "answered"),
    [
        # A batch holding a call of the hidden tool.
        (b'[{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"delete_item","arguments":{}}}]', [41]),
        # A call without an id (a notification the lenient server runs).
        (b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"delete_item","arguments":{}}}', []),
        # A non-UTF-8 byte.
        (b'{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"delete_item\xff","arguments":{}}}', [43]),
        # Another spelling of the method.
        (b'{"jsonrpc":"2.0","id":44,"method":"Tools/Call","params":{"name":"delete_item","arguments":{}}}', [44]),
        (b'{"jsonrpc":"2.0","id":45,"method":"tools/call ","params":{"name":"delete_item","arguments":{}}}', [45]),
        # Two names: the guard would read one, a lenient server the other.
        (b'{"jsonrpc":"2.0","id":46,"method":"tools/call","params":{"name":"delete_item","name":"get_weather",'
         b'"arguments":{"city":"Oslo"}}}', [46]),
        # A lone surrogate in the name.
        (b'{"jsonrpc":"2.0","id":47,"method":"tools/call","params":{"name":"delete_item\\udc00","arguments":{}}}',
         [47]),
        # A request and an answer at once; a member no request has.
        (b'{"jsonrpc":"2.0","id":48,"method":"tools/call","result":{},"params":{"name":"delete_item"}}', [48]),
        (b'{"jsonrpc":"2.0","id":49,"method":"tools/call","params":{"name":"delete_item"},"x":1}', [49]),
        # A float id, a method that is not a string.
        (b'{"jsonrpc":"2.0","id":50.5,"method":"tools/call","params":{"name":"delete_item"}}', [None]),
        (b'{"jsonrpc":"2.0","id":51,"method":["tools/call"],"params":{"name":"delete_item"}}', [51]),
    ],
)
def test_a_hidden_tool_never_reaches_the_server_and_the_client_is_answered(
    project: Path, tmp_path: Path, line: bytes, answered: list[Any]
) -> None:
    log = tmp_path / "server.log"
    script = _script(tmp_path)
    with StdioPeer(_guard_argv(project, script, log), cwd=project) as peer:
        peer.send(line)
        peer.send({"jsonrpc": "2.0", "id": "barrier", "method": "ping"})
        peer.wait_for(lambda m: m.get("id") == "barrier")
        peer.close()
    received = log.read_bytes()
    assert b"delete_item" not in received and b"tools/call" not in received.lower()
    errors = [m for m in peer.seen if "error" in m]
    assert [m["id"] for m in errors] == answered
    assert all(m["error"]["code"] in (-32700, -32600, -32601) for m in errors)
    assert "internal error" not in peer.stderr


def test_every_client_request_is_answered_when_the_server_never_does(project: Path, tmp_path: Path) -> None:
    script = _script(tmp_path, **{"tools/list": [], "ping": [], "tools/call:get_weather": []})
    argv = _guard_argv(project, script, tmp_path / "log")
    argv[argv.index("--timeout") + 1] = "1"
    with StdioPeer(argv, cwd=project) as peer:
        listed = peer.request("tools/list", timeout=10)
        pinged = peer.request("ping", timeout=10)
        peer.close()
    assert listed["error"]["code"] == -32001 and pinged["error"]["code"] == -32001
    assert "did not answer tools/list" in peer.stderr


def test_a_request_reusing_an_id_in_flight_is_refused(project: Path, tmp_path: Path) -> None:
    script = _script(tmp_path, **{"tools/call:get_weather": []})  # never answered
    argv = _guard_argv(project, script, tmp_path / "log")
    argv[argv.index("--timeout") + 1] = "2"
    with StdioPeer(argv, cwd=project) as peer:
        peer.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                   "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}})
        refused = peer.request("ping", ident=5)
        peer.close()
    assert refused["error"]["code"] == -32600
