"""Rules about which members an object lets through: open objects, composition closed the
wrong way, free-form maps, values that may be anything."""

from __future__ import annotations

import re
from collections.abc import Iterator

from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.shapes import declares_object, excludes_objects, has_int
from harness.schemas.dialects import accepts_anything
from harness.schemas.document import Document, Node

_OLD_FIX = 'add "additionalProperties": false beside "properties" (this dialect has no ' \
           "unevaluatedProperties: list every member at the level that closes the object)"


def _closes(node: Node) -> bool:
    return _closes_within(node, frozenset())


def _closes_within(node: Node, visiting: frozenset[str]) -> bool:
    """Whether this subschema alone shuts out undeclared members."""
    if node.schema is False:
        return True
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if node.has(keyword) and not accepts_anything(node.raw[keyword], node.document.dialect):
            return True
    if node.pointer in visiting:
        return False
    inner = visiting | {node.pointer}
    doc = node.document
    for keyword in ("oneOf", "anyOf"):
        branches = [b for b in doc.kids(node, keyword)
                    if not any(excludes_objects(c) for c in doc.conjuncts(b))]
        if branches and all(any(_closes_within(c, inner) for c in doc.conjuncts(b))
                            for b in branches):
            return True
    return False


@RULES.rule(
    severity=Severity.ERROR,
    summary="object without additionalProperties: false or unevaluatedProperties: false",
    fix='add "additionalProperties": false beside "properties" (where allOf/$ref compose the '
        'object: "unevaluatedProperties": false at the composed object)',
    vendor=False,
)
def open_object(node: Node) -> Iterator[str | Hit]:
    """An open object lets an upstream add members nobody declared — a ``message`` carrying an
    instruction, an ``admin_override`` flag — and every one of them passes the schema layer.
    A definition is judged where it is used: it is open if some ``$ref`` to it leaves it open.
    A contract's vendor schema is not judged: it states only what the adapter reads of a broad
    vendor document and is open on purpose (vendor churn elsewhere never breaks the boundary);
    the adapter emits the contract object, which the versions close.
    """
    doc = node.document
    if not declares_object(node) or any(declares_object(a) for a in doc.in_place_ancestors(node)):
        return
    if doc.holds(node, _closes):
        return
    message = "object accepts members it does not declare"
    yield Hit(message, fix=_OLD_FIX) if doc.ref_overrides else message


def _declared(node: Node) -> set[str]:
    members = node.get("properties")
    return set(members) if isinstance(members, dict) else set()


def _allowed_by_pattern(node: Node, name: str) -> bool:
    patterns = node.get("patternProperties")
    for pattern in patterns if isinstance(patterns, dict) else ():
        try:
            if re.search(pattern, name):
                return True
        except re.error:
            continue
    return False


def _together(doc: Document, node: Node) -> list[list[Node]]:
    """Groups of subschemas that apply to one instance together: the node's conjuncts, and
    those plus one ``oneOf``/``anyOf`` branch at a time."""
    base = list(doc.conjuncts(node))
    groups = [base]
    for part in base:
        for keyword in ("oneOf", "anyOf"):
            for branch in doc.kids(part, keyword):
                groups.append(base + list(doc.conjuncts(branch)))
    return groups


def _composes(doc: Document, node: Node) -> bool:
    if any(doc.kids(node, k) for k in ("allOf", "anyOf", "oneOf")):
        return True
    return not doc.ref_overrides and doc.target(node) is not None


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.DOCUMENT,
    summary="allOf/$ref composition closed with additionalProperties instead of "
            "unevaluatedProperties",
    fix='replace "additionalProperties": false with "unevaluatedProperties": false at the '
        "composed object (draft-07 and older: repeat every member at the closing level)",
)
def closed_with_additional_properties(doc: Document) -> Iterator[Hit]:
    """``additionalProperties`` only sees the ``properties`` beside it, never those declared in
    ``allOf``, ``oneOf`` or a ``$ref``. Closing a composed object with it either rejects the
    members its branches declare (the object can never validate with them) or, when the
    closing schema is a branch, rejects the members declared beside it.
    ``unevaluatedProperties`` sees through composition.
    """
    seen: set[tuple[str, frozenset[str]]] = set()
    for node in doc.nodes:
        if not node.asserting or not _composes(doc, node):
            continue
        for group in _together(doc, node):
            for closer in group:
                if not closer.has("additionalProperties") or accepts_anything(
                    closer.raw["additionalProperties"], closer.document.dialect
                ):
                    continue
                allowed = _declared(closer)
                foreign = {
                    name
                    for other in group
                    if other is not closer
                    for name in _declared(other)
                    if name not in allowed and not _allowed_by_pattern(closer, name)
                }
                key = (closer.pointer, frozenset(foreign))
                if not foreign or key in seen:
                    continue
                seen.add(key)
                names = ", ".join(repr(n) for n in sorted(foreign))
                verb = "is" if len(foreign) == 1 else "are"
                if closer is node:
                    yield Hit(f"additionalProperties here cannot see members declared in "
                              f"allOf/oneOf/$ref: {names} {verb} rejected",
                              pointer=node.at("additionalProperties"))
                else:
                    yield Hit(f"{closer.pointer or '/'} closes the object with "
                              f"additionalProperties, so {names} declared beside it can never "
                              "be present", pointer=node.pointer)


def _bounds_members(node: Node) -> bool:
    return has_int(node, "maxProperties")


def _constrains_names(node: Node) -> bool:
    names = node.get("propertyNames")
    if names is False:
        return True
    return isinstance(names, dict) and any(
        k in names for k in ("pattern", "enum", "const", "maxLength")
    )


@RULES.rule(
    severity=Severity.WARNING,
    summary="free-form map: patternProperties or an additionalProperties schema without bounds",
    fix='add "maxProperties" and "propertyNames": {"pattern": "^...$", "maxLength": N}, or '
        "declare the members as properties",
)
def free_form_map(node: Node) -> Iterator[Hit]:
    """A map whose members are described by ``additionalProperties``/``unevaluatedProperties``
    schemas or ``patternProperties`` takes any number of members, under any names the
    patterns allow: a place to smuggle text or to grow a result without limit.
    """
    maps = [k for k in ("additionalProperties", "unevaluatedProperties")
            if node.has(k) and isinstance(node.raw[k], dict)
            and not accepts_anything(node.raw[k], node.document.dialect)]
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict) and patterns:
        maps.append("patternProperties")
    if not maps:
        return
    doc = node.document
    missing = [] if doc.holds(node, _bounds_members) else ["maxProperties"]
    if maps != ["patternProperties"] and not doc.holds(node, _constrains_names):
        missing.append("propertyNames")
    if missing:
        yield Hit(f"free-form map: {maps[0]} takes any number of members "
                  f"(no {' and no '.join(missing)})", pointer=node.at(maps[0]))


_VALUE_POSITIONS = frozenset({"properties", "patternProperties", "items", "prefixItems",
                              "additionalItems"})


@RULES.rule(
    severity=Severity.WARNING,
    summary="member or item whose schema accepts any JSON value",
    fix='give it a "type" and the constraints of that type (or "const"/"enum")',
)
def untyped_value(node: Node) -> Iterator[str]:
    """A member declared as ``{}``, ``true`` or only a description accepts any JSON value:
    an object, a megabyte string, a deep array. Declaring it documents the name and nothing
    else.
    """
    if node.keyword in _VALUE_POSITIONS and accepts_anything(node.schema, node.document.dialect):
        what = f"member {node.key!r}" if node.keyword == "properties" else "value"
        yield f"{what} accepts any JSON value"
