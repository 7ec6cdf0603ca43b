"""Upstream kinds: the extension point through which drift reaches a live upstream.

A kind (:class:`UpstreamKind`) turns one ``upstreams.<name>`` entry of a contract into a
configured :class:`Source`, checking its configuration (and every ``${ENV}`` it needs) before
anything is sent. A source opens a :class:`Session` — one HTTP client, one MCP server process —
and fetches one response per sample request as a :class:`Fetched`: the body (never more than
``max_bytes + 1`` bytes of it), or why there is none. The runner does the rest (boundary,
fingerprint, diff), the same way for every kind.

Kinds are declared in a registry (:data:`KINDS`, a :class:`~harness.registry.Registry`), each
imported on first use so that ``mcp`` (a heavy import) costs nothing to runs that do not need
it. Tests build fresh registries.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.errors import ContractError
from harness.locate import position_in_file
from harness.registry import Registry

if TYPE_CHECKING:
    from harness.contract import Contract, Upstream
    from harness.drift.template import Environment, Template

#: Why an upstream gave no body. Stable: reports and dashboards group by them.
REASONS: dict[str, str] = {
    "refused": "the connection was refused (nothing listens there)",
    "timeout": "no complete answer within the configured timeout",
    "reset": "the connection was reset or closed before the answer was complete",
    "http_status": "an HTTP status that carries no result (5xx, 429, 401, ...)",
    "not_found": "the upstream says the resource does not exist (HTTP 404/410, a configured exit code)",
    "redirect": "a redirect to another host, refused",
    "exit_status": "the command exited with a non-zero status (or was killed)",
    "is_error": "the MCP tool answered with isError: true",
    "jsonrpc_error": "the MCP server answered the call with a JSON-RPC error",
    "closed": "the MCP server exited or closed its output during the session",
    "handshake": "the MCP server did not complete initialize and tools/list",
    "spawn": "the command or server could not be started",
    "corrupt": "the body could not be decoded (a broken gzip or deflate stream)",
    "run_budget": "the whole run reached its time budget before this request was answered",
    "invalid_request": (
        "the upstream refused the request itself as invalid (JSON-RPC -32602, -32601 or -32600, also "
        "inside an isError result; HTTP 400 or 422): the same request cannot succeed"
    ),
    "error": "sending the request failed inside the harness (the exception's type is named, never its text)",
    "no_requests": "not called: the upstream declares no sample requests (requests:)",
    "side_effects": (
        "not called: the request may change data (an HTTP method other than GET, an MCP tool "
        "tools/list does not annotate readOnlyHint: true) and the upstream does not set side_effects: allowed"
    ),
}
#: Reasons of checks that were deliberately not sent (status ``not_called``), never failures.
NOT_CALLED_REASONS = ("no_requests", "side_effects")
#: Methods drift sends without ``side_effects: allowed``: they never change data.
SAFE_HTTP_METHODS = ("GET", "HEAD")


@dataclass(frozen=True, slots=True)
class Failure:
    """No body to check: ``code`` is a transport code (``transport.unavailable``,
    ``transport.not_found``, ``transport.tool_error``), ``reason`` a key of :data:`REASONS`."""

    code: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """Bytes refused before the boundary's layers ran, because what surrounds the result is
    wrong: a Content-Type, a malformed or oversized JSON-RPC message. ``raw`` is what was read."""

    code: str
    message: str
    pointer: str | None = None
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class NotCalled:
    """A sample request deliberately not sent: ``reason`` a key of :data:`NOT_CALLED_REASONS`,
    ``message`` why, and how to opt in."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one sample request brought back: exactly one of ``body``, ``failure``, ``refusal``,
    ``not_called`` (the kind decided not to send it: it may change data).

    ``info`` holds operator facts (HTTP status, media type, exit status, JSON-RPC id);
    ``stderr`` the tail of a command's or server's standard error. Neither reaches an agent.
    """

    body: bytes | None = None
    failure: Failure | None = None
    refusal: Refusal | None = None
    not_called: NotCalled | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    stderr: str = ""


@dataclass(frozen=True, slots=True)
class AdvertisedSchema:
    """What an upstream says its result looks like (MCP ``tools/list``), or why it says nothing."""

    schema: Any = None
    problem: str | None = None
    listed: bool = True
    target: str = "tools/list"


class SessionFailed(Exception):
    """Opening a session failed (a server that does not start or answer the handshake): every
    sample request of the source gets ``failure``."""

    def __init__(self, failure: Failure, stderr: str = "") -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.stderr = stderr


class Session(Protocol):
    async def fetch(self, request: Mapping[str, Any]) -> Fetched: ...

    async def advertised_schema(self) -> AdvertisedSchema | None:
        """The output schema the upstream advertises; None for kinds that advertise nothing."""
        ...


class Source(Protocol):
    """A configured upstream. ``budget_s`` bounds the time of a whole session with every
    sample request; the run's budget is the sum over its sources."""

    kind: str
    name: str
    budget_s: float

    def describe(self, request: Mapping[str, Any]) -> str:
        """Where a request goes, for reports: ``${ENV}`` references shown, never their values."""
        ...

    def request_templates(self) -> list[Template]:
        """The templates filled from each request (their placeholders are checked up front)."""
        ...

    def session(self) -> AbstractAsyncContextManager[Session]: ...


