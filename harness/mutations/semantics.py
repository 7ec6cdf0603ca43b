"""Operators on what a schema cannot see: the request binding and the clock."""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping
from datetime import timedelta
from functools import partial
from typing import Any

from harness.codes import BINDING_REQUEST_ID, Layer, binding_code
from harness.mutations.context import MutationContext, replace_at, short
from harness.mutations.registry import NOTE, Mutant, Variant, canary_for, operator
from harness.pointer import MISSING, escape_token, resolve, split
from harness.timeutil import format_rfc3339

_CLASSES = (string.digits, string.ascii_lowercase, string.ascii_uppercase)


def twiddle(value: Any) -> Any:
    """A different value of the same shape: last alphanumeric character moved to its
    neighbour in the same class, numbers + 1, booleans negated."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        for i in range(len(value) - 1, -1, -1):
            for chars in _CLASSES:
                if value[i] in chars:
                    swapped = chars[(chars.index(value[i]) + 1) % len(chars)]
                    return value[:i] + swapped + value[i + 1 :]
        return value + "x"
    return MISSING


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
        "wrong_tool", pointer, lambda: ctx.replaced(pointer, other), original=short(value),
        mutated=short(other),
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
        original=short(value), mutated=short(other),
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
        where = ctx.raw_pointer_for(rule.result)
        if where is None:
            continue
        value = resolve(ctx.document, where)
        other = _well_formed_alternative(ctx, where, value)
        if other is MISSING:
            continue
        yield Mutant(
            "break_binding", where, partial(ctx.replaced, where, other),
            original=short(value), mutated=short(other), note=rule.name,
        )


def _echoes(ctx: MutationContext) -> Iterator[tuple[str, str, Any]]:
    """Request arguments the contract object echoes: a member of the same name holding the same
    value. Yields the argument's name, where the value lives in the raw document, and the value."""
    args = ctx.request.get("args")
    if not isinstance(args, Mapping):
        return
    for where, value in _contract_leaves(ctx.result):
        name = split(where)[-1] if where else ""
        if name in args and args[name] == value and isinstance(value, str | int) and not isinstance(value, bool):
            raw = ctx.raw_pointer_for(where)
            if raw is not None:
                yield name, raw, value


def _contract_leaves(document: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _contract_leaves(value, f"{where}/{escape_token(key)}")
    elif not isinstance(document, list):
        yield where, document


@operator(layer=Layer.BINDING, targets="every request argument the result echoes (same name, same value)")
def change_echo(ctx: MutationContext) -> Iterator[Mutant]:
    """A value echoing a request argument changed to a well-formed other one: a binding must catch it.

    An argument the result repeats under its own name (``run_id`` asked, ``run_id`` answered)
    is what a binding compares; with no binding covering it, an answer about another run
    passes. Waive it with a reason where the echo is not the resource asked for."""
    for name, where, value in _echoes(ctx):
        other = _well_formed_alternative(ctx, where, value)
        if other is MISSING:
            continue
        yield Mutant(
            "change_echo", where, partial(ctx.replaced, where, other), original=short(value),
            mutated=short(other), note=name,
        )


def _timestamp_targets(ctx: MutationContext) -> Iterator[tuple[Any, str, Any]]:
    for rule in ctx.contract.freshness:
        where = ctx.raw_pointer_for(rule.field)
        if where is not None:
            yield rule, where, resolve(ctx.document, where)


@operator(layer=Layer.FRESHNESS, code="freshness.stale", targets="every declared timestamp")
def stale_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp older than max_age."""
    for rule, where, value in _timestamp_targets(ctx):
        old = format_rfc3339(ctx.now - rule.max_age - timedelta(hours=1))
        yield Mutant(
            "stale_timestamp", where, partial(ctx.replaced, where, old),
            original=short(value), mutated=old,
        )


@operator(layer=Layer.FRESHNESS, code="freshness.future", targets="every declared timestamp")
def future_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp further ahead than max_future_skew."""
    for rule, where, value in _timestamp_targets(ctx):
        ahead = format_rfc3339(ctx.now + rule.max_future_skew + timedelta(hours=1))
        yield Mutant(
            "future_timestamp", where, partial(ctx.replaced, where, ahead),
            original=short(value), mutated=ahead,
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
            original=short(value), mutated=naive, variant=variant,
        )


def _contract_asserts_format(ctx: MutationContext, result_pointer: str) -> bool:
    nodes = ctx.contract.document(ctx.version).governing(split(result_pointer))
    return any(n.get("format") == "date-time" for n in nodes)


#: A fixed future offset no clock skew explains: a window that lets it through is too wide.
A_DAY_AHEAD = timedelta(days=1)


@operator(layer=Layer.FRESHNESS, code="freshness.future", targets="every declared timestamp")
def day_ahead_timestamp(ctx: MutationContext) -> Iterator[Mutant]:
    """A well-formed timestamp a day ahead: only a max_future_skew of a day or more lets it through.

    ``future_timestamp`` follows the declared window, however wide; this one does not, so a
    window widened past any clock skew (a month) turns check red until it is narrowed or waived."""
    for _rule, where, value in _timestamp_targets(ctx):
        ahead = format_rfc3339(ctx.now + A_DAY_AHEAD)
        yield Mutant(
            "day_ahead_timestamp", where, partial(ctx.replaced, where, ahead),
            original=short(value), mutated=ahead,
        )


@operator(targets="every string of a vendor document (tools with an adapter)", variants={
    "read": Variant(Layer.ADAPTER, also=(Layer.SCHEMA, Layer.BINDING, Layer.FRESHNESS)),
    "unread": Variant(Layer.SCHEMA, structural=True),
})
def vendor_canary(ctx: MutationContext) -> Iterator[Mutant]:
    """A canary in place of each vendor string: one the vendor schema declares (what the adapter
    reads) must be refused, never mapped to a value the adapter invents; any other may be
    absorbed, but never reach the agent."""
    if ctx.contract.adapter is None:
        return
    for where, value in ctx.leaves():
        if not isinstance(value, str) or not where:
            continue
        canary = canary_for(ctx.fixture_id, "vendor_canary", where)
        read = bool(ctx.schema_nodes(where))
        yield Mutant(
            "vendor_canary", where, partial(ctx.replaced, where, canary), original=short(value),
            mutated=short(canary), canary=canary, variant="read" if read else "unread", absorbable=not read,
        )
