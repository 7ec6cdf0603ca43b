"""Which MCP methods the guard relays, and which only when the operator opts in.

The guard relays what it can vouch for and nothing else. Tools are its business: ``tools/list``
and ``tools/call`` are always relayed (and rewritten), as are the lifecycle messages around
them, which carry no server text once rebuilt. Every other surface of MCP carries the server's
own text straight to the client — a resource's contents, a prompt's messages, a log line, a
sampling request's prompt — and is relayed only when the operator names it with
``--pass SURFACE`` (said on stderr at start). A method in no list is refused either way:
a client request with JSON-RPC error -32601 (never sent), a server request likewise (never
shown to the client), a notification dropped.

The method names are every revision's (``mcp_types.methods``; a test fails when the SDK knows
one more).
"""

from __future__ import annotations

from typing import Final

#: Client requests always relayed (each answer rebuilt by the guard).
CLIENT_REQUESTS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call", "server/discover"})
#: Client notifications always relayed.
CLIENT_NOTIFICATIONS: Final = frozenset(
    {"notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"}
)
#: Server requests always relayed (rebuilt: no server text in either).
SERVER_REQUESTS: Final = frozenset({"ping", "roots/list"})
#: Server notifications always relayed (rebuilt).
SERVER_NOTIFICATIONS: Final = frozenset(
    {"notifications/progress", "notifications/cancelled", "notifications/tools/list_changed"}
)

#: What each surface an operator may pass adds, both ways: (client requests, server
#: notifications, server requests). Relayed as they came.
SURFACES: Final[dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]]] = {
    "resources": (
        frozenset({"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
                   "resources/unsubscribe"}),
        frozenset({"notifications/resources/list_changed", "notifications/resources/updated"}),
        frozenset(),
    ),
    "prompts": (
        frozenset({"prompts/list", "prompts/get"}),
        frozenset({"notifications/prompts/list_changed"}),
        frozenset(),
    ),
    "completions": (frozenset({"completion/complete"}), frozenset(), frozenset()),
    "logging": (frozenset({"logging/setLevel"}), frozenset({"notifications/message"}), frozenset()),
    "subscriptions": (
        frozenset({"subscriptions/listen"}), frozenset({"notifications/subscriptions/acknowledged"}), frozenset()
    ),
    "sampling": (frozenset(), frozenset(), frozenset({"sampling/createMessage"})),
    "elicitation": (frozenset(), frozenset({"notifications/elicitation/complete"}), frozenset({"elicitation/create"})),
}

#: The capability (of ``initialize``/``server/discover`` results) each surface stands for.
SERVER_CAPABILITY: Final = {
    "resources": "resources",
    "prompts": "prompts",
    "completions": "completions",
    "logging": "logging",
}
#: The client capability a surface needs (removed from what the server is told otherwise, so
#: that it never asks).
CLIENT_CAPABILITY: Final = {"sampling": "sampling", "elicitation": "elicitation"}


def surface_of(method: str) -> str | None:
    """The surface a method or notification belongs to, if an operator may pass it."""
    for name, groups in SURFACES.items():
        if any(method in group for group in groups):
            return name
    return None


def passed_methods(passed: frozenset[str]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(client requests, server notifications, server requests) relayed as they came."""
    requests: set[str] = set()
    notifications: set[str] = set()
    server_requests: set[str] = set()
    for name in passed:
        client, note, server = SURFACES[name]
        requests |= client
        notifications |= note
        server_requests |= server
    return frozenset(requests), frozenset(notifications), frozenset(server_requests)
