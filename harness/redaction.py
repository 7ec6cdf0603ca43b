"""Secrets out of everything the harness writes: one :class:`Redactor`, every spelling of a secret.

A secret is the value of an ``${ENV}`` variable an upstream uses (drift: every value its run
read from the environment; ``check``: the variables the selected contracts' upstreams name,
where set). Values shorter than :data:`MIN_REDACTED_LENGTH` are not secrets worth the name.

A secret reaches text in many spellings, and each is matched, in any mix, character by
character: as written; JSON-escaped (``\\u0041``, ``\\n``, ``\\"``, ``\\/``); in a JSON Pointer
(``~1``, ``~0``: a member name in an instance pointer or a shape's location); Python ``repr``
(``\\x41``, ``\\U0001f600``, ``\\'``), also of its UTF-8 bytes (``b'\\xc3\\xa9'``, as h11 and
httpx quote header values); URL-encoded (``%41``, ``+`` for a space, either hex case); HTML
or XML character references (``&#65;``, ``&amp;``); and, as a whole, base64 (standard and
URL-safe, also inside a longer encoded value such as ``Basic base64(user:token)``) and hex of
its UTF-8 bytes. Each match becomes ``${NAME}``.

Uses: :meth:`Redactor.text` for a string, :meth:`Redactor.value` for any record (events, checks,
verdicts, sidecars: every string inside, member names included), :meth:`Redactor.found_in` and
:meth:`Redactor.found_in_document` to refuse writing raw bytes that hold a secret (a recording,
a reproduction in the cases directory), since bytes cannot be redacted without changing what
they reproduce.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

#: Environment values shorter than this are not redacted: they cannot be secrets worth the
#: name, and replacing every "1" or "on" in a message would make reports unreadable.
MIN_REDACTED_LENGTH = 4

T = TypeVar("T")

#: Record fields that hold the harness's own vocabulary or names from the contract files
#: (statuses, codes, layers, kinds, ids, tool and upstream names, fixture ids): never upstream
#: or environment text, and left alone so that a short variable value such as a profile name
#: cannot rewrite a status or an id.
KEPT_FIELDS = frozenset(
    {
        "id", "tool", "upstream", "kind", "subject", "status", "reason", "problem", "source", "code",
        "layer", "outcome", "dialect", "side_effects", "contract_dir", "version", "fixture", "operator",
        "baseline", "seen_before", "recorded", "now", "index", "agent_code", "columns", "statuses",
    }
)

_SHORT_ESCAPES = {
    "\n": ("\\n",),
    "\r": ("\\r",),
    "\t": ("\\t",),
    "\b": ("\\b",),
    "\f": ("\\f",),
    '"': ('\\"',),
    "'": ("\\'",),
    "\\": ("\\\\",),
    "/": ("\\/", "~1"),  # JSON: \/; JSON Pointer: ~1 (a member name in an instance pointer)
    "~": ("~0",),
}
_ENTITIES = {"&": ("&amp;",), "<": ("&lt;",), ">": ("&gt;",), '"': ("&quot;",), "'": ("&#39;", "&apos;")}


def _hex(number: int, width: int) -> str:
    """``number`` in hex, matching either case of each letter digit."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{number:0{width}x}")


def _spellings(char: str) -> list[str]:
    """Regular expressions for every way one character of a secret may be written."""
    code = ord(char)
    utf8 = char.encode("utf-8")
    out = [re.escape(char)]
    out += [re.escape(e) for e in _SHORT_ESCAPES.get(char, ())]
    out += [re.escape(e) for e in _ENTITIES.get(char, ())]
    if code < 0x10000:
        out.append(r"\\u" + _hex(code, 4))
    else:  # JSON writes a surrogate pair; Python \U
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        out.append(r"\\u" + _hex(high, 4) + r"\\u" + _hex(low, 4))
        out.append(r"\\U" + _hex(code, 8))
    if code < 0x100:
        out.append(r"\\x" + _hex(code, 2))
    if len(utf8) > 1:  # the repr of the UTF-8 bytes
        out.append("".join(r"\\x" + _hex(b, 2) for b in utf8))
    out.append("".join("%" + _hex(b, 2) for b in utf8))
    if char == " ":
        out.append(r"\+")
    out.append(f"&#0*{code};")
    out.append("&#[xX]0*" + _hex(code, 1).lstrip("0") + ";")
    return out


def _pattern(secret: str) -> str:
    return "".join("(?:" + "|".join(_spellings(c)) + ")" for c in secret)


