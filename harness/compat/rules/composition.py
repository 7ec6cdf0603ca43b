"""``CMP5xx``: composition, conditions and references — ``oneOf``/``anyOf`` branches and ``allOf``
members added or removed, in-place applicators (``not``, ``then``/``else``,
``dependentSchemas``, a ``$ref`` beside other keywords) added, removed or replaced, ``if``
conditions, and references that now name another definition."""

from __future__ import annotations

from typing import Any

from harness.compat.diff import Site
from harness.compat.normalise import REF_TARGET, json_key
from harness.compat.predicates import disjoint
from harness.compat.registry import DERIVED, RULES, Facts, Finding, NodeChange, Target
from harness.compat.rules.common import (
    BREAKING,
    READER,
    SAFE,
    UNKNOWN,
    WRITER,
    S,
    or_absent,
    unalign,
    values,
)
from harness.pointer import MISSING
from harness.schemas import keywords as kw
from harness.schemas.dialects import UNEVALUATED


def _member_sides(site: Site) -> tuple[str | None, str | None]:
    if site.member is None or ":" not in site.member:
        return None, None
    old, new = site.member.split(":", 1)
    return (None if old == "-" else old), (None if new == "-" else new)


def _branch_finding(site: Site, facts: Facts, keyword: str, added: bool) -> Finding | None:
    """A member of ``keyword`` added (or removed) at the site, or None.

    An ``allOf`` member is a conjunct: adding one rejects old documents unless the old node
    already implies it. A ``anyOf`` branch is a disjunct: adding one lets new documents through
    unless an old branch already holds them. A ``oneOf`` branch also changes which documents
    match exactly one branch: a branch added keeps old documents only when it shares none with
    an old branch (and a branch removed keeps new documents only when it shares none with a new
    one)."""
    old_index, new_index = _member_sides(site)
    if site.keyword != keyword or site.member is None:
        return None
    if added and not (old_index is None and new_index is not None):
        return None
    if not added and not (old_index is not None and new_index is None):
        return None
    branch_path = (*site.path, keyword, site.member)
    side, other = ("new", "old") if added else ("old", "new")
    value = facts.node(side, branch_path)
    member = unalign(value)
    other_node = facts.node(other, site.path)
    others = [unalign(b) for b in (other_node.get(keyword) or {}).values()] if isinstance(other_node, dict) else []
    # The verdict of the direction whose documents come from the side without the member.
    note = ""
    if keyword == "allOf":
        kept = facts.includes(unalign(other_node), member)
        spared = SAFE if kept is SAFE else BREAKING
    elif keyword == "anyOf":
        spared = SAFE if any(facts.includes(member, b) is SAFE for b in others) else BREAKING
    else:
        spared = BREAKING
    # The direction whose documents come from the side without the member: oneOf exclusivity.
    kept_out = SAFE
    if keyword == "oneOf" and not all(disjoint(b, member) for b in others):
        kept_out = UNKNOWN
        note = ("the oneOf branches are not provably disjoint: a document matching two is rejected")
    if keyword == "allOf":
        reader, writer = (spared, SAFE) if added else (SAFE, spared)
    else:
        reader, writer = (kept_out, spared) if added else (spared, kept_out)
    if spared is SAFE and keyword != "oneOf":
        note = ("the other version's node already implies it" if keyword == "allOf"
                else "an existing branch already accepts its documents")
    direction = WRITER if (added != (keyword == "allOf")) else READER
    target = Target(direction, {}, branch_path) if keyword != "allOf" else Target(direction, {"not": member})
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


