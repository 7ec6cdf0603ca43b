"""What every layer shares: the working state of one check and the rejection it may return.

Every layer has the same shape: ``check(ev: Evaluation) -> Rejection | None``. A layer reads
what earlier layers left on the evaluation, adds its own product (the bytes, the document, the
contract object, the projection), and returns a rejection or nothing. The pipeline adds the
layer name; layers never print and never raise on bad data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from harness.frozen import fast_frozen
from harness.pointer import MISSING

if TYPE_CHECKING:
    from harness.contract.records import Contract


class _Unexplained:
    """The type of :data:`UNEXPLAINED`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNEXPLAINED"


#: ``Evaluation.schema_error`` of a document the schema layer rejected without explaining why.
UNEXPLAINED: Any = _Unexplained()


@fast_frozen
@dataclass(frozen=True, slots=True)
class Rejection:
    """A layer's refusal: a stable code and a one-line message with no upstream values in it.

    Member names may appear (``'debug' was unexpected``): the operator reading a report needs
    them. The audit record, kept apart and for long, masks them too
    (:func:`harness.boundary.audit.mask_names`)."""

    code: str
    message: str
    instance_pointer: str | None = None
    schema_pointer: str | None = None
    offset: int | None = None


@dataclass(slots=True)
class Evaluation:
    """Mutable working state of one pass through the boundary. Never leaves the pipeline."""

    contract: Contract
    version: int
    request: Mapping[str, Any]
    now: datetime
    source: Any
    raw: bytes = b""
    document: Any = MISSING
    result: Any = MISSING  # the contract object: the document, or the adapter's output
    view: dict[str, Any] | None = None
    #: ``success`` or ``failure``, as the validated contract object declares it.
    outcome: str = "success"
    #: What the schema layer's validator said of the document: None when valid, its first
    #: jsonschema-rs error when not, ``MISSING`` when it did not validate (an earlier layer
    #: refused, or an adapter tool has no vendor schema). The harness's differential check
    #: compares the reference validator with this verdict instead of validating again.
    schema_error: Any = MISSING
    #: Whether the schema layer explains a rejection: the production validator's first error,
    #: ranked, gives its code, message and pointers (most of a rejection's cost). Without,
    #: the rejection is ``schema.unexplained`` and ``schema_error`` is :data:`UNEXPLAINED`:
    #: for the harness's engine, which asks again wherever the reason is read (see
    #: :meth:`harness.boundary.pipeline.Boundary.examine`).
    explain: bool = True

    def set_result(self, value: Any) -> None:
        """Record the contract object (validated) and read its declared outcome once."""
        self.result = value
        envelope = self.contract.envelope
        if envelope is not None and isinstance(value, dict):
            declared = value.get(envelope.outcome, envelope.success)
            self.outcome = "failure" if declared == envelope.failure else "success"
