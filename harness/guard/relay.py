"""The relay between an MCP client and the server it thinks it talks to.

Every JSON-RPC line passes through unchanged (as the same bytes), except:

- ``tools/call`` of a guarded tool: the request gets the contract's ``_meta`` members (and
  loses a tasks capability: a task's result would arrive by another method, around the
  guard); the answer's raw bytes go through the boundary and the client gets the agent
  result or the failure envelope, never the server's own text. A call with no answer within
  the tool's ``timeout_s`` is answered with the failure envelope and cancelled at the server
  (``notifications/cancelled``, as the specification asks of a requester that gives up).
- ``tools/call`` of a tool without a contract: answered with the failure envelope, never sent
  (unless unguarded tools are let through).
- ``tools/list`` answers: rewritten by :meth:`Guard.rewrite_tools_list`.
- ``notifications/progress`` for a guarded call: relayed without its free-text ``message``.
- ``notifications/cancelled`` from the client for a guarded call: relayed; the call ends
  there (its late answer, if any, is dropped, as the specification asks of the requester).
- server lines that are not JSON-RPC messages, answers to ids no request of the client's is
  waiting for, and late answers to guarded calls that already ended: dropped (said on stderr),
  never relayed — a lenient client might read an answer into them.

Everything else — initialize or server/discover, notifications, server-initiated requests
(sampling, elicitation, roots, ping) and the client's answers to them, ``input_required``
results, subscriptions — is relayed as it came. The relay knows no protocol version: it reads
each message for what it is.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import math
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from anyio.abc import Process

from harness.boundary.pipeline import Verdict, system_clock
from harness.boundary.transport import check_depth
from harness.codes import TRANSPORT_MAX_BYTES
from harness.drift import process as proc
from harness.errors import HarnessError, RejectedInput
from harness.guard.lines import HEAD, NO_ID, TAIL, LineSplitter, Oversized, recover_id
from harness.guard.policy import (
    PROTOCOL_META_PREFIX,
    Guard,
    GuardedTool,
    agent_tool_result,
    denied_tool_result,
    invalid_call_result,
    new_request_id,
)

#: A ``_meta`` member a client of the Python face adds to a call to find its verdict; the
#: relay removes it before the server sees the call.
CALL_TOKEN_META = "dev.contract-harness/call"
VERSION_META = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: Nesting the relay tolerates while it only reads a message's id and method; a guarded answer
#: is then held to its contract's own depth.
ROUTING_DEPTH = 256
#: The JSON-RPC error codes MCP reserves for itself (unsupported protocol version, missing
#: client capability, header mismatch): the client needs them as sent, to negotiate.
_PROTOCOL_ERRORS = range(-32099, -32019)
#: Guarded calls that ended without the server's answer (timeout, cancelled) whose ids are
#: remembered, so that a late answer is dropped rather than relayed.
_ENDED_KEPT = 4096

Log = Callable[[str], None]
OnVerdict = Callable[[Any, Verdict], None]


class ClientEndpoint(Protocol):
    """The client's side of the relay: bytes in (``b""`` at end of stream), lines out."""

    async def receive(self) -> bytes: ...

    async def send(self, data: bytes) -> None: ...


def _key(ident: Any) -> str:
    """A dictionary key for a JSON-RPC id: ids equal as JSON values, and only those, share one
    (``1`` and ``"1"`` differ)."""
    if type(ident) is int:
        return f"#{ident}"
    if type(ident) is str:
        return f"'{ident}"
    return json.dumps(ident, sort_keys=True)


