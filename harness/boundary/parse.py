"""Layer 2, ``parse``: strict RFC 8259 / I-JSON parsing of bytes that passed the transport,
with the package's one parser (:mod:`harness.strict_json`, which says what it rejects).
"""

from __future__ import annotations

from harness.boundary.base import Evaluation, Rejection
from harness.errors import RejectedInput
from harness.strict_json import parse_checked


def check(ev: Evaluation) -> Rejection | None:
    """Parse the bytes strictly; the document is left on the evaluation."""
    try:
        ev.document = parse_checked(ev.raw)  # the transport layer has checked emptiness and depth
    except RejectedInput as exc:
        return Rejection(exc.code, exc.message, instance_pointer=exc.pointer, offset=exc.offset)
    return None
