"""Case sources: fixtures (accepted, rejected, historical) and near-miss mutations.

A :class:`Case` is one payload with one expectation. Its ``id`` is stable and readable:
``<tool>::<source>::<label>``, e.g. ``review_status::mutation::add_extra_property@/data[approved]``
(the fixture a mutant came from in brackets). Payload bytes are built lazily, so listing or
sharding cases costs nothing per payload.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from harness.boundary.pipeline import Boundary, VerdictEvidence, system_clock
from harness.codes import Layer
from harness.contract import Contract
from harness.corpus import Expectation, Fixture, fixtures_for
from harness.errors import HarnessError
from harness.frozen import fast_frozen
from harness.mutations import REGISTRY, Coverage, Mutant, MutationContext, OperatorRegistry, Variant
from harness.mutations.context import dumps
from harness.project import DEFAULT_MAX_MUTANTS as DEFAULT_MAX_MUTANTS  # defined there for check --help
from harness.project import SOURCES as SOURCES
from harness.timeutil import parse_rfc3339


@fast_frozen
@dataclass(frozen=True, slots=True)
class CaseExpectation:
    """What must happen to a case: accepted, or rejected by one of ``layers``."""

    accept: bool
    layers: tuple[Layer, ...] = ()
    code: str | None = None
    pointer: str | None = None
    schema_pointer: str | None = None
    #: Adapter tools: a change the adapter may absorb (accepted, with nothing leaking).
    absorbable: bool = False

    @classmethod
    def of(cls, expect: Expectation) -> CaseExpectation:
        if expect.accept:
            return ACCEPT
        assert expect.layer is not None
        return cls(False, (expect.layer,), expect.code, expect.pointer, expect.schema_pointer)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as the class and its fields' values (each result of ``--jobs`` carries one).
        return type(self), _EXPECTATION_FIELDS(self)

    @property
    def layer(self) -> Layer | None:
        return self.layers[0] if self.layers else None

    def describe(self) -> str:
        if self.accept:
            return "accept"
        text = self.code or " or ".join(layer.value for layer in self.layers)
        if self.pointer is not None:
            text += f" at {self.pointer or '/'}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "accept": self.accept,
            "layer": self.layer.value if self.layer else None,
            "layers": [layer.value for layer in self.layers],
            "code": self.code,
            "pointer": self.pointer,
            "absorbable": self.absorbable,
        }


_EXPECTATION_FIELDS = operator.attrgetter(*(f.name for f in fields(CaseExpectation)))
ACCEPT = CaseExpectation(True)


@fast_frozen
@dataclass(frozen=True, slots=True)
class Case:
    id: str
    tool: str
    source: str
    contract: Contract = field(repr=False, compare=False)
    expect: CaseExpectation
    build: Callable[[], bytes] = field(repr=False, compare=False)
    request: Mapping[str, Any] | None = None
    now: datetime | None = None
    version: int | None = None
    operator: str | None = None
    pointer: str | None = None
    original: str = ""
    mutated: str = ""
    canary: str | None = None
    fixture: str | None = None
    path: Path | None = None
    description: str = ""
    #: ``contract`` for a payload that is the contract object of a tool with an adapter (judged
    #: without the adapter: ``verify --shape contract`` reproduces it), else ``upstream``.
    shape: str = "upstream"
    #: An accepted fixture's bytes and the boundary's examination of them, as its mutations were
    #: prepared (the same contract, version, request and fixed clock): the engine judges these
    #: instead of reading and examining the file again.
    examined: tuple[bytes, VerdictEvidence] | None = field(default=None, repr=False, compare=False)
    #: A near miss: what to do should it get through, in one line (:func:`fix_line`).
    fix: str = ""

    @property
    def label(self) -> str:
        return self.id.split("::", 2)[2]


def _fixture_now(contract: Contract, fixture: Fixture) -> datetime | None:
    if fixture.now is not None:
        return parse_rfc3339(fixture.now)
    return contract.default_now


def _fixture_case(contract: Contract, fixture: Fixture, ctx: MutationContext | None = None) -> Case:
    expect = fixture.expect
    version = fixture.version if fixture.version != contract.version else None  # the sidecar's, if another
    if fixture.kind == "historical" and fixture.expect_by_version:
        expect = fixture.expect_by_version.get(version or contract.version, expect)
    # A contract-shaped payload of a tool with an adapter is judged as the contract object it is.
    target = contract.without_adapter() if fixture.shape == "contract" else contract
    now = _fixture_now(contract, fixture)
    examined = None
    if (ctx is not None and ctx.examined is not None and target is contract and now is not None and now == ctx.now
            and version is None):
        examined = (ctx.raw, ctx.examined)
    return Case(
        id=fixture.id,
        tool=contract.tool,
        source=fixture.kind,
        contract=target,
        expect=CaseExpectation.of(expect),
        build=fixture.read,
        request=fixture.request,
        now=now,
        version=version,
        path=fixture.path,
        fixture=fixture.id,
        description=fixture.description,
        shape="contract" if target is not contract else "upstream",
        examined=examined,
    )


class MutationSkipped(HarnessError):
    """An accepted fixture that does not pass cannot seed mutations."""

    code = "fixture.not_accepted"


def mutation_context(contract: Contract, fixture: Fixture, boundary: Boundary) -> MutationContext:
    """Parse an accepted fixture and prepare it for the operators."""
    raw = fixture.read()
    fixed = _fixture_now(contract, fixture)
    now = fixed or system_clock()
    examined = boundary.examine(raw, fixture.request, now=now)  # parsed once
    verdict, document = examined.verdict, examined.document
    if not verdict.accepted:
        raise MutationSkipped(f"{fixture.id} is not accepted ({verdict.code}); no mutations from it")
    request = contract.normalise_request(fixture.request)
    adapter = contract.adapter_function()
    result = adapter(document, request) if adapter is not None else document
    schema = contract.vendor_schema if adapter is not None else contract.schema()
    return MutationContext(
        contract=contract,
        version=contract.version,
        fixture_id=fixture.id,
        raw=raw,
        document=document,
        result=result,
        schema=schema,
        now=now,
        request=request,
        examined=examined,
        fixed_clock=fixed is not None,
    )


def output_context(ctx: MutationContext, boundary: Boundary | None = None) -> MutationContext | None:
    """For a tool with an adapter: the adapter's output (the contract object) of ``ctx``, ready
    to be mutated and judged as the current version's schema judges it, without the adapter.

    The raw operators see only the vendor document; an opened or loosened contract schema behind
    the adapter is visible only to near misses of the object the adapter emits. None when the
    tool has no adapter or the contract object does not pass on its own.
    """
    if ctx.contract.adapter is None:
        return None
    target = ctx.contract.without_adapter()
    raw = dumps(ctx.result)
    boundary = boundary or Boundary(target)
    if not boundary.check(raw, ctx.request, now=ctx.now).accepted:
        return None
    return MutationContext(
        contract=target, version=ctx.version, fixture_id=f"{ctx.fixture_id}/contract", raw=raw,
        document=ctx.result, result=ctx.result, schema=target.schema(ctx.version), now=ctx.now,
        request=ctx.request, corpus=ctx.results, fixed_clock=ctx.fixed_clock,
    )


def mutation_cases(
    contract: Contract,
    fixture: Fixture,
    boundary: Boundary,
    *,
    registry: OperatorRegistry = REGISTRY,
    max_mutants: int | None = DEFAULT_MAX_MUTANTS,
    operators: Iterable[str] | None = None,
    output_boundary: Boundary | None = None,
    ctx: MutationContext | None = None,
    coverage: Coverages | None = None,
) -> list[Case]:
    """The near-miss cases of an accepted fixture (``ctx``: its :func:`mutation_context`, when
    the caller made it; ``coverage``: what the contract's earlier fixtures probed, when sampled
    for coverage)."""
    ctx = ctx if ctx is not None else mutation_context(contract, fixture, boundary)
    contexts = [(ctx, "", registry.generate(ctx, max_mutants, operators,
                                            coverage=coverage.upstream if coverage else None))]
    output = output_context(ctx, output_boundary)
    if output is not None:
        # Only near misses the schema must stop: the transport, parse and semantic operators
        # already ran on the vendor document, through the adapter.
        contexts.append((output, "/contract", registry.generate(
            output, max_mutants, operators, coverage=coverage.contract if coverage else None, layer=Layer.SCHEMA)))
    cases = []
    seen: set[str] = set()
    tool, name, fixture_id, request, path = contract.tool, fixture.name, fixture.id, fixture.request, fixture.path
    # Mutants with the same expectation share one (a fixture's forty-odd mutants have a handful).
    expectations: dict[tuple[Any, ...], CaseExpectation] = {}
    for context, suffix, mutants in contexts:
        shape = "contract" if context is output else "upstream"
        judged_by = "vendor" if context.contract.adapter is not None else f"v{context.version}"
        for mutant in mutants:
            op = registry[mutant.operator]
            label = op.label(mutant)
            case_id = f"{tool}::mutation::{label}[{name}{suffix}]"
            if case_id in seen:  # two mutants at one place (a binding and its twin): keep ids unique
                case_id = f"{tool}::mutation::{label}~{len(seen)}[{name}{suffix}]"
            seen.add(case_id)
            key = (mutant.layers, mutant.code, mutant.absorbable)
            expect = expectations.get(key)
            if expect is None:
                expect = expectations[key] = CaseExpectation(False, mutant.layers, mutant.code, None, None,
                                                             mutant.absorbable)
            cases.append(Case(
                id=case_id, tool=tool, source="mutation", contract=context.contract, expect=expect,
                build=mutant.build, request=request, now=ctx.now, operator=mutant.operator, pointer=mutant.pointer,
                original=mutant.original, mutated=mutant.mutated, canary=mutant.canary, fixture=fixture_id,
                path=path, description=op.summary, shape=shape,
                fix=fix_line(op.variants[mutant.variant], mutant, judged_by, context.field_of(mutant.pointer)),
            ))
    return cases


def fix_line(variant: Variant, mutant: Mutant, schema: str, field_name: str) -> str:
    """What to do about a near miss that got through, in one line: its operator's declared fix,
    and the check waiver to paste into ``contract.yaml`` to keep it on purpose. Both name the
    field (``/statuses/*/context``: every item's), which a waiver may name."""
    waiver = (f"- {{check: {mutant.operator}, schema: {schema}, pointer: {json.dumps(field_name)}, "
              'reason: "<why it is meant>"}')
    kept = f"keep it on purpose with a waiver in contract.yaml (under waivers:): {waiver}"
    declared = variant.fix_for(mutant, schema, field_name)
    return f"{declared}; or {kept}" if declared else kept[0].upper() + kept[1:]


@dataclass(frozen=True, slots=True)
class ToolCoverage:
    """What one contract's near misses probed: the agent-visible fields, the operator classes
    (an operator, or a variant of a labelled one), the (field, class) pairs probed — each
    applicable pair at least once, whatever ``--max-mutants`` says — and how many cases that
    coverage kept past the cap."""

    tool: str
    fields: int
    classes: int
    pairs: int
    added: int

    def to_dict(self) -> dict[str, int]:
        return {"fields": self.fields, "operator_classes": self.classes, "pairs": self.pairs,
                "added_past_cap": self.added}

    def line(self) -> str:
        return (f"{self.tool}: {self.fields} agent-visible field{'s' if self.fields != 1 else ''} x "
                f"{self.classes} operator class{'es' if self.classes != 1 else ''}: {self.pairs:,} probed"
                + (f" ({self.added:,} past --max-mutants)" if self.added else ""))


@dataclass(frozen=True, slots=True)
class Coverages:
    """What the near misses of one contract probed: in the documents it is given (the vendor's,
    for a tool with an adapter) and in the contract objects an adapter emits."""

    upstream: Coverage = field(default_factory=Coverage)
    contract: Coverage = field(default_factory=Coverage)

    def summary(self, tool: str) -> ToolCoverage:
        both = self.upstream.pairs | {(f"contract:{f}", o, v) for f, o, v in self.contract.pairs}
        return ToolCoverage(tool, len({f for f, _, _ in both}), len({(o, v) for _, o, v in both}), len(both),
                            self.upstream.added + self.contract.added)


@dataclass(frozen=True, slots=True)
class Collected:
    """The cases of one contract, why some could not be made (fixtures that fail), and what its
    near misses probed (None when no mutation was asked for)."""

    cases: list[Case]
    notes: list[str]
    coverage: ToolCoverage | None = None


def cases_for(
    contract: Contract,
    *,
    sources: Iterable[str] = SOURCES,
    registry: OperatorRegistry = REGISTRY,
    max_mutants: int | None = DEFAULT_MAX_MUTANTS,
    operators: Iterable[str] | None = None,
) -> Collected:
    """Every case of one contract, in a stable order."""
    wanted = set(sources)
    kinds = tuple(k for k in ("accepted", "rejected", "historical") if k in wanted)
    fixtures = fixtures_for(contract, kinds) if kinds else []
    notes: list[str] = []
    # Each accepted fixture seeding mutations is examined once, for its mutations and its own case.
    contexts: dict[int, MutationContext | MutationSkipped] = {}
    mutating = "mutation" in wanted
    if mutating:
        boundary = Boundary(contract)
        source_fixtures = fixtures if "accepted" in wanted else fixtures_for(contract, ("accepted",))
        for fixture in source_fixtures:
            if fixture.kind == "accepted":
                try:
                    contexts[id(fixture)] = mutation_context(contract, fixture, boundary)
                except MutationSkipped as exc:
                    contexts[id(fixture)] = exc
        ready = [c for c in contexts.values() if isinstance(c, MutationContext)]
        corpus, results = tuple(c.document for c in ready), tuple(c.result for c in ready)
        for context in ready:
            context.corpus, context.results = corpus, results
    cases = [_fixture_case(contract, f, _ready(contexts.get(id(f)))) for f in fixtures]
    coverage = Coverages() if mutating else None
    if mutating:
        output_boundary = Boundary(contract.without_adapter()) if contract.adapter is not None else None
        for fixture in source_fixtures:
            found = contexts.get(id(fixture))
            if found is None:
                continue
            if isinstance(found, MutationSkipped):
                notes.append(str(found))
                continue
            cases.extend(
                mutation_cases(
                    contract, fixture, boundary, registry=registry, max_mutants=max_mutants,
                    operators=operators, output_boundary=output_boundary, ctx=found, coverage=coverage,
                )
            )
    return Collected(cases, notes, coverage.summary(contract.tool) if coverage is not None else None)


def _ready(found: MutationContext | MutationSkipped | None) -> MutationContext | None:
    return found if isinstance(found, MutationContext) else None


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=_Identified)


def shard(cases: list[_Item], index: int, count: int) -> list[_Item]:
    """The ``index``-th of ``count`` deterministic, balanced slices (1-based), by sorted id (of
    cases, and of results decided before the run)."""
    ordered = sorted(cases, key=lambda c: c.id)
    return [c for i, c in enumerate(ordered) if i % count == index - 1]
