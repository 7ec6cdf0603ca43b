"""Hypothesis strategies of tool results, built from a contract.

- :func:`from_contract`: documents valid under the contract's schema (a version of it), with
  boundary values; every value re-validated by the production validator, discards counted.
- :func:`bound_documents`: those documents made to satisfy the contract's bindings and
  freshness: the request is derived from the document's bound values (or, when the request
  schema refuses them, the bound fields are set from the default request), declared timestamps
  are drawn inside their window (edges included, in every RFC 3339 spelling that fits).
- :func:`near_misses`: bound documents pushed through the mutation operators of
  :mod:`harness.mutations`, one operator and one of its mutants per draw.
- :func:`vendor_documents`: documents valid under ``vendor_schema`` (tools with an adapter),
  open shapes and extra members included (seeded and bound: :mod:`harness.fuzz.vendor`).
- :func:`arbitrary_bytes`: random bytes, and truncations, splices and insertions of valid
  documents' bytes.

Canaries are injected by :mod:`harness.fuzz.canaries`. For a tool with an adapter,
:func:`from_contract` and what builds on it describe *contract objects* (what the adapter
emits), judged by the boundary without the adapter; the vendor side is
:func:`vendor_documents`.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any, TypeVar

from hypothesis import assume
from hypothesis import strategies as st

from harness.boundary.validator import SchemaValidator
from harness.cases import DEFAULT_MAX_MUTANTS, CaseExpectation
from harness.contract import Contract, FreshnessRule
from harness.errors import InvalidRequest
from harness.fuzz.generate import GenerationStats, from_schema
from harness.fuzz.generate.shared import between
from harness.mutations import REGISTRY, Mutant, MutationContext, OperatorRegistry
from harness.mutations.context import replace_at
from harness.mutations.registry import sample as sample_mutants
from harness.pointer import MISSING, resolve, split

_T = TypeVar("_T")
#: The clock documents are made fresh for when the contract declares none (``defaults.now``).
DEFAULT_NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
_ZONES = (("Z", timedelta(0)), ("+00:00", timedelta(0)), ("+05:30", timedelta(hours=5, minutes=30)),
          ("-08:00", timedelta(hours=-8)))


def dumps(document: Any) -> bytes:
    """The bytes an upstream would send for ``document``."""
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------- valid documents


def from_contract(
    contract: Contract,
    version: int | None = None,
    *,
    stats: GenerationStats | None = None,
    boundary_values: bool = True,
) -> st.SearchStrategy[Any]:
    """Documents valid under the contract's schema (``version``, default the current one).

    Built on hypothesis-jsonschema: the 2020-12 schema is lowered where that is exact, the
    strategy is compiled once, every value is re-validated with the production validator
    (discards counted in ``stats``), and some values are pushed to the edges of their
    constraints (exact ``maxLength``, enum edges, ``minimum``/``maximum``).
    """
    version = contract.version if version is None else version
    return from_schema(
        contract.schema(version),
        validator=contract.validator(version),
        base_uri=contract.schema_path(version).resolve().as_uri(),
        resources=contract.schema_resources(),
        stats=stats,
        boundary_values=boundary_values,
        compiled=True,
    )


def vendor_documents(
    contract: Contract, *, stats: GenerationStats | None = None, boundary_values: bool = True
) -> st.SearchStrategy[Any]:
    """Documents valid under the contract's ``vendor_schema`` (open shapes, extra members)."""
    validator = contract.vendor_validator()
    if validator is None:
        raise ValueError(f"{contract.tool} declares no vendor_schema")
    return from_schema(
        contract.vendor_schema,
        validator=validator,
        base_uri=contract.path.resolve().as_uri(),
        resources=contract.schema_resources(),
        stats=stats,
        boundary_values=boundary_values,
        compiled=True,
    )


# --------------------------------------------------------------------------- binding, freshness


@dataclass(frozen=True, slots=True)
class Bound:
    """A valid document with the request it answers and the clock it is fresh at."""

    document: Any
    request: Mapping[str, Any]
    now: datetime

    @property
    def raw(self) -> bytes:
        return dumps(self.document)


