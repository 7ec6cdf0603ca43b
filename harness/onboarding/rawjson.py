"""Byte-exact slices of JSON text: the ``structuredContent`` inside a JSON-RPC response line.

A fixture keeps the bytes an upstream sent. An MCP result arrives wrapped in a JSON-RPC
response; re-serialising the parsed content would silently drop a duplicated member or
reformat a number, the very things the parse layer must judge. :func:`member_span` finds where
a member's value starts and ends in the original text without building more than it must.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class SpanError(ValueError):
    """The text is not a JSON object holding the member (or holds it twice)."""


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _value_end(text: str, index: int) -> int:
    try:
        _, end = _DECODER.raw_decode(text, index)
    except json.JSONDecodeError as exc:
        raise SpanError(f"not JSON at character {exc.pos}: {exc.msg}") from None
    return int(end)


def _span(text: str, index: int, path: Sequence[str]) -> tuple[int, int] | None:
    if not path:
        return index, _value_end(text, index)
    if index >= len(text) or text[index] != "{":
        return None
    index = _skip(text, index + 1)
    found: tuple[int, int] | None = None
    seen = False
    if index < len(text) and text[index] == "}":
        return None
    while True:
        if index >= len(text) or text[index] != '"':
            raise SpanError(f"expected a member name at character {index}")
        key, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if index >= len(text) or text[index] != ":":
            raise SpanError(f"expected ':' at character {index}")
        index = _skip(text, index + 1)
        if key == path[0]:
            if seen:
                raise SpanError(f"member {key!r} appears twice")
            seen = True
            found = _span(text, index, path[1:])
        index = _skip(text, _value_end(text, index))
        if index < len(text) and text[index] == ",":
            index = _skip(text, index + 1)
            continue
        if index < len(text) and text[index] == "}":
            return found
        raise SpanError(f"expected ',' or '}}' at character {index}")


def member_span(raw: bytes, path: Sequence[str]) -> bytes | None:
    """The exact bytes of the value at ``path`` (member names from the top object), or None
    when some member on the way is absent. Invalid UTF-8 is carried through unchanged."""
    text = raw.decode("utf-8", "surrogateescape")
    span = _span(text, _skip(text, 0), path)
    if span is None:
        return None
    return text[span[0] : span[1]].encode("utf-8", "surrogateescape")
