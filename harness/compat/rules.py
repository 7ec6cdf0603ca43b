"""The change classes. Each is one function registered in :data:`RULES`; see
:mod:`harness.compat.registry` for what a rule receives and returns.

Ids are stable (reports, waivers and CI files refer to them) and grouped: ``CMP1xx`` objects,
``CMP2xx`` values and types, ``CMP3xx`` strings and numbers, ``CMP4xx`` arrays, ``CMP5xx``
composition and references, ``CMP9xx`` what is not modelled. Detection order within a group is
registration order: the unsupported cases come first.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from harness.compat.diff import Site
from harness.compat.model import Direction, Verdict
from harness.compat.normalise import REF_TARGET, json_key
from harness.compat.patterns import includes
from harness.compat.registry import (
    DERIVED,
    RULES,
    Facts,
    Finding,
    NameTransition,
    SlotTransition,
    Target,
    ValueDomain,
)
from harness.pointer import MISSING
from harness.schemas import keywords as kw

SAFE, BREAKING, UNKNOWN = Verdict.SAFE, Verdict.BREAKING, Verdict.UNKNOWN
READER, WRITER = Direction.READER, Direction.WRITER
S = "https://json-schema.org/draft/2020-12/schema"


def _obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"$schema": S, "type": "object", "properties": properties, **more}


def _values(site: Site, facts: Facts) -> tuple[Any, Any]:
    """The keyword's value (or its member's) in each version; MISSING where absent."""
    found = []
    for side in ("old", "new"):
        node = facts.node(side, site.path)
        value = node.get(site.keyword, MISSING) if isinstance(node, dict) else MISSING
        if site.member is not None and isinstance(value, dict):
            value = value.get(site.member, MISSING)
        found.append(value)
    return found[0], found[1]


def _shown(value: Any) -> Any:
    return "(absent)" if value is MISSING else value


# =========================================================================== unsupported


@RULES.rule("CMP901", group="keyword", reader=DERIVED, writer=DERIVED,
            example=(_obj({"a": {"type": "string"}}), _obj({"a": {"type": "string", "x-nullable": 1, "nullable": True}})))
def unsupported_keyword(site: Site, facts: Facts) -> Finding | None:
    """A keyword this classifier does not know changed (e.g. OpenAPI's ``nullable``): unknown."""
    if kw.is_known(site.keyword) or site.keyword in (REF_TARGET, ""):
        return None
    old, new = _values(site, facts)
    return Finding(_shown(old), _shown(new), subject=site.keyword, reader=UNKNOWN, writer=UNKNOWN,
                   note=f"unknown keyword {site.keyword!r}: not modelled")


@RULES.rule("CMP902", group="keyword", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "string"}},
                      "$dynamicRef": "#n"},
                     {"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}},
                      "$dynamicRef": "#n"}))
def unsupported_reference(site: Site, facts: Facts) -> Finding | None:
    """A reference that is not expanded (``$dynamicRef``, recursive or unresolvable ``$ref``)
    is involved: unknown."""
    old, new = _values(site, facts)
    if site.keyword in ("$dynamicRef", "$recursiveRef") or (
        site.keyword == "$ref" and (isinstance(old, str) or isinstance(new, str))
    ):
        return Finding(_shown(old), _shown(new), subject=site.keyword, reader=UNKNOWN, writer=UNKNOWN,
                       note="reference not expanded: not modelled")
    return None


@RULES.rule("CMP903", group="member", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "object", "anyOf": [{"properties": {"a": {}}}],
                      "unevaluatedProperties": False},
                     {"$schema": S, "type": "object", "anyOf": [{"properties": {"a": {}}}]}))
def object_model_unsupported(t: NameTransition, facts: Facts) -> Finding | None:
    """Which names an object allows depends on something not modelled (``unevaluatedProperties``
    fed by conditional branches, overlapping patterns): unknown."""
    if "unknown" not in (t.old.state, t.new.state):
        return None
    reason = t.old.reason or t.new.reason
    return Finding(t.old.state, t.new.state, subject=t.name, reader=UNKNOWN, writer=UNKNOWN, note=reason)


