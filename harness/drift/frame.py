"""A ``tools/call`` answer as raw JSON-RPC bytes: check the message, cut out the result.

An MCP SDK parses each line of the server's output before a client sees it, and a parser keeps
the last of two members with one name and has no byte cap — exactly what the boundary exists
to see. So the drift client reads the line itself, and this module judges it:

1. the whole message: at most ``max_message_bytes``, nesting on the bytes, strict JSON
   (a duplicate ``isError``, NaN, bad UTF-8 anywhere in the message is refused here);
2. JSON-RPC: version ``2.0``, the id the call was sent with, exactly one of ``result`` and
   ``error``; an ``error``, or a result with ``isError: true``, is the tool reporting a
   failure — mapped to the failure envelope, never validated as data;
3. the result: the exact bytes of ``result.structuredContent`` (or the first text block's
   text; ``auto``: structuredContent when the result has that member, else the text; or
   ``text_string``: the first text block's text as the JSON string it is in the message,
   quotes and escapes as sent, for a tool that answers plain text), which the boundary then
   checks like any other body — byte cap, depth, strict parse, schema and every later layer.

The same function reads recorded lines (the real-tools corpus) and live ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from harness.codes import (
    TRANSPORT_EMPTY,
    TRANSPORT_FRAME,
    TRANSPORT_INVALID_REQUEST,
    TRANSPORT_MAX_BYTES,
    TRANSPORT_TOOL_ERROR,
)
from harness.drift.kinds import Failure, Fetched, Refusal
from harness.errors import RejectedInput, excerpt
from harness.strict_json import strict_loads

STRUCTURED, TEXT, AUTO, TEXT_STRING = "structured", "text", "auto", "text_string"
#: Levels a message adds around the result (message -> result -> content -> block).
FRAME_DEPTH = 4
_STRUCTURED_POINTER = "/result/structuredContent"
_WS = re.compile(r"[ \t\n\r]*")
#: Skips values while looking for a member (stateless: one for every call).
_DECODER = json.JSONDecoder()
#: JSON-RPC errors about the request itself (invalid request, unknown method, invalid params):
#: the same call fails the same way again.
REQUEST_ERRORS = frozenset({-32600, -32601, -32602})
#: How the MCP SDKs write such an error into an ``isError`` result's text, e.g.
#: "MCP error -32602: Input validation error: ..." (the TypeScript SDK's McpError).
_MCP_ERROR_TEXT = re.compile(r"MCP error (-?\d+):")


def default_max_message_bytes(max_bytes: int) -> int:
    """Room for the result, a text copy of it (servers mirror it, escaped) and the envelope."""
    return 4 * max_bytes + (64 << 10)


def _relative(pointer: str | None) -> str | None:
    if pointer is not None and (pointer == _STRUCTURED_POINTER or pointer.startswith(_STRUCTURED_POINTER + "/")):
        return pointer[len(_STRUCTURED_POINTER) :]
    return pointer


def read_call_line(
    line: bytes,
    *,
    expected_id: Any = None,
    result: str = STRUCTURED,
    max_message_bytes: int,
    max_depth: int,
) -> Fetched:
    """Judge one JSON-RPC response line (without its newline) to a ``tools/call``.

    ``expected_id`` None skips the id check (a recorded line replayed on its own).
    """
    if len(line) > max_message_bytes:
        return Fetched(
            refusal=Refusal(
                TRANSPORT_MAX_BYTES,
                f"JSON-RPC message exceeds max_message_bytes={max_message_bytes}",
                raw=line[: max_message_bytes + 1],
            )
        )
    info: dict[str, Any] = {"message_bytes": len(line)}
    try:
        message = strict_loads(line, max_depth=max_depth + FRAME_DEPTH)
    except RejectedInput as exc:
        return Fetched(
            refusal=Refusal(
                exc.code,
                f"JSON-RPC message: {exc.message}",
                pointer=_relative(exc.pointer),
                raw=line,
            ),
            info=info,
        )
    problem = _frame_problem(message, expected_id)
    if problem is not None:
        return Fetched(refusal=Refusal(TRANSPORT_FRAME, problem, raw=line), info=info)
    info["jsonrpc_id"] = message["id"]
    if "error" in message:
        code = message["error"].get("code")
        if code in REQUEST_ERRORS:
            refused = _invalid_request(f"JSON-RPC error {code}: the request itself was refused")
            return Fetched(failure=refused, info=info)
        return Fetched(
            failure=Failure(
                TRANSPORT_TOOL_ERROR,
                "jsonrpc_error",
                f"JSON-RPC error {excerpt(code, 40)} instead of a result",
            ),
            info=info,
        )
    body = message["result"]
    if body.get("isError") is True:
        code = _request_error_in(body.get("content"))
        if code is not None:
            return Fetched(
                failure=_invalid_request(f"isError: true with MCP error {code}: the request itself was refused"),
                info=info,
            )
        return Fetched(
            failure=Failure(TRANSPORT_TOOL_ERROR, "is_error", "the tool answered with isError: true"),
            info=info,
        )
    if result == AUTO:
        result = STRUCTURED if "structuredContent" in body else TEXT
    if result in (TEXT, TEXT_STRING):
        index = _first_text_index(body.get("content"))
        if index is None:
            return Fetched(
                refusal=Refusal(TRANSPORT_EMPTY, "the result has no text content block", raw=line),
                info=info,
            )
        if result == TEXT:
            return Fetched(body=str(body["content"][index]["text"]).encode("utf-8"), info=info)
        span = member_span(line, ("result", "content", index, "text"))
        assert span is not None  # the block and its text exist and the message is strict JSON
        return Fetched(body=line[span[0] : span[1]], info=info)
    if "structuredContent" not in body:
        return Fetched(
            refusal=Refusal(TRANSPORT_EMPTY, "the result carries no structuredContent", raw=line),
            info=info,
        )
    span = member_span(line, ("result", "structuredContent"))
    assert span is not None  # the member exists and the message is strict JSON
    return Fetched(body=line[span[0] : span[1]], info=info)


def _invalid_request(message: str) -> Failure:
    return Failure(TRANSPORT_INVALID_REQUEST, "invalid_request", message)


def _request_error_in(content: Any) -> int | None:
    """The JSON-RPC request-error code an ``isError`` result's first text names, if any."""
    text = _first_text(content)
    match = _MCP_ERROR_TEXT.match(text.strip()) if text else None
    if match is None:
        return None
    code = int(match.group(1))
    return code if code in REQUEST_ERRORS else None


