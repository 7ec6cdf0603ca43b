"""An MCP server over Streamable HTTP, stdlib only, every byte it writes chosen: the HTTP twin of
``mcp_stdio.py`` for the remote-server tests.

    python tests/servers/mcp_http_raw.py [--json] [--dup] [--big=N] [--split] [--log=FILE]

It listens on 127.0.0.1 on a port the system picks and prints ``listening on URL`` first. It
serves the tools of ``mcp_stdio.py`` (``get_weather``, ...), answering ``tools/call`` in an event
stream (a progress notification first, then the answer) or, with ``--json``, in a JSON body.
``--dup``: get_weather's structuredContent names ``city`` twice. ``--big=N``: it carries N more
bytes. ``--split``: the answer's event arrives in pieces, its data over two ``data:`` lines
with CRLF line ends. ``--log=FILE``: each request's method, path and MCP headers are appended
to FILE as JSON lines (what a test asserts the client sent). A request with an unknown session
id gets 404; DELETE ends the session.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import mcp_stdio  # beside this file: the tools and results of the stdio twin

FLAGS = set(sys.argv[1:])
SESSIONS: set[str] = set()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _log(self) -> None:
        log = mcp_stdio.option(FLAGS, "--log")
        if log:
            entry = {"method": self.command, "session": self.headers.get("Mcp-Session-Id"),
                     "version": self.headers.get("MCP-Protocol-Version"), "accept": self.headers.get("Accept")}
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")

    def _plain(self, status: int, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _session_ok(self) -> bool:
        session = self.headers.get("Mcp-Session-Id")
        if session not in SESSIONS:
            self._plain(404 if session else 400)
            return False
        return True

    def do_DELETE(self) -> None:
        self._log()
        if self._session_ok():
            SESSIONS.discard(self.headers["Mcp-Session-Id"])
            self._plain(200)

    def do_GET(self) -> None:
        self._log()
        if self._session_ok():
            self._plain(405)

    def do_POST(self) -> None:
        self._log()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        message = json.loads(body)
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            result = json.dumps({"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
                                 "serverInfo": {"name": "raw-weather/http", "version": "1.0.0"}})
            self._json(ident, result, {"Mcp-Session-Id": session})
            return
        if not self._session_ok():
            return
        if ident is None or method is None:
            self._plain(202)  # a notification, or the client's answer to a request of ours
            return
        if method == "tools/list":
            self._json(ident, json.dumps({"tools": mcp_stdio.tools(set())}))
        elif method == "tools/call":
            flags = {f if not f.startswith("--big=") else "--big-weather=" + f.split("=", 1)[1] for f in FLAGS}
            result = mcp_stdio.call(params.get("name"), params.get("arguments") or {}, flags)
            if "--json" in FLAGS:
                self._json(ident, result)
            else:
                self._stream(ident, result)
        elif method == "ping":
            self._json(ident, "{}")
        else:
            self._json(ident, None, error=json.dumps({"code": -32601, "message": "no such method"}))

    def _answer(self, ident: Any, result: str | None, error: str | None = None) -> bytes:
        member = '"result":' + result if result is not None else '"error":' + str(error)
        return ('{"jsonrpc":"2.0","id":' + json.dumps(ident) + "," + member + "}").encode()

    def _json(self, ident: Any, result: str | None, headers: dict[str, str] | None = None,
              error: str | None = None) -> None:
        data = self._answer(ident, result, error)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, ident: Any, result: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        progress = json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                               "params": {"progressToken": 1, "progress": 1}})
        self.wfile.write(b": a comment\n\nid: 1\ndata:\n\n" + f"event: message\ndata: {progress}\n\n".encode())
        answer = self._answer(ident, result)
        if "--split" in FLAGS:
            cut = answer.index(b'"result"')
            for piece in (b"data: " + answer[:cut] + b"\r", b"\ndata: ", answer[cut:-5], answer[-5:] + b"\r\n\r\n"):
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(0.05)
        else:
            self.wfile.write(b"data: " + answer + b"\n\n")
        self.wfile.flush()
        self.close_connection = True


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
