"""What an operator sees: one accepted fixture, parsed, with its schema and helpers.

Operators never serialise by hand: :meth:`MutationContext.replaced` builds the bytes of the
document with one value replaced (copying only the containers on the path), and
:meth:`MutationContext.spliced` replaces one value by a raw byte fragment (for duplicates,
NaN, invalid UTF-8, deep nesting — things no JSON serialiser writes).
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from harness.boundary.binding import json_equal
from harness.errors import HarnessError
from harness.lock import digest, read_lock
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


#: Keywords that pin a string to a set of values or a shape (a canary or a text they admit is
#: admitted data).
PINS = ("enum", "const", "pattern", "format")

_CLASSES = (string.digits, string.ascii_lowercase, string.ascii_uppercase)


def twiddle(value: Any) -> Any:
    """A different value of the same shape: the last digit moved to its neighbour (else the last
    letter, in its case), numbers + 1, booleans negated (MISSING for anything else). A digit
    first, so a timestamp stays one (``...:13Z`` -> ``...:14Z``, not ``...:13A``)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        for chars in (_CLASSES[0], _CLASSES[1] + _CLASSES[2]):
            for i in range(len(value) - 1, -1, -1):
                if value[i] in chars:
                    kind = next(c for c in _CLASSES if value[i] in c)
                    swapped = kind[(kind.index(value[i]) + 1) % len(kind)]
                    return value[:i] + swapped + value[i + 1 :]
        return value + "x"
    return MISSING


def values_at(document: Any, tokens: list[str]) -> list[Any]:
    """The values at a field's tokens (``*`` for every item of an array)."""
    nodes = [document]
    for token in tokens:
        following: list[Any] = []
        for node in nodes:
            if token == "*" and isinstance(node, list):
                following.extend(node)
            elif isinstance(node, dict) and token in node:
                following.append(node[token])
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                following.append(node[int(token)])
        nodes = following
    return nodes


