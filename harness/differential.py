"""The reference validator: python ``jsonschema`` with format checking, for differential checks.

The production validator (jsonschema-rs) decides; the reference validator is an independent
implementation run on the same document and schema. When the two disagree, the harness
reports a ``differential`` finding with both verdicts — a bug in one of them, or a schema that
relies on behaviour the specification leaves open.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import ValidationError

from harness.internals import jsonschema_applicable, jsonschema_init_fields, jsonschema_resolver
from harness.schemas.dialects import registry as offline_registry
from harness.schemas.dialects import resource

if TYPE_CHECKING:
    from harness.contract.records import Contract

# python-jsonschema checks ``format: regex`` with ``re.compile`` on the document's value, and
# ``re`` warns about that value's syntax (``FutureWarning: Possible nested set at position 1``,
# with the library's source line): about upstream data, not the user's code. Not shown.
warnings.filterwarnings("ignore", category=FutureWarning, module=r"jsonschema\._format")

#: How long one ``pattern`` search may take in the reference validator. python-jsonschema
#: matches with ``re``, a backtracking engine: ``^(a+)+$`` against 30 ``a`` and a ``!`` takes
#: minutes. The production validator's engine (Rust ``regex``) is linear, so only the reference
#: needs a bound; past it the reference gives no verdict and no disagreement is claimed.
PATTERN_TIMEOUT_S = 1.0


class PatternTimeout(Exception):
    """A pattern search in the reference validator took longer than :data:`PATTERN_TIMEOUT_S`."""


#: Patterns compiled by :class:`_BoundedRe` (None: one only ``re`` reads), at most this many.
_COMPILED_MAX = 4096
_COMPILED: dict[str, Any] = {}
#: The (pattern, string) searches that ran out of time in this process, at most this many.
_TIMED_OUT_MAX = 256
_TIMED_OUT: set[tuple[str, str]] = set()


class _BoundedRe:
    """What python-jsonschema's keyword functions call as ``re``: ``search`` under a time bound,
    with the ``regex`` package (the same syntax as ``re``, and a ``timeout``). Each pattern is
    compiled once (``regex.search`` looks its cache up at about 6 µs a call; a compiled
    pattern's ``search`` takes 2). A search that ran out of time is not run again: the same
    pattern on the same string times out at once (a fixture's slow string is in most of its
    mutants, each of which would otherwise wait the bound twice). That only ever withholds a
    verdict, never gives one."""

    @staticmethod
    def search(pattern: str, string: str) -> Any:
        if _TIMED_OUT and (pattern, string) in _TIMED_OUT:
            raise PatternTimeout(pattern)
        compiled = _COMPILED.get(pattern, _COMPILED)
        if compiled is _COMPILED:
            import regex

            try:
                compiled = regex.compile(pattern)
            except regex.error:  # a pattern only ``re`` reads: keep its reading
                compiled = None
            if len(_COMPILED) >= _COMPILED_MAX:
                _COMPILED.clear()
            _COMPILED[pattern] = compiled
        if compiled is None:
            return re.search(pattern, string)
        try:
            return compiled.search(string, timeout=PATTERN_TIMEOUT_S)
        except TimeoutError:
            if len(_TIMED_OUT) >= _TIMED_OUT_MAX:
                _TIMED_OUT.clear()
            _TIMED_OUT.add((pattern, string))
            raise PatternTimeout(pattern) from None


def _search(pattern: str, string: str) -> bool:
    return _BoundedRe.search(pattern, string) is not None


def _extras(extras: list[Any]) -> tuple[str, str]:
    return ", ".join(repr(extra) for extra in extras), "was" if len(extras) == 1 else "were"


def _no_error(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


# python-jsonschema's ``pattern``, ``patternProperties``, ``additionalProperties`` and
# ``unevaluatedProperties`` (Draft 2020-12's), written again with each search bounded: the library
# offers no hook for its regex engine. The same errors, in the same order, as the library's.


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Any, schema: Any) -> Iterator[Any]:
    properties = schema.get("properties", {})
    patterns = "|".join(schema.get("patternProperties", {}))
    for key in instance:
        if key not in properties and not (patterns and _search(patterns, key)):
            yield key


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            names, verb = _extras(sorted(extras, key=str))
            yield ValidationError(f"Additional properties are not allowed ({names} {verb} unexpected)")


def _evaluated_keys(validator: Any, instance: Any, schema: Any) -> list[Any]:
    """The members of ``instance`` that ``schema``'s applicators evaluate (what
    ``unevaluatedProperties`` leaves out)."""
    if validator.is_type(schema, "boolean"):
        return []
    found: list[Any] = []
    for keyword in ("$ref", "$dynamicRef"):
        reference = schema.get(keyword)
        if reference is not None:
            resolved = jsonschema_resolver(validator).lookup(reference)
            evolved = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            found.extend(_evaluated_keys(evolved, instance, resolved.contents))
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        found += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is None:
            continue
        found += (key for key, value in instance.items() if _no_error(validator.descend(value, subschema)))
    if "patternProperties" in schema:
        for key in instance:
            for pattern in schema["patternProperties"]:
                if _search(pattern, key):
                    found.append(key)
    if "dependentSchemas" in schema:
        for key, subschema in schema["dependentSchemas"].items():
            if key in instance:
                found += _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _no_error(validator.descend(instance, subschema)):
                found += _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            found += _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                found += _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            found += _evaluated_keys(validator, instance, schema["else"])
    return found


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    invalid = [key for key in instance if key not in evaluated
               for _ in validator.descend(instance[key], unevaluated, path=key, schema_path=key)]
    if not invalid:
        return
    if unevaluated is False:
        names, verb = _extras(sorted(invalid, key=str))
        yield ValidationError(f"Unevaluated properties are not allowed ({names} {verb} unexpected)")
    else:
        names, verb = _extras(invalid)
        yield ValidationError(f"Unevaluated properties are not valid under the given schema "
                              f"({names} {verb} unevaluated and invalid)")


#: Keyword -> its bounded function, replacing the library's (Draft 2020-12's) wherever a class
#: uses that one: ``pattern``, ``patternProperties`` and ``additionalProperties`` in every dialect;
#: draft 2019-09's ``unevaluatedProperties`` is another function, kept.
_BOUNDED_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
}
_BOUNDED_CLASSES: dict[Any, Any] = {}


def bounded(cls: Any) -> Any:
    """A python-jsonschema validator class whose pattern searches are time-bounded (one per
    class: making a class costs about a millisecond), made with ``jsonschema.validators.extend``,
    and staying bounded below its root.

    python-jsonschema's ``evolve`` (which ``descend`` and every applicator call) picks the class
    of each subschema it evaluates again, with ``validator_for(subschema, default=cls)``: a
    subschema that names its dialect (``$schema``: a schema file's root, reached through the
    ``$ref`` to its file's URI, or any resource of its own) would get the library's stock class,
    whose pattern searches are not bounded. So the bounded class's ``evolve`` is
    :func:`_bounded_evolve`, which picks :func:`_bounded_validator_for` instead."""
    found = _BOUNDED_CLASSES.get(cls)
    if found is not None:
        return found
    stock = jsonschema.Draft202012Validator.VALIDATORS
    replaced = {name: ours for name, ours in _BOUNDED_KEYWORDS.items() if cls.VALIDATORS.get(name) is stock[name]}
    found = jsonschema.validators.extend(cls, replaced)
    found.evolve = _bounded_evolve
    _BOUNDED_CLASSES[cls] = _BOUNDED_CLASSES[found] = found
    return found


_INIT_FIELDS: dict[Any, list[tuple[str, str]]] = {}


def _bounded_evolve(self: Any, **changes: Any) -> Any:
    """python-jsonschema's ``evolve`` (a validator for another schema, every other field kept),
    with the new validator's class bounded."""
    cls = type(self)
    schema = changes.setdefault("schema", self.schema)
    fields = _INIT_FIELDS.get(cls)
    if fields is None:
        fields = _INIT_FIELDS[cls] = jsonschema_init_fields(cls)
    for attribute, argument in fields:
        if argument not in changes:
            changes[argument] = getattr(self, attribute)
    return _bounded_validator_for(schema, default=cls)(**changes)


def _bounded_validator_for(schema: Any, default: Any = None) -> Any:
    """``jsonschema.validators.validator_for``, bounded (see :func:`bounded`). ``evolve`` passes
    its own (bounded) class as ``default``, which ``validator_for`` returns for a subschema that
    names no dialect, as here without calling it."""
    if schema is True or schema is False or "$schema" not in schema:
        return default
    return bounded(jsonschema.validators.validator_for(schema, default=default))


def _word(valid: bool) -> str:
    return "valid" if valid else "invalid"


@dataclass(frozen=True, slots=True)
class Disagreement:
    production_valid: bool
    reference_valid: bool
    reference_message: str

    def describe(self) -> str:
        text = (
            f"production validator (jsonschema-rs) says {_word(self.production_valid)}, "
            f"reference validator (jsonschema) says {_word(self.reference_valid)}"
        )
        return text + (f": {self.reference_message}" if self.reference_message else "")


class ReferenceValidator:
    """python-jsonschema for one schema, offline, formats asserted."""

    def __init__(self, schema: Any, resources: Iterable[tuple[str, Any]] = (), base_uri: str = "") -> None:
        registry = offline_registry(resources)
        cls: Any = bounded(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))
        root = schema
        if base_uri and isinstance(schema, dict) and "$id" not in schema:
            # Give the schema its file's URI, so relative $refs resolve as in production.
            registry = registry.with_resource(base_uri, resource(schema))
            root = {"$ref": base_uri}
            if "$schema" in schema:
                root["$schema"] = schema["$schema"]
        self._validator = cls(root, registry=registry, format_checker=cls.FORMAT_CHECKER)
        #: The schema as written is reached from the root through one ``$ref`` (to its file's URI).
        self._wrapped = root is not schema
        self._steps: _Steps | None = None

    def _root(self) -> _Node:
        if self._steps is None:
            root = self._validator
            self._steps = _Steps(_descend_ref(root, root.schema["$ref"]) if self._wrapped else root)
        return self._steps.root

    @property
    def walks(self) -> bool:
        """Whether :meth:`is_valid` takes its verdict by the walk (the root's validator is of this
        validator's class); otherwise by the library's own ``is_valid``, which evaluates every
        subschema afresh."""
        try:
            return type(self._root()[0]) is type(self._validator)
        except Exception:  # the library decides, as in is_valid
            return False

    def is_valid(self, instance: Any) -> bool:
        """python-jsonschema's verdict on ``instance``: whether ``iter_errors`` yields no error.

        Obtained by :func:`_valid`, a walk that evaluates each subschema of the document with the
        validator object python-jsonschema's own evaluation makes for it (:class:`_Steps`), and
        remembers each subschema's verdict on each part of a document it evaluated: a part of a
        later document equal to one already seen (a fixture's unchanged members in each of its
        mutants, an object repeated in an array) is not evaluated again. Where the walk cannot
        follow python-jsonschema exactly (a subschema of another dialect's validator class), and
        on any exception of its own, the library's ``is_valid`` gives the verdict instead."""
        try:
            root = self._root()
            if type(root[0]) is type(self._validator):
                return _valid(self, root, (), instance, True)
        except Exception:  # the library's own evaluation decides (and raises what it raises)
            pass
        return bool(self._validator.is_valid(instance))

    def rejects(self, instance: Any, error: Any) -> bool:
        """Whether this validator rejects ``instance``, shown on the part of it that the production
        validator's ``error`` (a jsonschema-rs ``ValidationError``) points at; False means *not
        shown* (the caller then validates the whole document), never "valid".

        The walk follows ``error.evaluation_path`` from the root with this validator's own
        machinery, step by step as python-jsonschema's ``descend`` takes it (the same subschema,
        the same ``referencing`` resolver with its base URI and dynamic scope, the same validator
        class and format checker), through conjunctive steps only (:data:`_CONJUNCTIVE`:
        ``properties/<name>`` to that member, ``prefixItems/<i>`` and ``items`` to an item,
        ``allOf/<i>`` and ``$ref`` to the same instance). It stops at any other step — ``not``,
        ``if``/``then``/``else``, ``contains``, ``dependentSchemas``, ``additionalProperties``,
        ``patternProperties``, ``propertyNames``, ``unevaluated*``, ``$dynamicRef``: whose
        applicability or target depends on evaluating something else — and there evaluates the
        one keyword the production error names (the keyword function, called as ``iter_errors``
        calls it), or the whole subschema when the path names no keyword of it. At a
        ``oneOf``/``anyOf`` where the production found no valid branch (its error's ``context``
        holds each branch's errors), each branch is walked the same way along the production's
        errors inside it, instead of the keyword being evaluated: if this validator rejects every
        branch, it rejects the ``oneOf``/``anyOf``.

        Why a rejection shown here is the whole document's: python-jsonschema's verdict on a
        schema is "no error", and ``iter_errors`` yields every error of every applicable keyword,
        each keyword function called with (validator, value, instance, schema) alone — so an
        error of one keyword is an error of its subschema. Each conjunctive keyword function
        (``properties``, ``allOf``, ``prefixItems``, ``items``, ``$ref``) yields, unfiltered,
        every error of ``descend`` on each of its subschemas, on an instance fixed before any
        evaluation (the member named, when present; the item at an index past the prefix; the
        instance itself); so an error of the subschema reached is an error of its parent, and by
        induction of the root. ``oneOf`` and ``anyOf`` yield an error when no branch is valid.
        The subschema is evaluated by the validator object the full evaluation would evaluate it
        with there (its schema, resolver, class and format checker are made the same way), so
        its verdict is the one the full run computes at that place. A pattern search that times
        out, or any error of the reference itself, shows nothing (the caller's full validation
        then meets it as it did before); so does a step the walk does not know.
        """
        try:
            return self._rejects_from(self._root(), instance, 0, error, 0)
        except Exception:  # nothing shown: the full validation meets it
            return False

    def _rejects_from(self, at: _Node, instance: Any, depth: int, error: Any,
                      offset: int, path: tuple[Any, ...] | None = None) -> bool:
        steps = self._steps
        assert steps is not None
        if path is None:
            path = tuple(error.evaluation_path)
        where = tuple(error.instance_path)
        at, instance, depth, offset = _planned_walk(steps, at, instance, depth, path, where, offset)
        validator, applicable = at[0], at[1]
        keyword = path[offset] if offset < len(path) else None
        if keyword not in applicable:  # the walk stopped at no keyword of this subschema: all of it
            return not validator.is_valid(instance)
        function, value = applicable[keyword]
        if function in _BRANCHING and offset == len(path) - 1:
            return _all_branches_rejected(self, at, instance, depth, error, offset, path)
        # One keyword of the subschema, as ``iter_errors`` calls it: any error it yields is one of
        # the subschema's.
        return next(iter(function(validator, value, instance, validator.schema) or ()), None) is not None

    def first_message(self, instance: Any) -> str:
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(instance))
        if error is None:
            return ""
        where = "/" + "/".join(map(str, error.absolute_path))
        return f"{error.validator} at {where}"



