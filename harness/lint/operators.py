"""The names of the mutation operators :mod:`harness.mutations` ships, in registration order.

``lint`` checks a check waiver's ``check:`` against these without loading the operators (it runs
on every commit); ``tests/test_lint_rules.py`` compares them with the registry, so an operator
added or renamed there fails the tests until it is named here too.
"""

from __future__ import annotations

import difflib

OPERATORS: tuple[str, ...] = (
    "add_extra_property",
    "null_for_object",
    "array_for_object",
    "duplicate_member",
    "success_plus_error",
    "missing_required",
    "remove_member",
    "stretch_array",
    "wrong_type",
    "enum_outside",
    "stretch_string",
    "stretch_number",
    "null_for_scalar",
    "text_outside_pin",
    "append_free_text",
    "empty_identifier",
    "wrong_tool",
    "mismatch_request_id",
    "break_binding",
    "change_echo",
    "stale_timestamp",
    "future_timestamp",
    "malformed_timestamp",
    "day_ahead_timestamp",
    "week_old_timestamp",
    "vendor_canary",
    "nan_number",
    "deep_nesting",
    "byte_bomb",
    "invalid_utf8",
    "byte_order_mark",
    "trailing_garbage",
)


def suggest(name: str) -> str:
    """`` (did you mean X?)`` for a near miss of an operator's name, else the empty string (as
    the registry's own ``suggest`` says it)."""
    close = difflib.get_close_matches(name, OPERATORS, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""
