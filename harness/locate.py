"""Where in a JSON or YAML file a JSON pointer is: ``file:line:column`` for errors, lint and SARIF.

JSON files are tokenised once (they passed the strict parser already); YAML files are composed
with their marks. A member's position is that of its key. A pointer that names nothing in the
file falls back to the nearest ancestor that does. Lines and columns are 1-based; a column
counts characters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.pointer import escape_token, split

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+')
#: Files larger than this are not indexed (a position is a convenience, never worth a stall).
_MAX_INDEXED_BYTES = 16 << 20

Position = tuple[int, int]


def json_positions(text: str) -> dict[str, Position]:
    """Pointer -> (line, column) for every value (and member key) in a JSON text."""
    found: dict[str, Position] = {}
    line, line_start = 1, 0
    # Each open container: [pointer, is_object, current key or index, expecting a key].
    stack: list[list[object]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            breaks = token.count("\n")
            if breaks:
                line += breaks
                line_start = match.start() + token.rindex("\n") + 1
            continue
        where = (line, match.start() - line_start + 1)
        top = stack[-1] if stack else None
        if top is not None and top[1] and top[3] and first == '"':
            key = json.loads(token) if "\\" in token else token[1:-1]
            top[2], top[3] = key, False
            found.setdefault(f"{top[0]}/{escape_token(key)}", where)
            continue
        if first == ":":
            continue
        if first == ",":
            if top is not None:
                if top[1]:
                    top[3] = True
                else:
                    top[2] = int(top[2]) + 1  # type: ignore[call-overload]
            continue
        if first in "}]":
            if stack:
                stack.pop()
            continue
        pointer = "" if top is None else f"{top[0]}/{escape_token(top[2])}"
        found.setdefault(pointer, where)
        if first == "{":
            stack.append([pointer, True, None, True])
        elif first == "[":
            stack.append([pointer, False, 0, False])
    return found


def yaml_positions(text: str) -> dict[str, Position]:
    """Pointer -> (line, column) for every node of a YAML document.

    An aliased node is indexed once, where its anchor is: walking the expansion of an alias
    bomb would never end."""
    import yaml  # here: the boundary raises errors that may ask for a position, and runs without YAML

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    found: dict[str, Position] = {}
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", root)]
    while stack:
        pointer, node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.setdefault(pointer, _mark(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = f"{pointer}/{escape_token(key.value)}"
                found[child] = _mark(key)
                stack.append((child, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((f"{pointer}/{i}", item) for i, item in enumerate(node.value))
    return found


def _mark(node: Any) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def json_lines(text: str) -> dict[str, int]:
    """Pointer -> 1-based line for every value (and member key) in a JSON text."""
    return {pointer: line for pointer, (line, _) in json_positions(text).items()}


def yaml_lines(text: str) -> dict[str, int]:
    """Pointer -> 1-based line for every node of a YAML document."""
    return {pointer: line for pointer, (line, _) in yaml_positions(text).items()}


def offset_position(data: bytes, offset: int) -> Position:
    """(line, column) of a byte offset in UTF-8 ``data`` (the column counts characters)."""
    offset = max(0, min(offset, len(data)))
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _is_yaml(path: Path) -> bool:
    return path.suffix in (".yaml", ".yml")


class Locator:
    """Positions in the files of one run, each file read and indexed once."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, Position]] = {}

    def position(self, file: str, pointer: str) -> Position | None:
        """Where ``pointer`` (or its nearest ancestor present in the file) is, or None."""
        positions = self._files.get(file)
        if positions is None:
            positions = self._files[file] = self._index(Path(file))
        try:
            tokens = split(pointer) if pointer.startswith("/") else []
        except ValueError:
            tokens = []
        while True:
            candidate = "".join("/" + escape_token(t) for t in tokens)
            if candidate in positions:
                return positions[candidate]
            if not tokens:
                return None
            tokens.pop()

    def line(self, file: str, pointer: str) -> int | None:
        where = self.position(file, pointer)
        return where[0] if where else None

    @staticmethod
    def _index(path: Path) -> dict[str, Position]:
        if path.suffix not in (".json", ".yaml", ".yml"):
            return {}
        from harness.files import read_text

        try:
            text = read_text(path, limit=_MAX_INDEXED_BYTES)
        except Exception:
            return {}
        return yaml_positions(text) if _is_yaml(path) else json_positions(text)


def position_in_file(file: str, pointer: str) -> Position | None:
    """Where ``pointer`` is in a JSON or YAML ``file`` (None when unknown)."""
    return Locator().position(file, pointer)