def _set_path(document: Any, tokens: list[str] | tuple[str, ...], value: Any) -> Any:
    """``document`` with ``value`` at ``tokens``, creating objects on the way."""
    if not tokens:
        return value
    head, rest = tokens[0], list(tokens[1:])
    base = dict(document) if isinstance(document, dict) else {}
    base[head] = _set_path(base.get(head, {}), rest, value)
    return base


def bind(contract: Contract, document: Any) -> tuple[Any, dict[str, Any]]:
    """The request ``document`` answers, and the document, bound to each other.

    The request is derived from the document (its ``request_id`` and every bound value); when
    the contract's request schema refuses that request, the document's bound fields are set
    from the default request instead (the caller re-validates the document).
    """
    request = contract.default_request()
    envelope = contract.envelope
    if envelope is not None and isinstance(document, dict):
        if envelope.tool in document:
            document = {**document, envelope.tool: contract.tool}
        rid = document.get(envelope.request_id)
        if isinstance(rid, str) and rid:
            request["request_id"] = rid
    derived = request
    for rule in contract.bindings:
        value = resolve(document, rule.result_tokens)
        if value is not MISSING:
            derived = _set_path(derived, rule.request_tokens, value)
    try:
        contract.normalise_request(derived)
        return document, derived
    except InvalidRequest:
        pass
    request = contract.default_request()
    if envelope is not None and isinstance(document, dict) and envelope.request_id in document:
        document = {**document, envelope.request_id: request["request_id"]}
    for rule in contract.bindings:
        expected = resolve(request, rule.request_tokens)
        if resolve(document, rule.result_tokens) is not MISSING and expected is not MISSING:
            document = replace_at(document, list(rule.result_tokens), expected)
    return document, request


@lru_cache(maxsize=1024)
def timestamps(now: datetime, rule: FreshnessRule) -> st.SearchStrategy[str]:
    """RFC 3339 timestamps inside ``rule``'s window at ``now``: its edges, any instant between,
    in several offsets and with 0 to 9 fractional digits (built once per clock and rule)."""
    oldest = -round(rule.max_age.total_seconds() * 1_000_000)
    newest = round(rule.max_future_skew.total_seconds() * 1_000_000)
    offsets = st.one_of(st.sampled_from([0, oldest, newest]), st.integers(oldest, newest))
    return st.builds(_stamp, st.just(now), offsets, st.sampled_from([0, 3, 6, 9]), st.sampled_from(_ZONES),
                     st.just(now + timedelta(microseconds=oldest)))


