"""``contract-harness guard --listen HOST:PORT``: the guard as a Streamable HTTP endpoint.

A client configures ``http://HOST:PORT/mcp`` in place of the server's URL. Each client session
(an ``initialize`` without ``Mcp-Session-Id``) gets its own :class:`~harness.guard.relay.Relay`
in front of its own server end — a process started from ``-- COMMAND`` (what one stdio client
would start), or a session with the remote server at ``--url`` — and a session id of the
guard's own (the server's, when it has one, is the server's text: the client never sees it).

The transport, as the MCP specification (2025-03-26 and later) describes it:

- ``POST``: one JSON-RPC message per request body, judged as the bytes that came (at most
  ``--max-message-bytes``; a longer body is refused with 413). A request's answer comes back on
  that POST as a ``text/event-stream`` — with the messages that belong to it first (progress,
  a request the server makes while answering it) — or as ``application/json`` when the client
  accepts only that. A notification or an answer gets ``202 Accepted``. A body that is not
  exactly one message and carries no id gets ``400`` with a JSON-RPC error.
- ``GET``: the session's stream for what belongs to no request (the server's own requests and
  notifications); without one open, such messages go to the newest open POST stream, else they
  are dropped (said on stderr).
- ``DELETE``: ends the session (its server end is stopped).
- An unknown ``Mcp-Session-Id`` gets ``404``; a request from a page of another origin (an
  ``Origin`` header naming a host other than this machine) gets ``403``: the guard listens for
  local clients (DNS rebinding).

A message without a session id that is not an ``initialize`` (a 2026-07-28 client, which has no
handshake) goes to one shared session.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from harness.guard.lines import HEAD, TAIL, Oversized
from harness.guard.messages import Malformed, classify, error_line
from harness.guard.messages import id_key as _key
from harness.guard.policy import Guard
from harness.guard.relay import Relay, ServerEndpoint

SESSION_HEADER = "mcp-session-id"
#: Messages queued for one stream before the relay waits for the client to read them.
_QUEUE = 64
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

Log = Callable[[str], None]
MakeServer = Callable[[], Awaitable[ServerEndpoint]]


class HttpClientEndpoint:
    """A session's client end: messages routed to the stream of the request they belong to."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self._streams: dict[str, MemoryObjectSendStream[bytes]] = {}
        self._order: list[str] = []
        self._listener: MemoryObjectSendStream[bytes] | None = None

    async def receive(self) -> bytes:  # the HTTP side hands messages to the relay itself
        await anyio.sleep_forever()
        return b""

    def open(self, key: str) -> MemoryObjectReceiveStream[bytes]:
        send, receive = anyio.create_memory_object_stream[bytes](_QUEUE)
        old = self._streams.pop(key, None)
        if old is not None:
            old.close()
        self._streams[key] = send
        self._order.append(key)
        return receive

    def close(self, key: str) -> None:
        stream = self._streams.pop(key, None)
        if stream is not None:
            stream.close()
        with suppress(ValueError):
            self._order.remove(key)

    def listen(self) -> MemoryObjectReceiveStream[bytes]:
        send, receive = anyio.create_memory_object_stream[bytes](_QUEUE)
        if self._listener is not None:
            self._listener.close()
        self._listener = send
        return receive

    async def send(self, data: bytes, related: str | None = None) -> None:
        stream = self._streams.get(related) if related is not None else None
        if stream is None:
            stream = self._listener
        if stream is None and self._order:
            stream = self._streams.get(self._order[-1])
        if stream is None:
            self.log(f"dropped a message of {len(data)} bytes for the client: no stream of the session is open")
            return
        try:
            await stream.send(data.rstrip(b"\n"))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            if stream is self._listener:
                self._listener = None

    def close_all(self) -> None:
        for key in list(self._streams):
            self.close(key)
        if self._listener is not None:
            self._listener.close()


@dataclass(eq=False)
class _Session:
    id: str
    relay: Relay
    client: HttpClientEndpoint
    done: anyio.Event = field(default_factory=anyio.Event)