def leaves_under(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every scalar at or inside ``value`` (at ``where``), in document order."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield from leaves_under(member, f"{where}/{escape_token(key)}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves_under(item, f"{where}/{index}")
    elif value is not MISSING:
        yield where, value


def published_versions(contract: Contract, version: int) -> tuple[int, ...]:
    """The versions of ``contract`` published before ``version`` could change: the older ones,
    and ``version`` itself when ``schemas.lock`` records it unchanged."""
    older = tuple(v for v in contract.versions if v < version)
    try:
        recorded = read_lock(contract) or {}
    except HarnessError:  # a lock check refuses the contract before any case runs
        recorded = {}
    locked = version in contract.schemas and recorded.get(version) == digest(contract.schema(version))
    return (*older, version) if locked else older


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
    #: The boundary's examination of ``raw`` (:class:`~harness.boundary.pipeline.VerdictEvidence`),
    #: which the fixture's own case is judged by.
    examined: Any = field(default=None, repr=False)
    #: Whether ``now`` is a clock the fixture's sidecar or the contract fixes (not the wall
    #: clock): only then does a timestamp's distance from it say what the author meant.
    fixed_clock: bool = False
    _objects: list[tuple[str, dict[str, Any]]] | None = field(default=None, repr=False)
    _leaves: list[tuple[str, Any]] | None = field(default=None, repr=False)
    _size: int | None = field(default=None, repr=False)
    _schema_key: tuple[Any, ...] | None = field(default=None, repr=False)
    #: :func:`value_spans` of the document (False: not made yet), made at the
    #: :data:`_SPANS_AFTER`-th value replaced, and the count of those before it.
    _spans: tuple[str, dict[str, tuple[int, int]]] | bool | None = field(default=False, repr=False)
    _replaced: int = field(default=0, repr=False)
    #: The documents of every accepted fixture of the contract that this one's schema judges
    #: (this one's included; the contract objects, for the adapter's output): what its fields
    #: hold across the fixtures, which no weakening of the schema moves.
    corpus: tuple[Any, ...] = field(default=(), repr=False)
    #: For a tool with an adapter: the contract objects of those fixtures (the adapter's output's
    #: :attr:`corpus`).
    results: tuple[Any, ...] = field(default=(), repr=False)
    #: :meth:`sources_of`'s answers, by contract-object pointer.
    _sources: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _fields: dict[str, str] = field(default_factory=dict, repr=False)
    _visible: tuple[frozenset[str], tuple[str, ...]] | None = field(default=None, repr=False)

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

    def field_of(self, pointer: str) -> str:
        """The field a value of the document belongs to: its pointer with each array index
        written ``*`` (``/statuses/1/state`` is a value of ``/statuses/*/state``)."""
        found = self._fields.get(pointer)
        if found is None:
            node, written = self.document, []
            for token in split(pointer):
                if isinstance(node, list):
                    written.append("*")
                    node = node[int(token)] if token.isdigit() and int(token) < len(node) else None
                else:
                    written.append(escape_token(token))
                    node = node.get(token) if isinstance(node, dict) else None
            found = self._fields[pointer] = "".join(f"/{t}" for t in written)
        return found

    def agent_field(self, pointer: str) -> str | None:
        """The field (:meth:`field_of`) at ``pointer`` when the agent sees it, or sees through it:
        a value the agent view maps or one inside it, or an object or array on the way to one.
        In a vendor document: a value the adapter copies into the agent view, one the vendor
        schema declares (what the adapter reads), or an object or array on the way to one.
        None for anything else (what the cap may trim without losing coverage)."""
        if self._visible is None:
            self._visible = self._agent_visible()
        exact, prefixes = self._visible
        if pointer in exact or pointer.startswith(prefixes):
            return self.field_of(pointer)
        return None

    def _agent_visible(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """The pointers the agent sees or sees through (the mapped values and their ancestors),
        and the prefixes of what lies inside mapped values."""
        if self.contract.adapter is None:
            mapped = [v.pointer for v in self.contract.agent_view if resolve(self.document, v.pointer) is not MISSING]
            inside: tuple[str, ...] = tuple(f"{p}/" for p in mapped)
        else:
            mapped = [source for view in self.contract.agent_view
                      for where, _value in leaves_under(resolve(self.result, view.pointer), view.pointer)
                      for source in self.sources_of(where)]
            mapped += [where for where, _value in self.leaves() if where and self.schema_nodes(where)]
            inside = ()
        exact = {""}
        for pointer in mapped:
            tokens = pointer.split("/")
            exact.update("/".join(tokens[:i]) for i in range(1, len(tokens) + 1))
        return frozenset(exact), inside

    def seen(self, field_name: str) -> list[Any]:
        """Every value the contract's accepted fixtures (:attr:`corpus`) hold at a field."""
        found: list[Any] = []
        for document in self.corpus or (self.document,):
            found.extend(values_at(document, split(field_name)))
        return found

    # ---------------------------------------------------------------- versions
    def published(self) -> tuple[int, ...]:
        """The versions published before this one could change: the older versions, and this one
        when ``schemas.lock`` records it as it is. A near miss judged by a published version
        tells what the contract meant before any edit in progress."""
        return self.contract.memo(("published", self.version), lambda: published_versions(self.contract, self.version))

    def previous(self) -> int | None:
        """The latest version older than this one (a published one), if any."""
        older = [v for v in self.contract.versions if v < self.version]
        return max(older) if older else None

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
        """Where in the raw document the value at ``result_pointer`` (contract object) comes
        from: the same pointer without an adapter; with one, the first of :meth:`sources_of`
        (None when the adapter copies it from nowhere: a value it computes or fills in)."""
        sources = self.sources_of(result_pointer)
        return sources[0] if sources else None

    def sources_of(self, result_pointer: str) -> tuple[str, ...]:
        """The vendor scalars the adapter takes the value at ``result_pointer`` from, in
        document order: those equal to it whose change the adapter's output follows there.

        Real payloads repeat values (a pull request's ``created_at``, ``updated_at`` and
        ``closed_at``; the author's login and the repository owner's): the first equal value
        is often one the adapter never reads, and a near miss aimed there is absorbed. Each
        candidate is changed in turn (:func:`twiddle`) and the adapter run on the document so
        changed; a candidate is a source when the value at ``result_pointer`` changes with it
        (an adapter that raises on the change does not copy it). Without an adapter the value
        lives where it is."""
        found = self._sources.get(result_pointer)
        if found is not None:
            return found
        value = resolve(self.result, result_pointer)
        if value is MISSING:
            found = ()
        elif self.contract.adapter is None:
            found = (result_pointer,)
        else:
            found = tuple(where for where, leaf in self.leaves() if type(leaf) is type(value) and leaf == value
                          and self._followed(where, leaf, result_pointer))
        self._sources[result_pointer] = found
        return found

    def aimed_at(self, result_pointer: str) -> tuple[str, ...]:
        """Where in the raw document near misses about the value at ``result_pointer`` go (a
        binding's, a freshness rule's): every one of :meth:`sources_of`, and, behind an adapter,
        the vendor value of the same member name holding the same value that the adapter does
        not follow, where it is the field the adapter should read: beside a source (its
        ``updated_at`` where it reads ``created_at``), or, where the adapter copies the value from
        no vendor field (it echoes the request's argument), at the same pointer, else the
        shallowest of that name. A value of that name elsewhere (a check suite's ``id`` equal to
        the check run's) is no field of the result's."""
        found = list(self.sources_of(result_pointer))
        if self.contract.adapter is None:
            return tuple(found)
        value, name = resolve(self.result, result_pointer), split(result_pointer)[-1:]
        named = [where for where, leaf in self.leaves()
                 if where not in found and split(where)[-1:] == name and type(leaf) is type(value) and leaf == value]
        if found:
            beside = {source.rsplit("/", 1)[0] for source in found}
            return (*found, *(where for where in named if where.rsplit("/", 1)[0] in beside))
        if result_pointer in named:
            return (result_pointer,)
        shallowest = min((where.count("/") for where in named), default=0)
        return tuple(where for where in named if where.count("/") == shallowest)

    def _followed(self, where: str, leaf: Any, result_pointer: str) -> bool:
        """Whether the adapter's output at ``result_pointer`` changes when the vendor value at
        ``where`` does."""
        other = twiddle(leaf)
        adapter = self.contract.adapter_function()
        if other is MISSING or adapter is None:
            return False
        try:
            output = adapter(replace_at(self.document, split(where), other), self.request)
        except Exception:  # the adapter refuses the change: it reads the value, but does not copy it
            return False
        moved = resolve(output, result_pointer)
        return moved is MISSING or not json_equal(moved, resolve(self.result, result_pointer))
