"""MCP over Streamable HTTP (protocol 2025-03-26 and later), client side, message by message as
raw bytes.

An MCP SDK parses every message before its caller sees it; the boundary must judge the message
as it came off the wire. This module hands over each JSON-RPC message exactly as received — a
JSON response body, or the ``data`` of one server-sent event — and never re-serialises one.

:class:`StreamableHttpClient` is the transport (the ``mcp`` upstreams of drift and ``import mcp
--url`` use it; the guard's upstream side can too)::

    client = StreamableHttpClient("https://mcp.example/mcp", headers={"Authorization": "Bearer ..."},
                                  max_message_bytes=1 << 20, timeout_s=10, connect_timeout_s=5)
    async with client:                                   # open() ... close()
        async with aclosing(client.send(initialize_bytes)) as messages:
            async for raw in messages:                   # bytes: one JSON-RPC message each
                ...
        client.protocol_version = "2025-06-18"           # what initialize negotiated
        async with aclosing(client.listen()) as messages:  # the GET stream, when the server has one
            ...

- ``open()`` makes the HTTP client; ``close()`` ends the session (``DELETE`` with its
  ``Mcp-Session-Id``; a 405 or any failure of it is ignored) and closes the client. Both are
  what ``async with`` does.
- ``send(message)`` POSTs one JSON-RPC message (bytes, sent as they are) and yields every
  message of the answer, in order: nothing for a ``202 Accepted`` (a notification or a
  response), the body of an ``application/json`` answer, or each event of a
  ``text/event-stream`` answer — the request's answer and the notifications and requests the
  server interleaves before it. Close it early with :func:`contextlib.aclosing` (the answer's
  stream is then closed, nothing more is read).
- ``listen()`` opens the GET stream for messages the server sends outside any request; a
  server without one (405) ends it at once.
- The session id the server assigns (``Mcp-Session-Id`` of the first answer that carries
  one) is sent on every later request, and ``MCP-Protocol-Version`` once ``protocol_version``
  is set (:class:`McpHttpSession` sets it from the initialize answer).
- A message longer than ``max_message_bytes`` is never buffered: its first
  ``max_message_bytes + 1`` bytes are yielded (enough for a reader to prove it too long, as
  :func:`harness.drift.frame.read_call_line` does) and the rest is read and dropped.
- Failures raise :class:`HttpTransportError`: a transport code (``transport.unavailable``,
  ``transport.content_type``), a reason of :data:`harness.drift.kinds.REASONS`, a one-line
  message and the HTTP status. No response body and no header value is ever quoted in one.

Redirects are not followed, proxies from the environment are not used, and responses must not
be compressed (``Accept-Encoding: identity``; a compressed answer is refused).

:class:`McpHttpSession` is the little of the protocol drift and import need on top: the
initialize handshake (versions 2025-03-26 and later), a request with an id and its answer taken
raw, the server's own requests answered (``ping`` with an empty result, anything else with
``method not found``) and its notifications dropped.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing, suppress
from types import TracebackType
from typing import Any

import anyio
import httpx

from harness.codes import TRANSPORT_CONTENT_TYPE, TRANSPORT_FRAME, TRANSPORT_UNAVAILABLE
from harness.errors import RejectedInput
from harness.strict_json import strict_loads
from harness.version import __version__

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
#: The version a client offers, and those it accepts back: the Streamable HTTP transport exists
#: from 2025-03-26 on (2024-11-05 had HTTP+SSE, another transport).
OFFERED_VERSION = "2025-11-25"
HTTP_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
_JSON = "application/json"
_SSE = "text/event-stream"
#: Room beside the data on one SSE line (``data: ``) before a line counts as too long.
_FIELD_ROOM = 64
_DELETE_TIMEOUT_S = 3.0
#: Nesting tolerated while reading what kind of message a line is (the caller judges the rest).
_ROUTING_DEPTH = 256
_METHOD_NOT_FOUND = -32601


class HttpTransportError(Exception):
    """An exchange that brought no message: ``code`` a transport code, ``reason`` a key of
    :data:`harness.drift.kinds.REASONS`, ``status`` the HTTP status when there was one."""

    def __init__(self, code: str, reason: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.status = status


class StreamableHttpClient:
    """One MCP session over Streamable HTTP (see the module's docstring for the API)."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_message_bytes: int,
        timeout_s: float = 10.0,
        connect_timeout_s: float = 5.0,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.max_message_bytes = max_message_bytes
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> StreamableHttpClient:
        await self.open()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> None:
        if self._client is None:
            timeout = httpx.Timeout(connect=self.connect_timeout_s, read=self.timeout_s, write=self.timeout_s,
                                    pool=self.connect_timeout_s)
            self._client = httpx.AsyncClient(
                timeout=timeout, follow_redirects=False, trust_env=False,
                headers={"User-Agent": f"contract-harness/{__version__}"},
            )

    async def close(self) -> None:
        """End the session (DELETE, when the server gave one) and close the client. Never raises."""
        client, self._client = self._client, None
        if client is None:
            return
        with anyio.CancelScope(shield=True):
            if self.session_id is not None:
                with anyio.move_on_after(_DELETE_TIMEOUT_S), suppress(httpx.HTTPError, OSError):
                    await client.delete(self.url, headers=self._headers(accept=None))
            await client.aclose()

    def _headers(self, accept: str | None) -> dict[str, str]:
        headers = dict(self.headers)
        headers["Accept-Encoding"] = "identity"
        if accept is not None:
            headers["Accept"] = accept
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        if self.protocol_version is not None:
            headers[VERSION_HEADER] = self.protocol_version
        return headers

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            raise HttpTransportError(TRANSPORT_UNAVAILABLE, "closed", "the client is not open")
        return self._client

    async def send(self, message: bytes) -> AsyncGenerator[bytes, None]:
        """POST one message; yield each message of the answer, raw (see the module docstring)."""
        headers = self._headers(accept=f"{_JSON}, {_SSE}")
        headers["Content-Type"] = _JSON
        async for raw in self._exchange("POST", headers, message):
            yield raw

    async def listen(self, read_timeout_s: float | None = None) -> AsyncGenerator[bytes, None]:
        """The GET stream: messages the server sends outside any request. Ends at once when the
        server has none (405). ``read_timeout_s`` bounds each wait (default: none)."""
        async for raw in self._exchange("GET", self._headers(accept=_SSE), None, read_timeout_s, listening=True):
            yield raw

    async def _exchange(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes | None,
        read_timeout_s: float | None = None,
        *,
        listening: bool = False,
    ) -> AsyncGenerator[bytes, None]:
        client = self._http()
        extensions = None
        if listening:
            timeout = httpx.Timeout(connect=self.connect_timeout_s, read=read_timeout_s, write=self.timeout_s,
                                    pool=self.connect_timeout_s)
            extensions = {"timeout": timeout.as_dict()}
        request = client.build_request(method, self.url, headers=headers, content=body, extensions=extensions)
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise _transport_error(exc) from None
        try:
            if self.session_id is None and response.headers.get(SESSION_HEADER):
                self.session_id = response.headers[SESSION_HEADER]
            status = response.status_code
            if listening and status == 405:
                return
            if status == 202 and not listening:
                return
            self._check_status(status)
            media = _media(response.headers.get("content-type"))
            encoding = _media(response.headers.get("content-encoding"))
            if encoding not in ("", "identity"):
                raise HttpTransportError(
                    TRANSPORT_CONTENT_TYPE, "corrupt", f"Content-Encoding {encoding[:40]!r} was not asked for", status
                )
            if media == _SSE:
                reader = SseReader(self.max_message_bytes)
                async for chunk in response.aiter_raw():
                    for raw in reader.feed(chunk):
                        yield raw
            elif media == _JSON and not listening:
                yield await _bounded_body(response, self.max_message_bytes + 1)
            else:
                shown = response.headers.get("content-type") or "(none)"
                expected = _SSE if listening else f"{_JSON} or {_SSE}"
                raise HttpTransportError(
                    TRANSPORT_CONTENT_TYPE, "http_status", f"Content-Type {shown[:80]!r} is not {expected}", status
                )
        except httpx.HTTPError as exc:
            raise _transport_error(exc) from None
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def _check_status(self, status: int) -> None:
        if 200 <= status < 300:
            return
        if status == 404 and self.session_id is not None:
            raise HttpTransportError(TRANSPORT_UNAVAILABLE, "closed", "the server ended the session (HTTP 404)", status)
        if 300 <= status < 400:
            raise HttpTransportError(TRANSPORT_UNAVAILABLE, "redirect", f"HTTP {status}: a redirect, not followed",
                                     status)
        raise HttpTransportError(TRANSPORT_UNAVAILABLE, "http_status", f"HTTP {status}", status)


def _media(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def _transport_error(exc: httpx.HTTPError) -> HttpTransportError:
    """The exception's kind and the operating system's words, never its text (which may hold
    the URL, and a secret in it)."""
    cause = exc.__cause__ or exc.__context__
    detail = type(exc).__name__
    if isinstance(cause, OSError) and cause.strerror:
        detail += f" ({cause.strerror})"
    if isinstance(exc, httpx.TimeoutException):
        return HttpTransportError(TRANSPORT_UNAVAILABLE, "timeout", f"{detail}: no answer in time")
    if isinstance(exc, httpx.ConnectError):
        return HttpTransportError(TRANSPORT_UNAVAILABLE, "refused", f"cannot connect: {detail}")
    return HttpTransportError(TRANSPORT_UNAVAILABLE, "reset", f"the exchange broke off: {detail}")


async def _bounded_body(response: httpx.Response, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    async for chunk in response.aiter_raw():
        parts.append(chunk[: limit - total])
        total += len(parts[-1])
        if total >= limit:
            break
    return b"".join(parts)


class SseReader:
    """Server-sent events, fed as bytes, read into the ``data`` of each ``message`` event.

    Lines end with CRLF, LF or CR; ``data`` lines of one event are joined with LF (the SSE
    rules), so the bytes of a one-line event are exactly what the server wrote after
    ``data:``. An event with empty data (a priming event carrying only an id) and events of
    another type are skipped. Nothing longer than ``cap + 1`` bytes is kept: an event whose
    data grows past ``cap`` keeps its first ``cap + 1`` bytes, a line past the cap is read and
    dropped up to its end.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.last_event_id: bytes | None = None
        self._line = bytearray()
        self._overflow: bytes | None = None  # the field of a line past the cap, dropped to its end
        self._after_cr = False
        self._data = bytearray()
        self._data_lines = 0
        self._event = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        out: list[bytes] = []
        start = 0
        if self._after_cr and chunk[:1] == b"\n":
            start = 1
        self._after_cr = False
        while start < len(chunk):
            ends = [i for i in (chunk.find(b"\n", start), chunk.find(b"\r", start)) if i >= 0]
            end = min(ends) if ends else -1
            if end < 0:
                self._partial(chunk[start:])
                break
            self._partial(chunk[start:end])
            self._end_line(out)
            if chunk[end : end + 1] == b"\r":
                if end + 1 == len(chunk):
                    self._after_cr = True
                elif chunk[end + 1 : end + 2] == b"\n":
                    end += 1
            start = end + 1
        return out

    def _partial(self, piece: bytes) -> None:
        if self._overflow is not None:
            if self._overflow == b"data":
                self._grow(b"", piece)
            return
        self._line += piece
        if len(self._line) > self.cap + _FIELD_ROOM:
            field, value = _field(bytes(self._line))
            self._line.clear()
            self._overflow = field
            if field == b"data":
                self._add_data(value)

    def _end_line(self, out: list[bytes]) -> None:
        if self._overflow is not None:
            self._overflow = None
            return
        line = bytes(self._line)
        self._line.clear()
        if not line:
            self._dispatch(out)
            return
        if line.startswith(b":"):
            return
        field, value = _field(line)
        if field == b"data":
            self._add_data(value)
        elif field == b"event":
            self._event = value
        elif field == b"id" and b"\0" not in value:
            self.last_event_id = value

    def _add_data(self, value: bytes) -> None:
        self._grow(b"\n" if self._data_lines else b"", value)
        self._data_lines += 1

    def _grow(self, separator: bytes, value: bytes) -> None:
        room = self.cap + 1 - len(self._data)
        if room > 0:
            self._data += (separator + value)[:room]

    def _dispatch(self, out: list[bytes]) -> None:
        data, lines, event = bytes(self._data), self._data_lines, self._event
        self._data.clear()
        self._data_lines = 0
        self._event = b""
        if lines and data and event in (b"", b"message"):
            out.append(data)


def _field(line: bytes) -> tuple[bytes, bytes]:
    name, colon, value = line.partition(b":")
    if not colon:
        return line, b""
    return name, value[1:] if value.startswith(b" ") else value


# --------------------------------------------------------------------------- the protocol on top


async def every_page(
    page: Callable[[str | None], Awaitable[tuple[list[Any], str | None]]], limit: int = 100
) -> list[Any]:
    """Every item of a paginated list (``tools/list``): ``page(cursor)`` gives one page's items
    and the next cursor, None or empty at the end; at most ``limit`` pages are asked for."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(limit):
        found, cursor = await page(cursor)
        items.extend(found)
        if not cursor:
            break
    return items


def message_kind(raw: bytes) -> tuple[str, Any, Any]:
    """What a raw message is, read only as far as routing needs: ``("request", id, method)``,
    ``("notification", None, method)``, ``("answer", id, None)`` or ``("unknown", None, None)``
    (not JSON, not an object: the caller judges it)."""
    try:
        message = strict_loads(raw, max_depth=_ROUTING_DEPTH)
    except RejectedInput:
        return "unknown", None, None
    if not isinstance(message, dict):
        return "unknown", None, None
    if isinstance(message.get("method"), str):
        return ("request" if "id" in message else "notification"), message.get("id"), message["method"]
    return "answer", message.get("id"), None


def encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class McpHttpSession:
    """Requests over a :class:`StreamableHttpClient`, each answer taken as the raw bytes."""

    def __init__(self, client: StreamableHttpClient) -> None:
        self.client = client
        self._ids = 0

    def next_id(self, prefix: str = "contract-harness-") -> str:
        self._ids += 1
        return f"{prefix}{self._ids}"

    async def initialize(self, client_name: str = "contract-harness") -> bytes:
        """The handshake: ``initialize``, its answer (raw), then ``notifications/initialized``.
        Raises :class:`HttpTransportError` when the server answers with no result or with a
        version that is not a Streamable HTTP one."""
        request = {
            "jsonrpc": "2.0", "id": self.next_id(), "method": "initialize",
            "params": {"protocolVersion": OFFERED_VERSION, "capabilities": {},
                       "clientInfo": {"name": client_name, "version": __version__}},
        }
        raw = await self.request_raw(encode(request), request["id"])
        version = _negotiated(raw, self.client.max_message_bytes)
        self.client.protocol_version = version
        await self.notify("notifications/initialized")
        return raw

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        async with aclosing(self.client.send(encode(message))) as messages:
            async for raw in messages:
                await self._answer_server(raw)

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> bytes:
        ident = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = dict(params)
        return await self.request_raw(encode(message), ident)

    async def request_raw(self, message: bytes, ident: Any) -> bytes:
        """POST a request (its bytes as given) and return its answer as received: the first
        message of the answer's stream that is not the server's own request or notification
        (one that is not even JSON counts as the answer: the caller judges it). Raises
        :class:`HttpTransportError` when the stream ends with none."""
        async with aclosing(self.client.send(message)) as messages:
            async for raw in messages:
                if len(raw) <= self.client.max_message_bytes and await self._answer_server(raw):
                    continue
                return raw
        raise HttpTransportError(TRANSPORT_UNAVAILABLE, "closed", f"the server sent no answer to request {ident!r}")

    async def _answer_server(self, raw: bytes) -> bool:
        """Answer a request of the server's (ping: {}, else method not found); True when ``raw``
        was the server's own request or notification."""
        kind, ident, method = message_kind(raw)
        if kind == "notification":
            return True
        if kind != "request":
            return False
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
        if method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": _METHOD_NOT_FOUND, "message": "the client does not serve this method"}
        async with aclosing(self.client.send(encode(reply))) as messages:
            async for _ in messages:
                pass
        return True


def _negotiated(raw: bytes, cap: int) -> str:
    """The protocol version an initialize answer names, when it is a Streamable HTTP one."""
    if len(raw) > cap:
        raise HttpTransportError(TRANSPORT_FRAME, "handshake", f"the initialize answer exceeds {cap} bytes")
    try:
        message = strict_loads(raw, max_depth=_ROUTING_DEPTH)
    except RejectedInput as exc:
        raise HttpTransportError(TRANSPORT_FRAME, "handshake", f"the initialize answer: {exc.message}") from None
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        error = message.get("error") if isinstance(message, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        said = f"JSON-RPC error {code}" if code is not None else "no result"
        raise HttpTransportError(TRANSPORT_UNAVAILABLE, "handshake", f"the server answered initialize with {said}")
    version = result.get("protocolVersion")
    if version not in HTTP_VERSIONS:
        shown = json.dumps(version)[:40]
        raise HttpTransportError(
            TRANSPORT_UNAVAILABLE, "handshake",
            f"the server answered initialize with protocol {shown}, not one of {', '.join(HTTP_VERSIONS)} "
            "(the versions with Streamable HTTP this client speaks)",
        )
    return str(version)
