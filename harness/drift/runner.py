"""Drift runs: plan every upstream up front, then send, judge, fingerprint, compare, record.

:func:`plan` reads every contract's ``upstreams:`` (filtered by tool and upstream name),
configures each through its kind, checks every template against every sample request and
resolves every ``${ENV}`` reference — so a misconfiguration is one line and exit 2 before
anything is sent. :class:`DriftRunner` then opens one session per upstream (up to
``concurrency`` at once), sends the sample requests in order, and yields engine events in the
plan's order. The whole run is bounded: each request by its kind's timeouts, the run by the
sum of its sources' budgets (:attr:`Plan.budget_s`); a request still unanswered at the end of
that budget is reported as such, never waited for.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from harness.boundary.pipeline import Boundary, Clock, Verdict
from harness.codes import TRANSPORT_UNAVAILABLE
from harness.contract import Contract, Upstream
from harness.drift.baseline import Baseline, Recorder, hints_for, load_baseline
from harness.drift.check import (
    DRIFTED,
    HELD,
    NOT_CALLED,
    OUTPUT_SCHEMA,
    REJECTED,
    RESPONSE,
    UNAVAILABLE,
    DriftCheck,
    DriftChecked,
    DriftNotCalled,
)
from harness.drift.defaults import DEFAULT_CONCURRENCY
from harness.drift.diff import Comparison, compare, diff_shapes
from harness.drift.kinds import (
    KINDS,
    AdvertisedSchema,
    Failure,
    Fetched,
    KindRegistry,
    NotCalled,
    Session,
    SessionFailed,
    SharedSource,
    Source,
)
from harness.drift.process import tail_lines
from harness.drift.shape import Hints, document_shape, schema_dialect, schema_shape
from harness.drift.template import RESERVED_FIELDS, Environment, redacted_logging
from harness.errors import ContractError, InvalidRequest, UsageError
from harness.events import Event, RunFinished, RunStarted, Summary
from harness.locate import position_in_file
from harness.pointer import MISSING

_STDERR_TAIL = 4000


@dataclass(frozen=True, slots=True)
class Target:
    """One upstream of one contract, configured, with its full sample requests."""

    contract: Contract
    upstream: Upstream
    source: Source
    requests: tuple[Mapping[str, Any], ...]
    labels: tuple[str, ...]
    hints: Hints
    baseline: Baseline

    @property
    def id_prefix(self) -> str:
        return f"{self.contract.tool}::drift::{self.upstream.name}"

    @property
    def side_effects(self) -> str | None:
        return "allowed" if self.upstream.side_effects_allowed else None

    def check(self, label: str, target: str, status: str, **fields: Any) -> DriftCheck:
        """A check of this upstream, ``<tool>::drift::<upstream>[<label>]`` (a response unless
        ``subject`` says otherwise), with what every check of it carries."""
        return DriftCheck(
            id=f"{self.id_prefix}[{label}]",
            tool=self.contract.tool,
            upstream=self.upstream.name,
            kind=self.source.kind,
            target=target,
            status=status,
            contract_dir=str(self.contract.directory),
            side_effects=self.side_effects,
            **{"subject": RESPONSE, "version": self.contract.version, **fields},
        )

    @property
    def needs_session(self) -> bool:
        """Whether anything is sent at all: a sample request, or an MCP server's tools/list."""
        return bool(self.requests) or self.upstream.kind == "mcp"


@dataclass(frozen=True, slots=True)
class Plan:
    targets: tuple[Target, ...]
    env: Environment
    notes: tuple[str, ...] = ()

    @property
    def budget_s(self) -> float:
        """An upper bound on the whole run: every source's budget, as if run one after another."""
        return round(sum(t.source.budget_s for t in self.targets) + 1.0, 3)

    @property
    def total(self) -> int:
        return sum(len(t.requests) + (1 if t.upstream.kind == "mcp" else 0) for t in self.targets)


def request_id() -> str:
    """A fresh request id per sample request: an upstream must echo the id it was given."""
    return f"drift.{secrets.token_hex(6)}"


def _label(args: Mapping[str, Any], index: int) -> str:
    """The argument values (``CR-1042``, ``bluebird/run_8f3K``); ``default`` for no arguments;
    ``request-<n>`` when they are not short printable scalars (a line break or a tab in an id
    would break the line a terminal shows it on)."""
    values = list(args.values())
    if not values:
        return "default"
    if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in values):
        label = "/".join(str(v) for v in values)
        if len(label) <= 60 and "[" not in label and "]" not in label and label.isprintable():
            return label
    return f"request-{index + 1}"


