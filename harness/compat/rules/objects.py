"""``CMP1xx``: objects — required names, properties added and removed (judged per name against
the object's content model), closing and opening, patterns, counts of properties,
``dependentRequired`` and ``propertyNames``."""

from __future__ import annotations

from harness.compat.diff import Site
from harness.compat.model import Direction
from harness.compat.predicates import required_names
from harness.compat.registry import DERIVED, RULES, Facts, Finding, NameTransition, Target
from harness.compat.rules.common import (
    BREAKING,
    READER,
    SAFE,
    WRITER,
    count_bound_rules,
    obj,
    or_absent,
    values,
)
from harness.pointer import MISSING


@RULES.rule("CMP101", group="keyword", keywords=("required",), reader=BREAKING, writer=SAFE,
            example=(obj({"a": {"type": "string"}, "b": {"type": "integer"}}, required=["a"]),
                     obj({"a": {"type": "string"}, "b": {"type": "integer"}}, required=["a", "b"])))
def required_property_added(site: Site, facts: Facts) -> Finding | None:
    """A property became required: old documents without it are rejected."""
    old, new = values(site, facts)
    added = sorted(set(new if isinstance(new, list) else []) - set(old if isinstance(old, list) else []))
    if not added:
        return None
    return Finding(or_absent(old), or_absent(new), subject=", ".join(added),
                   targets=tuple(Target(READER, {"properties": {n: False}}) for n in added))


@RULES.rule("CMP102", group="keyword", keywords=("required",), reader=SAFE, writer=BREAKING,
            example=(obj({"a": {"type": "string"}}, required=["a"]), obj({"a": {"type": "string"}})))
def required_property_removed(site: Site, facts: Facts) -> Finding | None:
    """A property is no longer required: new documents without it are rejected by old readers."""
    old, new = values(site, facts)
    removed = sorted(set(old if isinstance(old, list) else []) - set(new if isinstance(new, list) else []))
    if not removed:
        return None
    return Finding(or_absent(old), or_absent(new), subject=", ".join(removed),
                   targets=tuple(Target(WRITER, {"properties": {n: False}}) for n in removed))


def _declared_at(t: NameTransition) -> tuple[tuple[str, ...], str]:
    """The declaration of the property itself (``.../properties/<name>``)."""
    return (*t.path, "properties"), t.name


def _required_target(direction: Direction, name: str) -> Target:
    return Target(direction, {"required": [name]})


@RULES.rule("CMP103", group="member", reader=SAFE, writer=BREAKING,
            example=(obj({"a": {"type": "string"}}, additionalProperties=False),
                     obj({"a": {"type": "string"}, "b": {"type": "integer"}}, additionalProperties=False)))
def property_added_to_closed_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A property was added to an object that forbade it: old readers reject new documents
    that carry it."""
    if t.region != "named" or t.old.state != "forbidden" or t.new.state == "forbidden":
        return None
    return Finding("forbidden", t.new.state, subject=t.name, writer=t.writer if t.writer is not SAFE else None,
                   targets=(_required_target(WRITER, t.name),),
                   old_at=t.old.closer, new_at=_declared_at(t))


@RULES.rule("CMP104", group="member", reader=BREAKING, writer=SAFE,
            example=(obj({"a": {"type": "string"}}), obj({"a": {"type": "string"}, "b": {"type": "integer"}})))
def property_added_to_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A constrained property was added to an open object: old documents could carry that name
    with any value, and some are now rejected."""
    if t.region != "named" or t.old.declared or t.old.state != "any" or t.new.state != "schemas":
        return None
    return Finding("any value", "constrained", subject=t.name, targets=(_required_target(READER, t.name),),
                   new_at=_declared_at(t))


@RULES.rule("CMP105", group="member", reader=DERIVED, writer=DERIVED,
            example=(obj({"a": {"type": "string"}}, additionalProperties={"type": "string"}),
                     obj({"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}},
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
            example=(obj({"a": {"type": "string"}, "b": {}}, additionalProperties=False),
                     obj({"a": {"type": "string"}}, additionalProperties=False)))
def property_removed_from_closed_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A property was removed from a closed object: old documents that carry it are rejected."""
    if t.region != "named" or not t.old.declared or t.new.state != "forbidden" or t.old.state == "forbidden":
        return None
    return Finding(t.old.state, "forbidden", subject=t.name, targets=(_required_target(READER, t.name),),
                   old_at=_declared_at(t), new_at=t.new.closer)


@RULES.rule("CMP107", group="member", reader=SAFE, writer=BREAKING,
            example=(obj({"a": {"type": "string"}, "b": {"type": "integer"}}), obj({"a": {"type": "string"}})))
def property_removed_from_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A constrained property was removed from an open object: the name now takes any value,
    which old readers reject."""
    if t.region != "named" or not t.old.declared or t.new.declared or t.new.state != "any" or t.old.state != "schemas":
        return None
    return Finding("constrained", "any value", subject=t.name, targets=(_required_target(WRITER, t.name),),
                   old_at=_declared_at(t))


@RULES.rule("CMP108", group="member", reader=DERIVED, writer=DERIVED,
            example=(obj({"a": {"type": "string", "maxLength": 3}}, additionalProperties={"type": "string"}),
                     obj({}, additionalProperties={"type": "string"})))
def property_removed_from_partially_open_object(t: NameTransition, facts: Facts) -> Finding | None:
    """A declared property was removed where undeclared names are allowed under a schema: the
    verdicts compare the two schemas."""
    if t.region != "named" or not t.old.declared or t.new.declared or t.new.state != "schemas":
        return None
    return Finding("declared schema", "additional schema", subject=t.name, reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)),
                   old_at=_declared_at(t))


@RULES.rule("CMP109", group="member", reader=BREAKING, writer=SAFE,
            example=(obj({"a": {"type": "string"}}), obj({"a": {"type": "string"}}, additionalProperties=False)))
def object_closed(t: NameTransition, facts: Facts) -> Finding | None:
    """``additionalProperties`` or ``unevaluatedProperties`` became ``false``: old documents
    with undeclared members are rejected."""
    if t.region != "other" or t.old.state == "forbidden" or t.new.state != "forbidden":
        return None
    keyword = t.new.closer[1] if t.new.closer else "additionalProperties"
    return Finding(t.old.state, f"{keyword}: false", subject="undeclared names",
                   targets=(_required_target(READER, t.name),), new_at=t.new.closer)


@RULES.rule("CMP110", group="member", reader=SAFE, writer=BREAKING,
            example=(obj({"a": {"type": "string"}}, unevaluatedProperties=False), obj({"a": {"type": "string"}})))
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
            example=(obj({"a": {"type": "string"}}, additionalProperties={"type": "string"}),
                     obj({"a": {"type": "string"}})))
