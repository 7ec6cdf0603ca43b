"""Newline-delimited JSON-RPC over a byte stream, with a cap on what is ever buffered.

The stdio transport frames each message as one line. A line longer than the cap is never
held whole: its first :data:`HEAD` bytes and last :data:`TAIL` bytes are kept (enough to find
which request it answers) and the rest is read and dropped, so a server streaming a gigabyte
costs the guard a few kilobytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

#: Bytes kept from the start and the end of a line past the cap.
HEAD, TAIL = 4096, 256
#: The last member of a top-level object, when it is the id (the TypeScript SDK writes
#: ``{"result":...,"jsonrpc":"2.0","id":7}``): a string or number right before the final brace.
_TAIL_ID = re.compile(rb'"id"[ \t]*:[ \t]*(-?[0-9]+|"(?:[^"\\]|\\.){0,200}")[ \t]*\}[ \t\r]*$')


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the cap: its head and tail, and how long it was."""

    head: bytes
    tail: bytes
    size: int


class _Skipping:
    def __init__(self, start: bytes) -> None:
        self.head = start[:HEAD]
        self.tail = start[-TAIL:]
        self.size = len(start)

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self.tail = (self.tail + chunk)[-TAIL:]

    def done(self) -> Oversized:
        return Oversized(self.head, self.tail.rstrip(b"\r"), self.size)


class LineSplitter:
    """Cuts a byte stream into lines (without their newline; blank lines dropped)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._buffer = bytearray()
        self._skipping: _Skipping | None = None

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        if self._skipping is not None:
            end = chunk.find(b"\n")
            if end < 0:
                self._skipping.add(chunk)
                return out
            self._skipping.add(chunk[:end])
            out.append(self._skipping.done())
            self._skipping = None
            start = end + 1
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if self._buffer:
                self._buffer += chunk[start:end]
                line = bytes(self._buffer)
                self._buffer.clear()
            else:
                line = chunk[start:end]
            self._emit(line, out)
            start = end + 1
        if start < len(chunk):
            self._buffer += chunk[start:]
            if len(self._buffer) > self.cap:
                self._skipping = _Skipping(bytes(self._buffer))
                self._buffer.clear()
        return out

    def finish(self) -> list[bytes | Oversized]:
        """What is left at end of stream: a last line without its newline."""
        out: list[bytes | Oversized] = []
        if self._skipping is not None:
            out.append(self._skipping.done())
            self._skipping = None
        elif self._buffer:
            self._emit(bytes(self._buffer), out)
            self._buffer.clear()
        return out

    def _emit(self, line: bytes, out: list[bytes | Oversized]) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self.cap:
            out.append(Oversized(line[:HEAD], line[-TAIL:], len(line)))
        elif line.strip():
            out.append(line)


_NO_ID: Any = object()
#: What :func:`recover_id` returns when it cannot tell (``None`` is a valid JSON-RPC id value).
NO_ID = _NO_ID


def recover_id(head: bytes, tail: bytes = b"") -> Any:
    """The JSON-RPC id of a message known only by its head and tail (an oversized or unreadable
    line), or :data:`NO_ID`. The head is read member by member until the id or an unreadable
    value; the tail is tried for an id written last. Best effort, for routing an error only:
    the message itself is refused either way."""
    found = _head_id(head)
    if found is not _NO_ID:
        return found
    match = _TAIL_ID.search(tail)
    if match is not None:
        try:
            return json.loads(match.group(1))
        except ValueError:
            return _NO_ID
    return _NO_ID


def _head_id(head: bytes) -> Any:
    text = head.decode("utf-8", "ignore")
    decoder = json.JSONDecoder()
    index = _skip(text, 0)
    if not text.startswith("{", index):
        return _NO_ID
    index = _skip(text, index + 1)
    try:
        while index < len(text) and text[index] == '"':
            name, index = scanstring(text, index + 1)
            index = _skip(text, index)
            if not text.startswith(":", index):
                return _NO_ID
            value, index = decoder.raw_decode(text, _skip(text, index + 1))
            if name == "id":
                return value if isinstance(value, str | int) and not isinstance(value, bool) else _NO_ID
            index = _skip(text, index)
            if not text.startswith(",", index):
                return _NO_ID
            index = _skip(text, index + 1)
    except ValueError:
        return _NO_ID
    return _NO_ID


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index
