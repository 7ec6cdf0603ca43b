"""The reference's verdict on a whole document, taken by a walk that remembers each part's.

:func:`valid` is python-jsonschema's verdict (whether ``iter_errors`` yields no error), obtained by
evaluating each subschema of the document with the validator object the library's own evaluation
makes for it (:class:`~harness.differential.steps.Steps`) and remembering each subschema's verdict
on each part of a document it evaluated: a part of a later document equal to one already seen (a
fixture's unchanged members in each of its mutants, an object repeated in an array) is not
evaluated again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.differential.steps import (
    ALL_OF,
    BY_FUNCTION,
    CALLED,
    ITEMS,
    LEGACY_ITEMS,
    ONE_OF,
    PREFIX_ITEMS,
    PROPERTIES,
    REF,
    Node,
    Steps,
    descend,
    descend_ref,
)

#: The verdicts :func:`valid` remembers, of every reference validator of the process, by
#: (the subschema's node number, :func:`_text` of a part of a document: a node is one subschema
#: path of one reference validator); at most about :data:`_KNOWN_CHARS_MAX` characters of text
#: in all (then they are forgotten at once), so memory stays flat however many contracts and
#: documents a run checks.
_KNOWN: dict[tuple[int, str], bool] = {}
_KNOWN_CHARS_MAX = 16 << 20
_known_chars = 0
#: A part of a document whose text is longer than this is evaluated without being remembered.
_KNOWN_TEXT_MAX = 16 << 10
#: The schema-side path step of the branches python-jsonschema's ``oneOf`` evaluates after the
#: first valid one, with ``evolve`` rather than ``descend`` (the parent's resolver kept): an
#: object no schema path holds.
_EVOLVED = object()
_canonical: Callable[[Any], str] = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode


def _text(instance: Any) -> str:
    """A part of a document as a string that two parts share only when python-jsonschema cannot
    tell them apart: its type and value (``1``, ``1.0`` and ``true`` apart; an object's members
    in sorted order, which no keyword's verdict depends on)."""
    kind = type(instance)
    if kind is str:
        return "s" + str(instance)
    if kind is int:
        return "i" + str(instance)
    if kind is bool:
        return "t" if instance else "f"
    if instance is None:
        return "n"
    if kind is float:
        return "d" + repr(instance)
    return "j" + _canonical(instance)


class _Unwalkable(Exception):
    """The walk meets a step it does not follow exactly (the library decides)."""


def _child(steps: Steps, at: Node, path: tuple[Any, ...], token: tuple[Any, ...], make: Callable[..., Any],
           *args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], Node]:
    """The path to the subschema ``token`` names from the node ``at`` (at ``path``), and its node
    (the validator ``make(*args, **kwargs)`` gives, and its keywords), each made once."""
    children = at[3]
    found = children.get(token)
    if found is None:
        key = (*path, *token)
        node = steps.at(key, make, *args, **kwargs)
        if type(node[0]) is not type(at[0]):
            # ``descend`` takes the keywords of a subschema with the parent class's
            # ``applicable_validators`` and the child class's functions: not followed.
            raise _Unwalkable
        found = children[token] = (key, node)
    return found


