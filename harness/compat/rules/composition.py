"""``CMP5xx``: composition, conditions and references — ``oneOf``/``anyOf`` branches and ``allOf``
members added or removed, in-place applicators (``not``, ``then``/``else``,
``dependentSchemas``, a ``$ref`` beside other keywords) added, removed or replaced, ``if``
conditions, and references that now name another definition."""

from __future__ import annotations

from typing import Any

from harness.compat.diff import Site
from harness.compat.normalise import REF_TARGET
from harness.compat.predicates import all_disjoint
from harness.compat.registry import DERIVED, RULES, Facts, Finding, Target
from harness.compat.rules.common import (
    BREAKING,
    READER,
    SAFE,
    UNKNOWN,
    WRITER,
    S,
    shown,
    unalign,
    values,
)
from harness.pointer import MISSING
from harness.schemas import keywords as kw


def _member_sides(site: Site) -> tuple[str | None, str | None]:
    if site.member is None or ":" not in site.member:
        return None, None
    old, new = site.member.split(":", 1)
    return (None if old == "-" else old), (None if new == "-" else new)


def _branch_finding(site: Site, facts: Facts, keyword: str, added: bool) -> Finding | None:
    """A member of ``keyword`` added (or removed) at the site, or None."""
    old_index, new_index = _member_sides(site)
    if site.keyword != keyword or site.member is None:
        return None
    if added and not (old_index is None and new_index is not None):
        return None
    if not added and not (old_index is not None and new_index is None):
        return None
    branch_path = (*site.path, keyword, site.member)
    value = facts.node("new" if added else "old", branch_path)
    reader, writer = (SAFE, BREAKING) if added else (BREAKING, SAFE)
    if keyword == "allOf":
        reader, writer = writer, reader
    note = ""
    if keyword == "oneOf":
        node = facts.node("new" if added else "old", site.path)
        if not all_disjoint(list((node.get("oneOf") or {}).values())):
            note = "the oneOf branches are not provably disjoint: a document matching two is rejected"
            reader = UNKNOWN if reader is SAFE else reader
            writer = UNKNOWN if writer is SAFE else writer
    direction = WRITER if (added != (keyword == "allOf")) else READER
    target = Target(direction, {}, branch_path) if keyword != "allOf" else Target(direction, {"not": value})
    return Finding("(absent)" if added else value, value if added else "(absent)",
                   subject=f"{keyword}/{new_index if added else old_index}",
                   reader=reader, writer=writer, note=note, targets=(target,))


_KIND_A = {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}
_KIND_B = {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}


def _branches_example(keyword: str, added: bool) -> tuple[Any, Any]:
    small = {"$schema": S, keyword: [_KIND_A]}
    large = {"$schema": S, keyword: [_KIND_A, {"required": ["id"]} if keyword == "allOf" else _KIND_B]}
    return (small, large) if added else (large, small)


@RULES.rule("CMP501", group="keyword", keywords=("oneOf",), reader=SAFE, writer=BREAKING,
            example=_branches_example("oneOf", added=True))
def one_of_branch_added(site: Site, facts: Facts) -> Finding | None:
    """A ``oneOf`` branch was added: old readers reject new documents of that shape (and if
    branches may overlap, a document matching two is rejected)."""
    return _branch_finding(site, facts, "oneOf", added=True)


@RULES.rule("CMP502", group="keyword", keywords=("oneOf",), reader=BREAKING, writer=SAFE,
            example=_branches_example("oneOf", added=False))
def one_of_branch_removed(site: Site, facts: Facts) -> Finding | None:
    """A ``oneOf`` branch was removed: old documents of that shape are rejected."""
    return _branch_finding(site, facts, "oneOf", added=False)


@RULES.rule("CMP503", group="keyword", keywords=("anyOf",), reader=SAFE, writer=BREAKING,
            example=_branches_example("anyOf", added=True))
def any_of_branch_added(site: Site, facts: Facts) -> Finding | None:
    """An ``anyOf`` branch was added: old readers reject new documents of that shape."""
    return _branch_finding(site, facts, "anyOf", added=True)


@RULES.rule("CMP504", group="keyword", keywords=("anyOf",), reader=BREAKING, writer=SAFE,
            example=_branches_example("anyOf", added=False))
def any_of_branch_removed(site: Site, facts: Facts) -> Finding | None:
    """An ``anyOf`` branch was removed: old documents of that shape are rejected."""
    return _branch_finding(site, facts, "anyOf", added=False)


