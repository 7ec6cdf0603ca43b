"""What an operator sees: one accepted fixture, parsed, with its schema and helpers.

Operators never serialise by hand: :meth:`MutationContext.replaced` builds the bytes of the
document with one value replaced (copying only the containers on the path), and
:meth:`MutationContext.spliced` replaces one value by a raw byte fragment (for duplicates,
NaN, invalid UTF-8, deep nesting — things no JSON serialiser writes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from harness.pointer import MISSING, escape_token, resolve, split
from harness.schemas import Document, Node

if TYPE_CHECKING:
    from harness.contract import Contract

_PLACEHOLDER = "\x00hx-splice\x00"
_PLACEHOLDER_JSON = json.dumps(_PLACEHOLDER).encode()
_MAX_TARGETS = 4096  # walking stops here: sampling keeps far fewer


#: ``json.dumps(value, ensure_ascii=False)``, without making an encoder at each call.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def dumps(value: Any) -> bytes:
    return _ENCODE(value).encode("utf-8")


def short(value: Any, limit: int = 60) -> str:
    """A one-line rendering of a value for reports."""
    text = _ENCODE(value) if value is not MISSING else "(absent)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Documents with more values than this are not mapped (see :func:`value_spans`): each
#: mutant of theirs is written whole.
_MAX_SPANS = 4096
#: The map costs about as much as writing the document three times (32 µs against 9 µs, a
#: 270-byte document), and saves 8 µs a mutant: it is made for the sixth value replaced, so a
#: fixture sampled to a few mutants does not pay for it.
_SPANS_AFTER = 6


def value_spans(document: Any) -> tuple[str, dict[str, tuple[int, int]]] | None:
    """The document's text as :func:`dumps` writes it, and where each value's text starts and
    ends in it, by pointer: a value replaced is then the text around it and the new value's
    text, not the whole document written again. None for a document this does not map (too
    many values, too deep, or a text that is not exactly :func:`dumps`'s)."""
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    position = 0

    def emit(text: str) -> None:
        nonlocal position
        parts.append(text)
        position += len(text)

    def write(node: Any, where: str) -> None:
        if len(spans) >= _MAX_SPANS:
            raise OverflowError
        start = position
        if isinstance(node, dict):
            emit("{")
            for index, (key, value) in enumerate(node.items()):
                emit(f"{', ' if index else ''}{_ENCODE(key)}: ")
                write(value, f"{where}/{escape_token(key)}")
            emit("}")
        elif isinstance(node, list):
            emit("[")
            for index, value in enumerate(node):
                if index:
                    emit(", ")
                write(value, f"{where}/{index}")
            emit("]")
        else:
            emit(_ENCODE(node))
        spans[where] = (start, position)

    try:
        write(document, "")
        text = "".join(parts)
        # The map holds only where the text is exactly what writing the document whole gives.
        return (text, spans) if text == _ENCODE(document) else None
    except (OverflowError, RecursionError, TypeError, ValueError):
        return None


def replace_at(document: Any, tokens: list[str], value: Any) -> Any:
    """A new document with ``value`` at ``tokens``; containers on the path are copied."""
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    if isinstance(document, dict):
        copy = dict(document)
        copy[head] = replace_at(document[head], rest, value) if rest else value
        return copy
    if isinstance(document, list):
        copy_list = list(document)
        index = int(head)
        copy_list[index] = replace_at(document[index], rest, value)
        return copy_list
    raise KeyError(head)


def delete_at(document: Any, tokens: list[str]) -> Any:
    """A new document without the member at ``tokens`` (containers on the path copied)."""
    parent_tokens, last = tokens[:-1], tokens[-1]
    parent = resolve(document, parent_tokens)
    if isinstance(parent, dict):
        new_parent: Any = {k: v for k, v in parent.items() if k != last}
    else:
        new_parent = [v for i, v in enumerate(parent) if i != int(last)]
    return replace_at(document, parent_tokens, new_parent)


@dataclass
class MutationContext:
    """One accepted fixture, ready to be mutated."""

    contract: Contract
    version: int
    fixture_id: str
    raw: bytes
    document: Any
    #: The contract object: the document, or the adapter's output for adapter tools.
    result: Any
    #: The schema the schema layer applies to ``document`` (vendor schema for adapter tools).
    schema: Any
    now: datetime
    request: Mapping[str, Any]
    #: The boundary's examination of ``raw`` (:class:`~harness.boundary.pipeline.Examined`),
    #: which the fixture's own case is judged by.
    examined: Any = field(default=None, repr=False)
    _objects: list[tuple[str, dict[str, Any]]] | None = field(default=None, repr=False)
    _leaves: list[tuple[str, Any]] | None = field(default=None, repr=False)
    _size: int | None = field(default=None, repr=False)
    _schema_key: tuple[Any, ...] | None = field(default=None, repr=False)
    #: :func:`value_spans` of the document (False: not made yet), made at the
    #: :data:`_SPANS_AFTER`-th value replaced, and the count of those before it.
    _spans: tuple[str, dict[str, tuple[int, int]]] | bool | None = field(default=False, repr=False)
    _replaced: int = field(default=0, repr=False)

    # ---------------------------------------------------------------- walking
    def _walk(self) -> None:
        objects: list[tuple[str, dict[str, Any]]] = []
        leaves: list[tuple[str, Any]] = []
        stack: list[tuple[str, Any]] = [("", self.document)]
        while stack and len(objects) + len(leaves) < _MAX_TARGETS:
            where, node = stack.pop()
            if isinstance(node, dict):
                objects.append((where, node))
                stack.extend(
                    (f"{where}/{escape_token(k)}", v) for k, v in reversed(list(node.items()))
                )
            elif isinstance(node, list):
                stack.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(node))))
            else:
                leaves.append((where, node))
        self._objects, self._leaves = objects, leaves

    def objects(self) -> list[tuple[str, dict[str, Any]]]:
        """Every object in the document, in document order, with its pointer."""
        if self._objects is None:
            self._walk()
        assert self._objects is not None
        return self._objects

    def leaves(self) -> list[tuple[str, Any]]:
        """Every scalar in the document, in document order, with its pointer."""
        if self._leaves is None:
            self._walk()
        assert self._leaves is not None
        return self._leaves

    # ---------------------------------------------------------------- schemas
    @property
    def schema_model(self) -> Document | None:
        """The schema model of :attr:`schema` (the contract's, cached there)."""
        if self.schema is None:
            return None
        if self.schema is self.contract.vendor_schema:
            return self.contract.vendor_document()
        if self.schema is self.contract.schema(self.version):
            return self.contract.document(self.version)
        return Document(self.schema)

    def schema_nodes(self, pointer: str) -> list[Node]:
        """The subschemas that may govern ``pointer`` (:meth:`Document.governing`). The answer
        depends on the schema and the pointer alone, and every fixture of a contract asks it for
        the same pointers: it is kept on the contract with the model it came from."""
        if self.schema is None:
            return []
        which = self._which()
        if which is None:  # a model built for this context alone: nothing to share
            document = self.schema_model
            return document.governing(split(pointer)) if document is not None else []
        nodes = self.contract.memo(("governing", *which, pointer), lambda: self._governing(pointer))
        return list(nodes)

    def _governing(self, pointer: str) -> tuple[Node, ...]:
        document = self.schema_model
        return tuple(document.governing(split(pointer))) if document is not None else ()

    def keyword_values(self, pointer: str, keyword: str) -> list[Any]:
        """The values of ``keyword`` in the subschemas that may govern ``pointer`` (kept on the
        contract, like :meth:`schema_nodes`)."""
        which = self._which()
        if which is None:
            return [n.get(keyword) for n in self.schema_nodes(pointer) if n.has(keyword)]
        values = self.contract.memo(("keyword_values", *which, pointer, keyword), lambda: tuple(
            n.get(keyword) for n in self.schema_nodes(pointer) if n.has(keyword)))
        return list(values)

    def _which(self) -> tuple[Any, ...] | None:
        """Which of the contract's schemas :attr:`schema` is (the key its answers are kept
        under), or None for a schema of this context alone."""
        if self._schema_key is None:
            if self.schema is self.contract.vendor_schema:  # as schema_model tells them apart
                self._schema_key = ("vendor",)
            elif self.schema is self.contract.schema(self.version):
                self._schema_key = ("version", self.version)
            else:
                self._schema_key = ()
        return self._schema_key or None

    def schema_layer_accepts(self, document: Any) -> bool:
        """Whether the schema layer (vendor schema for adapter tools) accepts ``document``."""
        if self.contract.adapter is not None:
            validator = self.contract.vendor_validator()
            return True if validator is None else bool(validator.is_valid(document))
        return bool(self.contract.validator(self.version).is_valid(document))

    # ---------------------------------------------------------------- building bytes
    def room(self, value: Any) -> int:
        """How many bytes the document leaves, under max_bytes, to a value in place of ``value``
        (one of its own values): what an oversized near miss may take and still pass the
        transport layer. The document is serialised once, not once per target."""
        if self._size is None:
            self._size = len(dumps(self.document))
        return self.contract.limits.max_bytes - (self._size - len(dumps(value)))

    def replaced(self, pointer: str, value: Any, *, encoded: str | None = None) -> bytes:
        """The document's bytes with ``value`` at ``pointer`` (exactly ``dumps`` of the
        document so changed: the text around the old value, with the new value's text).
        ``encoded``: that text, when the caller has it (a long string it knows needs no escape)."""
        if self._spans is False:
            self._replaced += 1
            if self._replaced >= _SPANS_AFTER:
                self._spans = value_spans(self.document)
        spans = self._spans
        if isinstance(spans, tuple) and (span := spans[1].get(pointer)) is not None:
            text, (start, end) = spans[0], span
            return f"{text[:start]}{_ENCODE(value) if encoded is None else encoded}{text[end:]}".encode()
        # The map not made (yet), a member added, a pointer spelled otherwise: written whole.
        return dumps(replace_at(self.document, split(pointer), value))

    def deleted(self, pointer: str) -> bytes:
        return dumps(delete_at(self.document, split(pointer)))

    def spliced(self, pointer: str, fragment: bytes) -> bytes:
        """The document's bytes with the value at ``pointer`` replaced by raw ``fragment``."""
        text = self.replaced(pointer, _PLACEHOLDER)
        if text.count(_PLACEHOLDER_JSON) != 1:  # pragma: no cover - a document quoting it
            raise ValueError("placeholder collides with the document")
        return text.replace(_PLACEHOLDER_JSON, fragment)

    # ---------------------------------------------------------------- adapter tools
    def raw_pointer_for(self, result_pointer: str) -> str | None:
        """Where in the raw document the value at ``result_pointer`` (contract object) lives.

        Without an adapter that is the same pointer. With one, it is the first scalar in the
        vendor document equal to the contract object's value (the adapter copied it).
        """
        value = resolve(self.result, result_pointer)
        if value is MISSING:
            return None
        if self.contract.adapter is None:
            return result_pointer
        for where, leaf in self.leaves():
            if type(leaf) is type(value) and leaf == value:
                return where
        return None
