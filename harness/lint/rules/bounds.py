"""Rules about size: strings, arrays, and the numbers that identify or count things."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from harness.lint.names import is_count, is_identifier, words
from harness.lint.registry import RULES, Severity
from harness.lint.shapes import has_int, is_closed_set
from harness.schemas.document import Node

_NUMERIC = frozenset({"integer", "number"})


def field_name(node: Node) -> str | None:
    """The member name a node describes; for the items of ``*_ids`` arrays, the singular."""
    if node.name is not None:
        return node.name
    parent = node.parent
    in_array = node.keyword in ("items", "prefixItems") and parent is not None
    if in_array and parent is not None and parent.name and words(parent.name)[-1:] == ("ids",):
        return parent.name[:-1]
    return None


def first_typed(node: Node, wanted: frozenset[str]) -> bool:
    """The node's instance can be one of ``wanted`` and no schema around it at the same
    instance already says so (that one is reported instead)."""
    doc = node.document
    types = doc.effective_types(node)
    if types is None or not types & wanted:
        return False
    return not any((t := doc.effective_types(a)) is not None and t & wanted
                   for a in doc.in_place_ancestors(node))


def _own_type_first(node: Node, wanted: str) -> bool:
    types = node.types
    if types is None or wanted not in types:
        return False
    return not any(a.types is not None and wanted in a.types
                   for a in node.document.in_place_ancestors(node))


def _bounds_length(node: Node) -> bool:
    return has_int(node, "maxLength") or is_closed_set(node)


def _fits_under(limit: int) -> Callable[[Node], bool]:
    def fits(node: Node) -> bool:
        return is_closed_set(node) or (has_int(node, "maxLength") and node.raw["maxLength"] <= limit)

    return fits


@RULES.rule(
    severity=Severity.WARNING,
    summary="string without maxLength (or with one past the contract's max_bytes)",
    fix='add "maxLength" with the longest value the field can legitimately hold',
)
def unbounded_string(node: Node) -> Iterator[str]:
    """Without ``maxLength`` a field meant for a short name can carry a megabyte of text, all
    of which reaches whatever reads the result. ``const``/``enum`` bound a string too. In a
    contract, a ``maxLength`` past ``limits.max_bytes`` bounds nothing the transport layer
    does not already refuse: the string may be as long as the whole payload.
    """
    if not _own_type_first(node, "string"):
        return
    doc = node.document
    if not doc.holds(node, _bounds_length):
        yield "string has no maxLength"
        return
    contract = doc.contract
    if contract is not None and not doc.holds(node, _fits_under(contract.limits.max_bytes)):
        yield (f"maxLength is past max_bytes ({contract.limits.max_bytes}): the string is bounded only by "
               "the payload limit")


def _bounds_items(node: Node) -> bool:
    if has_int(node, "maxItems") or is_closed_set(node):
        return True
    if node.has("prefixItems") and node.get("items") is False:
        return True
    return isinstance(node.get("items"), list) and node.get("additionalItems") is False


@RULES.rule(
    severity=Severity.WARNING,
    summary="array without maxItems",
    fix='add "maxItems" with the most entries a result can legitimately hold',
)
def unbounded_array(node: Node) -> Iterator[str]:
    """An array without ``maxItems`` lets one result grow without limit: a cost and a
    denial-of-service for everything downstream, and room for content nobody reviews.
    A closed tuple (``prefixItems`` with ``items: false``) is bounded.
    """
    if _own_type_first(node, "array") and not node.document.holds(node, _bounds_items):
        yield "array has no maxItems"


def _has_minimum(node: Node) -> bool:
    return has_int(node, "minimum") or has_int(node, "exclusiveMinimum") or is_closed_set(node)


def _has_maximum(node: Node) -> bool:
    return has_int(node, "maximum") or has_int(node, "exclusiveMaximum") or is_closed_set(node)


@RULES.rule(
    severity=Severity.WARNING,
    summary="identifier or count that is a number without minimum and maximum",
    fix='add "minimum" and "maximum" (an identifier: at most 9007199254740991, 2^53-1, the '
        "largest integer every JSON parser keeps exact)",
)
def unbounded_number(node: Node) -> Iterator[str]:
    """Identifiers and counts have a real range. Without one, an identifier can be negative or
    beyond 2^53 (where parsers silently round it to another identifier), and a count can be
    negative or absurd.
    """
    name = field_name(node)
    if not (is_identifier(name) or is_count(name)) or not first_typed(node, _NUMERIC):
        return
    doc = node.document
    missing = [b for b, ok in (("minimum", doc.holds(node, _has_minimum)),
                               ("maximum", doc.holds(node, _has_maximum))) if not ok]
    if missing:
        kind = "an identifier" if is_identifier(name) else "a count"
        yield f"{name!r} is {kind} with no {' and no '.join(missing)}"
