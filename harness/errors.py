"""Exceptions of our own. Each renders as one line: subject first, then what is allowed.

``RejectedInput`` is bad *data* (an upstream's bytes); the others are misuse: a bad contract
file, a bad option or request. The CLI turns every ``HarnessError`` into one line and exit 2
(rejections become exit 1); tracebacks only with ``--debug``.

How a message quotes what it is about is here too: a path (:func:`printable_path`), a value
(:func:`excerpt`), a near miss (:func:`did_you_mean`).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from harness.codes import Layer, layer_of
from harness.pointer import MISSING


class HarnessError(Exception):
    """Base of every error this package raises on purpose."""

    code: str = "harness.error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class RejectedInput(HarnessError):
    """Raised by :func:`harness.strict_loads` when bytes are not acceptable JSON.

    ``code`` is a stable ``<layer>.<reason>``, ``layer`` its prefix, ``offset`` the byte offset
    of the problem where known, ``pointer`` the JSON pointer of the object where known.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        offset: int | None = None,
        pointer: str | None = None,
    ) -> None:
        super().__init__(message, code=code)
        self.layer: Layer = layer_of(code)
        self.offset = offset
        self.pointer = pointer

    def __str__(self) -> str:
        where = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{self.code}: {self.message}{where}"


#: Finds where a JSON pointer is in a file: ``(line, column)``, 1-based, or None.
Locate = Callable[[str, str], "tuple[int, int] | None"]


class ContractError(HarnessError):
    """A contract file or schema is unusable. Names the file, the pointer and what is allowed.

    Rendered as one line, ``file:line:column: pointer: message (allowed: ...)``. ``line`` and
    ``column`` may be given (a YAML or JSON syntax error knows them); otherwise, given a file, a
    pointer and ``locate`` (:func:`harness.locate.position_in_file`), they are found from the
    pointer when the error is first shown, so the raiser computes no position that nobody reads.
    """

    code = "contract.invalid"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        pointer: str | None = None,
        allowed: Iterable[Any] | None = None,
        code: str | None = None,
        line: int | None = None,
        column: int | None = None,
        locate: Locate | None = None,
    ) -> None:
        Exception.__init__(self, message)
        if code is not None:
            self.code = code
        self.file = file
        self.pointer = pointer
        self.allowed = tuple(allowed) if allowed is not None else None
        self.detail = message
        self.line = line
        self.column = column
        self.locate = locate
        self._text: str | None = None

    @property
    def message(self) -> str:  # type: ignore[override]
        if self._text is None:
            self._text = self._render()
        return self._text

    def __str__(self) -> str:
        return self.message

    def position(self) -> tuple[int, int] | None:
        """``(line, column)`` of the problem in ``file`` (1-based), when known or findable."""
        if self.line is not None:
            return self.line, self.column or 1
        if self.file and self.pointer is not None and self.locate is not None:
            return self.locate(self.file, self.pointer)
        return None

    def _render(self) -> str:
        parts = []
        if self.file:
            where = self.position()
            parts.append(f"{self.file}:{where[0]}:{where[1]}" if where else self.file)
        if self.pointer is not None:
            parts.append(self.pointer or "/")
        parts.append(self.detail)
        text = ": ".join(parts)
        if self.allowed:
            text += f" (allowed: {', '.join(map(str, self.allowed))})"
        return text


class UsageError(HarnessError):
    """A command-line option or API argument is wrong."""

    code = "usage.invalid"


class InvalidRequest(HarnessError):
    """The outstanding request handed to the boundary does not fit the contract's request shape.

    This is the caller's mistake, never the upstream's, so it is raised instead of becoming a
    rejection verdict.
    """

    code = "request.invalid"


def one_line(exc: BaseException) -> str:
    """Any error as ``code: message`` on one line. Our own errors carry their code; an
    ``OSError`` (disk full, permissions) is the environment's (``file.error``); anything else
    is a bug in the harness (``harness.internal``), reported with a hint to ``--debug``."""
    if isinstance(exc, HarnessError):
        text, code = str(exc), exc.code
    elif isinstance(exc, OSError):
        # A descriptor's error names it by number (os.fdopen on a directory: "Is a directory: 3").
        named = isinstance(exc.filename, str | bytes | os.PathLike)
        where = f"{printable_path(os.fsdecode(exc.filename))}: " if named else ""
        text, code = f"{where}{exc.strerror or type(exc).__name__}", "file.error"
    else:
        first = (str(exc).splitlines() or [""])[0]
        text = f"{type(exc).__name__}: {first} (an internal error; --debug shows the traceback)"
        code = "harness.internal"
    return f"{code}: {' '.join(text.split())}" if "\n" in text or "\r" in text else f"{code}: {text}"


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of ``choices`` that ``word`` is a typo of, if any: similar as a whole (difflib's
    ratio at least ``cutoff``) and different only in a short stretch once the prefix and suffix
    they share are set aside (a letter or two, a quarter of the word at most). Names that share a
    long suffix are not close for it: ``order_status`` is no typo of ``job_status``."""
    best: tuple[float, str] | None = None
    for choice in choices:
        ratio = difflib.SequenceMatcher(None, word, choice).ratio()
        if ratio < cutoff or (best is not None and ratio <= best[0]):
            continue
        prefix = len(_common_prefix(word, choice))
        suffix = len(_common_prefix(word[prefix:][::-1], choice[prefix:][::-1]))
        if max(len(word), len(choice)) - prefix - suffix <= max(2, len(word) // 4):
            best = (ratio, choice)
    return best[1] if best else None


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` for a near miss among ``choices`` (:func:`closest`), else the empty
    string."""
    close = closest(word, choices)
    return f" (did you mean {close!r}?)" if close else ""


def printable_path(path: os.PathLike[str] | str) -> str:
    """A path as text that always encodes: undecodable bytes of a file name shown escaped."""
    text = os.fspath(path)
    return text.encode("utf-8", "backslashreplace").decode("utf-8") if _unencodable(text) else text


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


#: ``json.dumps`` with the options :func:`excerpt` takes, each encoder made once.
_ENCODERS = {
    (ensure_ascii, compact): json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":") if compact else None,
                                              default=str).encode
    for ensure_ascii in (False, True) for compact in (False, True)
}


def excerpt(value: Any, limit: int = 60, *, ensure_ascii: bool = False, compact: bool = False) -> str:
    """A value as a message or report quotes it: JSON on one line (``(absent)`` for
    :data:`~harness.pointer.MISSING`), cut to ``limit`` characters. ``ensure_ascii`` escapes
    every character outside ASCII (a diagnostic that no peer's text can break into lines);
    ``compact`` leaves out the spaces after ``,`` and ``:``."""
    return clip("(absent)" if value is MISSING else _ENCODERS[ensure_ascii, compact](value), limit)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last three ``...`` when it is cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
