"""The guard: the project's contracts in front of a running agent.

- ``contract-harness guard -- COMMAND [ARGS...]``: an MCP stdio proxy (:mod:`harness.guard.stdio`).
- :func:`guarded_stdio_client`, :func:`guarded_http_client`: the same relay in front of an
  ``mcp`` SDK ``ClientSession`` (a server started over stdio, or a remote one over Streamable
  HTTP); its ``call_tool`` returns the guarded result and the verdict.
- :func:`guard_tool`: a decorator for plain Python tool functions returning bytes or JSON text.

:class:`Guard` says which MCP tool each contract guards and what the client sees. The names
load on first use (the ``mcp`` SDK is a heavy import).
"""

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.guard.function import AsyncGuardedFunction, GuardedFunction, guard_tool
    from harness.guard.policy import Guard, GuardAudit, GuardedTool, agent_tool_result
    from harness.guard.session import GuardedCall, GuardedSession, guarded_http_client, guarded_stdio_client

__all__ = [
    "AsyncGuardedFunction",
    "Guard",
    "GuardAudit",
    "GuardedCall",
    "GuardedFunction",
    "GuardedSession",
    "GuardedTool",
    "agent_tool_result",
    "guard_tool",
    "guarded_http_client",
    "guarded_stdio_client",
]

_EXPORTS = {
    **dict.fromkeys(("AsyncGuardedFunction", "GuardedFunction", "guard_tool"), "harness.guard.function"),
    **dict.fromkeys(("Guard", "GuardAudit", "GuardedTool", "agent_tool_result"), "harness.guard.policy"),
    **dict.fromkeys(
        ("GuardedCall", "GuardedSession", "guarded_http_client", "guarded_stdio_client"), "harness.guard.session"
    ),
}


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