# --------------------------------------------------------------- confirming a rejection

#: python-jsonschema's keyword functions, as its Draft 2020-12 class and (``items`` for an array
#: of schemas, drafts 6 to 2019-09) its draft-07 class hold them: the walks know a keyword by its
#: function, which is how a subschema's class says what the keyword means in its dialect.
_KEYWORDS = jsonschema.Draft202012Validator.VALIDATORS
_LEGACY_ITEMS = jsonschema.Draft7Validator.VALIDATORS["items"]
#: python-jsonschema keyword functions that apply a subschema conjunctively to an instance fixed
#: by the schema and the instance alone, by how the walk takes their step.
_CONJUNCTIVE: dict[Callable[..., Any], str] = {
    _KEYWORDS["properties"]: "properties",
    _KEYWORDS["allOf"]: "allOf",
    _KEYWORDS["prefixItems"]: "prefixItems",
    _KEYWORDS["items"]: "items",
    _LEGACY_ITEMS: "items-legacy",
    _KEYWORDS["$ref"]: "$ref",
}
_BRANCHING = frozenset({_KEYWORDS["oneOf"], _KEYWORDS["anyOf"]})
#: How many of the production's errors inside one branch are tried before giving up on it.
_TRIES_PER_BRANCH = 3
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


def _descend(validator: Any, schema: Any, resolver: Any = None) -> Any:
    """The validator python-jsonschema's ``descend`` evaluates ``schema`` with, from ``validator``."""
    if isinstance(schema, bool):
        return validator.evolve(schema=schema)
    if resolver is None:
        resource = _specification(type(validator)).create_resource(schema)
        resolver = jsonschema_resolver(validator).in_subresource(resource)
    return validator.evolve(schema=schema, _resolver=resolver)


