"""Operators on the document's structure: members added, removed, replaced, duplicated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial

from harness.codes import Layer
from harness.errors import excerpt
from harness.mutations.context import MutationContext, dumps
from harness.mutations.registry import DeferredMutant, Mutant, Variant, canary_for, operator
from harness.pointer import escape_token, split


def _absorbable(ctx: MutationContext) -> bool:
    # With an adapter, the raw document is the vendor's: open on purpose, absorbed by the adapter.
    return ctx.contract.adapter is not None


@operator(layer=Layer.SCHEMA, structural=True, targets="every object", mandatory=True,
          fix="close {pointer} in {schema}: additionalProperties: false")
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


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.type", targets="every object", mandatory=True,
          fix="let {pointer} be an object only in {schema}: type: object")
def null_for_object(ctx: MutationContext) -> Iterator[Mutant | DeferredMutant]:
    """null in place of each object."""
    for where, obj in ctx.objects():
        absorbable = _absorbable(ctx) and bool(where)
        yield DeferredMutant(partial(_null_for_object, ctx, where, obj, absorbable), absorbable=absorbable,
                             pointer=where)


def _null_for_object(ctx: MutationContext, where: str, obj: object, absorbable: bool) -> Mutant:
    return Mutant("null_for_object", where, partial(ctx.replaced, where, None), original=excerpt(obj),
                  mutated="null", absorbable=absorbable)


@operator(layer=Layer.SCHEMA, structural=True, typical_code="schema.type", targets="every object",
          fix="let {pointer} be an object only in {schema}: type: object")
def array_for_object(ctx: MutationContext) -> Iterator[Mutant | DeferredMutant]:
    """An array (holding the object) where the object belongs.

    Not where the array would nest the document past max_depth: a near miss lands inside the
    limits it is not about."""
    max_depth = ctx.contract.limits.max_depth
    for where, obj in ctx.objects():
        if len(split(where)) + 1 + _depth(obj) > max_depth:
            continue
        absorbable = _absorbable(ctx) and bool(where)
        yield DeferredMutant(partial(_array_for_object, ctx, where, obj, absorbable), absorbable=absorbable,
                             pointer=where)


def _depth(value: object) -> int:
    """How deep arrays and objects nest in ``value`` (0 for a scalar, 1 for ``{}``)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _array_for_object(ctx: MutationContext, where: str, obj: object, absorbable: bool) -> Mutant:
    return Mutant("array_for_object", where, partial(ctx.replaced, where, [obj]), original=excerpt(obj),
                  mutated=excerpt([obj]), absorbable=absorbable)


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
            "duplicate_member", where, build, original=f"{name}: {excerpt(value)}",
            mutated=f"{name}: {excerpt(value)}, {name}: {excerpt(conflicting)}",
            canary=canary if conflicting == canary else None,
        )


@operator(layer=Layer.SCHEMA, structural=True, targets="the root of a success result", mandatory=True,
          fix="keep error out of a success result in {schema}: additionalProperties: false on its object")
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
          targets="every required member present",
          fix="require {pointer} in every branch of {schema} that admits its object")
def missing_required(ctx: MutationContext) -> Iterator[Mutant | DeferredMutant]:
    """A member the schema requires, removed."""
    for where, obj in ctx.objects():
        required: set[str] = set()
        for names in ctx.keyword_values(where, "required"):
            if isinstance(names, list):
                required.update(n for n in names if isinstance(n, str))
        for name in obj:
            if name in required:
                yield DeferredMutant(partial(_missing_required, ctx, where, name, obj[name]),
                                     pointer=f"{where}/{escape_token(name)}")


def _missing_required(ctx: MutationContext, where: str, name: str, value: object) -> Mutant:
    pointer = f"{where}/{escape_token(name)}"
    return Mutant("missing_required", pointer, partial(ctx.deleted, pointer), original=excerpt(value),
                  mutated="(absent)")


def _judged_pointers(ctx: MutationContext) -> set[str]:
    """Adapter tools: where in the raw document the values a binding or freshness rule judges
    come from. The adapter must not invent those when the vendor leaves them out."""
    if ctx.contract.adapter is None:
        return set()
    fields = [rule.result for rule in ctx.contract.bindings] + [rule.field for rule in ctx.contract.freshness]
    return {where for field in fields for where in ctx.aimed_at(field)}