def _requests(contract: Contract, upstream: Upstream) -> tuple[tuple[Mapping[str, Any], ...], tuple[str, ...]]:
    """The upstream's sample requests, in full. None means none: an upstream is called only with
    the requests it declares, never with a default it did not ask for."""
    samples = list(upstream.requests)
    requests, labels = [], []
    for index, args in enumerate(samples):
        try:
            request = contract.normalise_request(
                {"tool": contract.tool, "request_id": request_id(), "args": dict(args)}
            )
        except InvalidRequest as exc:
            raise ContractError(
                str(exc),
                file=str(contract.path),
                pointer=f"/upstreams/{upstream.name}/requests/{index}", locate=position_in_file,
                code="upstream.invalid_request",
            ) from None
        label = _label(args, index)
        while label in labels:
            label += "#2"
        requests.append(request)
        labels.append(label)
    return tuple(requests), tuple(labels)


#: What a contract without upstreams gets from drift (the CLI's note, the pytest plugin's skip).
NO_UPSTREAMS = "its contract.yaml declares no upstreams (the live sources drift sends requests to), nothing to check"
NO_UPSTREAMS_ANY = "declares no upstreams in contract.yaml"


def plan(
    contracts: Iterable[Contract],
    *,
    upstreams: Iterable[str] | None = None,
    environ: Mapping[str, str] | None = None,
    kinds: KindRegistry = KINDS,
) -> Plan:
    """Configure every selected upstream; raise (exit 2) on any configuration problem."""
    env = Environment(os.environ if environ is None else environ)
    wanted = set(upstreams or ())
    contracts = list(contracts)
    targets: list[Target] = []
    notes: list[str] = []
    seen_names: set[str] = set()
    for contract in contracts:
        if not contract.upstreams:
            notes.append(f"{contract.tool}: {NO_UPSTREAMS}")
            continue
        for upstream in contract.upstreams:
            seen_names.add(upstream.name)
            if wanted and upstream.name not in wanted:
                continue
            source = kinds.get(upstream.kind).configure(contract, upstream, env)
            requests, labels = _requests(contract, upstream)
            for request, label in zip(requests, labels, strict=True):
                available = set(request["args"]) | set(RESERVED_FIELDS)
                for template in source.request_templates():
                    template.check_fields(available, label)
            enum_fields = tuple(str(p) for p in upstream_extra(contract, upstream).get("enum_fields", ()))
            hints = hints_for(contract, enum_fields)
            targets.append(
                Target(
                    contract,
                    upstream,
                    source,
                    requests,
                    labels,
                    hints,
                    load_baseline(contract, hints),
                )
            )
    unknown = sorted(wanted - seen_names)
    if unknown:
        raise UsageError(f"unknown upstream {', '.join(unknown)} (known: {', '.join(sorted(seen_names)) or 'none'})")
    if not targets:
        tools = ", ".join(c.tool for c in contracts)
        raise UsageError(f"no upstreams to check: {tools or 'no contract'} {NO_UPSTREAMS_ANY} (docs/drift.md: an "
                         "http, command or mcp source and the requests to send it)", code="upstream.none")
    return Plan(tuple(targets), env, tuple(notes))


def upstream_extra(contract: Contract, upstream: Upstream) -> Mapping[str, Any]:
    """The upstream entry's keys beside its kind (``requests``, ``enum_fields``)."""
    entry = contract.raw.get("upstreams", {}).get(upstream.name, {})
    return entry if isinstance(entry, Mapping) else {}


@dataclass
class _Outcome:
    checks: dict[tuple[int, int], DriftCheck] = field(default_factory=dict)


