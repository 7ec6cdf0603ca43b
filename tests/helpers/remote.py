"""For the remote-server tests: real MCP servers over Streamable HTTP on loopback.

:func:`serving` starts a server process and waits for the line that names its URL; the process
and everything it started are stopped when the block ends. The servers:

- ``tests/servers/mcp_http_sdk.py``: the ``mcp`` SDK's own server (notes in ``$NOTES_FILE``);
- ``tests/servers/mcp_http_raw.py``: stdlib only, every byte chosen (duplicate members, ...);
- ``@modelcontextprotocol/server-everything streamableHttp`` (npm, in ``.ci/node_modules``):
  :func:`everything` runs it (or skips the test, saying why).
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from tests.helpers.guard import missing_reference, reference_server

REPO = Path(__file__).resolve().parent.parent.parent
SERVERS = REPO / "tests" / "servers"
SDK_SERVER = [sys.executable, str(SERVERS / "mcp_http_sdk.py")]
RAW_SERVER = [sys.executable, str(SERVERS / "mcp_http_raw.py")]
EVERYTHING_MISSING = missing_reference("everything")
_LISTENING = re.compile(r"listening on (http://\S+)|listening on port (\d+)")


def everything_argv() -> list[str] | None:
    """server-everything in its Streamable HTTP mode (``dist/index.js streamableHttp``, port in
    ``$PORT``), or None when Node.js or the package is missing."""
    argv = reference_server("everything")
    return None if argv is None else [*argv, "streamableHttp"]


@contextmanager
def everything() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free port, until the block ends; the test
    skips, saying why, where Node.js or the package is missing."""
    import pytest

    argv = everything_argv()
    if argv is None:
        pytest.skip(EVERYTHING_MISSING)
    with serving(argv, {"PORT": str(free_port())}) as url:
        yield url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(argv: Sequence[str], env: Mapping[str, str] | None = None, *, timeout: float = 60.0) -> Iterator[str]:
    """Run a server until the block ends; yield its MCP endpoint's URL (from the first line of
    its output, or of its stderr, that says where it listens)."""
    process = subprocess.Popen(
        list(argv), env={**os.environ, **(env or {})}, cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def pump(stream: object) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            lines.put(raw.decode("utf-8", "replace"))

    pumps = [threading.Thread(target=pump, args=(stream,), daemon=True) for stream in (process.stdout, process.stderr)]
    for thread in pumps:
        thread.start()
    try:
        deadline = time.monotonic() + timeout
        url = None
        while url is None:
            if process.poll() is not None and lines.empty():
                raise RuntimeError(f"{argv[-1]} exited with {process.returncode}: {''.join(seen)[-2000:]}")
            try:
                line = lines.get(timeout=max(0.0, min(0.5, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{argv[-1]} did not say where it listens: {''.join(seen)[-2000:]}") from None
                continue
            seen.append(line)
            match = _LISTENING.search(line)
            if match:
                url = match.group(1) or f"http://127.0.0.1:{match.group(2)}/mcp"
        yield url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, sig)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    continue
        process.wait()
        for thread in pumps:
            thread.join(timeout=5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
