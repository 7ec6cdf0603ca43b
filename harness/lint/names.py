"""What a member's name says about its value: identifier, count, error code, free text.

Names are split into lower-case words across snake_case, kebab-case and camelCase, so that
``run_id``, ``runId`` and ``RunID`` are all identifiers and ``errorMessage`` is free text.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

IDENTIFIER_WORDS = frozenset({"id", "uuid", "guid"})
COUNT_WORDS = frozenset({
    "count", "total", "size", "length", "number", "num", "attempt", "attempts", "page",
    "pages", "limit", "offset", "index", "retries",
})
FREE_TEXT_WORDS = frozenset({
    "message", "msg", "description", "detail", "details", "summary", "comment", "body",
    "text", "note", "notes", "reason", "explanation", "hint",
})
ERROR_CODE_NAMES = frozenset({"error_code", "errorcode", "err_code", "errcode", "failure_code"})
ERROR_PARENT_WORDS = frozenset({"error", "errors", "err", "failure", "fault"})


def words(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(name))


def is_identifier(name: str | None) -> bool:
    """``id``, ``*_id``, ``*Id``, ``request_id``, ``uuid``..."""
    found = words(name or "")
    return bool(found) and found[-1] in IDENTIFIER_WORDS


def is_count(name: str | None) -> bool:
    """``count``, ``*_count``, ``total``, ``attempt``, ``num_*``, ``page``..."""
    found = words(name or "")
    return bool(found) and (found[-1] in COUNT_WORDS or found[0] == "num")


def is_free_text(name: str | None) -> bool:
    """``message``, ``description``, ``detail``, ``error_message``, ``statusDetail``..."""
    return any(w in FREE_TEXT_WORDS for w in words(name or ""))


def is_error_code(name: str | None, holder: str | None) -> bool:
    """``error_code``/``errorCode``, or ``code`` in an object named like ``error``."""
    found = words(name or "")
    if "_".join(found) in ERROR_CODE_NAMES or "".join(found) in ERROR_CODE_NAMES:
        return True
    return found == ("code",) and any(w in ERROR_PARENT_WORDS for w in words(holder or ""))
