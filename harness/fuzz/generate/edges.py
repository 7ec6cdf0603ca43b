"""Boundary values: the edges of each constraint, pushed into generated documents.

A random search draws short strings and small numbers; the bugs live at the edges. For a
document valid under a schema, :func:`edges` lists, for each value, the boundary values its
schema allows: a string of exactly ``maxLength`` (and of exactly ``minLength``) that still
matches its ``pattern`` (:mod:`harness.fuzz.generate.regex`), the first and last ``enum`` members,
``minimum``/``maximum`` (and the nearest values inside exclusive bounds), arrays of exactly
``maxItems``/``minItems`` items. :func:`with_boundary_values` wraps a document strategy: each
draw may push a few values (chosen by hypothesis, so shrinking removes them) to an edge; the
result is re-validated with the production validator, and an edge the whole schema refuses
(``oneOf`` exclusivity, ``uniqueItems``, ...) falls back to the document as generated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from hypothesis import strategies as st

from harness.fuzz.generate.regex import MAX_LENGTH, exact_length
from harness.fuzz.generate.shared import pick, subset
from harness.pointer import MISSING, resolve, split
from harness.schemas import Document, Node

if TYPE_CHECKING:
    from harness.boundary.validator import SchemaValidator

#: At most this many values are pushed to an edge in one document.
MAX_EDGES_PER_DOCUMENT = 3
_MAX_ITEMS_EDGE = 256


@dataclass(frozen=True, slots=True)
class Site:
    """One value of a document and the boundary values its schema allows there."""

    pointer: str
    #: Each a value, or a strategy of values (exact-length strings).
    edges: tuple[Any, ...]
    kinds: tuple[str, ...]


def _number_edges(nodes: list[Node], value: int | float) -> list[Any]:
    integer = isinstance(value, int)
    found: list[Any] = []
    for node in nodes:
        for key in ("minimum", "maximum"):
            bound = node.get(key)
            if isinstance(bound, int | float) and not isinstance(bound, bool):
                if integer:
                    bound = math.ceil(bound) if key == "minimum" else math.floor(bound)
                found.append(bound)
        for key, step in (("exclusiveMinimum", 1), ("exclusiveMaximum", -1)):
            bound = node.get(key)
            if isinstance(bound, int | float) and not isinstance(bound, bool) and math.isfinite(bound):
                if integer:
                    found.append(math.floor(bound) + 1 if step > 0 else math.ceil(bound) - 1)
                else:
                    found.append(math.nextafter(bound, math.inf * step))
    return found


def _string_edges(nodes: list[Node]) -> list[st.SearchStrategy[Any]]:
    patterns = sorted({n.get("pattern") for n in nodes if isinstance(n.get("pattern"), str)})
    if len(patterns) > 1 or any(n.has("format") for n in nodes):
        return []  # several patterns or a format: leave it to the generator
    pattern = patterns[0] if patterns else None
    found = []
    for key in ("maxLength", "minLength"):
        for node in nodes:
            length = node.get(key)
            if isinstance(length, int) and 0 <= length <= MAX_LENGTH:
                strategy = exact_length(pattern, length)
                if strategy is not None:
                    found.append(strategy)
    return found


def formatted(format_name: str, length: int) -> str | None:
    """A string of exactly ``length`` characters in ``format_name`` (as the format assertions
    read it), for the formats whose strings may be arbitrarily long: ``uri`` and its kin
    (a longer path), ``date-time`` (more fractional digits), ``email`` (a longer local part, up
    to 64), ``regex``. None for the others, or a length the format cannot have. Random
    generation almost never reaches such lengths."""
    if format_name in ("uri", "iri", "url", "uri-reference", "iri-reference"):
        if length >= 13:
            return "https://e.co/" + "a" * (length - 13)
        return "x:" + "a" * (length - 2) if length >= 3 else None
    if format_name == "date-time":
        if length == 20:
            return "2020-01-01T00:00:00Z"
        return "2020-01-01T00:00:00." + "0" * (length - 21) + "Z" if length >= 22 else None
    if format_name == "email":
        local = length - len("@example.com")
        return "a" * local + "@example.com" if 1 <= local <= 64 else None
    if format_name == "regex":
        return "a" * length
    return None


def _array_edges(nodes: list[Node], value: list[Any]) -> list[Any]:
    found: list[Any] = []
    for node in nodes:
        longest, shortest = node.get("maxItems"), node.get("minItems")
        if isinstance(longest, int) and value and len(value) < longest <= _MAX_ITEMS_EDGE:
            found.append([value[i % len(value)] for i in range(longest)])
        if isinstance(shortest, int) and 0 <= shortest < len(value):
            found.append(value[:shortest])
    return found


def edges(model: Document, document: Any) -> list[Site]:
    """Every value of ``document`` with at least one boundary value, in document order; the
    constraints on each are read from the schema model (:meth:`Document.walk_instance`)."""
    sites: list[Site] = []
    for pointer, value, nodes in model.walk_instance(document):
        strategies: list[Any] = []
        kinds: list[str] = []
        enums = [n.get("enum") for n in nodes if isinstance(n.get("enum"), list) and n.get("enum")]
        for members in enums:
            ends = [members[0]] if len(members) == 1 or members[0] == members[-1] else [members[0], members[-1]]
            for member in ends:
                if member != value:
                    strategies.append(member)
                    kinds.append("enum")
        if not enums:
            if isinstance(value, str):
                text = _string_edges(nodes)
                strategies += text
                kinds += ["length"] * len(text)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                numbers = [n for n in _number_edges(nodes, value) if n != value]
                strategies += numbers
                kinds += ["range"] * len(numbers)
            elif isinstance(value, list):
                arrays = _array_edges(nodes, value)
                strategies += arrays
                kinds += ["items"] * len(arrays)
        if strategies:
            sites.append(Site(pointer, tuple(strategies), tuple(kinds)))
    return sites


def _set(document: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    if isinstance(document, dict):
        return {**document, head: _set(document[head], rest, value)}
    copy = list(document)
    copy[int(head)] = _set(copy[int(head)], rest, value)
    return copy


class EdgeCounts(Protocol):
    """Where the documents that kept a value at an edge, and those whose edge the validator
    refused, are counted (:class:`harness.fuzz.generate.documents.GenerationStats`)."""

    boundary: int
    boundary_invalid: int


def with_boundary_values(
    documents: st.SearchStrategy[Any],
    model: Document,
    validator: SchemaValidator,
    stats: EdgeCounts | None = None,
) -> st.SearchStrategy[Any]:
    """``documents``, with up to :data:`MAX_EDGES_PER_DOCUMENT` values pushed to an edge.

    ``model`` is the schema model of the schema ``validator`` compiles; ``stats`` counts the
    documents that kept a boundary value (``boundary``) and those the validator refused
    (``boundary_invalid``, which fall back to the document as generated).
    """

    @st.composite
    def pushed(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Any:
        document = draw(documents)
        sites = edges(model, document)
        if not sites:
            return document
        chosen = draw(subset(len(sites), 0, min(MAX_EDGES_PER_DOCUMENT, len(sites))))
        if not chosen:
            return document
        pushed_document = document
        for index in sorted(chosen):
            site = sites[index]
            tokens = split(site.pointer)
            if resolve(pushed_document, tokens) is MISSING:
                continue  # inside an array an earlier edge shortened
            edge = site.edges[draw(pick(len(site.edges)))]
            value = draw(edge) if isinstance(edge, st.SearchStrategy) else edge
            pushed_document = _set(pushed_document, tokens, value)
        if validator.is_valid(pushed_document):
            if stats is not None:
                stats.boundary += 1
            return pushed_document
        if stats is not None:
            stats.boundary_invalid += 1
        return document

    return pushed()
