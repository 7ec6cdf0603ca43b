"""Exceptions of our own. Each renders as one line: subject first, then what is allowed.

``RejectedInput`` is bad *data* (an upstream's bytes); the others are misuse: a bad contract
file, a bad option or request. The CLI turns every ``HarnessError`` into one line and exit 2
(rejections become exit 1); tracebacks only with ``--debug``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.codes import Layer, layer_of


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


class ContractError(HarnessError):
    """A contract file or schema is unusable. Names the file, the pointer and what is allowed."""

    code = "contract.invalid"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        pointer: str | None = None,
        allowed: Iterable[Any] | None = None,
        code: str | None = None,
    ) -> None:
        self.file = file
        self.pointer = pointer
        self.allowed = tuple(allowed) if allowed is not None else None
        self.detail = message
        parts = []
        if file:
            parts.append(file)
        if pointer is not None:
            parts.append(pointer or "/")
        parts.append(message)
        text = ": ".join(parts)
        if self.allowed:
            text += f" (allowed: {', '.join(map(str, self.allowed))})"
        super().__init__(text, code=code)


class UsageError(HarnessError):
    """A command-line option or API argument is wrong."""

    code = "usage.invalid"


class InvalidRequest(HarnessError):
    """The outstanding request handed to the boundary does not fit the contract's request shape.

    This is the caller's mistake, never the upstream's, so it is raised instead of becoming a
    rejection verdict.
    """

    code = "request.invalid"
