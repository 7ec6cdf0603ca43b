"""Which MCP tools are guarded, by which contract, and what the client sees of each call.

A :class:`Guard` maps MCP tool names to contracts. A contract guards the MCP tool of its own
``tool`` name, unless its ``mcp`` upstream names another (``upstreams.<name>.mcp.tool``, as
``contract-harness import mcp`` writes it for tools whose MCP name is not a valid contract
name) or the caller maps one explicitly. The same upstream entry supplies what the guard needs
to reach the tool the way the contract expects: ``meta`` (``_meta`` members sent with each
call, e.g. the request id a server must echo), ``result`` (where the result is),
``timeout_s`` and ``max_message_bytes``. Its ``command`` is not used: the guard fronts
whichever server it was started with.

What is judged is the **raw bytes** of a ``tools/call`` answer, cut from the JSON-RPC line by
:func:`harness.drift.frame.read_call_line`: the exact bytes of ``result.structuredContent`` as
they stood in the line, or — when the result has no ``structuredContent`` — the first text
block's text, UTF-8 encoded. A ``result:`` of ``structured`` or ``text`` in the contract's
``mcp`` upstream pins one of the two.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.boundary.audit import AuditRecord, JsonlAuditSink, RawStore
from harness.boundary.pipeline import Boundary, Verdict
from harness.codes import TRANSPORT_FRAME, TRANSPORT_UNAVAILABLE, AgentCode
from harness.contract import Contract, Upstream, discover, load_contract
from harness.drift.frame import AUTO, STRUCTURED, TEXT, TEXT_STRING, default_max_message_bytes, read_call_line
from harness.drift.kinds import Config, Fetched
from harness.drift.server_env import server_environment_templates
from harness.drift.template import Environment, Template, template_values
from harness.errors import ContractError, InvalidRequest, UsageError, closest, did_you_mean
from harness.guard.rebuild import cache_members
from harness.guard.surfaces import SURFACES
from harness.locate import position_in_file
from harness.timeutil import format_rfc3339

#: Time per guarded call when the contract's ``mcp`` upstream declares no ``timeout_s``.
DEFAULT_TIMEOUT_S = 60.0
#: The longest JSON-RPC line the relay ever buffers (each guarded tool has its own, smaller cap).
DEFAULT_MAX_MESSAGE_BYTES = 16 << 20
#: Tool annotations the client keeps (booleans only: a ``title`` is the server's text).
_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

Clock = Callable[[], datetime]

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def new_request_id() -> str:
    """The guard's own request id for one call (the client's JSON-RPC id is the client's)."""
    return f"guard.{secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class GuardedTool:
    """One MCP tool and the contract in front of it."""

    name: str
    contract: Contract
    boundary: Boundary
    meta: tuple[tuple[str, Template], ...]
    result: str
    timeout_s: float
    max_message_bytes: int
    upstream: str | None
    env: Environment
    named_by: str = "the contract's tool"
    input_required: bool = False

    @property
    def output_schema(self) -> dict[str, Any]:
        """What the client is told it will get on success: the agent view's schema."""
        return self.contract.view_schema(self.boundary.version)

    @property
    def input_schema(self) -> dict[str, Any]:
        """What the client is told the arguments are: the contract's request schema (the guard
        checks every call against it), never the server's own."""
        schema = self.contract.request_schema
        schema = dict(schema) if isinstance(schema, Mapping) else {}
        schema.setdefault("type", "object")
        return schema

    def listed(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """This tool's ``tools/list`` entry as the client sees it: built from the contract
        (name, description, input and output schemas); of the server's entry only the boolean
        hints, and task support forbidden where the server declared any."""
        out: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema,
                               "outputSchema": self.output_schema}
        if self.contract.description:
            out["description"] = self.contract.description
        annotations = entry.get("annotations")
        if isinstance(annotations, Mapping):
            hints = {k: annotations[k] for k in _HINTS if type(annotations.get(k)) is bool}
            if hints:
                out["annotations"] = hints
        if "execution" in entry:
            out["execution"] = {"taskSupport": "forbidden"}
        return out

    def request(self, arguments: Any, request_id: str) -> Mapping[str, Any]:
        """The boundary's request for a call; raises :class:`InvalidRequest` when the
        arguments do not fit the contract's request schema."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise InvalidRequest(f"arguments must be an object, not {type(arguments).__name__}")
        return self.contract.normalise_request(
            {"tool": self.contract.tool, "request_id": request_id, "args": dict(arguments)}
        )

    def meta_for(self, request: Mapping[str, Any]) -> dict[str, str]:
        """The ``_meta`` members the contract sends with each call, filled in."""
        values = template_values(request)
        out = {}
        for name, template in self.meta:
            try:
                out[name] = template.render(self.env, values)
            except KeyError as exc:
                raise InvalidRequest(f"meta {name!r} needs argument {exc.args[0]!r}, which the call lacks") from None
        return out

    def judge(self, line: bytes, jsonrpc_id: Any, request: Mapping[str, Any]) -> Verdict:
        """The verdict on one JSON-RPC answer line to a call of this tool."""
        fetched = read_call_line(
            line,
            expected_id=jsonrpc_id,
            result=self.result,
            max_message_bytes=self.max_message_bytes,
            max_depth=self.contract.limits.max_depth,
        )
        return self.verdict(fetched, request)

    def verdict(self, fetched: Fetched, request: Mapping[str, Any]) -> Verdict:
        if fetched.failure is not None:
            failure = fetched.failure
            return self.boundary.upstream_failure(failure.code, failure.message, request)
        if fetched.refusal is not None:
            refusal = fetched.refusal
            return self.boundary.reject(
                refusal.code, refusal.message, request, instance_pointer=refusal.pointer, raw=refusal.raw
            )
        return self.boundary.check(fetched.body, request)

    def unavailable(self, message: str, request: Mapping[str, Any]) -> Verdict:
        """No answer: a timeout, a server that exited, a call the client cancelled."""
        return self.boundary.upstream_failure(TRANSPORT_UNAVAILABLE, message, request)

    def refused(self, code: str, message: str, request: Mapping[str, Any], raw: bytes = b"") -> Verdict:
        """An answer refused before the layers ran (too long, unreadable, not a final result)."""
        return self.boundary.reject(code, message, request, raw=raw)

    def not_final(self, result_type: Any, request: Mapping[str, Any], raw: bytes) -> Verdict:
        return self.refused(
            TRANSPORT_FRAME,
            f"resultType {json.dumps(result_type)[:40]} is not a final tool result",
            request,
            raw,
        )


def agent_tool_result(verdict: Verdict, *, modern: bool = False) -> dict[str, Any]:
    """The ``tools/call`` result the client gets for a verdict.

    Success: the projected fields (the agent view) as ``structuredContent`` and as one text
    block of their JSON. Otherwise the fixed failure envelope, the same two ways, with
    ``isError: true``. Nothing else: no upstream text, no upstream ``_meta``.
    """
    # The verdict's own object, read (never changed) here: ``agent_result`` would serialise
    # and parse all of it for a copy. The copy the caller gets is parsed from the text.
    agent = verdict._agent
    failed = agent["outcome"] != "success"
    text = _encode(agent if failed else agent["data"])
    payload = json.loads(text)
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": payload,
        "isError": failed,
    }
    if modern:
        result["resultType"] = "complete"
    return result


def input_required_result(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """An ``input_required`` result (2026-07-28) as the client may see it: the members the
    protocol defines for it (``resultType``, ``inputRequests``: elicitation, sampling or roots
    requests with their defined members), no ``_meta`` anywhere, no ``content``; None when
    the result is not shaped as the protocol defines it. The caller replaces ``requestState``.
    """
    from mcp_types import InputRequiredResult  # the SDK's model: heavy, needed only here

    try:
        model = InputRequiredResult.model_validate(result)
    except ValueError:  # pydantic's ValidationError
        return None
    if model.input_requests is None and model.request_state is None:
        return None
    dumped = _without_meta(model.model_dump(by_alias=True, exclude_none=True, mode="json"))
    dumped.pop("requestState", None)
    return dict(dumped)


def _without_meta(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_meta(v) for k, v in value.items() if k != "_meta"}
    if isinstance(value, list):
        return [_without_meta(v) for v in value]
    return value


def denied_tool_result(tool: str, request_id: str, *, modern: bool = False) -> dict[str, Any]:
    """The answer to a call of a tool that has no contract (and is not let through)."""
    envelope = {
        "tool": tool,
        "request_id": request_id,
        "outcome": "failure",
        "error": {"code": AgentCode.NOT_FOUND.value, "retryable": False},
    }
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))}],
        "structuredContent": envelope,
        "isError": True,
    }
    if modern:
        result["resultType"] = "complete"
    return result


def invalid_call_result(message: str, *, modern: bool = False) -> dict[str, Any]:
    """The answer to a guarded call whose arguments the contract cannot judge a result for.

    The call is not sent. The text is the guard's own (which argument is wrong), so the
    model can correct the call; no upstream text is in it."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
    if modern:
        result["resultType"] = "complete"
    return result


