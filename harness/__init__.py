"""tool-contract-harness: no byte of a tool result reaches an agent unless it held its contract.

The public API. The CLI (``contract-harness``) and the pytest plugin are thin faces over it.
The names load on first use, so importing the package (as pytest does to load the plugin, and
the CLI to print ``--help``) costs nothing until one is needed.

The package holds no test whose asserts pytest should explain (PYTEST_DONT_REWRITE: the marker
pytest reads here, so a nested session does not warn that it cannot rewrite it; with
``--contract-plain-imports`` the plugin imports it unrewritten, :class:`harness.pytest_plugin.PlainImports`).
"""

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports
from harness.version import __version__

if TYPE_CHECKING:
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
        validator_for,
    )
    from harness.codes import AgentCode, Layer
    from harness.contract import Contract, load_contract
    from harness.errors import ContractError, HarnessError, InvalidRequest, RejectedInput, UsageError
    from harness.strict_json import strict_loads


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

#: Where each public name lives.
_EXPORTS = {
    **dict.fromkeys(("AuditRecord", "Boundary", "Diagnostic", "JsonlAuditSink", "MemoryAuditSink", "RawStore",
                     "RetryPolicy", "SchemaValidator", "SchemaViolation", "UpstreamError", "Verdict",
                     "run_with_retry", "validator_for"), "harness.boundary"),
    "strict_loads": "harness.strict_json",
    **dict.fromkeys(("AgentCode", "Layer"), "harness.codes"),
    **dict.fromkeys(("Contract", "load_contract"), "harness.contract"),
    **dict.fromkeys(("ContractError", "HarnessError", "InvalidRequest", "RejectedInput", "UsageError"),
                    "harness.errors"),
}


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