def _sees_annotations(facts: Facts, site: Site) -> bool:
    """Does an ``unevaluatedProperties``/``unevaluatedItems`` judge the instance at this node
    (on the node, or on a node applying in place above it)? Then adding or removing an
    applicator also changes what counts as evaluated, and is not a plain conjunct."""
    path = site.path
    while True:
        for side in ("old", "new"):
            node = facts.node(side, path)
            if isinstance(node, dict) and UNEVALUATED & set(node):
                return True
        # the in-place applicators, whose annotations an unevaluated* keyword of the instance sees
        steps = [i for i, token in enumerate(path) if token in kw.IN_PLACE]
        if not path or not steps:
            return False
        last = steps[-1]
        if last + kw.steps(path[last]) != len(path):
            return False  # the node is not applied in place to its parent's instance
        path = path[:last]


def _conjunct(site: Site, node: Any, value: Any) -> Any:
    """The constraint an applicator adds to its node, as a schema of its own."""
    if site.keyword == "dependentSchemas" and site.member is not None:
        return {"dependentSchemas": {site.member: unalign(value)}}
    if site.keyword in ("then", "else"):
        return {"if": unalign(node.get("if", {})), site.keyword: unalign(value)}
    if site.keyword == "$ref":
        return unalign(value)
    return {site.keyword: unalign(value)}


@RULES.rule("CMP507", group="keyword", keywords=("oneOf", "anyOf", "allOf", "$ref", "not", "then", "else", "dependentSchemas"),
            reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "object"}, {"$schema": S, "type": "object", "not": {"required": ["debug"]}}))
def applicator_changed(site: Site, facts: Facts) -> Finding | None:
    """An in-place applicator as a whole (``not``, ``then``/``else``, a ``dependentSchemas`` entry,
    a ``$ref`` beside other keywords, a whole ``oneOf``/``anyOf``/``allOf``) was added, removed or
    replaced: one added only tightens (reader-safe when the old node already implies it), one
    removed only loosens (writer-safe when the new node still implies it); one replaced compares
    the two subschemas."""
    if site.member is not None and site.keyword in kw.BRANCHES:
        return None
    old = facts.node("old", site.path)
    new = facts.node("new", site.path)
    if site.keyword in ("then", "else") and _differs(old, new, "if"):
        return None  # the condition changed too: condition_changed judges if/then/else together
    o, n = values(site, facts)
    subject = site.keyword if site.member is None else f"{site.keyword}/{site.member}"
    note = ""
    steer: tuple[Target, ...] = ()
    if (o is MISSING) != (n is MISSING):  # a witness fails the conjunct on the side that has it
        conjunct = _conjunct(site, new, n) if o is MISSING else _conjunct(site, old, o)
        steer = (Target(READER if o is MISSING else WRITER, _violating(conjunct)),)
    if (o is MISSING) != (n is MISSING) and _sees_annotations(facts, site):
        reader = writer = UNKNOWN
        note = "an unevaluated* keyword sees what this applicator evaluates: not modelled"
    elif (o is MISSING) != (n is MISSING):
        if o is MISSING:
            reader, writer = facts.includes(unalign(old), _conjunct(site, new, n)), SAFE
            note = "added: it can only reject more"
        else:
            reader, writer = SAFE, facts.includes(unalign(new), _conjunct(site, old, o))
            note = "removed: it can only accept more"
    elif o is not MISSING and n is not MISSING and site.keyword == "not":
        reader, writer = facts.nested(unalign(n), unalign(o))  # the negation swaps the question
    elif o is not MISSING and n is not MISSING and site.keyword in ("then", "else", "dependentSchemas"):
        reader, writer = facts.nested(unalign(o), unalign(n))
        # Only documents meeting the condition are held to it: a break may not reach one.
        reader, writer = (UNKNOWN if v is BREAKING else v for v in (reader, writer))
    else:
        keep = (site.keyword,)
        before = {k: v for k, v in old.items() if k in keep} if isinstance(old, dict) else {}
        after = {k: v for k, v in new.items() if k in keep} if isinstance(new, dict) else {}
        reader, writer = facts.nested(unalign(before), unalign(after))
    whole_old = unalign(old) if isinstance(old, dict) else {}
    whole_new = unalign(new) if isinstance(new, dict) else {}
    return Finding(or_absent(o), or_absent(n), subject=subject, reader=reader, writer=writer, note=note,
                   targets=(*steer, Target(READER, {"not": whole_new} if whole_new else {}),
                            Target(WRITER, {"not": whole_old} if whole_old else {})))


