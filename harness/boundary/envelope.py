"""The only two shapes an agent ever receives.

- success: ``{"tool", "request_id", "outcome": "success", "data": <projection>}``
- failure: ``{"tool", "request_id", "outcome": "failure", "error": {"code", "retryable"}}``

``tool`` and ``request_id`` come from the caller's request (which binding proved the result
echoes), ``code`` from a finite set. No upstream text can enter either shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.codes import AgentCode, Layer

if TYPE_CHECKING:
    from harness.contract.records import Contract

_NEVER_RETRYABLE = {Layer.SCHEMA, Layer.ADAPTER, Layer.BINDING, Layer.PARSE, Layer.PROJECTION}


def success(tool: str, request_id: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"tool": tool, "request_id": request_id, "outcome": "success", "data": data}


def failure(tool: str, request_id: str, code: str, retryable: bool) -> dict[str, Any]:
    return {
        "tool": tool,
        "request_id": request_id,
        "outcome": "failure",
        "error": {"code": code, "retryable": retryable},
    }


def agent_code_for(contract: Contract, upstream_code: Any) -> str:
    """Map a failure code reported by the upstream onto the contract's finite set.

    Returns one of *our* strings (never the upstream's object), INVALID_RESPONSE if unknown.
    """
    for code in sorted(contract.errors.allowed):
        if upstream_code == code:
            return code
    return AgentCode.INVALID_RESPONSE.value


def is_retryable(contract: Contract, agent_code: str, layer: Layer | None) -> bool:
    """Whether the agent may be told a retry makes sense. Structural rejections never are."""
    if layer in _NEVER_RETRYABLE or agent_code == AgentCode.INVALID_REQUEST:
        return False
    if layer is Layer.FRESHNESS:
        return contract.errors.freshness_retryable
    return agent_code in contract.errors.retryable
