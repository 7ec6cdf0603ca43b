"""RFC 6901 JSON pointers: escape, split, resolve. Small, and used by every layer."""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Any


class _Missing:
    """The absence of a value (distinct from JSON null)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


def escape_token(token: object) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(parts: Iterable[object]) -> str:
    """``["a", 0, "b/c"]`` -> ``/a/0/b~1c``; the empty path is ``""`` (the whole document)."""
    return "".join("/" + escape_token(p) for p in parts)


def split(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer {pointer!r} must be empty or start with '/'")
    return [unescape_token(t) for t in pointer[1:].split("/")]


def is_index(token: str) -> bool:
    """Whether a token is an array index as RFC 6901 spells one: ASCII digits, no leading zero.
    (``str.isdigit`` also says yes to ``²`` and ``٣``, which ``int`` then refuses or misreads.)"""
    return token.isascii() and token.isdigit() and (token == "0" or not token.startswith("0"))


def resolve(document: Any, pointer: str | list[str] | tuple[str, ...], default: Any = MISSING) -> Any:
    """The value at ``pointer``, or ``default`` (``MISSING``) when the path does not exist."""
    node = document
    for token in split(pointer) if isinstance(pointer, str) else pointer:
        if isinstance(node, dict | MappingProxyType):
            if token not in node:
                return default
            node = node[token]
        elif isinstance(node, list):
            if not is_index(token):
                return default
            index = int(token)
            if index >= len(node):
                return default
            node = node[index]
        else:
            return default
    return node


def display(pointer: str | None) -> str:
    """How a pointer is shown to people: the root is ``/``."""
    if pointer is None:
        return "-"
    return pointer or "/"
