"""Layer 4, ``adapter`` (optional): map a broad vendor document to the closed contract object.

The adapter is ``module:function`` in ``contract.yaml`` and is called as
``function(document, request)``. It is where vendor churn is absorbed: it selects the fields
the contract needs and builds a *new* object. Whatever it returns must validate against the
contract schema (``adapter.output_invalid``); whatever it raises is ``adapter.error`` — with
the exception's class name only, since its text may quote the vendor.
"""

from __future__ import annotations

from types import MappingProxyType

from harness.boundary.base import Evaluation, Rejection
from harness.codes import ADAPTER_ERROR, ADAPTER_OUTPUT_INVALID


def check(ev: Evaluation) -> Rejection | None:
    """Run the adapter and hold its output to the contract schema."""
    function = ev.contract.adapter_function()
    if function is None:
        return None
    try:
        output = function(ev.document, MappingProxyType(dict(ev.request)))
    except Exception as exc:
        return Rejection(ADAPTER_ERROR, f"adapter raised {type(exc).__name__}")
    validator = ev.contract.validator(ev.version)
    try:
        valid = validator.is_valid(output)
        violations = [] if valid else validator.violations(output)
    except (TypeError, ValueError, OverflowError) as exc:
        return Rejection(
            ADAPTER_OUTPUT_INVALID, f"adapter returned something that is not JSON data ({exc})"
        )
    if violations:
        first = violations[0]
        return Rejection(
            ADAPTER_OUTPUT_INVALID,
            f"adapter output fails schema.{first.keyword}: {first.message}",
            instance_pointer=first.instance_pointer,
            schema_pointer=first.schema_pointer,
        )
    ev.set_result(output)
    return None