def _descend_ref(validator: Any, ref: str) -> Any:
    resolved = jsonschema_resolver(validator).lookup(ref)  # as ``_validate_reference`` looks it up
    return _descend(validator, resolved.contents, resolved.resolver)


def _index(token: Any) -> int | None:
    if isinstance(token, int) and not isinstance(token, bool):
        return token
    return int(token) if isinstance(token, str) and token.isdigit() else None


#: How many subschemas' validators one reference validator keeps (a recursive schema has no end
#: of paths; past this, new ones are made each time).
_MAX_STEPS = 4096


class _Steps:
    """The validator python-jsonschema evaluates a subschema with, by the schema-side path that
    reaches it from the root (keywords, member names, indices), with its applicable keywords.

    Each is a function of that path alone — the subschema, the ``referencing`` resolver (base
    URI, dynamic scope) and the validator class are made from the path's steps, whatever the
    instance — so each is made once."""

    def __init__(self, root: Any) -> None:
        self._known: dict[tuple[Any, ...], _Node] = {}
        #: :func:`_planned_walk`'s walks, by the paths they followed: where each stopped, and the
        #: descents into the instance on the way (False: one stopped on a condition of the
        #: instance, so walked afresh each time).
        self.plans: dict[tuple[Any, ...], Any] = {}
        self.root = self.at((), lambda: root)

    def at(self, key: tuple[Any, ...], make: Callable[..., Any], *args: Any, **kwargs: Any) -> _Node:
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


