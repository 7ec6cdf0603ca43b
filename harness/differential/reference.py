"""The reference validator: python ``jsonschema`` with formats asserted, pattern searches bounded.

The production validator (jsonschema-rs) decides; the reference validator is an independent
implementation run on the same document and schema. When the two disagree, the harness reports a
``differential`` finding with both verdicts — a bug in one of them, or a schema that relies on
behaviour the specification leaves open.

:class:`ReferenceValidator` gives python-jsonschema's verdict on a whole document by a walk that
remembers each part's (:mod:`harness.differential.whole`), and shows a production rejection on the
part the production's first error points at (:mod:`harness.differential.confirm`); its class is
python-jsonschema's, extended with bounded pattern searches (:mod:`harness.differential.bounded`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema
import referencing.exceptions

from harness.differential.bounded import PatternTimeout, bounded
from harness.differential.confirm import rejected
from harness.differential.steps import Node, Steps, descend_ref
from harness.differential.whole import valid
from harness.schemas.dialects import registry as offline_registry
from harness.schemas.dialects import resource

if TYPE_CHECKING:
    from harness.contract.records import Contract

# python-jsonschema checks ``format: regex`` with ``re.compile`` on the document's value, and
# ``re`` warns about that value's syntax (``FutureWarning: Possible nested set at position 1``,
# with the library's source line): about upstream data, not the user's code. Not shown.
warnings.filterwarnings("ignore", category=FutureWarning, module=r"jsonschema\._format")

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
        self._steps: Steps | None = None

    def _walks(self) -> Steps:
        """The validators python-jsonschema evaluates each subschema with (made on first use)."""
        if self._steps is None:
            root = self._validator
            self._steps = Steps(descend_ref(root, root.schema["$ref"]) if self._wrapped else root)
        return self._steps

    def _root(self) -> Node:
        return self._walks().root

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

        Obtained by :func:`~harness.differential.whole.valid`, a walk that evaluates each subschema
        of the document with the validator object python-jsonschema's own evaluation makes for it
        (:class:`~harness.differential.steps.Steps`), and remembers each subschema's verdict on
        each part of a document it evaluated: a part of a later document equal to one already
        seen (a fixture's unchanged members in each of its mutants, an object repeated in an
        array) is not evaluated again. Where the walk cannot follow python-jsonschema exactly (a
        subschema of another dialect's validator class), and on any exception of its own, the
        library's ``is_valid`` gives the verdict instead."""
        try:
            steps = self._walks()
            if type(steps.root[0]) is type(self._validator):
                return valid(steps, steps.root, (), instance, True)
        except Exception:  # the library's own evaluation decides (and raises what it raises)
            pass
        return bool(self._validator.is_valid(instance))

    def rejects(self, instance: Any, error: Any) -> bool:
        """Whether this validator rejects ``instance``, shown on the part of it that the production
        validator's ``error`` (a jsonschema-rs ``ValidationError``) points at; False means *not
        shown* (the caller then validates the whole document), never "valid". The walk, and why a
        rejection it shows is the whole document's: :mod:`harness.differential.confirm`."""
        try:
            return rejected(self._walks(), instance, error)
        except Exception:  # nothing shown: the full validation meets it
            return False

    def first_message(self, instance: Any) -> str:
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(instance))
        if error is None:
            return ""
        where = "/" + "/".join(map(str, error.absolute_path))
        return f"{error.validator} at {where}"


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
    return compare_verdicts(production_valid, reference, instance)[1]


def compare_verdicts(production_valid: bool, reference: ReferenceValidator,
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
