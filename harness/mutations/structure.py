"""Operators on the document's structure: members added, removed, replaced, duplicated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial

from harness.codes import Layer
from harness.mutations.context import MutationContext, dumps, short
from harness.mutations.registry import Mutant, canary_for, operator
from harness.pointer import escape_token


def _absorbable(ctx: MutationContext) -> bool:
    # With an adapter, the raw document is the vendor's: open on purpose, absorbed by the adapter.
    return ctx.contract.adapter is not None


@operator(layer=Layer.SCHEMA, structural=True, targets="every object", mandatory=True)
def add_extra_property(ctx: MutationContext) -> Iterator[Mutant]:
    """An unexpected member, its value a canary string, in each object."""
    for where, obj in ctx.objects():
        canary = canary_for(ctx.fixture_id, "add_extra_property", where)
        name = "debug" if "debug" not in obj else "debug_" + canary[-4:]
        pointer = f"{where}/{escape_token(name)}"
        yield Mutant(
            "add_extra_property", where,
            partial(ctx.replaced, pointer, canary),
            original="(absent)", mutated=f"{name}: {canary}", absorbable=_absorbable(ctx), canary=canary,
        )


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.type", targets="every object", mandatory=True)
def null_for_object(ctx: MutationContext) -> Iterator[Mutant]:
    """null in place of each object."""
    for where, obj in ctx.objects():
        yield Mutant(
            "null_for_object", where, partial(ctx.replaced, where, None),
            original=short(obj), mutated="null", absorbable=_absorbable(ctx) and bool(where),
        )


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.type", targets="every object")
def array_for_object(ctx: MutationContext) -> Iterator[Mutant]:
    """An array (holding the object) where the object belongs."""
    for where, obj in ctx.objects():
        yield Mutant(
            "array_for_object", where, partial(ctx.replaced, where, [obj]),
            original=short(obj), mutated=short([obj]), absorbable=_absorbable(ctx) and bool(where),
        )


def _conflicting(value: object, canary: str) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return canary


@operator(layer=Layer.PARSE, code="parse.duplicate_member", targets="every non-empty object",
          mandatory=True)
def duplicate_member(ctx: MutationContext) -> Iterator[Mutant]:
    """A member repeated in the raw bytes with a conflicting value, in each object."""
    for where, obj in ctx.objects():
        if not obj:
            continue
        name, value = next(iter(obj.items()))
        canary = canary_for(ctx.fixture_id, "duplicate_member", where)
        conflicting = _conflicting(value, canary)

        def build(w: str = where, o: dict[str, object] = obj, n: str = name,
                  c: object = conflicting) -> bytes:
            body = dumps(o)[:-1] + b", " + dumps(n) + b": " + dumps(c) + b"}"
            return ctx.spliced(w, body)

        yield Mutant(
            "duplicate_member", where, build, original=f"{name}: {short(value)}",
            mutated=f"{name}: {short(value)}, {name}: {short(conflicting)}",
            canary=canary if conflicting == canary else None,
        )


@operator(layer=Layer.SCHEMA, structural=True, targets="the root of a success result", mandatory=True)
def success_plus_error(ctx: MutationContext) -> Iterator[Mutant]:
    """A success result that also carries an error object."""
    if not isinstance(ctx.document, dict) or "error" in ctx.document:
        return
    envelope = ctx.contract.envelope
    if (envelope is not None and ctx.contract.adapter is None
            and ctx.document.get(envelope.outcome) != envelope.success):
        return
    error = {"code": "INVALID_RESPONSE", "retryable": False}
    # A vendor schema without an error convention (no `error` member) says nothing about one: the
    # adapter decides, like any member the vendor adds; only what reaches the agent is judged.
    absorbable = ctx.contract.adapter is not None and not ctx.schema_nodes("/error")
    yield Mutant(
        "success_plus_error", "", lambda: ctx.replaced("/error", error),
        original="(no error)", mutated="error: " + json.dumps(error), absorbable=absorbable,
    )


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.required",
          targets="every required member present")
def missing_required(ctx: MutationContext) -> Iterator[Mutant]:
    """A member the schema requires, removed."""
    for where, obj in ctx.objects():
        required: set[str] = set()
        for names in ctx.keyword_values(where, "required"):
            if isinstance(names, list):
                required.update(n for n in names if isinstance(n, str))
        for name in obj:
            if name in required:
                pointer = f"{where}/{escape_token(name)}"
                yield Mutant(
                    "missing_required", pointer, partial(ctx.deleted, pointer),
                    original=short(obj[name]), mutated="(absent)",
                )
