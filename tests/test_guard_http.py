"""``contract-harness guard --listen HOST:PORT``: the guard as a Streamable HTTP endpoint, run as
a real subprocess on loopback, spoken to by the ``mcp`` SDK's ``streamable_http_client`` and,
for what no SDK sends, by plain HTTP requests."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers.guard import CONTRACT_HARNESS, TEST_SERVER, audit_lines, weather_project
from tests.helpers.paths import REPO

SCRIPTED = [sys.executable, str(REPO / "tests" / "servers" / "scripted_mcp.py")]
VIEW = {"city": "Oslo", "temperature_c": 21.5, "conditions": "clear"}
CANARY = "CANARY-7f3a"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
def project(make_contract: Any) -> Path:
    return weather_project(make_contract, timeout=3)


class Listening:
    def __init__(self, process: subprocess.Popen[bytes], url: str, stderr: bytearray) -> None:
        self.process, self.url, self._stderr = process, url, stderr

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")


@contextmanager
def listening(project: Path, *options: str, server: list[str] = TEST_SERVER) -> Iterator[Listening]:
    process = subprocess.Popen(
        [CONTRACT_HARNESS, "guard", "--listen", "127.0.0.1:0", "--audit", str(project / "audit.jsonl"), *options,
         *(["--", *server] if server else [])], cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = bytearray()
    found: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            stderr.extend(line)
            match = re.search(rb"listening on (http://\S+)", line)
            if match:
                found.append(match.group(1).decode())
                ready.set()
        ready.set()

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    assert ready.wait(30) and found, stderr.decode()
    try:
        yield Listening(process, found[0], stderr)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        thread.join(5)
        assert process.stderr is not None
        process.stderr.close()


def sdk_calls(url: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> tuple[Any, list[Any]]:
        with anyio.fail_after(30):
            async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
                init = await session.initialize()
                return init, [await session.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def _events(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: "):]) for line in body.splitlines() if line.startswith("data: ")]


def test_the_sdks_http_client_gets_the_agent_view_through_the_listening_guard(project: Path) -> None:
    with listening(project, server=[*TEST_SERVER, "--canary"]) as guard:
        init, (weather, echo) = sdk_calls(guard.url, [("get_weather", {"city": "Oslo"}), ("echo", {"text": "x"})])
    assert init.server_info.name == "contract-harness-guard"
    assert weather.structured_content == VIEW and not weather.is_error
    assert CANARY not in json.dumps(weather.model_dump(mode="json"))
    assert echo.structured_content["error"]["code"] == "NOT_FOUND"
    assert [r["guard"]["event"] for r in audit_lines(project / "audit.jsonl")] == ["answered", "denied"]


def test_a_hostile_server_behind_the_listening_guard_reaches_the_client_only_through_the_boundary(
    project: Path, tmp_path: Path
) -> None:
    hostile = {"resultType": "input_required", "content": [{"type": "text", "text": CANARY}],
               "structuredContent": {"city": CANARY}}
    line = json.dumps({"jsonrpc": "2.0", "id": "{id}", "result": hostile}).replace('"{id}"', "{id}")
    progress = ('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"' + CANARY
                + '"}}')
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"tools/call:get_weather": [progress, line]}))
    with listening(project, server=[*SCRIPTED, str(script)]) as guard:
        _, (result,) = sdk_calls(guard.url, [("get_weather", {"city": "Oslo"})])
    assert result.is_error and result.structured_content["error"]["code"] == "INVALID_RESPONSE"
    assert CANARY not in json.dumps(result.model_dump(mode="json"))
    (record,) = audit_lines(project / "audit.jsonl")
    assert record["code"] == "transport.input_required"


def test_each_session_gets_its_own_server_and_the_guards_own_session_id(project: Path, tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    with listening(project, server=[*TEST_SERVER, f"--calls={calls}"]) as guard, httpx.Client() as http:
        first = http.post(guard.url, headers=ACCEPT, json=INIT)
        second = http.post(guard.url, headers=ACCEPT, json=INIT)
        sessions = [first.headers["mcp-session-id"], second.headers["mcp-session-id"]]
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}}
        answered = http.post(guard.url, headers={**ACCEPT, "mcp-session-id": sessions[0]}, json=call)
        ended = http.delete(guard.url, headers={"mcp-session-id": sessions[0]})
        after = http.post(guard.url, headers={**ACCEPT, "mcp-session-id": sessions[0]}, json=call)
    assert sessions[0] != sessions[1] and all(s.startswith("guard-session.") for s in sessions)
    assert first.headers["content-type"] == "text/event-stream"
    assert _events(first.text)[0]["result"]["serverInfo"]["name"] == "contract-harness-guard"
    assert _events(answered.text)[-1]["result"]["structuredContent"] == VIEW
    assert ended.status_code == 200 and after.status_code == 404
    assert calls.read_text().split() == ["get_weather"]


def test_what_is_not_one_message_from_a_local_client_is_refused_at_the_http_level(project: Path) -> None:
    with listening(project, "--max-message-bytes", "4096") as guard, httpx.Client() as http:
        batch = http.post(guard.url, headers=ACCEPT, content=b'[{"jsonrpc":"2.0","method":"tools/call"}]')
        garbage = http.post(guard.url, headers=ACCEPT, content=b"\xff{")
        foreign = http.post(guard.url, headers={**ACCEPT, "origin": "https://evil.example"}, json=INIT)
        unknown = http.post(guard.url, headers={**ACCEPT, "mcp-session-id": "guard-session.nope"}, json=INIT)
        big = http.post(guard.url, headers=ACCEPT, content=b'{"x":"' + b"a" * 5000 + b'"}')
        get = http.get(guard.url)
        only_json = http.post(guard.url, headers={"accept": "application/json"}, json=INIT)
    assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600
    assert garbage.status_code == 400 and garbage.json()["error"]["code"] == -32700
    assert foreign.status_code == 403 and unknown.status_code == 404
    assert big.status_code == 413 and get.status_code == 405
    assert only_json.headers["content-type"] == "application/json"
    assert only_json.json()["result"]["protocolVersion"] == "2025-11-25"


def test_a_terminate_signal_stops_every_sessions_server(project: Path, tmp_path: Path) -> None:
    marker = f"hx-listen-{time.monotonic_ns()}"
    server = [sys.executable, "-c", f"import sys, runpy; sys.argv = ['{marker}']; "
              f"runpy.run_path({str(REPO / 'tests' / 'servers' / 'mcp_stdio.py')!r}, run_name='__main__')"]
    servers = ["pgrep", "-f", f"^{re.escape(sys.executable)} -c .*{marker}"]  # not the guard naming them
    with listening(project, server=server) as guard, httpx.Client() as http:
        for _ in range(2):
            http.post(guard.url, headers=ACCEPT, json=INIT)
        running = subprocess.run(servers, capture_output=True, text=True).stdout.split()
        guard.process.send_signal(signal.SIGTERM)
        status = guard.process.wait(20)
    assert len(running) == 2
    assert status == 0 and "SIGTERM: stopping" in guard.stderr
    deadline = time.monotonic() + 10
    while subprocess.run(servers, capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "a session's server outlived the guard"
        time.sleep(0.1)


def test_a_bad_listen_address_is_one_line_and_exit_2(project: Path) -> None:
    done = subprocess.run([CONTRACT_HARNESS, "guard", "--listen", "nowhere", "--", *TEST_SERVER], cwd=project,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == ("contract-harness: error: guard.listen: --listen 'nowhere': expected HOST:PORT "
                                   "(e.g. 127.0.0.1:8765)")