@RULES.rule("CMP904", group="items", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array", "prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}]}],
                      "unevaluatedItems": False},
                     {"$schema": S, "type": "array", "prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}]}]}))
def array_model_unsupported(t: SlotTransition, facts: Facts) -> Finding | None:
    """Which positions an array allows depends on something not modelled: unknown."""
    if "unknown" not in (t.old.state, t.new.state):
        return None
    return Finding(t.old.state, t.new.state, subject=t.slot, reader=UNKNOWN, writer=UNKNOWN,
                   note=t.old.reason or t.new.reason)


# =========================================================================== objects


@RULES.rule("CMP101", group="keyword", keywords=("required",), reader=BREAKING, writer=SAFE,
            example=(_obj({"a": {"type": "string"}, "b": {"type": "integer"}}, required=["a"]),
                     _obj({"a": {"type": "string"}, "b": {"type": "integer"}}, required=["a", "b"])))
def required_property_added(site: Site, facts: Facts) -> Finding | None:
    """A property became required: old documents without it are rejected."""
    old, new = _values(site, facts)
    added = sorted(set(new if isinstance(new, list) else []) - set(old if isinstance(old, list) else []))
    if not added:
        return None
    return Finding(_shown(old), _shown(new), subject=", ".join(added),
                   targets=tuple(Target(READER, {"properties": {n: False}}) for n in added))


@RULES.rule("CMP102", group="keyword", keywords=("required",), reader=SAFE, writer=BREAKING,
            example=(_obj({"a": {"type": "string"}}, required=["a"]), _obj({"a": {"type": "string"}})))
def required_property_removed(site: Site, facts: Facts) -> Finding | None:
    """A property is no longer required: new documents without it are rejected by old readers."""
    old, new = _values(site, facts)
    removed = sorted(set(old if isinstance(old, list) else []) - set(new if isinstance(new, list) else []))
    if not removed:
        return None
    return Finding(_shown(old), _shown(new), subject=", ".join(removed),
                   targets=tuple(Target(WRITER, {"properties": {n: False}}) for n in removed))


def _declared_at(t: NameTransition) -> tuple[tuple[str, ...], str]:
    """The declaration of the property itself (``.../properties/<name>``)."""
    return (*t.path, "properties"), t.name


def _required_target(direction: Direction, name: str) -> Target:
    return Target(direction, {"required": [name]})


@RULES.rule("CMP103", group="member", reader=SAFE, writer=BREAKING,
            example=(_obj({"a": {"type": "string"}}, additionalProperties=False),
                     _obj({"a": {"type": "string"}, "b": {"type": "integer"}}, additionalProperties=False)))
def property_added_to_closed_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A property was added to an object that forbade it: old readers reject new documents
    that carry it."""
    if t.region != "named" or t.old.state != "forbidden" or t.new.state == "forbidden":
        return None
    return Finding("forbidden", t.new.state, subject=t.name, writer=t.writer if t.writer is not SAFE else None,
                   targets=(_required_target(WRITER, t.name),),
                   old_at=t.old.closer, new_at=_declared_at(t))


@RULES.rule("CMP104", group="member", reader=BREAKING, writer=SAFE,
            example=(_obj({"a": {"type": "string"}}), _obj({"a": {"type": "string"}, "b": {"type": "integer"}})))
def property_added_to_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A constrained property was added to an open object: old documents could carry that name
    with any value, and some are now rejected."""
    if t.region != "named" or t.old.declared or t.old.state != "any" or t.new.state != "schemas":
        return None
    return Finding("any value", "constrained", subject=t.name, targets=(_required_target(READER, t.name),),
                   new_at=_declared_at(t))


@RULES.rule("CMP105", group="member", reader=DERIVED, writer=DERIVED,
            example=(_obj({"a": {"type": "string"}}, additionalProperties={"type": "string"}),
                     _obj({"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}},
                          additionalProperties={"type": "string"})))
def property_added_to_partially_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A property was declared where undeclared names were already allowed under a schema
    (``additionalProperties``/``patternProperties``): the verdicts compare the two schemas."""
    if t.region != "named" or t.old.declared or not t.new.declared or t.old.state != "schemas":
        return None
    return Finding("additional schema", "declared schema", subject=t.name, reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)),
                   new_at=_declared_at(t))


@RULES.rule("CMP106", group="member", reader=BREAKING, writer=SAFE,
            example=(_obj({"a": {"type": "string"}, "b": {}}, additionalProperties=False),
                     _obj({"a": {"type": "string"}}, additionalProperties=False)))
def property_removed_from_closed_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A property was removed from a closed object: old documents that carry it are rejected."""
    if t.region != "named" or not t.old.declared or t.new.state != "forbidden" or t.old.state == "forbidden":
        return None
    return Finding(t.old.state, "forbidden", subject=t.name, targets=(_required_target(READER, t.name),),
                   old_at=_declared_at(t), new_at=t.new.closer)


@RULES.rule("CMP107", group="member", reader=SAFE, writer=BREAKING,
            example=(_obj({"a": {"type": "string"}, "b": {"type": "integer"}}), _obj({"a": {"type": "string"}})))
def property_removed_from_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A constrained property was removed from an open object: the name now takes any value,
    which old readers reject."""
    if t.region != "named" or not t.old.declared or t.new.declared or t.new.state != "any" or t.old.state != "schemas":
        return None
    return Finding("constrained", "any value", subject=t.name, targets=(_required_target(WRITER, t.name),),
                   old_at=_declared_at(t))


@RULES.rule("CMP108", group="member", reader=DERIVED, writer=DERIVED,
            example=(_obj({"a": {"type": "string", "maxLength": 3}}, additionalProperties={"type": "string"}),
                     _obj({}, additionalProperties={"type": "string"})))
def property_removed_from_partially_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A declared property was removed where undeclared names are allowed under a schema: the
    verdicts compare the two schemas."""
    if t.region != "named" or not t.old.declared or t.new.declared or t.new.state != "schemas":
        return None
    return Finding("declared schema", "additional schema", subject=t.name, reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)),
                   old_at=_declared_at(t))


