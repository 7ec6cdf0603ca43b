"""Where the reference's walks step: the validator python-jsonschema evaluates each subschema with,
and the one keyword table the walks read.

Both walks (:mod:`harness.differential.whole`, the reference's verdict on a whole document, and
:mod:`harness.differential.confirm`, a rejection shown on a part) evaluate each subschema with the
validator object python-jsonschema's own evaluation makes for it there: :class:`Steps` makes it
from the schema-side path that reaches the subschema, once.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema

from harness.internals import jsonschema_applicable, jsonschema_evolve, jsonschema_resolver
from harness.schemas.dialects import BRANCHES, REF_KEYWORDS, UNIONS

# ------------------------------------------------------------------------- the keyword table

#: How the walks take a keyword. ``CALLED``: its function is called as ``iter_errors`` calls it.
#: The others are followed into their subschemas by the walks themselves: ``PROPERTIES`` (the
#: member a name holds), ``ALL_OF`` (each subschema, on the same instance), ``REF`` (its target,
#: on the same instance), ``PREFIX_ITEMS`` (the item at each position), ``ITEMS`` (each item past
#: ``prefixItems``), ``LEGACY_ITEMS`` (an older dialect's ``items``: the item at each position when
#: it holds an array of schemas, else every item), ``ANY_OF`` and ``ONE_OF`` (the branches).
CALLED, PROPERTIES, ALL_OF, REF, PREFIX_ITEMS, ITEMS, LEGACY_ITEMS, ANY_OF, ONE_OF = range(9)

#: The keywords the walks follow, by how. Each applies its subschemas to an instance that the
#: schema and the instance fix before anything is evaluated, and its errors are its subschemas'
#: (the unions': one, when no branch holds, or two that do for ``oneOf``). Which group each keyword
#: is in is the dialect table's (:mod:`harness.schemas.dialects`): the in-place branches
#: (``BRANCHES``: every one must hold, or for the ``UNIONS`` one), the reference whose target the
#: schema alone fixes (the first of ``REF_KEYWORDS``; a dynamic one's depends on the evaluation's
#: scope), the members by name and the items by position and past it (of ``MEMBERS`` and
#: ``ITEMS``: the others depend on patterns or on what else was evaluated).
FOLLOWED: dict[str, int] = {
    **{keyword: ALL_OF for keyword in BRANCHES.difference(UNIONS)},
    **dict(zip(UNIONS, (ANY_OF, ONE_OF), strict=True)),
    REF_KEYWORDS[0]: REF,
    "properties": PROPERTIES,
    "prefixItems": PREFIX_ITEMS,
    "items": ITEMS,
}

#: The walks' keywords by python-jsonschema's function for each (how a subschema's class says what
#: a keyword means in its dialect): its Draft 2020-12 class's, and the ``items`` of the dialects
#: in which ``items`` may hold an array of schemas, as the draft-07 class holds it (drafts 6 to
#: 2019-09 share it).
BY_FUNCTION: dict[Callable[..., Any], int] = {
    **{jsonschema.Draft202012Validator.VALIDATORS[keyword]: how for keyword, how in FOLLOWED.items()},
    jsonschema.Draft7Validator.VALIDATORS["items"]: LEGACY_ITEMS,
}
#: The steps of :data:`BY_FUNCTION` that are conjunctive: an error of a subschema reached is an
#: error of its parent (every one but the unions).
CONJUNCTIVE = frozenset({PROPERTIES, ALL_OF, REF, PREFIX_ITEMS, ITEMS, LEGACY_ITEMS})
UNION = frozenset({ANY_OF, ONE_OF})


# ------------------------------------------------------------------------- a subschema's validator

_SPECIFICATIONS: dict[type, Any] = {}


def _specification(cls: type) -> Any:
    """The ``referencing`` specification a python-jsonschema validator class creates resources
    with in ``descend`` (as ``jsonschema.validators.create`` computes it)."""
    found = _SPECIFICATIONS.get(cls)
    if found is None:
        found = _SPECIFICATIONS[cls] = referencing.jsonschema.specification_with(
            dialect_id=cls.ID_OF(cls.META_SCHEMA) or "urn:unknown-dialect",  # type: ignore[attr-defined]
            default=referencing.Specification.OPAQUE,
        )
    return found


def descend(validator: Any, schema: Any, resolver: Any = None) -> Any:
    """The validator python-jsonschema's ``descend`` evaluates ``schema`` with, from ``validator``."""
    if isinstance(schema, bool):
        return validator.evolve(schema=schema)
    if resolver is None:
        resource = _specification(type(validator)).create_resource(schema)
        resolver = jsonschema_resolver(validator).in_subresource(resource)
    return jsonschema_evolve(validator, schema, resolver)


def descend_ref(validator: Any, ref: str) -> Any:
    """The validator python-jsonschema evaluates a ``$ref``'s target with, from ``validator``."""
    resolved = jsonschema_resolver(validator).lookup(ref)  # as ``_validate_reference`` looks it up
    return descend(validator, resolved.contents, resolved.resolver)


def as_index(token: Any) -> int | None:
    """A path token as an array index (None: it is none)."""
    if isinstance(token, int) and not isinstance(token, bool):
        return token
    return int(token) if isinstance(token, str) and token.isdigit() else None


#: How many subschemas' validators one reference validator keeps (a recursive schema has no end
#: of paths; past this, new ones are made each time).
_MAX_STEPS = 4096


#: A subschema as the walks know it: the validator python-jsonschema evaluates it with, its
#: applicable keywords (name -> (keyword function, value)), a number of its own (what
#: the whole walk remembers verdicts under), the nodes of its subschemas by the steps that
#: reach them from it (``("properties", "name")``: the path to the child and the child), and
#: its keywords as the whole walk takes them (made on its first evaluation).
Node = tuple[Any, dict[str, tuple[Any, Any]], int, dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]],
             list[tuple[int, str, Any, Any]]]
_NODES = itertools.count()


class Steps:
    """The validator python-jsonschema evaluates a subschema with, by the schema-side path that
    reaches it from the root (keywords, member names, indices), with its applicable keywords.

    Each is a function of that path alone — the subschema, the ``referencing`` resolver (base
    URI, dynamic scope) and the validator class are made from the path's steps, whatever the
    instance — so each is made once."""

    def __init__(self, root: Any) -> None:
        self._known: dict[tuple[Any, ...], Node] = {}
        #: The confirming walk's walks, by the paths they followed: where each stopped, and the
        #: descents into the instance on the way (False: one stopped on a condition of the
        #: instance, so walked afresh each time).
        self.plans: dict[tuple[Any, ...], Any] = {}
        self.root = self.at((), lambda: root)

    def at(self, key: tuple[Any, ...], make: Callable[..., Any], *args: Any, **kwargs: Any) -> Node:
        """The node at ``key``; made (its validator ``make(*args, **kwargs)``) the first time."""
        found = self._known.get(key)
        if found is None:
            validator = make(*args, **kwargs)
            applicable = {name: (function, value) for function, name, value in jsonschema_applicable(validator)} \
                if isinstance(validator.schema, dict) else {}
            found = (validator, applicable, next(_NODES), {}, [])
            if len(self._known) < _MAX_STEPS:
                self._known[key] = found
        return found