@runtime_checkable
class SharedSource(Source, Protocol):
    """A source whose connection other sources may share: the runner opens one connection per
    ``connection_key`` (one MCP server process for all the tools it serves), big enough for the
    largest ``capacity`` among them, and gives each source its own session on it."""

    @property
    def connection_key(self) -> Hashable: ...

    @property
    def capacity(self) -> int: ...

    def connect(self, capacity: int) -> AbstractAsyncContextManager[Any]: ...

    def session_on(self, connection: Any) -> Session: ...


@runtime_checkable
class UpstreamKind(Protocol):
    """One way of reaching an upstream; ``name`` is the key under ``upstreams.<name>``."""

    name: str

    def configure(self, contract: Contract, upstream: Upstream, env: Environment) -> Source: ...


@dataclass(frozen=True, slots=True)
class Kind:
    """An upstream kind as the catalogue declares it: its name, one line on what it reaches, and
    its implementation, imported on first use (``mcp`` loads the MCP SDK and anyio: runs that
    reach no MCP server never pay for them). A :class:`Kind` is itself an
    :class:`UpstreamKind`: ``configure`` loads the implementation and hands over."""

    name: str
    summary: str
    implementation: str | Callable[[], UpstreamKind] = field(repr=False)
    _loaded: dict[str, UpstreamKind] = field(default_factory=dict, repr=False, compare=False)

    def load(self) -> UpstreamKind:
        """The implementation (imported and built once)."""
        kind = self._loaded.get("kind")
        if kind is None:
            if isinstance(self.implementation, str):
                module, _, attr = self.implementation.partition(":")
                kind = getattr(importlib.import_module(module), attr)()
            else:
                kind = self.implementation()
            assert kind is not None
            if kind.name != self.name:
                raise ValueError(f"upstream kind declared as {self.name!r} calls itself {kind.name!r}")
            kind = self._loaded.setdefault("kind", kind)
        return kind

    def configure(self, contract: Contract, upstream: Upstream, env: Environment) -> Source:
        return self.load().configure(contract, upstream, env)


class KindRegistry(Registry[Kind]):
    """Upstream kinds by name, each imported on first use. The package's are in :data:`KINDS`;
    tests build their own."""

    def __init__(self) -> None:
        super().__init__("upstream kind", unknown_code="usage.invalid")

    def declare(self, name: str, implementation: str | Callable[[], UpstreamKind], summary: str) -> Kind:
        """Declare a kind: ``implementation`` is ``"module:factory"`` or a callable building it."""
        return self.add(Kind(name, summary, implementation))


#: The kinds this package ships (``upstreams.<name>.<kind>`` in contract.yaml).
KINDS = KindRegistry()
KINDS.declare("http", "harness.drift.http:HttpKind",
              "an HTTP endpoint: a URL template filled from each sample request (GET or HEAD only, unless "
              "side_effects: allowed)")
KINDS.declare("command", "harness.drift.command:CommandKind",
              "a program run once per sample request; its standard output is the result")
KINDS.declare("mcp", "harness.drift.mcp:McpKind",
              "an MCP server over stdio: tools/list outputSchema, then tools/call per sample request")


# --------------------------------------------------------------------------- config helpers


class Config:
    """Reads one upstream's configuration mapping; errors name the file and pointer."""

    def __init__(self, contract: Contract, upstream: Upstream) -> None:
        self.file = str(contract.path)
        self.base = f"/upstreams/{upstream.name}/{upstream.kind}"
        self.data = upstream.config
        self.contract = contract
        self.upstream = upstream

    def where(self, key: str) -> str:
        return f"{self.file}: {self.base}/{key}"

    def error(self, key: str, message: str, code: str = "upstream.invalid") -> ContractError:
        return ContractError(message, file=self.file, pointer=f"{self.base}/{key}", locate=position_in_file, code=code)

    def number(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        return float(value)

    def template(self, key: str, text: str | None = None) -> Any:
        from harness.drift.template import Template

        return Template.parse(self.data[key] if text is None else text, self.where(key))