def valid(steps: Steps, at: Node, path: tuple[Any, ...], instance: Any,
           whole: bool = False) -> bool:
    """Whether ``iter_errors`` of the validator in ``at`` (reached by the schema-side ``path``)
    yields no error on ``instance``.

    The same evaluation as the library's, keyword by keyword, and the same verdict: a subschema
    is valid when no applicable keyword function yields an error (``iter_errors`` calls each with
    the validator, its value, the instance and the subschema alone). Each keyword function is
    called as ``iter_errors`` calls it, except these, whose errors are by their code exactly the
    errors of ``descend`` on subschemas (``descend`` yields an error when the validator it makes
    for a subschema does): ``properties`` (each member present, under its subschema), ``allOf``
    (each subschema), ``$ref`` (the subschema it resolves to, with the resolver the lookup gives),
    ``prefixItems`` (each item with a subschema), ``items`` (each item past the prefix; an error
    at once when ``items`` is false and there is one), ``anyOf`` (an error when no subschema is
    valid, trying them in order), ``oneOf`` (an error when none is valid, or when one after the
    first valid is valid too, those evaluated as the library does, with ``evolve``). The
    validator of each subschema is the one the library's evaluation makes there
    (:class:`Steps`: a function of the schema-side path), so its verdict on an equal part of a
    document is the same: each verdict is remembered (:data:`_KNOWN`) by the subschema's node and
    :func:`_text`, but for the subschemas applied to the whole document (``whole``: the root, and
    what ``allOf``, ``$ref``, ``anyOf`` and ``oneOf`` apply to it): the engine already knows each
    document it compared, so those verdicts would never be asked again, and their text is the
    document's."""
    schema = at[0].schema
    if schema is True or schema is False:
        return schema
    global _known_chars
    key = None
    if not whole:
        text = _text(instance)
        if len(text) <= _KNOWN_TEXT_MAX:
            key = (at[2], text)
            found = _KNOWN.get(key)
            if found is not None:
                return found
    verdict = _evaluate(steps, at, path, instance, whole)
    if key is not None:
        if _known_chars > _KNOWN_CHARS_MAX:
            _KNOWN.clear()
            _known_chars = 0
        _KNOWN[key] = verdict
        _known_chars += len(text) + 96
    return verdict


def _evaluate(steps: Steps, at: Node, path: tuple[Any, ...], instance: Any, whole: bool) -> bool:
    validator, program = at[0], at[4]
    if not program:
        program.extend((_how(function), name, function, value) for name, (function, value) in at[1].items())
    schema = validator.schema
    for kind, name, function, value in program:
        if kind == CALLED:
            if next(iter(function(validator, value, instance, schema) or ()), None) is not None:
                return False
        elif kind == PROPERTIES:
            if validator.is_type(instance, "object"):
                for member, subschema in value.items():
                    if member in instance:
                        step, child = _child(steps, at, path, (name, member), descend, validator, subschema)
                        if not valid(steps, child, step, instance[member]):
                            return False
        elif kind == ALL_OF:
            for index, subschema in enumerate(value):
                step, child = _child(steps, at, path, (name, index), descend, validator, subschema)
                if not valid(steps, child, step, instance, whole):
                    return False
        elif kind == REF:
            step, child = _child(steps, at, path, (name,), descend_ref, validator, value)
            if not valid(steps, child, step, instance, whole):
                return False
        elif kind == PREFIX_ITEMS:
            if validator.is_type(instance, "array"):
                for (index, item), subschema in zip(enumerate(instance), value, strict=False):
                    step, child = _child(steps, at, path, (name, index), descend, validator, subschema)
                    if not valid(steps, child, step, item):
                        return False
        elif kind == ITEMS:
            if validator.is_type(instance, "array"):
                prefix = len(schema.get("prefixItems", []))
                if len(instance) > prefix:
                    if value is False:
                        return False
                    step, child = _child(steps, at, path, (name,), descend, validator, value)
                    for index in range(prefix, len(instance)):
                        if not valid(steps, child, step, instance[index]):
                            return False
        else:  # anyOf, oneOf
            first = None
            for index, subschema in enumerate(value):
                step, child = _child(steps, at, path, (name, index), descend, validator, subschema)
                if valid(steps, child, step, instance, whole):
                    first = index
                    break
            if first is None:
                return False
            if kind == ONE_OF:
                for index in range(first + 1, len(value)):
                    step, child = _child(steps, at, path, (name, index, _EVOLVED), validator.evolve,
                                         schema=value[index])
                    if valid(steps, child, step, instance, whole):
                        return False
    return True


def _how(function: Callable[..., Any]) -> int:
    """How :func:`_evaluate` takes a keyword, by its function: as the keyword table says, but for
    an older dialect's ``items``, whose function is called (its errors are not followed by
    position here)."""
    how = BY_FUNCTION.get(function, CALLED)
    return CALLED if how == LEGACY_ITEMS else how
