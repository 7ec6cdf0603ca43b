"""The Draft 2020-12 vocabulary as sets, for code that walks schemas already pinned to 2020-12
(an :func:`~harness.schemas.resolve.expand`-ed tree: generation, compat).

Nothing here is decided anew: every set is read off the one table in
:mod:`harness.schemas.dialects`. A keyword in none of them is *unknown*: walkers keep it as data
and the compat classifier treats a change to it as ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    "MEMBERED", "REFERENCES", "SINGLE", "SUBSCHEMA", "holds", "inlined", "is_annotation", "is_known", "map_subschemas",
    "steps", "subschemas",
]

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


def map_subschemas(node: Any, change: Callable[[Any], Any]) -> Any:
    """A copy of an expanded tree's node with ``change`` applied to each direct subschema (and
    every other keyword's value kept as it is)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        slot = holds(key, value)
        if slot is Slot.ONE:
            out[key] = change(value)
        elif slot is Slot.LIST:
            out[key] = [change(v) for v in value]
        elif slot is Slot.MAP:
            out[key] = {name: change(v) for name, v in value.items()}
        else:
            out[key] = value
    return out


def subschemas(node: object) -> list[tuple[tuple[str, ...], object]]:
    """The direct subschemas of a 2020-12 schema node as ``(relative path, subschema)`` pairs.

    ``$defs`` are not included: they are only reached through references.
    """
    if not isinstance(node, dict):
        return []
    found: list[tuple[tuple[str, ...], object]] = []
    for key, value in node.items():
        slot = holds(key, value)
        if slot is Slot.ONE:  # an expanded reference among them
            found.append(((key,), value))
        elif slot is Slot.LIST:
            found.extend(((key, str(i)), item) for i, item in enumerate(value))
        elif slot is Slot.MAP:
            found.extend(((key, name), item) for name, item in value.items())
    return found
