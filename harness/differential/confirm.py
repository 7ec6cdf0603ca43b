"""The confirming walk: a rejection by the production validator, shown by the reference on the
part of the document the production's first error points at.

The walk follows the error's ``evaluation_path`` from the root with the reference's own machinery,
step by step as python-jsonschema's ``descend`` takes it (the same subschema, the same
``referencing`` resolver with its base URI and dynamic scope, the same validator class and format
checker: :class:`~harness.differential.steps.Steps`), through conjunctive steps only
(``CONJUNCTIVE`` of :mod:`harness.differential.steps`: ``properties/<name>`` to that member,
``prefixItems/<i>`` and ``items`` to an item, ``allOf/<i>`` and ``$ref`` to the same instance). It
stops at any other step — ``not``, ``if``/``then``/``else``, ``contains``, ``dependentSchemas``,
``additionalProperties``, ``patternProperties``, ``propertyNames``, ``unevaluated*``,
``$dynamicRef``: whose applicability or target depends on evaluating something else — and there
evaluates the one keyword the production error names (the keyword function, called as
``iter_errors`` calls it), or the whole subschema when the path names no keyword of it. At a
``oneOf``/``anyOf`` where the production found no valid branch (its error's ``context`` holds each
branch's errors), each branch is walked the same way along the production's errors inside it,
instead of the keyword being evaluated: if the reference rejects every branch, it rejects the
``oneOf``/``anyOf``.

Why a rejection shown here is the whole document's: python-jsonschema's verdict on a schema is "no
error", and ``iter_errors`` yields every error of every applicable keyword, each keyword function
called with (validator, value, instance, schema) alone — so an error of one keyword is an error of
its subschema. Each conjunctive keyword function (``properties``, ``allOf``, ``prefixItems``,
``items``, ``$ref``) yields, unfiltered, every error of ``descend`` on each of its subschemas, on an
instance fixed before any evaluation (the member named, when present; the item at an index past
the prefix; the instance itself); so an error of the subschema reached is an error of its parent,
and by induction of the root. ``oneOf`` and ``anyOf`` yield an error when no branch is valid. The
subschema is evaluated by the validator object the full evaluation would evaluate it with there
(its schema, resolver, class and format checker are made the same way), so its verdict is the one
the full run computes at that place. A pattern search that times out, or any error of the
reference itself, shows nothing (the caller's full validation then meets it as it did before); so
does a step the walk does not know.
"""

from __future__ import annotations

from typing import Any

from harness.differential.steps import (
    ALL_OF,
    BY_FUNCTION,
    CONJUNCTIVE,
    ITEMS,
    LEGACY_ITEMS,
    PREFIX_ITEMS,
    PROPERTIES,
    REF,
    UNION,
    Node,
    Steps,
    as_index,
    descend,
    descend_ref,
)

#: How many of the production's errors inside one branch are tried before giving up on it.
_TRIES_PER_BRANCH = 3


def rejected(steps: Steps, instance: Any, error: Any) -> bool:
    """Whether the reference (``steps``: its validators by path) rejects ``instance``, shown on
    the part of it that the production validator's ``error`` (a jsonschema-rs
    ``ValidationError``) points at (see the module's docstring). False means *not shown*, never
    "valid"; an exception of the reference's own shows nothing either (the caller catches it)."""
    return _rejected_from(steps, steps.root, instance, 0, error, 0)


def _rejected_from(steps: Steps, at: Node, instance: Any, depth: int, error: Any,
                   offset: int, path: tuple[Any, ...] | None = None) -> bool:
    if path is None:
        path = tuple(error.evaluation_path)
    where = tuple(error.instance_path)
    at, instance, depth, offset = _planned_walk(steps, at, instance, depth, path, where, offset)
    validator, applicable = at[0], at[1]
    keyword = path[offset] if offset < len(path) else None
    if keyword not in applicable:  # the walk stopped at no keyword of this subschema: all of it
        return not validator.is_valid(instance)
    function, value = applicable[keyword]
    if BY_FUNCTION.get(function) in UNION and offset == len(path) - 1:
        return _all_branches_rejected(steps, at, instance, depth, error, offset, path)
    # One keyword of the subschema, as ``iter_errors`` calls it: any error it yields is one of
    # the subschema's.
    return next(iter(function(validator, value, instance, validator.schema) or ()), None) is not None


#: What :func:`_walk` records where it stopped at a condition of the instance (a member absent,
#: an item past the end, a value of another type): the walk is then not replayed (see
#: :func:`_planned_walk`).
_STOPPED_ON_INSTANCE = object()


