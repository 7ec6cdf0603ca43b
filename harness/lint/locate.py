"""Which line of a JSON or YAML file a JSON pointer names, for ``file:line`` and SARIF regions.

JSON files are tokenised once (they passed the strict parser already); YAML files are composed
with their marks. A member's line is the line of its key. A pointer that names nothing in the
file falls back to the nearest ancestor that does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from harness.pointer import escape_token, split

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+')


def json_lines(text: str) -> dict[str, int]:
    """Pointer -> 1-based line for every value (and member key) in a JSON text."""
    lines: dict[str, int] = {}
    line = 1
    # Each open container: [pointer, is_object, current key or index, expecting a key].
    stack: list[list[object]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            line += token.count("\n")
            continue
        top = stack[-1] if stack else None
        if top is not None and top[1] and top[3] and first == '"':
            key = json.loads(token) if "\\" in token else token[1:-1]
            top[2], top[3] = key, False
            lines.setdefault(f"{top[0]}/{escape_token(key)}", line)
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
            stack.pop()
            continue
        pointer = "" if top is None else f"{top[0]}/{escape_token(top[2])}"
        lines.setdefault(pointer, line)
        if first == "{":
            stack.append([pointer, True, None, True])
        elif first == "[":
            stack.append([pointer, False, 0, False])
    return lines


def yaml_lines(text: str) -> dict[str, int]:
    """Pointer -> 1-based line for every node of a YAML document."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    lines: dict[str, int] = {}
    stack: list[tuple[str, yaml.Node | None]] = [("", root)]
    while stack:
        pointer, node = stack.pop()
        if node is None:
            continue
        lines.setdefault(pointer, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = f"{pointer}/{escape_token(key.value)}"
                lines[child] = key.start_mark.line + 1
                stack.append((child, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((f"{pointer}/{i}", item) for i, item in enumerate(node.value))
    return lines


class Locator:
    """Lines of the files of one run, each file read and indexed once."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, int]] = {}

    def line(self, file: str, pointer: str) -> int | None:
        lines = self._files.get(file)
        if lines is None:
            lines = self._files[file] = self._index(Path(file))
        tokens = split(pointer) if pointer.startswith("/") else []
        while True:
            candidate = "".join("/" + escape_token(t) for t in tokens)
            if candidate in lines:
                return lines[candidate]
            if not tokens:
                return None
            tokens.pop()

    @staticmethod
    def _index(path: Path) -> dict[str, int]:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return {}
        if path.suffix in (".yaml", ".yml"):
            return yaml_lines(text)
        return json_lines(text)
