"""A live MCP server, over stdio or Streamable HTTP: ``tools/list`` and sampled ``tools/call``,
kept as raw messages.

Over stdio, the ``mcp`` SDK's :class:`~mcp.client.session.ClientSession` speaks the protocol
(initialize, version negotiation, request ids). It runs over a small stdio transport of our own
that keeps each response line **as received**, so a sampled result becomes a fixture byte for
byte (the SDK's parsed objects would hide duplicate members and reformat numbers), and
``tools/call`` results are never validated by the SDK (a result that violates its schema is
exactly what a contract must record). The server is started as drift starts it (its command
line's ``${NAME}`` filled in, a small environment plus what ``--env`` names), runs in its own
process group and is always stopped: stdin closed, then SIGTERM, then SIGKILL, each bounded in
time.

Over Streamable HTTP (:func:`fetch_http`), drift's client (:mod:`harness.drift.mcp_http`) keeps
each answer — a JSON body or one event's data — as received, and ends the session at the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import Process
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

from harness.drift.mcp_http import HttpTransportError, McpHttpSession, StreamableHttpClient, every_page
from harness.drift.process import child_environment
from harness.drift.template import Environment, fill_env
from harness.errors import RejectedInput, UsageError
from harness.onboarding.errors import OnboardingError
from harness.onboarding.mcp import MAX_INPUT_BYTES, Call, McpTool, Server, next_cursor, parse_tools_list
from harness.strict_json import strict_loads

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
async def _transport(server: Server, tap: _Tap, environ: Mapping[str, str]) -> AsyncIterator[tuple[Any, Any]]:
    argv, env = start_line(server, environ)
    try:
        process = await anyio.open_process(
            argv,
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


def start_line(server: Server, environ: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """The argv and environment the server is started with — the way drift starts it from the
    upstream the import writes: ``${NAME}`` references in the command line filled in, and the
    small environment every program gets (:func:`harness.drift.process.child_environment`) with
    the variables the server needs (``env:``). A variable it needs that is not set is
    ``upstream.env_missing``."""
    env = Environment(environ)
    for name in server.env:
        if not env.is_set(name):
            raise OnboardingError(
                f"the server's environment variable {name} is not set (--env {name}: the server is started with "
                "it, here and in drift; set it first)",
                code="upstream.env_missing",
            )
    where = "the server command"
    argv = [fill_env(part, env, where) for part in (server.command, *server.args)]
    extra = {name: fill_env(text, env, f"--env {name}") for name, text in server.env.items()}
    return argv, child_environment(extra, environ)


async def _session_work(
    server: Server, samples: Sequence[tuple[str, Mapping[str, Any]]], tap: _Tap, environ: Mapping[str, str]
) -> tuple[str | None, list[McpTool], list[Call]]:
    async with _transport(server, tap, environ) as (incoming, outgoing), ClientSession(incoming, outgoing) as session:
        initialized = await session.initialize()

        async def page(cursor: str | None) -> tuple[list[McpTool], str | None]:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            before = set(tap.responses)
            await session.send_request(types.ListToolsRequest(params=params), types.ListToolsResult)
            line = next(tap.responses[k] for k in tap.responses if k not in before)
            return parse_tools_list(line, "tools/list"), next_cursor(line)

        tools = await every_page(page, _MAX_PAGES)
        _check_samples(samples, tools)
        calls: list[Call] = []
        for name, args, index in _numbered(samples):
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


def _numbered(samples: Sequence[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, Mapping[str, Any], int]]:
    """Each sample with its number among its tool's (``sample_<n>``)."""
    counts: dict[str, int] = {}
    out = []
    for name, args in samples:
        counts[name] = counts.get(name, 0) + 1
        out.append((name, args, counts[name]))
    return out


def _check_samples(samples: Sequence[tuple[str, Mapping[str, Any]]], tools: Sequence[McpTool]) -> None:
    known = {t.name for t in tools}
    unknown = sorted({name for name, _ in samples} - known)
    if unknown:
        raise OnboardingError(
            f"--sample names {', '.join(map(repr, unknown))}, which the server does not list "
            f"(it lists: {', '.join(map(repr, sorted(known)))})",
            code="import.unknown_tool",
        )