@RULES.rule("CMP109", group="member", reader=BREAKING, writer=SAFE,
            example=(_obj({"a": {"type": "string"}}), _obj({"a": {"type": "string"}}, additionalProperties=False)))
def object_closed(t: NameTransition, facts: Facts) -> Finding | None:
    """``additionalProperties`` or ``unevaluatedProperties`` became ``false``: old documents
    with undeclared members are rejected."""
    if t.region != "other" or t.old.state == "forbidden" or t.new.state != "forbidden":
        return None
    keyword = t.new.closer[1] if t.new.closer else "additionalProperties"
    return Finding(t.old.state, f"{keyword}: false", subject="undeclared names",
                   targets=(_required_target(READER, t.name),), new_at=t.new.closer)


@RULES.rule("CMP110", group="member", reader=SAFE, writer=BREAKING,
            example=(_obj({"a": {"type": "string"}}, unevaluatedProperties=False), _obj({"a": {"type": "string"}})))
def object_opened(t: NameTransition, facts: Facts) -> Finding | None:
    """``additionalProperties``/``unevaluatedProperties: false`` was relaxed: new documents with
    undeclared members are rejected by old readers."""
    if t.region != "other" or t.old.state != "forbidden" or t.new.state == "forbidden":
        return None
    keyword = t.old.closer[1] if t.old.closer else "additionalProperties"
    return Finding(f"{keyword}: false", t.new.state, subject="undeclared names",
                   writer=t.writer if t.writer is not SAFE else None,
                   targets=(_required_target(WRITER, t.name),), old_at=t.old.closer)


@RULES.rule("CMP111", group="member", reader=DERIVED, writer=DERIVED,
            example=(_obj({"a": {"type": "string"}}, additionalProperties={"type": "string"}),
                     _obj({"a": {"type": "string"}})))
