"""The stable vocabulary: layer names, rejection codes and the agent's failure codes.

Codes are ``<layer>.<reason>``, snake_case, and are never renamed or reused: CI files,
dashboards and sidecars depend on them. Two families are open-ended: ``schema.<keyword>``
(one per JSON Schema keyword) and ``binding.<rule name>`` (one per declared binding).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Layer(StrEnum):
    """The boundary's layers, in the order a tool result passes them."""

    TRANSPORT = "transport"
    PARSE = "parse"
    SCHEMA = "schema"
    ADAPTER = "adapter"
    BINDING = "binding"
    FRESHNESS = "freshness"
    PROJECTION = "projection"

    @property
    def order(self) -> int:
        """Position in the pipeline: transport is 0, projection 6."""
        return LAYER_ORDER.index(self)


LAYER_ORDER: tuple[Layer, ...] = tuple(Layer)


class AgentCode(StrEnum):
    """The finite set of failure codes an agent may see (contracts may declare more)."""

    NOT_FOUND = "NOT_FOUND"
    UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"
    INVALID_RESPONSE = "INVALID_RESPONSE"
    #: The upstream refused the request itself (invalid arguments): repeating it cannot help,
    #: so it is never retryable.
    INVALID_REQUEST = "INVALID_REQUEST"
    #: The tool answered that the call failed (MCP ``isError``, a JSON-RPC error, a non-zero
    #: exit): the upstream is there, and the same call is likely to fail the same way, so it
    #: is retryable only where the contract lists it in ``errors.retryable``.
    TOOL_ERROR = "TOOL_ERROR"


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    layer: Layer
    summary: str


CATALOGUE: dict[str, CodeInfo] = {}


def _code(code: str, summary: str) -> str:
    layer = Layer(code.split(".", 1)[0])
    CATALOGUE[code] = CodeInfo(code, layer, summary)
    return code


TRANSPORT_MAX_BYTES = _code("transport.max_bytes", "body longer than the contract's max_bytes")
TRANSPORT_MAX_DEPTH = _code(
    "transport.max_depth", "nesting deeper than max_depth, found on the raw bytes before parsing"
)
TRANSPORT_EMPTY = _code("transport.empty", "empty body (or whitespace only)")
TRANSPORT_READ_ERROR = _code("transport.read_error", "the body stream failed while being read")
TRANSPORT_UNAVAILABLE = _code(
    "transport.unavailable", "no body: connection refused or reset, timeout, or a 5xx status"
)
TRANSPORT_NOT_FOUND = _code("transport.not_found", "the upstream answered that the resource does not exist")
TRANSPORT_CONTENT_TYPE = _code(
    "transport.content_type",
    "the upstream labelled the body with another media type (or encoding) than the contract expects",
)
TRANSPORT_TOOL_ERROR = _code(
    "transport.tool_error",
    "no result: the tool reported a failure (MCP isError, a JSON-RPC error, a non-zero exit); the agent sees "
    "TOOL_ERROR, retryable only where the contract lists it",
)
TRANSPORT_INVALID_REQUEST = _code(
    "transport.invalid_request",
    "no result: the upstream refused the request itself as invalid (JSON-RPC -32602, -32601 or -32600, "
    "HTTP 400 or 422); the agent sees INVALID_REQUEST, never retryable",
)
TRANSPORT_FRAME = _code(
    "transport.frame",
    "the message around the result is malformed (JSON-RPC: wrong id, no result, bad members)",
)

TRANSPORT_INPUT_REQUIRED = _code(
    "transport.input_required",
    "no result: the tool asked for input (MCP resultType input_required) where its contract does not allow it, "
    "or where the protocol version in use does not define it",
)

PARSE_SYNTAX = _code("parse.syntax", "not RFC 8259 JSON")
PARSE_TRAILING_DATA = _code("parse.trailing_data", "a complete JSON value followed by more data")
PARSE_DUPLICATE_MEMBER = _code(
    "parse.duplicate_member", "an object repeats a member name (also when spelled with escapes)"
)
PARSE_NON_FINITE_NUMBER = _code(
    "parse.non_finite_number", "NaN, Infinity, or a number that overflows to infinity"
)
PARSE_NUMBER_TOO_LARGE = _code(
    "parse.number_too_large", "an integer with more digits than the interpreter converts"
)
PARSE_INVALID_UTF8 = _code(
    "parse.invalid_utf8", "bytes that are not strict UTF-8 (includes UTF-16/32 and encoded surrogates)"
)
PARSE_LONE_SURROGATE = _code("parse.lone_surrogate", "a \\uD800-\\uDFFF escape without its pair")
PARSE_BOM = _code("parse.bom", "a byte order mark before the JSON text")

ADAPTER_ERROR = _code("adapter.error", "the adapter raised")
ADAPTER_OUTPUT_INVALID = _code(
    "adapter.output_invalid", "the adapter's output does not validate against the contract schema"
)
ADAPTER_TIMEOUT = _code("adapter.timeout", "the adapter did not return within limits.adapter_timeout_s")

BINDING_TOOL = _code("binding.tool", "the result names another tool than the one called")
BINDING_REQUEST_ID = _code(
    "binding.request_id", "the result's request_id is not the outstanding request's"
)

FRESHNESS_STALE = _code("freshness.stale", "a declared timestamp is older than max_age")
FRESHNESS_FUTURE = _code(
    "freshness.future", "a declared timestamp is further in the future than max_future_skew"
)
FRESHNESS_UNPARSEABLE = _code(
    "freshness.unparseable", "a declared timestamp is not an RFC 3339 date-time with an offset"
)
FRESHNESS_MISSING = _code("freshness.missing", "a declared timestamp is absent from a success result")

SCHEMA_UNEXPLAINED = _code(
    "schema.unexplained",
    "inside check only: the schema rejected the document and its reason was not asked for, because nothing "
    "shows it (a case that held, in a run with no report file); never in a report, a verdict of Boundary.check "
    "or an audit record",
)

PROJECTION_MISSING_FIELD = _code(
    "projection.missing_field", "an agent_view field points at nothing in the result"
)
PROJECTION_VIEW_INVALID = _code(
    "projection.view_invalid", "the agent-facing object does not validate against the derived view schema"
)

SCHEMA_PREFIX = "schema."
BINDING_PREFIX = "binding."


def schema_code(keyword: str) -> str:
    """``schema.<keyword>`` for the JSON Schema keyword that rejected."""
    return SCHEMA_PREFIX + keyword


def binding_code(rule_name: str) -> str:
    """``binding.<rule name>`` for a declared binding that did not hold."""
    return BINDING_PREFIX + rule_name


def layer_of(code: str) -> Layer:
    """The layer a code belongs to (its prefix)."""
    return Layer(code.split(".", 1)[0])
