"""The boundary: one module per layer, plus the envelope, audit and retry around them."""

from harness.boundary.audit import AuditRecord, AuditSink, JsonlAuditSink, MemoryAuditSink, RawStore
from harness.boundary.parse import strict_loads
from harness.boundary.pipeline import LAYERS, Boundary, Diagnostic, Verdict
from harness.boundary.retry import RetryOutcome, RetryPolicy, UpstreamError, run_with_retry
from harness.boundary.schema import SchemaValidator, SchemaViolation, validator_for

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