def additional_properties_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """What undeclared names may hold changed (neither side forbids them): the verdicts compare
    the two schemas."""
    if t.region != "other":
        return None
    return Finding(t.old.state, t.new.state, subject="undeclared names", reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


@RULES.rule("CMP112", group="member", reader=DERIVED, writer=DERIVED,
            example=(_obj({}, additionalProperties=False),
                     _obj({}, patternProperties={"^x-": {"type": "string"}}, additionalProperties=False)))
def pattern_property_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """Names matching a ``patternProperties`` pattern are constrained differently (a pattern was
    added, removed or now covers other names); checked on a name the pattern matches."""
    if t.region != "pattern":
        return None
    return Finding(t.old.state, t.new.state, subject=f"names like {t.name!r}", reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


@RULES.rule("CMP113", group="member", reader=DERIVED, writer=DERIVED,
            example=(_obj({"x-a": {"type": "string"}}),
                     _obj({"x-a": {"type": "string"}}, patternProperties={"^x-": {"maxLength": 2}})))
def property_constraint_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """A declared property is now also (or no longer) held to another schema (a pattern, or
    ``additionalProperties`` of a sibling in ``allOf``): the verdicts compare the conjunctions."""
    if t.region != "named":
        return None
    return Finding(t.old.state, t.new.state, subject=t.name, reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


def _count(value: Any, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _bound_finding(site: Site, facts: Facts, *, upper: bool, tightened: bool,
                   low_key: str, high_key: str, kind: str) -> Finding | None:
    """Shared by the count keywords (maxLength, minItems, ...): did the bound move the
    rule's way? Witnesses sit just past the new bound (and at the old one)."""
    old, new = _values(site, facts)
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
    return Finding(_shown(old), _shown(new), subject=site.keyword, targets=tuple(targets))


def _count_rules() -> None:
    """Register the tightened/loosened pair of every count keyword."""
    table = [
        # keyword, upper?, ids, low/high keywords used for witnesses, nouns, example schema type
        ("maxLength", True, ("CMP301", "CMP302"), ("minLength", "maxLength"), "string", 5, 3),
        ("minLength", False, ("CMP303", "CMP304"), ("minLength", "maxLength"), "string", 1, 3),
        ("maxItems", True, ("CMP401", "CMP402"), ("minItems", "maxItems"), "array", 5, 3),
        ("minItems", False, ("CMP403", "CMP404"), ("minItems", "maxItems"), "array", 1, 3),
        ("maxProperties", True, ("CMP114", "CMP115"), ("minProperties", "maxProperties"), "object", 5, 3),
        ("minProperties", False, ("CMP116", "CMP117"), ("minProperties", "maxProperties"), "object", 1, 3),
    ]
    for keyword, upper, ids, (low, high), kind, loose, tight in table:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in keyword)
        for rule_id, tightened in zip(ids, (True, False), strict=True):
            before, after = (loose, tight) if tightened else (tight, loose)
            example = ({"$schema": S, "type": kind, keyword: before}, {"$schema": S, "type": kind, keyword: after})

            def detect(site: Site, facts: Facts, *, _upper: bool = upper, _t: bool = tightened,
                       _low: str = low, _high: str = high, _kind: str = kind) -> Finding | None:
                return _bound_finding(site, facts, upper=_upper, tightened=_t, low_key=_low,
                                      high_key=_high, kind=_kind)

            verb = "tightened" if tightened else "loosened"
            detect.__name__ = f"{snake}_{verb}"
            bound = "maximum" if upper else "minimum"
            direction = ("old documents past the new bound are rejected" if tightened
                         else "new documents past the old bound are rejected by old readers")
            detect.__doc__ = f"``{keyword}`` {verb} (the {bound} {('lowered' if upper else 'raised') if tightened else ('raised or removed' if upper else 'lowered or removed')}): {direction}."
            RULES.rule(rule_id, group="keyword", keywords=(keyword,),
                       reader=BREAKING if tightened else SAFE, writer=SAFE if tightened else BREAKING,
                       example=example)(detect)


_count_rules()


@RULES.rule("CMP118", group="keyword", keywords=("dependentRequired",), reader=DERIVED, writer=DERIVED,
            example=(_obj({"a": {}, "b": {}}), _obj({"a": {}, "b": {}}, dependentRequired={"a": ["b"]})))
def dependent_required_changed(site: Site, facts: Facts) -> Finding | None:
    """``dependentRequired`` changed: added dependencies reject old documents, removed ones let
    through new documents old readers reject."""
    old, new = _values(site, facts)
    o = {k: set(v) for k, v in (old if isinstance(old, dict) else {}).items()}
    n = {k: set(v) for k, v in (new if isinstance(new, dict) else {}).items()}
    added = [(k, d) for k in n for d in n[k] - o.get(k, set())]
    removed = [(k, d) for k in o for d in o[k] - n.get(k, set())]
    if not added and not removed:
        return None
    targets = tuple(Target(READER, {"required": [k], "properties": {d: False}}) for k, d in added) + tuple(
        Target(WRITER, {"required": [k], "properties": {d: False}}) for k, d in removed)
    return Finding(_shown(old), _shown(new), subject="dependentRequired",
                   reader=BREAKING if added else SAFE, writer=BREAKING if removed else SAFE, targets=targets)


@RULES.rule("CMP119", group="keyword", keywords=("propertyNames",), reader=DERIVED, writer=DERIVED,
            example=(_obj({}), _obj({}, propertyNames={"maxLength": 8})))
def property_names_changed(site: Site, facts: Facts) -> Finding | None:
    """``propertyNames`` was added, removed or replaced: the verdicts compare the two name
    schemas."""
    old, new = _values(site, facts)
    reader, writer = facts.nested({} if old is MISSING else old, {} if new is MISSING else new)
    return Finding(_shown(old), _shown(new), subject="propertyNames", reader=reader, writer=writer,
                   targets=(Target(READER, {"minProperties": 1}), Target(WRITER, {"minProperties": 1})))


# =========================================================================== values and types


def _both_const(domain: ValueDomain) -> bool:
    return all(isinstance(n, dict) and "const" in n for n in (domain.old_node, domain.new_node))


@RULES.rule("CMP203", group="value", reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "const": "v1"}, {"$schema": S, "const": "v2"}))
def const_changed(domain: ValueDomain, facts: Facts) -> Finding | None:
    """``const`` changed value: each version rejects the other's."""
    if not _both_const(domain) or not (domain.removed or domain.added):
        return None
    return Finding(domain.old_node["const"], domain.new_node["const"], subject="const",
                   reader=BREAKING if domain.removed else SAFE, writer=BREAKING if domain.added else SAFE,
                   targets=tuple(Target(READER, {"const": v}) for v in domain.removed)
                   + tuple(Target(WRITER, {"const": v}) for v in domain.added),
                   old_at=(domain.path, "const"), new_at=(domain.path, "const"))


def _finite_key(node: Any) -> str:
    return "const" if isinstance(node, dict) and "const" in node else "enum" if isinstance(node, dict) and "enum" in node else "type"


@RULES.rule("CMP201", group="value", reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "enum": ["a", "b", "c"]}, {"$schema": S, "enum": ["a", "b"]}))
def enum_narrowed(domain: ValueDomain, facts: Facts) -> Finding | None:
    """Values were removed from a finite set (``enum``): old documents holding them are rejected."""
    if domain.old_values is None or domain.new_values is None or _both_const(domain) or not domain.removed:
        return None
    return Finding(list(domain.old_values), list(domain.new_values),
                   subject=", ".join(json_key(v) for v in domain.removed),
                   targets=tuple(Target(READER, {"const": v}) for v in domain.removed[:3]),
                   old_at=(domain.path, _finite_key(domain.old_node)), new_at=(domain.path, _finite_key(domain.new_node)))