def _violating(conjunct: Any) -> Any:
    """A schema of documents failing ``conjunct``, spelled to steer the generator (a plain
    ``not`` over an object generates slowly; the witness is judged by the validators anyway)."""
    if isinstance(conjunct, dict) and set(conjunct) == {"not"}:
        return conjunct["not"]
    if isinstance(conjunct, dict) and set(conjunct) == {"dependentSchemas"} and len(conjunct["dependentSchemas"]) == 1:
        ((name, schema),) = conjunct["dependentSchemas"].items()
        return {"required": [name], "not": schema}
    if isinstance(conjunct, dict) and set(conjunct) == {"if", "then"}:
        return {"allOf": [conjunct["if"], {"not": conjunct["then"]}]}
    return {"not": conjunct}


def _differs(old: Any, new: Any, keyword: str) -> bool:
    a = old.get(keyword, MISSING) if isinstance(old, dict) else MISSING
    b = new.get(keyword, MISSING) if isinstance(new, dict) else MISSING
    return (a is MISSING) != (b is MISSING) or (a is not MISSING and json_key(unalign(a)) != json_key(unalign(b)))


def _conditional(node: Any) -> dict[str, Any]:
    """The node's if/then/else, when it has an ``if`` and a ``then`` or ``else`` (else {})."""
    if not isinstance(node, dict) or "if" not in node or not ("then" in node or "else" in node):
        return {}
    return {k: unalign(node[k]) for k in ("if", "then", "else") if k in node}


@RULES.rule("CMP508", group="keyword", keywords=("if", "then", "else"), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "if": {"required": ["a"]}, "then": {"required": ["b"]}},
                     {"$schema": S, "if": {"required": ["a", "c"]}, "then": {"required": ["b"]}}))
def condition_changed(site: Site, facts: Facts) -> Finding | None:
    """An ``if`` condition was added, removed or replaced: a whole if/then/else added only
    tightens and removed only loosens; a narrower condition with only ``then`` (or a wider one
    with only ``else``) holds fewer documents to it; otherwise unknown until a witness decides."""
    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    if not _differs(old_node, new_node, "if"):
        return None
    old, new = _conditional(old_node), _conditional(new_node)
    old_if = or_absent(old_node.get("if", MISSING) if isinstance(old_node, dict) else MISSING)
    new_if = or_absent(new_node.get("if", MISSING) if isinstance(new_node, dict) else MISSING)
    whole = (site.path, "")  # a rejection anywhere in the node (then, else) may be this change's
    if not old and not new:
        return Finding(old_if, new_if, subject="if", reader=SAFE, writer=SAFE,
                       note="an if without then/else validates nothing", old_at=whole, new_at=whole)
    if not old or not new:
        if _sees_annotations(facts, site):
            reader = writer = UNKNOWN
        elif not old:
            reader, writer = facts.includes(unalign(old_node), new), SAFE
        else:
            reader, writer = SAFE, facts.includes(unalign(new_node), old)
        note = "the conditional was added: it can only reject more" if not old else \
            "the conditional was removed: it can only accept more"
        one_way = Target(READER, {"not": new}) if new else Target(WRITER, {"not": old})
        return Finding(old_if, new_if, subject="if", reader=reader, writer=writer, note=note,
                       targets=(one_way,), old_at=whole, new_at=whole)
    same_branches = all(json_key(old.get(k)) == json_key(new.get(k)) for k in ("then", "else"))
    reader = writer = UNKNOWN
    note = "not monotone: unknown until a witness decides"
    targets = [Target(READER, {}), Target(WRITER, {})]
    if same_branches and "then" in old and "else" not in old:
        # valid = not if, or then: fewer documents meeting the condition hold fewer to then
        reader = SAFE if facts.includes(new["if"], old["if"]) is SAFE else UNKNOWN
        writer = SAFE if facts.includes(old["if"], new["if"]) is SAFE else UNKNOWN
        note = "only documents meeting the condition are held to then"
        # a witness meets one version's condition only, and fails then
        targets = [Target(READER, {"allOf": [new["if"], {"not": old["if"]}, {"not": old["then"]}]}),
                   Target(WRITER, {"allOf": [old["if"], {"not": new["if"]}, {"not": old["then"]}]})]
    elif same_branches and "else" in old and "then" not in old:
        # valid = if, or else: more documents meeting the condition escape else
        reader = SAFE if facts.includes(old["if"], new["if"]) is SAFE else UNKNOWN
        writer = SAFE if facts.includes(new["if"], old["if"]) is SAFE else UNKNOWN
        note = "only documents failing the condition are held to else"
        targets = [Target(READER, {"allOf": [old["if"], {"not": new["if"]}, {"not": old["else"]}]}),
                   Target(WRITER, {"allOf": [new["if"], {"not": old["if"]}, {"not": old["else"]}]})]
    elif same_branches and json_key(old.get("then")) == json_key(old.get("else")):
        reader = writer = SAFE
        note = "then and else are the same: the condition decides nothing"
    return Finding(old_if, new_if, subject="if", reader=reader, writer=writer, note=note,
                   targets=tuple(targets), old_at=whole, new_at=whole)


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
    return Finding(or_absent(old), or_absent(new), subject="$ref", reader=reader, writer=writer, note=note,
                   targets=(Target(READER, {}), Target(WRITER, {})),
                   old_at=(site.path, ""), new_at=(site.path, ""))


