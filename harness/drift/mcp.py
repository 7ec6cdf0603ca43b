"""The ``mcp`` upstream kind: an MCP server over stdio or Streamable HTTP, its advertised schema
and raw results.

```yaml
upstreams:
  server:
    mcp:
      command: npx                # a server started over stdio ...
      args: [-y, "@modelcontextprotocol/server-memory"]
      env: {MEMORY_FILE_PATH: "${MEMORY_FILE_PATH}"}
      # url: "${NOTES_MCP_URL}"   # ... or one reached over Streamable HTTP
      # headers: {Authorization: "Bearer ${NOTES_TOKEN}"}
      tool: read_graph            # default: the contract's tool
      result: structured          # structuredContent (default), text or text_string
      # output_schema: none       # the server publishes none (a schema drafted from samples)
      meta: {request_id: "{request_id}"}
      startup_timeout_s: 20
      timeout_s: 5
    requests: [{}]
```

A ``tools/call`` is sent only for a tool ``tools/list`` annotates ``readOnlyHint: true``, or
when the upstream sets ``side_effects: allowed``; any other call is reported as not called.

**stdio.** The server is started in its own process group with a small environment (see
:func:`~harness.drift.server_env.server_environment`) and spoken to with the ``mcp`` SDK's :class:`~mcp.ClientSession`
for the handshake and ``tools/list`` (the advertised ``outputSchema`` is compared with the
contract's schema: schema drift). Each ``tools/call`` is sent by the harness itself, and its
answer is taken **as the bytes on the wire**: the client owns the server's stdout, hands every
other line to the SDK, and keeps the answer to its own call for
:func:`harness.drift.frame.read_call_line`. A line longer than ``max_message_bytes`` is never
buffered: past the cap it is read and dropped. Upstreams that start the same server (command,
args, env, directory) share one process, taking turns.

**Streamable HTTP** (``url:``, protocol 2025-03-26 and later): one session per server
(:mod:`harness.drift.mcp_http`: ``initialize``, ``Mcp-Session-Id``, ``MCP-Protocol-Version``,
``DELETE`` at the end); every answer, a JSON body or one event's data, is judged as received,
under the same caps and rules as stdio. The URL and ``headers:`` take ``${ENV}`` only (a
credential header must), and every value read is redacted from every output.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import Process
from mcp import ClientSession, types
from mcp.shared.message import SessionMessage

from harness.codes import TRANSPORT_CONTENT_TYPE, TRANSPORT_UNAVAILABLE
from harness.drift import process as proc
from harness.drift.frame import STRUCTURED, TEXT, TEXT_STRING, default_max_message_bytes, read_call_line
from harness.drift.http import check_http_url, check_url_secrets, header_templates
from harness.drift.kinds import REASONS, AdvertisedSchema, Config, Failure, Fetched, NotCalled, Refusal, SessionFailed
from harness.drift.mcp_http import HttpTransportError, McpHttpSession, StreamableHttpClient, every_page
from harness.drift.server_env import only_environment, server_environment_templates
from harness.drift.template import Environment, Template, template_values
from harness.errors import RejectedInput
from harness.strict_json import check_depth, strict_loads

if TYPE_CHECKING:
    from harness.contract import Contract, Upstream

DEFAULT_STARTUP_S = 10.0
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_CONNECT_S = 5.0
_CALL_PREFIX = "contract-harness-"
_SHUTDOWN_S = 6.0
_MAX_PAGES = 50
#: Nesting the stdout reader tolerates while it only looks for a message's id; the call that
#: receives the message then holds it to its contract's own depth.
_ROUTING_DEPTH = 256


class McpKind:
    name = "mcp"

    def configure(self, contract: Contract, upstream: Upstream, env: Environment) -> McpSource:
        cfg = Config(contract, upstream)
        server = _http_server(cfg, env) if "url" in cfg.data else _stdio_server(cfg, env)
        meta = tuple((name, cfg.template(f"meta/{name}", text)) for name, text in cfg.data.get("meta", {}).items())
        for _, template in meta:
            env.require(template)
        result = cfg.data.get("result", STRUCTURED)
        max_bytes = contract.limits.max_bytes
        return McpSource(
            name=upstream.name,
            server=server,
            tool=str(cfg.data.get("tool", contract.tool)),
            result=result if result in (TEXT, TEXT_STRING) else STRUCTURED,
            meta=meta,
            startup_timeout_s=cfg.number("startup_timeout_s", DEFAULT_STARTUP_S),
            timeout_s=cfg.number("timeout_s", DEFAULT_TIMEOUT_S),
            max_message_bytes=int(cfg.data.get("max_message_bytes", default_max_message_bytes(max_bytes))),
            max_depth=contract.limits.max_depth,
            requests=max(1, len(upstream.requests)),
            env=env,
            side_effects_allowed=upstream.side_effects_allowed,
            publishes_schema=cfg.data.get("output_schema") != "none",
        )


def _stdio_server(cfg: Config, env: Environment) -> StdioServer:
    if "headers" in cfg.data:
        raise cfg.error("headers", "headers belong to a server reached over Streamable HTTP (url:), not to one "
                                   "started over stdio (command:)")
    if "command" not in cfg.data:
        raise cfg.error("command", "an mcp upstream needs command: (a server over stdio) or url: (Streamable HTTP)")
    command = cfg.template("command")
    args = [cfg.template(f"args/{i}", text) for i, text in enumerate(cfg.data.get("args", []))]
    for key, template in [("command", command), *((f"args/{i}", t) for i, t in enumerate(args))]:
        only_environment(cfg, key, template)
        env.require(template)
    extra_env = server_environment_templates(cfg, env)
    program = proc.resolve_program(command.render(env, {}), cfg.contract.root, cfg.where("command"))
    root = cfg.contract.root
    return StdioServer(
        argv=(program, *(a.render(env, {}) for a in args)),
        display=" ".join([command.display({}), *(a.display({}) for a in args)]),
        env_extra=tuple((name, t.render(env, {})) for name, t in extra_env),
        cwd=(root / cfg.data["cwd"]).resolve() if "cwd" in cfg.data else root.resolve(),
    )


def _http_server(cfg: Config, env: Environment) -> HttpServer:
    for key in ("command", "args", "env", "cwd"):
        if key in cfg.data:
            raise cfg.error(key, f"{key} belongs to a server started over stdio (command:), not to one reached "
                                 "over Streamable HTTP (url:): give one of command and url")
    url = cfg.template("url")
    only_environment(cfg, "url", url)
    check_url_secrets(cfg, url)
    env.require(url)
    headers = header_templates(cfg, env)
    for name, template in headers:
        only_environment(cfg, f"headers/{name}", template)
    check_http_url(cfg, url.render(env, {}))
    return HttpServer(url=url, headers=headers, display=url.display({}),
                      connect_timeout_s=cfg.number("connect_timeout_s", DEFAULT_CONNECT_S))


@dataclass(frozen=True, slots=True)
class StdioServer:
    """A server started over stdio: its argv, its extra environment, its directory."""

    argv: tuple[str, ...]
    display: str
    env_extra: tuple[tuple[str, str], ...]
    cwd: Path


@dataclass(frozen=True, slots=True)
class HttpServer:
    """A server reached over Streamable HTTP: its URL and headers (templates of ``${ENV}``)."""

    url: Template
    headers: tuple[tuple[str, Template], ...]
    display: str
    connect_timeout_s: float


@dataclass(frozen=True, slots=True)
class McpSource:
    name: str
    server: StdioServer | HttpServer
    tool: str
    result: str
    meta: tuple[tuple[str, Template], ...]
    startup_timeout_s: float
    timeout_s: float
    max_message_bytes: int
    max_depth: int
    requests: int
    env: Environment
    side_effects_allowed: bool = False
    #: False (``output_schema: none``): the server publishes none, and its absence is no drift.
    publishes_schema: bool = True
    kind: str = "mcp"

    @property
    def display(self) -> str:
        return self.server.display

    @property
    def budget_s(self) -> float:
        return self.startup_timeout_s + self.requests * self.timeout_s + _SHUTDOWN_S

    def request_templates(self) -> list[Template]:
        return [t for _, t in self.meta]

    def describe(self, request: Mapping[str, Any]) -> str:
        args = json.dumps(dict(request.get("args", {})), ensure_ascii=False, sort_keys=True)
        return f"tools/call {self.tool} {args}"

    @property
    def connection_key(self) -> tuple[Any, ...]:
        """Sources with the same server (command line, environment and directory; or URL and
        headers) share one server process or HTTP session (one MCP server, many tools, one
        contract each)."""
        server = self.server
        if isinstance(server, HttpServer):
            return ("http", server.url.text, tuple((n, t.text) for n, t in server.headers), self.startup_timeout_s)
        return (server.argv, server.env_extra, str(server.cwd), self.startup_timeout_s)

    @property
    def capacity(self) -> int:
        return self.max_message_bytes

    @asynccontextmanager
    async def session(self) -> AsyncIterator[McpSession]:
        async with self.connect(self.capacity) as connection:
            yield self.session_on(connection)

    def session_on(self, connection: McpConnection) -> McpSession:
        return McpSession(self, connection)

    def connect(self, capacity: int) -> AbstractAsyncContextManager[McpConnection]:
        """Start the server (or open its HTTP session), initialize and list its tools. No
        message longer than ``capacity`` bytes is ever buffered (the largest cap of the sources
        sharing it; each call then holds its answer to its own cap)."""
        if isinstance(self.server, HttpServer):
            return self._connect_http(self.server, capacity)
        return self._connect_stdio(self.server, capacity)

    @asynccontextmanager
    async def _connect_stdio(self, server: StdioServer, capacity: int) -> AsyncIterator[McpConnection]:
        failed: SessionFailed | None = None
        async with AsyncExitStack() as stack:
            try:
                environment = proc.child_environment(dict(server.env_extra))
                process = await proc.start(list(server.argv), environment, server.cwd)
            except OSError as exc:
                raise SessionFailed(
                    Failure(
                        TRANSPORT_UNAVAILABLE,
                        "spawn",
                        f"cannot start the server: {exc.strerror or exc}",
                    )
                ) from None
            stack.push_async_callback(proc.stop, process)
            pipe = _Pipe(process, capacity)
            stack.callback(pipe.close_streams)
            group = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(group.cancel_scope.cancel)
            group.start_soon(pipe.read_stdout)
            group.start_soon(pipe.stderr.drain, process)
            group.start_soon(pipe.write_stdin)
            group.start_soon(pipe.forward_session)
            client = await stack.enter_async_context(ClientSession(pipe.session_read, pipe.session_write))
            outcome = await self._handshake(client, pipe)
            if isinstance(outcome, Failure):
                with anyio.move_on_after(1.0):  # what the server said on its way out
                    await pipe.stderr.done.wait()
                failed = SessionFailed(outcome, pipe.stderr.text())
            else:
                yield McpConnection(pipe, outcome, server.display)
        if failed is not None:
            raise failed  # outside the SDK session, so it is not wrapped in its task group's errors

    @asynccontextmanager
    async def _connect_http(self, server: HttpServer, capacity: int) -> AsyncIterator[McpConnection]:
        client = StreamableHttpClient(
            server.url.render(self.env, {}),
            headers={name: t.render(self.env, {}) for name, t in server.headers},
            max_message_bytes=capacity,
            timeout_s=max(self.timeout_s, self.startup_timeout_s),
            connect_timeout_s=server.connect_timeout_s,
        )
        async with client:
            link = _HttpLink(McpHttpSession(client))
            outcome = await self._http_handshake(link)
            if isinstance(outcome, Failure):
                raise SessionFailed(outcome)
            yield McpConnection(link, outcome, server.display)

    async def _handshake(self, client: Any, pipe: _Pipe) -> list[Any] | Failure:
        try:
            with anyio.fail_after(self.startup_timeout_s):
                await client.initialize()

                async def page(cursor: str | None) -> tuple[list[Any], str | None]:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    listed = await client.list_tools(params=params)
                    return list(listed.tools), listed.next_cursor

                tools = await every_page(page, _MAX_PAGES)
        except TimeoutError:
            return self._startup_timeout()
        except Exception as exc:
            reason = "closed" if pipe.closed else "handshake"
            return Failure(TRANSPORT_UNAVAILABLE, reason, f"the handshake failed: {type(exc).__name__}")
        return tools

    async def _http_handshake(self, link: _HttpLink) -> list[Any] | Failure:
        session = link.session
        try:
            with anyio.fail_after(self.startup_timeout_s):
                await session.initialize()

                async def page(cursor: str | None) -> tuple[list[Any], str | None]:
                    raw = await session.request("tools/list", {"cursor": cursor} if cursor else None)
                    listed = _tools_page(raw, self.max_depth)
                    return list(listed.tools), listed.next_cursor

                tools = await every_page(page, _MAX_PAGES)
        except TimeoutError:
            return self._startup_timeout()
        except HttpTransportError as exc:
            return Failure(exc.code if exc.code != TRANSPORT_CONTENT_TYPE else TRANSPORT_UNAVAILABLE,
                           exc.reason if exc.reason in REASONS else "handshake", f"the handshake failed: {exc.message}")
        except (RejectedInput, ValueError) as exc:
            return Failure(TRANSPORT_UNAVAILABLE, "handshake",
                           f"the handshake failed: tools/list answered with {type(exc).__name__}")
        return tools

    def _startup_timeout(self) -> Failure:
        return Failure(
            TRANSPORT_UNAVAILABLE,
            "timeout",
            f"no initialize and tools/list within startup_timeout_s={self.startup_timeout_s:g}",
        )


def _tools_page(raw: bytes, max_depth: int) -> Any:
    """A ``tools/list`` answer read into the SDK's result (what the stdio session gets)."""
    message = strict_loads(raw, max_depth=max(max_depth, _ROUTING_DEPTH))
    if not isinstance(message, dict) or not isinstance(message.get("result"), dict):
        raise ValueError("tools/list: no result")
    return types.ListToolsResult.model_validate(message["result"])