@RULES.rule("CMP202", group="value", reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "enum": ["a", "b"]}, {"$schema": S, "enum": ["a", "b", "c"]}))
def enum_widened(domain: ValueDomain, facts: Facts) -> Finding | None:
    """Values were added to a finite set: old readers reject new documents holding them."""
    if domain.old_values is None or domain.new_values is None or _both_const(domain) or not domain.added:
        return None
    return Finding(list(domain.old_values), list(domain.new_values),
                   subject=", ".join(json_key(v) for v in domain.added),
                   targets=tuple(Target(WRITER, {"const": v}) for v in domain.added[:3]),
                   old_at=(domain.path, _finite_key(domain.old_node)), new_at=(domain.path, _finite_key(domain.new_node)))


@RULES.rule("CMP204", group="value", reader=BREAKING, writer=DERIVED,
            example=({"$schema": S, "type": "string"}, {"$schema": S, "enum": ["healthy", "failed"]}))
def enum_introduced(domain: ValueDomain, facts: Facts) -> Finding | None:
    """An open value became a finite set: old documents outside it are rejected; writer-safe when
    every new value was valid before (checked value by value)."""
    if domain.old_values is not None or domain.new_values is None:
        return None
    return Finding(domain.old_node, list(domain.new_values), subject=_finite_key(domain.new_node),
                   writer=BREAKING if domain.added else SAFE,
                   targets=(Target(READER, {"not": {"enum": list(domain.new_values)}}), *tuple(Target(WRITER, {"const": v}) for v in domain.added[:3])),
                   new_at=(domain.path, _finite_key(domain.new_node)))


@RULES.rule("CMP205", group="value", reader=DERIVED, writer=BREAKING,
            example=({"$schema": S, "enum": ["a", "b"]}, {"$schema": S, "type": "string"}))
def enum_dropped(domain: ValueDomain, facts: Facts) -> Finding | None:
    """A finite set became an open value: old readers reject new values outside the set;
    reader-safe when every old value is still valid (checked value by value)."""
    if domain.old_values is None or domain.new_values is not None:
        return None
    return Finding(list(domain.old_values), domain.new_node, subject=_finite_key(domain.old_node),
                   reader=BREAKING if domain.removed else SAFE,
                   targets=(Target(WRITER, {"not": {"enum": list(domain.old_values)}}), *tuple(Target(READER, {"const": v}) for v in domain.removed[:3])),
                   old_at=(domain.path, _finite_key(domain.old_node)))


