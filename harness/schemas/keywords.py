"""The Draft 2020-12 vocabulary as sets, and the one traversal of trees already pinned to 2020-12
(an :func:`~harness.schemas.resolve.expand`-ed tree: generation, compat).

Nothing here is decided anew: every set is read off the one table in
:mod:`harness.schemas.dialects`. A keyword in none of them is *unknown*: walkers keep it as data
and the compat classifier treats a change to it as ``unsupported``.

How an expanded tree holds its subschemas is said once, by :func:`holds`; :func:`held` lists
what one keyword's value holds, :func:`walk` visits every subschema of a tree (or only those
reached through some keywords: the in-place members), :func:`map_held` and
:func:`map_subschemas` rebuild a node's subschemas. Code that reads or rebuilds an expanded tree
goes through them instead of telling lists from maps itself.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from harness.schemas.dialects import (
    ANNOTATIONS as _ANNOTATIONS,
)
from harness.schemas.dialects import (
    ASSERTIONS,
    BRANCHES,
    CONTAINERS,
    IN_PLACE,
    REF_KEYWORDS,
    SLOTS,
    VOCABULARIES,
    Slot,
)

__all__ = [
    "ANNOTATIONS", "ASSERTIONS", "BRANCHES", "DEFS", "IN_PLACE", "KNOWN", "LEGACY", "LIST", "MAP",
    "MEMBERED", "REFERENCES", "SINGLE", "SUBSCHEMA", "Path", "held", "holds", "inlined", "is_annotation", "is_known",
    "map_held", "map_subschemas", "steps", "subschemas", "walk",
]

#: The tokens from a node of an expanded tree to one of its subschemas, or from the tree's root.
Path = tuple[str, ...]

_VOCABULARY = VOCABULARIES["2020-12"]
_HOLDERS = {k: s for k, s in SLOTS.items() if k in _VOCABULARY and k not in CONTAINERS}

#: Keywords whose value is one subschema.
SINGLE: frozenset[str] = frozenset(k for k, s in _HOLDERS.items() if s in (Slot.ONE, Slot.ITEMS))
#: Keywords whose value is a list of subschemas.
LIST: frozenset[str] = frozenset(k for k, s in _HOLDERS.items() if s is Slot.LIST)
#: Keywords whose value maps names to subschemas.
MAP: frozenset[str] = frozenset(k for k, s in _HOLDERS.items() if s is Slot.MAP)
#: Containers of reusable subschemas, reached only through ``$ref``.
DEFS: frozenset[str] = CONTAINERS
#: References: ``$ref`` is modelled (expanded); the dynamic forms are not.
REFERENCES: frozenset[str] = frozenset(REF_KEYWORDS)
#: Keywords that never change which documents are valid (for our validator); the containers
#: among them (they validate nothing until referenced).
ANNOTATIONS: frozenset[str] = (_ANNOTATIONS & _VOCABULARY) | CONTAINERS
#: Older-dialect spellings that are rewritten to their 2020-12 form when a schema is pinned.
LEGACY: frozenset[str] = frozenset({"additionalItems", "dependencies", "$recursiveAnchor", "id"})
IN_PLACE = IN_PLACE & (_VOCABULARY | REFERENCES)

KNOWN: frozenset[str] = SINGLE | LIST | MAP | ASSERTIONS | ANNOTATIONS | REFERENCES | LEGACY

#: In an expanded tree, keywords whose value is one subschema: :data:`SINGLE` and ``$ref``,
#: which holds its target where :func:`~harness.schemas.resolve.expand` inlined it beside
#: sibling keywords (a ``$ref`` kept as written holds a string).
SUBSCHEMA: frozenset[str] = SINGLE | {"$ref"}
#: Keywords whose subschemas are members: listed (:data:`LIST`) or named (:data:`MAP`). A path
#: through the tree takes two tokens at them (the keyword, then the index or name).
MEMBERED: frozenset[str] = LIST | MAP


def holds(keyword: str, value: object) -> Slot | None:
    """How ``keyword`` holds subschemas in an expanded tree (``ONE``, ``LIST`` or ``MAP``), or
    None when its value is data (an assertion, an annotation, a reference kept as written, a
    value of the wrong shape)."""
    if keyword in SUBSCHEMA:
        return Slot.ONE if isinstance(value, dict | bool) else None
    if keyword in LIST:
        return Slot.LIST if isinstance(value, list) else None
    if keyword in MAP:
        return Slot.MAP if isinstance(value, dict) else None
    return None


def inlined(node: object) -> object | None:
    """The target a ``$ref`` of an expanded tree's node holds where
    :func:`~harness.schemas.resolve.expand` inlined it beside sibling keywords (applied in place,
    like an ``allOf`` member); None when the node has none or kept its reference as written."""
    target = node.get("$ref") if isinstance(node, dict) else None
    return target if isinstance(target, dict | bool) else None


def steps(token: str) -> int:
    """How many tokens of a path into an expanded tree one subschema step takes from ``token``:
    two at a member keyword (the keyword, then the index or name), else one."""
    return 2 if token in MEMBERED else 1


def is_annotation(keyword: str) -> bool:
    """True for keywords that only annotate, including ``x-`` extensions (OpenAPI style)."""
    return keyword in ANNOTATIONS or keyword.startswith("x-")


def is_known(keyword: str) -> bool:
    return keyword in KNOWN or keyword.startswith("x-")


def did_you_mean(keyword: str, vocabulary: Iterable[str] = KNOWN) -> str:
    """`` (did you mean 'maxLength'?)`` for an unknown keyword one typo from one of
    ``vocabulary`` (default: every keyword of the dialects the harness knows), else ``""``."""
    import difflib

    close = difflib.get_close_matches(keyword, sorted(vocabulary), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def held(keyword: str, value: object) -> Iterator[tuple[Path, Any]]:
    """The subschemas ``keyword``'s value holds in an expanded tree, each with the tokens that lead
    to it from the node: ``(keyword,)``, or ``(keyword, index or name)``. Nothing for data."""
    slot = holds(keyword, value)
    if slot is Slot.ONE:
        yield (keyword,), value
    elif slot is Slot.LIST:
        assert isinstance(value, list)
        for index, item in enumerate(value):
            yield (keyword, str(index)), item
    elif slot is Slot.MAP:
        assert isinstance(value, dict)
        for name, item in value.items():
            yield (keyword, name), item


def subschemas(node: object) -> list[tuple[Path, Any]]:
    """The direct subschemas of a 2020-12 schema node as ``(relative path, subschema)`` pairs.

    ``$defs`` are not included: they are only reached through references.
    """
    if not isinstance(node, dict):
        return []
    return [found for key, value in node.items() for found in held(key, value)]


def walk(tree: object, *, into: Collection[str] | None = None, path: Path = ()
         ) -> Iterator[tuple[Path, Any, Slot | None]]:
    """Every subschema of an expanded tree, the tree first, depth first in document order: its
    path from the tree (``path`` prefixed), the subschema, and how the node above holds it
    (``ONE``, ``LIST``, ``MAP``; None for the tree itself). With ``into``, only the subschemas
    reached through those keywords (``{"allOf", "$ref"}``: the members that always apply in
    place)."""
    stack: list[tuple[Path, Any, Slot | None]] = [(path, tree, None)]
    while stack:
        here, node, slot = stack.pop()
        yield here, node, slot
        if isinstance(node, dict):
            below = [(here + tokens, sub, holds(key, value)) for key, value in node.items()
                     if into is None or key in into for tokens, sub in held(key, value)]
            stack.extend(reversed(below))


def map_held(keyword: str, value: Any, change: Callable[[Any, Path], Any]) -> Any:
    """``keyword``'s value with ``change(subschema, tokens)`` applied to each subschema it holds
    (the tokens as :func:`held` gives them); a value holding none is returned as it is."""
    slot = holds(keyword, value)
    if slot is Slot.ONE:
        return change(value, (keyword,))
    if slot is Slot.LIST:
        return [change(item, (keyword, str(index))) for index, item in enumerate(value)]
    if slot is Slot.MAP:
        return {name: change(item, (keyword, name)) for name, item in value.items()}
    return value


def map_subschemas(node: Any, change: Callable[[Any], Any]) -> Any:
    """A copy of an expanded tree's node with ``change`` applied to each direct subschema (and
    every other keyword's value kept as it is)."""
    if not isinstance(node, dict):
        return node
    return {key: map_held(key, value, lambda sub, _tokens: change(sub)) for key, value in node.items()}
