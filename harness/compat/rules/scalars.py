"""``CMP3xx``: strings and numbers — length bounds, numeric bounds (inclusive and exclusive),
``pattern`` (compared as finite automata where the pattern is regular), ``format`` and
``multipleOf``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from harness.compat.diff import Site
from harness.compat.patterns import includes
from harness.compat.registry import DERIVED, RULES, Facts, Finding, Target
from harness.compat.rules.common import (
    BREAKING,
    READER,
    SAFE,
    UNKNOWN,
    WRITER,
    S,
    count_bound_rules,
    or_absent,
    values,
)
from harness.pointer import MISSING

count_bound_rules(__name__, ("CMP301", "CMP302", "CMP303", "CMP304"), "string", "minLength", "maxLength")


def _bound(node: Any, upper: bool) -> tuple[float, bool]:
    """(limit, exclusive) of ``maximum``/``exclusiveMaximum`` (or the minimum pair)."""
    inclusive, exclusive = ("maximum", "exclusiveMaximum") if upper else ("minimum", "exclusiveMinimum")
    best: tuple[float, bool] = (float("inf") if upper else float("-inf"), False)
    if not isinstance(node, dict):
        return best
    for key, is_exclusive in ((inclusive, False), (exclusive, True)):
        value = node.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            candidate = (float(value), is_exclusive)
            tighter = candidate[0] < best[0] or (candidate[0] == best[0] and is_exclusive) if upper else \
                candidate[0] > best[0] or (candidate[0] == best[0] and is_exclusive)
            if tighter:
                best = candidate
    return best


def _range_finding(site: Site, facts: Facts, *, upper: bool, tightened: bool) -> Finding | None:
    o = _bound(facts.node("old", site.path), upper)
    n = _bound(facts.node("new", site.path), upper)
    if o == n:
        return None
    stricter = (n[0] < o[0] or (n[0] == o[0] and n[1])) if upper else (n[0] > o[0] or (n[0] == o[0] and n[1]))
    if stricter != tightened:
        return None
    loose, tight = (o, n) if tightened else (n, o)
    direction = READER if tightened else WRITER
    # The witness lies between the two limits: exactly at the looser one where it is inclusive.
    targets = []
    if loose[0] not in (float("inf"), float("-inf")) and not loose[1]:
        value = int(loose[0]) if loose[0].is_integer() else loose[0]
        targets.append(Target(direction, {"const": value}))
    past = "exclusiveMinimum" if upper else "exclusiveMaximum"
    edge = tight[0]
    if edge not in (float("inf"), float("-inf")):
        conjoin: dict[str, Any] = {past if not tight[1] else ("minimum" if upper else "maximum"):
                                   int(edge) if edge.is_integer() else edge}
        targets.append(Target(direction, {"type": "number", **conjoin}))
    keywords = ("maximum", "exclusiveMaximum") if upper else ("minimum", "exclusiveMinimum")

    def as_keyword(limit: tuple[float, bool]) -> Any:
        """A limit as the keyword that states it (``(absent)``: unbounded)."""
        if limit[0] in (float("inf"), float("-inf")):
            return "(absent)"
        return {keywords[1] if limit[1] else keywords[0]: int(limit[0]) if limit[0].is_integer() else limit[0]}

    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    old_kw = keywords[1] if o[1] else keywords[0]
    new_kw = keywords[1] if n[1] else keywords[0]
    return Finding(as_keyword(o), as_keyword(n), subject=keywords[0], targets=tuple(targets),
                   old_at=(site.path, old_kw) if isinstance(old_node, dict) and old_kw in old_node else None,
                   new_at=(site.path, new_kw) if isinstance(new_node, dict) and new_kw in new_node else None)


@RULES.rule("CMP305", group="keyword", keywords=("maximum", "exclusiveMaximum"), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "integer", "maximum": 1000}, {"$schema": S, "type": "integer", "maximum": 100}))
def maximum_tightened(site: Site, facts: Facts) -> Finding | None:
    """The upper bound (``maximum``/``exclusiveMaximum``) was lowered or added: old values above
    it are rejected."""
    return _range_finding(site, facts, upper=True, tightened=True)


@RULES.rule("CMP306", group="keyword", keywords=("maximum", "exclusiveMaximum"), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "integer", "maximum": 100}, {"$schema": S, "type": "integer", "maximum": 1000}))
def maximum_loosened(site: Site, facts: Facts) -> Finding | None:
    """The upper bound was raised or removed: old readers reject new values above the old bound."""
    return _range_finding(site, facts, upper=True, tightened=False)


@RULES.rule("CMP307", group="keyword", keywords=("minimum", "exclusiveMinimum"), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "integer", "minimum": 0}, {"$schema": S, "type": "integer", "minimum": 1}))
def minimum_tightened(site: Site, facts: Facts) -> Finding | None:
    """The lower bound (``minimum``/``exclusiveMinimum``) was raised or added: old values below
    it are rejected."""
    return _range_finding(site, facts, upper=False, tightened=True)


@RULES.rule("CMP308", group="keyword", keywords=("minimum", "exclusiveMinimum"), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "integer", "minimum": 1}, {"$schema": S, "type": "integer", "exclusiveMinimum": -5}))
def minimum_loosened(site: Site, facts: Facts) -> Finding | None:
    """The lower bound was lowered or removed: old readers reject new values below the old bound."""
    return _range_finding(site, facts, upper=False, tightened=False)


def _pattern_question(site: Site, facts: Facts) -> tuple[Any, Any, bool | None, bool | None]:
    old, new = values(site, facts)
    # reader-safe: every old string matches the new pattern; writer-safe: the reverse
    reader = True if new is MISSING else (False if old is MISSING else includes(old, new))
    writer = True if old is MISSING else (False if new is MISSING else includes(new, old))
    return old, new, reader, writer


def _pattern_targets(old: Any, new: Any) -> tuple[Target, ...]:
    targets = []
    if new is not MISSING:
        targets.append(Target(READER, {"type": "string", "not": {"pattern": new}}))
    if old is not MISSING:
        targets.append(Target(WRITER, {"type": "string", "not": {"pattern": old}}))
    return tuple(targets)


@RULES.rule("CMP309", group="keyword", keywords=("pattern",), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "string", "pattern": "^[a-z]{1,10}$"},
                     {"$schema": S, "type": "string", "pattern": "^[a-z]{1,5}$"}))
def pattern_tightened(site: Site, facts: Facts) -> Finding | None:
    """The pattern accepts fewer strings (added, or the new language is inside the old one):
    old strings outside it are rejected. Unknown when inclusion cannot be decided."""
    old, new, reader, writer = _pattern_question(site, facts)
    if writer is not True or reader is True:
        return None
    return Finding(or_absent(old), or_absent(new), subject="pattern", reader=None if reader is False else UNKNOWN,
                   targets=_pattern_targets(old, new)[:1])


@RULES.rule("CMP310", group="keyword", keywords=("pattern",), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "string", "pattern": "^[a-z]{1,5}$"},
                     {"$schema": S, "type": "string", "pattern": "^[a-z0-9]{1,5}$"}))
def pattern_loosened(site: Site, facts: Facts) -> Finding | None:
    """The pattern accepts more strings (removed, or the old language is inside the new one):
    old readers reject new strings outside the old pattern."""
    old, new, reader, writer = _pattern_question(site, facts)
    if reader is not True or writer is True:
        return None
    return Finding(or_absent(old), or_absent(new), subject="pattern", writer=None if writer is False else UNKNOWN,
                   targets=_pattern_targets(old, new)[1:] if new is not MISSING else _pattern_targets(old, new))


@RULES.rule("CMP311", group="keyword", keywords=("pattern",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string", "pattern": "^run_"}, {"$schema": S, "type": "string", "pattern": "^job_"}))
def pattern_changed(site: Site, facts: Facts) -> Finding | None:
    """The pattern changed and neither language contains the other (or inclusion cannot be
    decided: the verdict is then unknown until a witness proves a break)."""
    old, new, reader, writer = _pattern_question(site, facts)
    if reader is True or writer is True:
        return None
    return Finding(or_absent(old), or_absent(new), subject="pattern",
                   reader=None if reader is False else UNKNOWN, writer=None if writer is False else UNKNOWN,
                   targets=_pattern_targets(old, new))


@RULES.rule("CMP312", group="keyword", keywords=("pattern",), reader=SAFE, writer=SAFE,
            example=({"$schema": S, "type": "string", "pattern": "^[0-9]+$"}, {"$schema": S, "type": "string", "pattern": "^\\d+$"}))
def pattern_rewritten(site: Site, facts: Facts) -> Finding | None:
    """The pattern was rewritten but accepts exactly the same strings."""
    old, new, reader, writer = _pattern_question(site, facts)
    if reader is not True or writer is not True:
        return None
    return Finding(or_absent(old), or_absent(new), subject="pattern")


@RULES.rule("CMP313", group="keyword", keywords=("format",), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "string"}, {"$schema": S, "type": "string", "format": "date-time"}))
def format_added(site: Site, facts: Facts) -> Finding | None:
    """A ``format`` was added (formats assert here): old strings not in the format are rejected."""
    old, new = values(site, facts)
    if old is not MISSING or new is MISSING:
        return None
    return Finding("(absent)", new, subject=str(new), targets=(Target(READER, {"type": "string", "not": {"format": new}}),))


@RULES.rule("CMP314", group="keyword", keywords=("format",), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "string", "format": "date-time"}, {"$schema": S, "type": "string"}))
def format_removed(site: Site, facts: Facts) -> Finding | None:
    """A ``format`` was removed: old readers reject new strings not in the format."""
    old, new = values(site, facts)
    if old is MISSING or new is not MISSING:
        return None
    return Finding(old, "(absent)", subject=str(old), targets=(Target(WRITER, {"type": "string", "not": {"format": old}}),))


@RULES.rule("CMP315", group="keyword", keywords=("format",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string", "format": "date"}, {"$schema": S, "type": "string", "format": "date-time"}))
def format_changed(site: Site, facts: Facts) -> Finding | None:
    """The ``format`` changed: each version rejects strings of the other's format."""
    old, new = values(site, facts)
    if old is MISSING or new is MISSING:
        return None
    return Finding(old, new, subject=f"{old} -> {new}",
                   targets=(Target(READER, {"type": "string", "format": old, "not": {"format": new}}),
                            Target(WRITER, {"type": "string", "format": new, "not": {"format": old}})))


@RULES.rule("CMP316", group="keyword", keywords=("multipleOf",), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "integer", "multipleOf": 2}, {"$schema": S, "type": "integer", "multipleOf": 4}))
def multiple_of_changed(site: Site, facts: Facts) -> Finding | None:
    """``multipleOf`` changed: reader-safe when every old multiple is a new multiple (the new
    factor divides the old one), writer-safe the other way round."""
    old, new = values(site, facts)
    o = Fraction(str(old)) if old is not MISSING else None
    n = Fraction(str(new)) if new is not MISSING else None
    reader = SAFE if n is None or (o is not None and (o / n).denominator == 1) else BREAKING
    writer = SAFE if o is None or (n is not None and (n / o).denominator == 1) else BREAKING
    targets = []
    if reader is BREAKING and n is not None:
        targets.append(Target(READER, {"type": "number", "not": {"multipleOf": new}}))
    if writer is BREAKING and o is not None:
        targets.append(Target(WRITER, {"type": "number", "not": {"multipleOf": old}}))
    return Finding(or_absent(old), or_absent(new), subject="multipleOf", reader=reader, writer=writer,
                   targets=tuple(targets))

