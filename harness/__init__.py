"""tool-contract-harness: no byte of a tool result reaches an agent unless it held its contract.

The public API. The CLI (``contract-harness``) and the pytest plugin are thin faces over it.
The names load on first use, so importing the package (as pytest does to load the plugin, and
the CLI to print ``--help``) costs nothing until one is needed.

Under pytest the package's modules are imported unrewritten (PYTEST_DONT_REWRITE: the marker
pytest reads here; see :class:`harness.pytest_plugin.PlainImports`).
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

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

#: Where each public name lives.
_EXPORTS = {
    **dict.fromkeys(("AuditRecord", "Boundary", "Diagnostic", "JsonlAuditSink", "MemoryAuditSink", "RawStore",
                     "RetryPolicy", "SchemaValidator", "SchemaViolation", "UpstreamError", "Verdict",
                     "run_with_retry", "strict_loads", "validator_for"), "harness.boundary"),
    **dict.fromkeys(("AgentCode", "Layer"), "harness.codes"),
    **dict.fromkeys(("Contract", "load_contract"), "harness.contract"),
    **dict.fromkeys(("ContractError", "HarnessError", "InvalidRequest", "RejectedInput", "UsageError"),
                    "harness.errors"),
}


def lazy_exports(package: str, exports: dict[str, str], scope: dict[str, Any]) -> Callable[[str], Any]:
    """A package's ``__getattr__``: each name of ``exports`` (name -> the module defining it)
    imported on first use and kept in the package's ``scope``, so importing the package costs
    nothing until a name is needed (``harness``, ``harness.boundary``, ``harness.guard``)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        scope[name] = value
        return value

    return __getattr__


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