@RULES.rule("CMP505", group="keyword", keywords=("allOf",), reader=BREAKING, writer=SAFE,
            example=_branches_example("allOf", added=True))
def all_of_member_added(site: Site, facts: Facts) -> Finding | None:
    """An ``allOf`` member was added: old documents that fail it are rejected."""
    return _branch_finding(site, facts, "allOf", added=True)


@RULES.rule("CMP506", group="keyword", keywords=("allOf",), reader=SAFE, writer=BREAKING,
            example=_branches_example("allOf", added=False))
def all_of_member_removed(site: Site, facts: Facts) -> Finding | None:
    """An ``allOf`` member was removed: old readers reject new documents that fail it."""
    return _branch_finding(site, facts, "allOf", added=False)


@RULES.rule("CMP507", group="keyword", keywords=("oneOf", "anyOf", "allOf", "$ref", "not", "then", "else", "dependentSchemas"),
            reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "object"}, {"$schema": S, "type": "object", "not": {"required": ["debug"]}}))
def applicator_changed(site: Site, facts: Facts) -> Finding | None:
    """An in-place applicator as a whole (``not``, ``then``/``else``, a ``dependentSchemas`` entry,
    a ``$ref`` beside other keywords, a whole ``oneOf``/``anyOf``/``allOf``) was added, removed or
    replaced: the verdicts compare the node before and after."""
    if site.member is not None and site.keyword in kw.BRANCHES:
        return None
    old = facts.node("old", site.path)
    new = facts.node("new", site.path)
    keep = (site.keyword,) if site.keyword not in ("then", "else") else ("if", "then", "else")
    o = {k: v for k, v in old.items() if k in keep} if isinstance(old, dict) else {}
    n = {k: v for k, v in new.items() if k in keep} if isinstance(new, dict) else {}
    reader, writer = facts.nested(unalign(o), unalign(n))
    return Finding(shown(o.get(site.keyword, MISSING)), shown(n.get(site.keyword, MISSING)),
                   subject=site.keyword if site.member is None else f"{site.keyword}/{site.member}",
                   reader=reader, writer=writer,
                   targets=(Target(READER, {"not": unalign(n)} if n else {}),
                            Target(WRITER, {"not": unalign(o)} if o else {})))



@RULES.rule("CMP508", group="keyword", keywords=("if",), reader=UNKNOWN, writer=UNKNOWN,
            example=({"$schema": S, "if": {"required": ["a"]}, "then": {"required": ["b"]}},
                     {"$schema": S, "then": {"required": ["b"]}}))
def condition_changed(site: Site, facts: Facts) -> Finding | None:
    """An ``if`` condition was added, removed or replaced while ``then``/``else`` exist: not
    monotone, unknown until a witness decides."""
    old, new = values(site, facts)
    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    if not any(isinstance(n, dict) and ("then" in n or "else" in n) for n in (old_node, new_node)):
        return Finding(shown(old), shown(new), subject="if", reader=SAFE, writer=SAFE,
                       note="an if without then/else validates nothing")
    return Finding(shown(old), shown(new), subject="if", reader=UNKNOWN, writer=UNKNOWN,
                   targets=(Target(READER, {}), Target(WRITER, {})))


@RULES.rule("CMP509", group="keyword", keywords=(REF_TARGET,), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "$defs": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}},
                      "properties": {"x": {"$ref": "#/$defs/a"}}},
                     {"$schema": S, "$defs": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}},
                      "properties": {"x": {"$ref": "#/$defs/b"}}}))
def ref_target_changed(site: Site, facts: Facts) -> Finding | None:
    """A ``$ref`` now names another definition (or a subschema became, or stopped being, a
    reference): the verdicts compare the two expanded targets (their differences are also listed
    on their own)."""
    old, new = values(site, facts)
    reader, writer = facts.nested(unalign(facts.node("old", site.path)), unalign(facts.node("new", site.path)))
    note = "same content under another name" if reader is writer is SAFE else ""
    # Any rejection inside the referenced schema is this change's (location: the node itself).
    return Finding(shown(old), shown(new), subject="$ref", reader=reader, writer=writer, note=note,
                   targets=(Target(READER, {}), Target(WRITER, {})),
                   old_at=(site.path, ""), new_at=(site.path, ""))