class DriftRunner:
    """Runs a :class:`Plan`; :meth:`events` yields ``RunStarted``, one ``DriftChecked`` per
    response and per advertised schema (in plan order), then ``RunFinished``."""

    def __init__(
        self,
        plan: Plan,
        *,
        record: bool = False,
        clock: Clock | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        budget_s: float | None = None,
    ) -> None:
        if concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, not {concurrency}")
        if budget_s is not None and budget_s <= 0:
            raise UsageError(f"the run budget must be positive, not {budget_s:g}")
        self.plan = plan
        #: The run's time bound: the plan's (from its timeouts), or a tighter one given here.
        self.budget_s = plan.budget_s if budget_s is None else min(budget_s, plan.budget_s)
        self.record = record
        self.clock = clock
        self.concurrency = concurrency
        self.recorded: list[str] = []
        self.record_errors: list[str] = []
        self.duration_s = 0.0

    def events(self) -> Iterator[Event]:
        plan = self.plan
        yield RunStarted(plan.total, tuple(sorted({t.contract.tool for t in plan.targets})))
        started = time.perf_counter()
        with redacted_logging(plan.env):
            outcome = anyio.run(self._run_all)
        self.duration_s = time.perf_counter() - started
        # The one redaction point of a drift run: every event, as it leaves the runner.
        redactor = plan.env.redactor()
        summary = Summary(notes=list(plan.notes))
        index = 0
        for t_index, target in enumerate(plan.targets):
            slots = [-1] if target.upstream.kind == "mcp" else []
            for r_index in [*slots, *range(len(target.requests))]:
                check = outcome.checks.get((t_index, r_index)) or self._unanswered(target, r_index)
                if check.status == NOT_CALLED:
                    yield redactor.value(DriftNotCalled(check.id, check.tool, check.detail(), check))
                    continue
                result = check.to_case_result()
                summary.add(result)
                yield redactor.value(DriftChecked(index, result, check))
                index += 1
            if not target.requests:
                check = self._not_called(target, None, NotCalled("no_requests", _NO_REQUESTS))
                yield redactor.value(DriftNotCalled(check.id, check.tool, check.detail(), check))
        summary.notes.extend(f"recorded new shapes into {folder}" for folder in self.recorded)
        summary.notes.extend(self.record_errors)
        summary.duration_s = self.duration_s
        yield redactor.value(RunFinished(summary))

    def run(self) -> tuple[list[DriftCheck], Summary]:
        """The whole run at once: every check (those not called too) and the summary."""
        checks: list[DriftCheck] = []
        summary = Summary()
        for event in self.events():
            if isinstance(event, DriftChecked | DriftNotCalled) and event.check is not None:
                checks.append(event.check)
            elif isinstance(event, RunFinished):
                summary = event.summary
        return checks, summary

    # ------------------------------------------------------------------ async part
    async def _run_all(self) -> _Outcome:
        outcome = _Outcome()
        limiter = anyio.CapacityLimiter(self.concurrency)
        groups: dict[Hashable, list[tuple[int, Target]]] = {}
        for index, target in enumerate(self.plan.targets):
            if not target.needs_session:
                continue  # nothing to send: not even a process is started
            source = target.source
            key = ("shared", source.connection_key) if isinstance(source, SharedSource) else ("own", index)
            groups.setdefault(key, []).append((index, target))
        with anyio.move_on_after(self.budget_s):
            async with anyio.create_task_group() as group:
                for members in groups.values():
                    group.start_soon(self._run_group, members, limiter, outcome)
        return outcome

    async def _run_group(
        self, members: list[tuple[int, Target]], limiter: anyio.CapacityLimiter, outcome: _Outcome
    ) -> None:
        """Sources sharing a connection (one MCP server for several tools) take turns on it, in
        plan order; any other source has a session of its own."""
        async with limiter:
            source = members[0][1].source
            try:
                if isinstance(source, SharedSource):
                    capacity = max(t.source.capacity for _, t in members if isinstance(t.source, SharedSource))
                    async with source.connect(capacity) as connection:
                        for t_index, target in members:
                            assert isinstance(target.source, SharedSource)
                            await self._run_session(t_index, target, target.source.session_on(connection), outcome)
                else:
                    async with source.session() as session:
                        await self._run_session(*members[0], session, outcome)
            except SessionFailed as exc:
                for t_index, target in members:
                    self._fail_rest(t_index, target, exc, outcome)

    async def _run_session(self, t_index: int, target: Target, session: Session, outcome: _Outcome) -> None:
        boundary = Boundary(target.contract, clock=self.clock, upstream=target.upstream.name)
        recorder = (
            Recorder(target.contract, target.upstream.name, redactor=self.plan.env.redactor()) if self.record else None
        )
        seen: set[str] = set()
        try:
            started = time.perf_counter()
            advertised = await session.advertised_schema()
            if advertised is not None:
                outcome.checks[(t_index, -1)] = self._schema_check(target, advertised, time.perf_counter() - started)
            for r_index, request in enumerate(target.requests):
                started = time.perf_counter()
                fetched = await _fetch(session, request)
                outcome.checks[(t_index, r_index)] = self._judge(
                    target, r_index, fetched, boundary, recorder, seen, time.perf_counter() - started
                )
        finally:
            if recorder is not None and not self._commit(recorder):
                # Nothing was written: no check may say its response was recorded.
                for key, check in list(outcome.checks.items()):
                    if key[0] == t_index and check.recorded is not None:
                        outcome.checks[key] = replace(
                            check, recorded=None, notes=(*check.notes, "not recorded: writing the recording failed")
                        )

    def _fail_rest(self, t_index: int, target: Target, exc: SessionFailed, outcome: _Outcome) -> None:
        """Every check of a source whose session could not be opened fails with that reason."""
        boundary = Boundary(target.contract, clock=self.clock, upstream=target.upstream.name)
        for r_index in range(-1, len(target.requests)):
            if (t_index, r_index) in outcome.checks or (r_index < 0 and target.upstream.kind != "mcp"):
                continue
            if r_index < 0:
                outcome.checks[(t_index, r_index)] = self._schema_failure(target, exc.failure, exc.stderr)
            else:
                fetched = Fetched(failure=exc.failure, stderr=exc.stderr)
                outcome.checks[(t_index, r_index)] = self._judge(target, r_index, fetched, boundary, None, set(), 0.0)

    def _not_called(self, target: Target, r_index: int | None, why: NotCalled) -> DriftCheck:
        """A check deliberately not sent: one per sample request, or one for an upstream with none."""
        label = "no requests" if r_index is None else target.labels[r_index]
        request = None if r_index is None else target.requests[r_index]
        return target.check(
            label,
            "(no sample requests)" if request is None else target.source.describe(request),
            NOT_CALLED,
            request=request,
            reason=why.reason,
            notes=(why.message,),
        )

    def _commit(self, recorder: Recorder) -> bool:
        """Write what the recorder staged; False (and a note) when that failed."""
        try:
            folder = recorder.commit()
        except OSError as exc:
            self.record_errors.append(
                f"{recorder.contract.tool}: recording failed, nothing written "
                f"({type(exc).__name__}: {exc.strerror or exc})"
            )
            return False
        if folder is not None:
            self.recorded.append(str(folder))
        return True

    # ------------------------------------------------------------------ judging
    def _judge(
        self,
        target: Target,
        r_index: int,
        fetched: Fetched,
        boundary: Boundary,
        recorder: Recorder | None,
        seen: set[str],
        duration: float,
    ) -> DriftCheck:
        if fetched.not_called is not None:
            return self._not_called(target, r_index, fetched.not_called)
        redactor = self.plan.env.redactor()
        request = target.requests[r_index]
        label = target.labels[r_index]
        document: Any = MISSING
        reason = None
        if fetched.failure is not None:
            failure = fetched.failure
            reason = failure.reason
            verdict = boundary.upstream_failure(failure.code, failure.message, request)
        elif fetched.refusal is not None:
            refusal = fetched.refusal
            verdict = boundary.reject(
                refusal.code,
                refusal.message,
                request,
                instance_pointer=refusal.pointer,
                raw=refusal.raw,
            )
        else:
            verdict, document = boundary.check_document(fetched.body, request)
        shape = None if document is MISSING else document_shape(document, target.hints)
        baseline = target.baseline
        comparison = compare(baseline.shapes, shape) if shape is not None else Comparison(())
        changes = comparison.changes
        notes: list[str] = []
        if comparison.nearest is not None:
            notes.append(
                "a shape no recorded sample has (a new combination of what they had): "
                f"compared with the nearest, {baseline.fixtures[comparison.nearest]}"
            )
        secrets: list[str] = []
        if shape is not None and fetched.body is not None:
            secrets = sorted({*redactor.found_in(fetched.body), *redactor.found_in_document(document)})
        if shape is not None and baseline.shape is None:
            # Offer --record only where it would make a baseline: it refuses a body holding a
            # secret, and a rejected response is recorded as a rejection, never a baseline.
            if secrets:
                why = ("drift --record will not record this response: it holds the value of "
                       + ", ".join("${" + n + "}" for n in secrets))
            elif not verdict.accepted:
                why = "this response is rejected, so recording it would not make one"
            else:
                why = "run drift --record"
            notes.append(
                f"no baseline yet: fixtures/historical/{target.contract.tool}/ holds no accepted shape ({why})"
            )
        status = _status(fetched, verdict, changes)
        recorded = None
        if recorder is not None and shape is not None and fetched.body is not None:
            if shape.digest in baseline.digests or shape.digest in seen:
                pass
            elif secrets:
                names = ", ".join("${" + n + "}" for n in secrets)
                notes.append(f"not recorded: the body contains the value of {names}")
                self.record_errors.append(
                    f"{target.contract.tool}: a new shape from upstream {target.upstream.name} ({label}) "
                    f"was not recorded: the body contains the value of {names}"
                )
            else:
                seen.add(shape.digest)
                recorded = recorder.add(
                    fetched.body,
                    request,
                    verdict,
                    label,
                    f"Recorded by contract-harness drift from upstream {target.upstream.name} "
                    f"({target.source.kind}): {target.source.describe(request)}",
                )
        return target.check(
            label,
            target.source.describe(request),
            status,
            version=boundary.version,
            request=request,
            verdict=verdict,
            reason=reason,
            changes=changes,
            shape=shape,
            baseline=baseline.fixtures,
            seen_before=baseline.seen_as(shape) if shape is not None and changes else None,
            recorded=recorded,
            notes=tuple(notes),
            info=dict(fetched.info),
            stderr=tail_lines(fetched.stderr, _STDERR_TAIL),
            duration_s=duration,
            payload=fetched.body if status == REJECTED and fetched.body is not None else None,
        )

    def _schema_check(self, target: Target, advertised: AdvertisedSchema, duration: float) -> DriftCheck:
        contract = target.contract
        base = target.check("outputSchema", advertised.target, HELD, subject=OUTPUT_SCHEMA, duration_s=duration)
        if not advertised.listed:
            return replace(
                base, status=UNAVAILABLE, reason="not_found", notes=(advertised.problem or "the tool is not listed",)
            )
        if advertised.schema is None:
            status = HELD if advertised.none_declared else DRIFTED
            return replace(base, status=status, notes=(advertised.problem or "no outputSchema advertised",))
        expected = (
            contract.vendor_document() if contract.adapter and contract.vendor_schema is not None
            else contract.document()
        )
        current = schema_shape(advertised.schema)
        changes = diff_shapes(schema_shape(expected), current)
        return replace(
            base,
            status=DRIFTED if changes else HELD,
            changes=changes,
            shape=current,
            dialect=schema_dialect(advertised.schema),
        )

    def _schema_failure(self, target: Target, failure: Failure, stderr: str) -> DriftCheck:
        return target.check(
            "outputSchema",
            "tools/list",
            UNAVAILABLE,
            subject=OUTPUT_SCHEMA,
            reason=failure.reason,
            notes=(failure.message,),
            stderr=tail_lines(stderr, _STDERR_TAIL),
        )

    def _unanswered(self, target: Target, r_index: int) -> DriftCheck:
        failure = Failure(
            TRANSPORT_UNAVAILABLE,
            "run_budget",
            f"the run reached its budget of {self.budget_s:g} s first",
        )
        if r_index < 0:
            return self._schema_failure(target, failure, "")
        boundary = Boundary(target.contract, clock=self.clock, upstream=target.upstream.name)
        return self._judge(target, r_index, Fetched(failure=failure), boundary, None, set(), 0.0)


_NO_REQUESTS = (
    "no sample requests (requests: is empty; add the arguments of calls that are harmless to make, "
    "and drift sends those)"
)


async def _fetch(session: Session, request: Mapping[str, Any]) -> Fetched:
    """One request through its session. Whatever a kind raises is a failure of this request,
    named by the exception's type only (its text may quote what was sent: a header, a token)."""
    try:
        return await session.fetch(request)
    except Exception as exc:
        return Fetched(
            failure=Failure(TRANSPORT_UNAVAILABLE, "error", f"sending the request failed: {type(exc).__name__}")
        )


def _status(fetched: Fetched, verdict: Verdict, changes: tuple[Any, ...]) -> str:
    if fetched.failure is not None:
        return UNAVAILABLE
    if not verdict.accepted:
        return REJECTED
    return DRIFTED if changes else HELD