class GuardAudit(JsonlAuditSink):
    """The audit file: one JSON line per guarded call (the boundary's :class:`AuditRecord`
    plus a ``guard`` member: MCP tool, JSON-RPC id, milliseconds, what happened), and one per
    denied call."""

    def write_call(self, record: AuditRecord, **guard: Any) -> None:
        self._line({**record.to_dict(), "guard": guard})

    def write_event(
        self, at: datetime, tool: str, request_id: str | None, *, outcome: str = "failure", **guard: Any
    ) -> None:
        """A line for a call that no contract judged (denied, invalid arguments, a request for
        input): the record's members, empty where there is no verdict."""
        data: dict[str, Any] = {f.name: None for f in fields(AuditRecord)}
        data.update(at=format_rfc3339(at), tool=tool, request_id=request_id, accepted=False, outcome=outcome,
                    raw_size=0, guard=guard)
        self._line(data)


@dataclass(frozen=True)
class Guard:
    """The contracts in front of an MCP server, by MCP tool name.

    ``allow_unguarded`` lets tools without a contract through untouched (default: hidden from
    ``tools/list`` and answered with the failure envelope). ``passed`` names the surfaces
    other than tools relayed as they come (:data:`harness.guard.surfaces.SURFACES`; default
    none). ``request_timeout_s`` bounds every request that is not a guarded call. ``audit``
    receives a record per guarded call; ``raw_store`` keeps protected copies of the raw
    results; ``clock`` is what freshness is judged against.
    """

    tools: Mapping[str, GuardedTool]
    allow_unguarded: bool = False
    audit: GuardAudit | None = None
    clock: Clock | None = None
    notes: tuple[str, ...] = ()
    passed: frozenset[str] = frozenset()
    request_timeout_s: float = DEFAULT_TIMEOUT_S

    @classmethod
    def from_contracts(
        cls,
        contracts: Iterable[Contract],
        *,
        names: Mapping[str, str] | None = None,
        upstream: str | None = None,
        allow_unguarded: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        audit: GuardAudit | None = None,
        raw_store: RawStore | None = None,
        clock: Clock | None = None,
        environ: Mapping[str, str] | None = None,
        passed: Iterable[str] = (),
        starts_server: bool = False,
    ) -> Guard:
        """Build a guard. ``names`` maps MCP tool names to contract tools where they differ
        (and wins over the contracts' own ``mcp.tool``); ``upstream`` names the ``mcp``
        upstream whose settings apply when a contract has several; ``passed`` the surfaces
        relayed as they come (``resources``, ``prompts``, ...). ``starts_server``: the guard
        starts the server itself, so each chosen upstream's ``env:`` variables must be set, as
        ``drift`` and ``import`` require (``upstream.env_missing``)."""
        passed = frozenset(passed)
        unknown_surfaces = sorted(passed - SURFACES.keys())
        if unknown_surfaces:
            raise UsageError(
                f"--pass {unknown_surfaces[0]!r} is no surface the guard knows"
                f"{did_you_mean(unknown_surfaces[0], SURFACES)} (surfaces: {', '.join(SURFACES)})",
                code="guard.unknown_surface",
            )
        env = Environment(os.environ if environ is None else environ)
        contracts = list(contracts)
        by_tool = {c.tool: c for c in contracts}
        mapped = dict(names or {})
        unknown = sorted(set(mapped.values()) - set(by_tool))
        if unknown:
            raise UsageError(
                f"--map names no contract {', '.join(map(repr, unknown))} (contracts: {', '.join(sorted(by_tool))})",
                code="guard.unknown_contract",
            )
        renamed = {contract_tool: mcp for mcp, contract_tool in mapped.items()}
        tools: dict[str, GuardedTool] = {}
        notes: list[str] = []
        for contract in contracts:
            guarded = _guarded_tool(contract, upstream, renamed.get(contract.tool), timeout_s, raw_store, clock, env,
                                    starts_server)
            if guarded.name in tools:
                other = tools[guarded.name].contract
                raise ContractError(
                    f"contracts {other.tool!r} ({other.path}) and {contract.tool!r} both guard MCP tool "
                    f"{guarded.name!r}; map one elsewhere with --map MCP_NAME={contract.tool}",
                    file=str(contract.path),
                    code="guard.duplicate_tool",
                )
            tools[guarded.name] = guarded
            notes.extend(_binding_note(guarded))
        return cls(tools, allow_unguarded=allow_unguarded, audit=audit, clock=clock, notes=tuple(notes),
                   passed=passed, request_timeout_s=timeout_s)

    @classmethod
    def from_paths(cls, paths: Sequence[str | Path], **options: Any) -> Guard:
        """A guard over the contracts under ``paths`` (contract dirs, ``contracts/`` folders
        or project roots)."""
        found = discover([Path(p) for p in paths])
        if not found:
            raise UsageError(f"no contracts found under {', '.join(map(str, paths))}", code="guard.no_contracts")
        return cls.from_contracts([load_contract(d) for d in found], **options)

    def tool(self, name: Any) -> GuardedTool | None:
        return self.tools.get(name) if isinstance(name, str) else None

    def rewrite_tools_list(self, result: Mapping[str, Any]) -> tuple[dict[str, Any], list[str], list[str]]:
        """A ``tools/list`` result as the client may see it: each guarded tool's entry built
        from its contract (:meth:`GuardedTool.listed`: the agent view as ``outputSchema``, task
        execution forbidden: a task's result would arrive by ``tasks/result``, around the
        guard); unguarded tools dropped unless let through (then as listed). Of the result
        itself only the cache hints the protocol defines. Also returns the hidden tools' names
        and notes for the operator. Raises ``ValueError`` when ``tools`` is not a list of
        objects. The caller issues the ``nextCursor``."""
        listed = result.get("tools")
        if not isinstance(listed, list) or not all(isinstance(t, dict) for t in listed):
            raise ValueError("tools is not a list of objects")
        out, hidden, notes = [], [], []
        for entry in listed:
            name = entry.get("name")
            guarded = self.tool(name)
            if guarded is None:
                if self.allow_unguarded:
                    out.append(entry)
                else:
                    hidden.append(str(name))
                continue
            execution = entry.get("execution")
            if isinstance(execution, dict) and execution.get("taskSupport") == "required":
                notes.append(f"tool {name!r} requires task execution, which the guard does not relay: "
                             "its calls will fail")
            out.append(guarded.listed(entry))
        return {**cache_members(result), "tools": out}, hidden, notes

    def unlisted(self, names: Iterable[str]) -> list[str]:
        """Notes for contracts whose MCP tool a complete listing did not contain (a typo, a
        renamed tool), with the nearest listed name."""
        names = list(names)
        out = []
        for name, guarded in sorted(self.tools.items()):
            if name in names:
                continue
            near = closest(name, names)
            hint = (f" (did you mean {near!r}? fix {guarded.named_by}, or map it with "
                    f"--map {near}={guarded.contract.tool})") if near else ""
            out.append(f"contract {guarded.contract.tool!r} guards MCP tool {name!r}, which the server does not "
                       f"list{hint}")
        return out


