"""The guard from Python: the ``mcp`` SDK's :class:`~mcp.ClientSession` with the relay in front.

The SDK's own stdio transport parses each line before a session sees it, and a parser keeps
the last of two members with one name and has no byte cap: the raw bytes the boundary must
judge are gone. So :func:`guarded_stdio_client` starts the server itself and puts the same
relay as ``contract-harness guard`` between it and an ordinary ``ClientSession``::

    guard = Guard.from_paths(["contracts"])
    async with guarded_stdio_client(guard, ["npx", "-y", "@modelcontextprotocol/server-memory"]) as session:
        await session.initialize()
        call = await session.call_tool("read_graph", {})
        call.result    # the CallToolResult the model may see: agent view or failure envelope
        call.verdict   # the boundary's Verdict, for the caller's logs (None: not guarded)

Every other ``ClientSession`` method (``list_tools``, ``read_resource``, ...) is the session's
own, through the relay: ``list_tools`` shows guarded tools with the agent view's schema.
"""

from __future__ import annotations

import logging
import secrets
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from mcp import ClientSession, types
from mcp.shared.message import SessionMessage

from harness.boundary.pipeline import Verdict
from harness.drift.mcp import _for_session as session_message
from harness.drift.process import StderrTail, stop
from harness.guard.policy import DEFAULT_MAX_MESSAGE_BYTES, Guard
from harness.guard.relay import CALL_TOKEN_META, Relay, ServerEndpoint
from harness.guard.stdio import ProcessServer, start_server

logger = logging.getLogger("harness.guard")


@dataclass(frozen=True, slots=True)
class GuardedCall:
    """One ``tools/call`` through the guard: what the model may see, and why.

    ``verdict`` is None when no contract judged the call: a tool let through unguarded, a
    tool denied for want of a contract, or arguments the contract refused before sending.
    """

    result: types.CallToolResult
    verdict: Verdict | None


class GuardedSession:
    """A :class:`~mcp.ClientSession` whose :meth:`call_tool` also returns the verdict.

    Attributes and methods other than ``call_tool`` are the wrapped session's.
    """

    def __init__(self, session: ClientSession, verdicts: dict[str, Verdict], stderr: StderrTail) -> None:
        self.session = session
        self._verdicts = verdicts
        self._stderr = stderr

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        *,
        meta: Mapping[str, Any] | None = None,
    ) -> GuardedCall:
        """Call a tool through the guard (the arguments are the SDK's)."""
        token = secrets.token_hex(8)
        stamped: Any = {**(meta or {}), CALL_TOKEN_META: token}
        try:
            result = await self.session.call_tool(
                name, arguments, read_timeout_seconds, progress_callback, meta=stamped
            )
        finally:
            verdict = self._verdicts.pop(token, None)
        return GuardedCall(result, verdict)

    @property
    def server_stderr(self) -> str:
        """The last few kilobytes the server wrote to its stderr."""
        return self._stderr.text()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


class _SessionEndpoint:
    """The relay's client end, spoken by a ClientSession over memory streams."""

    def __init__(self) -> None:
        self.session_write, self._from_session = anyio.create_memory_object_stream[SessionMessage](64)
        self._to_session, self.session_read = anyio.create_memory_object_stream[SessionMessage | Exception](64)

    async def receive(self) -> bytes:
        try:
            message = await self._from_session.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return b""
        return message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"

    async def send(self, data: bytes, related: str | None = None) -> None:
        await self._to_session.send(session_message(data.rstrip(b"\n")))

    def close_client(self) -> None:
        self.session_write.close()

    def close_server(self) -> None:
        self._to_session.close()

    def close(self) -> None:
        for stream in (self.session_write, self._from_session, self._to_session, self.session_read):
            stream.close()


@asynccontextmanager
async def guarded_stdio_client(
    guard: Guard,
    command: Sequence[str],
    *,
    cwd: str | Path | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    **session_options: Any,
) -> AsyncIterator[GuardedSession]:
    """Start the server ``command`` behind ``guard`` and yield a :class:`GuardedSession` on it
    (not yet initialized). ``session_options`` go to ``ClientSession`` (sampling, elicitation
    and roots callbacks, client info, ...). Diagnostics go to the ``harness.guard`` logger."""
    stderr = StderrTail()
    process: Process = await start_server(command, stderr=subprocess.PIPE, cwd=Path(cwd) if cwd is not None else None)
    server = ProcessServer(process, cap=max_message_bytes, stderr=stderr.feed)
    try:
        async with _guarded(guard, server, max_message_bytes, stderr, session_options) as session:
            yield session
    finally:
        await stop(process)


@asynccontextmanager
async def guarded_http_client(
    guard: Guard,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    **session_options: Any,
) -> AsyncIterator[GuardedSession]:
    """The remote server at ``url`` (Streamable HTTP) behind ``guard``: a :class:`GuardedSession`
    (not yet initialized) whose every message to and from the server passes the same relay as
    ``contract-harness guard --url``. ``headers`` are sent as given (a bearer token: read it from
    the environment, never write it here); ``timeout_s`` bounds each HTTP read (default: the
    longest of the guard's timeouts)."""
    from harness.guard.remote import RemoteServer

    timeout = timeout_s or max([guard.request_timeout_s, *(t.timeout_s for t in guard.tools.values())])
    server = RemoteServer(url, headers=dict(headers or {}), cap=max_message_bytes, timeout_s=timeout,
                          log=logger.warning)
    try:
        async with _guarded(guard, server, max_message_bytes, StderrTail(), session_options) as session:
            yield session
    finally:
        await server.stop()


@asynccontextmanager
async def _guarded(
    guard: Guard, server: ServerEndpoint, max_message_bytes: int, stderr: StderrTail, session_options: dict[str, Any]
) -> AsyncIterator[GuardedSession]:
    verdicts: dict[str, Verdict] = {}
    endpoint = _SessionEndpoint()
    relay = Relay(
        guard, server, endpoint, max_message_bytes=max_message_bytes, log=logger.warning,
        on_verdict=verdicts.__setitem__,
    )

    async def run_relay() -> None:
        try:
            await relay.run()
        finally:
            endpoint.close_server()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run_relay)
            async with ClientSession(endpoint.session_read, endpoint.session_write, **session_options) as session:
                yield GuardedSession(session, verdicts, stderr)
            endpoint.close_client()
            await relay.stop()
    finally:
        endpoint.close()
