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
  open shapes and extra members included.
- :func:`with_canaries`: a document with canary strings injected (extra members at any object
  level, and values of fields outside the agent view).
- :func:`arbitrary_bytes`: random bytes, and truncations, splices and insertions of valid
  documents' bytes.

For a tool with an adapter, :func:`from_contract` and what builds on it describe *contract
objects* (what the adapter emits), judged by the boundary without the adapter; the vendor side
is :func:`vendor_documents`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from harness.boundary.projection import expand_schema, subschema_at
from harness.boundary.schema import SchemaValidator
from harness.cases import DEFAULT_MAX_MUTANTS, CaseExpectation
from harness.contract import Contract, FreshnessRule
from harness.errors import InvalidRequest
from harness.mutations import REGISTRY, Mutant, MutationContext, OperatorRegistry, canary_for
from harness.mutations.context import replace_at
from harness.pointer import MISSING, escape_token, resolve, split
from harness.schemas import GenerationStats, from_schema

#: The clock documents are made fresh for when the contract declares none (``defaults.now``).
DEFAULT_NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
#: Member names an adapter or a projection is tempted to copy: tried first as injected extras.
TEMPTING_NAMES = (
    "message", "description", "detail", "details", "note", "notes", "debug", "title", "body",
    "text", "url", "html_url", "instructions", "error_description", "summary", "comment",
)
_ZONES = (("Z", timedelta(0)), ("+00:00", timedelta(0)), ("+05:30", timedelta(hours=5, minutes=30)),
          ("-08:00", timedelta(hours=-8)))
_MAX_INJECTIONS = 4


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


def timestamps(now: datetime, rule: FreshnessRule) -> st.SearchStrategy[str]:
    """RFC 3339 timestamps inside ``rule``'s window at ``now``: its edges, any instant between,
    in several offsets and with 0 to 9 fractional digits."""
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
    version = contract.version if version is None else version
    clock = now or contract.default_now or DEFAULT_NOW
    source = documents if documents is not None else from_contract(contract, version, stats=stats)
    return _bound(source, contract, contract.validator(version), clock, tally if tally is not None else {})


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


def mutation_context(contract: Contract, version: int, bound: Bound) -> MutationContext:
    """A :class:`MutationContext` over a generated document, as if it were a fixture."""
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
    )


@st.composite
def _near_miss(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    bound: st.SearchStrategy[Bound],
    contract: Contract,
    version: int,
    registry: OperatorRegistry,
    operators: frozenset[str] | None,
) -> NearMiss:
    source = draw(bound)
    ctx = mutation_context(contract, version, source)
    groups = {op.name: list(op(ctx)) for op in registry if operators is None or op.name in operators}
    names = [name for name, mutants in groups.items() if mutants]
    assume(bool(names))
    mutant = draw(st.sampled_from(groups[draw(st.sampled_from(names))]))
    return NearMiss(mutant, mutant.build(), source)


@dataclass(frozen=True, slots=True)
class NearMisses:
    """One bound document and its mutants: every operator's, at every target (sampled to a cap
    as ``check`` samples a fixture's)."""

    source: Bound
    misses: tuple[NearMiss, ...]


@st.composite
def _near_miss_sets(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    bound: st.SearchStrategy[Bound],
    contract: Contract,
    version: int,
    registry: OperatorRegistry,
    operators: frozenset[str] | None,
    max_mutants: int | None,
) -> NearMisses:
    source = draw(bound)
    mutants = registry.generate(mutation_context(contract, version, source), max_mutants, operators)
    assume(bool(mutants))
    return NearMisses(source, tuple(NearMiss(m, m.build(), source) for m in mutants))


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
) -> st.SearchStrategy[NearMisses]:
    """Like :func:`near_misses`, but every mutant of each document (up to ``max_mutants``,
    mandatory operators first, as for fixtures): each example exercises every operator at
    every target on a fresh shape, and a failure shrinks the document alone."""
    target = contract.without_adapter()
    version = contract.version if version is None else version
    source = bound if bound is not None else bound_documents(target, version, now=now, stats=stats)
    return _near_miss_sets(source, target, version, registry, operators, max_mutants)


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
    target = contract.without_adapter()
    version = contract.version if version is None else version
    source = bound if bound is not None else bound_documents(target, version, now=now, stats=stats)
    return _near_miss(source, target, version, registry, operators)


# --------------------------------------------------------------------------- vendor documents


