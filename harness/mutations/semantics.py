"""Operators on what a schema cannot see: the request binding and the clock."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import timedelta
from functools import partial
from typing import Any

from harness.codes import BINDING_REQUEST_ID, Layer, binding_code
from harness.contract.records import MAX_AGE_CEILING
from harness.errors import excerpt
from harness.mutations.context import PINS, MutationContext, replace_at, twiddle
from harness.mutations.registry import NOTE, Mutant, Variant, canary_for, operator
from harness.pointer import MISSING, escape_token, resolve, split
from harness.timeutil import format_rfc3339, parse_rfc3339


@operator(layer=Layer.BINDING, also=(Layer.SCHEMA,), typical_code="binding.tool",
          targets="the envelope's tool member")
def wrong_tool(ctx: MutationContext) -> Iterator[Mutant]:
    """The result names another tool (a const in the schema may catch it first)."""
    envelope = ctx.contract.envelope
    if envelope is None or ctx.contract.adapter is not None:
        return
    pointer = "/" + escape_token(envelope.tool)
    value = resolve(ctx.document, pointer)
    if value is MISSING:
        return
    other = f"not_{value}"
    yield Mutant(
        "wrong_tool", pointer, lambda: ctx.replaced(pointer, other), original=excerpt(value),
        mutated=excerpt(other),
    )


@operator(layer=Layer.BINDING, code=BINDING_REQUEST_ID, targets="the envelope's request_id")
def mismatch_request_id(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed request_id of another request."""
    envelope = ctx.contract.envelope
    if envelope is None or ctx.contract.adapter is not None:
        return
    pointer = "/" + escape_token(envelope.request_id)
    value = resolve(ctx.document, pointer)
    if value is MISSING:
        return
    other = twiddle(value)
    yield Mutant(
        "mismatch_request_id", pointer, lambda: ctx.replaced(pointer, other),
        original=excerpt(value), mutated=excerpt(other),
    )


def _well_formed_alternative(ctx: MutationContext, where: str, value: Any) -> Any:
    """Another value the schema layer accepts at ``where``: a sibling enum member, else the
    value twiddled. MISSING when none is found (the binding cannot be broken past the schema)."""
    candidates = [v for enum in ctx.keyword_values(where, "enum") for v in enum if v != value]
    candidates.append(twiddle(value))
    for candidate in candidates:
        if candidate is MISSING:
            continue
        if ctx.schema_layer_accepts(replace_at(ctx.document, split(where), candidate)):
            return candidate
    return MISSING


@operator(layer=Layer.BINDING, code=binding_code(NOTE), targets="every declared binding")
def break_binding(ctx: MutationContext) -> Iterator[Mutant]:
    """A bound value changed to a well-formed value of another resource."""
    for rule in ctx.contract.bindings:
        for where in ctx.aimed_at(rule.result):
            value = resolve(ctx.document, where)
            other = _well_formed_alternative(ctx, where, value)
            if other is MISSING:
                continue
            yield Mutant(
                "break_binding", where, partial(ctx.replaced, where, other),
                original=excerpt(value), mutated=excerpt(other), note=rule.name,
            )


def _echoes(ctx: MutationContext) -> Iterator[tuple[str, str, str, Any]]:
    """Request arguments the contract object echoes: a member holding the value asked for, of
    the same name or found by value (:func:`_echoed_by_value`). Yields the argument's name,
    where the echo is in the contract object and in the raw document, and the value."""
    args = ctx.request.get("args")
    if not isinstance(args, Mapping):
        return
    for where, value in _contract_leaves(ctx.result):
        if not where or isinstance(value, bool) or not isinstance(value, str | int):
            continue
        member = split(where)[-1]
        for name, asked in args.items():
            if type(asked) is not type(value) or asked != value:
                continue
            if name == member or _echoed_by_value(name, member, value):
                raw = ctx.raw_pointer_for(where)
                if raw is not None:
                    yield name, where, raw, value
                break


#: Words of a member's name (``pull_number`` -> pull, number; ``headSha`` -> head, sha).
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
#: The shortest string an echo by value is taken from without a name to confirm it.
MIN_IDENTIFIER_LENGTH = 8


def _words(name: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORDS.findall(name))


