"""Layer 1, ``transport``: byte cap, empty body, nesting depth — all on the raw bytes.

The body is read from ``bytes``, a binary stream (anything with ``read(n)``) or an iterable
of byte chunks, and never more than ``max_bytes + 1`` bytes are kept: one byte past the cap
proves the body is too long without buffering the rest. Nesting depth is measured on the bytes
with string contents removed, before any parser runs, so a 100,000-deep ``[[[[`` is a clean
``transport.max_depth`` and never a ``RecursionError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from harness.boundary.base import Evaluation, Rejection
from harness.codes import (
    TRANSPORT_EMPTY,
    TRANSPORT_MAX_BYTES,
    TRANSPORT_READ_ERROR,
)
from harness.errors import RejectedInput
from harness.strict_json import check_depth, is_blank

#: Upper bound a contract may set; the stdlib parser recurses once per level.
HARD_MAX_DEPTH = 512

_CHUNK = 1 << 16


def read_limited(source: Any, max_bytes: int) -> bytes:
    """Read at most ``max_bytes + 1`` bytes from ``source``; raise if there were more or none.

    ``source`` is ``bytes``/``bytearray``/``memoryview``, an object with ``read(n)``, or an
    iterable of byte chunks (e.g. ``httpx.Response.iter_bytes()``).
    """
    data = read_capped(source, max_bytes)
    check_size(data, max_bytes)
    return data


def read_capped(source: Any, max_bytes: int) -> bytes:
    """Up to ``max_bytes + 1`` bytes of ``source``: enough to prove it is too long, no more."""
    limit = max_bytes + 1
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source[:limit])
    elif hasattr(source, "read"):
        data = _read_chunks(_stream_chunks(source, limit), limit)
    elif isinstance(source, Iterable) and not isinstance(source, str):
        data = _read_chunks(source, limit)
    else:
        raise TypeError(
            f"a tool result must be bytes, a binary stream or an iterable of bytes, "
            f"not {type(source).__name__}"
        )
    return data


def check_size(data: bytes, max_bytes: int) -> None:
    """Raise ``transport.max_bytes`` or ``transport.empty``."""
    if len(data) > max_bytes:
        raise RejectedInput(
            TRANSPORT_MAX_BYTES,
            f"body exceeds max_bytes={max_bytes}",
            offset=max_bytes,
        )
    if is_blank(data):
        raise RejectedInput(TRANSPORT_EMPTY, "body is empty")


def _stream_chunks(stream: Any, limit: int) -> Iterator[Any]:
    """Chunks of a ``read(n)`` stream, never asking for more than ``limit`` bytes in all."""
    remaining = limit
    while remaining > 0:
        chunk = stream.read(min(_CHUNK, remaining))
        if not chunk:
            return
        yield chunk
        remaining -= len(chunk)


def _read_chunks(chunks: Iterable[Any], limit: int) -> bytes:
    parts: list[bytes] = []
    remaining = limit
    iterator = iter(chunks)
    while remaining > 0:
        try:
            chunk = next(iterator, None)
            if chunk is None:
                break
            if not isinstance(chunk, str):
                chunk = bytes(chunk[:remaining]) if len(chunk) >= remaining else bytes(chunk)
        except Exception as exc:
            # Whatever the byte source raises (an httpx.ReadError, a reset, a decoder's error)
            # is a failed read of the upstream's body, never the harness's crash.
            raise RejectedInput(
                TRANSPORT_READ_ERROR, f"reading the body failed: {type(exc).__name__}"
            ) from exc
        if isinstance(chunk, str):
            raise TypeError("a tool result must be bytes, not text")
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def check(ev: Evaluation) -> Rejection | None:
    """Read the body within the byte cap, refuse empty bodies and excessive nesting."""
    limits = ev.contract.limits
    try:
        ev.raw = read_capped(ev.source, limits.max_bytes)
        check_size(ev.raw, limits.max_bytes)
        check_depth(ev.raw, limits.max_depth)
    except RejectedInput as exc:
        return Rejection(exc.code, exc.message, offset=exc.offset)
    return None
