"""Operators on single values: wrong type, outside the enum, too long, empty identifiers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from harness.codes import Layer
from harness.mutations.context import MutationContext, short
from harness.mutations.registry import Mutant, Variant, canary_for, operator
from harness.pointer import split

_IDENTIFIER = re.compile(r"(^|_)id$|^id$", re.IGNORECASE)


def _absorbable(ctx: MutationContext, pointer: str) -> bool:
    """Adapter tools: a value the vendor schema says nothing about is the adapter's business."""
    return ctx.contract.adapter is not None and not ctx.schema_nodes(pointer)


def _allowed_types(ctx: MutationContext, pointer: str) -> set[str] | None:
    """JSON types some schema governing ``pointer`` allows (None when one names no type)."""
    nodes = ctx.schema_nodes(pointer)
    allowed: set[str] = set()
    for node in nodes:
        declared = node.get("type")
        if declared is None:
            return None
        allowed |= {declared} if isinstance(declared, str) else {t for t in declared if isinstance(t, str)}
    if "number" in allowed:
        allowed.add("integer")
    return allowed if nodes else None


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.type", targets="every scalar")
def wrong_type(ctx: MutationContext) -> Iterator[Mutant]:
    """Each scalar replaced by a value of a JSON type its schema does not allow.

    A canary string where strings are not allowed, else a number or a boolean; a leaf whose
    schema allows every scalar type gets no mutant."""
    for where, value in ctx.leaves():
        if not where:
            continue
        canary = canary_for(ctx.fixture_id, "wrong_type", where)
        allowed = _allowed_types(ctx, where)
        preferred: list[tuple[str, object]] = [("integer", 12345), ("string", canary), ("boolean", True)]
        if not isinstance(value, str):
            preferred = [preferred[1], preferred[0], preferred[2]]
        if allowed is None:
            new: object = preferred[0][1]
        else:
            choice = next((v for kind, v in preferred if kind not in allowed), None)
            if choice is None:
                continue  # the schema allows every scalar type here: no wrong type to try
            new = choice
        yield Mutant(
            "wrong_type", where, partial(ctx.replaced, where, new),
            original=short(value), mutated=short(new), absorbable=_absorbable(ctx, where),
            canary=canary if new == canary else None,
        )


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.enum", targets="every value with an enum")
def enum_outside(ctx: MutationContext) -> Iterator[Mutant]:
    """A value constrained by enum, replaced by a canary outside it."""
    for where, value in ctx.leaves():
        enums = ctx.keyword_values(where, "enum")
        if not enums:
            continue
        canary = canary_for(ctx.fixture_id, "enum_outside", where)
        yield Mutant(
            "enum_outside", where, partial(ctx.replaced, where, canary),
            original=short(value), mutated=short(canary), canary=canary,
        )


def _stretched(value: str, length: int) -> str:
    """``value`` repeated (or ``x`` when empty) to exactly ``length`` characters."""
    if not value:
        return "x" * length
    return (value * (length // len(value) + 1))[:length]


def _replaced_by_stretched(ctx: MutationContext, where: str, value: str, length: int) -> bytes:
    # Built when the mutant is selected and run, and dropped after: a fixture with thousands of
    # strings must not hold a max_bytes-long string for each of them.
    return ctx.replaced(where, _stretched(value, length))


@operator(targets="every string", mandatory=True, labelled=True, typical_code="schema.maxLength", variants={
    "maxLength+1": Variant(Layer.SCHEMA, structural=True),
    "huge": Variant(Layer.TRANSPORT, "transport.max_bytes"),
})
def stretch_string(ctx: MutationContext) -> Iterator[Mutant]:
    """A string one past its maxLength, and one far past any limit (past max_bytes).

    A maxLength at or above max_bytes gets no maxLength+1 mutant (the transport layer stops that
    string before the schema sees it; the huge one covers it). Strings are built lazily."""
    max_bytes = ctx.contract.limits.max_bytes
    for where, value in ctx.leaves():
        if not isinstance(value, str) or not where:
            continue
        limits = [n for n in ctx.keyword_values(where, "maxLength") if _whole(n)]
        if limits and int(max(limits)) < max_bytes:
            most = int(max(limits))
            length = most + 1
            yield Mutant(
                "stretch_string", where, partial(_replaced_by_stretched, ctx, where, value, length),
                original=f"{len(value)} characters", mutated=f"{length} characters (maxLength {most})",
                variant="maxLength+1",
            )
        yield Mutant(
            "stretch_string", where, partial(_replaced_by_stretched, ctx, where, "", max_bytes + 1),
            original=f"{len(value)} characters", mutated=f"{max_bytes + 1:,} characters (past max_bytes)",
            variant="huge",
        )


def _whole(value: object) -> bool:
    """A maxLength that is a whole number (``5`` or ``5.0``: JSON does not tell them apart)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or (value == value and value not in (float("inf"), float("-inf"))
                                      and value.is_integer())


@operator(layer=Layer.SCHEMA, structural=True, targets="every string member named *_id or id")
def empty_identifier(ctx: MutationContext) -> Iterator[Mutant]:
    """An identifier emptied."""
    for where, value in ctx.leaves():
        if isinstance(value, str) and where and _IDENTIFIER.search(split(where)[-1]):
            yield Mutant(
                "empty_identifier", where, partial(ctx.replaced, where, ""),
                original=short(value), mutated='""', absorbable=_absorbable(ctx, where),
            )
