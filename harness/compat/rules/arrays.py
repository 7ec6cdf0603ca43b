"""``CMP4xx``: arrays — item counts, positions past the declared ones closed or opened, a
position held to another schema, ``uniqueItems`` and ``contains``."""

from __future__ import annotations

from harness.compat.diff import Site
from harness.compat.normalise import json_key
from harness.compat.registry import DERIVED, RULES, Facts, Finding, SlotTransition, Target
from harness.compat.rules.common import (
    BREAKING,
    READER,
    SAFE,
    UNKNOWN,
    WRITER,
    S,
    count_bound_rules,
    or_absent,
    unalign,
    values,
)

count_bound_rules(__name__, ("CMP401", "CMP402", "CMP403", "CMP404"), "array", "minItems", "maxItems")


@RULES.rule("CMP405", group="keyword", keywords=("uniqueItems",), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array"}, {"$schema": S, "type": "array", "uniqueItems": True}))
def unique_items_changed(site: Site, facts: Facts) -> Finding | None:
    """``uniqueItems`` was turned on (old arrays with duplicates are rejected) or off (old
    readers reject new arrays with duplicates)."""
    old, new = values(site, facts)
    before, after = old is True, new is True
    if before == after:
        return Finding(or_absent(old), or_absent(new), subject="uniqueItems", reader=SAFE, writer=SAFE)
    direction = READER if after else WRITER
    return Finding(or_absent(old), or_absent(new), subject="uniqueItems",
                   reader=BREAKING if after else SAFE, writer=SAFE if after else BREAKING,
                   targets=(Target(direction, {"type": "array", "minItems": 2, "not": {"uniqueItems": True}}),))


@RULES.rule("CMP406", group="keyword", keywords=("contains", "minContains", "maxContains"), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array"}, {"$schema": S, "type": "array", "contains": {"const": "x"}}))
def contains_changed(site: Site, facts: Facts) -> Finding | None:
    """``contains`` (or its counts) was added, removed or replaced: the verdicts compare the
    array schemas as a whole."""
    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    keep = ("contains", "minContains", "maxContains")
    o = {k: v for k, v in old_node.items() if k in keep} if isinstance(old_node, dict) else {}
    n = {k: v for k, v in new_node.items() if k in keep} if isinstance(new_node, dict) else {}
    o, n = unalign(o), unalign(n)
    o.setdefault("type", "array")
    n.setdefault("type", "array")
    if "contains" not in o and "contains" not in n:
        reader, writer = SAFE, SAFE
    elif "contains" not in o:
        reader, writer = BREAKING, SAFE
    elif "contains" not in n:
        reader, writer = SAFE, BREAKING
    elif json_key(o["contains"]) == json_key(n["contains"]):
        lo = (o.get("minContains", 1), o.get("maxContains", float("inf")))
        hi = (n.get("minContains", 1), n.get("maxContains", float("inf")))
        reader = SAFE if hi[0] <= lo[0] and lo[1] <= hi[1] else BREAKING
        writer = SAFE if lo[0] <= hi[0] and hi[1] <= lo[1] else BREAKING
    else:
        reader = writer = UNKNOWN
    return Finding(o, n, subject=site.keyword, reader=reader, writer=writer,
                   targets=(Target(READER, {"type": "array", "not": n}), Target(WRITER, {"type": "array", "not": o})))


@RULES.rule("CMP407", group="items", reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "array", "prefixItems": [{"type": "string"}]},
                     {"$schema": S, "type": "array", "prefixItems": [{"type": "string"}], "items": False}))
def array_closed(t: SlotTransition, facts: Facts) -> Finding | None:
    """Positions past the declared ones became forbidden (``items``/``unevaluatedItems: false``):
    old documents with more items are rejected."""
    if t.old.state == "forbidden" or t.new.state != "forbidden":
        return None
    index = len((facts.node("new", t.path) or {}).get("prefixItems") or []) if t.slot == "rest" else int(t.slot)
    return Finding(t.old.state, "forbidden", subject=f"items from position {index}",
                   targets=(Target(READER, {"minItems": index + 1}),), new_at=t.new.closer)


@RULES.rule("CMP408", group="items", reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "array", "prefixItems": [{"type": "string"}], "items": False},
                     {"$schema": S, "type": "array", "prefixItems": [{"type": "string"}]}))
def array_opened(t: SlotTransition, facts: Facts) -> Finding | None:
    """Positions that were forbidden are now allowed: old readers reject new, longer arrays."""
    if t.old.state != "forbidden" or t.new.state == "forbidden":
        return None
    index = len((facts.node("old", t.path) or {}).get("prefixItems") or []) if t.slot == "rest" else int(t.slot)
    return Finding("forbidden", t.new.state, subject=f"items from position {index}",
                   writer=t.writer if t.writer is not SAFE else None,
                   targets=(Target(WRITER, {"minItems": index + 1}),), old_at=t.old.closer)


@RULES.rule("CMP409", group="items", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array", "items": {"type": "string"}},
                     {"$schema": S, "type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}}))
def array_item_changed(t: SlotTransition, facts: Facts) -> Finding | None:
    """An array position is held to a different schema (a ``prefixItems`` entry added, removed
    or ``items`` replaced): the verdicts compare the two schemas."""
    index = None if t.slot == "rest" else int(t.slot)
    minimum = {"minItems": (index or 0) + 1} if index is not None else {"minItems": 1}
    return Finding(t.old.state, t.new.state, subject=f"position {t.slot}", reader=t.reader, writer=t.writer,
                   targets=(Target(READER, minimum), Target(WRITER, minimum)))