def _stamp(now: datetime, offset_us: int, digits: int, zone: tuple[str, timedelta], oldest: datetime) -> str:
    instant = now + timedelta(microseconds=offset_us)
    if digits < 6:
        kept = 10 ** (6 - digits)
        truncated = instant.replace(microsecond=instant.microsecond // kept * kept)
        if truncated < oldest:  # truncating would make it stale: keep every digit
            digits = 6
        else:
            instant = truncated
    name, shift = zone
    local = instant.astimezone(timezone(shift))
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text += "." + f"{local.microsecond:06d}{'000' if digits == 9 else ''}"[:digits]
    return text + name


@st.composite
def _bound(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    documents: st.SearchStrategy[Any],
    contract: Contract,
    validator: SchemaValidator,
    now: datetime,
    tally: dict[str, int],
) -> Bound:
    document, request = bind(contract, draw(documents))
    for rule in contract.freshness:
        if resolve(document, rule.tokens) is MISSING:
            continue  # absent from this document: the freshness layer decides
        document = replace_at(document, split(rule.field), draw(timestamps(now, rule)))
    if not validator.is_valid(document):
        tally["unfit"] = tally.get("unfit", 0) + 1
        assume(False)
    return Bound(document, request, now)


def bound_documents(
    contract: Contract,
    version: int | None = None,
    *,
    now: datetime | None = None,
    stats: GenerationStats | None = None,
    documents: st.SearchStrategy[Any] | None = None,
    tally: dict[str, int] | None = None,
) -> st.SearchStrategy[Bound]:
    """Valid documents that satisfy the contract's bindings and freshness at ``now`` (default
    the contract's ``defaults.now``, else :data:`DEFAULT_NOW`). ``tally["unfit"]`` counts
    documents that could not be bound and stay valid (they are not used)."""
    version, clock = resolved(contract, version, now)
    source = documents if documents is not None else from_contract(contract, version, stats=stats)
    return _bound(source, contract, contract.validator(version), clock, tally if tally is not None else {})


def resolved(contract: Contract, version: int | None, now: datetime | None) -> tuple[int, datetime]:
    """The schema version (default: the current one) and the clock (default: the contract's
    ``defaults.now``, else :data:`DEFAULT_NOW`) a strategy works with."""
    return (contract.version if version is None else version), (now or contract.default_now or DEFAULT_NOW)


# --------------------------------------------------------------------------- near misses


@dataclass(frozen=True, slots=True)
class NearMiss:
    """One mutant of a bound document: what the operator did, and the bytes it built."""

    mutant: Mutant
    raw: bytes = field(repr=False)
    source: Bound

    @property
    def expect(self) -> CaseExpectation:
        m = self.mutant
        return CaseExpectation(False, m.layers, m.code, None, None, m.absorbable)


def mutation_context(
    contract: Contract, version: int, bound: Bound, corpus: tuple[Any, ...] = ()
) -> MutationContext:
    """A :class:`MutationContext` over a generated document, as if it were a fixture; ``corpus``:
    the accepted fixtures' contract objects, what the contract's fields hold by design."""
    return MutationContext(
        contract=contract,
        version=version,
        fixture_id=f"{contract.tool}::fuzz",
        raw=bound.raw,
        document=bound.document,
        result=bound.document,
        schema=contract.schema(version),
        now=bound.now,
        request=contract.normalise_request(bound.request),
        corpus=(bound.document, *corpus) if corpus else (),
    )


@dataclass(frozen=True, slots=True)
class Mutating:
    """Which operators mutate documents of which contract (contract objects: no adapter)."""

    contract: Contract
    version: int
    registry: OperatorRegistry
    operators: frozenset[str] | None
    max_mutants: int | None = DEFAULT_MAX_MUTANTS
    #: The accepted fixtures' contract objects (:func:`harness.fuzz.vendor.accepted_objects`).
    corpus: tuple[Any, ...] = ()


@st.composite
def _near_miss(draw: Callable[[st.SearchStrategy[Any]], Any], bound: st.SearchStrategy[Bound],
               plan: Mutating) -> NearMiss:
    source = draw(bound)
    ctx = mutation_context(plan.contract, plan.version, source, plan.corpus)
    groups = {op.name: list(op(ctx)) for op in plan.registry
              if plan.operators is None or op.name in plan.operators}
    names = [name for name, mutants in groups.items() if mutants]
    assume(bool(names))
    mutant = draw(st.sampled_from(groups[draw(st.sampled_from(names))]))
    return NearMiss(mutant, mutant.build(), source)


#: ``rejects_near_misses`` checks, per generated document, the mutants of this many operators
#: (drawn) ...
NEAR_MISS_OPERATORS = 8
#: ... at most this many in all (spread over each operator's targets as ``check`` spreads a
#: fixture's), instead of every operator's (~55 mutants on the demo's tools). Over the ci
#: profile's 100 documents every operator is still drawn many times (docs/fuzz.md).
NEAR_MISSES_PER_DOCUMENT = 16


@dataclass(frozen=True, slots=True)
class NearMisses:
    """One bound document and its mutants: every operator's, at every target (sampled to a cap
    as ``check`` samples a fixture's), or only the ``operators`` drawn."""

    source: Bound
    misses: tuple[NearMiss, ...]
    #: The operators whose mutants these are, when drawn (None: every operator's).
    operators: tuple[str, ...] | None = None


def near_miss_set(plan: Mutating, source: Bound, operators: Sequence[str] | None = None) -> NearMisses:
    """Every mutant of one bound document (up to ``plan.max_mutants``), or those of
    ``operators`` (deterministic: a saved document's mutants are derived again when it is
    replayed)."""
    ctx = mutation_context(plan.contract, plan.version, source, plan.corpus)
    if operators is not None:
        return NearMisses(source, _kept_misses(plan, ctx, source, operators), tuple(operators))
    mutants = plan.registry.generate(ctx, plan.max_mutants, plan.operators)
    return NearMisses(source, tuple(NearMiss(m, m.build(), source) for m in mutants))


@st.composite
def _near_miss_sets(draw: Callable[[st.SearchStrategy[Any]], Any], bound: st.SearchStrategy[Bound],
                    plan: Mutating) -> NearMisses:
    drawn = near_miss_set(plan, draw(bound))
    assume(bool(drawn.misses))
    return drawn


def _kept_misses(plan: Mutating, ctx: MutationContext, source: Bound, operators: Sequence[str]
                 ) -> tuple[NearMiss, ...]:
    """The mutants of ``operators`` kept for one document (:func:`_spread_over_targets`), only
    those built and given their expectations."""
    groups = [[(op, bare) for bare in op.bare(ctx)] for op in (plan.registry[name] for name in operators)]
    kept = [op.expected(bare, ctx) for op, bare in _spread_over_targets(groups, plan.max_mutants, source)]
    return tuple(NearMiss(m, m.build(), source) for m in kept)


def _spread_over_targets(groups: list[list[_T]], cap: int | None, source: Bound) -> list[_T]:
    """Each operator's mutants capped as ``check`` caps a fixture's (evenly spaced, first and
    last kept), each list first rotated by a checksum of the document: with two or three
    mutants per operator, the middle targets of an operator with many (``null_for_scalar`` on
    a member in the middle of the document) would otherwise never be checked."""
    turn = zlib.crc32(source.raw)
    return sample_mutants([g[turn % len(g):] + g[:turn % len(g)] if g else g for g in groups], cap)


#: Where the operators checked on a document start: this draw plus a checksum of the document,
#: modulo the number that apply. In a property run hypothesis draws 0 about half the time (it
#: favours small values and re-uses earlier choices), which left the last operators of the
#: registry almost never checked; the checksum spreads the start over the documents, and the
#: draw still lets a failure's search move it.
_START = st.integers(0, 2**16 - 1)


@st.composite
def _sampled_near_miss_sets(draw: Callable[[st.SearchStrategy[Any]], Any], bound: st.SearchStrategy[Bound],
                            plan: Mutating, names: tuple[str, ...], operators: int) -> NearMisses:
    source = draw(bound)
    ctx = mutation_context(plan.contract, plan.version, source, plan.corpus)
    # Which operators have a mutant for this document (each asked for its first only), then
    # ``operators`` of them in a row from a drawn one, round the list: each operator that
    # applies is as likely to be checked as any other, and only those are run in full (running
    # every operator in full on every document, and checking all their mutants, was most of
    # the property's time). One choice.
    applying = [name for name in names if next(iter(plan.registry[name].bare(ctx)), None) is not None]
    chosen: list[str] = []
    if applying:
        start = (draw(_START) + zlib.crc32(source.raw)) % len(applying)
        chosen = [applying[(start + i) % len(applying)] for i in range(min(operators, len(applying)))]
    assume(bool(chosen))
    return NearMisses(source, _kept_misses(plan, ctx, source, chosen), tuple(chosen))


def near_miss_sets(
    contract: Contract,
    version: int | None = None,
    *,
    now: datetime | None = None,
    stats: GenerationStats | None = None,
    registry: OperatorRegistry = REGISTRY,
    operators: frozenset[str] | None = None,
    max_mutants: int | None = DEFAULT_MAX_MUTANTS,
    bound: st.SearchStrategy[Bound] | None = None,
    per_document: int | None = None,
    corpus: tuple[Any, ...] = (),
) -> st.SearchStrategy[NearMisses]:
    """Like :func:`near_misses`, but several mutants of each document.

    By default every mutant (up to ``max_mutants``, mandatory operators first, as for
    fixtures): each example exercises every operator at every target on a fresh shape, and a
    failure shrinks the document alone. With ``per_document`` (``rejects_near_misses`` uses
    :data:`NEAR_MISS_OPERATORS`), the mutants of that many operators only, drawn by hypothesis
    (so a failure shrinks the choice too, and a saved run replays it), at most
    :data:`NEAR_MISSES_PER_DOCUMENT` of them. ``corpus``: the accepted fixtures' contract
    objects (what the fields hold by design, as check's near misses are told).
    """
    target, version, source = _mutation_source(contract, version, now, stats, bound)
    plan = Mutating(target, version, registry, operators, max_mutants, corpus)
    if per_document is None:
        return _near_miss_sets(source, plan)
    names = tuple(op.name for op in registry if operators is None or op.name in operators)
    sampled = replace(plan, max_mutants=NEAR_MISSES_PER_DOCUMENT if max_mutants is None else
                      min(max_mutants, NEAR_MISSES_PER_DOCUMENT))
    return _sampled_near_miss_sets(source, sampled, names, per_document)


def _mutation_source(contract: Contract, version: int | None, now: datetime | None, stats: GenerationStats | None,
                     bound: st.SearchStrategy[Bound] | None) -> tuple[Contract, int, st.SearchStrategy[Bound]]:
    target = contract.without_adapter()
    version = contract.version if version is None else version
    return target, version, bound if bound is not None else bound_documents(target, version, now=now, stats=stats)


def near_misses(
    contract: Contract,
    version: int | None = None,
    *,
    now: datetime | None = None,
    stats: GenerationStats | None = None,
    registry: OperatorRegistry = REGISTRY,
    operators: frozenset[str] | None = None,
    bound: st.SearchStrategy[Bound] | None = None,
) -> st.SearchStrategy[NearMiss]:
    """Bound documents pushed through the mutation operators: an operator is drawn among those
    with a mutant for the document, then one of its mutants, so every run exercises every
    operator on fresh shapes. For a tool with an adapter the documents are contract objects
    (judge them with ``contract.without_adapter()``)."""
    target, version, source = _mutation_source(contract, version, now, stats, bound)
    return _near_miss(source, Mutating(target, version, registry, operators))


# --------------------------------------------------------------------------- bytes


@dataclass(frozen=True, slots=True)
class Bytes:
    """Arbitrary bytes and how they were made (``random``, ``truncated``, ``spliced``, ...)."""

    raw: bytes = field(repr=False)
    how: str


def _cut(draw: Callable[[st.SearchStrategy[Any]], Any], data: bytes) -> int:
    return int(draw(between(0, len(data))))


_HOW = st.sampled_from(["random", "truncated", "spliced", "inserted", "text"])
_RANDOM = st.binary(max_size=256)
_TEXT = st.text(max_size=128)


@lru_cache(maxsize=64)
def _junk(limit: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=1, max_size=8) | st.sampled_from([b"\xef\xbb\xbf", b"NaN", b"[" * (limit + 1)])


@st.composite
def _bytes(draw: Callable[[st.SearchStrategy[Any]], Any], valid: st.SearchStrategy[bytes], limit: int) -> Bytes:
    how = draw(_HOW)
    if how == "random":
        return Bytes(draw(_RANDOM), how)
    if how == "text":
        return Bytes(draw(_TEXT).encode("utf-8", "surrogatepass"), how)
    first = draw(valid)
    if how == "truncated":
        return Bytes(first[: _cut(draw, first)], how)
    if how == "spliced":
        second = draw(valid)
        return Bytes(first[: _cut(draw, first)] + second[_cut(draw, second):], how)
    junk = draw(_junk(limit))
    at = _cut(draw, first)
    return Bytes(first[:at] + junk + first[at:], how)


def arbitrary_bytes(valid: st.SearchStrategy[Any], *, max_depth: int = 64) -> st.SearchStrategy[Bytes]:
    """Random bytes and text, and truncations, splices and insertions of ``valid`` documents'
    bytes (insertions include a BOM, ``NaN`` and nesting one past ``max_depth``)."""
    return _bytes(valid.map(dumps), max_depth)
