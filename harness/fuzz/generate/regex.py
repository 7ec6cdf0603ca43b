"""Strings of an exact length that match a ``pattern``: the boundary values a random search misses.

``st.from_regex("^CR-[0-9]{1,10}$")`` rarely draws the longest match, and filtering its output to
one length discards almost everything. :func:`exact_length` reads the pattern's structure
(Python's own regex parser, as hypothesis does) and draws only strings of the requested length:
for each part of the pattern it knows the set of lengths it can produce (a bit mask), so every
choice — which branch, how many repetitions, how long each piece — keeps the total reachable.

JSON Schema patterns are ECMA 262 with *search* semantics: an unanchored side gets free text.
Only the regular subset is modelled (literals, classes, ``\\d``/``\\w``/``\\s``, groups,
alternation, quantifiers, ``^`` first and ``$`` last); anything else (look-around,
back-references, inline flags, inner anchors) returns None. ``\\d`` and ``\\w`` draw ASCII, the
intersection of the ECMA and Python readings. Callers re-validate with the production validator.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st

from harness.fuzz.generate.shared import pick
from harness.internals import regex_parser

sre, sre_parse = regex_parser()

_T = TypeVar("_T")

#: Longest string this module builds; longer limits are not worth a bit mask per part.
MAX_LENGTH = 4096
_LINE_TERMINATORS = "\n\r\u2028\u2029"
_SPACE = " \t\n\r\f\v"
_WORD = ((ord("0"), ord("9")), (ord("A"), ord("Z")), (ord("_"), ord("_")), (ord("a"), ord("z")))
_CATEGORIES: dict[Any, tuple[bool, tuple[tuple[int, int], ...]]] = {
    sre.CATEGORY_DIGIT: (False, ((ord("0"), ord("9")),)),
    sre.CATEGORY_NOT_DIGIT: (True, ((ord("0"), ord("9")),)),
    sre.CATEGORY_WORD: (False, _WORD),
    sre.CATEGORY_NOT_WORD: (True, _WORD),
    sre.CATEGORY_SPACE: (False, tuple((ord(c), ord(c)) for c in _SPACE)),
    sre.CATEGORY_NOT_SPACE: (True, tuple((ord(c), ord(c)) for c in _SPACE)),
}


class _Unsupported(Exception):
    pass


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class _Chars:
    """One character from ``ranges`` (or, negated, from anything outside them)."""

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class _Seq:
    parts: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Rep:
    node: _Node
    low: int
    high: int | None


_Node = _Chars | _Seq | _Alt | _Rep
_ANY = _Chars(tuple((ord(c), ord(c)) for c in _LINE_TERMINATORS), negated=True)


def _class(items: list[tuple[Any, Any]]) -> _Chars:
    ranges: list[tuple[int, int]] = []
    negated = False
    for op, arg in items:
        if op is sre.NEGATE:
            negated = True
        elif op is sre.LITERAL:
            ranges.append((arg, arg))
        elif op is sre.RANGE:
            ranges.append((arg[0], arg[1]))
        elif op is sre.CATEGORY and arg in _CATEGORIES:
            inner_negated, inner = _CATEGORIES[arg]
            if inner_negated:
                raise _Unsupported("a negated category inside a class")
            ranges.extend(inner)
        else:
            raise _Unsupported(str(op))
    return _Chars(tuple(ranges), negated)


def _convert(parsed: Any) -> _Node:
    parts: list[_Node] = []
    for op, arg in parsed:
        if op is sre.LITERAL:
            parts.append(_Chars(((arg, arg),)))
        elif op is sre.NOT_LITERAL:
            parts.append(_Chars(((arg, arg),), negated=True))
        elif op is sre.ANY:
            parts.append(_ANY)
        elif op is sre.IN:
            parts.append(_class(arg))
        elif op is sre.CATEGORY and arg in _CATEGORIES:
            negated, ranges = _CATEGORIES[arg]
            parts.append(_Chars(ranges, negated))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, sub = arg
            parts.append(_Rep(_convert(sub), low, None if high is sre.MAXREPEAT else high))
        elif op is sre.SUBPATTERN:
            _group, add_flags, del_flags, sub = arg
            if add_flags or del_flags:
                raise _Unsupported("inline flags")
            parts.append(_convert(sub))
        elif op is sre.BRANCH:
            parts.append(_Alt(tuple(_convert(option) for option in arg[1])))
        else:
            raise _Unsupported(str(op))
    return parts[0] if len(parts) == 1 else _Seq(tuple(parts))


@functools.lru_cache(maxsize=512)
def _model(pattern: str) -> _Node | None:
    """The pattern as a full-match model (free text on unanchored sides), or None."""
    try:
        parsed = list(sre_parse.parse(pattern))
    except (re.error, RecursionError, OverflowError):
        return None
    anchored_start = bool(parsed) and parsed[0] == (sre.AT, sre.AT_BEGINNING)
    anchored_end = bool(parsed) and parsed[-1] == (sre.AT, sre.AT_END)
    body = parsed[int(anchored_start): len(parsed) - int(anchored_end)]
    try:
        core = _convert(body) if body else _Seq(())
    except _Unsupported:
        return None
    free = _Rep(_ANY, 0, None)
    parts = ([] if anchored_start else [free]) + [core] + ([] if anchored_end else [free])
    return _Seq(tuple(parts))


# --------------------------------------------------------------------------- lengths


def _add(a: int, b: int, mask: int) -> int:
    """Every sum of a length in ``a`` and one in ``b`` (bit sets), up to the mask."""
    out, shift = 0, 0
    while a:
        if a & 1:
            out |= b << shift
        a >>= 1
        shift += 1
    return out & mask


class _Lengths:
    """The lengths each node can produce, up to a limit, memoised per node."""

    def __init__(self, limit: int) -> None:
        self.mask = (1 << (limit + 1)) - 1
        self.limit = limit
        self._memo: dict[int, int] = {}
        self._powers: dict[int, list[int]] = {}

    def of(self, node: _Node) -> int:
        key = id(node)
        if key not in self._memo:
            self._memo[key] = self._compute(node)
        return self._memo[key]

    def _compute(self, node: _Node) -> int:
        if isinstance(node, _Chars):
            return 0b10
        if isinstance(node, _Seq):
            total = 1
            for part in node.parts:
                total = _add(total, self.of(part), self.mask)
            return total
        if isinstance(node, _Alt):
            out = 0
            for option in node.options:
                out |= self.of(option)
            return out
        out = 0
        for count, lengths in enumerate(self.powers(node)):
            if count >= node.low:
                out |= lengths
        return out

    def powers(self, rep: _Rep) -> list[int]:
        """Lengths of exactly k repetitions, for each k that can still fit the limit."""
        key = id(rep)
        if key not in self._powers:
            single = self.of(rep.node)
            found = [1]
            high = rep.high if rep.high is not None else self.limit + max(rep.low, 1)
            while len(found) <= high and len(found) <= self.limit + rep.low + 1:
                following = _add(found[-1], single, self.mask)
                if following == 0 or (following == found[-1] and len(found) > rep.low):
                    break
                found.append(following)
            self._powers[key] = found
        return self._powers[key]


def _bits(value: int) -> list[int]:
    return [i for i in range(value.bit_length()) if value >> i & 1]


# --------------------------------------------------------------------------- drawing


@functools.lru_cache(maxsize=1024)
def _chars(chars: _Chars) -> st.SearchStrategy[str]:
    """A strategy of one character of the class (cached: classes repeat in a pattern)."""
    if not chars.negated:
        size = sum(high - low + 1 for low, high in chars.ranges)
        if size <= 256:
            alphabet = [chr(c) for low, high in chars.ranges for c in range(low, high + 1)
                        if not 0xD800 <= c <= 0xDFFF]
            return st.sampled_from(alphabet)
        return st.one_of([st.characters(min_codepoint=low, max_codepoint=high, codec="utf-8")
                          for low, high in chars.ranges])

    def outside(c: str) -> bool:
        return not any(low <= ord(c) <= high for low, high in chars.ranges)

    return st.characters(codec="utf-8").filter(outside)


def _char(draw: Callable[[st.SearchStrategy[Any]], Any], chars: _Chars) -> str:
    return str(draw(_chars(chars)))


@functools.lru_cache(maxsize=1024)
def _run_of(chars: _Chars, count: int) -> st.SearchStrategy[str] | None:
    """``count`` characters of a class as one string draw (hypothesis draws a string with an
    explicit alphabet in one choice, not one per character); None when the class is not a
    short explicit alphabet."""
    if chars.negated:
        if sum(high - low + 1 for low, high in chars.ranges) > 256:
            return None
        excluded = "".join(chr(c) for low, high in chars.ranges for c in range(low, high + 1))
        alphabet: Any = st.characters(codec="utf-8", exclude_characters=excluded)
    else:
        if sum(high - low + 1 for low, high in chars.ranges) > 256:
            return None
        alphabet = "".join(chr(c) for low, high in chars.ranges for c in range(low, high + 1)
                           if not 0xD800 <= c <= 0xDFFF)
        if not alphabet:
            return None
    return st.text(alphabet, min_size=count, max_size=count)


def _one(draw: Callable[[st.SearchStrategy[Any]], Any], items: list[_T]) -> _T:
    """One of ``items`` (shrinking to the first), from a strategy kept per size: a strategy made
    at every draw is validated at every draw."""
    return items[draw(pick(len(items)))] if len(items) > 1 else items[0]


def _text(draw: Callable[[st.SearchStrategy[Any]], Any], node: _Node, length: int, lengths: _Lengths) -> str:
    if isinstance(node, _Chars):
        return _char(draw, node)
    if isinstance(node, _Alt):
        options = [o for o in node.options if lengths.of(o) >> length & 1]
        return _text(draw, _one(draw, options), length, lengths)
    if isinstance(node, _Seq):
        parts = node.parts
        suffix = [1] * (len(parts) + 1)
        for i in range(len(parts) - 1, -1, -1):
            suffix[i] = _add(lengths.of(parts[i]), suffix[i + 1], lengths.mask)
        out = []
        for i, part in enumerate(parts):
            choices = [n for n in _bits(lengths.of(part)) if n <= length and suffix[i + 1] >> (length - n) & 1]
            size = _one(draw, choices)
            out.append(_text(draw, part, size, lengths))
            length -= size
        return "".join(out)
    if isinstance(node.node, _Chars):  # a run of one class: exactly ``length`` characters
        run = _run_of(node.node, length)
        if run is not None:
            return str(draw(run))
    powers = lengths.powers(node)
    counts = [k for k in range(node.low, len(powers)) if powers[k] >> length & 1]
    count = _one(draw, counts)
    single = lengths.of(node.node)
    out = []
    for remaining in range(count - 1, -1, -1):
        choices = [n for n in _bits(single) if n <= length and powers[remaining] >> (length - n) & 1]
        size = _one(draw, choices)
        out.append(_text(draw, node.node, size, lengths))
        length -= size
    return "".join(out)


#: Patterned strings without a ``maxLength`` are drawn at most this much longer than their
#: ``minLength`` (hypothesis' own regex strategy keeps them short too).
FREE_LENGTH = 32


@functools.lru_cache(maxsize=512)
def matching(pattern: str, min_length: int = 0, max_length: int | None = None) -> st.SearchStrategy[str] | None:
    """Strings ``pattern`` matches, ``min_length`` to ``max_length`` code points long: a length
    is drawn among those the pattern can produce (short ones first, so a failure shrinks to a
    short string), then a string of exactly that length (:func:`exact_length`). None when the
    pattern is outside the modelled subset or no length fits.

    hypothesis-jsonschema draws a patterned string with ``st.from_regex`` one character per
    choice and then filters it by length; this draws a run of one class in one choice and never
    misses the length bounds."""
    limit = min(max_length if max_length is not None else min_length + FREE_LENGTH, MAX_LENGTH)
    model = _model(pattern)
    if model is None or limit < min_length:
        return None
    reachable = [n for n in _bits(_Lengths(limit).of(model)) if n >= min_length]
    if not reachable:
        return None
    sizes = st.sampled_from(reachable)
    if len(reachable) > 8:  # short lengths more often, every length still reachable
        sizes = st.sampled_from(reachable[:8]) | sizes
    # Each length's strategy is built on its first draw (and kept): the model reaches it.
    return sizes.flatmap(lambda n: _exactly(pattern, n))


def _exactly(pattern: str, length: int) -> st.SearchStrategy[str]:
    strategy = exact_length(pattern, length)
    return st.nothing() if strategy is None else strategy


@functools.lru_cache(maxsize=512)
def exact_length(pattern: str | None, length: int) -> st.SearchStrategy[str] | None:
    """Strings of exactly ``length`` code points that ``pattern`` matches (any string when the
    pattern is None); None when the pattern is outside the modelled subset, the length is
    unreachable, or longer than :data:`MAX_LENGTH`."""
    if length < 0 or length > MAX_LENGTH:
        return None
    if pattern is None:
        return st.text(st.characters(codec="utf-8"), min_size=length, max_size=length)
    model = _model(pattern)
    if model is None:
        return None
    lengths = _Lengths(length)
    if not lengths.of(model) >> length & 1:
        return None

    return _draw_text(model, length, lengths)


@st.composite
def _draw_text(draw: Callable[[st.SearchStrategy[Any]], Any], model: _Node, length: int, lengths: _Lengths) -> str:
    # Decorated once, here: ``st.composite`` reads the function's signature (and, in a closure
    # made per pattern and length, did so for every new length a run reached).
    return _text(draw, model, length, lengths)
