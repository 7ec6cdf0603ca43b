"""The Draft 2020-12 vocabulary as sets, for code that walks schemas already pinned to 2020-12
(an :func:`~harness.schemas.resolve.expand`-ed tree: generation, compat).

Nothing here is decided anew: every set is read off the one table in
:mod:`harness.schemas.dialects`. A keyword in none of them is *unknown*: walkers keep it as data
and the compat classifier treats a change to it as ``unsupported``.
"""

from __future__ import annotations

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
    "REFERENCES", "SINGLE", "is_annotation", "is_known", "subschemas",
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


def is_annotation(keyword: str) -> bool:
    """True for keywords that only annotate, including ``x-`` extensions (OpenAPI style)."""
    return keyword in ANNOTATIONS or keyword.startswith("x-")


def is_known(keyword: str) -> bool:
    return keyword in KNOWN or keyword.startswith("x-")


def subschemas(node: object) -> list[tuple[tuple[str, ...], object]]:
    """The direct subschemas of a 2020-12 schema node as ``(relative path, subschema)`` pairs.

    ``$defs`` are not included: they are only reached through references.
    """
    if not isinstance(node, dict):
        return []
    found: list[tuple[tuple[str, ...], object]] = []
    for key, value in node.items():
        if key in SINGLE and isinstance(value, dict | bool):
            found.append(((key,), value))
        elif key in LIST and isinstance(value, list):
            found.extend(((key, str(i)), item) for i, item in enumerate(value))
        elif key in MAP and isinstance(value, dict):
            found.extend(((key, name), item) for name, item in value.items())
        elif key == "$ref" and isinstance(value, dict | bool):  # an expanded reference
            found.append(((key,), value))
    return found
