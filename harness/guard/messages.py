"""The one classifier: what kind of JSON-RPC message a line is, decided the same way both ways.

Every line the guard reads, from the client or from the server, is classified here before
anything else looks at it. A line is exactly one of four kinds, by the JSON-RPC 2.0 rules as
MCP narrows them, or it is :class:`Malformed`:

========================  ==========================================================================
kind                      members (``jsonrpc`` is ``"2.0"`` in every kind; nothing else is allowed)
========================  ==========================================================================
``request``               ``id`` (a string or an integer), ``method`` (a string), ``params`` (an object, optional)
``notification``          ``method``, ``params`` (optional); no ``id``
``response``              ``id`` (a string or an integer), ``result`` (an object)
``error``                 ``id`` (a string, an integer, or ``null``), ``error``: ``{code, message, data?}``
========================  ==========================================================================

The bytes are read by the boundary's strict parser: UTF-8 only, one JSON value per line, no
duplicate member names (a lenient peer keeps the first of two ``name`` members, the guard the
last: either way they would disagree on which tool is called), no lone surrogate escapes, no
NaN. A batch (a JSON array), a line that is both a request and a response, an id of ``true``
or ``1.5``, an unknown top-level member: each is malformed, and no peer ever sees it.

Method names are compared exactly (``Tools/Call`` is not ``tools/call``); which methods the
guard relays at all is :mod:`harness.guard.relay`'s to decide, from the sets below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from harness.errors import RejectedInput
from harness.guard.lines import HEAD, TAIL, recover_id
from harness.strict_json import strict_loads

#: Nesting the classifier reads (an answer is then held to its contract's own depth).
ROUTING_DEPTH: Final = 256

#: Every released MCP protocol revision, oldest to newest (``mcp_types.version``; a test fails
#: when the SDK knows one more).
KNOWN_PROTOCOL_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
#: Revisions whose requests carry their version and capabilities in ``_meta`` (no handshake).
MODERN_PROTOCOL_VERSIONS: Final = frozenset({"2026-07-28"})
#: Revisions that define ``resultType: "input_required"`` (multi round-trip requests).
INPUT_REQUIRED_VERSIONS: Final = frozenset({"2026-07-28"})

#: JSON-RPC error codes and the fixed text the guard writes for them (never the peer's).
ERROR_TEXT: Final = {
    -32700: "Parse error",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
}

Kind = Literal["request", "notification", "response", "error"]

_MEMBERS: Final[dict[str, frozenset[str]]] = {
    "request": frozenset({"jsonrpc", "id", "method", "params"}),
    "notification": frozenset({"jsonrpc", "method", "params"}),
    "response": frozenset({"jsonrpc", "id", "result"}),
    "error": frozenset({"jsonrpc", "id", "error"}),
}
_ERROR_MEMBERS: Final = frozenset({"code", "message", "data"})


@dataclass(frozen=True, slots=True)
class Message:
    """A line that is exactly one kind of JSON-RPC message, with its raw bytes."""

    kind: Kind
    raw: bytes
    body: dict[str, Any]

    @property
    def id(self) -> Any:
        return self.body.get("id")

    @property
    def method(self) -> str:
        return str(self.body.get("method"))

    @property
    def params(self) -> dict[str, Any]:
        params = self.body.get("params")
        return params if isinstance(params, dict) else {}


@dataclass(frozen=True, slots=True)
class Malformed:
    """A line that is not exactly one kind of message.

    ``reason`` is the guard's own words (never the line's text); ``parsed`` says whether the
    line was JSON at all (``code`` is then -32600, else -32700); ``ids`` are the ids the line
    seems to carry (one per object of a batch, none when unknown), for answering a client.
    """

    reason: str
    parsed: bool
    ids: tuple[Any, ...] = ()

    @property
    def code(self) -> int:
        return -32600 if self.parsed else -32700


def id_key(ident: Any) -> str:
    """A dictionary key for a JSON-RPC id: ids equal as JSON values, and only those, share one
    (``1`` and ``"1"`` differ)."""
    if type(ident) is int:
        return f"#{ident}"
    if type(ident) is str:
        return f"'{ident}"
    return json.dumps(ident, sort_keys=True)


def valid_id(value: Any) -> bool:
    """A request id MCP allows: a string or an integer (not null, not a boolean, not a float)."""
    return type(value) is str or type(value) is int


def classify(line: bytes) -> Message | Malformed:
    """The kind of one line (without its newline)."""
    try:
        value = strict_loads(line, max_depth=ROUTING_DEPTH)
    except RejectedInput as exc:
        ident = recover_id(line[:HEAD], line[-TAIL:])
        return Malformed(f"not strict JSON ({exc.code})", False, (ident,) if valid_id(ident) else ())
    if isinstance(value, list):
        ids = tuple(item["id"] for item in value if isinstance(item, dict) and valid_id(item.get("id")))
        return Malformed("a batch (JSON-RPC arrays are not relayed)", True, ids)
    if not isinstance(value, dict):
        return Malformed("not a JSON object", True)
    ident = value.get("id")
    ids = (ident,) if valid_id(ident) else ()
    kind = _kind(value)
    if kind not in _MEMBERS:
        return Malformed(kind, True, ids)
    return Message(kind, line, value)  # type: ignore[arg-type]


def _kind(value: dict[str, Any]) -> str:
    """The message's kind, or (any other string) what keeps it from being exactly one."""
    if value.get("jsonrpc") != "2.0":
        return 'jsonrpc is not "2.0"'
    kind: Kind
    if "method" in value:
        kind = "request" if "id" in value else "notification"
    elif "result" in value:
        kind = "response"
    elif "error" in value:
        kind = "error"
    else:
        return "neither a request, a notification nor an answer"
    extra = value.keys() - _MEMBERS[kind]
    if extra:
        return f"a {kind} with members no {kind} has ({len(extra)})"
    if kind in ("request", "notification"):
        method = value["method"]
        if not isinstance(method, str) or not method:
            return "method is not a non-empty string"
        if "params" in value and not isinstance(value["params"], dict):
            return "params is not an object"
        if kind == "request" and not valid_id(value["id"]):
            return "a request id must be a string or an integer"
        return kind
    if kind == "response":
        if not valid_id(value.get("id")):
            return "an answer's id must be a string or an integer"
        if not isinstance(value["result"], dict):
            return "result is not an object"
        return kind
    if "id" not in value or not (valid_id(value["id"]) or value["id"] is None):
        return "an error's id must be a string, an integer or null"
    error = value["error"]
    if not isinstance(error, dict) or error.keys() - _ERROR_MEMBERS:
        return "error is not an object of code, message and data"
    if type(error.get("code")) is not int or not isinstance(error.get("message"), str):
        return "error needs an integer code and a string message"
    return kind


@dataclass(frozen=True, slots=True)
class Unreachable:
    """Not a message: the server end could not deliver the request with this id (a remote
    server that refused the connection, timed out, answered with an HTTP error). ``reason`` is
    the transport's one line, never the server's text."""

    id: Any
    reason: str


def error_line(ident: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error the guard writes, with its own text."""
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
