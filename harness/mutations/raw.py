"""Operators on the raw bytes: things no JSON serialiser writes."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from harness.codes import Layer
from harness.errors import excerpt
from harness.mutations.context import MutationContext
from harness.mutations.registry import Mutant, operator


def _first_number_or_scalar(ctx: MutationContext) -> tuple[str, object] | None:
    leaves = [(p, v) for p, v in ctx.leaves() if p]
    for where, value in leaves:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return where, value
    return leaves[0] if leaves else None


@operator(layer=Layer.PARSE, code="parse.non_finite_number", targets="a number (else a scalar)")
def nan_number(ctx: MutationContext) -> Iterator[Mutant]:
    """NaN where a number belongs."""
    target = _first_number_or_scalar(ctx)
    if target is not None:
        where, value = target
        yield Mutant(
            "nan_number", where, lambda: ctx.spliced(where, b"NaN"), original=excerpt(value),
            mutated="NaN",
        )


@operator(layer=Layer.TRANSPORT, code="transport.max_depth", targets="a scalar")
def deep_nesting(ctx: MutationContext) -> Iterator[Mutant]:
    """A value wrapped in arrays one level past max_depth."""
    target = _first_number_or_scalar(ctx)
    if target is not None:
        where, value = target
        depth = ctx.contract.limits.max_depth + 1
        fragment = b"[" * depth + b"0" + b"]" * depth
        yield Mutant(
            "deep_nesting", where, lambda: ctx.spliced(where, fragment), original=excerpt(value),
            mutated=f"{depth} nested arrays",
        )


@operator(layer=Layer.TRANSPORT, code="transport.max_bytes", targets="the whole body")
def byte_bomb(ctx: MutationContext) -> Iterator[Mutant]:
    """Whitespace padding that pushes a valid body one byte past max_bytes."""
    padding = ctx.contract.limits.max_bytes + 1 - len(ctx.raw)
    if padding > 0:
        yield Mutant(
            "byte_bomb", "", lambda: ctx.raw + b" " * padding, original=f"{len(ctx.raw)} bytes",
            mutated=f"{len(ctx.raw) + padding:,} bytes",
        )


@operator(layer=Layer.PARSE, code="parse.invalid_utf8", targets="a string")
def invalid_utf8(ctx: MutationContext) -> Iterator[Mutant]:
    """Bytes that are not UTF-8 inside a string."""
    for where, value in ctx.leaves():
        if isinstance(value, str) and where:
            yield Mutant(
                "invalid_utf8", where, partial(ctx.spliced, where, b'"\xff\xfe\xc0\xaf"'),
                original=excerpt(value), mutated="ff fe c0 af",
            )
            return


@operator(layer=Layer.PARSE, code="parse.bom", targets="the whole body")
def byte_order_mark(ctx: MutationContext) -> Iterator[Mutant]:
    """A UTF-8 byte order mark before the JSON text."""
    yield Mutant(
        "byte_order_mark", "", lambda: b"\xef\xbb\xbf" + ctx.raw, original="(none)",
        mutated="EF BB BF",
    )


@operator(layer=Layer.PARSE, code="parse.trailing_data", targets="the whole body")
def trailing_garbage(ctx: MutationContext) -> Iterator[Mutant]:
    """A second JSON text after the first."""
    yield Mutant(
        "trailing_garbage", "", lambda: ctx.raw.rstrip() + b' {"outcome": "success"}\n',
        original="(end)", mutated='{"outcome": "success"}',
    )