@operator(targets="every member no schema requires, present in an accepted fixture", variants={
    "optional": Variant(Layer.SCHEMA, optional=True,
                        fix="require {pointer} in {schema}: a later layer cannot do without it"),
    "judged": Variant(Layer.SCHEMA, fix="require {pointer} in {schema}: a binding or freshness rule's value "
                                        "comes from it, and the adapter must not invent one"),
    "every_item": Variant(Layer.SCHEMA, fix="require {pointer} in {schema} (optional by design: add an accepted "
                                            "fixture with an item without it)"),
})
def remove_member(ctx: MutationContext) -> Iterator[Mutant]:
    """A member no schema requires, removed: accepted, or rejected by the schema, never by a later layer.

    Its absence is fine if the whole boundary accepts it; if the schema accepts it and a later
    layer (binding, freshness, projection, the adapter) rejects it, the schema let through what
    the contract cannot take. Behind an adapter, a member a binding or freshness rule's value
    comes from must be required: an adapter that fills it in (from the wall clock) invents it.
    In the items of an array the agent view maps, no projection checks a member; one that every
    item of every accepted fixture holds is meant to be there, and must be required."""
    judged = _judged_pointers(ctx)
    for where, obj in ctx.objects():
        required: set[str] = set()
        for names in ctx.keyword_values(where, "required"):
            if isinstance(names, list):
                required.update(n for n in names if isinstance(n, str))
        for name in obj:
            if name in required:
                continue  # missing_required's
            pointer = f"{where}/{escape_token(name)}"
            variant = "judged" if any(p == pointer or p.startswith(pointer + "/") for p in judged) else "optional"
            if variant == "optional" and ctx.contract.adapter is not None and not ctx.schema_nodes(pointer):
                continue  # a vendor member the vendor schema says nothing of: the adapter's business
            if variant == "optional" and _held_by_every_item(ctx, where, name):
                variant = "every_item"
            yield Mutant(
                "remove_member", pointer, partial(ctx.deleted, pointer),
                original=excerpt(obj[name]), mutated="(absent)", variant=variant,
            )


@operator(targets="every non-empty array", labelled=True, typical_code="schema.maxItems", variants={
    "maxItems+1": Variant(Layer.SCHEMA, structural=True, fix="bound {pointer} in {schema}: maxItems"),
    "oversized": Variant(Layer.SCHEMA, structural=True,
                         fix="bound {pointer} in {schema}: a maxItems its items fit under max_bytes"),
})
def stretch_array(ctx: MutationContext) -> Iterator[Mutant]:
    """An array one past its maxItems, or where none fits under max_bytes, one of nearly max_bytes.

    Its items are repeated until the document nearly reaches max_bytes (at most 64 KiB of items).
    A maxItems whose next item would not fit under max_bytes is left to the transport: a near
    miss lands inside the limits it is not about."""
    max_bytes = ctx.contract.limits.max_bytes
    for where, items in _arrays(ctx):
        limits = [n for n in ctx.keyword_values(where, "maxItems")
                  if isinstance(n, int) and not isinstance(n, bool)]
        room = ctx.room(items) - 3  # the brackets, and one byte to spare
        if limits and max(limits) + 1 <= max_bytes:
            count = max(limits) + 1
            variant, shown = "maxItems+1", f"{count} items (maxItems {max(limits)})"
            if _fitting(items, room) < count:
                continue
        else:
            count = _fitting(items, min(OVERSIZED_ARRAY, room))
            variant, shown = "oversized", f"{count:,} items (no maxItems below max_bytes)"
            if count <= len(items):
                continue
        yield Mutant(
            "stretch_array", where, partial(_replaced_by_repeated, ctx, where, items, count),
            original=f"{len(items)} items", mutated=shown, variant=variant,
            absorbable=ctx.contract.adapter is not None and not ctx.schema_nodes(where),
        )


def _held_by_every_item(ctx: MutationContext, where: str, name: str) -> bool:
    """Whether the object at ``where`` is an item of an array the agent sees (no adapter between)
    and every such item of every accepted fixture holds member ``name``."""
    if ctx.contract.adapter is not None:
        return False
    item = ctx.agent_field(where)
    if item is None or not item.endswith("/*"):
        return False
    return all(isinstance(o, dict) and name in o for o in ctx.seen(item))


#: The size in bytes of an oversized array where no maxItems fits (like an oversized string's).
OVERSIZED_ARRAY = 64 * 1024


def _arrays(ctx: MutationContext) -> Iterator[tuple[str, list[object]]]:
    """Every non-empty array in the document, with its pointer (containers are walked once)."""
    stack: list[tuple[str, object]] = [("", ctx.document)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{where}/{escape_token(k)}", v) for k, v in node.items())
        elif isinstance(node, list):
            if node and where:
                yield where, node
            stack.extend((f"{where}/{i}", v) for i, v in enumerate(node))


def _fitting(items: list[object], room: int) -> int:
    """How many of ``items``, cycled (as :func:`_replaced_by_repeated` writes them, each after
    the first with its ``", "``), fit in ``room`` bytes: the oversized array lands inside
    max_bytes whatever its items' sizes."""
    sizes = [len(dumps(item)) + 2 for item in items]
    cycle = sum(sizes)
    count = (room + 2) // cycle * len(items)
    used = count // len(items) * cycle
    for size in sizes:
        if used + size > room + 2:
            break
        used += size
        count += 1
    return count


def _replaced_by_repeated(ctx: MutationContext, where: str, items: list[object], count: int) -> bytes:
    # Items cycled (not only the first repeated): an array whose schema wants unique items still
    # fails on its size, not only on uniqueness, when it has more than one distinct item.
    return ctx.replaced(where, [items[i % len(items)] for i in range(count)])