@RULES.rule("CMP510", group="node", reader=SAFE, writer=SAFE,
            example=({"$schema": S, "type": "string", "maxLength": 8},
                     {"$schema": S, "allOf": [{"type": "string"}], "oneOf": [{"maxLength": 8}]}))
def composition_rewritten(change: NodeChange, facts: Facts) -> Finding | None:
    """A node was rewritten with other composition keywords but accepts the same documents: a
    one-member ``oneOf``/``anyOf``/``allOf``, keywords moved into an ``allOf`` member, a repeated
    or implied member, a ``oneOf`` over provably disjoint branches written as ``anyOf``, or an
    ``allOf`` nothing can satisfy and ``false``."""
    if json_key(change.old_flat) != json_key(change.new_flat):
        return None
    return Finding(_written(change.old), _written(change.new), subject="composition",
                   note="the same documents once merged with its in-place members",
                   old_at=(change.path, ""), new_at=(change.path, ""))


@RULES.rule("CMP511", group="node", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "string"},
                     {"$schema": S, "anyOf": [{"type": "string", "maxLength": 8}, {"type": "integer"}]}))
def composition_changed(change: NodeChange, facts: Facts) -> Finding | None:
    """A node was rewritten with other composition keywords and its documents changed (a value
    moved into a union, a union collapsed, a member merged with changed bounds): the verdicts
    compare the node before and after as a whole, union branch by branch."""
    return Finding(_written(change.old), _written(change.new), subject="composition",
                   reader=change.reader, writer=change.writer,
                   targets=(Target(READER, {"not": change.new_flat}), Target(WRITER, {"not": change.old_flat})),
                   old_at=(change.path, ""), new_at=(change.path, ""))


def _written(node: Any) -> Any:
    """The composition keywords of a node as written (what the report shows)."""
    if not isinstance(node, dict):
        return node
    shown_keys = [k for k in ("allOf", "anyOf", "oneOf", "$ref") if k in node]
    return {k: node[k] for k in shown_keys} if shown_keys else {k: v for k, v in node.items() if k != REF_TARGET}
