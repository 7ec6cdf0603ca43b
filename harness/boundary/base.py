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
from typing import TYPE_CHECKING, Any, ClassVar

from harness.frozen import fast_frozen
from harness.pointer import MISSING

if TYPE_CHECKING:
    from harness.contract.records import Contract


class _Unexplained:
    """The type of :attr:`Shortcuts.UNEXPLAINED`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Shortcuts.UNEXPLAINED"


@dataclass(frozen=True, slots=True)
class Shortcuts:
    """What a caller that judges many results against known expectations (the harness's engine)
    may spare the boundary: the one option of
    :meth:`~harness.boundary.pipeline.Boundary.examine` that is not about the result. Neither
    changes the agent result, the layer that decides, or an audit record.

    ``request``: what :func:`~harness.boundary.request.normalise_request` returned for the
    request given on this boundary's contract, taken as is instead of being normalised again
    (the engine normalises a fixture's request once for all its cases).

    ``explain=False``: a document the schema rejects is not explained — its code is
    ``schema.unexplained``, with no message worth reading and no pointers, and the schema
    layer's finding (``VerdictEvidence.schema_error``) is :attr:`UNEXPLAINED` — which spares
    most of a schema rejection's cost where nothing reads the reason. A boundary with an audit
    sink always explains."""

    request: Mapping[str, Any] | None = None
    explain: bool = True
    #: The schema layer's finding on a document it rejected without explaining why.
    UNEXPLAINED: ClassVar[Any] = _Unexplained()


#: No shortcut taken: every layer as :meth:`~harness.boundary.pipeline.Boundary.check` runs it.
NO_SHORTCUTS = Shortcuts()


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
    #: jsonschema-rs error when not (:attr:`Shortcuts.UNEXPLAINED` when the shortcuts spared
    #: it), ``MISSING`` when it did not validate (an earlier layer refused, or an adapter tool
    #: has no vendor schema). The harness's differential check compares the reference validator
    #: with this verdict instead of validating again.
    schema_error: Any = MISSING
    #: What the caller spares the layers (the schema layer reads ``explain``).
    shortcuts: Shortcuts = NO_SHORTCUTS

    def set_result(self, value: Any) -> None:
        """Record the contract object (validated) and read its declared outcome once."""
        self.result = value
        envelope = self.contract.envelope
        if envelope is not None and isinstance(value, dict):
            declared = value.get(envelope.outcome, envelope.success)
            self.outcome = "failure" if declared == envelope.failure else "success"
