"""Layer 5, ``binding``: the result belongs to the outstanding request.

A schema cannot know which request is outstanding. This layer checks that the result echoes
the ``tool`` called and the ``request_id`` the caller created (never one the upstream
invented), and every declared binding: ``result`` pointer equals ``request`` pointer, e.g. the
project in the result is the project asked for. Equality is JSON equality: ``true`` is not
``1``, ``1`` is ``1.0``.
"""

from __future__ import annotations

from typing import Any

from harness.boundary.base import Evaluation, Rejection
from harness.codes import BINDING_REQUEST_ID, BINDING_TOOL, binding_code
from harness.pointer import MISSING, escape_token, resolve


def json_equal(a: Any, b: Any) -> bool:
    """Equality in the JSON data model (booleans are not numbers)."""
    kind = type(a)
    if kind is type(b) and kind is not dict and kind is not list:
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def check(ev: Evaluation) -> Rejection | None:
    """Check tool, request_id and every declared binding."""
    contract, result, request = ev.contract, ev.result, ev.request
    envelope = contract.envelope
    if envelope is not None:
        tool = result.get(envelope.tool, MISSING) if isinstance(result, dict) else MISSING
        if tool is MISSING or not json_equal(tool, contract.tool):
            return Rejection(
                BINDING_TOOL,
                "result names no tool" if tool is MISSING else "result names another tool",
                instance_pointer="/" + escape_token(envelope.tool),
            )
        rid = result.get(envelope.request_id, MISSING) if isinstance(result, dict) else MISSING
        if rid is MISSING or not json_equal(rid, request["request_id"]):
            return Rejection(
                BINDING_REQUEST_ID,
                "result has no request_id"
                if rid is MISSING
                else "request_id is not the outstanding request's",
                instance_pointer="/" + escape_token(envelope.request_id),
            )
    failure = ev.outcome == "failure"
    for rule in contract.bindings:
        value = resolve(result, rule.result_tokens)
        if value is MISSING:
            if failure:
                continue
            return Rejection(
                binding_code(rule.name),
                f"result has nothing at {rule.result} to bind to the request",
                instance_pointer=rule.result,
            )
        expected = resolve(request, rule.request_tokens)
        if expected is MISSING:
            return Rejection(
                binding_code(rule.name),
                f"request has nothing at {rule.request} to bind the result to",
                instance_pointer=rule.result,
            )
        if not json_equal(value, expected):
            return Rejection(
                binding_code(rule.name),
                f"{rule.result} does not match the request's {rule.request}",
                instance_pointer=rule.result,
            )
    return None