def _frame_problem(message: Any, expected_id: Any) -> str | None:
    if not isinstance(message, dict):
        return "a JSON-RPC message must be an object"
    if message.get("jsonrpc") != "2.0":
        return f'jsonrpc is {excerpt(message.get("jsonrpc"), 40)}, not "2.0"'
    if "id" not in message:
        return "the message has no id (a notification, not an answer)"
    if expected_id is not None and message["id"] != expected_id:
        return f"the message answers id {excerpt(message['id'], 40)}, not {excerpt(expected_id, 40)}"
    has_result, has_error = "result" in message, "error" in message
    if has_result == has_error:
        return "a JSON-RPC answer needs exactly one of result and error"
    if has_error:
        error = message["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int) or isinstance(error.get("code"), bool):
            return "error must be an object with an integer code"
        return None
    body = message["result"]
    if not isinstance(body, dict):
        return "result must be an object"
    if "isError" in body and not isinstance(body["isError"], bool):
        return "isError must be true or false"
    if "content" in body and not isinstance(body["content"], list):
        return "content must be an array"
    return None


def _first_text_index(content: Any) -> int | None:
    for index, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return index
    return None


def _first_text(content: Any) -> str | None:
    index = _first_text_index(content)
    return None if index is None else str(content[index]["text"])


def member_span(raw: bytes, path: Sequence[str | int]) -> tuple[int, int] | None:
    """Byte offsets of the value at ``path`` (member names, array indexes) in strict JSON
    ``raw``: the exact bytes the upstream sent for it. ``raw`` must already have passed the
    strict parser (no duplicate names, bounded depth)."""
    text = raw.decode("utf-8")
    decoder = _DECODER
    index = _WS.match(text, 0).end()  # type: ignore[union-attr]
    for key in path:
        if isinstance(key, int):
            if text[index] != "[":
                return None
            index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
            for _ in range(key):
                if text[index] == "]":
                    return None
                _, index = decoder.raw_decode(text, index)
                index = _WS.match(text, index).end()  # type: ignore[union-attr]
                if text[index] == ",":
                    index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
            if text[index] == "]":
                return None
            continue
        if text[index] != "{":
            return None
        index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
        while True:
            if text[index] == "}":
                return None
            name, index = scanstring(text, index + 1)
            index = _WS.match(text, index).end() + 1  # type: ignore[union-attr]  # past ':'
            index = _WS.match(text, index).end()  # type: ignore[union-attr]
            if name == key:
                break
            _, index = decoder.raw_decode(text, index)
            index = _WS.match(text, index).end()  # type: ignore[union-attr]
            if text[index] == ",":
                index = _WS.match(text, index + 1).end()  # type: ignore[union-attr]
    _, end = decoder.raw_decode(text, index)
    if len(text) == len(raw):  # ASCII (the usual case): character offsets are byte offsets
        return index, end
    return len(text[:index].encode("utf-8")), len(text[:end].encode("utf-8"))
