"""Drift's ``mcp`` upstreams over Streamable HTTP, against real servers on loopback: the ``mcp``
SDK's own server, a stdlib server whose every byte is chosen, and the npm reference server.

The answers are judged as they came off the wire (a duplicate member inside an event's data is
seen), the session is the protocol's (its id and version on every request, deleted at the end),
tools that may change data are never called, the state behind the server is unchanged, and a
bearer token read from the environment reaches the server and no output.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from harness.cli import main
from harness.drift.mcp_http import McpHttpSession, SseReader, StreamableHttpClient, encode
from tests.helpers.remote import RAW_SERVER, SDK_SERVER, everything, serving
from tests.servers.mcp_stdio import WEATHER

pytestmark = pytest.mark.drift

TOKEN = "notes-T0ken/secret+42"
NOTE_SCHEMA = {"type": "object", "required": ["title", "body"], "additionalProperties": False,
               "properties": {"title": {"type": "string"}, "body": {"type": "string"}}}
SCHEMAS: dict[str, dict[str, Any]] = {
    "read_notes": {"type": "object", "required": ["owner", "notes"], "additionalProperties": False,
                   "properties": {"owner": {"type": "string"}, "notes": {"type": "array", "items": NOTE_SCHEMA}}},
    "count_notes": {"type": "object", "required": ["owner", "count"], "additionalProperties": False,
                    "properties": {"owner": {"type": "string"}, "count": {"type": "integer"}}},
    "add_note": NOTE_SCHEMA,
    "get_weather": dict(WEATHER["outputSchema"]),  # type: ignore[arg-type]
}


def write_contract(root: Path, tool: str, upstream: Mapping[str, Any], *, max_bytes: int = 8192) -> None:
    folder = root / "contracts" / tool
    (folder / "schemas").mkdir(parents=True)
    (folder / "schemas" / "v1.json").write_text(json.dumps(SCHEMAS[tool]))
    members = SCHEMAS[tool]["properties"]
    contract = {"tool": tool, "version": 1, "envelope": None, "limits": {"max_bytes": max_bytes},
                "agent_view": {name: f"/{name}" for name in members},
                "upstreams": {"remote": dict(upstream)}}
    (folder / "contract.yaml").write_text(yaml.safe_dump(contract, sort_keys=False))


def drift(root: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, dict[str, dict[str, Any]]]:
    monkeypatch.chdir(root)
    code = main(["drift", "--json", "drift.json", "--cases-dir", str(root / "cases"), *argv])
    report = json.loads((root / "drift.json").read_text())
    return code, {c["id"]: c for c in report["drift"]["checks"]}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    file = tmp_path / "notes.json"
    file.write_text(json.dumps([{"title": "first", "body": "a note"}]))
    return file


@pytest.fixture
def sdk_url(notes: Path) -> Iterator[str]:
    with serving(SDK_SERVER, {"NOTES_FILE": str(notes)}) as url:
        yield url


def test_drift_over_http_calls_only_read_only_tools_and_leaves_the_servers_notes_unchanged(
    tmp_path: Path, notes: Path, sdk_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = digest(notes)
    monkeypatch.setenv("NOTES_MCP_URL", sdk_url)
    upstream = {"mcp": {"url": "${NOTES_MCP_URL}", "timeout_s": 10}}
    write_contract(tmp_path, "read_notes", {**upstream, "requests": [{"owner": "ada"}]})
    write_contract(tmp_path, "count_notes", {**upstream, "requests": [{"owner": "ada"}]})
    write_contract(tmp_path, "add_note", {**upstream, "requests": [{"title": "x", "body": "overwritten"}]})
    code, checks = drift(tmp_path, monkeypatch)
    capsys.readouterr()
    assert digest(notes) == before
    assert code == 0
    # read_notes answers in an event stream after a log notification: the answer is still found.
    assert checks["read_notes::drift::remote[ada]"]["status"] == "held"
    assert checks["count_notes::drift::remote[ada]"]["status"] == "held"
    (add,) = [c for cid, c in checks.items() if cid.startswith("add_note::") and "outputSchema" not in cid]
    assert (add["status"], add["reason"]) == ("not_called", "side_effects")


def test_a_duplicate_member_in_an_events_data_is_rejected_as_the_bytes_came(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for flags in (["--dup"], ["--dup", "--json"]):
        with serving([*RAW_SERVER, *flags]) as url:
            root = tmp_path / "-".join(flags)
            monkeypatch.setenv("RAW_MCP_URL", url)
            write_contract(root, "get_weather", {"mcp": {"url": "${RAW_MCP_URL}"}, "requests": [{"city": "Oslo"}]})
            code, checks = drift(root, monkeypatch)
        capsys.readouterr()
        check = checks["get_weather::drift::remote[Oslo]"]
        assert code == 1, flags
        assert (check["status"], check["verdict"]["code"]) == ("rejected", "parse.duplicate_member"), flags


def test_an_answer_split_over_reads_lines_and_line_ends_is_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving([*RAW_SERVER, "--split"]) as url:
        monkeypatch.setenv("RAW_MCP_URL", url)
        write_contract(tmp_path, "get_weather", {"mcp": {"url": "${RAW_MCP_URL}"}, "requests": [{"city": "Oslo"}]})
        code, checks = drift(tmp_path, monkeypatch)
    capsys.readouterr()
    assert checks["get_weather::drift::remote[Oslo]"]["status"] == "held"
    assert code == 0


def test_an_answer_past_the_message_cap_is_refused_and_never_buffered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving([*RAW_SERVER, "--big=200000"]) as url:
        monkeypatch.setenv("RAW_MCP_URL", url)
        upstream = {"mcp": {"url": "${RAW_MCP_URL}", "max_message_bytes": 65536}, "requests": [{"city": "Oslo"}]}
        write_contract(tmp_path, "get_weather", upstream)
        code, checks = drift(tmp_path, monkeypatch)
    capsys.readouterr()
    check = checks["get_weather::drift::remote[Oslo]"]
    assert (check["status"], check["verdict"]["code"]) == ("rejected", "transport.max_bytes")
    assert code == 1


def test_every_request_after_initialize_carries_the_session_and_version_and_the_session_is_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "requests.jsonl"
    with serving([*RAW_SERVER, f"--log={log}"]) as url:
        monkeypatch.setenv("RAW_MCP_URL", url)
        write_contract(tmp_path, "get_weather", {"mcp": {"url": "${RAW_MCP_URL}"}, "requests": [{"city": "Oslo"}]})
        drift(tmp_path, monkeypatch)
    capsys.readouterr()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    first, *rest = seen
    assert (first["method"], first["session"], first["version"]) == ("POST", None, None)
    assert "text/event-stream" in first["accept"] and "application/json" in first["accept"]
    sessions = {entry["session"] for entry in rest}
    assert len(sessions) == 1 and None not in sessions
    assert {entry["version"] for entry in rest} == {"2025-11-25"}
    assert [entry["method"] for entry in rest] == ["POST", "POST", "POST", "DELETE"]  # initialized, tools/list, tools/call


def test_a_bearer_token_from_the_environment_reaches_the_server_and_no_output(
    tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving([*SDK_SERVER, f"--token={TOKEN}"], {"NOTES_FILE": str(notes)}) as url:
        monkeypatch.setenv("NOTES_MCP_URL", url)
        upstream = {"mcp": {"url": "${NOTES_MCP_URL}", "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"}},
                    "requests": [{"owner": "ada"}]}
        write_contract(tmp_path, "count_notes", upstream)
        monkeypatch.setenv("NOTES_TOKEN", TOKEN)
        code, checks = drift(tmp_path, monkeypatch, "--markdown", "drift.md", "--junit", "drift.xml")
        out = capsys.readouterr()
        written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.name != "contract.yaml"}
        monkeypatch.setenv("NOTES_TOKEN", "wrong")
        refused_code, refused = drift(tmp_path, monkeypatch)
        capsys.readouterr()
    assert {c["status"] for c in checks.values()} == {"held"} and code == 0
    assert {tmp_path / "drift.json", tmp_path / "drift.md", tmp_path / "drift.xml"} <= set(written)
    assert [p for p, data in written.items() if TOKEN.encode() in data] == []
    assert TOKEN not in out.out + out.err
    call = refused["count_notes::drift::remote[outputSchema]"]
    assert (call["status"], call["reason"]) == ("failed", "http_status") and "HTTP 401" in json.dumps(call)
    assert refused_code == 1


def test_a_credential_header_written_in_the_contract_is_refused_before_anything_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_contract(tmp_path, "count_notes", {"mcp": {"url": "http://127.0.0.1:9/mcp",
                                                      "headers": {"Authorization": "Bearer abc"}},
                                             "requests": [{"owner": "ada"}]})
    monkeypatch.chdir(tmp_path)
    assert main(["drift"]) == 2
    err = capsys.readouterr().err
    assert "upstream.literal_secret" in err and "Authorization" in err and "abc" not in err


def test_server_everything_over_streamable_http_holds_its_structured_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with everything() as url:
        monkeypatch.setenv("EVERYTHING_URL", url)
        SCHEMAS["get-structured-content"] = {
            "type": "object", "required": ["temperature", "conditions", "humidity"],
            "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"},
                           "humidity": {"type": "number"}},
        }
        write_contract(tmp_path, "get-structured-content",
                       {"mcp": {"url": "${EVERYTHING_URL}"}, "requests": [{"location": "Chicago"}]})
        code, checks = drift(tmp_path, monkeypatch)
    capsys.readouterr()
    assert checks["get-structured-content::drift::remote[Chicago]"]["status"] == "held"
    assert code == 0


# --------------------------------------------------------------------------- the transport itself


def test_the_get_stream_ends_at_once_on_a_server_without_one_and_the_session_ends_with_close() -> None:
    async def session(url: str) -> tuple[list[bytes], str | None, int]:
        client = StreamableHttpClient(url, max_message_bytes=1 << 20)
        async with client:
            await McpHttpSession(client).initialize()
            heard = [raw async for raw in client.listen()]
            session_id = client.session_id
        async with StreamableHttpClient(url, max_message_bytes=1 << 20) as again:
            again.session_id = session_id
            again.protocol_version = "2025-11-25"
            try:
                [raw async for raw in again.send(encode({"jsonrpc": "2.0", "id": 1, "method": "ping"}))]
            except Exception as exc:  # the ended session: HTTP 404
                status = getattr(exc, "status", 0)
            again.session_id = None  # nothing to delete
        return heard, session_id, status

    with serving(RAW_SERVER) as url:
        heard, session_id, status = anyio.run(session, url)
    assert heard == [] and session_id is not None
    assert status == 404


def test_the_event_reader_keeps_each_events_data_exactly_and_caps_it() -> None:
    reader = SseReader(cap=16)
    stream = b': hi\r\nevent: message\r\ndata: {"a":1}\r\n\r\nid: 7\ndata:\n\ndata: x\rdata: y\r\r'
    found = [m for i in range(len(stream)) for m in reader.feed(stream[i : i + 1])]
    assert found == [b'{"a":1}', b"x\ny"]
    assert reader.last_event_id == b"7"
    big = SseReader(cap=16)
    assert big.feed(b"data: " + b"z" * 100 + b"\n" + b"data: more\n\n") == [b"z" * 17]
    assert big.feed(b"event: other\ndata: skipped\n\ndata: next\n\n") == [b"next"]


def test_the_get_stream_brings_the_messages_server_everything_sends_outside_any_request() -> None:

    async def session(url: str) -> list[bytes]:
        heard: list[bytes] = []
        async with StreamableHttpClient(url, max_message_bytes=1 << 20) as client:
            rpc = McpHttpSession(client)
            await rpc.initialize()

            async def listen() -> None:
                async for raw in client.listen():
                    heard.append(raw)
                    return

            async with anyio.create_task_group() as group:
                group.start_soon(listen)
                await anyio.sleep(0.5)  # the stream is open before the logging starts
                await rpc.request("tools/call", {"name": "toggle-simulated-logging", "arguments": {}})
                with anyio.move_on_after(20):
                    while not heard:
                        await anyio.sleep(0.05)
                group.cancel_scope.cancel()
        return heard

    with everything() as url:
        heard = anyio.run(session, url)
    (message,) = heard
    assert json.loads(message)["method"] == "notifications/message"
