"""What a contract is: frozen records of one tool's ``contract.yaml`` and its schema versions.

Records only: they import nothing from the boundary, which reads them. Loading and checking
them is :mod:`harness.contract.load`; what is compiled from them (validators, the adapter, the
normalised request) is the boundary's (:mod:`harness.boundary.compiled`,
:mod:`harness.boundary.adapter`, :mod:`harness.boundary.request`) and the differential's, and is
cached on the contract (:meth:`Contract.memo`). The methods below that return compiled forms
are conveniences over those modules, kept so ``contract.validator()`` reads as it always has:
the loader gives each contract its :class:`Compiler`, so that these records never import what
reads them.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from harness.codes import AgentCode
from harness.errors import ContractError
from harness.pointer import split
from harness.strict_json import DEFAULT_MAX_DEPTH

if TYPE_CHECKING:
    from harness.schemas import Document

_T = TypeVar("_T")
CONTRACT_FILE = "contract.yaml"
SCHEMAS_DIR = "schemas"
DEFAULT_REQUEST_ID = "req.J7q94MkP"
#: ``limits:`` when a contract says nothing: the transport layer's byte cap and nesting depth.
DEFAULT_MAX_BYTES = 1 << 20
#: Seconds one adapter call may take (``limits.adapter_timeout_s``): past it, ``adapter.timeout``.
DEFAULT_ADAPTER_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    adapter_timeout_s: float = DEFAULT_ADAPTER_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class BindingRule:
    """``result`` pointer (in the contract object) must equal ``request`` pointer."""

    name: str
    result: str
    request: str
    result_tokens: tuple[str, ...] = ()
    request_tokens: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, result: str, request: str) -> BindingRule:
        return cls(name, result, request, tuple(split(result)), tuple(split(request)))


#: Ceilings of a freshness window, past which a window is more likely a mistake than a choice.
#: A result older than a week is history, not status (weekly is the slowest cadence of the
#: builds, reviews and deployments an agent acts on); hosts synchronised with NTP disagree by
#: well under a second, and five minutes is the skew Kerberos tolerates by default. Lint holds
#: windows under them; check's fixed-offset near misses probe past them.
MAX_AGE_CEILING = timedelta(days=7)
MAX_FUTURE_SKEW_CEILING = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class FreshnessRule:
    field: str
    max_age: timedelta
    max_future_skew: timedelta = timedelta(seconds=30)
    max_age_text: str = ""
    max_future_skew_text: str = "PT30S"

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(split(self.field))


@dataclass(frozen=True, slots=True)
class ViewField:
    name: str
    pointer: str
    optional: bool = False
    tokens: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, pointer: str, optional: bool = False) -> ViewField:
        return cls(name, pointer, optional, tuple(split(pointer)))


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    retryable: frozenset[str] = frozenset({AgentCode.UPSTREAM_UNAVAILABLE.value})
    freshness_retryable: bool = True
    codes: tuple[str, ...] = ()

    @property
    def allowed(self) -> frozenset[str]:
        """Every failure code an agent may see from this tool."""
        return frozenset(c.value for c in AgentCode) | frozenset(self.codes)


@dataclass(frozen=True, slots=True)
class Envelope:
    """Member names of the result envelope (DESIGN.md section 1)."""

    tool: str = "tool"
    request_id: str = "request_id"
    outcome: str = "outcome"
    success: str = "success"
    failure: str = "failure"
    error_code: str = "/error/code"


@dataclass(frozen=True, slots=True)
class Upstream:
    """A live source for drift checks. ``kind`` is ``http``, ``command`` or ``mcp``.

    ``side_effects_allowed`` (``side_effects: allowed``) lets drift send requests that may
    change data: an HTTP method other than GET, an MCP tool not annotated read-only."""

    name: str
    kind: str
    config: Mapping[str, Any]
    requests: tuple[Mapping[str, Any], ...]
    side_effects_allowed: bool = False


@dataclass(frozen=True, slots=True)
class Waiver:
    """A finding accepted on purpose, with its reason: a lint rule's (``rule``) at a pointer of a
    schema file, or a check near miss's (``check``, an operator) at a pointer of the document
    it mutates (``schema``: the version or ``vendor`` judging it)."""

    rule: str
    pointer: str
    reason: str
    schema: str | None = None
    check: str | None = None



_DIRECTORY, _ROOT = ("directory",), ("root",)


class Compiler(Protocol):
    """What makes a contract's compiled forms, each built once and kept on the contract: the
    boundary's validators, adapter and request, the differential's reference validators
    (:class:`harness.contract.load.BoundaryCompiler`, given by the loader)."""

    def schema_validator(self, contract: Contract, version: int | None) -> Any: ...
    def view_schema(self, contract: Contract, version: int | None) -> dict[str, Any]: ...
    def view_validator(self, contract: Contract, version: int | None) -> Any: ...
    def vendor_validator(self, contract: Contract) -> Any: ...
    def request_validator(self, contract: Contract) -> Any: ...
    def reference_validator(self, contract: Contract, version: int | None) -> Any: ...
    def vendor_reference_validator(self, contract: Contract) -> Any: ...
    def adapter_function(self, contract: Contract) -> Callable[..., Any] | None: ...
    def adapter_version(self, contract: Contract) -> str | None: ...
    def normalise_request(self, contract: Contract, request: Mapping[str, Any] | None) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class Contract:
    """One tool's contract, loaded from disk. Immutable; what is compiled from it is built on
    first use and kept in it (:meth:`memo`)."""

    tool: str
    version: int
    schemas: Mapping[int, Any]
    path: Path
    description: str = ""
    limits: Limits = Limits()
    request_schema: Any = True
    request_example: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    request_id: str = DEFAULT_REQUEST_ID
    bindings: tuple[BindingRule, ...] = ()
    freshness: tuple[FreshnessRule, ...] = ()
    agent_view: tuple[ViewField, ...] = ()
    errors: ErrorPolicy = ErrorPolicy()
    envelope: Envelope | None = Envelope()
    adapter: str | None = None
    vendor_schema: Any = None
    default_now: datetime | None = None
    upstreams: tuple[Upstream, ...] = ()
    waivers: tuple[Waiver, ...] = ()
    #: Every schema file of the contract (``schemas/*.json``), by file URI and by ``$id``: what
    #: a ``$ref`` may reach.
    resources: tuple[tuple[str, Any], ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    #: What makes the compiled forms the conveniences below return (the loader gives it).
    compiler: Compiler | None = field(default=None, repr=False, compare=False, hash=False)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False, hash=False)
    _lock: Any = field(
        default_factory=threading.RLock, repr=False, compare=False, hash=False
    )

    # ------------------------------------------------------------------ locations
    @property
    def directory(self) -> Path:
        """``contracts/<tool>/``."""
        return self.memo(_DIRECTORY, lambda: self.path.parent)  # asked for every case: made once

    @property
    def root(self) -> Path:
        """The project root: the folder holding ``contracts/`` and ``fixtures/``."""
        return self.memo(_ROOT, lambda: self.directory.parent.parent)

    def schema_path(self, version: int | None = None) -> Path:
        return self.directory / SCHEMAS_DIR / f"v{version or self.version}.json"

    def fixtures_dir(self, kind: str) -> Path:
        """``fixtures/<kind>/<tool>/`` for kind in accepted, rejected, historical."""
        return self.root / "fixtures" / kind / self.tool

    @property
    def versions(self) -> tuple[int, ...]:
        return tuple(sorted(self.schemas))

    # ------------------------------------------------------------------ data
    def schema(self, version: int | None = None) -> Any:
        version = self.version if version is None else version
        if version not in self.schemas:
            raise ContractError(
                f"no schema for version {version}",
                file=str(self.path),
                allowed=self.versions,
                code="contract.unknown_version",
            )
        return self.schemas[version]

    def schema_resources(self) -> list[tuple[str, Any]]:
        """Every schema file of the contract, by file URI and by ``$id``: what ``$ref`` may reach."""
        return list(self.resources)

    def document(self, version: int | None = None) -> Document:
        """The schema model of a version (its references resolved among the contract's own
        schema files; cached)."""
        from harness.schemas import Document

        version = self.version if version is None else version
        schema = self.schema(version)
        return self.memo(("document", version), lambda: Document(
            schema, file=self.schema_path(version), resources=self.schema_resources()))

    def vendor_document(self) -> Document | None:
        """The schema model of ``vendor_schema`` (cached); None without one."""
        from harness.schemas import Document

        if self.vendor_schema is None:
            return None
        named = self.raw.get("vendor_schema")
        file = self.directory / named if isinstance(named, str) else self.path
        return self.memo(("vendor-document",), lambda: Document(
            self.vendor_schema, file=file, base_uri=self.path.resolve().as_uri(),
            resources=self.schema_resources()))

    def default_request(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "request_id": self.request_id,
            "args": json.loads(json.dumps(dict(self.request_example))),
        }

    def memo(self, key: Any, build: Callable[[], _T]) -> _T:
        """What ``build`` returns, built once per contract and ``key`` (thread-safe): compiled
        validators, the imported adapter, the default request."""
        try:
            return self._cache[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        with self._lock:
            if key not in self._cache:
                self._cache[key] = build()
            return self._cache[key]  # type: ignore[no-any-return]

    def without_adapter(self) -> Contract:
        """This contract judging contract objects directly: no adapter, no vendor schema.

        For payloads that already are contract objects (historical contract-shaped fixtures of
        a tool with an adapter). Built once and cached.
        """
        if self.adapter is None:
            return self
        return self.memo(
            ("without-adapter",),
            lambda: dataclasses.replace(
                self, adapter=None, vendor_schema=None, _cache={}, _lock=threading.RLock()
            ),
        )

    # ------------------------------------------------------------------ compiled (conveniences)
    def _compiler(self) -> Compiler:
        if self.compiler is None:
            raise ContractError("this contract was made without its compiler: load it with load_contract",
                                file=str(self.path), code="contract.not_loaded")
        return self.compiler

    def validator(self, version: int | None = None) -> Any:
        """The compiled production validator for a version (a ``SchemaValidator``; cached)."""
        return self._compiler().schema_validator(self, version)

    def view_schema(self, version: int | None = None) -> dict[str, Any]:
        """The closed schema of the agent-facing ``data`` object (derived, cached)."""
        return self._compiler().view_schema(self, version)

    def view_validator(self, version: int | None = None) -> Any:
        return self._compiler().view_validator(self, version)

    def vendor_validator(self) -> Any:
        return self._compiler().vendor_validator(self)

    def request_validator(self) -> Any:
        return self._compiler().request_validator(self)

    def reference_inputs(self, version: int | None = None, *,
                         vendor: bool = False) -> tuple[Any, list[tuple[str, Any]], str] | None:
        """What the reference validator of a version (or of ``vendor_schema``) is made of: the
        schema, the schema resources ``$ref`` may reach, the base URI (None: no vendor schema)."""
        if vendor:
            if self.vendor_schema is None:
                return None
            return self.vendor_schema, self.schema_resources(), self.path.resolve().as_uri()
        version = self.version if version is None else version
        return self.schema(version), self.schema_resources(), self.schema_path(version).resolve().as_uri()

    def reference_validator(self, version: int | None = None) -> Any:
        """The python-jsonschema validator for a version (a ``ReferenceValidator``, for
        differential checks; cached)."""
        return self._compiler().reference_validator(self, version)

    def vendor_reference_validator(self) -> Any:
        return self._compiler().vendor_reference_validator(self)

    def adapter_function(self) -> Callable[..., Any] | None:
        """The adapter named by ``adapter:``, imported once (None without one)."""
        return self._compiler().adapter_function(self)

    @property
    def adapter_version(self) -> str | None:
        return self._compiler().adapter_version(self)

    def normalise_request(self, request: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """Fill a partial request from the defaults and check it; raise InvalidRequest."""
        return self._compiler().normalise_request(self, request)
