"""Rules about what strings look like: identifiers, anchors, regex features that differ between
engines."""

from __future__ import annotations

import re
from collections.abc import Iterator

from harness.lint.names import is_identifier
from harness.lint.registry import RULES, Hit, Severity
from harness.lint.rules.bounds import field_name, first_typed
from harness.lint.shapes import is_closed_set, patterns
from harness.schemas.dialects import ASSERTED_FORMATS
from harness.schemas.document import Node

_STRING = frozenset({"string"})


def _pins_shape(node: Node) -> bool:
    if isinstance(node.get("pattern"), str) or is_closed_set(node):
        return True
    return node.get("format") == "uuid" and "uuid" in ASSERTED_FORMATS[node.document.dialect]


@RULES.rule(
    severity=Severity.WARNING,
    summary="identifier (id, *_id, request_id) that is a string without pattern",
    fix='add an anchored "pattern" matching only the identifiers the upstream issues, e.g. '
        '"^[A-Za-z0-9_-]{1,64}$"',
)
def identifier_without_pattern(node: Node) -> Iterator[str]:
    """Identifiers are bound to requests and used to act on things. One that can be any string
    can be empty, carry spaces, slashes or instructions, or name something else entirely;
    a pattern says what an identifier looks like (``format: uuid`` does, where asserted).
    """
    name = field_name(node)
    if not is_identifier(name) or not first_typed(node, _STRING):
        return
    if not node.document.holds(node, _pins_shape):
        yield f"identifier {name!r} is any string: no pattern"


def _scan(pattern: str) -> Iterator[tuple[int, str, int]]:
    """``(index, char, group depth)`` of each unescaped character outside character classes;
    escapes are yielded as ``(index, "\\x", depth)``."""
    depth = 0
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            yield i, pattern[i:i + 2], depth
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
            yield i, char, depth
        elif char == ")":
            depth -= 1
            yield i, char, depth
        else:
            yield i, char, depth
        i += 1


def anchoring_problem(pattern: str) -> str | None:
    """Why a pattern does not match whole strings only, or None if it does."""
    starts = pattern.startswith("^")
    ends = False
    alternation = False
    for index, char, depth in _scan(pattern):
        if char == "|" and depth == 0:
            alternation = True
        if char == "$" and index == len(pattern) - 1:
            ends = True
    if not starts and not ends:
        return "is not anchored: it matches any string that merely contains a match"
    if not starts:
        return "does not start with ^: anything may precede the match"
    if not ends:
        return "does not end with $: anything may follow the match"
    if alternation:
        return "has a top-level |: ^a|b$ means (^a)|(b$); group the alternatives: ^(?:a|b)$"
    return None


@RULES.rule(
    severity=Severity.WARNING,
    summary="pattern without ^...$ anchors",
    fix="anchor the whole pattern: ^(?:...)$",
)
def unanchored_pattern(node: Node) -> Iterator[Hit]:
    """JSON Schema patterns search; they do not match the whole string. ``[a-z]+`` accepts
    ``"ignore previous instructions; rm -rf /"`` because it contains a letter. The same holds
    for ``patternProperties`` keys, which decide which member names a map takes.
    """
    for what, text, pointer in patterns(node):
        if problem := anchoring_problem(text):
            yield Hit(f"{what} {text!r} {problem}", pointer=pointer)


_CLASSES = {
    "d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]",
    "s": r"[ \t\n\r]", "S": r"[^ \t\n\r]", "b": "an explicit boundary such as (?:^|[^A-Za-z0-9_])",
    "B": "an explicit class",
}
_NOT_ECMA = {"A": "^", "Z": "$", "z": "$"}
_INLINE = re.compile(r"\(\?(P|[a-zA-Z]+[):])")


def dialect_dependent_parts(pattern: str) -> list[tuple[str, str]]:
    """``(construct, replacement)`` for each regex construct whose meaning differs between
    ECMA-262 (what JSON Schema specifies), Python ``re`` and Rust ``regex``."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            letter = pattern[i + 1]
            if letter in _CLASSES:
                found.append((f"\\{letter}", _CLASSES[letter]))
            elif letter in _NOT_ECMA:
                found.append((f"\\{letter}", _NOT_ECMA[letter]))
            elif letter in "pP":
                end = pattern.find("}", i) + 1 if pattern[i + 2:i + 3] == "{" else i + 3
                found.append((pattern[i:end or len(pattern)], "an explicit character class"))
                i = max(end, i + 2)
                continue
            i += 2
            continue
        match = _INLINE.match(pattern, i)
        if match:
            found.append((match.group(0), "a plain group (no inline flags or named groups)"))
        i += 1
    return list(dict.fromkeys(found))


@RULES.rule(
    severity=Severity.WARNING,
    all_nodes=True,
    summary="pattern using \\d, \\w, \\s, \\b, \\p{...} or constructs outside ECMA-262",
    fix="spell the class out: \\d -> [0-9], \\w -> [A-Za-z0-9_], \\p{L} -> the letters you "
        "accept",
)
def dialect_dependent_pattern(node: Node) -> Iterator[Hit]:
    """``\\d`` matches Arabic-Indic and other digits in Python's ``re``, only ASCII digits in
    ECMA-262 and the production validator; ``\\w``, ``\\s``, ``\\b`` and ``\\p{...}`` differ
    likewise, and ``\\A``, ``\\z``, ``(?P<name>...)`` and inline flags are not ECMA-262 at all.
    The production and the reference validator then disagree on the same value.
    """
    for what, text, pointer in patterns(node):
        parts = dialect_dependent_parts(text)
        if parts:
            constructs = ", ".join(p for p, _ in parts)
            fix = "; ".join(f"{p} -> {r}" for p, r in parts)
            yield Hit(f"{what} {text!r} uses {constructs}, which regex engines read differently",
                      pointer=pointer, fix=f"spell it out: {fix}")
