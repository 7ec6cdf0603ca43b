"""The engine: cases in, events out. It never prints; reporters turn events into text.

For each case the boundary runs, and the verdict is compared with the expectation:

- ``passed``: rejected at an expected layer (and code), accepted when acceptance was expected,
  or, for tools with an adapter, a vendor-side change absorbed with nothing leaking;
- ``failed``: ``unexpected_rejection``, ``missed``, ``wrong_layer``, ``wrong_code``,
  ``wrong_pointer``, ``canary_leak`` (a canary or a value of an unexpected field reached the
  agent), ``error`` (the harness itself broke);
- ``finding`` — about the contract rather than the connector: ``contract_gap`` (the contract's
  own schema accepts a near miss that the schema layer was expected to reject) and
  ``differential`` (production and reference validators disagree).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

import harness.lock as lock
from harness.boundary.base import Shortcuts
from harness.boundary.pipeline import Boundary, Verdict, VerdictEvidence
from harness.boundary.request import normalise_request
from harness.cases import Case, CaseExpectation, ToolCoverage
from harness.codes import Layer
from harness.contract import Contract, Waiver
from harness.differential.check import Differential
from harness.differential.verdicts import ReferenceVerdicts
from harness.errors import HarnessError, InvalidRequest
from harness.events import (
    FAILED,
    FINDING,
    PASSED,
    VERSIONS,
    CaseFinished,
    CaseResult,
    Event,
    RunFinished,
    RunStarted,
    Summary,
)
from harness.mutations import CANARY_PREFIX, REGISTRY
from harness.pointer import MISSING, escape_token
from harness.redaction import json_strings

_MIN_LEAK_LENGTH = 6
#: Sources whose cases are generated near misses: when the schema layer was expected to
#: reject one and the contract's own schema accepts it, that is a finding about the contract.
_NEAR_MISS_SOURCES = frozenset({"mutation", "fuzz"})


# ----------------------------------------------------------- a case against its expectation


def _unexpected_values(document: Any, contract: Contract, view_values: set[Any]) -> set[str]:
    """Strings in the document outside every agent_view pointer (values the agent must not see)."""
    view_pointers = {f.pointer for f in contract.agent_view}
    found: set[str] = set()
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if where in view_pointers:
            continue
        if isinstance(node, dict):
            stack.extend((f"{where}/{escape_token(k)}", v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", v) for i, v in enumerate(node))
        elif isinstance(node, str) and len(node) >= _MIN_LEAK_LENGTH and node not in view_values:
            found.add(node)
    return found


def _undeclared_vendor_strings(document: Any, contract: Contract) -> set[str]:
    """A vendor document's strings that the vendor schema does not declare (what the adapter has
    no business reading), less those equal to a declared one.

    The agent result of an adapter tool is built from the declared fields; a vendor message, URL
    or name found in it came through a field the agent view did not map from it, even when it
    sits in an agent-visible member (an adapter copying ``run.message`` into a new field).
    Without a vendor schema nothing is declared, and nothing is judged here (the canary rule
    still is)."""
    model = contract.vendor_document()
    if model is None:
        return set()
    undeclared: set[str] = set()
    declared: set[str] = set()
    stack: list[tuple[tuple[str, ...], Any]] = [((), document)]
    while stack:
        tokens, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(((*tokens, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*tokens, str(i)), v) for i, v in enumerate(node))
        elif isinstance(node, str):
            (declared if model.governing(list(tokens)) else undeclared).add(node)
    return {v for v in undeclared - declared if len(v) >= _MIN_LEAK_LENGTH}


def _member_names(contract: Contract, version: int) -> frozenset[str]:
    """The member names the contract itself writes: every ``properties`` name of the version's
    schema, and the agent view's names. A vendor word inside one of them (``pull_request`` in
    ``pull_requests``) is the contract's word, not a leak."""
    def build() -> frozenset[str]:
        names = {n.key for n in contract.document(version).nodes if n.keyword == "properties" and n.key}
        return frozenset(names | {f.name for f in contract.agent_view})

    return contract.memo(("member-names", version), build)