def _guarded_tool(
    contract: Contract,
    upstream: str | None,
    mapped_name: str | None,
    timeout_s: float,
    raw_store: RawStore | None,
    clock: Clock | None,
    env: Environment,
    starts_server: bool = False,
) -> GuardedTool:
    chosen = _mcp_upstream(contract, upstream)
    name, result, timeout, message_cap = contract.tool, AUTO, timeout_s, None
    named_by = "the contract's tool"
    meta: tuple[tuple[str, Template], ...] = ()
    input_required = False
    if chosen is not None:
        cfg = Config(contract, chosen)
        if starts_server:
            server_environment_templates(cfg, env)
        name = str(cfg.data.get("tool", contract.tool))
        if "tool" in cfg.data:
            named_by = f"upstreams.{chosen.name}.mcp.tool"
        meta = tuple((key, cfg.template(f"meta/{key}", text)) for key, text in cfg.data.get("meta", {}).items())
        for _, template in meta:
            env.require(template)
        declared = cfg.data.get("result")
        result = declared if declared in (STRUCTURED, TEXT, TEXT_STRING) else AUTO
        timeout = cfg.number("timeout_s", timeout_s)
        message_cap = cfg.data.get("max_message_bytes")
        input_required = cfg.data.get("input_required") == "allowed"
    boundary = Boundary(contract, clock=clock, raw_store=raw_store, upstream=chosen.name if chosen else "guard")
    return GuardedTool(
        name=mapped_name or name,
        contract=contract,
        boundary=boundary,
        meta=meta,
        result=result,
        timeout_s=timeout,
        max_message_bytes=int(message_cap or default_max_message_bytes(contract.limits.max_bytes)),
        upstream=chosen.name if chosen else None,
        env=env,
        named_by="--map" if mapped_name else named_by,
        input_required=input_required,
    )


