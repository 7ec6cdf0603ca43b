"""tool-contract-harness: no byte of a tool result reaches an agent unless it held its contract.

The public API. The CLI (``contract-harness``) and the pytest plugin are thin faces over it.
"""

from harness.boundary import (
    AuditRecord,
    Boundary,
    Diagnostic,
    JsonlAuditSink,
    MemoryAuditSink,
    RawStore,
    RetryPolicy,
    SchemaValidator,
    SchemaViolation,
    UpstreamError,
    Verdict,
    run_with_retry,
    strict_loads,
    validator_for,
)
from harness.codes import AgentCode, Layer
from harness.contract import Contract, load_contract
from harness.errors import ContractError, HarnessError, InvalidRequest, RejectedInput, UsageError

__version__ = "0.1.0"

__all__ = [
    "AgentCode",
    "AuditRecord",
    "Boundary",
    "Contract",
    "ContractError",
    "Diagnostic",
    "HarnessError",
    "InvalidRequest",
    "JsonlAuditSink",
    "Layer",
    "MemoryAuditSink",
    "RawStore",
    "RejectedInput",
    "RetryPolicy",
    "SchemaValidator",
    "SchemaViolation",
    "UpstreamError",
    "UsageError",
    "Verdict",
    "__version__",
    "load_contract",
    "run_with_retry",
    "strict_loads",
    "validator_for",
]