def _leak(case: Case, verdict: Verdict, document: Any, version: int) -> str | None:
    """Why the agent result carries something it must not, or None."""
    agent = verdict.agent_json
    if CANARY_PREFIX in agent:
        return "a canary reached the agent result"
    if document is None or not verdict.accepted or verdict.outcome != "success":
        return None
    result = json.loads(agent)
    data = result.get("data", {})
    # The agent result legitimately holds the projected values and the envelope's own words.
    allowed = {v for v in json_strings(data)} | set(json_strings({k: v for k, v in result.items() if k != "data"}))
    agent_strings = list(json_strings(data, _member_names(case.contract, version)))
    if case.contract.adapter is not None:
        unexpected = _undeclared_vendor_strings(document, case.contract)
    else:
        unexpected = _unexpected_values(document, case.contract, allowed)
    for value in unexpected:
        if any(value in text for text in agent_strings):
            shown = value if len(value) <= 40 else value[:37] + "..."
            if case.contract.adapter is not None:
                return (f"the vendor value {shown!r}, of a field the vendor schema does not declare, reached the "
                        "agent result")
            return f"the value {shown!r} of a field outside the agent view reached the agent result"
    return None


def _schema_accepts(contract: Contract, version: int, document: Any, schema_error: Any = MISSING) -> bool | None:
    """Would the schema layer's own schema accept ``document``? None when not applicable.
    ``schema_error``: what the schema layer said of it, when it validated it (see
    :class:`~harness.boundary.pipeline.VerdictEvidence`)."""
    if schema_error is not MISSING and document is not None:
        return schema_error is None
    validator = contract.vendor_validator() if contract.adapter else contract.validator(version)
    if validator is None or document is None:
        return None
    return bool(validator.is_valid(document))


def _absorbed(case: Case) -> str:
    if case.contract.adapter is not None:
        return "absorbed by the adapter; nothing reached the agent"
    return "accepted: a change the contract allows; nothing reached the agent"


#: What a check waiver may accept: a near miss the contract's schema lets through, or one the
#: boundary accepts where a later layer was expected to stop it (a window wider than a day).
_WAIVABLE = frozenset({"contract_gap", "missed"})


def _waiver_schema_name(case: Case, version: int) -> str:
    """The schema a case's document is held to, as a waiver names it: ``vendor`` or ``v<N>``."""
    return "vendor" if case.contract.adapter is not None else f"v{version}"


def waiver_for(case: Case, version: int, problem: str | None) -> tuple[int, Waiver] | None:
    """The contract's check waiver (with its index) that accepts this case's problem, if any."""
    if problem not in _WAIVABLE or case.source not in _NEAR_MISS_SOURCES or case.operator is None:
        return None
    for index, waiver in enumerate(case.contract.waivers):
        if (waiver.check == case.operator and _matches(_root(waiver.pointer), case.pointer or "")
                and waiver.schema in (None, _waiver_schema_name(case, version))):
            return index, waiver
    return None


def _root(pointer: str) -> str:
    return "" if pointer == "/" else pointer


def _matches(waived: str, pointer: str) -> bool:
    """Whether a check waiver's pointer names ``pointer``: token by token, ``*`` standing for
    any array index (a field of every item, as a finding's fix writes it)."""
    if waived == pointer:
        return True
    wanted, found = waived.split("/"), pointer.split("/")
    if len(wanted) != len(found):
        return False
    return all(w == f or (w == "*" and f.isdigit()) for w, f in zip(wanted, found, strict=True))


def unused_check_waivers(contract: Contract, used: set[int], operators: set[str]) -> list[str]:
    """Notes on the contract's check waivers that matched no case, among the operators that ran
    (``unused_waiver``, as lint says of its own): a waiver that outlives its finding would
    silently accept whatever appears at that pointer later."""
    notes = []
    for index, waiver in enumerate(contract.waivers):
        if not waiver.check or index in used:
            continue
        where = f"{contract.tool}: waivers[{index}]"
        if waiver.check not in REGISTRY:
            notes.append(f"{where} names no operator {waiver.check!r}{REGISTRY.suggest(waiver.check)} "
                         "(unused_waiver)")
        elif waiver.check in operators:
            notes.append(f"{where}: the check waiver for {waiver.check} at {waiver.pointer or '/'} matches no "
                         "case (unused_waiver): remove it, or correct its pointer or schema")
    return notes