@dataclass
class McpConnection:
    """One running server (or HTTP session): its link, the tools it listed, and a lock (one
    raw call at a time)."""

    pipe: _Pipe | _HttpLink
    tools: list[Any]
    display: str
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    def listed(self, tool: str) -> Any:
        """The ``tools/list`` entry of ``tool``; None if the server does not list it."""
        return next((entry for entry in self.tools if entry.name == tool), None)

    def not_called(self, tool: str) -> NotCalled | None:
        """Why a call of ``tool`` may change data (drift then does not send it), or None when
        ``tools/list`` annotates it ``readOnlyHint: true``."""
        entry = self.listed(tool)
        if entry is None:
            why = f"the server does not list {tool!r}, so nothing says calling it is read-only"
        elif entry.annotations is None or entry.annotations.read_only_hint is not True:
            why = f"tools/list does not annotate {tool!r} readOnlyHint: true, so calling it may change data"
        else:
            return None
        return NotCalled("side_effects", f"{why} (set side_effects: allowed on the upstream to call it anyway)")

    def advertised(self, tool: str) -> AdvertisedSchema:
        target = f"tools/list {tool} on `{self.display}`"
        for listed in self.tools:
            if listed.name == tool:
                if listed.output_schema is None:
                    return AdvertisedSchema(None, f"the tool {tool!r} advertises no outputSchema", target=target)
                return AdvertisedSchema(json.loads(json.dumps(listed.output_schema)), target=target)
        names = ", ".join(sorted(t.name for t in self.tools)[:20])
        return AdvertisedSchema(
            None,
            f"the server lists no tool {tool!r} (it lists: {names or 'none'})",
            listed=False,
            target=target,
        )


