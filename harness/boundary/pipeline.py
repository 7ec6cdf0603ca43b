"""The boundary: raw bytes in, exactly one of two agent shapes out, an audit record aside.

``Boundary(contract).check(raw, request)`` runs the layers in order; the first rejection ends
the run and later layers never see the data. The result is an immutable :class:`Verdict`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import harness.boundary.adapter as adapter
import harness.boundary.binding as binding
import harness.boundary.compiled as compiled
import harness.boundary.envelope as envelope
import harness.boundary.freshness as freshness
import harness.boundary.parse as parse
import harness.boundary.projection as projection
import harness.boundary.schema as schema
import harness.boundary.transport as transport
from harness.boundary.audit import AuditRecord, AuditSink, RawStore, mask_names
from harness.boundary.base import NO_SHORTCUTS, Evaluation, Rejection, Shortcuts
from harness.boundary.request import normalise_request
from harness.codes import (
    TRANSPORT_INVALID_REQUEST,
    TRANSPORT_NOT_FOUND,
    TRANSPORT_TOOL_ERROR,
    AgentCode,
    Layer,
    layer_of,
)
from harness.errors import UsageError
from harness.frozen import fast_frozen
from harness.pointer import resolve
from harness.timeutil import parse_rfc3339

if TYPE_CHECKING:
    from harness.contract.records import Contract

Clock = Callable[[], datetime]

#: The layers in order. Each is ``check(Evaluation) -> Rejection | None``.
LAYERS: tuple[tuple[Layer, Callable[[Evaluation], Rejection | None]], ...] = (
    (Layer.TRANSPORT, transport.check),
    (Layer.PARSE, parse.check),
    (Layer.SCHEMA, schema.check),
    (Layer.ADAPTER, adapter.check),
    (Layer.BINDING, binding.check),
    (Layer.FRESHNESS, freshness.check),
    (Layer.PROJECTION, projection.check),
)


_encode = json.JSONEncoder(ensure_ascii=False).encode


#: Failure envelopes a boundary keeps for reuse (then it starts again).
_FAILURES_HELD = 64


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


@fast_frozen
@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Operator-facing detail of a rejection. Never shown to the agent."""

    layer: Layer
    code: str
    message: str
    instance_pointer: str | None = None
    schema_pointer: str | None = None
    offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer.value,
            "code": self.code,
            "message": self.message,
            "instance_pointer": self.instance_pointer,
            "schema_pointer": self.schema_pointer,
            "offset": self.offset,
        }


@fast_frozen
@dataclass(frozen=True, slots=True)
class Verdict:
    """What the boundary decided about one tool result.

    ``accepted`` is true when every layer held (the result may still be an upstream-declared
    failure such as NOT_FOUND: see ``outcome``). ``agent_result`` is a fresh copy of the one
    object the agent may see, each time it is read; ``agent_json`` is its serialisation. The
    audit record and the serialisation are built on first use, from fields the verdict keeps.
    """

    accepted: bool
    layer: Layer | None
    code: str | None
    outcome: str
    diagnostics: tuple[Diagnostic, ...]
    _agent: dict[str, Any] = field(repr=False, compare=False)
    _audit: tuple[Any, ...] = field(repr=False, compare=False)
    #: The serialisation of ``_agent``, once written, shared by the verdicts that share
    #: ``_agent`` (a boundary's failure envelopes for one request: see ``Boundary._rejected``).
    _text: list[str | None] | None = field(default=None, repr=False, compare=False)

    @property
    def agent_json(self) -> str:
        held = self._text
        if held is None:
            return _encode(self._agent)
        text = held[0]
        if text is None:
            text = held[0] = _encode(self._agent)
        return text

    @property
    def agent_result(self) -> dict[str, Any]:
        return json.loads(_encode(self._agent))  # type: ignore[no-any-return]

    @property
    def audit(self) -> AuditRecord:
        fields = self._audit
        # The message's member names are masked, and the raw bytes hashed, here, when the record
        # is made (not on every verdict: most are never audited).
        sha = fields[15] if isinstance(fields[15], str) else hashlib.sha256(fields[15]).hexdigest()
        return AuditRecord(*(*fields[:14], mask_names(fields[14], fields[13]), sha, *fields[16:]))

    @property
    def message(self) -> str | None:
        return self.diagnostics[0].message if self.diagnostics else None

    @property
    def instance_pointer(self) -> str | None:
        return self.diagnostics[0].instance_pointer if self.diagnostics else None

    @property
    def schema_pointer(self) -> str | None:
        return self.diagnostics[0].schema_pointer if self.diagnostics else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "outcome": self.outcome,
            "layer": self.layer.value if self.layer else None,
            "code": self.code,
            "instance_pointer": self.instance_pointer,
            "schema_pointer": self.schema_pointer,
            "message": self.message,
            "agent_result": self.agent_result,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "audit": self.audit.to_dict(),
        }