def _compare_with_expectation(case: Case, verdict: Verdict, document: Any, version: int,
           schema_error: Any = MISSING) -> tuple[str, str | None, str]:
    expect = case.expect
    leak = _leak(case, verdict, document, version)
    if leak:
        return FAILED, "canary_leak", leak
    if expect.accept:
        if verdict.accepted:
            return PASSED, None, "accepted as expected"
        return FAILED, "unexpected_rejection", f"expected acceptance, rejected with {verdict.code}"
    if verdict.accepted or (verdict.layer is not None and Layer.SCHEMA in expect.layers
                            and verdict.layer not in expect.layers
                            and verdict.layer.order > Layer.SCHEMA.order):
        near_miss = case.source in _NEAR_MISS_SOURCES
        if near_miss and Layer.SCHEMA in expect.layers and _schema_accepts(case.contract, version, document,
                                                                              schema_error):
            if verdict.accepted and expect.absorbable:
                return PASSED, None, _absorbed(case)
            what = case.description[:1].lower() + case.description[1:] if case.description else "the near miss"
            where = case.pointer or "/"
            return FINDING, "contract_gap", f"the schema accepts {what.rstrip('.')} (at {where})"
        if verdict.accepted:
            if expect.absorbable:
                return PASSED, None, _absorbed(case)
            return FAILED, "missed", f"expected {expect.describe()}, but the result was accepted"
    if verdict.layer not in expect.layers:
        return FAILED, "wrong_layer", (
            f"expected {expect.describe()}, rejected by {verdict.layer.value if verdict.layer else '?'} "
            f"({verdict.code})"
        )
    if expect.code is not None and verdict.code != expect.code:
        return FAILED, "wrong_code", f"expected {expect.code}, got {verdict.code}"
    if expect.pointer is not None and verdict.instance_pointer != expect.pointer:
        return FAILED, "wrong_pointer", (
            f"expected the rejection at {expect.pointer or '/'}, got {verdict.instance_pointer or '/'}"
        )
    if expect.schema_pointer is not None and verdict.schema_pointer != expect.schema_pointer:
        return FAILED, "wrong_pointer", (
            f"expected schema location {expect.schema_pointer}, got {verdict.schema_pointer}"
        )
    return PASSED, None, f"rejected by {verdict.code}"


_EXCERPT_BYTES = 240


def excerpt(raw: bytes | None) -> str:
    """The first bytes of a payload, for people (reports show it; nothing parses it)."""
    if not raw:
        return ""
    text = raw[:_EXCERPT_BYTES].decode("utf-8", "replace")
    return text + (f"... ({len(raw):,} bytes)" if len(raw) > _EXCERPT_BYTES else "")


def _request_of(case: Case) -> dict[str, Any] | None:
    """The case's request as the boundary saw it (defaults filled in), for its reproduction; as
    given when the contract refuses it (that refusal is the case's error already)."""
    try:
        return dict(case.contract.normalise_request(case.request))
    except InvalidRequest:
        return dict(case.request) if isinstance(case.request, Mapping) else None


def version_findings(contract: Contract) -> list[CaseResult]:
    """A published schema version changed in place (schemas.lock), as ``check`` reports it: a
    finding of the contract's tool, one per version, beside its cases (the run goes on)."""
    found = []
    for problem in lock.changes(contract):
        version = int(problem.file.stem[1:])  # schemas/v<N>.json
        found.append(CaseResult(
            id=f"{contract.tool}::{VERSIONS}::v{version}", tool=contract.tool, source=VERSIONS, status=FINDING,
            problem="version_changed", expected=CaseExpectation(False, (), problem.code), layer=None,
            code=problem.code, instance_pointer=None, schema_pointer=None, message=None, detail=problem.message,
            operator=None, pointer=None, original="", mutated="", fixture=str(problem.file), version=version,
            contract_dir=str(contract.directory), now=None, request=None, duration_s=0.0,
            reproduce=f"contract-harness lock --check {contract.directory}"))
    return found