def _walk(steps: Steps, at: Node, instance: Any, depth: int,
          path: tuple[Any, ...], where: tuple[Any, ...], offset: int,
          recorded: list[Any] | None = None) -> tuple[Node, Any, int, int]:
    """From ``at`` (a validator and its applicable keywords) on ``instance``, follow
    ``path[offset:]`` (keywords and their members) while each step is conjunctive and its
    instance is the one ``where[depth:]`` names; return where it stopped (validator and keywords),
    the instance, the instance depth and the path offset.

    Each step's conditions are of two kinds: of the paths and the schema alone (the same for
    every instance), and of the instance (a member present, an item there, an object or an
    array). With ``recorded``, each descent into the instance is appended as (member?, key,
    validator), and a stop on a condition of the instance as :data:`_STOPPED_ON_INSTANCE`."""
    while offset < len(path):
        validator, applicable = at[0], at[1]
        keyword = path[offset]
        function, value = applicable.get(keyword, (None, None)) if isinstance(keyword, str) else (None, None)
        how = BY_FUNCTION.get(function)  # type: ignore[arg-type]
        if how not in CONJUNCTIVE:
            break
        after = path[offset + 1] if offset + 1 < len(path) else None
        step = where[depth] if depth < len(where) else None
        if how == REF:
            if not isinstance(value, str):
                break
            offset += 1
            key = path[:offset]
            at = steps.at(key, descend_ref, validator, value)
            continue
        if how == ALL_OF:
            index = as_index(after)
            if index is None or not isinstance(value, list) or not 0 <= index < len(value):
                break
            subschema, offset = value[index], offset + 2
        elif how == PROPERTIES:
            if not isinstance(after, str) or not isinstance(value, dict) or after not in value or step != after:
                break
            if not validator.is_type(instance, "object") or after not in instance:
                if recorded is not None:
                    recorded.append(_STOPPED_ON_INSTANCE)
                break
            if recorded is not None:
                recorded.append((True, after, validator))
            subschema, instance = value[after], instance[after]
            depth, offset = depth + 1, offset + 2
        else:  # the items of an array
            index = as_index(step)
            if index is None or isinstance(step, str):
                break
            if how == PREFIX_ITEMS or (how == LEGACY_ITEMS and validator.is_type(value, "array")):
                if as_index(after) != index or not isinstance(value, list) or index >= len(value):
                    break
                subschema, next_offset = value[index], offset + 2
            elif how == ITEMS:
                if value is False or index < len(validator.schema.get("prefixItems", [])):
                    break
                subschema, next_offset = value, offset + 1
            else:  # an older dialect's ``items`` holding one schema: every item
                subschema, next_offset = value, offset + 1
            if not validator.is_type(instance, "array") or not 0 <= index < len(instance):
                if recorded is not None:
                    recorded.append(_STOPPED_ON_INSTANCE)
                break
            if recorded is not None:
                recorded.append((False, index, validator))
            instance, depth, offset = instance[index], depth + 1, next_offset
        key = path[:offset]
        at = steps.at(key, descend, validator, subschema)
    return at, instance, depth, offset


#: Walks a reference validator remembers (:func:`_planned_walk`), at most this many.
_MAX_PLANS = 4096


def _planned_walk(steps: Steps, at: Node, instance: Any, depth: int,
                  path: tuple[Any, ...], where: tuple[Any, ...], offset: int) -> tuple[Node, Any, int, int]:
    """:func:`_walk`, its steps remembered by the paths it followed. Where it stops and by which
    validators depends on the paths and the schema alone, but for the conditions of the instance
    on the way (a member present, an item there, its container's type); so a walk that met none
    that stopped it is replayed on a later instance — the same descents, each condition of the
    instance checked again as the walk checks it — and a walk that one stopped is walked afresh
    each time."""
    key = (path, where, offset, depth)
    plan = steps.plans.get(key)
    if plan is not None:
        stop, stop_offset, descents = plan
        for member, token, validator in descents:
            if not validator.is_type(instance, "object" if member else "array") or (
                    token not in instance if member else not 0 <= token < len(instance)):
                break  # this instance stops the walk earlier: walk it afresh
            instance = instance[token]
        else:
            return stop, instance, depth + len(descents), stop_offset
        plan = False
    recorded: list[Any] | None = [] if plan is None else None
    found = _walk(steps, at, instance, depth, path, where, offset, recorded)
    if recorded is not None and len(steps.plans) < _MAX_PLANS:
        stopped = _STOPPED_ON_INSTANCE in recorded
        steps.plans[key] = False if stopped else (found[0], found[3], tuple(recorded))
    return found


def _all_branches_rejected(steps: Steps, at: Node,
                           instance: Any, depth: int, error: Any, offset: int, path: tuple[Any, ...]) -> bool:
    """At a ``oneOf``/``anyOf`` where the production validator found no valid branch (its error's
    context holds each branch's errors): whether the reference rejects every branch too."""
    validator = at[0]
    keyword = path[offset]
    branches = validator.schema.get(keyword)
    if not isinstance(branches, list):
        return False
    found: dict[int, list[tuple[Any, tuple[Any, ...]]]] = {}
    for errors in getattr(error.kind, "context", None) or ():
        for inner in errors:
            inner_path = tuple(inner.evaluation_path)
            index = as_index(inner_path[offset + 1]) if len(inner_path) > offset + 1 else None
            if index is not None and inner_path[offset] == keyword:
                found.setdefault(index, []).append((inner, inner_path))
    for index, branch in enumerate(branches):
        key = (*path[:offset + 1], index)
        start = steps.at(key, descend, validator, branch)
        for inner, inner_path in found.get(index, ())[:_TRIES_PER_BRANCH]:
            if _rejected_from(steps, start, instance, depth, inner, offset + 2, inner_path):
                break
        else:
            return False
    return True