class HttpGuard:
    """The ASGI application: sessions of relays behind one Streamable HTTP endpoint."""

    def __init__(self, guard: Guard, make_server: MakeServer, *, max_message_bytes: int, log: Log,
                 path: str = "/mcp") -> None:
        self.guard = guard
        self.make_server = make_server
        self.cap = max_message_bytes
        self.log = log
        self.path = path
        self._sessions: dict[str, _Session] = {}
        self._shared: _Session | None = None
        self._group: TaskGroup | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[HttpGuard]:
        """Sessions run in this context; leaving it stops every server end."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield self
            finally:
                for session in list(self._sessions.values()):
                    await session.relay.stop()
                if self._shared is not None:
                    await self._shared.relay.stop()
                group.cancel_scope.cancel()

    async def _new_session(self) -> _Session:
        assert self._group is not None, "HttpGuard.running() is not entered"
        server = await self.make_server()
        client = HttpClientEndpoint(self.log)
        relay = Relay(self.guard, server, client, max_message_bytes=self.cap, log=self.log)
        session = _Session(f"guard-session.{secrets.token_hex(16)}", relay, client)

        async def run() -> None:
            try:
                await relay.run(read_client=False)
            finally:
                client.close_all()
                self._sessions.pop(session.id, None)
                if self._shared is session:
                    self._shared = None
                session.done.set()

        self._group.start_soon(run)
        return session

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if scope.get("path", "").rstrip("/") not in (self.path.rstrip("/"), ""):
            await _respond(send, 404, b"not found: the guard serves " + self.path.encode())
            return
        origin = headers.get("origin")
        if origin and (urlsplit(origin).hostname or "") not in _LOCAL_HOSTS:
            self.log(f"refused a request from origin {json.dumps(origin)}: the guard serves local clients only")
            await _respond(send, 403, b"forbidden origin")
            return
        method = scope.get("method", "")
        if method == "POST":
            await self._post(headers, receive, send)
        elif method == "GET":
            await self._get(headers, send)
        elif method == "DELETE":
            await self._delete(headers, send)
        else:
            await _respond(send, 405, b"method not allowed", [(b"allow", b"GET, POST, DELETE")])

    def _session_for(self, headers: dict[str, str]) -> _Session | bool | None:
        """The session a request names; None when it names none; False for an unknown one."""
        name = headers.get(SESSION_HEADER)
        if name is None:
            return None
        return self._sessions.get(name, False)

    async def _post(self, headers: dict[str, str], receive: Any, send: Any) -> None:
        body = await _read_body(receive, self.cap)
        if isinstance(body, Oversized):
            self.log(f"a client message of {body.size} bytes exceeds --max-message-bytes={self.cap}: not relayed")
            await _respond_json(send, 413, error_line(None, -32600, f"message exceeds the guard's "
                                                                    f"--max-message-bytes={self.cap}"))
            return
        found = self._session_for(headers)
        if found is False:
            await _respond_json(send, 404, error_line(None, -32600, "unknown session (Mcp-Session-Id)"))
            return
        message = classify(body)
        new_session = False
        if isinstance(found, _Session):
            session = found
        elif not isinstance(message, Malformed) and message.kind == "request" and message.method == "initialize":
            session, new_session = await self._new_session(), True
            self._sessions[session.id] = session
        else:
            if self._shared is None:
                self._shared = await self._new_session()
            session = self._shared
        ids = message.ids if isinstance(message, Malformed) else (message.id,) if message.kind == "request" else ()
        if not ids:
            if isinstance(message, Malformed):
                self.log(f"refused a client message of {len(body)} bytes: {message.reason}")
                await _respond_json(send, 400, error_line(None, message.code, "contract-harness guard refused the "
                                                                              f"message: {message.reason}"))
                return
            await session.relay.from_client(body)
            await _respond(send, 202, b"")
            return
        key = _key(ids[0])
        stream = session.client.open(key)
        extra = [(SESSION_HEADER.encode(), session.id.encode())] if new_session else []
        try:
            await session.relay.from_client(body)
            if "text/event-stream" in headers.get("accept", "text/event-stream"):
                await _stream(send, stream, key, extra)
            else:
                await _single(send, stream, key, extra)
        finally:
            session.client.close(key)

    async def _get(self, headers: dict[str, str], send: Any) -> None:
        found = self._session_for(headers)
        if not isinstance(found, _Session):
            status = 404 if found is False else 405
            await _respond(send, status, b"open a session with initialize first" if status == 405 else b"unknown")
            return
        stream = found.client.listen()
        await _stream(send, stream, None, [])

    async def _delete(self, headers: dict[str, str], send: Any) -> None:
        found = self._session_for(headers)
        if not isinstance(found, _Session):
            await _respond(send, 404, b"unknown session")
            return
        self._sessions.pop(found.id, None)
        await found.relay.stop()
        await _respond(send, 200, b"")


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _read_body(receive: Any, cap: int) -> bytes | Oversized:
    """The request body; past ``cap`` bytes only its head and tail are kept."""
    body = bytearray()
    size = 0
    tail = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if len(body) <= cap:
            body += chunk
        tail = (tail + chunk)[-TAIL:]
        if not message.get("more_body"):
            break
    if size > cap:
        return Oversized(bytes(body[:HEAD]), tail, size)
    return bytes(body)


def _is_final(data: bytes, key: str | None) -> bool:
    """Whether a message answers the request the stream is for (the stream ends with it)."""
    if key is None:
        return False
    try:
        message = json.loads(data)
    except ValueError:
        return False
    return isinstance(message, dict) and "method" not in message and "id" in message and _key(message["id"]) == key


async def _stream(send: Any, stream: MemoryObjectReceiveStream[bytes], key: str | None,
                  extra: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), *extra]})
    async with stream:
        async for data in stream:
            await send({"type": "http.response.body", "body": b"event: message\ndata: " + data + b"\n\n",
                        "more_body": True})
            if _is_final(data, key):
                break
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _single(send: Any, stream: MemoryObjectReceiveStream[bytes], key: str,
                  extra: list[tuple[bytes, bytes]]) -> None:
    """The answer alone, as application/json (for a client that accepts nothing else)."""
    async with stream:
        async for data in stream:
            if _is_final(data, key):
                await _respond(send, 200, data, [(b"content-type", b"application/json"), *extra])
                return
    await _respond_json(send, 500, error_line(None, -32603, "the session ended before the answer"))


async def _respond(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    start_headers = headers if headers is not None else [(b"content-type", b"text/plain; charset=utf-8")]
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": body})


async def _respond_json(send: Any, status: int, message: dict[str, Any]) -> None:
    await _respond(send, status, json.dumps(message).encode(), [(b"content-type", b"application/json")])


def listen_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a pair; raises ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT (e.g. 127.0.0.1:8765)")
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(f"--listen {text!r}: the port must be 0..65535")
    return host.strip("[]"), number


async def serve_http(app: HttpGuard, host: str, port: int, *, on_listening: Callable[[str], None],
                     log: Log) -> int:
    """Serve until SIGTERM, SIGINT or SIGHUP, then stop every session's server end; 0.
    ``on_listening`` gets the endpoint's URL once bound."""
    import signal

    import uvicorn  # the HTTP server: loaded only for --listen

    class Server(uvicorn.Server):
        # The guard takes the signals itself: it must stop its sessions' servers before it
        # exits, and uvicorn would re-raise the signal once it has stopped serving.
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off", access_log=False)
    server = Server(config)
    async with app.running(), anyio.create_task_group() as group:

        async def on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
                async for number in signals:
                    log(f"{signal.Signals(number).name}: stopping")
                    server.should_exit = True
                    return

        group.start_soon(on_signal)
        serving = anyio.Event()

        async def serve() -> None:
            try:
                await server.serve()
            finally:
                serving.set()

        group.start_soon(serve)
        while not server.started and not serving.is_set():
            await anyio.sleep(0.02)
        if not server.started:
            group.cancel_scope.cancel()
            return 2
        name = server.servers[0].sockets[0].getsockname()
        shown = f"[{name[0]}]" if ":" in name[0] else name[0]
        on_listening(f"http://{shown}:{name[1]}{app.path}")
        await serving.wait()
        group.cancel_scope.cancel()
    return 0