def _accepted_documents(contract: Contract) -> list[Any]:
    from harness.boundary.parse import strict_loads
    from harness.corpus import fixtures_for
    from harness.errors import HarnessError

    try:
        fixtures = fixtures_for(contract, ("accepted",))
    except HarnessError:
        return []
    documents = []
    for fixture in fixtures:
        if fixture.shape != "upstream":
            continue
        try:
            documents.append(strict_loads(fixture.read(), max_depth=contract.limits.max_depth))
        except (HarnessError, OSError):
            continue
    return documents


def known_values(contract: Contract) -> tuple[dict[str, list[Any]], dict[str, list[str]]]:
    """What the contract's accepted upstream fixtures show and a schema does not state: the
    scalar values at each pointer (``"status": "in_progress"``), to seed generated documents
    with, and the member names of each object (``message``, ``html_url``), the likeliest
    names for an adapter to copy, to inject canaries under."""
    values: dict[str, list[Any]] = {}
    members: dict[str, list[str]] = {}
    for document in _accepted_documents(contract):
        stack: list[tuple[str, Any]] = [("", document)]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                names = members.setdefault(where, [])
                names.extend(k for k in node if k not in names)
                stack.extend((f"{where}/{escape_token(k)}", v) for k, v in node.items())
            elif isinstance(node, list):
                stack.extend((f"{where}/{i}", v) for i, v in enumerate(node))
            elif where:
                seen = values.setdefault(where, [])
                if not any(type(v) is type(node) and v == node for v in seen):
                    seen.append(node)
    return values, members


@st.composite
def _seeded(draw: Callable[[st.SearchStrategy[Any]], Any], documents: st.SearchStrategy[Any],
            known: dict[str, list[Any]], validator: SchemaValidator) -> Any:
    document = draw(documents)
    sites = [p for p in known if resolve(document, split(p)) is not MISSING]
    if not sites:
        return document
    seeded = document
    for pointer in sites:
        if draw(st.integers(0, 3)):  # three times in four; shrinks to the value as generated
            seeded = replace_at(seeded, split(pointer), draw(st.sampled_from(known[pointer])))
    return seeded if validator.is_valid(seeded) else document


def seeded_with(documents: st.SearchStrategy[Any], known: dict[str, list[Any]],
                validator: SchemaValidator) -> st.SearchStrategy[Any]:
    """``documents`` with some values replaced by values seen at the same pointer in accepted
    fixtures (:func:`known_values`), when the schema still accepts the result."""
    if not known:
        return documents
    return _seeded(documents, known, validator)


