"""The fuzz properties: each one decorated function, checked on one generated example.

```python
@fuzz_property(draws="valid, bound, fresh contract objects")
def accepts_valid(subject: Subject, draw: Draw) -> Observation:
    \"\"\"Every schema-valid document that satisfies binding and freshness is accepted ...\"\"\"
```

A property draws its example with ``draw`` (hypothesis shrinks whatever it drew), runs it
through the boundary, and returns an :class:`~harness.fuzz.model.Observation` — or raises
:class:`~harness.fuzz.model.PropertyViolation` with a :class:`~harness.fuzz.model.Finding`.
The function name is the registry key, the report label and the pytest item name; the
docstring's first paragraph is the catalogue's summary. This module does not import hypothesis at
the top: the plugin reads the catalogue without loading the generators.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from harness.cases import ACCEPT, Case, CaseExpectation
from harness.codes import ADAPTER_ERROR, Layer
from harness.corpus import Expectation
from harness.errors import RejectedInput
from harness.fuzz.model import ACCEPTED, Finding, Observation, PropertyViolation
from harness.mutations import CANARY_PREFIX
from harness.registry import Registry

if TYPE_CHECKING:
    from datetime import datetime

    from harness.boundary.pipeline import Boundary, Verdict
    from harness.contract import Contract
    from harness.fuzz.subject import Subject

Draw = Callable[[Any], Any]
#: What an adapter may raise to refuse a vendor value it does not understand (a clean
#: ``adapter.error``). Anything else on a document its vendor schema accepts is a crash: the
#: adapter relies on something the vendor schema does not state.
REFUSALS: tuple[type[Exception], ...] = (ValueError,)
_NO_REJECTION = CaseExpectation(False, ())


@dataclass(frozen=True, slots=True)
class Property:
    name: str
    func: Callable[[Subject, Draw], Observation] = field(repr=False)
    summary: str
    draws: str
    adapter_only: bool

    def applies(self, contract: Contract) -> bool:
        """Whether the property has anything to check on this contract."""
        return not self.adapter_only or (contract.adapter is not None and contract.vendor_schema is not None)

    def __call__(self, subject: Subject, draw: Draw) -> Observation:
        return self.func(subject, draw)


class PropertyRegistry(Registry[Property]):
    """Properties by name, in registration order (the order of reports and pytest items)."""

    def __init__(self, modules: Iterable[str] = ()) -> None:
        super().__init__("property", modules=modules, unknown_code="usage.invalid")

    def register(self, *, draws: str, adapter_only: bool = False
                 ) -> Callable[[Callable[[Subject, Draw], Observation]], Property]:
        def decorate(func: Callable[[Subject, Draw], Observation]) -> Property:
            name = func.__name__
            paragraph = (func.__doc__ or "").strip().split("\n\n")[0]
            summary = " ".join(line.strip() for line in paragraph.splitlines())
            if not summary:
                raise ValueError(f"fuzz property {name!r} needs a docstring (its first paragraph is the summary)")
            return self.add(Property(name, func, summary, draws, adapter_only))

        return decorate

    def applicable(self, contract: Contract) -> list[Property]:
        return [p for p in self if p.applies(contract)]


#: The properties this package ships: declared below, in this module (so the registry has no
#: other module to load).
PROPERTIES = PropertyRegistry()
fuzz_property = PROPERTIES.register


# --------------------------------------------------------------------------- helpers


def _finding(problem: str, detail: str, payload: bytes, request: Any, now: datetime, *,
             expected: CaseExpectation, fixture: Expectation, verdict: Verdict | None = None,
             **extra: Any) -> Finding:
    finding = Finding(problem, detail, payload, dict(request), now, expected, fixture, **extra)
    return finding.with_verdict(verdict) if verdict is not None else finding


def _likely_rejection(subject: Subject, raw: bytes) -> Expectation:
    """Where bytes the boundary choked on should have been stopped: what the strict parser
    says of them, else the schema layer (the fixture's sidecar says it was inferred)."""
    from harness.strict_json import strict_loads

    limits = subject.contract.limits
    if not raw.strip():
        return Expectation.reject(Layer.TRANSPORT, "transport.empty")
    if len(raw) > limits.max_bytes:
        return Expectation.reject(Layer.TRANSPORT, "transport.max_bytes")
    try:
        strict_loads(raw, max_depth=limits.max_depth)
    except RejectedInput as exc:
        return Expectation.reject(exc.layer, exc.code)
    except Exception:
        return Expectation.reject(Layer.PARSE)
    return Expectation.reject(Layer.SCHEMA)


def _check(subject: Subject, boundary: Boundary, raw: bytes, request: Any, now: datetime,
           *, expected: CaseExpectation, shape: str) -> Verdict:
    """``boundary.check``; an exception (of any kind but an interrupt) is a finding."""
    try:
        return boundary.check(raw, request, now=now)
    except (Exception, SystemExit) as exc:
        text = str(exc).splitlines()[0][:160] if str(exc) else ""
        raise PropertyViolation.of(_finding(
            "raised", f"the boundary raised {type(exc).__name__}{': ' + text if text else ''} instead of "
            "returning a verdict", raw, request, now, expected=expected,
            fixture=_likely_rejection(subject, raw), shape=shape)) from None


def agent_problem(contract: Contract, version: int, verdict: Verdict, request: Any) -> str | None:
    """Why the agent result is not one of the two shapes the agent may receive, or None."""
    result = verdict.agent_result
    request_id = request["request_id"] if request and "request_id" in request else contract.request_id
    outcome = result.get("outcome")
    expected_keys = {"tool", "request_id", "outcome", "data" if outcome == "success" else "error"}
    if outcome not in ("success", "failure") or set(result) != expected_keys:
        return f"the agent result has members {sorted(result)} (outcome {outcome!r})"
    if result["tool"] != contract.tool or result["request_id"] != request_id:
        return "the agent result names another tool or request than the one called"
    if outcome == "failure":
        error = result["error"]
        if (not isinstance(error, dict) or set(error) != {"code", "retryable"}
                or error["code"] not in contract.errors.allowed or not isinstance(error["retryable"], bool)):
            return f"the failure's error {json.dumps(error)[:80]} is not a code of the finite set"
        return None
    validator = contract.view_validator(version)
    if not validator.is_valid(result["data"]):
        violation = validator.violations(result["data"])[0]
        return (f"the agent result does not fit the agent view schema: schema.{violation.keyword} "
                f"at {violation.instance_pointer or '/'}")
    return None


def _canary_leak(verdict: Verdict, where: Callable[[str], str | None]) -> str | None:
    text = verdict.agent_json
    if CANARY_PREFIX not in text:
        return None
    pointer = where(text)
    place = f"injected at {pointer}" if pointer else "injected into the document"
    return f"the canary {place} reached the agent result"


def _expect_actual(verdict: Verdict) -> Expectation:
    """A fixture expectation pinning the verdict as it is (for leaks: the harness's canary
    rule fails the case whatever its expectation)."""
    if verdict.accepted or verdict.layer is None:
        return Expectation(True)
    return Expectation.reject(verdict.layer, verdict.code)


# --------------------------------------------------------------------------- the properties


@fuzz_property(draws="contract objects valid under the schema, bound to the request and fresh")
def accepts_valid(subject: Subject, draw: Draw) -> Observation:
    """Every schema-valid document that satisfies binding and freshness is accepted, and its
    agent result validates against the derived agent view schema."""
    bound = draw(subject.bound_documents())
    raw = bound.raw
    shape = "contract" if subject.has_adapter else "upstream"
    verdict = _check(subject, subject.objects, raw, bound.request, bound.now, expected=ACCEPT, shape=shape)
    if not verdict.accepted:
        raise PropertyViolation.of(_finding(
            "unexpected_rejection", f"a valid, bound, fresh document was rejected with {verdict.code}",
            raw, bound.request, bound.now, expected=ACCEPT, fixture=Expectation(True), verdict=verdict,
            shape=shape))
    problem = agent_problem(subject.objects_contract, subject.version, verdict, bound.request)
    if problem:
        raise PropertyViolation.of(_finding(
            "agent_shape", problem, raw, bound.request, bound.now, expected=ACCEPT,
            fixture=Expectation(True), verdict=verdict, shape=shape))
    return Observation((ACCEPTED,), (verdict.outcome,))


@fuzz_property(draws="valid, bound, fresh documents, each through 8 drawn mutation operators "
                     "(at most 16 mutants); across a run, every operator")
def rejects_near_misses(subject: Subject, draw: Draw) -> Observation:
    """Every near miss is rejected, at its operator's layer (a near miss the schema accepts is a
    finding about the contract)."""
    drawn = draw(subject.near_miss_sets())
    source = drawn.source
    columns: list[str] = []
    for miss in drawn.misses:
        mutant = miss.mutant
        case = Case(
            id=f"{subject.tool}::fuzz::rejects_near_misses", tool=subject.tool, source="fuzz",
            contract=subject.objects_contract, expect=miss.expect, build=lambda m=miss: m.raw,  # type: ignore[misc]
            request=source.request, now=source.now, version=subject.version, operator=mutant.operator,
            pointer=mutant.pointer, original=mutant.original, mutated=mutant.mutated, canary=mutant.canary,
            description=subject.registry[mutant.operator].summary,
        )
        result = subject.engine.evaluate(case)
        if result.status != "passed":
            fixture = (Expectation.reject(mutant.layers[0], mutant.code if len(mutant.layers) == 1 else None)
                       if mutant.layers else Expectation.reject(Layer.SCHEMA))
            raise PropertyViolation.of(Finding(
                result.problem or "error", result.detail, miss.raw, dict(source.request), source.now,
                miss.expect, fixture, status=result.status, layer=result.layer, code=result.code,
                instance_pointer=result.instance_pointer, schema_pointer=result.schema_pointer,
                message=result.message, operator=mutant.operator, pointer=mutant.pointer,
                original=mutant.original, mutated=mutant.mutated,
                shape="contract" if subject.has_adapter else "upstream"))
        columns.append(result.column)
    return Observation(tuple(columns), tuple(m.mutant.operator for m in drawn.misses))


@fuzz_property(draws="random bytes and text; truncations, splices and insertions of valid documents")
def survives_any_bytes(subject: Subject, draw: Draw) -> Observation:
    """The boundary never raises on arbitrary bytes: it returns a verdict, and the agent gets
    one of its two shapes."""
    sample = draw(subject.arbitrary_bytes())
    request = subject.default_request()
    verdict = _check(subject, subject.boundary, sample.raw, request, subject.now,
                     expected=_NO_REJECTION, shape="upstream")
    problem = agent_problem(subject.contract, subject.version, verdict, request)
    if problem:
        raise PropertyViolation.of(_finding(
            "agent_shape", problem, sample.raw, request, subject.now, expected=_NO_REJECTION,
            fixture=_expect_actual(verdict), verdict=verdict))
    return Observation.of(verdict, sample.how)


@fuzz_property(draws="bound documents with canaries in extra members and in values outside the agent view "
                     "(and, for an adapter tool, vendor documents with canary members)")
def keeps_canaries_out(subject: Subject, draw: Draw) -> Observation:
    """Values from fields outside the agent view never reach any agent result, accepted or
    failure."""
    from hypothesis import strategies as st

    if subject.has_adapter and draw(st.booleans()):
        injected = draw(subject.canaried_vendor())
        request, now, boundary, shape = subject.default_request(), subject.now, subject.boundary, "upstream"
        label = "vendor"
    else:
        bound, injected = draw(subject.canaried_objects())
        request, now, boundary = bound.request, bound.now, subject.objects
        shape = "contract" if subject.has_adapter else "upstream"
        label = "contract"
    raw = json.dumps(injected.document, ensure_ascii=False).encode("utf-8")
    verdict = _check(subject, boundary, raw, request, now, expected=_NO_REJECTION, shape=shape)
    leak = _canary_leak(verdict, injected.where)
    if leak:
        raise PropertyViolation.of(_finding(
            "canary_leak", leak, raw, request, now, expected=_NO_REJECTION,
            fixture=_expect_actual(verdict), verdict=verdict, shape=shape))
    return Observation.of(verdict, label)


@fuzz_property(draws="vendor documents from vendor_schema (open shapes, extra members with canaries)",
               adapter_only=True)
def adapter_maps_cleanly(subject: Subject, draw: Draw) -> Observation:
    """Vendor documents become a contract-valid object or a clean adapter.* rejection: never
    another exception, never a vendor-only field in the output."""
    from hypothesis import reject

    injected = draw(subject.canaried_vendor(min_size=0))
    raw = json.dumps(injected.document, ensure_ascii=False).encode("utf-8")
    request, now = subject.default_request(), subject.now
    verdict = _check(subject, subject.boundary, raw, request, now, expected=_NO_REJECTION, shape="upstream")
    if verdict.layer in (Layer.TRANSPORT, Layer.PARSE):
        subject.tally["beyond_limits"] = subject.tally.get("beyond_limits", 0) + 1
        reject()  # a generated document past the tool's byte or depth limits: not the adapter's case
    if verdict.layer is Layer.SCHEMA and injected.canaries:
        reject()  # an injected member the vendor schema does not allow there (a closed object)
    if verdict.layer is Layer.SCHEMA:
        raise PropertyViolation.of(_finding(
            "wrong_layer", f"the vendor schema layer rejected a document generated from vendor_schema "
            f"({verdict.code})", raw, request, now, expected=_NO_REJECTION,
            fixture=Expectation(True), verdict=verdict))
    adapter = subject.contract.adapter_function()
    assert adapter is not None
    try:
        output = adapter(json.loads(raw), MappingProxyType(dict(subject.contract.normalise_request(request))))
    except REFUSALS as exc:
        return Observation.of(verdict, f"refused ({type(exc).__name__})")
    except Exception as exc:
        said = " ".join(str(exc).split())[:120]
        raise PropertyViolation.of(_finding(
            "adapter_crash", f"the adapter raised {type(exc).__name__} on a document its vendor_schema "
            "accepts: state what it relies on in vendor_schema, or refuse with a ValueError",
            raw, request, now, expected=CaseExpectation(False, (Layer.ADAPTER,), ADAPTER_ERROR),
            fixture=Expectation.reject(Layer.ADAPTER, ADAPTER_ERROR), verdict=verdict,
            expected_text=f"a contract object, or a refusal ({', '.join(e.__name__ for e in REFUSALS)}: "
                          f"{ADAPTER_ERROR})",
            actual_text=f"{type(exc).__name__}{': ' + said if said else ''} (a crash, which the boundary also "
                        f"reports as {ADAPTER_ERROR})")) from None
    try:
        text = json.dumps(output, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(output)
    if CANARY_PREFIX in text:
        pointer = injected.where(text) or "a vendor-only member"
        raise PropertyViolation.of(_finding(
            "vendor_leak", f"the value of the vendor-only member {pointer} reached the adapter's output",
            raw, request, now, expected=_NO_REJECTION, fixture=_expect_actual(verdict), verdict=verdict))
    return Observation.of(verdict, "mapped" if verdict.layer is not Layer.ADAPTER else verdict.code or "")