def _echoed_by_value(argument: str, member: str, value: str | int) -> bool:
    """A member holding the value an argument asked for is its echo, under another name, when
    the names share their words (``pull_number`` comes back as ``number``, ``check_run_id`` as
    ``id``) or the value names one thing only (``ref`` comes back as ``sha``: a string of at
    least eight characters, letters and digits, no space). A short word that happens to be
    equal (the repository's owner is also the pull request's author) is a coincidence."""
    asked, named = _words(argument), _words(member)
    if asked and named and (asked <= named or named <= asked):
        return True
    return (isinstance(value, str) and len(value) >= MIN_IDENTIFIER_LENGTH and not any(c.isspace() for c in value)
            and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _contract_leaves(document: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _contract_leaves(value, f"{where}/{escape_token(key)}")
    elif not isinstance(document, list):
        yield where, document


@operator(layer=Layer.BINDING,
          targets="every request argument the result echoes (same name or, confirmed, same value)",
          fix="add to bindings: - {note}")
def change_echo(ctx: MutationContext) -> Iterator[Mutant]:
    """A value echoing a request argument changed to a well-formed other one: a binding must catch it.

    An argument the result repeats (``run_id`` asked, ``run_id`` answered; ``pull_number``
    asked, ``number`` answered; ``ref`` asked, its ``sha`` answered) is what a binding compares;
    with no binding covering it, an answer about another run passes. An echo is found by name,
    or by value where the names share their words or the value is an identifier (letters and
    digits, eight characters or more). Waive it with a reason where the echo is not the resource
    asked for."""
    for name, echo, where, value in _echoes(ctx):
        other = _well_formed_alternative(ctx, where, value)
        if other is MISSING:
            continue
        yield Mutant(
            "change_echo", where, partial(ctx.replaced, where, other), original=excerpt(value),
            mutated=excerpt(other), note=f"{{name: {name}, result: {echo}, request: /args/{escape_token(name)}}}",
        )


def _timestamp_targets(ctx: MutationContext) -> Iterator[tuple[Any, str, Any]]:
    for rule in ctx.contract.freshness:
        for where in ctx.aimed_at(rule.field):
            yield rule, where, resolve(ctx.document, where)


@operator(layer=Layer.FRESHNESS, code="freshness.stale", targets="every declared timestamp")
def stale_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp older than max_age."""
    for rule, where, value in _timestamp_targets(ctx):
        old = format_rfc3339(ctx.now - rule.max_age - timedelta(hours=1))
        yield Mutant(
            "stale_timestamp", where, partial(ctx.replaced, where, old),
            original=excerpt(value), mutated=old,
        )


@operator(layer=Layer.FRESHNESS, code="freshness.future", targets="every declared timestamp")
def future_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp further ahead than max_future_skew."""
    for rule, where, value in _timestamp_targets(ctx):
        ahead = format_rfc3339(ctx.now + rule.max_future_skew + timedelta(hours=1))
        yield Mutant(
            "future_timestamp", where, partial(ctx.replaced, where, ahead),
            original=excerpt(value), mutated=ahead,
        )


@operator(targets="every declared timestamp", variants={
    "freshness": Variant(Layer.FRESHNESS),
    "format": Variant(Layer.SCHEMA),
    "adapter_format": Variant(Layer.ADAPTER),
})
def malformed_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A timestamp without an offset (caught by format where asserted, else by freshness)."""
    for rule, where, value in _timestamp_targets(ctx):
        naive = format_rfc3339(ctx.now)[:-1]  # drop the Z: a local time of nowhere
        formats = ctx.keyword_values(where, "format")
        if "date-time" in formats:  # the schema layer asserts the format
            variant = "format"
        elif ctx.contract.adapter is not None and _contract_asserts_format(ctx, rule.field):
            variant = "adapter_format"  # the adapter's output check asserts it
        else:
            variant = "freshness"
        yield Mutant(
            "malformed_timestamp", where, partial(ctx.replaced, where, naive),
            original=excerpt(value), mutated=naive, variant=variant,
        )


def _contract_asserts_format(ctx: MutationContext, result_pointer: str) -> bool:
    nodes = ctx.contract.document(ctx.version).governing(split(result_pointer))
    return any(n.get("format") == "date-time" for n in nodes)


#: A fixed future offset no clock skew explains: a window that lets it through is too wide.
A_DAY_AHEAD = timedelta(days=1)
#: A fixed past offset no status an agent acts on has: a day past the ceiling of ``max_age``.
OVER_A_WEEK_OLD = MAX_AGE_CEILING + timedelta(days=1)


def _current_timestamps(ctx: MutationContext) -> Iterator[tuple[str, str, Any]]:
    """The timestamps a fixed-offset near miss is aimed at, with where they are in the raw
    document: every declared freshness rule's; where the contract declares none, every
    timestamp the agent view maps that the fixture shows as current (within ``max_age``'s
    ceiling of a clock the fixture or the contract fixes). A rule removed does not take its
    near misses with it: the fixture still says the value is about now. Yields where the
    timestamp is in the contract object and in the raw document, and its value."""
    if ctx.contract.freshness:
        for rule, where, value in _timestamp_targets(ctx):
            yield rule.field, where, value
        return
    if not ctx.fixed_clock:
        return
    for view in ctx.contract.agent_view:
        value = resolve(ctx.result, view.pointer)
        instant = parse_rfc3339(value) if isinstance(value, str) else None
        if instant is None or not ctx.now - MAX_AGE_CEILING <= instant <= ctx.now + A_DAY_AHEAD:
            continue
        for source in ctx.aimed_at(view.pointer):
            yield view.pointer, source, resolve(ctx.document, source)


@operator(layer=Layer.FRESHNESS, code="freshness.future",
          targets="every declared timestamp (with none declared: every current one the agent sees)",
          fix="narrow max_future_skew of {note} below a day, or declare its window: freshness: "
              "- {{field: {note}, max_age: PT15M, max_future_skew: PT30S}}")
def day_ahead_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp a day ahead: only a max_future_skew of a day or more lets it through.

    ``future_timestamp`` follows the declared window, however wide; this one does not, so a
    window widened past any clock skew (a month), or a rule removed, turns check red until it is
    narrowed, restored or waived."""
    for field, where, value in _current_timestamps(ctx):
        ahead = format_rfc3339(ctx.now + A_DAY_AHEAD)
        yield Mutant(
            "day_ahead_timestamp", where, partial(ctx.replaced, where, ahead),
            original=excerpt(value), mutated=ahead, note=field,
        )


@operator(layer=Layer.FRESHNESS, code="freshness.stale",
          targets="every declared timestamp (with none declared: every current one the agent sees)",
          fix="narrow max_age of {note} below a week, or declare its window: freshness: "
              "- {{field: {note}, max_age: PT15M, max_future_skew: PT30S}}")
def week_old_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp eight days old: only a max_age past a week lets it through.

    ``stale_timestamp`` follows the declared window, however wide; this one does not (a week is
    the ceiling of a status an agent acts on), so a window widened to a month or a year, or a
    rule removed from a timestamp the fixtures show as current, turns check red until it is
    narrowed, restored or waived."""
    for field, where, value in _current_timestamps(ctx):
        old = format_rfc3339(ctx.now - OVER_A_WEEK_OLD)
        yield Mutant(
            "week_old_timestamp", where, partial(ctx.replaced, where, old),
            original=excerpt(value), mutated=old, note=field,
        )


@operator(targets="every string of a vendor document (tools with an adapter)", variants={
    "read": Variant(Layer.ADAPTER, also=(Layer.SCHEMA, Layer.BINDING, Layer.FRESHNESS),
                    fix="refuse what the adapter does not know at {pointer} (raise), or pin it in the vendor schema"),
    "unread": Variant(Layer.SCHEMA, structural=True),
})
def vendor_canary(ctx: MutationContext) -> Iterator[Mutant]:
    """A canary in place of each vendor string: refused where read, absorbed elsewhere, never shown.

    One the vendor schema declares (what the adapter reads) must be refused, never mapped to a
    value the adapter invents; any other may be absorbed, but never reach the agent. The canary
    is one the field's pins reject (the vendor schema's, or the contract schema's on the value
    the adapter copies): ``hx-canary-<hex>`` is a well-formed branch or check name, so
    where a pattern admits it, a space and punctuation are added. A pinned field that admits
    every canary counts as pinned (no mutant): what it lets through is admitted data, not a leak."""
    if ctx.contract.adapter is None:
        return
    copied = _copied_strings(ctx)
    for where, value in ctx.leaves():
        if not isinstance(value, str) or not where:
            continue
        base = canary_for(ctx.fixture_id, "vendor_canary", where)
        read = bool(ctx.schema_nodes(where))
        canary: str | None = base
        if read or where in copied:
            canary = _refused_canary(ctx, where, base, copied.get(where, ()))
            if canary is None:
                continue
        yield Mutant(
            "vendor_canary", where, partial(ctx.replaced, where, canary), original=excerpt(value),
            mutated=excerpt(canary), canary=canary, variant="read" if read else "unread", absorbable=not read,
        )


def _copied_strings(ctx: MutationContext) -> dict[str, tuple[str, ...]]:
    """Vendor strings the adapter copies into the contract object, with the contract-object
    pointers they land on."""
    found: dict[str, list[str]] = {}
    for pointer, value in _contract_leaves(ctx.result):
        if isinstance(value, str):
            for source in ctx.sources_of(pointer):
                found.setdefault(source, []).append(pointer)
    return {k: tuple(v) for k, v in found.items()}


def _refused_canary(ctx: MutationContext, where: str, base: str, landing: tuple[str, ...]) -> str | None:
    """The first canary (``base``, then ``base`` with a space and punctuation) the boundary's
    pins refuse at ``where`` — the vendor schema, the adapter, or the contract schema on the
    adapter's output; ``base`` where nothing pins the field (free text: a leak is a leak); None
    where pins admit every canary (the field counts as pinned)."""
    for canary in (base, f"{base} ;!", f"{base.upper()} ;!"):
        if not _admitted(ctx, where, canary):
            return canary
    contract_pins = [ctx.contract.document(ctx.version).governing(split(p)) for p in landing]
    pinned = any(ctx.keyword_values(where, k) for k in PINS) or any(
        n.has(k) for nodes in contract_pins for n in nodes for k in PINS)
    return None if pinned else base


def _admitted(ctx: MutationContext, where: str, canary: str) -> bool:
    """Whether the schema layer and the adapter (its output held to the contract schema) let the
    document with ``canary`` at ``where`` through."""
    document = replace_at(ctx.document, split(where), canary)
    if not ctx.schema_layer_accepts(document):
        return False
    adapter = ctx.contract.adapter_function()
    assert adapter is not None
    try:
        output = adapter(document, ctx.request)
    except Exception:  # the adapter refuses it: adapter.error
        return False
    return bool(ctx.contract.validator(ctx.version).is_valid(output))