def additional_properties_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """What undeclared names may hold changed (neither side forbids them): the verdicts compare
    the two schemas."""
    if t.region != "other":
        return None
    return Finding(t.old.state, t.new.state, subject="undeclared names", reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


@RULES.rule("CMP112", group="member", reader=DERIVED, writer=DERIVED,
            example=(obj({}, additionalProperties=False),
                     obj({}, patternProperties={"^x-": {"type": "string"}}, additionalProperties=False)))
def pattern_property_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """Names matching a ``patternProperties`` pattern are constrained differently (a pattern was
    added, removed or now covers other names); checked on a name the pattern matches."""
    if t.region != "pattern":
        return None
    return Finding(t.old.state, t.new.state, subject=f"names like {t.name!r}", reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


@RULES.rule("CMP113", group="member", reader=DERIVED, writer=DERIVED,
            example=(obj({"x-a": {"type": "string"}}),
                     obj({"x-a": {"type": "string"}}, patternProperties={"^x-": {"maxLength": 2}})))
def property_constraint_changed(t: NameTransition, facts: Facts) -> Finding | None:
    """A declared property is now also (or no longer) held to another schema (a pattern, or
    ``additionalProperties`` of a sibling in ``allOf``): the verdicts compare the conjunctions."""
    if t.region != "named":
        return None
    return Finding(t.old.state, t.new.state, subject=t.name, reader=t.reader, writer=t.writer,
                   targets=(_required_target(READER, t.name), _required_target(WRITER, t.name)))


count_bound_rules(__name__, ("CMP114", "CMP115", "CMP116", "CMP117"), "object", "minProperties", "maxProperties")


@RULES.rule("CMP118", group="keyword", keywords=("dependentRequired",), reader=DERIVED, writer=DERIVED,
            example=(obj({"a": {}, "b": {}}), obj({"a": {}, "b": {}}, dependentRequired={"a": ["b"]})))
def dependent_required_changed(site: Site, facts: Facts) -> Finding | None:
    """``dependentRequired`` changed: added dependencies reject old documents, removed ones let
    through new documents old readers reject; except a dependency on a name the object requires
    anyway (in the version whose documents are judged), which asks nothing more of them."""
    old, new = values(site, facts)
    o = {k: set(v) for k, v in (old if isinstance(old, dict) else {}).items()}
    n = {k: set(v) for k, v in (new if isinstance(new, dict) else {}).items()}
    added = [(k, d) for k in n for d in n[k] - o.get(k, set())]
    removed = [(k, d) for k in o for d in o[k] - n.get(k, set())]
    if not added and not removed:
        return None
    # old documents hold every name the old version requires; new documents the new version's
    tightening = [(k, d) for k, d in added if d not in required_names(facts.node("old", site.path))]
    loosening = [(k, d) for k, d in removed if d not in required_names(facts.node("new", site.path))]
    implied = sorted({d for _, d in added + removed} - {d for _, d in tightening + loosening})
    targets = tuple(Target(READER, {"required": [k], "properties": {d: False}}) for k, d in tightening) + tuple(
        Target(WRITER, {"required": [k], "properties": {d: False}}) for k, d in loosening)
    return Finding(or_absent(old), or_absent(new), subject="dependentRequired",
                   reader=BREAKING if tightening else SAFE, writer=BREAKING if loosening else SAFE, targets=targets,
                   note=f"required anyway: {', '.join(implied)}" if implied else "")


@RULES.rule("CMP119", group="keyword", keywords=("propertyNames",), reader=DERIVED, writer=DERIVED,
            example=(obj({}), obj({}, propertyNames={"maxLength": 8})))
def property_names_changed(site: Site, facts: Facts) -> Finding | None:
    """``propertyNames`` was added, removed or replaced: the verdicts compare the two name
    schemas."""
    old, new = values(site, facts)
    reader, writer = facts.nested({} if old is MISSING else old, {} if new is MISSING else new)
    return Finding(or_absent(old), or_absent(new), subject="propertyNames", reader=reader, writer=writer,
                   targets=(Target(READER, {"minProperties": 1}), Target(WRITER, {"minProperties": 1})))

