"""Drift never changes anything unless the contract says so.

A real HTTP server on loopback logs every request it receives, a command logs every run, and our
MCP server logs every tool it is asked to call: what was not allowed never arrives. Each
not-called check is reported as such in every report format, and never as a failure.
"""

from __future__ import annotations

import json
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from harness.cli import main
from harness.drift.frame import read_call_line
from harness.onboarding import import_mcp
from tests.drift.conftest import item_contract

pytestmark = pytest.mark.drift
SERVER = [sys.executable, str(Path(__file__).parent.parent / "servers" / "mcp_stdio.py")]


class _Logging(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        self.received.append((self.command, self.path))
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = json.dumps(
            {
                "tool": "item_status",
                "request_id": self.headers.get("X-Request-Id", ""),
                "outcome": "success",
                "data": {"item_id": "it-7", "status": "open"},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer


@pytest.fixture
def server() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    received: list[tuple[str, str]] = []
    handler = type("Handler", (_Logging,), {"received": received})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()
    httpd.server_close()


def run_drift(root: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[int, dict[str, str]]:
    """``contract-harness drift`` in ``root`` with every report; exit code and each report's text."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(root)
    out = root / "out"
    code = main(
        [
            "drift",
            "--json", str(out / "r.json"),
            "--junit", str(out / "r.xml"),
            "--markdown", str(out / "r.md"),
            "--html", str(out / "r.html"),
            "--cases-dir", str(out / "cases"),
        ]
    )
    return code, {p.suffix: p.read_text() for p in out.glob("r.*")}


def http_item(make_contract: Any, method: str, *, side_effects: bool = False, requests: Any = None) -> Path:
    entry: dict[str, Any] = {
        "http": {"method": method, "url": "${API}/items/{item_id}", "headers": {"X-Request-Id": "{request_id}"}},
        "requests": [{"item_id": "it-7"}] if requests is None else requests,
    }
    if side_effects:
        entry["side_effects"] = "allowed"
    return item_contract(make_contract, {"api": entry})


def test_a_post_is_never_sent_without_the_opt_in_and_every_report_says_not_called(
    make_contract: Any, server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url, received = server
    root = http_item(make_contract, "POST")
    code, reports = run_drift(root, monkeypatch, {"API": url})
    terminal = capsys.readouterr().out
    assert received == [] and code == 0  # nothing sent; not a failure
    check = json.loads(reports[".json"])["drift"]["checks"][0]
    assert (check["status"], check["reason"], check["side_effects"]) == ("not_called", "side_effects", None)
    assert "POST may change data" in check["notes"][0]
    assert json.loads(reports[".json"])["drift"]["counts"]["not_called"] == 1
    skipped = ET.fromstring(reports[".xml"]).find(".//testcase/skipped")
    assert skipped is not None and skipped.get("message", "").startswith("not called: POST may change data")
    assert "| not called | `POST ${API}/items/it-7` | not called: POST may change data" in reports[".md"]
    assert "not called: POST may change data" in reports[".html"]
    assert "not called item_status::drift::api[it-7]" in " ".join(terminal.split())
    assert "nothing called: 0 held, 0 drifted, 0 rejected, 0 failed, 1 not called of 1 checks" in terminal


def test_with_side_effects_allowed_the_post_is_sent_and_the_opt_in_is_shown(
    make_contract: Any, server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url, received = server
    root = http_item(make_contract, "POST", side_effects=True)
    _, reports = run_drift(root, monkeypatch, {"API": url})
    assert received == [("POST", "/items/it-7")]
    check = json.loads(reports[".json"])["drift"]["checks"][0]
    assert (check["status"], check["side_effects"]) == ("held", "allowed")
    assert "POST ${API}/items/it-7 [side_effects: allowed]" in capsys.readouterr().out
    assert "[side_effects: allowed]" in reports[".md"] and "[side_effects: allowed]" in reports[".html"]
    props = {p.get("name"): p.get("value") for p in ET.fromstring(reports[".xml"]).iter("property")}
    assert props["side_effects"] == "allowed"


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
def test_no_method_that_may_change_data_is_sent_without_the_opt_in(
    make_contract: Any, server: Any, drift: Any, method: str
) -> None:
    url, received = server
    root = http_item(make_contract, method)
    checks, summary, _ = drift(root, {"API": url})
    assert received == [] and summary.ok
    assert [(c.status, c.reason) for c in checks.values()] == [("not_called", "side_effects")]


def test_an_upstream_without_sample_requests_is_never_called_and_says_so(
    make_contract: Any, server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url, received = server
    root = http_item(make_contract, "GET", requests=[])  # the contract's request.example is not used
    code, reports = run_drift(root, monkeypatch, {"API": url})
    assert received == [] and code == 0
    check = json.loads(reports[".json"])["drift"]["checks"][0]
    assert (check["id"], check["status"], check["reason"]) == ("item_status::drift::api[no requests]", "not_called", "no_requests")
    for text in (reports[".md"], reports[".html"], capsys.readouterr().out):
        assert "not called: no sample requests" in text
    skipped = ET.fromstring(reports[".xml"]).find(".//testcase/skipped")
    assert skipped is not None and "no sample requests" in skipped.get("message", "")


def test_a_command_upstream_without_requests_is_never_run(make_contract: Any, tmp_path: Path, drift: Any) -> None:
    marker = tmp_path / "ran"
    command = {"argv": [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"]}
    root = item_contract(make_contract, {"cli": {"command": command}})
    checks, _, _ = drift(root, {})
    assert not marker.exists()
    assert [(c.status, c.reason) for c in checks.values()] == [("not_called", "no_requests")]


# --------------------------------------------------------------------------- MCP tools


def mcp_project(tmp_path: Path, *server_args: str, side_effects: bool = False) -> tuple[Path, Path]:
    """Contracts imported from our MCP server, every upstream given sample requests, the server
    started with ``--log`` (and ``server_args``); the project root and the call log."""
    log = tmp_path / "calls.log"
    import_mcp(tmp_path, command=SERVER)
    samples = {"get_weather": [{"city": "Oslo"}], "tickets.search": [{"query": "printer"}], "explode": [{}]}
    for contract in (tmp_path / "contracts").glob("*/contract.yaml"):
        data = yaml.safe_load(contract.read_text())
        (entry,) = data["upstreams"].values()
        entry["mcp"]["args"] = [*entry["mcp"]["args"], f"--calls={log}", *server_args]
        entry["requests"] = samples.get(data["tool"], [{}])
        if side_effects:
            entry["side_effects"] = "allowed"
        contract.write_text(yaml.safe_dump(data, sort_keys=False))
    return tmp_path, log


def test_an_mcp_tool_not_annotated_read_only_is_never_called(tmp_path: Path, drift: Any) -> None:
    root, log = mcp_project(tmp_path)
    checks, summary, _ = drift(root, {})
    assert sorted(log.read_text().split()) == ["get_weather", "service_status"]  # the readOnlyHint tools
    for cid in ("tickets.search::drift::test-weather.server[printer]", "explode::drift::test-weather.server[default]"):
        assert (checks[cid].status, checks[cid].reason) == ("not_called", "side_effects")
        assert "does not annotate" in checks[cid].detail() and "side_effects: allowed" in checks[cid].detail()
    assert checks["tickets.search::drift::test-weather.server[outputSchema]"].status == "held"  # tools/list is read
    assert summary.total == 4 + 2  # cases: four schema checks, two calls; not-called checks are none


def test_with_side_effects_allowed_every_tool_is_called(tmp_path: Path, drift: Any) -> None:
    root, log = mcp_project(tmp_path, side_effects=True)
    checks, _, _ = drift(root, {})
    assert sorted(log.read_text().split()) == ["explode", "get_weather", "service_status", "tickets/search"]
    assert all(c.side_effects == "allowed" for c in checks.values())


def test_an_invalid_argument_error_is_invalid_request_never_retryable(tmp_path: Path, drift: Any) -> None:
    root, _ = mcp_project(tmp_path)
    contract = root / "contracts/get_weather/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    data["request"]["schema"].pop("required", None)  # the contract lets a request without city through
    data["upstreams"]["test-weather.server"]["requests"] = [{}]
    contract.write_text(yaml.safe_dump(data, sort_keys=False))
    checks, _, _ = drift(root, {}, tools=["get_weather"])
    call = checks["get_weather::drift::test-weather.server[default]"]
    assert (call.status, call.reason, call.verdict.code) == ("failed", "invalid_request", "transport.invalid_request")
    assert call.verdict.agent_result["error"] == {"code": "INVALID_REQUEST", "retryable": False}


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}', "invalid_request"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}', "invalid_request"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}', "jsonrpc_error"),
        (
            b'{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text",'
            b'"text":"MCP error -32602: Input validation error"}]}}',
            "invalid_request",
        ),
        (b'{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"disk full"}]}}', "is_error"),
    ],
    ids=["invalid_params", "method_not_found", "internal_error", "is_error_with_32602", "is_error"],
)
def test_request_errors_are_told_apart_from_tool_failures(line: bytes, reason: str) -> None:
    fetched = read_call_line(line, expected_id=1, max_message_bytes=10_000, max_depth=16)
    assert fetched.failure is not None and fetched.failure.reason == reason


# --------------------------------------------------------------------------- schema drift, end to end


def weather_schema_check(root: Path) -> tuple[int, dict[str, Any]]:
    """``drift ROOT --tool get_weather``: its exit status and its outputSchema check."""
    code = main(["drift", str(root), "--tool", "get_weather", "--json", str(root / "r.json")])
    checks = {c["id"]: c for c in json.loads((root / "r.json").read_text())["drift"]["checks"]}
    return code, checks["get_weather::drift::test-weather.server[outputSchema]"]


@pytest.mark.parametrize(("flag", "said"), [
    ("--drop-required", ['"field_removed"', '"/temperature_c"']),
    ("--no-output-schema", ["advertises no outputSchema", "set output_schema: none under the upstream's mcp:"]),
], ids=["a required member dropped", "no outputSchema"])
def test_a_server_whose_output_schema_changes_drifts_exit_1_and_says_how(
    tmp_path: Path, flag: str, said: list[str]
) -> None:
    mcp_project(tmp_path, flag)
    code, schema = weather_schema_check(tmp_path)
    assert (code, schema["status"]) == (1, "drifted")
    assert [text for text in said if text not in json.dumps(schema)] == []


def test_a_tool_declared_to_publish_no_output_schema_holds_while_it_advertises_none(tmp_path: Path) -> None:
    mcp_project(tmp_path, "--no-output-schema")
    contract = tmp_path / "contracts/get_weather/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    (entry,) = data["upstreams"].values()
    entry["mcp"]["output_schema"] = "none"
    contract.write_text(yaml.safe_dump(data, sort_keys=False))
    code, schema = weather_schema_check(tmp_path)
    assert (code, schema["status"]) == (0, "held") and "output_schema: none" in json.dumps(schema)
