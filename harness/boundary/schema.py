"""Layer 3, ``schema``: the document held to the contract's schema (or, for an adapter tool, to
its vendor schema) by the production validator (:mod:`harness.boundary.validator`, which says
what it checks and how it reports a violation).
"""

from __future__ import annotations

import harness.boundary.compiled as compiled
from harness.boundary.base import Evaluation, Rejection, Shortcuts
from harness.boundary.validator import best_and_keyword, to_rejection
from harness.codes import SCHEMA_UNEXPLAINED

_UNEXPLAINED_REJECTION = Rejection(SCHEMA_UNEXPLAINED, "the schema rejected the document (the reason was not asked "
                                                      "for: nothing shows it)")


def check(ev: Evaluation) -> Rejection | None:
    """Validate the document: against ``vendor_schema`` when an adapter will reshape it,
    otherwise against the contract schema of the version in force."""
    contract = ev.contract
    if contract.adapter is not None:
        validator = compiled.vendor_validator(contract)
        if validator is None:
            return None  # the adapter's output is held to the contract schema instead
    else:
        validator = compiled.schema_validator(contract, ev.version)
    if validator.is_valid(ev.document):
        ev.schema_error = None
        if contract.adapter is None:
            ev.set_result(ev.document)
        return None
    if not ev.shortcuts.explain:
        ev.schema_error = Shortcuts.UNEXPLAINED
        return _UNEXPLAINED_REJECTION
    # The first of ``violations``, without converting the others.
    ev.schema_error = error = validator.first_error(ev.document)
    return to_rejection(*best_and_keyword(error))
