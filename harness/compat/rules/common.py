"""What the rule modules share: verdict shorthands, reading a site's values, and the bound
findings of the count keywords (``maxLength``, ``minItems``, ``maxProperties``, ...)."""

from __future__ import annotations

import re
from typing import Any

from harness.compat.diff import Site
from harness.compat.model import Direction, Verdict
from harness.compat.normalise import REF_TARGET
from harness.compat.registry import RULES, Facts, Finding, Target
from harness.pointer import MISSING
from harness.schemas import keywords as kw
from harness.schemas.dialects import DRAFT_2020_12

SAFE, BREAKING, UNKNOWN = Verdict.SAFE, Verdict.BREAKING, Verdict.UNKNOWN
READER, WRITER = Direction.READER, Direction.WRITER
#: The dialect of the rules' example schemas.
S = DRAFT_2020_12


def obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    """An example object schema."""
    return {"$schema": S, "type": "object", "properties": properties, **more}


def values(site: Site, facts: Facts) -> tuple[Any, Any]:
    """The keyword's value (or its member's) in each version; MISSING where absent."""
    found = []
    for side in ("old", "new"):
        node = facts.node(side, site.path)
        value = node.get(site.keyword, MISSING) if isinstance(node, dict) else MISSING
        if site.member is not None and isinstance(value, dict):
            value = value.get(site.member, MISSING)
        found.append(value)
    return found[0], found[1]


def or_absent(value: Any) -> Any:
    """A keyword's value as a finding records it: ``(absent)`` where the keyword is missing."""
    return "(absent)" if value is MISSING else value


def unalign(node: Any) -> Any:
    """An aligned subtree back in schema form (branch maps become lists again)."""
    if isinstance(node, list):
        return [unalign(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in kw.BRANCHES and isinstance(value, dict):
            out[key] = [unalign(v) for v in value.values()]
        elif key == REF_TARGET:
            continue
        else:
            out[key] = unalign(value)
    return out


def _count(value: Any, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def bound_finding(site: Site, facts: Facts, *, upper: bool, tightened: bool,
                  low_key: str, high_key: str, kind: str) -> Finding | None:
    """Shared by the count keywords (maxLength, minItems, ...): did the bound move the
    rule's way? Witnesses sit just past the new bound (and at the old one)."""
    old, new = values(site, facts)
    inf = float("inf")
    o = _count(old, inf if upper else 0)
    n = _count(new, inf if upper else 0)
    if o == n or ((n < o) == upper) != tightened:
        return None
    # The looser bound is the one documents may sit at; witnesses sit exactly there first,
    # then anywhere between the two bounds.
    loose, tight = (o, n) if tightened else (n, o)
    direction = READER if tightened else WRITER
    targets = []
    if (loose not in (inf, 0) or not upper) and loose != inf:
        targets.append(Target(direction, {"type": kind, low_key: int(loose), high_key: int(loose)}))
    between = ({low_key: int(tight) + 1} | ({high_key: int(loose)} if loose != inf else {})) if upper \
        else {low_key: int(loose), high_key: int(tight) - 1}
    targets.append(Target(direction, {"type": kind, **between}))
    return Finding(or_absent(old), or_absent(new), subject=site.keyword, targets=tuple(targets))


def bound_example(kind: str, keyword: str, before: int, after: int) -> tuple[Any, Any]:
    return {"$schema": S, "type": kind, keyword: before}, {"$schema": S, "type": kind, keyword: after}


#: The four rules of a pair of count keywords, in their order: (upper, tightened, the bound's
#: move, who rejects what, the example's bound before and after).
_COUNT_RULES = (
    (True, True, "the maximum lowered", "old documents past the new bound are rejected", (5, 3)),
    (True, False, "the maximum raised or removed", "new documents past the old bound are rejected by old readers",
     (3, 5)),
    (False, True, "the minimum raised", "old documents past the new bound are rejected", (1, 3)),
    (False, False, "the minimum lowered or removed", "new documents past the old bound are rejected by old readers",
     (3, 1)),
)


def count_bound_rules(module: str, ids: tuple[str, str, str, str], kind: str, low_key: str, high_key: str) -> None:
    """Declare, as rules of ``module``, the four rules of a pair of count keywords of ``kind``
    (``minLength`` and ``maxLength`` of strings, ...), as ``ids`` name them: the maximum tightened
    and loosened, the minimum tightened and loosened (``max_length_tightened``, ...). One logic,
    :func:`bound_finding`, for all twelve."""
    for rule_id, (upper, tightened, move, effect, (before, after)) in zip(ids, _COUNT_RULES, strict=True):
        keyword = high_key if upper else low_key

        def detect(site: Site, facts: Facts, upper: bool = upper, tightened: bool = tightened) -> Finding | None:
            return bound_finding(site, facts, upper=upper, tightened=tightened, low_key=low_key, high_key=high_key,
                                 kind=kind)

        change = "tightened" if tightened else "loosened"
        snake = re.sub("([A-Z])", r"_\1", keyword).lower()
        detect.__name__ = detect.__qualname__ = f"{snake}_{change}"
        detect.__module__ = module
        detect.__doc__ = f"``{keyword}`` {change} ({move}): {effect}."
        RULES.rule(rule_id, group="keyword", keywords=(keyword,), reader=BREAKING if tightened else SAFE,
                   writer=SAFE if tightened else BREAKING, example=bound_example(kind, keyword, before, after))(detect)
