"""Canaries: unique strings injected where no value may travel, to prove none reaches the agent.

:func:`inject` puts canaries (``hx-canary-...``) into a document: as extra members at any
object level — named after the members the tool's fixtures show there first (``message``,
``html_url``: what an adapter is likeliest to copy), then :data:`TEMPTING_NAMES`, the schema's
own property names, or at random, never a name the schema declares at that level — and, when
asked, as the values of string fields outside the agent view. Each canary remembers its pointer,
so a leak names where it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from harness.fuzz.generate.shared import BOOLEANS, pick, subset
from harness.fuzz.strategies import Bound
from harness.mutations import canary_for
from harness.mutations.context import replace_at
from harness.pointer import escape_token, resolve, split
from harness.schemas import Document

#: Member names an adapter or a projection is tempted to copy: tried as injected extras.
TEMPTING_NAMES = (
    "message", "description", "detail", "details", "note", "notes", "debug", "title", "body",
    "text", "url", "html_url", "instructions", "error_description", "summary", "comment",
)
_MAX_INJECTIONS = 4


@dataclass(frozen=True, slots=True)
class Injected:
    """A document with canaries in it: each canary and the pointer it was put at."""

    document: Any
    canaries: Mapping[str, str]

    def where(self, text: str) -> str | None:
        """The pointer of the first canary found in ``text``."""
        return next((pointer for canary, pointer in self.canaries.items() if canary in text), None)


def _objects_and_leaves(document: Any) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    objects: list[tuple[str, dict[str, Any]]] = []
    leaves: list[str] = []
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            objects.append((where, node))
            stack.extend((f"{where}/{escape_token(k)}", v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, str) and where:
            leaves.append(where)
    return objects, leaves


def _inside(pointer: str, views: frozenset[str]) -> bool:
    return any(pointer == v or pointer.startswith(v + "/") for v in views)


def schema_names(*schemas: Document | None) -> tuple[str, ...]:
    """Every property name declared anywhere in ``schemas`` (for injected extra members)."""
    return tuple(sorted({n.key for d in schemas if d is not None for n in d.nodes
                         if n.keyword == "properties" and n.key is not None}))


@dataclass(frozen=True, slots=True)
class Injection:
    """Where and how to inject canaries (see :func:`inject`)."""

    #: Makes the canaries of one source distinct from another's.
    label: str
    #: Extra names to try (the contract's and vendor schema's property names).
    names: tuple[str, ...] = ()
    #: The agent view's pointers: string values inside them are never replaced.
    views: frozenset[str] = frozenset()
    #: Also replace string values outside ``views`` with canaries.
    replace_values: bool = False
    #: At least this many injections per document (0: a document may stay as it is).
    min_size: int = 1
    #: The schema (or its model) whose declared names are never injected.
    schema: Document | Any = None
    #: Member names the fixtures show at each object pointer, tried first.
    members: Mapping[str, list[str]] | None = None


def inject(draw: Callable[[st.SearchStrategy[Any]], Any], document: Any, how: Injection) -> Injected:
    """``document`` with canaries drawn with ``draw``: each member the fixtures show at an
    object and its schema does not declare, drawn in or out; up to four more extra members at
    any object level (named after ``how.members``, :data:`TEMPTING_NAMES`, ``how.names`` or at
    random — never a name ``how.schema`` declares at that level, whose value may rightly
    travel); and, with ``how.replace_values``, string values outside ``how.views``."""
    label, names, views, schema = how.label, how.names, how.views, how.schema
    objects, leaves = _objects_and_leaves(document)
    seen_at = how.members or {}
    # Objects the fixtures show first: hypothesis draws early choices more often.
    ordered = sorted(objects, key=lambda item: item[0] not in seen_at)
    sites: list[tuple[str, str]] = [("member", where) for where, _ in ordered]
    if how.replace_values:
        sites += [("value", where) for where in leaves if not _inside(where, views)]
    if not sites:
        assume(how.min_size == 0)
        return Injected(document, {})
    chosen = draw(subset(len(sites), min(how.min_size, len(sites)), min(_MAX_INJECTIONS, len(sites))))
    canaries: dict[str, str] = {}

    def add(document: Any, where: str, name: str) -> Any:
        pointer = f"{where}/{escape_token(name)}"
        canary = canary_for(label, "member", pointer)
        value = [canary, {"text": canary}, [canary]][draw(pick(3))]
        canaries[canary] = pointer
        target = resolve(document, split(where))
        return replace_at(document, split(where), {**target, name: value})

    # Every member the fixtures show at an object and its schema does not declare (``message``,
    # ``html_url``): the likeliest for an adapter or a projection to copy. Each is drawn in or out.
    for where, node in reversed(ordered):
        declared = declared_names(schema, where)
        for name in seen_at.get(where, []):
            if name not in node and name not in declared and draw(BOOLEANS):
                document = add(document, where, name)
    for index in sorted(chosen, reverse=True):  # deepest first: parents are copied after children
        kind, where = sites[index]
        if kind == "value":
            canary = canary_for(label, "value", where)
            document = replace_at(document, split(where), canary)
            canaries[canary] = where
            continue
        target = resolve(document, split(where))
        taken = set(target) | declared_names(schema, where)
        seen = seen_at.get(where, [])
        free = list(dict.fromkeys(n for n in (*seen, *TEMPTING_NAMES, *names) if n not in taken))
        document = add(document, where, _name(draw, free, taken))
    return Injected(document, canaries)


_NAMES = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)


def _name(draw: Callable[[st.SearchStrategy[Any]], Any], free: list[str], taken: set[str]) -> str:
    """One of the ``free`` names or, as often, a random one not ``taken`` (drawn from strategies
    built once: a filter made per draw rebuilt the regex strategy at every draw)."""
    if free and not draw(pick(2)):
        return free[int(draw(pick(len(free))))]
    name = str(draw(_NAMES))
    while name in taken:  # rare: a random name the object already has, or its schema declares
        name += "_"
    return name


def declared_names(schema: Document | Any, pointer: str) -> set[str]:
    """The member names ``schema`` (a schema model, or a schema) declares for the object at
    ``pointer`` (any branch)."""
    if schema is None:
        return set()
    document = schema if isinstance(schema, Document) else _model(schema)
    return {n.key for node in document.governing(split(pointer))
            for n in document.kids(node, "properties") if n.key is not None}


_MODELS: dict[int, tuple[Any, Document]] = {}


def _model(schema: Any) -> Document:
    """The schema model of a schema handed in as such (kept: every draw asks again)."""
    hit = _MODELS.get(id(schema))
    if hit is None or hit[0] is not schema:
        if len(_MODELS) > 64:
            _MODELS.clear()
        hit = _MODELS[id(schema)] = (schema, Document(schema))
    return hit[1]


@st.composite
def _canaried(draw: Callable[[st.SearchStrategy[Any]], Any], documents: st.SearchStrategy[Any],
              how: Injection) -> Injected:
    return inject(draw, draw(documents), how)


@st.composite
def _canaried_bound(draw: Callable[[st.SearchStrategy[Any]], Any], bound: st.SearchStrategy[Bound],
                    how: Injection) -> tuple[Bound, Injected]:
    source = draw(bound)
    return source, inject(draw, source.document, how)


def with_canaries(documents: st.SearchStrategy[Any], how: Injection) -> st.SearchStrategy[Injected]:
    """``documents`` with canaries injected (see :func:`inject`)."""
    return _canaried(documents, how)


def bound_with_canaries(bound: st.SearchStrategy[Bound], how: Injection) -> st.SearchStrategy[tuple[Bound, Injected]]:
    """Bound documents with canaries injected, with the bound document they came from."""
    return _canaried_bound(bound, how)