def _equal_leaves(document: Any, value: Any) -> list[list[str]]:
    found: list[list[str]] = []
    stack: list[tuple[list[str], Any]] = [([], document)]
    while stack:
        tokens, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(([*tokens, k], v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(([*tokens, str(i)], v) for i, v in enumerate(node))
        elif type(node) is type(value) and node == value:
            found.append(tokens)
    return found


def _adapt(contract: Contract, version: int, document: Any, request: Mapping[str, Any]) -> Any:
    """The adapter's output for ``document`` if it is a contract-valid object, else MISSING."""
    from types import MappingProxyType

    adapter = contract.adapter_function()
    assert adapter is not None
    try:
        output = adapter(json.loads(dumps(document)), MappingProxyType(dict(request)))
        return output if contract.validator(version).is_valid(output) else MISSING
    except Exception:
        return MISSING


@st.composite
def _bound_vendor(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    documents: st.SearchStrategy[Any],
    contract: Contract,
    version: int,
    now: datetime,
    tally: dict[str, int],
) -> Bound:
    document = draw(documents)
    request = contract.default_request()
    full = contract.normalise_request(request)
    output = _adapt(contract, version, document, full)
    if output is MISSING:
        return Bound(document, request, now)
    bound = document
    for rule in contract.bindings:
        value, expected = resolve(output, rule.result_tokens), resolve(full, rule.request_tokens)
        if value is not MISSING and expected is not MISSING and value != expected:
            for tokens in _equal_leaves(bound, value):
                bound = replace_at(bound, tokens, expected)
    for fresh in contract.freshness:
        value = resolve(output, fresh.tokens)
        if value is not MISSING:
            stamp = draw(timestamps(now, fresh))
            for tokens in _equal_leaves(bound, value):
                bound = replace_at(bound, tokens, stamp)
    vendor = contract.vendor_validator()
    if vendor is not None and vendor.is_valid(bound) and _adapt(contract, version, bound, full) is not MISSING:
        tally["vendor_bound"] = tally.get("vendor_bound", 0) + 1
        return Bound(bound, request, now)
    return Bound(document, request, now)


def bound_vendor_documents(
    contract: Contract,
    version: int | None = None,
    *,
    now: datetime | None = None,
    documents: st.SearchStrategy[Any] | None = None,
    tally: dict[str, int] | None = None,
) -> st.SearchStrategy[Bound]:
    """Vendor documents answering the default request: where the adapter maps one to a
    contract-valid object, the vendor values it copied into bound fields are set to the
    request's, and those it copied into declared timestamps are made fresh (the adapter is the
    oracle of which vendor value lands where). Documents it refuses are kept as drawn.
    ``tally["vendor_bound"]`` counts documents bound this way."""
    version = contract.version if version is None else version
    clock = now or contract.default_now or DEFAULT_NOW
    source = documents if documents is not None else vendor_documents(contract)
    return _bound_vendor(source, contract, version, clock, tally if tally is not None else {})


# --------------------------------------------------------------------------- canaries


@dataclass(frozen=True, slots=True)
class Injected:
    """A document with canaries in it: each canary and the pointer it was put at."""

    document: Any
    canaries: Mapping[str, str]

    def where(self, text: str) -> str | None:
        """The pointer of the first canary found in ``text``."""
        return next((pointer for canary, pointer in self.canaries.items() if canary in text), None)


def _objects_and_leaves(document: Any, skip: frozenset[str]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    objects: list[tuple[str, dict[str, Any]]] = []
    leaves: list[str] = []
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            objects.append((where, node))
            stack.extend((f"{where}/{escape_token(k)}", v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, str) and where and where not in skip:
            leaves.append(where)
    return objects, leaves


def _inside(pointer: str, views: frozenset[str]) -> bool:
    return any(pointer == v or pointer.startswith(v + "/") for v in views)


def schema_names(*schemas: Any) -> tuple[str, ...]:
    """Every property name declared anywhere in ``schemas`` (for injected extra members)."""
    found: dict[str, None] = {}
    stack = list(schemas)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                found.update(dict.fromkeys(properties))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return tuple(sorted(found))


def inject(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    document: Any,
    *,
    label: str,
    names: tuple[str, ...] = (),
    views: frozenset[str] = frozenset(),
    replace_values: bool = False,
    min_size: int = 1,
    schema: Any = None,
    members: Mapping[str, list[str]] | None = None,
) -> Injected:
    """``document`` with canaries at up to four places drawn with ``draw``: extra members at
    any object level (named, in this order of preference, after ``members`` — the names seen
    at that pointer in fixtures —, :data:`TEMPTING_NAMES`, ``names``, or at random; never a
    name ``schema`` declares at that level, whose value may rightly travel) and, with
    ``replace_values``, string values outside the ``views`` pointers."""
    objects, leaves = _objects_and_leaves(document, frozenset())
    seen_at = members or {}
    # Objects the fixtures show first: hypothesis draws early choices more often.
    ordered = sorted(objects, key=lambda item: item[0] not in seen_at)
    sites: list[tuple[str, str]] = [("member", where) for where, _ in ordered]
    if replace_values:
        sites += [("value", where) for where in leaves if not _inside(where, views)]
    if not sites:
        assume(min_size == 0)
        return Injected(document, {})
    chosen = draw(st.lists(st.sampled_from(range(len(sites))), unique=True, min_size=min(min_size, len(sites)),
                           max_size=min(_MAX_INJECTIONS, len(sites))))
    canaries: dict[str, str] = {}

    def add(document: Any, where: str, name: str) -> Any:
        pointer = f"{where}/{escape_token(name)}"
        canary = canary_for(label, "member", pointer)
        value = draw(st.sampled_from([canary, {"text": canary}, [canary]]))
        canaries[canary] = pointer
        target = resolve(document, split(where))
        return replace_at(document, split(where), {**target, name: value})

    # Every member the fixtures show at an object and its schema does not declare (``message``,
    # ``html_url``): the likeliest for an adapter or a projection to copy. Each is drawn in or out.
    for where, node in reversed(ordered):
        declared = declared_names(schema, where)
        for name in seen_at.get(where, []):
            if name not in node and name not in declared and draw(st.booleans()):
                document = add(document, where, name)
    for index in sorted(chosen, reverse=True):  # deepest first: parents are copied after children
        kind, where = sites[index]
        if kind == "value":
            canary = canary_for(label, "value", where)
            document = replace_at(document, split(where), canary)
            canaries[canary] = where
            continue
        target = resolve(document, split(where))
        taken = set(target) | declared_names(schema, where)
        seen = seen_at.get(where, [])
        free = list(dict.fromkeys(n for n in (*seen, *TEMPTING_NAMES, *names) if n not in taken))
        name = draw((st.sampled_from(free) if free else st.nothing()) | _NAMES.filter(_not_in(taken)))
        document = add(document, where, name)
    return Injected(document, canaries)


_NAMES = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)


def _not_in(taken: set[str]) -> Callable[[str], bool]:
    return lambda name: name not in taken


def declared_names(schema: Any, pointer: str) -> set[str]:
    """The member names ``schema`` declares for the object at ``pointer`` (any branch)."""
    if schema is None:
        return set()
    node = subschema_at(schema, pointer)
    candidates = node["anyOf"] if isinstance(node, dict) and set(node) == {"anyOf"} else [node]
    found: set[str] = set()
    for candidate in candidates:
        for sub in expand_schema(candidate, schema):
            properties = sub.get("properties")
            if isinstance(properties, dict):
                found.update(properties)
    return found


@st.composite
def _canaried(draw: Callable[[st.SearchStrategy[Any]], Any], documents: st.SearchStrategy[Any],
              options: dict[str, Any]) -> Injected:
    return inject(draw, draw(documents), **options)


@st.composite
def _canaried_bound(draw: Callable[[st.SearchStrategy[Any]], Any], bound: st.SearchStrategy[Bound],
                    options: dict[str, Any]) -> tuple[Bound, Injected]:
    source = draw(bound)
    return source, inject(draw, source.document, **options)


def with_canaries(
    documents: st.SearchStrategy[Any],
    *,
    label: str,
    names: tuple[str, ...] = (),
    views: frozenset[str] = frozenset(),
    replace_values: bool = False,
    min_size: int = 1,
    schema: Any = None,
    members: Mapping[str, list[str]] | None = None,
) -> st.SearchStrategy[Injected]:
    """``documents`` with canaries injected (see :func:`inject`)."""
    return _canaried(documents, {"label": label, "names": names, "views": views, "members": members,
                                 "replace_values": replace_values, "min_size": min_size, "schema": schema})


def bound_with_canaries(
    bound: st.SearchStrategy[Bound],
    *,
    label: str,
    names: tuple[str, ...] = (),
    views: frozenset[str] = frozenset(),
    schema: Any = None,
    members: Mapping[str, list[str]] | None = None,
) -> st.SearchStrategy[tuple[Bound, Injected]]:
    """Bound documents with canaries in extra members and in string values outside ``views``
    (the agent view's pointers), with the bound document they came from."""
    return _canaried_bound(bound, {"label": label, "names": names, "views": views, "members": members,
                                   "replace_values": True, "min_size": 1, "schema": schema})


# --------------------------------------------------------------------------- bytes


@dataclass(frozen=True, slots=True)
class Bytes:
    """Arbitrary bytes and how they were made (``random``, ``truncated``, ``spliced``, ...)."""

    raw: bytes = field(repr=False)
    how: str


def _cut(draw: Callable[[st.SearchStrategy[Any]], Any], data: bytes) -> int:
    return int(draw(st.integers(0, len(data))))


@st.composite
def _bytes(draw: Callable[[st.SearchStrategy[Any]], Any], valid: st.SearchStrategy[bytes], limit: int) -> Bytes:
    how = draw(st.sampled_from(["random", "truncated", "spliced", "inserted", "text"]))
    if how == "random":
        return Bytes(draw(st.binary(max_size=256)), how)
    if how == "text":
        return Bytes(draw(st.text(max_size=128)).encode("utf-8", "surrogatepass"), how)
    first = draw(valid)
    if how == "truncated":
        return Bytes(first[: _cut(draw, first)], how)
    if how == "spliced":
        second = draw(valid)
        return Bytes(first[: _cut(draw, first)] + second[_cut(draw, second):], how)
    junk = draw(st.binary(min_size=1, max_size=8) | st.sampled_from([b"\xef\xbb\xbf", b"NaN", b"[" * (limit + 1)]))
    at = _cut(draw, first)
    return Bytes(first[:at] + junk + first[at:], how)


def arbitrary_bytes(valid: st.SearchStrategy[Any], *, max_depth: int = 64) -> st.SearchStrategy[Bytes]:
    """Random bytes and text, and truncations, splices and insertions of ``valid`` documents'
    bytes (insertions include a BOM, ``NaN`` and nesting one past ``max_depth``)."""
    return _bytes(valid.map(dumps), max_depth)


def iter_strings(value: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Every string in ``value`` (member names included) with its pointer."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{pointer}/{escape_token(key)}"
            yield where, str(key)
            yield from iter_strings(item, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from iter_strings(item, f"{pointer}/{index}")
