"""The outstanding request a result is bound to: ``{"tool", "request_id", "args"}``.

A caller may give part of it (or none): the rest comes from the contract's defaults
(``request.example``, ``request.request_id``), and ``args`` must fit ``request.schema``. A request
that does not is :class:`~harness.errors.InvalidRequest` — the caller's mistake, never the
upstream's.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from harness.boundary.compiled import request_validator
from harness.errors import InvalidRequest

if TYPE_CHECKING:
    from harness.contract.records import Contract

MEMBERS = ("tool", "request_id", "args")


def normalise_request(contract: Contract, request: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Fill a partial request from the defaults and check it; raise InvalidRequest.

    The result is read-only; the default request is built once per contract.
    """
    if request is None:
        return contract.memo(("default-request",), lambda: MappingProxyType(contract.default_request()))
    if not isinstance(request, Mapping):
        raise InvalidRequest(f"a request must be an object, not {type(request).__name__}")
    unknown = set(request) - set(MEMBERS)
    if unknown:
        raise InvalidRequest(f"request has unknown members {sorted(unknown)} (allowed: {', '.join(MEMBERS)})")
    full = {
        "tool": request.get("tool", contract.tool),
        "request_id": request.get("request_id", contract.request_id),
        "args": request.get("args", dict(contract.request_example)),
    }
    if full["tool"] != contract.tool:
        raise InvalidRequest(f"request is for tool {full['tool']!r}, contract is {contract.tool!r}")
    if not isinstance(full["request_id"], str) or not full["request_id"]:
        raise InvalidRequest("request_id must be a non-empty string")
    if not isinstance(full["args"], Mapping):
        raise InvalidRequest("request args must be an object")
    try:
        violation = request_validator(contract).first_violation(full["args"])
    except ValueError as exc:
        raise InvalidRequest(f"request args are not JSON data: {exc}") from None
    if violation is not None:
        raise InvalidRequest(
            f"request args do not fit the contract's request schema: "
            f"{violation.message} at {violation.instance_pointer or '/'}"
        )
    return MappingProxyType(full)
