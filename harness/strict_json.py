"""Strict JSON: RFC 8259 / I-JSON parsing of bytes, the one parser of the package.

The boundary's ``parse`` layer runs it on a tool result (after the ``transport`` layer has
checked the bytes' size, emptiness and nesting with :func:`is_blank` and :func:`check_depth`);
:func:`strict_loads` is the same parse with those checks first, for every other JSON the harness
reads (contract schemas, fixtures, recorded baselines, saved state).

The reference backend is the standard library's C scanner with hooks, behind a bytes-level
depth prescan. On top of the grammar it rejects what RFC 8259 leaves to implementations and
I-JSON (RFC 7493) forbids: duplicate member names (compared after escapes are decoded, so
``"a"`` and ``"\\u0061"`` collide), NaN / Infinity and numbers that overflow to infinity, lone
surrogate escapes, a byte order mark, anything but UTF-8, and trailing data. Python's integer
digit cap becomes a clean rejection instead of a ValueError. Nesting is measured on the bytes
with string contents removed, before any parser runs, so a 100,000-deep ``[[[[`` is a clean
``transport.max_depth`` and never a ``RecursionError``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from harness.codes import (
    PARSE_BOM,
    PARSE_DUPLICATE_MEMBER,
    PARSE_INVALID_UTF8,
    PARSE_LONE_SURROGATE,
    PARSE_NON_FINITE_NUMBER,
    PARSE_NUMBER_TOO_LARGE,
    PARSE_SYNTAX,
    PARSE_TRAILING_DATA,
    TRANSPORT_EMPTY,
    TRANSPORT_MAX_DEPTH,
)
from harness.errors import RejectedInput
from harness.pointer import escape_token

#: How deep a document may nest when nobody says (a contract's ``limits.max_depth`` default).
DEFAULT_MAX_DEPTH = 64

_NOT_WHITESPACE = re.compile(rb"[^ \t\r\n]")
# Keep only quotes and brackets (folded to "(" and ")"); then strings are bare "..." runs.
_FOLD = bytes.maketrans(b"[{]}", b"(())")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_STRING = re.compile(rb'"[^"]*"')


def is_blank(data: bytes) -> bool:
    """True for an empty or whitespace-only body (found without copying it)."""
    return _NOT_WHITESPACE.search(data) is None


def check_depth(data: bytes, max_depth: int) -> None:
    """Raise ``transport.max_depth`` if arrays/objects nest deeper than ``max_depth``.

    Works on bytes (strings removed first, so brackets inside strings do not count) and never
    recurses. Unbalanced input is measured as written: unclosed brackets count as open.
    """
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return
    if b"\\" in data:
        # Backslashes pair left to right, so deleting escaped backslashes (two-byte pairs)
        # leaves single escapes; deleting escaped quotes then leaves only the quotes that
        # delimit strings. Then a string is a bare quote-to-quote run.
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = _STRING.sub(b"", data.translate(_FOLD, _NOT_STRUCTURE))
    # Each pass deletes the innermost pairs, i.e. one level. Balanced input no deeper than
    # max_depth is gone after max_depth passes; these run at C speed.
    rest = brackets
    for _ in range(max_depth):
        if not rest:
            return
        shorter = rest.replace(b"()", b"")
        if len(shorter) == len(rest):
            break
        rest = shorter
    if not rest:
        return
    depth = 0
    for byte in brackets:
        if byte == 40:  # "("
            depth += 1
            if depth > max_depth:
                raise RejectedInput(
                    TRANSPORT_MAX_DEPTH, f"nesting exceeds max_depth={max_depth}"
                )
        elif depth:
            depth -= 1


_BOMS = (
    (b"\xef\xbb\xbf", "UTF-8"),
    (b"\xff\xfe", "UTF-16LE/UTF-32LE"),
    (b"\xfe\xff", "UTF-16BE"),
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Duplicate(dict):  # type: ignore[type-arg]
    """Marks the object that repeated a name; only built on the rejection path."""

    __slots__ = ("name",)
    name: str


class _DuplicateFound(Exception):
    """Raised by the fast hook; the slow path then finds where."""


def _non_finite(literal: str) -> Any:
    raise RejectedInput(PARSE_NON_FINITE_NUMBER, f"{literal} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise RejectedInput(
            PARSE_NON_FINITE_NUMBER, f"number overflows to infinity ({len(text)} characters)"
        )
    return value


def _first_repeated(items: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for name, _ in items:
        if name in seen:
            return name
        seen.add(name)
    raise AssertionError("no repeated name")  # pragma: no cover - only called after a repeat


def _fast_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(items)
    if len(obj) != len(items):
        raise _DuplicateFound
    return obj


def _marking_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(items)
    if len(obj) != len(items):
        marked = _Duplicate(obj)
        marked.name = _first_repeated(items)
        return marked
    return obj


# Stateless, so one instance serves every call and thread.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_fast_pairs, parse_float=_finite_float, parse_constant=_non_finite
)
_LOCATING_DECODER = json.JSONDecoder(
    object_pairs_hook=_marking_pairs, parse_float=_finite_float, parse_constant=_non_finite
)


def _duplicate_rejection(text: str) -> RejectedInput:
    """Parse again, marking objects with repeated names, and say where the first one is."""
    try:
        value = _LOCATING_DECODER.decode(text)
    except (RejectedInput, ValueError, RecursionError):
        # The text is also broken later on; the duplicate is reported all the same.
        return RejectedInput(PARSE_DUPLICATE_MEMBER, "an object repeats a member name")
    queue: list[tuple[Any, str]] = [(value, "")]
    for node, where in queue:  # breadth first: the shallowest duplicate wins
        if isinstance(node, _Duplicate):
            name = node.name if len(node.name) <= 64 else node.name[:61] + "..."
            return RejectedInput(
                PARSE_DUPLICATE_MEMBER,
                f"member name {name!r} repeats in the object at {where or '/'}",
                pointer=where,
            )
        if isinstance(node, dict):
            queue.extend((v, f"{where}/{escape_token(k)}") for k, v in node.items())
        elif isinstance(node, list):
            queue.extend((v, f"{where}/{i}") for i, v in enumerate(node))
    raise AssertionError("duplicate not found on the second pass")  # pragma: no cover


def _byte_offset(text: str, char_pos: int) -> int:
    return len(text[:char_pos].encode("utf-8", "surrogatepass"))


def _find_lone_surrogate(value: Any) -> str | None:
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return where
        elif isinstance(node, dict):
            for k, v in node.items():
                if _SURROGATE.search(k):
                    return where
                stack.append((v, f"{where}/{escape_token(k)}"))
        elif isinstance(node, list):
            stack.extend((v, f"{where}/{i}") for i, v in enumerate(node))
    return None


_SUSPECT_FIRST = frozenset(b"\xef\xff\xfe\x00")


def _decode_utf8(data: bytes) -> str:
    if data and data[0] in _SUSPECT_FIRST:
        for bom, name in _BOMS:
            if data.startswith(bom):
                raise RejectedInput(
                    PARSE_BOM, f"{name} byte order mark before the JSON text", offset=0
                )
    if len(data) >= 2 and (data[0] == 0 or data[1] == 0):
        raise RejectedInput(
            PARSE_INVALID_UTF8, "body looks like UTF-16 or UTF-32; JSON must be UTF-8", offset=0
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RejectedInput(
            PARSE_INVALID_UTF8, f"invalid UTF-8 ({exc.reason})", offset=exc.start
        ) from None


def strict_loads(data: bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse ``data`` as strict JSON or raise :class:`harness.RejectedInput`.

    Checks nesting on the bytes first (``transport.max_depth``), then parses with the rules of
    this module. Never raises anything else for any ``bytes`` input.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"strict_loads takes bytes, not {type(data).__name__}")
    data = bytes(data)
    if is_blank(data):
        raise RejectedInput(TRANSPORT_EMPTY, "body is empty")
    check_depth(data, max_depth)
    return parse_checked(data)


def parse_checked(data: bytes) -> Any:
    """The parse proper, for a caller that has checked emptiness and depth on the bytes (the
    boundary's transport layer)."""
    text = _decode_utf8(data)
    try:
        value = _DECODER.decode(text)
    except RejectedInput:
        raise
    except _DuplicateFound:
        raise _duplicate_rejection(text) from None
    except json.JSONDecodeError as exc:
        code = PARSE_TRAILING_DATA if exc.msg == "Extra data" else PARSE_SYNTAX
        raise RejectedInput(
            code, exc.msg[:1].lower() + exc.msg[1:], offset=_byte_offset(text, exc.pos)
        ) from None
    except ValueError as exc:
        # int() refuses strings past sys.get_int_max_str_digits(); nothing else raises here.
        raise RejectedInput(
            PARSE_NUMBER_TOO_LARGE, f"integer has too many digits ({str(exc)[:60]})"
        ) from None
    except RecursionError:
        raise RejectedInput(TRANSPORT_MAX_DEPTH, "nesting too deep for the parser") from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        where = _find_lone_surrogate(value)
        if where is not None:
            raise RejectedInput(
                PARSE_LONE_SURROGATE, f"lone surrogate escape in a string at {where or '/'}",
                pointer=where,
            )
    return value