#: A subschema as the walks know it: the validator python-jsonschema evaluates it with, its
#: applicable keywords (name -> (keyword function, value)), a number of its own (what
#: :func:`_valid` remembers verdicts under), the nodes of its subschemas by the steps that
#: reach them from it (``("properties", "name")``: the path to the child and the child), and
#: its keywords as :func:`_evaluate` takes them (made on its first evaluation).
_Node = tuple[Any, dict[str, tuple[Any, Any]], int, dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]],
              list[tuple[int, str, Any, Any]]]
_NODES = itertools.count()


#: What :func:`_walk` records where it stopped at a condition of the instance (a member absent,
#: an item past the end, a value of another type): the walk is then not replayed (see
#: :func:`_planned_walk`).
_STOPPED_ON_INSTANCE = object()


def _walk(steps: _Steps, at: _Node, instance: Any, depth: int,
          path: tuple[Any, ...], where: tuple[Any, ...], offset: int,
          recorded: list[Any] | None = None) -> tuple[_Node, Any, int, int]:
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
        kind = _CONJUNCTIVE.get(function)  # type: ignore[arg-type]
        if kind is None:
            break
        after = path[offset + 1] if offset + 1 < len(path) else None
        step = where[depth] if depth < len(where) else None
        if kind == "$ref":
            if not isinstance(value, str):
                break
            offset += 1
            key = path[:offset]
            at = steps.at(key, _descend_ref, validator, value)
            continue
        if kind == "allOf":
            index = _index(after)
            if index is None or not isinstance(value, list) or not 0 <= index < len(value):
                break
            subschema, offset = value[index], offset + 2
        elif kind == "properties":
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
            index = _index(step)
            if index is None or isinstance(step, str):
                break
            if kind == "prefixItems" or (kind == "items-legacy" and validator.is_type(value, "array")):
                if _index(after) != index or not isinstance(value, list) or index >= len(value):
                    break
                subschema, next_offset = value[index], offset + 2
            elif kind == "items":
                if value is False or index < len(validator.schema.get("prefixItems", [])):
                    break
                subschema, next_offset = value, offset + 1
            else:
                subschema, next_offset = value, offset + 1
            if not validator.is_type(instance, "array") or not 0 <= index < len(instance):
                if recorded is not None:
                    recorded.append(_STOPPED_ON_INSTANCE)
                break
            if recorded is not None:
                recorded.append((False, index, validator))
            instance, depth, offset = instance[index], depth + 1, next_offset
        key = path[:offset]
        at = steps.at(key, _descend, validator, subschema)
    return at, instance, depth, offset


