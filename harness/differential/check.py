"""The differential check the engine calls: each parsed document's verdict under the schema
layer's schema, from the production validator (jsonschema-rs) and from the reference
(python-jsonschema), compared once per distinct (schema, document).

Importing this module imports no python-jsonschema: the reference is imported when a pair first
needs it, so a run whose every verdict was saved by an earlier run never loads it.
"""

from __future__ import annotations

from collections import OrderedDict
from types import ModuleType
from typing import TYPE_CHECKING, Any

from harness.boundary.base import Shortcuts
from harness.differential.verdicts import ReferenceVerdicts, document_key, validator_identity
from harness.pointer import MISSING

if TYPE_CHECKING:
    from harness.contract.records import Contract
    from harness.differential.reference import ReferenceValidator


class _ValidatorPair:
    """The two validators of the schema layer for one (contract, version) — the vendor schema's
    for a tool with an adapter — the reference made only when a pair needs it (a run whose
    every verdict was saved never imports python-jsonschema)."""

    __slots__ = ("_identity", "_reference", "compared", "contract", "production", "version")

    def __init__(self, contract: Contract, version: int) -> None:
        self.contract, self.version = contract, version  # the contract kept alive: its id stays its own
        self.production = contract.vendor_validator() if contract.adapter else contract.validator(version)
        #: Whether there is a reference to compare with (a tool with an adapter and no vendor
        #: schema has none).
        self.compared = not contract.adapter or contract.vendor_schema is not None
        self._identity: str | bool | None = False
        self._reference: ReferenceValidator | None = None

    def identity(self) -> str | None:
        """The hash the reference's verdicts are saved under (None: not saved)."""
        if self._identity is False:
            inputs = self.contract.reference_inputs(self.version, vendor=bool(self.contract.adapter))
            self._identity = validator_identity(*inputs) if inputs is not None else None
        return self._identity  # type: ignore[return-value]

    def reference(self) -> ReferenceValidator:
        if self._reference is None:
            reference, contract = _reference(), self.contract
            found = (reference.vendor_reference_validator(contract) if contract.adapter
                     else reference.reference_validator(contract, self.version))
            assert found is not None
            self._reference = found
        return self._reference


#: How many (schema, document) pairs the engine remembers the reference verdict of.
DIFFERENTIAL_MEMORY = 8192
#: The largest document (in bytes) whose unexplained rejection the differential check confirms
#: by the reference's whole verdict rather than by the production's first error and a walk to
#: the part it names (see :class:`Differential`). The whole verdict (a mutant's unchanged parts
#: remembered from its fixture's) costs less on small documents than the production's error,
#: which makes each ``oneOf`` branch's errors, and the document, into Python objects: measured
#: on an envelope, 27 against 47 µs at 250 bytes, 50 against 52 µs with a 4 KB string, 99
#: against 74 µs with a 16 KB one (an array of 120 small objects, 12 KB: 315 against 434 µs).
WALK_AT_MOST = 4096