def _mcp_upstream(contract: Contract, name: str | None) -> Upstream | None:
    candidates = [u for u in contract.upstreams if u.kind == "mcp"]
    if name is not None:
        candidates = [u for u in candidates if u.name == name]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    keys = ("tool", "meta", "result", "timeout_s", "max_message_bytes", "input_required")
    settings = {json.dumps({k: u.config.get(k) for k in keys}, sort_keys=True, default=dict) for u in candidates}
    if len(settings) > 1:
        raise ContractError(
            f"{len(candidates)} mcp upstreams ({', '.join(u.name for u in candidates)}) set tool, meta, result or "
            "timeouts differently; choose one with --upstream NAME",
            file=str(contract.path),
            pointer="/upstreams", locate=position_in_file,
            code="guard.ambiguous_upstream",
        )
    return candidates[0]


def _binding_note(guarded: GuardedTool) -> list[str]:
    """A contract whose results must echo the request id, reached without sending one, can
    never accept: say so at start rather than let every call fail at binding."""
    envelope = guarded.contract.envelope
    if envelope is None or guarded.contract.adapter is not None:  # an adapter builds the envelope itself
        return []
    sends_id = any("request_id" in template.fields for _, template in guarded.meta)
    if sends_id:
        return []
    return [
        f"contract {guarded.contract.tool!r} binds the result's request_id, but its mcp upstream sends none "
        "(add meta: {request_id: \"{request_id}\"} under upstreams.<name>.mcp if the server echoes it): "
        "every result will be rejected at binding.request_id"
    ]