class Engine:
    """Runs cases through boundaries (one per contract and version, reused)."""

    def __init__(self, *, differential: bool = True, unused_waivers: bool = True,
                 saved: ReferenceVerdicts | None = None, explain: bool = True) -> None:
        self.differential = differential
        #: Whether every result carries what a report file shows of it: the schema layer's reason
        #: for a rejection (its code, message and pointers) and the payload's first bytes. Without
        #: (``check`` with no report file: the terminal shows nothing of a case that held but its
        #: layer), the schema layer explains a rejection only where the case asks for a code or
        #: pointer, or does not hold (see ``Boundary.examine``); the others keep
        #: ``schema.unexplained``, no pointers and no excerpt, and the differential check
        #: confirms them by the reference's own verdict (see :class:`~harness.differential.check.Differential`).
        self.explain = explain
        #: The run's differential check (its counts say how many pairs were compared), with the
        #: reference's verdicts saved by earlier runs (``saved``; None: none read or written).
        self.differentials = Differential(saved=saved)
        #: Report check waivers no case used (off for a shard: its waiver's case may be in another).
        self.unused_waivers = unused_waivers
        self._boundaries: dict[tuple[int, int], Boundary] = {}
        #: The last request normalised: (its contract, the request, the shortcuts that hand the
        #: boundary its normalised form, leaving schema rejections unexplained and explaining them).
        self._last_request: tuple[Any, Any, tuple[Shortcuts, Shortcuts]] = (None, None, (Shortcuts(), Shortcuts()))
        #: The last ``now`` written as text, and its text.
        self._last_now: tuple[datetime | None, str] = (None, "")
        #: Which check waivers accepted a case, by contract (its ``raw`` mapping, which the
        #: contract object behind an adapter shares with the contract).
        self.waived: dict[int, set[int]] = {}
        #: Each contract's folder as text (the contract held, so its id stays its own).
        self._directories: dict[int, tuple[Contract, str]] = {}

    def _shortcuts(self, case: Case, explain: bool) -> Shortcuts:
        """What the boundary is spared for ``case``: its request, normalised once for the run of
        cases that share it (a fixture's cases share its sidecar's request object, which nothing
        changes), and, without ``explain``, why the schema rejects a document."""
        contract, request, made = self._last_request
        if contract is not case.contract or request is not case.request:
            full = normalise_request(case.contract, case.request)  # InvalidRequest: the case's error
            made = (Shortcuts(full, explain=False), Shortcuts(full))
            self._last_request = (case.contract, case.request, made)
        return made[explain]

    def _now_text(self, now: datetime | None) -> str | None:
        """``now.isoformat()``, written once for the run of cases that share one ``now``."""
        if now is None:
            return None
        last, text = self._last_now
        if last is not now:
            text = now.isoformat()
            self._last_now = (now, text)
        return text

    def _directory(self, contract: Contract) -> str:
        """The contract's folder as text, written once per contract."""
        found = self._directories.get(id(contract))
        if found is None or found[0] is not contract:
            found = self._directories[id(contract)] = (contract, str(contract.directory))
        return found[1]

    def _explained(self, case: Case, contract: Contract, version: int, raw: bytes) -> VerdictEvidence:
        """The case examined again, its schema rejection explained (for the report of a case
        that does not hold)."""
        return self.boundary(contract, version).examine(raw, case.request, now=case.now,
                                                        shortcuts=self._shortcuts(case, True))

    def boundary(self, contract: Contract, version: int | None) -> Boundary:
        key = (id(contract), version or contract.version)
        if key not in self._boundaries:
            self._boundaries[key] = Boundary(contract, version=version)
        return self._boundaries[key]

    def evaluate(self, case: Case) -> CaseResult:
        started = time.perf_counter()
        contract = case.contract
        version = case.version or contract.version
        raw: bytes | None = None
        fix: str | None = None
        try:
            if case.examined is not None and version == contract.version:
                raw, examined = case.examined  # examined as its mutations were prepared
            else:
                raw = case.build()
                expect = case.expect
                explain = (self.explain or expect.code is not None or expect.pointer is not None
                           or expect.schema_pointer is not None)
                examined = self.boundary(contract, version).examine(raw, case.request, now=case.now,
                                                                    shortcuts=self._shortcuts(case, explain))
            verdict, parsed, schema_error = examined.verdict, examined.document, examined.schema_error
            document = None if parsed is MISSING else parsed
            status, problem, detail = _compare_with_expectation(case, verdict, document, version, schema_error)
            if status != PASSED and schema_error is Shortcuts.UNEXPLAINED:  # the report shows the reason: ask for it
                examined = self._explained(case, contract, version, raw)
                verdict, schema_error = examined.verdict, examined.schema_error
                status, problem, detail = _compare_with_expectation(case, verdict, document, version, schema_error)
            waived = waiver_for(case, version, problem)
            if waived is not None:
                index, waiver = waived
                self.waived.setdefault(id(case.contract.raw), set()).add(index)
                status, problem, detail = PASSED, None, f"waived (waivers[{index}]): {waiver.reason} [{detail}]"
            elif problem in _WAIVABLE and case.source in _NEAR_MISS_SOURCES and case.fix:
                fix = case.fix
            if status == PASSED and self.differential:
                disagreement = self.differentials.check(contract, version, document, schema_error, raw)
                if disagreement:
                    status, problem, detail = FINDING, "differential", disagreement
                    if schema_error is Shortcuts.UNEXPLAINED:
                        verdict = self._explained(case, contract, version, raw).verdict
            layer, code = verdict.layer, verdict.code
            ip, sp, message = verdict.instance_pointer, verdict.schema_pointer, verdict.message
        except (HarnessError, Exception) as exc:
            fix = None
            status, problem = FAILED, "error"
            detail = f"{type(exc).__name__}: {exc}"
            layer = code = ip = sp = message = None
        return CaseResult(
            id=case.id, tool=case.tool, source=case.source, status=status, problem=problem, expected=case.expect,
            layer=layer, code=code, instance_pointer=ip, schema_pointer=sp, message=message, detail=detail,
            operator=case.operator, pointer=case.pointer, original=case.original, mutated=case.mutated,
            fixture=case.fixture, version=version, contract_dir=self._directory(contract),
            now=self._now_text(case.now), request=None if status == PASSED else _request_of(case),
            duration_s=time.perf_counter() - started,
            # Past max_bytes the transport layer decides on the first max_bytes + 1 bytes alone: the
            # reproduction needs no more, and a huge payload is never copied whole.
            payload=raw[: contract.limits.max_bytes + 1] if status != PASSED and raw is not None else None,
            excerpt=excerpt(raw) if self.explain or status != PASSED else "", shape=case.shape, fix=fix,
        )

    def run(self, cases: Iterable[Case | CaseResult], notes: Iterable[str] = (), *,
            tools: Iterable[str] | None = None, coverage: Iterable[ToolCoverage] = ()) -> Iterator[Event]:
        """Evaluate every case, yielding events; the last event carries the summary.

        Without ``tools`` the cases are listed and counted first. With ``tools`` (what the run's
        ``RunStarted`` names) they are streamed: each case is made, evaluated and dropped in
        turn, so memory stays flat however many there are, and ``notes`` and ``coverage`` (what
        each contract's near misses probed) may still grow while the cases are made (they are
        read at the end). A :class:`CaseResult` among the cases was decided before the run (a
        published schema version changed in place): it is reported and counted as it is, in its
        place."""
        if tools is None:
            cases = list(cases)
            started_event = RunStarted(len(cases), tuple(sorted({c.tool for c in cases})))
        else:
            started_event = RunStarted(None, tuple(sorted(set(tools))))
        summary = Summary()
        started = time.perf_counter()
        yield started_event
        contracts: dict[int, tuple[Contract, set[str]]] = {}
        for index, case in enumerate(cases):
            if isinstance(case, CaseResult):
                summary.add(case)
                yield CaseFinished(index, case)
                continue
            result = self.evaluate(case)
            summary.add(result)
            if case.operator:
                seen = contracts.get(id(case.contract.raw))
                if seen is None:
                    seen = contracts[id(case.contract.raw)] = (case.contract, set())
                seen[1].add(case.operator)
            yield CaseFinished(index, result)
        summary.notes = list(notes)
        summary.coverage = list(coverage)
        for key, (contract, operators) in contracts.items() if self.unused_waivers else ():
            summary.notes.extend(unused_check_waivers(contract, self.waived.get(key, set()), operators))
        summary.duration_s = time.perf_counter() - started
        if self.differential:
            self.differentials.finish()
            summary.differential = self.differentials.counts()
        yield RunFinished(summary)
