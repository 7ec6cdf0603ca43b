"""A live MCP server over stdio: ``tools/list`` and sampled ``tools/call``, kept as raw lines.

The ``mcp`` SDK's :class:`~mcp.client.session.ClientSession` speaks the protocol (initialize,
version negotiation, request ids). It runs over a small stdio transport of our own that keeps
each response line **as received**, so a sampled result becomes a fixture byte for byte (the
SDK's parsed objects would hide duplicate members and reformat numbers), and ``tools/call``
results are never validated by the SDK (a result that violates its schema is exactly what a
contract must record). The server runs in its own process group and is always stopped:
stdin closed, then SIGTERM, then SIGKILL, each bounded in time.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import Process
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

from harness.onboarding.errors import OnboardingError
from harness.onboarding.mcp import MAX_INPUT_BYTES, Call, McpTool, Server, next_cursor, parse_tools_list

DEFAULT_TIMEOUT_S = 30.0
MAX_LINE_BYTES = MAX_INPUT_BYTES
_STOP_GRACE_S = 2.0
_STDERR_LINES = 20
_MAX_PAGES = 100


@dataclass
class _Tap:
    """Raw response lines by JSON-RPC id, and what the server wrote to stderr (its tail)."""

    responses: dict[Any, bytes] = field(default_factory=dict)
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=_STDERR_LINES))
    exit_code: int | None = None

    def last_words(self) -> str:
        lines = [line for line in self.stderr if line.strip()]
        return f" (stderr: {lines[-1].strip()[:200]})" if lines else ""


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _stop(process: Process) -> None:
    with anyio.CancelScope(shield=True):
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and process.returncode is None:
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
            with anyio.move_on_after(_STOP_GRACE_S):
                await process.wait()
            if process.returncode is not None:
                break
        await process.aclose()


@asynccontextmanager
async def _transport(server: Server, tap: _Tap) -> AsyncIterator[tuple[Any, Any]]:
    env = {**os.environ, **dict(server.env)}
    try:
        process = await anyio.open_process(
            [server.command, *server.args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, start_new_session=True,
        )
    except OSError as exc:
        raise OnboardingError(
            f"cannot start MCP server {server.command!r}: {exc.strerror or exc}", code="import.server_failed"
        ) from None
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdout() -> None:
        assert process.stdout is not None
        buffer = b""
        async with incoming_send:
            try:
                async for chunk in process.stdout:
                    buffer += chunk
                    if len(buffer) > MAX_LINE_BYTES and b"\n" not in buffer:
                        await incoming_send.send(ValueError(f"a line longer than {MAX_LINE_BYTES} bytes"))
                        return
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        line = line.rstrip(b"\r")
                        if not line.strip():
                            continue
                        message = _parse(line)
                        if isinstance(message, SessionMessage):
                            ident = getattr(message.message, "id", None)
                            if ident is not None and not hasattr(message.message, "method"):
                                tap.responses[ident] = line
                        await incoming_send.send(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return

    async def read_stderr() -> None:
        assert process.stderr is not None
        try:
            async for chunk in process.stderr:
                tap.stderr.extend(chunk.decode("utf-8", "replace").splitlines())
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            return

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with outgoing_receive:
            try:
                async for message in outgoing_receive:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode("utf-8") + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await incoming_send.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(read_stderr)
        group.start_soon(write_stdin)
        try:
            yield incoming, outgoing
        finally:
            await _stop(process)
            tap.exit_code = process.returncode
            group.cancel_scope.cancel()


@dataclass(frozen=True, slots=True)
class Listing:
    """What a live server said: its name, its tools, and the sampled calls."""

    server: Server
    tools: tuple[McpTool, ...]
    calls: tuple[Call, ...] = ()


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


async def _session_work(
    server: Server, samples: Sequence[tuple[str, Mapping[str, Any]]], tap: _Tap
) -> tuple[str | None, list[McpTool], list[Call]]:
    async with _transport(server, tap) as (incoming, outgoing), ClientSession(incoming, outgoing) as session:
        initialized = await session.initialize()
        tools: list[McpTool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            before = set(tap.responses)
            await session.send_request(types.ListToolsRequest(params=params), types.ListToolsResult)
            line = next(tap.responses[k] for k in tap.responses if k not in before)
            tools.extend(parse_tools_list(line, "tools/list"))
            cursor = next_cursor(line)
            if cursor is None:
                break
        known = {t.name for t in tools}
        unknown = sorted({name for name, _ in samples} - known)
        if unknown:
            raise OnboardingError(
                f"--sample names {', '.join(map(repr, unknown))}, which the server does not list "
                f"(it lists: {', '.join(map(repr, sorted(known)))})",
                code="import.unknown_tool",
            )
        calls: list[Call] = []
        per_tool: dict[str, int] = {}
        for name, args in samples:
            per_tool[name] = index = per_tool.get(name, 0) + 1
            before = set(tap.responses)
            # An error or a result the SDK cannot parse: the raw line is judged instead.
            with suppress(Exception):
                await session.send_request(
                    types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=dict(args))),
                    types.CallToolResult,
                )
            new = [tap.responses[k] for k in tap.responses if k not in before]
            if new:
                calls.append(Call(tool=name, name=f"sample_{index}", args=args, raw=new[-1], recorded_at=_now()))
        info = initialized.server_info
        return (info.name if info else None), tools, calls


def fetch(
    command: Sequence[str],
    *,
    samples: Sequence[tuple[str, Mapping[str, Any]]] = (),
    timeout_s: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
) -> Listing:
    """Start the server, list its tools, call each sample; stop the server. One-line errors."""
    if not command:
        raise OnboardingError("give the server command after --, e.g. -- npx -y @scope/server", code="usage.invalid")
    server = Server(command=command[0], args=tuple(command[1:]), env=dict(env or {}))
    tap = _Tap()

    async def main() -> tuple[str | None, list[McpTool], list[Call]]:
        with anyio.fail_after(timeout_s):
            return await _session_work(server, samples, tap)

    shown = " ".join([server.command, *server.args])
    try:
        name, tools, calls = anyio.run(main)
    except (KeyboardInterrupt, SystemExit):
        raise
    except TimeoutError:
        raise OnboardingError(
            f"MCP server {shown!r} did not answer within {timeout_s:g}s{tap.last_words()}",
            code="import.server_timeout",
        ) from None
    except BaseException as exc:  # an exception group from the task group, SDK errors
        cause = _first_cause(exc)
        if isinstance(cause, OnboardingError):
            raise cause from None
        detail = (str(cause).splitlines() or [type(cause).__name__])[0][:300]
        exited = f" (exit status {tap.exit_code})" if tap.exit_code not in (None, 0) else ""
        raise OnboardingError(
            f"MCP server {shown!r} failed{exited}: {detail}{tap.last_words()}", code="import.server_failed"
        ) from None
    return Listing(Server(server.command, server.args, name, server.env), tuple(tools), tuple(calls))


def _first_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (the task group wraps what its tasks raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
