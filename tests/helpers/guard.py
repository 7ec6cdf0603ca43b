"""For the guard's tests: a JSON-RPC peer on a real subprocess's stdio, and test contracts.

:class:`StdioPeer` is what an MCP client does on the wire, without an SDK in the way: it
writes lines, reads lines, and keeps every byte it read (so a test can prove a canary never
arrived). The guard runs as the real ``contract-harness`` console script.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.helpers.paths import REPO

TEST_SERVER = [sys.executable, str(REPO / "tests" / "servers" / "mcp_stdio.py")]
CONTRACT_HARNESS = str(Path(sys.executable).parent / "contract-harness")
#: Where .ci/run installs the npm reference servers (HARNESS_NODE_MODULES overrides).
NODE_MODULES = Path(os.environ.get("HARNESS_NODE_MODULES", REPO / ".ci" / "node_modules"))
NODE = shutil.which("node")


def reference_server(name: str) -> list[str] | None:
    """The argv of an npm reference server (``filesystem``, ``memory``, ``everything``), or None."""
    script = NODE_MODULES / "@modelcontextprotocol" / f"server-{name}" / "dist" / "index.js"
    if NODE is None or not script.is_file():
        return None
    return [NODE, str(script)]


def missing_reference(name: str) -> str:
    return (f"Node.js or the npm package @modelcontextprotocol/server-{name} is missing (looked in {NODE_MODULES}; "
            ".ci/run installs it with npm where npm exists)")


class StdioPeer:
    """A subprocess spoken to in newline-delimited JSON-RPC."""

    def __init__(self, argv: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            list(argv), cwd=cwd, env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.raw = bytearray()
        self._stderr = bytearray()
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._next = 100
        self._threads = [threading.Thread(target=self._pump_out, daemon=True),
                         threading.Thread(target=self._pump_err, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _pump_out(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.raw += line
            self._lines.put(line)
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: self.process.stderr.read1(4096), b""):  # type: ignore[union-attr]
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def next_message(self, timeout: float = 20.0) -> dict[str, Any] | None:
        """The next message read (None at end of stream)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing read within {timeout} s; stderr:\n{self.stderr}") from None
        if line is None:
            return None
        message = json.loads(line)
        self.seen.append(message)
        return message  # type: ignore[no-any-return]

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(0.01, deadline - time.monotonic()))
            if message is None:
                raise AssertionError(f"the stream ended first; stderr:\n{self.stderr}")
            if predicate(message):
                return message

    def request(self, method: str, params: dict[str, Any] | None = None, *, ident: Any = None,
                timeout: float = 20.0) -> dict[str, Any]:
        if ident is None:
            self._next += 1
            ident = self._next
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_for(lambda m: m.get("id") == ident and "method" not in m, timeout)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities or {},
                                             "clientInfo": {"name": "guard-tests", "version": "1"}})
        self.notify("notifications/initialized")
        return answer

    def call(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        meta = options.pop("meta", None)
        if meta is not None:
            params["_meta"] = meta
        params.update(options.pop("params", {}))
        return self.request("tools/call", params, **options)

    def close(self, timeout: float = 20.0) -> int:
        """Close stdin (the MCP way to stop a stdio server) and wait for the exit status."""
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            self.release()

    def release(self) -> None:
        """Kill the process if it still runs; close its pipes once the readers are done."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for thread in self._threads:
            thread.join(5)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()

    def __enter__(self) -> StdioPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.close()
        else:
            self.release()


def guard(*options: str, server: Sequence[str] = TEST_SERVER, cwd: Path, env: dict[str, str] | None = None
          ) -> StdioPeer:
    """``contract-harness guard OPTIONS -- SERVER`` as a subprocess."""
    return StdioPeer([CONTRACT_HARNESS, "guard", *options, "--", *server], cwd=cwd, env=env)


WEATHER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["city", "temperature_c", "conditions"],
    "properties": {
        "city": {"type": "string", "maxLength": 40},
        "temperature_c": {"type": "number", "minimum": -90, "maximum": 60},
        "conditions": {"enum": ["clear", "cloudy", "rain"]},
        "station_id": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{1,4}$", "maxLength": 8},
    },
    "additionalProperties": False,
}

WEATHER_YAML = """\
tool: get_weather
description: Current weather for a city.
version: 1
limits: {{max_bytes: 4096, max_depth: 6}}
request:
  schema:
    type: object
    required: [city]
    properties: {{city: {{type: string, minLength: 1, maxLength: 40}}}}
    additionalProperties: false
  example: {{city: Oslo}}
envelope: null
bindings:
  - {{name: city, result: /city, request: /args/city}}
agent_view:
  city: /city
  temperature_c: /temperature_c
  conditions: /conditions
upstreams:
  test-server:
    mcp:
      command: python
      args: [tests/servers/mcp_stdio.py]
      meta: {{request_id: "{{request_id}}"}}
      timeout_s: {timeout}
    requests: [{{city: Oslo}}]
"""

STATUS_YAML = """\
tool: service_status
version: 1
request: {schema: {type: object, additionalProperties: false}, example: {}}
envelope: null
agent_view: {state: /state}
"""
STATUS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["state"], "properties": {"state": {"enum": ["up", "down"]}},
    "additionalProperties": False,
}

EXPLODE_YAML = """\
tool: explode
version: 1
request: {schema: {type: object}, example: {}}
envelope: null
agent_view: {ok: /ok}
"""
EXPLODE_SCHEMA = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}},
                  "additionalProperties": False}


def weather_project(make_contract: Callable[..., Path], *, timeout: float = 10) -> Path:
    """A project whose contracts guard get_weather, service_status and explode of the test
    server; echo and tickets/search have none. Returns the project root."""
    make_contract("get_weather", WEATHER_YAML.format(timeout=timeout), {1: WEATHER_SCHEMA})
    make_contract("service_status", STATUS_YAML, {1: STATUS_SCHEMA})
    directory = make_contract("explode", EXPLODE_YAML, {1: EXPLODE_SCHEMA})
    return directory.parent.parent


def audit_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def logged(path: Path) -> list[dict[str, Any]]:
    """What the test server received (``--log=FILE``)."""
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
