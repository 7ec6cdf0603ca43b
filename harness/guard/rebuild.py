"""The client's copy of each server message the guard relays, rebuilt from what it can vouch for.

A server's message is never forwarded as it came (except on a surface the operator passed):
the guard writes a new one holding only members whose values it can vouch for — ids it
routed, numbers, booleans, protocol versions and tokens from a fixed list, tokens it issued
itself — and fixed text of its own where the protocol wants text. No string the server chose
survives: not ``instructions``, not ``serverInfo``, not an error's ``message`` or ``data``, not a
progress ``message``, not ``_meta``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from harness.guard.messages import ERROR_TEXT, KNOWN_PROTOCOL_VERSIONS
from harness.guard.surfaces import SERVER_CAPABILITY

#: Who the client is talking to, as the guard tells it (the server's own name is its text).
GUARD_INFO: Final = {"name": "contract-harness-guard", "version": "1"}
#: Capability flags the guard keeps (booleans only).
_FLAGS: Final = ("listChanged", "subscribe")
#: MCP's own error codes (-32000 .. -32099 is the range JSON-RPC leaves to implementations).
_MCP_ERRORS: Final = range(-32099, -31999)
#: Client capabilities a -32021 error may say are missing (names from a fixed list).
_CLIENT_CAPABILITIES: Final = frozenset({"roots", "sampling", "elicitation", "experimental", "extensions", "tasks"})
_CACHE_SCOPES: Final = frozenset({"private", "public"})


def flags(value: Any) -> dict[str, bool]:
    """A capability object reduced to its boolean flags."""
    if not isinstance(value, Mapping):
        return {}
    return {k: value[k] for k in _FLAGS if type(value.get(k)) is bool}


def server_capabilities(value: Any, passed: frozenset[str]) -> dict[str, Any]:
    """The server's capabilities as the client may see them: tools, and the passed surfaces'.
    ``experimental``, ``extensions`` and ``tasks`` are the server's to define, so they go."""
    caps = value if isinstance(value, Mapping) else {}
    out: dict[str, Any] = {}
    if isinstance(caps.get("tools"), Mapping):
        out["tools"] = flags(caps["tools"])
    for surface, name in SERVER_CAPABILITY.items():
        if surface in passed and isinstance(caps.get(name), Mapping):
            out[name] = flags(caps[name])
    return out


def initialize_result(result: Mapping[str, Any], passed: frozenset[str]) -> dict[str, Any] | None:
    """An ``initialize`` answer; None when it names no protocol version the guard knows."""
    version = result.get("protocolVersion")
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return None
    return {"protocolVersion": version, "capabilities": server_capabilities(result.get("capabilities"), passed),
            "serverInfo": dict(GUARD_INFO)}


def discover_result(result: Mapping[str, Any], passed: frozenset[str]) -> dict[str, Any] | None:
    """A ``server/discover`` answer (2026-07-28); None when it names no version the guard knows."""
    supported = result.get("supportedVersions")
    versions = [v for v in supported if v in KNOWN_PROTOCOL_VERSIONS] if isinstance(supported, list) else []
    if not versions:
        return None
    out: dict[str, Any] = {"supportedVersions": versions,
                           "capabilities": server_capabilities(result.get("capabilities"), passed)}
    out.update(cache_members(result))
    return out


def cache_members(result: Mapping[str, Any]) -> dict[str, Any]:
    """``resultType``, ``ttlMs`` and ``cacheScope`` where they hold values the protocol defines."""
    out: dict[str, Any] = {}
    if result.get("resultType") == "complete":
        out["resultType"] = "complete"
    ttl = result.get("ttlMs")
    if type(ttl) is int and ttl >= 0:
        out["ttlMs"] = ttl
    if result.get("cacheScope") in _CACHE_SCOPES:
        out["cacheScope"] = result["cacheScope"]
    return out


def empty_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """An answer with no content (``ping``): nothing but its ``resultType``."""
    return {"resultType": "complete"} if result.get("resultType") == "complete" else {}


def progress_params(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """A ``notifications/progress``'s params: the token (checked by the caller) and finite
    numbers; None when ``progress`` is not a finite number."""
    progress = params.get("progress")
    if not _finite(progress):
        return None
    out = {"progressToken": params.get("progressToken"), "progress": progress}
    if _finite(params.get("total")):
        out["total"] = params["total"]
    return out


def _finite(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def error(error: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-RPC error object: its code (when an integer), fixed text, and the ``data`` of
    MCP's negotiation errors reduced to versions and capability names from fixed lists."""
    code = error.get("code")
    if type(code) is not int:
        code = -32603
    out: dict[str, Any] = {"code": code, "message": error_text(code)}
    data = error.get("data")
    if code in _MCP_ERRORS and isinstance(data, Mapping):
        kept = _negotiation_data(data)
        if kept:
            out["data"] = kept
    return out


def error_text(code: int) -> str:
    """The guard's words for an error code (the peer's message is never relayed)."""
    if code in ERROR_TEXT:
        return ERROR_TEXT[code]
    return f"the server answered with error {code}"


def _negotiation_data(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    supported = data.get("supported")
    if isinstance(supported, list):
        out["supported"] = [v for v in supported if v in KNOWN_PROTOCOL_VERSIONS]
    if data.get("requested") in KNOWN_PROTOCOL_VERSIONS:
        out["requested"] = data["requested"]
    required = data.get("requiredCapabilities")
    if isinstance(required, Mapping):
        out["requiredCapabilities"] = {k: {} for k in required if k in _CLIENT_CAPABILITIES}
    return out
