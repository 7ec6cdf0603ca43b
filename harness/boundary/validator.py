"""The production validator: JSON Schema with format assertion, via ``jsonschema-rs``.

Draft 2020-12 unless the schema's ``$schema`` names another supported dialect (draft-07 is
common among MCP servers). ``$ref`` resolves only against the resources handed in (the
contract's own schema files); anything else is a :class:`~harness.errors.ContractError` when
the validator is built — never a network fetch. Validation runs ``is_valid`` first and only
collects detailed errors on failure. A violation names the keyword (``schema.<keyword>``), the
instance pointer, the schema pointer, and a message in which instance values are masked. The
schema layer (:mod:`harness.boundary.schema`) and every compiled validator of a contract
(:mod:`harness.boundary.compiled`) use it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from harness.boundary.base import Rejection
from harness.codes import schema_code
from harness.errors import ContractError
from harness.pointer import join, resolve
from harness.schemas.dialects import DIALECTS, SLOTS, Slot, dialect_of

__all__ = ["MASK", "SchemaValidator", "SchemaViolation", "validator_for", "violation_to_rejection"]


MASK = "<value>"

# Kind names of jsonschema-rs errors whose keyword is not simply the lowerCamel kind name.
_KIND_KEYWORD = {
    "OneOfNotValid": "oneOf",
    "OneOfMultipleValid": "oneOf",
    "Constant": "const",
    "FromUtf8": "contentEncoding",
    "BacktrackLimitExceeded": "pattern",
    "RegexEngineFailure": "pattern",
}
_COMBINATORS = {"oneOf", "anyOf"}
_DISCRIMINATORS = {"const", "enum", "type"}


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    """One reason a document failed its schema, as the operator sees it."""

    keyword: str
    instance_pointer: str
    schema_pointer: str
    message: str
    evaluation_pointer: str = ""

    @property
    def code(self) -> str:
        return schema_code(self.keyword)


# Keywords whose value is a schema that may be ``false`` (the error then belongs to them).
_SCHEMA_VALUED = frozenset(k for k, s in SLOTS.items() if s in (Slot.ONE, Slot.ITEMS)) - {"if"}


def _keyword(error: Any) -> str:
    kind = type(error.kind).__name__
    keyword = _KIND_KEYWORD.get(kind)
    if keyword is not None:
        return keyword
    path = error.schema_path
    if kind == "FalseSchema":
        last = path[-1] if path else None
        return str(last) if last in _SCHEMA_VALUED else "false"
    if path:
        last = path[-1]
        return last if type(last) is str else str(last)
    return kind[:1].lower() + kind[1:]


#: Pointers of jsonschema-rs paths already written (a schema's rejections meet the same few
#: paths again and again); filled up to :data:`_POINTERS_HELD`, then no further.
_POINTERS: dict[tuple[str | int, ...], str] = {}
_POINTERS_HELD = 4096


def _pointer(path: Any) -> str:
    """``join`` of a jsonschema-rs path (its steps are ``str`` and ``int`` only), remembered."""
    key = tuple(path)
    found = _POINTERS.get(key)
    if found is None:
        found = join(key)
        if len(_POINTERS) < _POINTERS_HELD:
            _POINTERS[key] = found
    return found


def _message(error: Any) -> str:
    message = str(error.message).replace("\n", " ")
    return message if len(message) <= 200 else message[:197] + "..."


def _to_violation(error: Any) -> SchemaViolation:
    return SchemaViolation(
        keyword=_keyword(error),
        instance_pointer=_pointer(error.instance_path),
        schema_pointer=_pointer(error.schema_path),
        message=_message(error),
        evaluation_pointer=_pointer(error.evaluation_path),
    )


def to_rejection(error: Any, keyword: str | None = None) -> Rejection:
    """:func:`violation_to_rejection` of the error's violation, without the parts it drops
    (``keyword``: the error's, when the caller has it)."""
    return Rejection(schema_code(keyword or _keyword(error)), _message(error),
                     _pointer(error.instance_path), _pointer(error.schema_path))


def _branch_rank(branch: list[Any], depth: int) -> tuple[int, int, int]:
    # Prefer the branch that matched the document's discriminator (no const/enum/type failure
    # right at the combinator's own level), then the one with fewest errors, then the deepest.
    mismatch = deepest = 0
    for error in branch:  # one pass: each error's path is built once
        length = len(error.instance_path)
        if length > deepest:
            deepest = length
        if not mismatch and length <= depth + 1 and _keyword(error) in _DISCRIMINATORS:
            mismatch = 1
    return (mismatch, len(branch), -deepest)


def _preference(error: Any) -> tuple[bool, int]:
    return (_keyword(error) in _COMBINATORS, -len(error.instance_path))


def _best(error: Any) -> Any:
    """Descend through oneOf/anyOf to the error that explains the failure best."""
    return best_and_keyword(error)[0]


def best_and_keyword(error: Any) -> tuple[Any, str]:
    """:func:`_best`, and that error's keyword."""
    keyword = _keyword(error)
    while keyword in _COMBINATORS:
        context = getattr(error.kind, "context", None)
        if not context:
            break
        depth = len(error.instance_path)
        # Each branch ranked once; the first by rank alone (ties keep the branches' order), and
        # no choice when the first two tie.
        ranked = sorted([(_branch_rank(b, depth), b) for b in context], key=_rank)
        if len(ranked) > 1 and ranked[0][0] == ranked[1][0]:
            break
        best = ranked[0][1]
        if not best:
            break
        error = min(best, key=_preference)
        keyword = _keyword(error)
    return error, keyword


def _rank(pair: tuple[tuple[int, int, int], Any]) -> tuple[int, int, int]:
    return pair[0]


class SchemaValidator:
    """A compiled schema: ``is_valid`` on the fast path, ranked violations on failure."""

    __slots__ = ("_validator", "dialect", "schema")

    def __init__(self, schema: Any, validator: Any, dialect: str) -> None:
        self.schema = schema
        self.dialect = dialect
        self._validator = validator

    def is_valid(self, instance: Any) -> bool:
        return bool(self._validator.is_valid(instance))

    def violations(self, instance: Any) -> list[SchemaViolation]:
        """Every violation; the most explanatory first."""
        errors = list(self._validator.iter_errors(instance))
        if not errors:
            return []
        first = _best(errors[0])
        ordered = [_to_violation(first)]
        ordered.extend(_to_violation(e) for e in errors[1:])
        if first is not errors[0]:
            ordered.append(_to_violation(errors[0]))
        return ordered

    def all_violations(self, instance: Any) -> list[SchemaViolation]:
        """Every violation including those inside each ``oneOf``/``anyOf`` branch, flattened
        (for attributing a rejection to a keyword; the first is not the best explanation)."""
        found: list[SchemaViolation] = []

        def walk(errors: Any) -> None:
            for error in errors:
                found.append(_to_violation(error))
                for branch in getattr(error.kind, "context", None) or ():
                    walk(branch)

        walk(self._validator.iter_errors(instance))
        return found

    def first_error(self, instance: Any) -> Any:
        """The first jsonschema-rs ``ValidationError`` on ``instance`` as the validator reports it
        (its ``evaluation_path``, ``instance_path`` and ``kind``, with each ``oneOf``/``anyOf``
        branch's errors in ``kind.context``), or None when it is valid."""
        return next(iter(self._validator.iter_errors(instance)), None)

    def first_violation(self, instance: Any) -> SchemaViolation | None:
        if self.is_valid(instance):
            return None
        found = self.violations(instance)
        return found[0] if found else None


def _refuse_retrieval(uri: str) -> Any:
    raise LookupError(f"$ref to {uri} is outside the contract's own schemas")


_UNRESOLVABLE = re.compile(r"Resource '([^']*)' is not present in a registry")


def validator_for(
    schema: Any,
    *,
    assert_formats: bool = True,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    retriever: Callable[[str], Any] | None = None,
    base_uri: str | None = None,
) -> SchemaValidator:
    """Compile ``schema`` into a :class:`SchemaValidator`.

    ``resources`` maps URIs to schemas that ``$ref`` may reach (the contract's other files);
    ``retriever`` is for tests that serve a suite's remotes. Without it every reference outside
    ``resources`` is a :class:`ContractError` at compile time. Formats assert by default.
    """
    given = list(resources.items()) if isinstance(resources, Mapping) else list(resources or ())
    # One entry per schema: a file handed in by its URI and again by its $id makes jsonschema-rs
    # panic on an anchor in it (its registry finds the $id itself when it indexes the file).
    firsts = {id(content): (uri, content) for uri, content in reversed(given)}
    items = [(uri, content) for uri, content in given if firsts[id(content)][0] == uri]
    declared = schema.get("$schema") if isinstance(schema, Mapping) else None
    if (
        retriever is not None
        and isinstance(declared, str)
        and declared.rstrip("#") not in DIALECTS
        and declared not in dict(items)
    ):
        # A custom meta-schema: fetch it through the caller's retriever into the registry.
        try:
            items.append((declared, retriever(declared)))
        except Exception as exc:
            raise ContractError(
                f"meta-schema {declared!r} cannot be retrieved: {exc}",
                pointer="/$schema",
                code="contract.unknown_dialect",
            ) from None
    dialect = dialect_of(schema, known=[uri for uri, _ in items])
    options: dict[str, Any] = {
        "validate_formats": assert_formats,
        "mask": MASK,
        "retriever": retriever or _refuse_retrieval,
    }
    if base_uri:
        options["base_uri"] = base_uri
    if not isinstance(schema, Mapping | bool):
        raise ContractError(f"a schema must be an object or a boolean, not {type(schema).__name__}")
    try:
        if items:
            options["registry"] = jsonschema_rs.Registry(items, retriever=options["retriever"])
        compiled = jsonschema_rs.validator_for(schema, **options)  # type: ignore[arg-type]
    except (jsonschema_rs.ValidationError, ValueError, TypeError) as exc:
        # Compiling (and building the registry) resolves every $ref eagerly; an unresolvable
        # one is reported the same way whichever of the two noticed it.
        first_line = (str(exc).splitlines() or [repr(exc)])[0]
        unresolvable = _UNRESOLVABLE.search(first_line)
        if unresolvable:
            raise ContractError(
                f"$ref {unresolvable.group(1)!r} cannot be resolved: only the contract's own "
                "schemas are reachable, never the network",
                code="contract.remote_ref",
            ) from None
        # The meta-schema's verdict carries where in the schema the problem is: that pointer
        # becomes the error's, and so its file:line:column.
        where = getattr(exc, "instance_path", None)
        if where and MASK in first_line:  # the schema's own value: no reason to hide it
            value = resolve(schema, [str(step) for step in where], None)
            shown = json.dumps(value, ensure_ascii=False, default=str)
            first_line = first_line.replace(MASK, shown if len(shown) <= 60 else shown[:57] + "...")
        raise ContractError(
            f"invalid {dialect} schema: {first_line}", code="contract.invalid_schema",
            pointer=join(where) if where else None,
        ) from None
    return SchemaValidator(schema, compiled, dialect)


def violation_to_rejection(violation: SchemaViolation, code: str | None = None) -> Rejection:
    return Rejection(
        code or violation.code,
        violation.message,
        instance_pointer=violation.instance_pointer,
        schema_pointer=violation.schema_pointer,
    )
