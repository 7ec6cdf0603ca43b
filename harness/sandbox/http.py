"""The sandbox over real HTTP, on loopback: the demo tools' upstreams, in one of four profiles.

Routes (the demo contracts' URLs, below ``$HARNESS_SANDBOX_URL``):

    GET /review_status/{change_id}
    GET /job_status/{project_id}/runs/{run_id}
    GET /deployment_status/{environment}

A path may start with ``/_profile/<name>`` to ask for another profile than the server's (the
tests use one sandbox for all four). ``X-Request-Id`` is echoed as the result's
``request_id``. The server binds 127.0.0.1 only; its "other host" for redirects is 127.0.0.2,
also loopback, so nothing ever leaves the machine.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from harness.sandbox.scenarios import (
    DEFAULT_HUGE_BYTES,
    DEFAULT_REQUEST_ID,
    PROFILES,
    Context,
    reply,
)

LOOPBACK = "127.0.0.1"
OTHER_HOST = "127.0.0.2"
_ROUTES = {
    "review_status": ("change_id",),
    "job_status": ("project_id", "runs", "run_id"),
    "deployment_status": ("environment",),
}


def route(path: str) -> tuple[str | None, str, dict[str, str]] | None:
    """``(profile or None, tool, args)`` for a request path, or None when nothing lives there."""
    parts = [unquote(p) for p in path.split("?", 1)[0].strip("/").split("/")]
    profile = None
    if len(parts) >= 2 and parts[0] == "_profile":
        profile, parts = parts[1], parts[2:]
    if not parts or parts[0] not in _ROUTES:
        return None
    tool, rest = parts[0], parts[1:]
    names = _ROUTES[tool]
    if len(rest) != len(names):
        return None
    args = {}
    for name, value in zip(names, rest, strict=True):
        if name == "runs":
            if value != "runs":
                return None
            continue
        args[name] = value
    return profile, tool, args


class SandboxServer(ThreadingHTTPServer):
    """A threading HTTP server whose slow handlers give up at once when it stops."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, port: int = 0, profile: str = "stable", huge_bytes: int = DEFAULT_HUGE_BYTES) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
        super().__init__((LOOPBACK, port), _Handler)
        self.profile = profile
        self.huge_bytes = huge_bytes
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}"

    def stop(self) -> None:
        """Stop a server that ``serve_forever`` runs in another thread."""
        self.stopping.set()
        self.shutdown()
        self.server_close()

    def close(self) -> None:
        """Close a server whose ``serve_forever`` ran, or never started, in this thread
        (``shutdown`` would wait for ever for a loop that is not running)."""
        self.stopping.set()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: SandboxServer
    protocol_version = "HTTP/1.1"
    server_version = "contract-harness-sandbox"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the sandbox is a test fixture; drift reports say what happened

    def do_GET(self) -> None:
        found = route(self.path)
        if found is None:
            self._send(404, b'{"error": {"type": "not_found"}}\n', "application/json")
            return
        profile, tool, args = found
        profile = profile or self.server.profile
        if profile not in PROFILES:
            self._send(400, f"unknown profile {profile!r}\n".encode(), "text/plain")
            return
        ctx = Context(
            tool=tool,
            args=args,
            request_id=self.headers.get("X-Request-Id") or DEFAULT_REQUEST_ID,
            now=datetime.now(UTC),
            huge_bytes=self.server.huge_bytes,
        )
        answer = reply(profile, ctx)
        if answer.delay_s and self.server.stopping.wait(answer.delay_s):
            return
        if answer.reset:
            self._reset()
            return
        headers = dict(answer.headers)
        if answer.redirect:
            headers["Location"] = f"http://{OTHER_HOST}:{self.server.server_address[1]}{self.path}"
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(answer.body_length()))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            for chunk in answer.chunks():
                if self.server.stopping.is_set():
                    break
                self.wfile.write(chunk)
        except OSError:
            self.close_connection = True  # the client stopped reading (a byte cap): fine

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _reset(self) -> None:
        """Close with SO_LINGER 0: the client sees a TCP reset, not an orderly end."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()


@contextmanager
def serving(port: int = 0, profile: str = "stable", huge_bytes: int = DEFAULT_HUGE_BYTES) -> Iterator[SandboxServer]:
    """Run a sandbox in a background thread for the duration of the block."""
    server = SandboxServer(port, profile, huge_bytes)
    thread = threading.Thread(target=server.serve_forever, name="contract-harness-sandbox", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop()
        thread.join(timeout=5)