#: Walks a reference validator remembers (:func:`_planned_walk`), at most this many.
_MAX_PLANS = 4096


def _planned_walk(steps: _Steps, at: _Node, instance: Any, depth: int,
                  path: tuple[Any, ...], where: tuple[Any, ...], offset: int) -> tuple[_Node, Any, int, int]:
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


def _all_branches_rejected(reference: ReferenceValidator, at: _Node,
                           instance: Any, depth: int, error: Any, offset: int, path: tuple[Any, ...]) -> bool:
    """At a ``oneOf``/``anyOf`` where the production validator found no valid branch (its error's
    context holds each branch's errors): whether the reference rejects every branch too."""
    validator = at[0]
    steps = reference._steps
    assert steps is not None
    keyword = path[offset]
    branches = validator.schema.get(keyword)
    if not isinstance(branches, list):
        return False
    found: dict[int, list[tuple[Any, tuple[Any, ...]]]] = {}
    for errors in getattr(error.kind, "context", None) or ():
        for inner in errors:
            inner_path = tuple(inner.evaluation_path)
            index = _index(inner_path[offset + 1]) if len(inner_path) > offset + 1 else None
            if index is not None and inner_path[offset] == keyword:
                found.setdefault(index, []).append((inner, inner_path))
    for index, branch in enumerate(branches):
        key = (*path[:offset + 1], index)
        start = steps.at(key, _descend, validator, branch)
        for inner, inner_path in found.get(index, ())[:_TRIES_PER_BRANCH]:
            if reference._rejects_from(start, instance, depth, inner, offset + 2, inner_path):
                break
        else:
            return False
    return True