_ALL_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _uncovered(a: list[str] | None, b: list[str] | None) -> list[str]:
    """Types of ``a`` not covered by ``b`` (``integer`` is covered by ``number``)."""
    if b is None:
        return []
    have = set(b) | ({"integer"} if "number" in b else set())
    return [t for t in (a if a is not None else _ALL_TYPES) if t not in have]


def _type_target(direction: Direction, name: str, other: list[str] | None) -> Target:
    if name == "number" and other is not None and "integer" in other:
        return Target(direction, {"type": "number", "not": {"type": "integer"}})
    return Target(direction, {"type": name})


def _type_change(site: Site, facts: Facts) -> tuple[Any, Any, list[str], list[str]]:
    old, new = _values(site, facts)
    o = None if old is MISSING else list(old)
    n = None if new is MISSING else list(new)
    return old, new, _uncovered(o, n), _uncovered(n, o)


@RULES.rule("CMP206", group="keyword", keywords=("type",), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": ["string", "integer"]}, {"$schema": S, "type": "string"}))
def type_narrowed(site: Site, facts: Facts) -> Finding | None:
    """Types were removed (``number`` -> ``integer`` included): old documents of those types are
    rejected."""
    old, new, lost, gained = _type_change(site, facts)
    if not lost or gained:
        return None
    return Finding(_shown(old), _shown(new), subject=", ".join(lost),
                   targets=tuple(_type_target(READER, t, None if new is MISSING else new) for t in lost[:3]))


@RULES.rule("CMP207", group="keyword", keywords=("type",), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "integer"}, {"$schema": S, "type": "number"}))
def type_widened(site: Site, facts: Facts) -> Finding | None:
    """Types were added: old readers reject new documents of those types."""
    old, new, lost, gained = _type_change(site, facts)
    if lost or not gained:
        return None
    return Finding(_shown(old), _shown(new), subject=", ".join(gained),
                   targets=tuple(_type_target(WRITER, t, None if old is MISSING else old) for t in gained[:3]))


