"""The boundary: one module per layer, plus the envelope, audit and retry around them.

The names below load on first use: the loader imports ``harness.boundary.compiled`` (and the
schema layer) to compile a contract, and ``contract-harness lint`` should not pay for the
pipeline, audit and retry it never runs.
"""

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.boundary.audit import AuditRecord, AuditSink, JsonlAuditSink, MemoryAuditSink, RawStore
    from harness.boundary.pipeline import LAYERS, Boundary, Diagnostic, Verdict
    from harness.boundary.retry import RetryOutcome, RetryPolicy, UpstreamError, run_with_retry
    from harness.boundary.validator import SchemaValidator, SchemaViolation, validator_for
    from harness.strict_json import strict_loads

__all__ = [
    "LAYERS",
    "AuditRecord",
    "AuditSink",
    "Boundary",
    "Diagnostic",
    "JsonlAuditSink",
    "MemoryAuditSink",
    "RawStore",
    "RetryOutcome",
    "RetryPolicy",
    "SchemaValidator",
    "SchemaViolation",
    "UpstreamError",
    "Verdict",
    "run_with_retry",
    "strict_loads",
    "validator_for",
]


#: Where each name lives.
_EXPORTS = {
    **dict.fromkeys(("AuditRecord", "AuditSink", "JsonlAuditSink", "MemoryAuditSink", "RawStore"),
                    "harness.boundary.audit"),
    "strict_loads": "harness.strict_json",
    **dict.fromkeys(("LAYERS", "Boundary", "Diagnostic", "Verdict"), "harness.boundary.pipeline"),
    **dict.fromkeys(("RetryOutcome", "RetryPolicy", "UpstreamError", "run_with_retry"), "harness.boundary.retry"),
    **dict.fromkeys(("SchemaValidator", "SchemaViolation", "validator_for"), "harness.boundary.validator"),
}


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
