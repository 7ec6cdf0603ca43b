"""``CMP2xx``: values and types — finite value sets (``enum``, ``const``, ``null``/``boolean``
types) compared value by value with the validator, and ``type`` narrowed, widened or changed."""

from __future__ import annotations

from typing import Any

from harness.compat.diff import Site
from harness.compat.model import Direction
from harness.compat.normalise import json_key
from harness.compat.registry import DERIVED, RULES, Facts, Finding, Target, ValueDomain
from harness.compat.rules.common import BREAKING, READER, SAFE, WRITER, S, or_absent, values
from harness.pointer import MISSING


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
    old, new = values(site, facts)
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
    return Finding(or_absent(old), or_absent(new), subject=", ".join(lost),
                   targets=tuple(_type_target(READER, t, None if new is MISSING else new) for t in lost[:3]))


@RULES.rule("CMP207", group="keyword", keywords=("type",), reader=SAFE, writer=BREAKING,
            example=({"$schema": S, "type": "integer"}, {"$schema": S, "type": "number"}))
def type_widened(site: Site, facts: Facts) -> Finding | None:
    """Types were added: old readers reject new documents of those types."""
    old, new, lost, gained = _type_change(site, facts)
    if lost or not gained:
        return None
    return Finding(or_absent(old), or_absent(new), subject=", ".join(gained),
                   targets=tuple(_type_target(WRITER, t, None if old is MISSING else old) for t in gained[:3]))


@RULES.rule("CMP208", group="keyword", keywords=("type",), reader=BREAKING, writer=BREAKING,
            example=({"$schema": S, "type": "string"}, {"$schema": S, "type": "integer"}))
def type_changed(site: Site, facts: Facts) -> Finding | None:
    """Types were both removed and added: each version rejects documents of the other."""
    old, new, lost, gained = _type_change(site, facts)
    if not lost or not gained:
        return None
    return Finding(or_absent(old), or_absent(new), subject=f"-{', '.join(lost)} +{', '.join(gained)}",
                   targets=tuple(_type_target(READER, t, None if new is MISSING else new) for t in lost[:2])
                   + tuple(_type_target(WRITER, t, None if old is MISSING else old) for t in gained[:2]))

