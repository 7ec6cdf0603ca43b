"""The guard's server end over Streamable HTTP: ``guard --url URL`` in front of a remote server.

:class:`RemoteServer` is a :class:`~harness.guard.relay.ServerEndpoint` over
:class:`harness.drift.mcp_http.StreamableHttpClient`, the transport drift and ``import mcp``
use: each message the relay sends is one ``POST``, and every message of its answer — a JSON
body, or each event's data of a ``text/event-stream`` — reaches the relay as the bytes that came
off the wire, in the order they came, beside what the session's ``GET`` stream carries (opened
once ``initialize`` is answered). The server's session id and protocol version header are the
transport's business: the client never sees them.

A request the transport cannot deliver (connection refused, a timeout, an HTTP error) is handed
to the relay as :class:`~harness.guard.messages.Unreachable`, so its client gets an answer at
once (a guarded call: the failure envelope, ``UPSTREAM_UNAVAILABLE``) rather than at the
request's deadline.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing, suppress
from typing import Any

import anyio
from anyio.abc import TaskGroup

from harness.drift.mcp_http import HttpTransportError, StreamableHttpClient
from harness.guard.lines import HEAD, TAIL, Oversized
from harness.guard.messages import KNOWN_PROTOCOL_VERSIONS, Unreachable

Log = Callable[[str], None]
Item = bytes | Oversized | Unreachable
#: Messages queued for the relay before a POST's reader waits.
_QUEUE = 256


class RemoteServer:
    """One session with a remote MCP server, as the relay's server end."""

    def __init__(self, url: str, *, headers: Mapping[str, str], cap: int, timeout_s: float, log: Log) -> None:
        self.url = url
        self.cap = cap
        self.log = log
        self.client = StreamableHttpClient(url, headers=headers, max_message_bytes=cap, timeout_s=timeout_s,
                                           connect_timeout_s=min(timeout_s, 10.0))
        self._out, self._in = anyio.create_memory_object_stream[Item](_QUEUE)
        self._group: TaskGroup | None = None
        self._ready = anyio.Event()
        self._closed = False
        self._listening = False

    async def messages(self) -> AsyncIterator[Item]:
        async with self._in:
            async for item in self._in:
                yield item

    async def run_beside(self) -> None:
        """The task group the POSTs and the GET stream run in, while the relay runs."""
        async with anyio.create_task_group() as group:
            self._group = group
            await self.client.open()
            self._ready.set()
            await anyio.sleep_forever()

    async def send(self, message: bytes) -> bool:
        if self._closed:
            return False
        await self._ready.wait()
        assert self._group is not None
        self._group.start_soon(self._post, message)
        return True

    async def _post(self, message: bytes) -> None:
        ident, method = _id_and_method(message)
        answers: list[bytes] = []
        try:
            async with aclosing(self.client.send(message)) as received:
                async for raw in received:
                    if method == "initialize":
                        answers.append(raw)
                    await self._put(self._item(raw))
        except HttpTransportError as exc:
            self.log(f"{method or 'a message'} to the server at {self.url} failed: {exc}")
            if ident is not None:
                await self._put(Unreachable(ident, str(exc)))
            return
        if method == "initialize":
            self._initialized(answers)

    def _initialized(self, answers: list[bytes]) -> None:
        """Note the negotiated version (sent as a header from now on) and open the GET stream."""
        for raw in answers:
            with suppress(ValueError):
                result = json.loads(raw).get("result")
                version = result.get("protocolVersion") if isinstance(result, dict) else None
                if version in KNOWN_PROTOCOL_VERSIONS:
                    self.client.protocol_version = version
        if not self._listening and self._group is not None:
            self._listening = True
            self._group.start_soon(self._listen)

    async def _listen(self) -> None:
        try:
            async with aclosing(self.client.listen(read_timeout_s=None)) as received:
                async for raw in received:
                    await self._put(self._item(raw))
        except HttpTransportError as exc:
            self.log(f"the server's GET stream at {self.url} ended: {exc}")

    def _item(self, raw: bytes) -> bytes | Oversized:
        if len(raw) > self.cap:  # the transport yields the first cap + 1 bytes of a longer one
            return Oversized(raw[:HEAD], raw[-TAIL:], len(raw))
        return raw

    async def _put(self, item: Item) -> None:
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._out.send(item)

    async def stop(self) -> None:
        """End the session (``DELETE``) and the stream of messages."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            await self.client.close()
        self._out.close()
        if self._group is not None:
            self._group.cancel_scope.cancel()

    async def status(self, wait: float) -> int | None:
        return None


def _id_and_method(message: bytes) -> tuple[Any, str | None]:
    """A message the relay sends (one it classified, or wrote itself): its id and method."""
    try:
        body = json.loads(message)
    except ValueError:
        return None, None
    if not isinstance(body, dict):
        return None, None
    method = body.get("method")
    return (body.get("id") if "method" in body else None), (method if isinstance(method, str) else None)