class Differential:
    """The differential check of a run: the production validator's verdict against the reference
    validator's, on each document that parsed, compared once per distinct (schema, document).

    A document is known by :func:`~harness.differential.verdicts.document_key`: the sha256 of the
    bytes the parse layer made it of (equal bytes are one document), kept with the comparison's
    outcome for the last :data:`DIFFERENTIAL_MEMORY` pairs, so memory stays flat however long
    the run. The same document under the same schema has the same verdict from both validators,
    so a pair already compared cannot disagree differently: only the reference validator's time
    is saved (a fixture shared by versions, the same payload in two sources, a mutant that
    rebuilds its fixture's bytes).

    Each comparison is one of two kinds. A document the production validator rejects is first
    shown rejected by the reference on the subschema the production's first error leads to
    (:meth:`~harness.differential.reference.ReferenceValidator.rejects`: through conjunctive steps only,
    so a rejection there is a rejection of the whole document): the verdicts agree, at the cost
    of that subschema. A rejection the schema layer left unexplained (``schema_error`` is
    :attr:`~harness.boundary.base.Shortcuts.UNEXPLAINED`: the engine's ``explain=False``) has no first
    error to follow: up to :data:`WALK_AT_MOST` bytes it is compared by the reference's whole
    verdict (below), and past that the production's first error is asked for here and followed
    as above. Every other comparison — each document the production validator accepts, and each
    rejection not shown on a part — validates the whole document with the reference.
    With ``saved`` (:class:`~harness.differential.verdicts.ReferenceVerdicts`), a pair whose
    reference verdict an earlier run saved takes that verdict where the production's agrees with
    it; where they differ, the pair is compared as above (and the saved verdict replaced).
    Counts: ``compared`` (pairs compared), ``remembered`` (cases whose pair was compared
    before), ``confirmed`` (rejections shown on a subschema), ``full`` (whole-document
    reference validations), with ``saved`` the pairs that took a saved verdict;
    ``compared == confirmed + full (+ saved)``; and ``undecided``, the whole-document validations
    that gave no verdict (a pattern search past :data:`~harness.differential.bounded.PATTERN_TIMEOUT_S`,
    Python's recursion limit): those documents were not compared, and the production's verdict
    stands.
    """

    def __init__(self, memory: int = DIFFERENTIAL_MEMORY, saved: ReferenceVerdicts | None = None) -> None:
        self.memory = memory
        #: The reference's verdicts saved by earlier runs (None: every pair validated afresh).
        self.saved = saved
        self._seen: OrderedDict[tuple[int, bytes], str | None] = OrderedDict()
        #: The two validators by (contract, version), looked up once each.
        self._validators: dict[tuple[int, int], _ValidatorPair] = {}
        self.compared = 0
        self.remembered = 0
        self.confirmed = 0
        self.full = 0
        self.reused = 0
        self.undecided = 0

    def counts(self) -> dict[str, int]:
        """The run's comparisons, by kind (as the reports show them)."""
        counts = {"compared": self.compared, "remembered": self.remembered, "confirmed": self.confirmed,
                  "full": self.full, "undecided": self.undecided}
        if self.saved is not None:
            counts["saved"] = self.reused
        return counts

    def finish(self) -> None:
        """Save the verdicts this run obtained (when it saves any)."""
        if self.saved is not None:
            self.saved.save()

    def check(self, contract: Contract, version: int, document: Any, schema_error: Any = MISSING,
              raw: bytes | None = None) -> str | None:
        """Why the two validators disagree on ``document``, or None. ``schema_error``: the
        production validator's verdict as the schema layer found it (None: valid; its first
        error: invalid), when it validated this document; otherwise it is asked here. ``raw``:
        the bytes the parse layer made ``document`` of, when it did (see :func:`document_key`)."""
        if document is None:
            return None
        validators = self._validators.get((id(contract), version))
        if validators is None:
            validators = self._validators[(id(contract), version)] = _ValidatorPair(contract, version)
        production = validators.production
        if production is None or not validators.compared:
            return None
        digest = document_key(document, raw)
        key = None if digest is None else (id(validators), digest)
        if key is not None and key in self._seen:
            self._seen.move_to_end(key)
            self.remembered += 1
            return self._seen[key]
        self.compared += 1
        if schema_error is MISSING:
            production_valid = production.is_valid(document)
            schema_error = None if production_valid else production.first_error(document)
        else:
            production_valid = schema_error is None
        # A verdict saved by an earlier run stands for this run's when the production agrees
        # with it; where they differ the reference validates again, so a disagreement is
        # always one of this run's verdicts.
        saved = identity = name = None
        if self.saved is not None and key is not None:
            identity = validators.identity()
            if identity is not None:
                name = key[1].hex()
                saved = self.saved.get(contract.tool, identity, name)
        found: str | None = None
        if saved is not None and saved == production_valid:
            self.reused += 1
            obtained = None
        elif not production_valid and self._shown_on_a_part(validators, document, schema_error, raw):
            self.confirmed += 1
            obtained = False
        else:
            self.full += 1
            obtained, disagreement = _reference().compare_verdicts(production_valid, validators.reference(), document)
            # No whole verdict within the reference's bounds (a slow pattern elsewhere in the
            # document): an unexplained rejection may still be shown on the part its first error names.
            if (obtained is None and disagreement is None and schema_error is Shortcuts.UNEXPLAINED
                    and self._shown_on_its_part(validators, document, schema_error)):
                self.full -= 1
                self.confirmed += 1
                obtained = False
            found = disagreement.describe() if disagreement else None
            self.undecided += obtained is None and disagreement is None
        if identity is not None and obtained is not None:
            assert self.saved is not None and name is not None
            self.saved.put(contract.tool, identity, name, obtained)
        if key is not None:
            self._seen[key] = found
            if len(self._seen) > self.memory:
                self._seen.popitem(last=False)
        return found

    @staticmethod
    def _shown_on_a_part(validators: _ValidatorPair, document: Any, schema_error: Any, raw: bytes | None) -> bool:
        """Whether the reference rejects a document the production rejects, shown on the part the
        production's first error names. A rejection the schema layer left unexplained is not
        (the caller then takes the reference's whole verdict) when the document is small enough
        for that to be the cheaper way; otherwise its first error is asked for here."""
        if schema_error is Shortcuts.UNEXPLAINED and len(raw or b"") <= WALK_AT_MOST and validators.reference().walks:
            return False
        return Differential._shown_on_its_part(validators, document, schema_error)

    @staticmethod
    def _shown_on_its_part(validators: _ValidatorPair, document: Any, schema_error: Any) -> bool:
        """Whether the reference rejects the document on the part the production's first error
        names (asked for here when the schema layer left it unexplained)."""
        if schema_error is Shortcuts.UNEXPLAINED:
            assert validators.production is not None
            schema_error = validators.production.first_error(document)
        return validators.reference().rejects(document, schema_error)


def _reference() -> ModuleType:
    """:mod:`harness.differential.reference`, imported on first use (a run whose every verdict
    was saved never imports python-jsonschema)."""
    global _REFERENCE
    if _REFERENCE is None:
        import harness.differential.reference as reference

        _REFERENCE = reference
    return _REFERENCE


_REFERENCE: ModuleType | None = None
