"""The relay between an MCP client and the server it thinks it talks to. It fails closed.

Every line, either way, is first classified (:func:`harness.guard.messages.classify`): a
request, a notification, a response or an error, exactly one, or it is refused — with a
JSON-RPC error to the client when the client sent it, dropped and said on stderr when the
server did. Then each kind goes where the guard can vouch for it, and nowhere else:

- **client requests**: ``initialize``, ``server/discover``, ``ping``, ``tools/list`` and
  ``tools/call`` always, the methods of surfaces the operator passed (``--pass``); anything
  else (``Tools/Call``, a vendor method, ``resources/read`` unpassed) is answered with -32601
  and never sent. A ``tools/call`` of a tool without a contract is answered with the failure
  envelope and never sent (unless unguarded tools are let through). An id already in flight is
  refused. Every request the guard sends has a deadline: a guarded call its contract's
  ``timeout_s``, any other the guard's; at the deadline the client gets an answer and the
  server ``notifications/cancelled``.
- **server answers**: only to a request in flight, under its id; never as the server wrote
  them (:mod:`harness.guard.rebuild`). A guarded call's answer goes, as raw bytes, through the
  boundary: the client gets the agent view or the failure envelope, and the audit one line. An
  ``input_required`` answer is refused unless the contract allows the tool to ask for input
  and the protocol version in use defines it; then the client gets only what the protocol
  defines for it, its ``requestState`` replaced by a token of the guard's.
- **server requests**: ``ping`` and ``roots/list`` (rebuilt, under ids the guard issues), the
  passed surfaces' (sampling, elicitation); any other is answered -32601 at the server.
- **notifications**: progress for a request in flight (numbers only), cancellation of a
  request in flight, ``tools/list_changed``, and the passed surfaces'; the rest is dropped.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

import harness.guard.rebuild as rebuild
from harness.boundary.pipeline import Verdict, system_clock
from harness.codes import TRANSPORT_FRAME, TRANSPORT_INPUT_REQUIRED, TRANSPORT_MAX_BYTES
from harness.errors import HarnessError, excerpt
from harness.guard.lines import HEAD, NO_ID, LineSplitter, Oversized, recover_id
from harness.guard.messages import (
    INPUT_REQUIRED_VERSIONS,
    KNOWN_PROTOCOL_VERSIONS,
    Malformed,
    Message,
    Unreachable,
    classify,
    error_line,
    id_key,
    valid_id,
)
from harness.guard.policy import (
    Guard,
    GuardedTool,
    agent_tool_result,
    denied_tool_result,
    input_required_result,
    invalid_call_result,
    new_request_id,
)
from harness.guard.surfaces import (
    CLIENT_CAPABILITY,
    CLIENT_NOTIFICATIONS,
    CLIENT_REQUESTS,
    SERVER_NOTIFICATIONS,
    SERVER_REQUESTS,
    passed_methods,
    surface_of,
)

#: A ``_meta`` member a client of the Python face adds to a call to find its verdict; the
#: relay removes it before the server sees the call.
CALL_TOKEN_META = "dev.contract-harness/call"
VERSION_META = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The JSON-RPC errors MCP reserves for negotiation (unsupported protocol version, missing
#: client capability, header mismatch): the client gets them, rebuilt, as errors.
_PROTOCOL_ERRORS = range(-32099, -32019)
#: The error MCP's SDKs answer a request with when it timed out.
REQUEST_TIMEOUT = -32001
#: Ids of requests that ended without the server's answer, remembered so that a late answer
#: is dropped quietly; tokens the guard issued (cursors, request states); requests from the
#: server the client has not answered yet.
_ENDED_KEPT = 4096
_TOKENS_KEPT = 4096
_SERVER_REQUESTS_KEPT = 1024

Log = Callable[[str], None]
OnVerdict = Callable[[Any, Verdict], None]


class ClientEndpoint(Protocol):
    """The client's side of the relay: bytes in (``b""`` at end of stream; a transport that
    hands messages to :meth:`Relay.from_client` itself never returns any), messages out.
    ``related`` is the id key of the client's request a message answers or belongs to (its
    progress, a request the server makes while answering it), or None: where a transport has
    one stream per request (Streamable HTTP) it routes by it."""

    async def receive(self) -> bytes: ...

    async def send(self, data: bytes, related: str | None = None) -> None: ...


class ServerEndpoint(Protocol):
    """The server's side of the relay: one process over stdio, or a remote server over
    Streamable HTTP. Every message it yields is as it came off the wire (a line, a JSON body,
    one event's data), never re-serialised."""

    def messages(self) -> AsyncIterator[bytes | Oversized | Unreachable]:
        """What the server sends, in order, until it is gone (and where a request could not be
        delivered, an :class:`Unreachable` for it)."""
        ...

    async def send(self, message: bytes) -> bool:
        """Send one message; False once the server no longer reads (said once by the caller)."""
        ...

    async def run_beside(self) -> None:
        """Whatever the endpoint must do while the relay runs (a server's stderr copied out)."""
        ...

    async def stop(self) -> None:
        """The client left or a signal came: end the server the way a client would."""
        ...

    async def status(self, wait: float) -> int | None:
        """The server's exit status, waiting at most ``wait`` seconds (None: unknown, or none)."""
        ...


_key = id_key


def _quoted(value: Any) -> str:
    """A peer's value as a diagnostic quotes it: JSON with every character outside ASCII escaped
    (no line break of its own), cut to 40 characters."""
    return excerpt(value, 40, ensure_ascii=True)


# One encoder for every message the relay writes (json.dumps with options builds a new one
# per call).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(message: Any) -> bytes:
    return _encode(message).encode("utf-8")


class _Tokens:
    """Values of the server's the client must send back (a cursor, a request state), each
    handed to the client as a token the guard made: the client never sees the server's text."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._values: dict[str, Any] = {}

    def issue(self, value: Any) -> str:
        token = f"{self._prefix}.{secrets.token_hex(8)}"
        self._values[token] = value
        if len(self._values) > _TOKENS_KEPT:
            del self._values[next(iter(self._values))]
        return token

    def redeem(self, token: Any) -> Any:
        """The server's value for a token, or :data:`NO_ID` when the guard issued no such token."""
        return self._values.get(token, NO_ID) if isinstance(token, str) else NO_ID


@dataclass(eq=False)
class _Pending:
    """A client request sent to the server, waiting for its answer."""

    ident: Any
    key: str
    method: str
    deadline: float
    progress: str | None = None
    version: str | None = None
    # A guarded tools/call:
    tool: GuardedTool | None = None
    request: Mapping[str, Any] = field(default_factory=dict)
    token: Any = None
    started: float = field(default_factory=time.perf_counter)

    @property
    def modern(self) -> bool:
        return self.version is not None and self.version not in _HANDSHAKE_VERSIONS


_HANDSHAKE_VERSIONS = frozenset(KNOWN_PROTOCOL_VERSIONS[:-1])


class Relay:
    """One client, one server, one guard. :meth:`run` returns when the server is gone (its exit
    status, or None when the guard stopped it after the client left)."""

    def __init__(
        self,
        guard: Guard,
        server: ServerEndpoint,
        client: ClientEndpoint,
        *,
        max_message_bytes: int,
        log: Log,
        on_verdict: OnVerdict | None = None,
    ) -> None:
        self.guard = guard
        self.server = server
        self.client = client
        self.cap = max_message_bytes
        self.log = log
        self.on_verdict = on_verdict
        self._passed_requests, self._passed_notifications, self._passed_server_requests = passed_methods(
            guard.passed
        )
        self._pending: dict[str, _Pending] = {}
        self._progress: dict[str, _Pending] = {}
        self._ended: dict[str, None] = {}
        # Requests from the server, under the ids the guard gave them for the client.
        self._server_pending: dict[str, Any] = {}
        self._server_ids: dict[str, int] = {}
        self._issued = itertools.count(1)
        self._cursors = _Tokens("guard-cursor")
        self._states = _Tokens("guard-state")
        self._version: str | None = None
        # Deadlines of requests in flight, earliest first; answered ones are dropped when on top.
        self._deadlines: list[tuple[float, int, _Pending]] = []
        self._order = itertools.count()
        self._wake = anyio.Event()
        self._client_left = False
        self._server_closed = False
        self._client_gone = False
        self._listed_names: set[str] = set()
        self._noted: set[str] = set()

    # ------------------------------------------------------------------ lifecycle
    async def run(self, *, read_client: bool = True) -> int | None:
        """Relay until the server is gone. ``read_client`` False: the client's messages come
        through :meth:`from_client` (a transport that receives them itself)."""
        async with anyio.create_task_group() as group:
            group.start_soon(self.server.run_beside)
            if read_client:
                group.start_soon(self._read_client)
            group.start_soon(self._expire_requests)
            await self._read_server()
            await self._server_gone()
            group.cancel_scope.cancel()
        if self._client_left:
            await self.server.stop()
            return None
        status = await self.server.status(2.0)
        await self.server.stop()
        return status

    async def stop(self) -> None:
        """Stop the server (the client left, or a signal)."""
        self._client_left = True
        self._server_closed = True
        await self.server.stop()

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
                await self.from_client(item)
        for item in splitter.finish():
            await self.from_client(item)
        # The client closed its side: shut the server down the way a client would.
        await self.stop()

    async def _read_server(self) -> None:
        async for item in self.server.messages():
            await self._server_line(item)

    async def _server_gone(self) -> None:
        """Answer every request still in flight: the server will not."""
        if not self._pending:
            return
        status = await self.server.status(0.5)
        why = "the server closed its output" if status is None else f"the server exited with status {status}"
        for pending in list(self._pending.values()):
            self._finish(pending)
            if pending.tool is not None:
                await self._deliver(pending, pending.tool.unavailable(f"{why} before answering", pending.request),
                                    "server_gone")
            else:
                await self._send_client(_dumps(error_line(pending.ident, -32603, f"{why} before answering")),
                                        pending.key)

    # ------------------------------------------------------------------ sending
    async def _send_server(self, line: bytes) -> None:
        if self._server_closed:
            return
        if not await self.server.send(line):
            self._server_closed = True
            self.log("the server stopped reading its input")

    async def _send_client(self, line: bytes, related: str | None = None) -> None:
        if self._client_gone:
            return
        try:
            await self.client.send(line + b"\n", related)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._client_gone = True

    async def _answer(self, ident: Any, result: Mapping[str, Any]) -> None:
        await self._send_client(_dumps({"jsonrpc": "2.0", "id": ident, "result": result}), _key(ident))

    async def _error(self, ident: Any, code: int, message: str) -> None:
        await self._send_client(_dumps(error_line(ident, code, message)), None if ident is None else _key(ident))

    # A line the relay fails to handle is a bug of ours; it must neither stop the relay nor let
    # anything around the guard: a client request gets an error, a server line is dropped (a
    # request it answered then ends at its deadline).
    async def from_client(self, item: bytes | Oversized) -> None:
        """One message from the client (a line, or a transport's message)."""
        try:
            await self._from_client(item)
        except Exception as exc:
            self.log(f"internal error on a client message ({type(exc).__name__}): answered with an error")
            ident = recover_id(item.head, item.tail) if isinstance(item, Oversized) else recover_id(item[:HEAD])
            if valid_id(ident):
                await self._error(ident, -32603, "contract-harness guard: internal error")

    async def _server_line(self, item: bytes | Oversized | Unreachable) -> None:
        try:
            if isinstance(item, Unreachable):
                await self._unreachable(item)
                return
            await self._from_server(item)
        except Exception as exc:
            self.log(f"internal error on a server message ({type(exc).__name__}): dropped")

    # ------------------------------------------------------------------ client -> server
    async def _from_client(self, item: bytes | Oversized) -> None:
        if isinstance(item, Oversized):
            ident = recover_id(item.head, item.tail)
            self.log(f"a client message of {item.size} bytes exceeds --max-message-bytes={self.cap}: not relayed")
            await self._error(ident if valid_id(ident) else None, -32600,
                              f"message exceeds the guard's --max-message-bytes={self.cap}")
            return
        message = classify(item)
        if isinstance(message, Malformed):
            self.log(f"refused a client message of {len(item)} bytes: {message.reason}")
            text = f"contract-harness guard refused the message: {message.reason}"
            for ident in message.ids or (None,):
                await self._error(ident, message.code, text)
            return
        if message.kind == "request":
            await self._client_request(message)
        elif message.kind == "notification":
            await self._client_notification(message)
        else:
            await self._client_answer(message)

    async def _client_request(self, message: Message) -> None:
        key = _key(message.id)
        if key in self._pending:
            self.log(f"refused a client request under id {_quoted(message.id)}, which a request in flight uses")
            await self._error(message.id, -32600, "contract-harness guard: this id is already in use by a request "
                                                  "in flight")
            return
        method = message.method
        if method == "tools/call":
            await self._call(message, key)
            return
        line: bytes | None = message.raw
        if method in CLIENT_REQUESTS:
            if method == "tools/list":
                line = await self._with_server_cursor(message)
                if line is None:
                    return
            elif method == "initialize":
                line = self._initialize_line(message)
        elif method not in self._passed_requests:
            surface = surface_of(method)
            hint = f" (pass it with --pass {surface})" if surface else ""
            self.log(f"refused a client request for method {_quoted(method)}: not a method the guard relays{hint}")
            await self._error(message.id, -32601, "Method not found")
            return
        # subscriptions/listen stays open as long as the client listens: no deadline.
        timeout = math.inf if method == "subscriptions/listen" else self.guard.request_timeout_s
        self._track(message, key, timeout)
        assert line is not None
        await self._send_server(line)

    def _track(self, message: Message, key: str, timeout: float, **call: Any) -> _Pending:
        params = message.params
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        progress = meta.get("progressToken")
        version = meta.get(VERSION_META)
        pending = _Pending(
            message.id, key, message.method, time.monotonic() + timeout,
            progress=_key(progress) if valid_id(progress) else None,
            version=version if version in KNOWN_PROTOCOL_VERSIONS else self._version,
            **call,
        )
        self._ended.pop(key, None)
        self._pending[key] = pending
        if pending.progress is not None:
            self._progress[pending.progress] = pending
        if not self._deadlines or pending.deadline < self._deadlines[0][0]:
            self._wake.set()
        if math.isfinite(pending.deadline):
            heapq.heappush(self._deadlines, (pending.deadline, next(self._order), pending))
        return pending

    async def _with_server_cursor(self, message: Message) -> bytes | None:
        """A ``tools/list`` request with the guard's cursor token replaced by the server's."""
        params = message.params
        if "cursor" not in params:
            return message.raw
        cursor = self._cursors.redeem(params["cursor"])
        if cursor is NO_ID:
            await self._error(message.id, -32602, "Invalid params: unknown cursor")
            return None
        return _dumps({**message.body, "params": {**params, "cursor": cursor}})

    def _initialize_line(self, message: Message) -> bytes:
        """The client's ``initialize`` without the capabilities of surfaces not passed (so the
        server never asks for sampling or elicitation the guard would refuse)."""
        params = message.params
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict):
            return message.raw
        dropped = {name for surface, name in CLIENT_CAPABILITY.items() if surface not in self.guard.passed}
        if not dropped & capabilities.keys():
            return message.raw
        kept = {k: v for k, v in capabilities.items() if k not in dropped}
        return _dumps({**message.body, "params": {**params, "capabilities": kept}})

    async def _call(self, message: Message, key: str) -> None:
        ident, params = message.id, message.params
        meta = dict(params["_meta"]) if isinstance(params.get("_meta"), dict) else {}
        token = meta.pop(CALL_TOKEN_META, None)
        modern = VERSION_META in meta
        name = params.get("name")
        tool = self.guard.tool(name)
        if tool is None:
            if self.guard.allow_unguarded:
                self._track(message, key, self.guard.request_timeout_s)
                await self._send_server(message.raw if token is None else self._with_meta(message, meta))
                return
            request_id = new_request_id()
            self.log(f"denied a call of {_quoted(name)} (JSON-RPC id {_quoted(ident)}): no contract guards it")
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
        changes: dict[str, Any] = {}
        if "requestState" in params:  # the retry of a call that asked for input
            state = self._states.redeem(params["requestState"])
            if state is NO_ID:
                self.log(f"refused a retry of {name!r} (JSON-RPC id {_quoted(ident)}): its requestState is not one "
                         "the guard issued")
                await self._error(ident, -32602, "Invalid params: unknown requestState")
                return
            changes["requestState"] = state
        _drop_tasks_capability(meta)
        pending = self._track(message, key, tool.timeout_s, tool=tool, request=request, token=token)
        pending.started = time.perf_counter()
        original = params.get("_meta")
        if meta == original and not changes:
            await self._send_server(message.raw)
        else:
            await self._send_server(self._with_meta(message, meta, changes))

    @staticmethod
    def _with_meta(message: Message, meta: dict[str, Any], changes: Mapping[str, Any] | None = None) -> bytes:
        new_params = {k: v for k, v in message.params.items() if k != "_meta"}
        new_params.update(changes or {})
        if meta:
            new_params["_meta"] = meta
        return _dumps({**message.body, "params": new_params})

    async def _client_notification(self, message: Message) -> None:
        method = message.method
        if method == "notifications/cancelled":
            request_id = message.params.get("requestId")
            pending = self._pending.get(_key(request_id)) if valid_id(request_id) else None
            if pending is None:
                self.log(f"dropped the client's cancellation of JSON-RPC id {_quoted(request_id)}: no request of its "
                         "is in flight")
                return
            self._cancelled(pending)
        elif method not in CLIENT_NOTIFICATIONS:
            self.log(f"dropped a client notification {_quoted(method)}: not one the guard relays")
            return
        await self._send_server(message.raw)

    def _cancelled(self, pending: _Pending) -> None:
        self._finish(pending)
        self._end(pending)
        if pending.tool is not None:
            verdict = pending.tool.unavailable("cancelled by the client", pending.request)
            self._record(pending, verdict, "cancelled")

    async def _client_answer(self, message: Message) -> None:
        """The client's answer to a request of the server's, under the id the guard gave it."""
        key = _key(message.id)
        server_id = self._server_pending.pop(key, NO_ID) if message.id is not None else NO_ID
        if server_id is NO_ID:
            self.log(f"dropped a client answer to JSON-RPC id {_quoted(message.id)}: no request of the server's is "
                     "waiting for it")
            return
        self._server_ids.pop(_key(server_id), None)
        await self._send_server(_dumps({**message.body, "id": server_id}))

    async def _expire_requests(self) -> None:
        """Answer every request still open at its deadline (one task for all of them)."""
        while True:
            # The monotonic clock, not the backend's: only the delay reaches anyio, and reading
            # anyio's clock looks the backend up on every call.
            now = time.monotonic()
            # Answered requests leave their entries behind; they are dropped here as soon as
            # they reach the top, so the task sleeps until the earliest request still open.
            while self._deadlines:
                deadline, _, pending = self._deadlines[0]
                live = self._pending.get(pending.key) is pending
                if live and deadline > now:
                    break
                heapq.heappop(self._deadlines)
                if live:
                    await self._expire(pending)
            delay = self._deadlines[0][0] - now if self._deadlines else math.inf
            with anyio.move_on_after(delay):
                await self._wake.wait()
            self._wake = anyio.Event()

    async def _expire(self, pending: _Pending) -> None:
        self._finish(pending)
        self._end(pending)
        if pending.tool is not None:
            limit = f"timeout_s={pending.tool.timeout_s:g}"
            verdict = pending.tool.unavailable(f"no answer within {limit}", pending.request)
            await self._deliver(pending, verdict, "timeout")
        else:
            limit = f"{self.guard.request_timeout_s:g} s"
            self.log(f"the server did not answer {pending.method} (JSON-RPC id {_quoted(pending.ident)}) "
                     f"within {limit}")
            await self._error(pending.ident, REQUEST_TIMEOUT, f"contract-harness guard: no answer within {limit}")
        if pending.method == "initialize":  # the specification forbids cancelling it
            return
        reason = f"contract-harness guard: no answer within {limit}"
        await self._send_server(_dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": pending.ident, "reason": reason}}))

    def _end(self, pending: _Pending) -> None:
        self._ended[pending.key] = None
        if len(self._ended) > _ENDED_KEPT:
            del self._ended[next(iter(self._ended))]

    def _finish(self, pending: _Pending) -> None:
        self._pending.pop(pending.key, None)
        if pending.progress is not None and self._progress.get(pending.progress) is pending:
            del self._progress[pending.progress]

    # ------------------------------------------------------------------ server -> client
    async def _from_server(self, item: bytes | Oversized) -> None:
        if isinstance(item, Oversized):
            await self._oversized(item)
            return
        message = classify(item)
        if isinstance(message, Malformed):
            await self._malformed(item, message)
        elif message.kind == "request":
            await self._server_request(message)
        elif message.kind == "notification":
            await self._server_notification(message)
        else:
            await self._server_answer(message)

    async def _server_answer(self, message: Message) -> None:
        if message.id is None:
            self.log("dropped an error from the server with id null: it answers no request")
            return
        key = _key(message.id)
        pending = self._pending.get(key)
        if pending is None:
            if key in self._ended:
                del self._ended[key]
                self.log(f"dropped the late answer to JSON-RPC id {_quoted(message.id)} (the request had ended)")
            else:
                # No request of the client's is in flight under this id: nothing may reach
                # the client around the guard.
                self.log(f"dropped an answer of {len(message.raw)} bytes to JSON-RPC id {_quoted(message.id)}, which "
                         "no request of the client's is waiting for")
            return
        self._finish(pending)
        method = pending.method
        if pending.tool is not None:
            await self._answered(pending, message)
        elif method in self._passed_requests or method == "tools/call":
            # A surface the operator passed, or a tool let through unguarded: as it came.
            await self._send_client(message.raw, pending.key)
        elif message.kind == "error":
            await self._send_client(_dumps({"jsonrpc": "2.0", "id": pending.ident,
                                            "error": rebuild.error(message.body["error"])}), pending.key)
        else:
            await self._rebuilt_answer(pending, message.body["result"])

    async def _rebuilt_answer(self, pending: _Pending, result: dict[str, Any]) -> None:
        method = pending.method
        if method == "initialize":
            answer = rebuild.initialize_result(result, self.guard.passed)
            if answer is None:
                self.log("the server's initialize answer names no protocol version the guard knows: answered with "
                         "an error")
                await self._error(pending.ident, -32603, "contract-harness guard: the server answered initialize "
                                                         "with no protocol version the guard knows")
                return
            self._version = answer["protocolVersion"]
            await self._answer(pending.ident, answer)
        elif method == "server/discover":
            answer = rebuild.discover_result(result, self.guard.passed)
            if answer is None:
                await self._error(pending.ident, -32603, "contract-harness guard: the server supports no protocol "
                                                         "version the guard knows")
                return
            await self._answer(pending.ident, answer)
        elif method == "tools/list":
            await self._tools_listed(pending, result)
        else:  # ping
            await self._answer(pending.ident, rebuild.empty_result(result))

    async def _answered(self, pending: _Pending, message: Message) -> None:
        """A guarded call's answer: through the boundary, or refused."""
        tool = pending.tool
        assert tool is not None
        line = message.raw
        if message.kind == "error":
            error = message.body["error"]
            verdict = self._judge(pending, line)
            if error["code"] in _PROTOCOL_ERRORS:
                # Negotiation the client must see to retry (rebuilt), and the call's audit line.
                error_message = {"jsonrpc": "2.0", "id": pending.ident, "error": rebuild.error(error)}
                await self._send_client(_dumps(error_message), pending.key)
                self._record(pending, verdict, "protocol_error")
                return
            await self._deliver(pending, verdict, "answered")
            return
        result = message.body["result"]
        kind = result.get("resultType")
        if kind == "input_required":
            await self._input_required(pending, result, line)
            return
        if kind not in (None, "complete"):
            verdict = tool.not_final(kind, pending.request, line[: tool.max_message_bytes])
            await self._deliver(pending, verdict, "answered")
            return
        await self._deliver(pending, self._judge(pending, line), "answered")

    async def _input_required(self, pending: _Pending, result: dict[str, Any], line: bytes) -> None:
        """A request for input (2026-07-28): refused unless the contract allows the tool to ask
        and the protocol version in use defines it; then only what the protocol defines goes
        to the client, its request state as the guard's token."""
        tool = pending.tool
        assert tool is not None
        why = None
        if not tool.input_required:
            where = f"upstreams.{tool.upstream or '<name>'}.mcp"
            why = f"its contract does not allow it (input_required: allowed under {where})"
        elif pending.version not in INPUT_REQUIRED_VERSIONS:
            why = f"protocol version {pending.version or 'of this session'} defines no input_required"
        answer = None if why else input_required_result(result)
        if answer is None:
            message = (f"the tool asked for input (resultType input_required), which {why}" if why
                       else "the input_required result is not shaped as the protocol defines it")
            code = TRANSPORT_INPUT_REQUIRED if why else TRANSPORT_FRAME
            verdict = tool.refused(code, message, pending.request, line[: tool.max_message_bytes])
            await self._deliver(pending, verdict, "answered")
            return
        if "requestState" in result:
            answer["requestState"] = self._states.issue(result["requestState"])
        await self._answer(pending.ident, answer)
        self.log(f"{tool.name} (JSON-RPC id {_quoted(pending.ident)}): the tool asked for input; relayed as the "
                 "protocol defines it")
        if self.guard.audit is not None:
            elapsed_ms = round((time.perf_counter() - pending.started) * 1000, 3)
            self.guard.audit.write_event(
                self._now(), tool.contract.tool, pending.request.get("request_id"), outcome="input_required",
                mcp_tool=tool.name, jsonrpc_id=pending.ident, ms=elapsed_ms, event="input_required",
            )

    def _judge(self, pending: _Pending, line: bytes) -> Verdict:
        tool = pending.tool
        assert tool is not None
        try:
            return tool.judge(line, pending.ident, pending.request)
        except Exception as exc:  # never crash the relay on one answer: fail closed
            self.log(f"{tool.name}: judging the answer failed: {type(exc).__name__}: {exc}")
            return tool.unavailable(f"the guard could not judge the answer ({type(exc).__name__})", pending.request)

    async def _deliver(self, pending: _Pending, verdict: Verdict, event: str) -> None:
        await self._answer(pending.ident, agent_tool_result(verdict, modern=pending.modern))
        self._record(pending, verdict, event)

    def _record(self, pending: _Pending, verdict: Verdict, event: str) -> None:
        tool = pending.tool
        assert tool is not None
        elapsed_ms = round((time.perf_counter() - pending.started) * 1000, 3)
        if self.guard.audit is not None:
            self.guard.audit.write_call(verdict.audit, mcp_tool=tool.name, jsonrpc_id=pending.ident,
                                        ms=elapsed_ms, event=event)
        if not verdict.accepted and event == "answered":
            where = f" at {verdict.instance_pointer}" if verdict.instance_pointer else ""
            self.log(f"{tool.name} (JSON-RPC id {_quoted(pending.ident)}, {verdict.audit.request_id}): rejected by "
                     f"{verdict.layer}: {verdict.code}{where}: {verdict.message}")
        if self.on_verdict is not None and pending.token is not None:
            self.on_verdict(pending.token, verdict)

    async def _unreachable(self, item: Unreachable) -> None:
        """A request the server end could not deliver: answered now, not at its deadline."""
        pending = self._pending.get(_key(item.id)) if valid_id(item.id) else None
        if pending is None:
            return
        self._finish(pending)
        self._end(pending)
        why = f"the server could not be reached: {item.reason}"
        if pending.tool is not None:
            await self._deliver(pending, pending.tool.unavailable(why, pending.request), "unreachable")
        else:
            self.log(f"{pending.method} (JSON-RPC id {_quoted(pending.ident)}): {why}")
            await self._error(pending.ident, -32603, "contract-harness guard: the server could not be reached")

    async def _oversized(self, item: Oversized) -> None:
        ident = recover_id(item.head, item.tail)
        pending = self._pending.get(_key(ident)) if valid_id(ident) else None
        text = f"a server message of {item.size} bytes exceeds --max-message-bytes={self.cap}"
        if pending is None:
            self.log(f"{text}: dropped")
            return
        self._finish(pending)
        if pending.tool is not None:
            limit = min(pending.tool.max_message_bytes, self.cap)
            verdict = pending.tool.refused(
                TRANSPORT_MAX_BYTES, f"JSON-RPC message exceeds max_message_bytes={limit}", pending.request,
                item.head[: limit + 1],
            )
            await self._deliver(pending, verdict, "answered")
            return
        self.log(f"{text}: answered with an error")
        await self._error(ident, -32603, f"the server's answer exceeds the guard's --max-message-bytes={self.cap}")

    async def _malformed(self, line: bytes, malformed: Malformed) -> None:
        """A server line that is not exactly one kind of message: never relayed. A request in
        flight it seems to answer gets its answer from the guard (a guarded call's, judged:
        the boundary names what is wrong with the bytes)."""
        answered = [p for p in (self._pending.get(_key(i)) for i in malformed.ids) if p is not None]
        self.log(f"dropped a line of {len(line)} bytes from the server: {malformed.reason}")
        for pending in answered:
            self._finish(pending)
            if pending.tool is None:
                await self._error(pending.ident, -32603, "contract-harness guard: the server's answer could not be "
                                                         "read")
            elif malformed.parsed:
                verdict = pending.tool.refused(TRANSPORT_FRAME, f"not a JSON-RPC answer: {malformed.reason}",
                                               pending.request, line[: pending.tool.max_message_bytes])
                await self._deliver(pending, verdict, "answered")
            else:
                await self._deliver(pending, self._judge(pending, line), "answered")

    async def _server_request(self, message: Message) -> None:
        method = message.method
        if method not in SERVER_REQUESTS and method not in self._passed_server_requests:
            surface = surface_of(method)
            hint = f" (pass it with --pass {surface})" if surface else ""
            self.log(f"refused the server's request {_quoted(method)}: not one the guard relays{hint}")
            await self._send_server(_dumps(error_line(message.id, -32601, "Method not found")))
            return
        server_key = _key(message.id)
        if server_key in self._server_ids or len(self._server_pending) >= _SERVER_REQUESTS_KEPT:
            await self._send_server(_dumps(error_line(message.id, -32600, "Invalid Request")))
            return
        issued = next(self._issued)
        self._server_pending[_key(issued)] = message.id
        self._server_ids[server_key] = issued
        if method in self._passed_server_requests:
            await self._send_client(_dumps({**message.body, "id": issued}))
        else:  # ping, roots/list: nothing of the server's but the method
            await self._send_client(_dumps({"jsonrpc": "2.0", "id": issued, "method": method}))

    async def _server_notification(self, message: Message) -> None:
        method, params = message.method, message.params
        if method == "notifications/progress":
            token = params.get("progressToken")
            pending = self._progress.get(_key(token)) if valid_id(token) else None
            kept = rebuild.progress_params(params) if pending is not None else None
            if pending is not None and kept is not None:
                await self._send_client(_dumps({"jsonrpc": "2.0", "method": method, "params": kept}), pending.key)
            return
        if method == "notifications/cancelled":
            request_id = params.get("requestId")
            issued = self._server_ids.pop(_key(request_id), None) if valid_id(request_id) else None
            if issued is not None:
                self._server_pending.pop(_key(issued), None)
                await self._send_client(_dumps({"jsonrpc": "2.0", "method": method,
                                                "params": {"requestId": issued}}))
            return
        if method in SERVER_NOTIFICATIONS:  # tools/list_changed: the method alone
            await self._send_client(_dumps({"jsonrpc": "2.0", "method": method}))
        elif method in self._passed_notifications:
            await self._send_client(message.raw)
        else:
            self.log(f"dropped a server notification {_quoted(method)}: not one the guard relays")

    async def _tools_listed(self, pending: _Pending, result: dict[str, Any]) -> None:
        try:
            rewritten, hidden, notes = self.guard.rewrite_tools_list(result)
        except ValueError as exc:
            self.log(f"the server's tools/list answer cannot be read ({exc}): answered with an error")
            await self._error(pending.ident, -32603, "the server's tools/list answer could not be read by the guard")
            return
        for note in notes:
            self.log(note)
        names = [t.get("name") for t in result["tools"]]
        self._listed_names.update(n for n in names if isinstance(n, str))
        if hidden:
            self.log(f"tools/list: hid {len(hidden)} tool(s) without a contract: {', '.join(map(_quoted, hidden))}")
        cursor = result.get("nextCursor")
        if isinstance(cursor, str) and cursor:
            rewritten["nextCursor"] = self._cursors.issue(cursor)
        else:
            for note in self.guard.unlisted(self._listed_names):
                if note not in self._noted:
                    self._noted.add(note)
                    self.log(note)
            self._listed_names.clear()
        await self._answer(pending.ident, rewritten)

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
