"""python-jsonschema, extended with pattern searches under a time bound: the reference's class.

python-jsonschema matches ``pattern``, ``patternProperties`` and the names ``additionalProperties``
and ``unevaluatedProperties`` leave out with ``re``, a backtracking engine, and offers no hook for
its regex engine. :func:`bounded` extends a validator class with ``jsonschema.validators.extend``,
replacing those four keyword functions with ours (the same errors, in the same order), whose
searches run under :data:`PATTERN_TIMEOUT_S`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from harness.internals import jsonschema_evolve, jsonschema_init_fields, jsonschema_resolver

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
            evolved = jsonschema_evolve(validator, resolved.contents, resolved.resolver)
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
