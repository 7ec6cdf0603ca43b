"""Layer 7, ``projection``: build a fresh agent-facing object from declared fields only.

The validated result is never handed over wholesale. A new object is built from the
``agent_view`` pointers, and it must validate against the *view schema*: a closed object
derived from the contract schema (each field's subschema found by the schema model, walking the
pointer through ``properties``, items, references and the branches of ``allOf``/``oneOf``/
``anyOf``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from harness.boundary.base import Evaluation, Rejection
from harness.boundary.compiled import view_validator
from harness.codes import PROJECTION_MISSING_FIELD, PROJECTION_VIEW_INVALID
from harness.pointer import MISSING, resolve
from harness.schemas.bundle import Bundle
from harness.schemas.dialects import BRANCHES

if TYPE_CHECKING:
    from harness.contract.records import Contract

def derive_view_schema(contract: Contract, version: int | None = None) -> dict[str, Any]:
    """The closed schema every agent ``data`` object of this contract must satisfy.

    Each field's schema is a self-contained copy (:class:`~harness.schemas.bundle.Bundle`) of
    the subschemas the schema model finds at the field's pointer (through ``properties``,
    items, references and ``allOf``/``oneOf``/``anyOf``): one, or ``anyOf`` the several, or
    ``true`` where the schema says nothing."""
    document = contract.document(version)
    bundle = Bundle(document)
    properties = {f.name: bundle.any_of(document.instance_nodes(f.tokens, through=BRANCHES))
                  for f in contract.agent_view}
    view: dict[str, Any] = {}
    schema = document.schema
    if isinstance(schema, Mapping) and "$schema" in schema:
        view["$schema"] = schema["$schema"]
    view.update(
        {
            "type": "object",
            "required": [f.name for f in contract.agent_view if not f.optional],
            "properties": properties,
            "additionalProperties": False,
        }
    )
    view.update(bundle.defs)
    return view


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