def fetch(
    command: Sequence[str],
    *,
    samples: Sequence[tuple[str, Mapping[str, Any]]] = (),
    timeout_s: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Listing:
    """Start the server, list its tools, call each sample; stop the server. One-line errors.

    ``env`` is what the server needs of the environment, as the upstream records it
    (``{NAME: "${NAME}"}``); it is started with that and the few variables every program gets,
    read from ``environ`` (default: this process's environment)."""
    if not command:
        raise OnboardingError("give the server command after --, e.g. -- npx -y @scope/server", code="usage.invalid")
    server = Server(command=command[0], args=tuple(command[1:]), env=dict(env or {}))
    environ = os.environ if environ is None else environ
    start_line(server, environ)  # a missing variable stops the import before anything starts
    tap = _Tap()

    async def main() -> tuple[str | None, list[McpTool], list[Call]]:
        with anyio.fail_after(timeout_s):
            return await _session_work(server, samples, tap, environ)

    name, tools, calls = _run(main, server, timeout_s, tap)
    return Listing(replace(server, name=name), tuple(tools), tuple(calls))


def fetch_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    samples: Sequence[tuple[str, Mapping[str, Any]]] = (),
    timeout_s: float = DEFAULT_TIMEOUT_S,
    environ: Mapping[str, str] | None = None,
) -> Listing:
    """The same over Streamable HTTP: open a session at ``url`` (a template: ``${NAME}`` filled in
    from ``environ``, as are ``headers``), list the tools, call each sample, end the session.
    Every answer is kept as it came off the wire."""
    server = Server(command="", url=url, headers=dict(headers or {}))
    env = Environment(os.environ if environ is None else environ)
    target = fill_env(url, env, "--url")
    sent = {name: fill_env(value, env, f"--header {name}") for name, value in server.headers.items()}
    tap = _Tap()

    async def main() -> tuple[str | None, list[McpTool], list[Call]]:
        client = StreamableHttpClient(target, headers=sent, max_message_bytes=MAX_LINE_BYTES, timeout_s=timeout_s,
                                      connect_timeout_s=min(timeout_s, 10.0))
        with anyio.fail_after(timeout_s):
            async with client:
                return await _http_work(McpHttpSession(client), samples)

    try:
        name, tools, calls = _run(main, server, timeout_s, tap)
    except OnboardingError as exc:
        raise OnboardingError(env.redact(str(exc)), code=exc.code) from None
    return Listing(replace(server, name=name), tuple(tools), tuple(calls))


async def _http_work(
    session: McpHttpSession, samples: Sequence[tuple[str, Mapping[str, Any]]]
) -> tuple[str | None, list[McpTool], list[Call]]:
    initialized = await session.initialize()

    async def page(cursor: str | None) -> tuple[list[McpTool], str | None]:
        line = await session.request("tools/list", {"cursor": cursor} if cursor else None)
        return parse_tools_list(line, "tools/list"), next_cursor(line)

    tools = await every_page(page, _MAX_PAGES)
    _check_samples(samples, tools)
    calls: list[Call] = []
    for name, args, index in _numbered(samples):
        raw = await session.request("tools/call", {"name": name, "arguments": dict(args)})
        calls.append(Call(tool=name, name=f"sample_{index}", args=args, raw=raw, recorded_at=_now()))
    return _server_name(initialized), tools, calls


def _server_name(initialized: bytes) -> str | None:
    try:
        message = strict_loads(initialized, max_depth=64)
    except RejectedInput:
        return None
    info = message.get("result", {}).get("serverInfo") if isinstance(message, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name else None


def _run(
    main: Callable[[], Awaitable[tuple[str | None, list[McpTool], list[Call]]]],
    server: Server,
    timeout_s: float,
    tap: _Tap,
) -> tuple[str | None, list[McpTool], list[Call]]:
    given = server.as_given
    try:
        return anyio.run(main)
    except (KeyboardInterrupt, SystemExit):
        raise
    except TimeoutError:
        raise OnboardingError(
            f"MCP server {given!r} did not answer within {timeout_s:g}s{tap.last_words()}",
            code="import.server_timeout",
        ) from None
    except BaseException as exc:  # an exception group from the task group, SDK errors
        cause = _first_cause(exc)
        if isinstance(cause, OnboardingError | UsageError):
            raise cause from None
        if isinstance(cause, HttpTransportError):
            detail = cause.message
        else:
            detail = (str(cause).splitlines() or [type(cause).__name__])[0][:300]
        exited = f" (exit status {tap.exit_code})" if tap.exit_code not in (None, 0) else ""
        raise OnboardingError(
            f"MCP server {given!r} failed{exited}: {detail}{tap.last_words()}", code="import.server_failed"
        ) from None


def _first_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (the task group wraps what its tasks raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