# --------------------------------------------------------------- a whole verdict, remembered

#: The verdicts :func:`_valid` remembers, of every reference validator of the process, by
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


def _child(steps: _Steps, at: _Node, path: tuple[Any, ...], token: tuple[Any, ...], make: Callable[..., Any],
           *args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], _Node]:
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


def _valid(reference: ReferenceValidator, at: _Node, path: tuple[Any, ...], instance: Any,
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
    (:class:`_Steps`: a function of the schema-side path), so its verdict on an equal part of a
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
    valid = _evaluate(reference, at, path, instance, whole)
    if key is not None:
        if _known_chars > _KNOWN_CHARS_MAX:
            _KNOWN.clear()
            _known_chars = 0
        _KNOWN[key] = valid
        _known_chars += len(text) + 96
    return valid


def _evaluate(reference: ReferenceValidator, at: _Node, path: tuple[Any, ...], instance: Any, whole: bool) -> bool:
    steps = reference._steps
    assert steps is not None
    validator, program = at[0], at[4]
    if not program:
        program.extend((_WALKED.get(function, _CALLED), name, function, value)
                       for name, (function, value) in at[1].items())
    schema = validator.schema
    for kind, name, function, value in program:
        if kind == _CALLED:
            if next(iter(function(validator, value, instance, schema) or ()), None) is not None:
                return False
        elif kind == _PROPERTIES:
            if validator.is_type(instance, "object"):
                for member, subschema in value.items():
                    if member in instance:
                        step, child = _child(steps, at, path, (name, member), _descend, validator, subschema)
                        if not _valid(reference, child, step, instance[member]):
                            return False
        elif kind == _ALL_OF:
            for index, subschema in enumerate(value):
                step, child = _child(steps, at, path, (name, index), _descend, validator, subschema)
                if not _valid(reference, child, step, instance, whole):
                    return False
        elif kind == _REF:
            step, child = _child(steps, at, path, (name,), _descend_ref, validator, value)
            if not _valid(reference, child, step, instance, whole):
                return False
        elif kind == _PREFIX_ITEMS:
            if validator.is_type(instance, "array"):
                for (index, item), subschema in zip(enumerate(instance), value, strict=False):
                    step, child = _child(steps, at, path, (name, index), _descend, validator, subschema)
                    if not _valid(reference, child, step, item):
                        return False
        elif kind == _ITEMS:
            if validator.is_type(instance, "array"):
                prefix = len(schema.get("prefixItems", []))
                if len(instance) > prefix:
                    if value is False:
                        return False
                    step, child = _child(steps, at, path, (name,), _descend, validator, value)
                    for index in range(prefix, len(instance)):
                        if not _valid(reference, child, step, instance[index]):
                            return False
        else:  # anyOf, oneOf
            first = None
            for index, subschema in enumerate(value):
                step, child = _child(steps, at, path, (name, index), _descend, validator, subschema)
                if _valid(reference, child, step, instance, whole):
                    first = index
                    break
            if first is None:
                return False
            if kind == _ONE_OF:
                for index in range(first + 1, len(value)):
                    step, child = _child(steps, at, path, (name, index, _EVOLVED), validator.evolve,
                                         schema=value[index])
                    if _valid(reference, child, step, instance, whole):
                        return False
    return True


#: The keyword functions :func:`_evaluate` follows into their subschemas itself; every other one
#: (``_CALLED``) is called as ``iter_errors`` calls it.
_CALLED, _PROPERTIES, _ALL_OF, _REF, _PREFIX_ITEMS, _ITEMS, _ANY_OF, _ONE_OF = range(8)
_WALKED: dict[Callable[..., Any], int] = {
    _KEYWORDS["properties"]: _PROPERTIES,
    _KEYWORDS["allOf"]: _ALL_OF,
    _KEYWORDS["$ref"]: _REF,
    _KEYWORDS["prefixItems"]: _PREFIX_ITEMS,
    _KEYWORDS["items"]: _ITEMS,
    _KEYWORDS["anyOf"]: _ANY_OF,
    _KEYWORDS["oneOf"]: _ONE_OF,
}


def reference_validator(contract: Contract, version: int | None = None) -> ReferenceValidator:
    """The reference validator of a contract's schema version (built once, kept on the contract)."""
    version = contract.version if version is None else version
    inputs = contract.reference_inputs(version)
    assert inputs is not None  # a schema version always has them
    return contract.memo(("reference", version), lambda: ReferenceValidator(*inputs))


def vendor_reference_validator(contract: Contract) -> ReferenceValidator | None:
    """The reference validator of a contract's ``vendor_schema`` (None without one)."""
    inputs = contract.reference_inputs(vendor=True)
    if inputs is None:
        return None
    return contract.memo(("vendor-reference",), lambda: ReferenceValidator(*inputs))


def compare(production_valid: bool, reference: ReferenceValidator, instance: Any) -> Disagreement | None:
    """A disagreement between the two validators on ``instance``, or None."""
    return judged(production_valid, reference, instance)[1]


def judged(production_valid: bool, reference: ReferenceValidator,
           instance: Any) -> tuple[bool | None, Disagreement | None]:
    """The reference's verdict on ``instance`` (None: it gave none — a pattern search out of
    time, Python's recursion limit, or a failure of its own), and its disagreement with the
    production's, or None."""
    try:
        reference_valid = reference.is_valid(instance)
    except (PatternTimeout, RecursionError):
        # No verdict within the reference's bounds (a search past PATTERN_TIMEOUT_S; python's
        # ``re`` compiling a deeply nested ``format: regex`` value): nothing to compare.
        return None, None
    except (jsonschema.exceptions.SchemaError, referencing.exceptions.Unresolvable) as exc:
        return None, Disagreement(production_valid, False, f"reference validator failed: {type(exc).__name__}")
    if reference_valid == production_valid:
        return reference_valid, None
    message = "" if reference_valid else reference.first_message(instance)
    return reference_valid, Disagreement(production_valid, reference_valid, message)