def _base64_spellings(data: bytes) -> list[str]:
    """Regular expressions for what base64 (standard and URL-safe) makes of ``data`` wherever
    it starts in a longer encoded value (``Basic base64(user:token)``): at each of the three
    offsets into a 3-byte group, the characters only ``data``'s bits decide, each in its own
    spellings, then the character its last bits share with what follows (or nothing) and the
    padding. A character it shares with what comes before is left: it holds at most 4 bits."""
    found: dict[str, None] = {}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data + bytes(2)).decode("ascii")
        first, end = -(-8 * offset // 6), (8 * (offset + len(data))) // 6
        shared = _BASE64_TAIL if (8 * (offset + len(data))) % 6 else ""
        for core in (encoded[first:end], encoded[first:end].translate(_URLSAFE)):
            found[_pattern(core) + shared] = None
    return list(found)


_URLSAFE = str.maketrans("+/", "-_")
#: Base64's last character shared with the next bytes, in any alphabet or spelling, and padding.
_BASE64_TAIL = r"(?:(?:[A-Za-z0-9+/_-]|\\/|%2[bBfF])(?:=|%3[dD]|\\u003[dD]){0,2})?"


def _secret_pattern(secret: str) -> str:
    """Every spelling of ``secret``: character by character (:func:`_pattern`), and as a whole,
    base64 (standard and URL-safe, at any offset: :func:`_base64_spellings`) and hex of its UTF-8
    bytes (either case), each of those characters in its own spellings too (``\\/``, ``%2B``)."""
    data = secret.encode("utf-8", "surrogatepass")
    wholes = _base64_spellings(data)
    wholes.append("".join(_hex(byte, 2) for byte in data))
    return "(?:" + "|".join([_pattern(secret), *wholes]) + ")"


class Redactor:
    """Replaces every spelling of every secret with ``${NAME}`` (longest secret first)."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        kept = sorted(
            ((name, value) for name, value in secrets.items() if len(value) >= MIN_REDACTED_LENGTH),
            key=lambda item: (-len(item[1]), item[0]),
        )
        self.names: tuple[str, ...] = tuple(name for name, _ in kept)
        self._text: re.Pattern[str] | None = None
        patterns = [_secret_pattern(value) for _, value in kept]
        # One by one for found_in (a secret inside a longer one is found too); all at once to
        # replace (longest first, so a longer secret is never half replaced by a shorter one).
        self._each = [
            (name, re.compile(p), re.compile(p.encode("utf-8"))) for (name, _), p in zip(kept, patterns, strict=True)
        ]
        if kept:
            self._text = re.compile("|".join(f"(?P<s{i}>{p})" for i, p in enumerate(patterns)))

    def __bool__(self) -> bool:
        return bool(self.names)

    def _name(self, match: re.Match[Any]) -> str:
        return self.names[int(str(match.lastgroup)[1:])]

    def text(self, text: str) -> str:
        """``text`` with every spelling of every secret replaced by ``${NAME}``."""
        if self._text is None or not text:
            return text
        return self._text.sub(lambda m: "${" + self._name(m) + "}", text)

    def found_in(self, data: bytes | str) -> list[str]:
        """Names of the secrets ``data`` holds, in any spelling."""
        if not data:
            return []
        if isinstance(data, str):
            return sorted(name for name, text, _ in self._each if text.search(data))
        return sorted(name for name, _, raw in self._each if raw.search(data))

    def found_in_document(self, document: Any) -> list[str]:
        """Names of the secrets in the decoded strings of a parsed document (member names too):
        what escapes of any kind spelled in the raw bytes, once decoded."""
        if not self:
            return []
        found: set[str] = set()
        for text in json_strings(document):
            found.update(self.found_in(text))
        return sorted(found)

    def value(self, obj: T) -> T:
        """A copy of ``obj`` with every string inside redacted: mappings (their keys too),
        sequences, sets, and dataclass records (events, checks, verdicts, shapes). Bytes are
        left as they are: raw bytes are refused, not rewritten (see :meth:`found_in`)."""
        if not self:
            return obj
        return self._value(obj)  # type: ignore[no-any-return]

    def _value(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, enum.Enum | bool | int | float | bytes):
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, Counter):
            return obj  # counts by our own names (layers, statuses)
        if isinstance(obj, Mapping):
            return {self._value(k): self._value(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._value(v) for v in obj]
        if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return tuple(self._value(v) for v in obj)
        if isinstance(obj, frozenset | set):
            return type(obj)(self._value(v) for v in obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {
                f.name: self._value(getattr(obj, f.name))
                for f in dataclasses.fields(obj)
                if f.init and f.name not in KEPT_FIELDS
            }
            return dataclasses.replace(obj, **changes)
        return obj  # datetimes, paths, contracts: no secret of a run lives in them

    def events(self, events: Iterable[T]) -> Iterator[T]:
        """Every event, redacted (the one point every report reads through)."""
        for event in events:
            yield self.value(event)


def json_strings(document: Any, known_names: AbstractSet[str] = frozenset()) -> Iterator[str]:
    """Every string of a parsed JSON document: values and member names (but ``known_names``)."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            yield from (k for k in node if isinstance(k, str) and k not in known_names)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