class _HttpLink:
    """The HTTP session as a call sees it: what :class:`_Pipe` offers, over Streamable HTTP."""

    def __init__(self, session: McpHttpSession) -> None:
        self.session = session
        self.closed: str | None = None
        self.stderr = proc.StderrTail()  # a remote server writes to no stderr of ours
        self._calls = 0

    def next_call(self) -> int:
        self._calls += 1
        return self._calls

    async def exchange(self, call_id: str, line: bytes) -> bytes | None:
        """POST the call, and its answer as received (raises :class:`HttpTransportError`)."""
        try:
            return await self.session.request_raw(line, call_id)
        except HttpTransportError as exc:
            if exc.reason == "closed":
                self.closed = exc.message
            raise


class _Pending:
    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        self.event = anyio.Event()
        self.line: bytes | None = None


class _Pipe:
    """Owns the server's stdin and stdout: lines for the SDK go to it, the answer to a raw call
    is kept as bytes."""

    def __init__(self, process: Process, cap: int) -> None:
        self.process = process
        self.cap = cap
        self.stderr = proc.StderrTail()
        self.pending: _Pending | None = None
        self.closed: str | None = None
        self._calls = 0
        self._to_session, self.session_read = anyio.create_memory_object_stream[SessionMessage | Exception](64)
        self.session_write, self._from_session = anyio.create_memory_object_stream[SessionMessage](64)
        self._out, self._out_reader = anyio.create_memory_object_stream[bytes](64)

    def next_call(self) -> int:
        self._calls += 1
        return self._calls

    def close_streams(self) -> None:
        for stream in (
            self._to_session,
            self.session_read,
            self.session_write,
            self._from_session,
            self._out,
            self._out_reader,
        ):
            stream.close()

    async def send_line(self, line: bytes) -> None:
        await self._out.send(line)

    async def exchange(self, call_id: str, line: bytes) -> bytes | None:
        """Write the call's line and wait for its answer: the line as received (at most
        ``cap + 1`` bytes of one past the cap), or None when the server closed first."""
        pending = _Pending(call_id)
        self.pending = pending
        try:
            await self.send_line(line + b"\n")
            await pending.event.wait()
        finally:
            self.pending = None
        return pending.line

    async def forward_session(self) -> None:
        async with self._from_session:
            async for message in self._from_session:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await self._out.send(text.encode("utf-8") + b"\n")

    async def write_stdin(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        async with self._out_reader:
            async for line in self._out_reader:
                try:
                    await stdin.send(line)
                except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    self._close("the server stopped reading its input")
                    return

    async def read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        buffer = bytearray()
        discarding = False  # inside a message past the cap: dropped up to its newline, never kept
        try:
            while True:
                try:
                    chunk = await stdout.receive(1 << 16)
                except (
                    anyio.EndOfStream,
                    anyio.ClosedResourceError,
                    anyio.BrokenResourceError,
                    OSError,
                ):
                    break
                if discarding:
                    end = chunk.find(b"\n")
                    if end < 0:
                        continue
                    discarding, chunk = False, chunk[end + 1 :]
                buffer += chunk
                while True:
                    end = buffer.find(b"\n")
                    if end < 0:
                        break
                    line = bytes(buffer[:end])
                    del buffer[: end + 1]
                    await self._route(line.rstrip(b"\r"))
                if len(buffer) > self.cap:
                    await self._oversized(bytes(buffer[: self.cap + 1]))
                    buffer.clear()
                    discarding = True
        finally:
            self._close("the server closed its output")

    async def _oversized(self, head: bytes) -> None:
        """A message past the cap: the call waiting for an answer gets its first ``cap + 1``
        bytes (enough to prove it too long); the rest is read and dropped."""
        pending = self.pending
        if pending is not None and not pending.event.is_set():
            pending.line = head
            pending.event.set()
        else:
            await self._deliver(ValueError(f"a message from the server exceeds {self.cap} bytes"))

    async def _route(self, line: bytes) -> None:
        if not line.strip():
            return
        kind, message_id = self._classify(line)
        pending = self.pending
        if pending is not None and not pending.event.is_set() and kind in ("answer", "unknown"):
            # While a raw call is out the SDK session has nothing outstanding: an answer (or
            # anything unreadable) is the call's.
            pending.line = line
            pending.event.set()
            return
        if kind == "answer" and isinstance(message_id, str) and message_id.startswith(_CALL_PREFIX):
            return  # a late answer to a call that already timed out
        await self._deliver(_for_session(line))

    def _classify(self, line: bytes) -> tuple[str, Any]:
        try:
            check_depth(line, _ROUTING_DEPTH)
            message = json.loads(line)
        except (RejectedInput, ValueError):
            return "unknown", None
        if not isinstance(message, dict):
            return "unknown", None
        if "method" in message:
            return "other", None
        return "answer", message.get("id")

    async def _deliver(self, item: Any) -> None:
        if self.closed:
            return
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._to_session.send(item)

    def _close(self, why: str) -> None:
        if self.closed is None:
            self.closed = why
        pending = self.pending
        if pending is not None and not pending.event.is_set():
            pending.event.set()
        self._to_session.close()


def _for_session(line: bytes) -> Any:
    """What the SDK's own stdio transport would make of a line: a message, or the error."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except Exception as exc:
        return exc


class McpSession:
    """One source's view of a (possibly shared) server: its tool, its caps, its timeouts."""

    def __init__(self, source: McpSource, connection: McpConnection) -> None:
        self.source = source
        self.connection = connection
        self.pipe = connection.pipe

    async def advertised_schema(self) -> AdvertisedSchema:
        advertised = self.connection.advertised(self.source.tool)
        if advertised.listed and advertised.schema is None and not self.source.publishes_schema:
            return replace(advertised, problem=f"{advertised.problem}, as the upstream declares (output_schema: "
                                               "none): the contract's schema was drafted from samples",
                           none_declared=True)
        if advertised.listed and advertised.schema is None:
            return replace(advertised, problem=f"{advertised.problem} (a server that publishes none: set "
                                               "output_schema: none under the upstream's mcp:)")
        return advertised

    async def fetch(self, request: Mapping[str, Any]) -> Fetched:
        if not self.source.side_effects_allowed:
            why = self.connection.not_called(self.source.tool)
            if why is not None:
                return Fetched(not_called=why)
        async with self.connection.lock:  # one raw call at a time on a server
            return await self._call(request)

    async def _call(self, request: Mapping[str, Any]) -> Fetched:
        source, pipe = self.source, self.pipe
        if pipe.closed:
            return self._closed()
        call_id = f"{_CALL_PREFIX}{pipe.next_call()}"
        params: dict[str, Any] = {"name": source.tool, "arguments": dict(request.get("args", {}))}
        values = template_values(request)
        if source.meta:
            params["_meta"] = {name: t.render(source.env, values) for name, t in source.meta}
        line = json.dumps(
            {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params},
            ensure_ascii=False,
        ).encode("utf-8")
        try:
            with anyio.fail_after(source.timeout_s):
                answer = await pipe.exchange(call_id, line)
        except TimeoutError:
            return Fetched(
                failure=Failure(
                    TRANSPORT_UNAVAILABLE,
                    "timeout",
                    f"no answer within timeout_s={source.timeout_s:g}",
                ),
                stderr=pipe.stderr.text(),
            )
        except HttpTransportError as exc:
            if exc.code == TRANSPORT_CONTENT_TYPE:
                return Fetched(refusal=Refusal(exc.code, exc.message), info={"status": exc.status})
            info = {"status": exc.status} if exc.status is not None else {}
            return Fetched(failure=Failure(exc.code, exc.reason, exc.message), info=info)
        if answer is None:
            return self._closed()
        fetched = read_call_line(
            answer,
            expected_id=call_id,
            result=source.result,
            max_message_bytes=source.max_message_bytes,
            max_depth=source.max_depth,
        )
        if fetched.failure is not None:
            return Fetched(failure=fetched.failure, info=fetched.info, stderr=pipe.stderr.text())
        return fetched

    def _closed(self) -> Fetched:
        return Fetched(
            failure=Failure(TRANSPORT_UNAVAILABLE, "closed", self.pipe.closed or "the session is closed"),
            stderr=self.pipe.stderr.text(),
        )