@RULES.rule("CMP208", group="keyword", keywords=("type",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string"}, {"$schema": S, "type": "integer"}))
def type_changed(site: Site, facts: Facts) -> Finding | None:
    """Types were both removed and added: each version rejects documents of the other."""
    old, new, lost, gained = _type_change(site, facts)
    if not lost or not gained:
        return None
    return Finding(_shown(old), _shown(new), subject=f"-{', '.join(lost)} +{', '.join(gained)}",
                   targets=tuple(_type_target(READER, t, None if new is MISSING else new) for t in lost[:2])
                   + tuple(_type_target(WRITER, t, None if old is MISSING else old) for t in gained[:2]))


# =========================================================================== strings and numbers


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

    def shown(limit: tuple[float, bool]) -> Any:
        if limit[0] in (float("inf"), float("-inf")):
            return "(absent)"
        return {keywords[1] if limit[1] else keywords[0]: int(limit[0]) if limit[0].is_integer() else limit[0]}

    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    old_kw = keywords[1] if o[1] else keywords[0]
    new_kw = keywords[1] if n[1] else keywords[0]
    return Finding(shown(o), shown(n), subject=keywords[0], targets=tuple(targets),
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
    old, new = _values(site, facts)
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
    return Finding(_shown(old), _shown(new), subject="pattern", reader=None if reader is False else UNKNOWN,
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
    return Finding(_shown(old), _shown(new), subject="pattern", writer=None if writer is False else UNKNOWN,
                   targets=_pattern_targets(old, new)[1:] if new is not MISSING else _pattern_targets(old, new))


@RULES.rule("CMP311", group="keyword", keywords=("pattern",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string", "pattern": "^run_"}, {"$schema": S, "type": "string", "pattern": "^job_"}))
def pattern_changed(site: Site, facts: Facts) -> Finding | None:
    """The pattern changed and neither language contains the other (or inclusion cannot be
    decided: the verdict is then unknown until a witness proves a break)."""
    old, new, reader, writer = _pattern_question(site, facts)
    if reader is True or writer is True:
        return None
    return Finding(_shown(old), _shown(new), subject="pattern",
                   reader=None if reader is False else UNKNOWN, writer=None if writer is False else UNKNOWN,
                   targets=_pattern_targets(old, new))


@RULES.rule("CMP312", group="keyword", keywords=("pattern",), reader=SAFE, writer=SAFE,
            example=({"$schema": S, "type": "string", "pattern": "^[0-9]+$"}, {"$schema": S, "type": "string", "pattern": "^\\d+$"}))
def pattern_rewritten(site: Site, facts: Facts) -> Finding | None:
    """The pattern was rewritten but accepts exactly the same strings."""
    old, new, reader, writer = _pattern_question(site, facts)
    if reader is not True or writer is not True:
        return None
    return Finding(_shown(old), _shown(new), subject="pattern")


@RULES.rule("CMP313", group="keyword", keywords=("format",), reader=BREAKING, writer=SAFE,
            example=({"$schema": S, "type": "string"}, {"$schema": S, "type": "string", "format": "date-time"}))
def format_added(site: Site, facts: Facts) -> Finding | None:
    """A ``format`` was added (formats assert here): old strings not in the format are rejected."""
    old, new = _values(site, facts)
    if old is not MISSING or new is MISSING:
        return None
    return Finding("(absent)", new, subject=str(new), targets=(Target(READER, {"type": "string", "not": {"format": new}}),))


@RULES.rule("CMP314", group="keyword", keywords=("format",), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "string", "format": "date-time"}, {"$schema": S, "type": "string"}))
def format_removed(site: Site, facts: Facts) -> Finding | None:
    """A ``format`` was removed: old readers reject new strings not in the format."""
    old, new = _values(site, facts)
    if old is MISSING or new is not MISSING:
        return None
    return Finding(old, "(absent)", subject=str(old), targets=(Target(WRITER, {"type": "string", "not": {"format": old}}),))


@RULES.rule("CMP315", group="keyword", keywords=("format",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string", "format": "date"}, {"$schema": S, "type": "string", "format": "date-time"}))
def format_changed(site: Site, facts: Facts) -> Finding | None:
    """The ``format`` changed: each version rejects strings of the other's format."""
    old, new = _values(site, facts)
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
    old, new = _values(site, facts)
    o = Fraction(str(old)) if old is not MISSING else None
    n = Fraction(str(new)) if new is not MISSING else None
    reader = SAFE if n is None or (o is not None and (o / n).denominator == 1) else BREAKING
    writer = SAFE if o is None or (n is not None and (n / o).denominator == 1) else BREAKING
    targets = []
    if reader is BREAKING and n is not None:
        targets.append(Target(READER, {"type": "number", "not": {"multipleOf": new}}))
    if writer is BREAKING and o is not None:
        targets.append(Target(WRITER, {"type": "number", "not": {"multipleOf": old}}))
    return Finding(_shown(old), _shown(new), subject="multipleOf", reader=reader, writer=writer,
                   targets=tuple(targets))


# =========================================================================== arrays


@RULES.rule("CMP405", group="keyword", keywords=("uniqueItems",), reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array"}, {"$schema": S, "type": "array", "uniqueItems": True}))
def unique_items_changed(site: Site, facts: Facts) -> Finding | None:
    """``uniqueItems`` was turned on (old arrays with duplicates are rejected) or off (old
    readers reject new arrays with duplicates)."""
    old, new = _values(site, facts)
    before, after = old is True, new is True
    if before == after:
        return Finding(_shown(old), _shown(new), subject="uniqueItems", reader=SAFE, writer=SAFE)
    direction = READER if after else WRITER
    return Finding(_shown(old), _shown(new), subject="uniqueItems",
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
    o, n = _unalign(o), _unalign(n)
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


# =========================================================================== composition


def _member_sides(site: Site) -> tuple[str | None, str | None]:
    if site.member is None or ":" not in site.member:
        return None, None
    old, new = site.member.split(":", 1)
    return (None if old == "-" else old), (None if new == "-" else new)


def _branch_rule(keyword: str, added: bool) -> Any:
    def detect(site: Site, facts: Facts) -> Finding | None:
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
            from harness.compat.classify import all_disjoint

            node = facts.node("new" if added else "old", site.path)
            if not all_disjoint(list((node.get("oneOf") or {}).values())):
                note = "the oneOf branches are not provably disjoint: a document matching two is rejected"
                reader = UNKNOWN if reader is SAFE else reader
                writer = UNKNOWN if writer is SAFE else writer
        direction = WRITER if (added != (keyword == "allOf")) else READER
        target = Target(direction, {}, branch_path) if keyword != "allOf" else Target(direction, {"not": value})
        return Finding("(absent)" if added else value, value if added else "(absent)", subject=f"{keyword}/{new_index if added else old_index}",
                       reader=reader, writer=writer, note=note, targets=(target,))
    return detect


def _register_branches() -> None:
    table = [
        ("CMP501", "one_of_branch_added", "oneOf", True, "A ``oneOf`` branch was added: old readers reject new documents of that shape (and if branches may overlap, a document matching two is rejected)."),
        ("CMP502", "one_of_branch_removed", "oneOf", False, "A ``oneOf`` branch was removed: old documents of that shape are rejected."),
        ("CMP503", "any_of_branch_added", "anyOf", True, "An ``anyOf`` branch was added: old readers reject new documents of that shape."),
        ("CMP504", "any_of_branch_removed", "anyOf", False, "An ``anyOf`` branch was removed: old documents of that shape are rejected."),
        ("CMP505", "all_of_member_added", "allOf", True, "An ``allOf`` member was added: old documents that fail it are rejected."),
        ("CMP506", "all_of_member_removed", "allOf", False, "An ``allOf`` member was removed: old readers reject new documents that fail it."),
    ]
    base = {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}
    other = {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
    extra = {"required": ["id"]}
    for rule_id, name, keyword, added, doc in table:
        if keyword == "allOf":
            small, large = {"$schema": S, "allOf": [base]}, {"$schema": S, "allOf": [base, extra]}
        else:
            small, large = {"$schema": S, keyword: [base]}, {"$schema": S, keyword: [base, other]}
        reader, writer = (SAFE, BREAKING) if added != (keyword == "allOf") else (BREAKING, SAFE)
        detect = _branch_rule(keyword, added)
        detect.__name__, detect.__doc__ = name, doc
        RULES.rule(rule_id, group="keyword", keywords=(keyword,), reader=reader, writer=writer,
                   example=(small, large) if added else (large, small))(detect)


_register_branches()


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
    reader, writer = facts.nested(_unalign(o), _unalign(n))
    return Finding(_shown(o.get(site.keyword, MISSING)), _shown(n.get(site.keyword, MISSING)),
                   subject=site.keyword if site.member is None else f"{site.keyword}/{site.member}",
                   reader=reader, writer=writer,
                   targets=(Target(READER, {"not": _unalign(n)} if n else {}),
                            Target(WRITER, {"not": _unalign(o)} if o else {})))


def _unalign(node: Any) -> Any:
    """An aligned subtree back in schema form (branch maps become lists again)."""
    if isinstance(node, list):
        return [_unalign(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in kw.BRANCHES and isinstance(value, dict):
            out[key] = [_unalign(v) for v in value.values()]
        elif key == REF_TARGET:
            continue
        else:
            out[key] = _unalign(value)
    return out


@RULES.rule("CMP508", group="keyword", keywords=("if",), reader=UNKNOWN, writer=UNKNOWN,
            example=({"$schema": S, "if": {"required": ["a"]}, "then": {"required": ["b"]}},
                     {"$schema": S, "then": {"required": ["b"]}}))
def condition_changed(site: Site, facts: Facts) -> Finding | None:
    """An ``if`` condition was added, removed or replaced while ``then``/``else`` exist: not
    monotone, unknown until a witness decides."""
    old, new = _values(site, facts)
    old_node, new_node = facts.node("old", site.path), facts.node("new", site.path)
    if not any(isinstance(n, dict) and ("then" in n or "else" in n) for n in (old_node, new_node)):
        return Finding(_shown(old), _shown(new), subject="if", reader=SAFE, writer=SAFE,
                       note="an if without then/else validates nothing")
    return Finding(_shown(old), _shown(new), subject="if", reader=UNKNOWN, writer=UNKNOWN,
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
    old, new = _values(site, facts)
    reader, writer = facts.nested(_unalign(facts.node("old", site.path)), _unalign(facts.node("new", site.path)))
    note = "same content under another name" if reader is writer is SAFE else ""
    # Any rejection inside the referenced schema is this change's (location: the node itself).
    return Finding(_shown(old), _shown(new), subject="$ref", reader=reader, writer=writer, note=note,
                   targets=(Target(READER, {}), Target(WRITER, {})),
                   old_at=(site.path, ""), new_at=(site.path, ""))


# =========================================================================== fallback


@RULES.rule("CMP999", group="keyword", keywords=("\x00never",), reader=UNKNOWN, writer=UNKNOWN,
            example=({"$schema": S}, {"$schema": S}))
def unclassified(site: Site, facts: Facts) -> Finding | None:
    """A difference no rule models: unknown both ways (the classifier fails closed)."""
    return None
