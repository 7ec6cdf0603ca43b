"""Layer 7, ``projection``: build a fresh agent-facing object from declared fields only.

The validated result is never handed over wholesale. A new object is built from the
``agent_view`` pointers, and it must validate against the *view schema*: a closed object
derived from the contract schema (each field's subschema found by the schema model, walking the
pointer through ``properties``, items, references and the branches of ``allOf``/``oneOf``/
``anyOf``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.boundary.base import Evaluation, Rejection
from harness.boundary.compiled import view_validator
from harness.codes import PROJECTION_MISSING_FIELD, PROJECTION_VIEW_INVALID
from harness.pointer import MISSING, resolve

if TYPE_CHECKING:
    pass

def check(ev: Evaluation) -> Rejection | None:
    """Copy each agent_view field into a new object and hold it to the view schema."""
    if ev.outcome == "failure":
        return None
    data: dict[str, Any] = {}
    for field in ev.contract.agent_view:
        value = resolve(ev.result, field.tokens)
        if value is MISSING:
            if field.optional:
                continue
            return Rejection(
                PROJECTION_MISSING_FIELD,
                f"agent_view field {field.name!r} finds nothing at {field.pointer}",
                instance_pointer=field.pointer,
            )
        # No copy needed: the document was parsed for this check alone, and the agent receives
        # a serialisation of the projection (Verdict.agent_json), never these objects.
        data[field.name] = value
    validator = view_validator(ev.contract, ev.version)
    if not validator.is_valid(data):
        violation = validator.violations(data)[0]
        return Rejection(
            PROJECTION_VIEW_INVALID,
            f"agent view fails schema.{violation.keyword}: {violation.message}",
            instance_pointer=violation.instance_pointer,
            schema_pointer=violation.schema_pointer,
        )
    ev.view = data
    return None
