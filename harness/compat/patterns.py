"""Regular-expression inclusion for ``pattern``: is every string one pattern accepts accepted by
the other?

JSON Schema patterns are ECMA 262 regular expressions with *search* semantics (``"ab"``
accepts ``"xaby"`` unless anchored). Patterns in the regular subset — literals, classes,
``\\d``/``\\w``/``\\s``, groups, alternation, quantifiers, a leading ``^`` and a trailing ``$``
— are turned into finite automata with greenery and compared exactly. ECMA details greenery
reads differently are rewritten first (``.`` does not match line terminators; ``\\s`` is
ECMA's Unicode whitespace; ``\\uXXXX`` escapes). Anything else (look-around, back-references,
``\\b``, ``\\p{...}``, inner anchors, an alternation beside an anchor) is *undecided*: the
caller must treat the change as ``unknown``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_LINE_TERMINATORS = "\n\r\u2028\u2029"
_ECMA_SPACE = "\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_UNSUPPORTED = re.compile(r"\\[bBpPkcu]|\(\?[=!<]|\\[1-9]")


def _escape_char(char: str) -> str:
    return "\\" + char if char in "\\^$.|?*+()[]{}-/" else char


def _translate(pattern: str) -> str | None:
    """The greenery spelling of an ECMA pattern, as a *full-match* expression; None if the
    pattern is outside the subset modelled exactly."""
    pattern = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: _escape_char(chr(int(m.group(1), 16))), pattern)
    if _UNSUPPORTED.search(pattern):
        return None
    anchored_start = pattern.startswith("^")
    body = pattern[1:] if anchored_start else pattern
    anchored_end = body.endswith("$") and not body.endswith("\\$")
    body = body[:-1] if anchored_end else body
    out: list[str] = []
    depth, in_class, i = 0, False, 0
    top_level_alternation = False
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            escape = body[i + 1]
            if escape == "s":
                out.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
            elif escape == "S":
                if in_class:
                    return None
                out.append(f"[^{_ECMA_SPACE}]")
            else:
                out.append(body[i:i + 2])
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
                out.append(char)
            elif char == "-" and (body[i + 1:i + 2] == "]" or out[-1] in ("[", "^")):
                out.append("\\-")  # a literal hyphen at either end of a class
            else:
                out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
            if body[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
        elif char in "^$":
            return None  # an anchor inside the pattern
        elif char == ".":
            out.append(f"[^{_LINE_TERMINATORS}]")
        else:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            elif char == "|" and depth == 0:
                top_level_alternation = True
            out.append(char)
        i += 1
    if in_class or depth != 0:
        return None
    core = "".join(out)
    if top_level_alternation:
        if anchored_start or anchored_end:
            return None  # "^a|b$" anchors each alternative differently
        core = f"({core})"
    any_text = "(.|\n)*"  # greenery's "." is any character; search semantics need everything
    return ("" if anchored_start else any_text) + core + ("" if anchored_end else any_text)


_COUNTED = re.compile(r"(?<!\\)\{(\d+)(?:,(\d*))?\}")
#: greenery builds counted repetition by copying; past this total it takes seconds, so the
#: question is left undecided (a witness search still answers it).
MAX_REPETITION = 24


def _quantifiers(pattern: str) -> list[tuple[int, int | None]]:
    found = []
    for match in _COUNTED.finditer(pattern):
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(2)) if match.group(2) else None)
        found.append((low, high))
    return found


def _same_but_bounds(smaller: str, larger: str) -> bool | None:
    """True when the patterns differ only in counted-repetition bounds, each range of
    ``smaller`` inside the one of ``larger`` (inclusion follows); None otherwise."""
    if _COUNTED.sub("{}", smaller) != _COUNTED.sub("{}", larger):
        return None
    pairs = zip(_quantifiers(smaller), _quantifiers(larger), strict=True)
    inside = all(lo_b <= lo_a and (hi_b is None or (hi_a is not None and hi_a <= hi_b))
                 for (lo_a, hi_a), (lo_b, hi_b) in pairs)
    return True if inside else None


@functools.lru_cache(maxsize=256)
def _fsm(pattern: str) -> Any:
    from greenery import parse

    translated = _translate(pattern)
    if translated is None:
        return None
    if sum(high if high is not None else low for low, high in _quantifiers(translated)) > MAX_REPETITION:
        return None
    try:
        return parse(translated).to_fsm()
    except Exception:
        return None


def includes(smaller: str, larger: str) -> bool | None:
    """True if every string ``smaller`` accepts is accepted by ``larger``; None if undecided."""
    if _same_but_bounds(smaller, larger):
        return True
    a, b = _fsm(smaller), _fsm(larger)
    if a is None or b is None:
        return None
    try:
        return bool(a.issubset(b))
    except Exception:
        return None


def examples(pattern: str, limit: int = 12) -> list[str]:
    """Up to ``limit`` short strings ``pattern`` accepts (empty when undecided).

    A breadth-first walk over the automaton's *states* (not its strings, which grow
    exponentially), one character per transition."""
    fsm = _fsm(pattern)
    if fsm is None:
        return []
    found: list[str] = []
    queue: list[tuple[Any, str]] = [(fsm.initial, "")]
    visits: dict[Any, int] = {}
    live = {state for state in fsm.states if fsm.islive(state)}
    while queue and len(found) < limit:
        state, text = queue.pop(0)
        if visits.get(state, 0) >= 3 or len(text) > 256:
            continue
        visits[state] = visits.get(state, 0) + 1
        if state in fsm.finals:
            found.append(text)
        for charclass, following in sorted(fsm.map.get(state, {}).items(), key=lambda kv: str(kv[0])):
            if following in live:
                char = _pick(charclass)
                if char is not None:
                    queue.append((following, text + char))
    return found


def finite(pattern: str, limit: int = 64) -> frozenset[str] | None:
    """Every string ``pattern`` accepts, when they are at most ``limit`` (``^(foo|bar)$``);
    None when there are more, infinitely many, or greenery cannot read the pattern."""
    fsm = _fsm(pattern)
    if fsm is None:
        return None
    try:
        if fsm.cardinality() > limit:
            return None
        found = list(fsm.strings([]))
    except Exception:  # OverflowError: infinitely many
        return None
    return frozenset(found) if all(isinstance(s, str) for s in found) else None


def _pick(charclass: Any) -> str | None:
    """One character of a greenery character class (a letter or digit when there is one)."""
    negated = bool(getattr(charclass, "negated", False))
    ranges = [(lo, hi) for lo, hi in getattr(charclass, "ord_ranges", [])]

    def inside(c: int) -> bool:
        return any(lo <= c <= hi for lo, hi in ranges)

    for preferred in ("a", "x", "0", "A", "_", "-"):
        code = ord(preferred)
        if inside(code) != negated:
            return preferred
    if not negated:
        return chr(ranges[0][0]) if ranges else None
    return next((chr(c) for c in range(0x21, 0x3000) if not inside(c)), None)
