"""The reference validator: python ``jsonschema`` with format checking, for differential checks.

The production validator (jsonschema-rs) decides; the reference validator is an independent
implementation run on the same document and schema. When the two disagree, the harness
reports a ``differential`` finding with both verdicts — a bug in one of them, or a schema that
relies on behaviour the specification leaves open.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema
import jsonschema._keywords
import jsonschema._utils
import referencing
import referencing.exceptions

from harness.schemas.dialects import registry as offline_registry
from harness.schemas.dialects import resource

if TYPE_CHECKING:
    from harness.contract.records import Contract

#: How long one ``pattern`` search may take in the reference validator. python-jsonschema
#: matches with ``re``, a backtracking engine: ``^(a+)+$`` against 30 ``a`` and a ``!`` takes
#: minutes. The production validator's engine (Rust ``regex``) is linear, so only the reference
#: needs a bound; past it the reference gives no verdict and no disagreement is claimed.
PATTERN_TIMEOUT_S = 1.0


class PatternTimeout(Exception):
    """A pattern search in the reference validator took longer than :data:`PATTERN_TIMEOUT_S`."""


class _BoundedRe:
    """What python-jsonschema's keyword functions call as ``re``: ``search`` under a time bound,
    with the ``regex`` package (the same syntax as ``re``, and a ``timeout``)."""

    @staticmethod
    def search(pattern: str, string: str) -> Any:
        import regex

        try:
            return regex.search(pattern, string, timeout=PATTERN_TIMEOUT_S)
        except TimeoutError:
            raise PatternTimeout(pattern) from None
        except regex.error:  # a pattern only ``re`` reads: keep its reading
            return re.search(pattern, string)


def _rebound(func: Callable[..., Any], **names: Any) -> Any:
    """``func`` itself (the library's code, unchanged) with some of its global names bound to
    other objects: python-jsonschema offers no hook for its regex engine."""
    scope = {**func.__globals__, **names}
    copy = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)
    scope.update({name: copy for name, value in names.items() if value is _SELF})
    return copy


_SELF = object()


def _bounded_keywords() -> dict[Callable[..., Any], Any]:
    """Each python-jsonschema keyword function that searches with a pattern -> its bounded twin."""
    keywords, utils = jsonschema._keywords, jsonschema._utils
    find_additional = _rebound(utils.find_additional_properties, re=_BoundedRe)
    find_evaluated = _rebound(utils.find_evaluated_property_keys_by_schema, re=_BoundedRe,
                              find_evaluated_property_keys_by_schema=_SELF)
    return {
        keywords.pattern: _rebound(keywords.pattern, re=_BoundedRe),
        keywords.patternProperties: _rebound(keywords.patternProperties, re=_BoundedRe),
        keywords.additionalProperties: _rebound(keywords.additionalProperties,
                                                find_additional_properties=find_additional),
        keywords.unevaluatedProperties: _rebound(keywords.unevaluatedProperties,
                                                 find_evaluated_property_keys_by_schema=find_evaluated),
    }


_BOUNDED: dict[Callable[..., Any], Any] | None = None


def bounded(cls: Any) -> Any:
    """A python-jsonschema validator class whose pattern searches are time-bounded."""
    global _BOUNDED
    if _BOUNDED is None:
        _BOUNDED = _bounded_keywords()
    replaced = {name: _BOUNDED[func] for name, func in cls.VALIDATORS.items() if func in _BOUNDED}
    return jsonschema.validators.extend(cls, replaced) if replaced else cls


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

    def is_valid(self, instance: Any) -> bool:
        return bool(self._validator.is_valid(instance))

    def first_message(self, instance: Any) -> str:
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(instance))
        if error is None:
            return ""
        where = "/" + "/".join(map(str, error.absolute_path))
        return f"{error.validator} at {where}"


def reference_validator(contract: Contract, version: int | None = None) -> ReferenceValidator:
    """The reference validator of a contract's schema version (built once, kept on the contract)."""
    version = contract.version if version is None else version
    file = contract.schema_path(version)
    return contract.memo(("reference", version), lambda: ReferenceValidator(
        contract.schema(version), contract.schema_resources(), file.resolve().as_uri()))


def vendor_reference_validator(contract: Contract) -> ReferenceValidator | None:
    """The reference validator of a contract's ``vendor_schema`` (None without one)."""
    if contract.vendor_schema is None:
        return None
    return contract.memo(("vendor-reference",), lambda: ReferenceValidator(
        contract.vendor_schema, contract.schema_resources(), contract.path.resolve().as_uri()))


def compare(production_valid: bool, reference: ReferenceValidator, instance: Any) -> Disagreement | None:
    """A disagreement between the two validators on ``instance``, or None."""
    try:
        reference_valid = reference.is_valid(instance)
    except PatternTimeout:
        return None  # the reference gave no verdict in time: nothing to compare
    except (jsonschema.exceptions.SchemaError, referencing.exceptions.Unresolvable) as exc:
        return Disagreement(production_valid, False, f"reference validator failed: {type(exc).__name__}")
    if reference_valid == production_valid:
        return None
    return Disagreement(production_valid, reference_valid, "" if reference_valid else reference.first_message(instance))