@fast_frozen
@dataclass(frozen=True, slots=True)
class VerdictEvidence:
    """A verdict with the evidence the harness inspects beside it; never handed to an agent.

    ``document`` is the parsed document (``MISSING`` if it did not parse). ``schema_error`` is
    the schema layer's own finding on it: None when its validator accepted the document, the
    first jsonschema-rs ``ValidationError`` when it did not (:attr:`Shortcuts.UNEXPLAINED` when
    the caller's shortcuts spared it), ``MISSING`` when it did not validate (an earlier layer
    refused, or an adapter tool has no vendor schema)."""

    verdict: Verdict
    document: Any
    schema_error: Any


def _coerce_now(now: datetime | str | None, clock: Clock) -> datetime:
    if now is None:
        value = clock()
    elif isinstance(now, str):
        parsed = parse_rfc3339(now)
        if parsed is None:
            raise UsageError(f"now {now!r} is not an RFC 3339 date-time with an offset")
        value = parsed
    else:
        value = now
    if value.tzinfo is None:
        raise UsageError("the clock must return timezone-aware datetimes")
    return value


class Boundary:
    """Runs tool results for one contract through the layers.

    ``clock`` is injected (freshness is judged against it); ``version`` pins a schema version
    (default: the contract's current); ``audit`` receives one record per verdict; ``raw_store``
    keeps protected copies of the raw bytes; ``upstream`` names the source in audit records.
    """

    def __init__(
        self,
        contract: Contract,
        *,
        clock: Clock | None = None,
        version: int | None = None,
        audit: AuditSink | None = None,
        raw_store: RawStore | None = None,
        upstream: str | None = None,
    ) -> None:
        self.contract = contract
        self.clock = clock or system_clock
        self.version = contract.version if version is None else version
        contract.schema(self.version)
        self.audit_sink = audit
        self.raw_store = raw_store
        self.upstream = upstream
        # Import the adapter and derive the view now: misconfiguration fails at construction.
        adapter.adapter_function(contract)
        compiled.view_validator(contract, self.version)
        self._adapter_version = adapter.adapter_version(contract)
        #: Failure envelopes made, by (request id, agent code, retryable): see ``_rejected``.
        self._failures: dict[tuple[str, str, bool], tuple[dict[str, Any], list[str | None]]] = {}

    def check(
        self,
        raw: Any,
        request: Mapping[str, Any] | None = None,
        *,
        now: datetime | str | None = None,
        upstream: str | None = None,
    ) -> Verdict:
        """Run ``raw`` (bytes, binary stream or byte chunks) through every layer."""
        return self.examine(raw, request, now=now, upstream=upstream).verdict

    def check_document(
        self,
        raw: Any,
        request: Mapping[str, Any] | None = None,
        *,
        now: datetime | str | None = None,
        upstream: str | None = None,
    ) -> tuple[Verdict, Any]:
        """:meth:`check`, also returning the parsed document (``MISSING`` if it did not parse).

        For the harness, which inspects what the boundary parsed; never hand it to an agent.
        """
        examined = self.examine(raw, request, now=now, upstream=upstream)
        return examined.verdict, examined.document

    def examine(
        self,
        raw: Any,
        request: Mapping[str, Any] | None = None,
        *,
        now: datetime | str | None = None,
        upstream: str | None = None,
        shortcuts: Shortcuts = NO_SHORTCUTS,
    ) -> VerdictEvidence:
        """:meth:`check_document`, also returning what the schema layer's validator said (for
        the harness's differential check: see :class:`VerdictEvidence`). ``shortcuts``: what
        the harness's engine spares the boundary (:class:`~harness.boundary.base.Shortcuts`)."""
        contract = self.contract
        full_request = shortcuts.request if shortcuts.request is not None else normalise_request(contract, request)
        if not shortcuts.explain and self.audit_sink is not None:
            shortcuts = NO_SHORTCUTS  # an audit record says why (the request is read by now)
        ev = Evaluation(
            contract=contract,
            version=self.version,
            request=full_request,
            now=_coerce_now(now, self.clock),
            source=raw,
            shortcuts=shortcuts,
        )
        for layer, run in LAYERS:
            rejection = run(ev)
            if rejection is not None:
                return VerdictEvidence(self._rejected(ev, layer, rejection, upstream), ev.document, ev.schema_error)
        return VerdictEvidence(self._accepted(ev, upstream), ev.document, ev.schema_error)

    def upstream_failure(
        self,
        code: str,
        message: str,
        request: Mapping[str, Any] | None = None,
        *,
        upstream: str | None = None,
    ) -> Verdict:
        """The verdict for an upstream that produced no body (refused, timeout, 5xx, 404)."""
        full_request = normalise_request(self.contract, request)
        ev = Evaluation(self.contract, self.version, full_request, self.clock(), b"")
        agent_code = (
            AgentCode.NOT_FOUND.value if code == TRANSPORT_NOT_FOUND
            else AgentCode.INVALID_REQUEST.value if code == TRANSPORT_INVALID_REQUEST
            # The tool answered, with a failure: not unavailable, and not retried by default.
            else AgentCode.TOOL_ERROR.value if code == TRANSPORT_TOOL_ERROR
            else AgentCode.UPSTREAM_UNAVAILABLE.value
        )
        return self._rejected(ev, layer_of(code), Rejection(code, message), upstream, agent_code)

    def reject(
        self,
        code: str,
        message: str,
        request: Mapping[str, Any] | None = None,
        *,
        instance_pointer: str | None = None,
        offset: int | None = None,
        raw: bytes = b"",
        upstream: str | None = None,
    ) -> Verdict:
        """The verdict for bytes refused before the layers ran: around the result rather than
        in it (a wrong Content-Type, a malformed or oversized JSON-RPC message). The agent sees
        ``INVALID_RESPONSE``; ``raw`` (what was read of the message) is hashed for the audit."""
        full_request = normalise_request(self.contract, request)
        ev = Evaluation(self.contract, self.version, full_request, self.clock(), b"")
        ev.raw = raw
        rejection = Rejection(code, message, instance_pointer=instance_pointer, offset=offset)
        return self._rejected(ev, layer_of(code), rejection, upstream)

    # ------------------------------------------------------------------ verdicts
    def _accepted(self, ev: Evaluation, upstream: str | None) -> Verdict:
        contract, request = self.contract, ev.request
        if ev.outcome == "failure":
            declared = resolve(ev.result, contract.envelope.error_code) if contract.envelope else None
            code = envelope.agent_code_for(contract, declared)
            agent = envelope.failure(
                contract.tool, request["request_id"], code,
                envelope.is_retryable(contract, code, None),
            )
        else:
            code = None
            agent = envelope.success(contract.tool, request["request_id"], ev.view or {})
        return self._verdict(ev, True, None, None, agent, (), upstream, code)

    def _rejected(
        self,
        ev: Evaluation,
        layer: Layer,
        rejection: Rejection,
        upstream: str | None,
        agent_code: str = AgentCode.INVALID_RESPONSE.value,
    ) -> Verdict:
        if rejection.code == "transport.read_error":
            agent_code = AgentCode.UPSTREAM_UNAVAILABLE.value
        request_id = ev.request["request_id"]
        retryable = envelope.is_retryable(self.contract, agent_code, layer)
        # The failure envelope is the same for every rejection of one request with one code:
        # made, and written, once (a fixture's near misses share its request).
        key = (request_id, agent_code, retryable) if isinstance(request_id, str) else None
        held = self._failures.get(key) if key is not None else None
        if held is None:
            held = (envelope.failure(self.contract.tool, request_id, agent_code, retryable), [None])
            if key is not None:
                if len(self._failures) >= _FAILURES_HELD:
                    self._failures.clear()
                self._failures[key] = held
        agent, text = held
        diagnostic = Diagnostic(layer=layer, code=rejection.code, message=rejection.message,
                                instance_pointer=rejection.instance_pointer,
                                schema_pointer=rejection.schema_pointer, offset=rejection.offset)
        return self._verdict(
            ev, False, layer, rejection.code, agent, (diagnostic,), upstream, agent_code, text
        )

    def _verdict(
        self,
        ev: Evaluation,
        accepted: bool,
        layer: Layer | None,
        code: str | None,
        agent: dict[str, Any],
        diagnostics: tuple[Diagnostic, ...],
        upstream: str | None,
        agent_code: str | None,
        text: list[str | None] | None = None,
    ) -> Verdict:
        raw = ev.raw
        # The raw bytes' sha256 is the audit record's, taken when a record is made (the bytes
        # are kept until then), or now for the raw store.
        sha: bytes | str = raw
        raw_path = None
        if self.raw_store is not None and raw:
            sha = hashlib.sha256(raw).hexdigest()
            raw_path = str(self.raw_store.keep(raw, sha))
        first = diagnostics[0] if diagnostics else None
        contract = self.contract
        verdict = Verdict(
            accepted=accepted,
            layer=layer,
            code=code,
            outcome=agent["outcome"],
            diagnostics=diagnostics,
            _agent=agent,
            _audit=(
                ev.now, contract.tool, self.version, contract.adapter, self._adapter_version,
                upstream or self.upstream, ev.request["request_id"], accepted, agent["outcome"],
                layer.value if layer else None, code, agent_code,
                first.instance_pointer if first else None,
                first.schema_pointer if first else None,
                first.message if first else None,  # masked by ``Verdict.audit``
                sha, len(raw), raw_path,  # sha: the raw bytes, until ``Verdict.audit`` hashes them
            ),
            _text=text,
        )
        if self.audit_sink is not None:
            self.audit_sink.write(verdict.audit)
        return verdict