def _shown(ident: Any) -> str:
    """A JSON-RPC id as written, for diagnostics."""
    text = json.dumps(ident, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


# One encoder for every message the relay writes (json.dumps with options builds a new one
# per call).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(message: Any) -> bytes:
    return _encode(message).encode("utf-8")


def _asyncio_stream(stream: Any, kind: type[Any]) -> Any:
    """The asyncio stream inside one of anyio's process streams, or None (another backend, or
    a stream of the caller's own). The relay's hot path reads and writes it directly: anyio's
    wrapper adds a cancellation check and a yield to the event loop around every write, which
    is most of what a message costs the loop (the relay's tasks never need the yield: each
    line is written whole before its first await, and the wait for a full buffer to drain is
    still awaited)."""
    inner = getattr(stream, "_stream", None)
    return inner if isinstance(inner, kind) else None


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        check_depth(line, ROUTING_DEPTH)
        message = json.loads(line)
    except (RejectedInput, ValueError):
        return None
    return message if isinstance(message, dict) else None


@dataclass(eq=False)
class _Call:
    ident: Any
    key: str
    tool: GuardedTool
    request: Mapping[str, Any]
    modern: bool
    token: Any
    progress: str | None
    started: float = field(default_factory=time.perf_counter)


class Relay:
    """One client, one server process, one guard. :meth:`run` returns when the server is gone
    (its exit status, or None when the guard stopped it after the client left)."""

    def __init__(
        self,
        guard: Guard,
        process: Process,
        client: ClientEndpoint,
        *,
        max_message_bytes: int,
        log: Log,
        stderr: Callable[[bytes], None] | None = None,
        on_verdict: OnVerdict | None = None,
    ) -> None:
        self.guard = guard
        self.process = process
        self.client = client
        self.cap = max_message_bytes
        self.log = log
        self.stderr = stderr
        self.on_verdict = on_verdict
        self._calls: dict[str, _Call] = {}
        self._progress: dict[str, _Call] = {}
        self._lists: set[str] = set()
        self._others: dict[str, str] = {}
        self._ended: dict[str, None] = {}
        # Deadlines of guarded calls, earliest first; answered calls are dropped when on top.
        self._deadlines: list[tuple[float, int, _Call]] = []
        self._order = itertools.count()
        self._wake = anyio.Event()
        self._client_left = False
        self._server_closed = False
        self._client_gone = False
        self._listed_names: set[str] = set()
        self._noted: set[str] = set()
        self._group: Any = None
        self._server_writer: asyncio.StreamWriter | None = _asyncio_stream(process.stdin, asyncio.StreamWriter)
        self._server_reader: asyncio.StreamReader | None = _asyncio_stream(process.stdout, asyncio.StreamReader)

    # ------------------------------------------------------------------ lifecycle
    async def run(self) -> int | None:
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._relay_stderr)
            group.start_soon(self._read_client)
            group.start_soon(self._expire_calls)
            await self._read_server()
            await self._server_gone()
            group.cancel_scope.cancel()
        if self._client_left:
            await proc.stop(self.process)
            return None
        await proc.wait_exit(self.process, 2.0)
        status = self.process.returncode
        await proc.stop(self.process)
        return status

    async def stop(self) -> None:
        """Stop the server (the client left, or a signal): close its input, then TERM, then KILL."""
        self._client_left = True
        await self._close_server_input()
        await proc.stop(self.process)

    async def _close_server_input(self) -> None:
        self._server_closed = True
        stdin = self.process.stdin
        if stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stdin.aclose()

    async def _read_client(self) -> None:
        splitter = LineSplitter(self.cap)
        while True:
            try:
                chunk = await self.client.receive()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                chunk = b""
            if not chunk:
                break
            for item in splitter.feed(chunk):
                await self._client_line(item)
        for item in splitter.finish():
            await self._client_line(item)
        # The client closed its side: shut the server down the way a client would.
        await self.stop()

    async def _read_server(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        reader = self._server_reader
        splitter = LineSplitter(self.cap)
        while True:
            try:
                chunk = await (stdout.receive(1 << 16) if reader is None else reader.read(1 << 16))
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                break
            if not chunk:  # the asyncio stream's end (anyio's raises EndOfStream)
                break
            for item in splitter.feed(chunk):
                await self._server_line(item)
        for item in splitter.finish():
            await self._server_line(item)

    async def _relay_stderr(self) -> None:
        stream, sink = self.process.stderr, self.stderr
        if stream is None or sink is None:
            return
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            while True:
                sink(await stream.receive(1 << 14))

    async def _server_gone(self) -> None:
        if not self._calls:
            return
        await proc.wait_exit(self.process, 0.5)
        status = self.process.returncode
        why = "the server closed its output" if status is None else f"the server exited with status {status}"
        for call in list(self._calls.values()):
            self._finish(call)
            await self._deliver(call, call.tool.unavailable(f"{why} before answering", call.request), "server_gone")

    # ------------------------------------------------------------------ sending
    # Each write is whole before its first await (a stream's write is synchronous; only the
    # wait for the buffer to drain yields), so messages from different tasks never interleave
    # and leave in the order they were sent; the wait is the backpressure.
    async def _send_server(self, line: bytes) -> None:
        stdin = self.process.stdin
        if self._server_closed or stdin is None:
            return
        writer = self._server_writer
        try:
            if writer is None:
                await stdin.send(line + b"\n")
            else:
                writer.write(line + b"\n")
                await writer.drain()
        except (OSError, RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            if not self._server_closed:
                self._server_closed = True
                self.log("the server stopped reading its input")

    async def _send_client(self, line: bytes) -> None:
        if self._client_gone:
            return
        try:
            await self.client.send(line + b"\n")
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._client_gone = True

    async def _answer(self, ident: Any, result: Mapping[str, Any]) -> None:
        await self._send_client(_dumps({"jsonrpc": "2.0", "id": ident, "result": result}))

    async def _error(self, ident: Any, code: int, message: str) -> None:
        await self._send_client(_dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}))

    # A line the relay fails to handle is a bug of ours; it must neither stop the relay nor let
    # anything around the guard: a client request gets an error, a server line is dropped (a
    # guarded call it answered then ends at its deadline, with the failure envelope).
    async def _client_line(self, item: bytes | Oversized) -> None:
        try:
            await self._from_client(item)
        except Exception as exc:
            self.log(f"internal error on a client message ({type(exc).__name__}: {exc}): answered with an error")
            ident = recover_id(item.head, item.tail) if isinstance(item, Oversized) else recover_id(item[:HEAD])
            if ident is not NO_ID and ident is not None:
                await self._error(ident, -32603, "contract-harness guard: internal error")

    async def _server_line(self, item: bytes | Oversized) -> None:
        try:
            await self._from_server(item)
        except Exception as exc:
            self.log(f"internal error on a server message ({type(exc).__name__}: {exc}): dropped")

    # ------------------------------------------------------------------ client -> server
    async def _from_client(self, item: bytes | Oversized) -> None:
        if isinstance(item, Oversized):
            ident = recover_id(item.head, item.tail)
            self.log(f"a client message of {item.size} bytes exceeds --max-message-bytes={self.cap}: not relayed")
            if ident is not NO_ID and ident is not None:
                await self._error(ident, -32600, f"message exceeds the guard's --max-message-bytes={self.cap}")
            return
        message = _parse(item)
        if message is None:
            await self._send_server(item)  # the server answers it (a parse error) as it would
            return
        method = message.get("method")
        if "id" in message and isinstance(method, str):
            key = _key(message["id"])
            self._ended.pop(key, None)
            if method == "tools/call":
                await self._call(item, message, key)
                return
            if method == "tools/list":
                self._lists.add(key)
            else:
                self._others[key] = method
        elif method == "notifications/cancelled":
            self._client_cancelled(message)
        await self._send_server(item)

    async def _call(self, line: bytes, message: dict[str, Any], key: str) -> None:
        ident = message["id"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = dict(params["_meta"]) if isinstance(params.get("_meta"), dict) else {}
        token = meta.pop(CALL_TOKEN_META, None)
        modern = VERSION_META in meta
        name = params.get("name")
        tool = self.guard.tool(name)
        if tool is None:
            if self.guard.allow_unguarded:
                self._others[key] = "tools/call"
                await self._send_server(line if token is None else self._with_meta(message, params, meta))
                return
            request_id = new_request_id()
            self.log(f"denied a call of {name!r} (JSON-RPC id {_shown(ident)}): no contract guards it")
            if self.guard.audit is not None:
                self.guard.audit.write_event(
                    self._now(), str(name), request_id, mcp_tool=name, jsonrpc_id=ident, event="denied",
                    reason="no contract guards this tool",
                )
            await self._answer(ident, denied_tool_result(str(name), request_id, modern=modern))
            return
        if "task" in params:
            await self._error(ident, -32601, f"tool {name!r} is guarded: it runs as a normal call, not as a task")
            return
        request_id = new_request_id()
        try:
            request = tool.request(params.get("arguments"), request_id)
            meta.update(tool.meta_for(request))
        except HarnessError as exc:  # arguments outside the request schema, or unusable in a meta template
            text = f"contract-harness guard: the call of {name!r} was not sent: {exc}"
            self.log(text.removeprefix("contract-harness guard: "))
            if self.guard.audit is not None:
                self.guard.audit.write_event(
                    self._now(), tool.contract.tool, request_id, mcp_tool=name, jsonrpc_id=ident,
                    event="invalid_request", reason=str(exc),
                )
            await self._answer(ident, invalid_call_result(text, modern=modern))
            return
        _drop_tasks_capability(meta)
        progress = meta.get("progressToken")
        call = _Call(ident, key, tool, request, modern, token, None if progress is None else _key(progress))
        self._calls[key] = call
        if call.progress is not None:
            self._progress[call.progress] = call
        deadline = time.monotonic() + tool.timeout_s
        if not self._deadlines or deadline < self._deadlines[0][0]:
            self._wake.set()
        heapq.heappush(self._deadlines, (deadline, next(self._order), call))
        original = params.get("_meta")
        await self._send_server(line if meta == original else self._with_meta(message, params, meta))

    @staticmethod
    def _with_meta(message: dict[str, Any], params: dict[str, Any], meta: dict[str, Any]) -> bytes:
        new_params = {k: v for k, v in params.items() if k != "_meta"}
        if meta:
            new_params["_meta"] = meta
        return _dumps({**message, "params": new_params})

    def _client_cancelled(self, message: dict[str, Any]) -> None:
        params = message.get("params")
        if not isinstance(params, dict) or "requestId" not in params:
            return
        key = _key(params["requestId"])
        self._lists.discard(key)
        self._others.pop(key, None)
        call = self._calls.get(key)
        if call is None:
            return
        self._finish(call)
        self._end(call)
        verdict = call.tool.unavailable("cancelled by the client", call.request)
        self._record(call, verdict, "cancelled")

    async def _expire_calls(self) -> None:
        """Answer every guarded call still open at its deadline (one task for all calls)."""
        while True:
            # The monotonic clock, not the backend's: only the delay reaches anyio, and reading
            # anyio's clock looks the backend up on every call.
            now = time.monotonic()
            # Answered calls leave their entries behind; they are dropped here as soon as they
            # reach the top, so the task sleeps until the earliest call still open rather than
            # waking once per answered call.
            while self._deadlines:
                deadline, _, call = self._deadlines[0]
                live = self._calls.get(call.key) is call
                if live and deadline > now:
                    break
                heapq.heappop(self._deadlines)
                if live:
                    await self._expire(call)
            delay = self._deadlines[0][0] - now if self._deadlines else math.inf
            with anyio.move_on_after(delay):
                await self._wake.wait()
            self._wake = anyio.Event()

    async def _expire(self, call: _Call) -> None:
        self._finish(call)
        self._end(call)
        limit = f"timeout_s={call.tool.timeout_s:g}"
        await self._deliver(call, call.tool.unavailable(f"no answer within {limit}", call.request), "timeout")
        reason = f"contract-harness guard: no answer within {limit}"
        await self._send_server(_dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": call.ident, "reason": reason}}))

    def _end(self, call: _Call) -> None:
        self._ended[call.key] = None
        if len(self._ended) > _ENDED_KEPT:
            del self._ended[next(iter(self._ended))]

    def _finish(self, call: _Call) -> None:
        self._calls.pop(call.key, None)
        if call.progress is not None:
            self._progress.pop(call.progress, None)

    # ------------------------------------------------------------------ server -> client
    async def _from_server(self, item: bytes | Oversized) -> None:
        if isinstance(item, Oversized):
            await self._oversized(item)
            return
        message = _parse(item)
        if message is None:
            await self._unreadable(item)
            return
        method = message.get("method")
        if isinstance(method, str):
            if method == "notifications/progress":
                item = self._progress_line(item, message)
            await self._send_client(item)
            return
        if "id" not in message:
            self.log(f"dropped a line of {len(item)} bytes from the server: not a JSON-RPC message")
            return
        key = _key(message["id"])
        call = self._calls.get(key)
        if call is not None:
            self._finish(call)
            await self._answered(call, item, message)
        elif key in self._lists:
            self._lists.discard(key)
            await self._tools_listed(message)
        elif key in self._others or message["id"] is None:
            # An answer to a request the guard relays as it is (or a parse error, id null).
            self._others.pop(key, None)
            await self._send_client(item)
        elif key in self._ended:
            del self._ended[key]
            self.log(f"dropped the late answer to JSON-RPC id {_shown(message['id'])} (the guarded call had ended)")
        else:
            # No request of the client's is outstanding under this id (a server that answers
            # a guarded call under another id): nothing may reach the client around the guard.
            self.log(f"dropped an answer of {len(item)} bytes to JSON-RPC id {_shown(message['id'])}, which no request "
                     "of the client's is waiting for")

    async def _answered(self, call: _Call, line: bytes, message: dict[str, Any]) -> None:
        result = message.get("result")
        error = message.get("error")
        if isinstance(result, dict):
            kind = result.get("resultType")
            if kind == "input_required":
                # Not a result: the server asks for input (MRTR) and the client retries the
                # call, which is then guarded like any other. Relayed as it came.
                await self._send_client(line)
                return
            if kind not in (None, "complete"):
                await self._deliver(call, call.tool.not_final(kind, call.request, line[: call.tool.max_message_bytes]),
                                    "answered")
                return
        elif isinstance(error, dict) and isinstance(error.get("code"), int) and error["code"] in _PROTOCOL_ERRORS:
            await self._send_client(line)  # protocol negotiation the client must see
            return
        verdict = self._judge(call, line)
        meta = result.get("_meta") if isinstance(result, dict) else None
        await self._deliver(call, verdict, "answered", meta)

    def _judge(self, call: _Call, line: bytes) -> Verdict:
        try:
            return call.tool.judge(line, call.ident, call.request)
        except Exception as exc:  # never crash the relay on one answer: fail closed
            self.log(f"{call.tool.name}: judging the answer failed: {type(exc).__name__}: {exc}")
            return call.tool.unavailable(f"the guard could not judge the answer ({type(exc).__name__})", call.request)

    async def _deliver(self, call: _Call, verdict: Verdict, event: str, upstream_meta: Any = None) -> None:
        result = agent_tool_result(verdict, modern=call.modern)
        if isinstance(upstream_meta, dict):
            kept = {k: v for k, v in upstream_meta.items() if isinstance(k, str) and k.startswith(PROTOCOL_META_PREFIX)}
            if kept:
                result["_meta"] = kept
        await self._answer(call.ident, result)
        self._record(call, verdict, event)

    def _record(self, call: _Call, verdict: Verdict, event: str) -> None:
        elapsed_ms = round((time.perf_counter() - call.started) * 1000, 3)
        if self.guard.audit is not None:
            self.guard.audit.write_call(verdict.audit, mcp_tool=call.tool.name, jsonrpc_id=call.ident,
                                        ms=elapsed_ms, event=event)
        if not verdict.accepted and event == "answered":
            where = f" at {verdict.instance_pointer}" if verdict.instance_pointer else ""
            self.log(f"{call.tool.name} (JSON-RPC id {_shown(call.ident)}, {verdict.audit.request_id}): rejected by "
                     f"{verdict.layer}: {verdict.code}{where}: {verdict.message}")
        if self.on_verdict is not None and call.token is not None:
            self.on_verdict(call.token, verdict)

    async def _oversized(self, item: Oversized) -> None:
        ident = recover_id(item.head, item.tail)
        key = _key(ident) if ident is not NO_ID else None
        call = self._calls.get(key) if key is not None else None
        if call is not None:
            self._finish(call)
            limit = min(call.tool.max_message_bytes, self.cap)
            verdict = call.tool.refused(
                TRANSPORT_MAX_BYTES, f"JSON-RPC message exceeds max_message_bytes={limit}", call.request,
                item.head[: limit + 1],
            )
            await self._deliver(call, verdict, "answered")
            return
        text = f"a server message of {item.size} bytes exceeds --max-message-bytes={self.cap}"
        if key is not None and (key in self._lists or key in self._others):
            self._lists.discard(key)
            self._others.pop(key, None)
            self.log(f"{text}: answered with an error")
            await self._error(ident, -32603, f"the server's answer exceeds the guard's --max-message-bytes={self.cap}")
        else:
            self.log(f"{text}: dropped")

    async def _unreadable(self, line: bytes) -> None:
        ident = recover_id(line[:HEAD], line[-TAIL:])
        key = _key(ident) if ident is not NO_ID else None
        call = self._calls.get(key) if key is not None else None
        if call is not None:
            self._finish(call)
            await self._deliver(call, self._judge(call, line), "answered")
        elif key is not None and key in self._lists:
            self._lists.discard(key)
            await self._error(ident, -32603, "the server's tools/list answer is not valid JSON")
        elif key is not None and key in self._others:
            self._others.pop(key, None)
            await self._send_client(line)  # the answer to a call the guard does not judge
        elif key is not None and key in self._ended:
            del self._ended[key]
            self.log(f"dropped the late answer to JSON-RPC id {_shown(ident)} (the guarded call had ended)")
        else:
            self.log(f"dropped a line of {len(line)} bytes from the server: not a JSON-RPC message")

    async def _tools_listed(self, message: dict[str, Any]) -> None:
        result = message.get("result")
        if not isinstance(result, dict):
            await self._send_client(_dumps(message))  # an error answer: nothing to filter
            return
        try:
            rewritten, hidden, notes = self.guard.rewrite_tools_list(result)
        except ValueError as exc:
            self.log(f"the server's tools/list answer cannot be read ({exc}): answered with an error")
            await self._error(message["id"], -32603, "the server's tools/list answer could not be read by the guard")
            return
        for note in notes:
            self.log(note)
        names = [t.get("name") for t in result["tools"]]
        self._listed_names.update(n for n in names if isinstance(n, str))
        if hidden:
            self.log(f"tools/list: hid {len(hidden)} tool(s) without a contract: {', '.join(hidden)}")
        if not result.get("nextCursor"):
            for note in self.guard.unlisted(self._listed_names):
                if note not in self._noted:
                    self._noted.add(note)
                    self.log(note)
            self._listed_names.clear()
        await self._send_client(_dumps({**message, "result": rewritten}))

    def _progress_line(self, line: bytes, message: dict[str, Any]) -> bytes:
        params = message.get("params")
        if not isinstance(params, dict) or "message" not in params:
            return line
        call = self._progress.get(_key(params.get("progressToken")))
        if call is None:
            return line
        return _dumps({**message, "params": {k: v for k, v in params.items() if k != "message"}})

    def _now(self) -> Any:
        return (self.guard.clock or system_clock)()


def _drop_tasks_capability(meta: dict[str, Any]) -> None:
    """A guarded call must be answered in place: without the tasks extension in the request's
    capabilities, a server never answers it with a task handle (2026-07-28)."""
    capabilities = meta.get(CAPABILITIES_META)
    if not isinstance(capabilities, dict):
        return
    extensions = capabilities.get("extensions")
    if isinstance(extensions, dict) and TASKS_EXTENSION in extensions:
        rest = {k: v for k, v in extensions.items() if k != TASKS_EXTENSION}
        meta[CAPABILITIES_META] = {**capabilities, "extensions": rest}
