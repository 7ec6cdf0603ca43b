"""The schema model: a schema document, every subschema a :class:`Node` with its pointer.

The walk is structural and dialect-aware: only keywords that hold subschemas in the document's
dialect (:mod:`harness.schemas.dialects`) are entered, and in draft-04/06/07 the siblings of
``$ref`` (which validators ignore) are not. References (``$ref``, ``$dynamicRef``,
``$recursiveRef``) are resolved by ``referencing`` — the library python-jsonschema resolves with
— against the document and the resources handed in (a contract's other schema files), never the
network; a reference into another resource leads to a node of that resource's own document.
In a set of schemas with no anchor and no identifier but at a file's root (:func:`plain`: most
contracts, whose references are JSON pointers), ``$ref`` is resolved here, reading URIs and
pointers as ``referencing`` does, and ``referencing`` is not imported (``lint`` starts from
pre-commit on every commit); the answers are the same (``tests/test_schema_plain_refs.py``
compares both ways).

Questions that need more than one node — "does a ``maxLength`` apply to this string, counting
``allOf`` branches, the schemas around it and every place that ``$ref``s it?", "which
subschemas describe the instance at ``/data/items/0``?" — are answered here, so that every
caller (lint rules, the contract's consistency checks, projection, mutations, drift shapes,
onboarding, generation) stays short and reads a schema the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import harness.schemas.dialects as dialects
from harness.errors import ContractError
from harness.locate import position_in_file
from harness.pointer import escape_token, is_index
from harness.schemas.dialects import (
    ALTERNATIVES,
    BRANCHES,
    CONTAINERS,
    IN_PLACE,
    NON_ASSERTING,
    REF_KEYWORDS,
    SLOTS,
    Slot,
)

if TYPE_CHECKING:
    import referencing


_EMPTY: Mapping[str, Any] = MappingProxyType({})
#: What a document is within a contract: a versioned result schema, the vendor schema, or a
#: bare schema file read on its own.
Role = Literal["version", "vendor", "schema"]
#: ``local``: resolved in the same document; ``contract``: in another of the resources handed
#: in; ``dangling``: the resource is known but the pointer or anchor names nothing;
#: ``remote``: a resource nobody handed in (the harness never fetches it).
RefStatus = Literal["local", "dangling", "contract", "remote"]
#: The URI of a schema that has no file.
NAMELESS = "urn:harness:schema"
#: Where members not named in ``properties`` and items past the positions fall.
_REST_MEMBERS = ("additionalProperties", "unevaluatedProperties")
_REST_ITEMS = ("additionalItems", "unevaluatedItems")
#: Keywords whose subschemas describe a member or an item of the instance (not the instance).
_INNER = frozenset({"properties", "patternProperties", *_REST_MEMBERS, "prefixItems", "items",
                    *_REST_ITEMS, "contains"})


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """One subschema: where it is, what holds it, and which instance it describes."""

    pointer: str
    schema: Any
    parent: Node | None
    keyword: str | None  # the keyword of ``parent`` that holds this subschema
    key: str | None  # member name or index under that keyword
    name: str | None  # property name of the instance described (kept through allOf etc.)
    in_place: bool  # describes the same instance as ``parent``
    asserting: bool  # False under ``not`` and ``if``, where a schema does not constrain
    base: str  # base URI for references
    document: Document

    @property
    def raw(self) -> Mapping[str, Any]:
        """The schema object as written ({} for a boolean schema)."""
        return self.schema if isinstance(self.schema, dict) else _EMPTY

    def get(self, keyword: str) -> Any:
        """A keyword's value as validators of the dialect see it; None if absent or ignored."""
        return self.raw.get(keyword) if self.has(keyword) else None

    def has(self, keyword: str) -> bool:
        """Whether the keyword is present and validators of the dialect read it."""
        raw = self.raw
        if keyword not in raw or keyword not in self.document.vocabulary:
            return False
        return not (self.document.ref_overrides and "$ref" in raw
                    and keyword not in ("$ref", *CONTAINERS))

    @property
    def types(self) -> frozenset[str] | None:
        """The names in ``type``, or None when the node declares no type."""
        declared = self.get("type")
        if isinstance(declared, str):
            return frozenset({declared})
        if isinstance(declared, list):
            return frozenset(t for t in declared if isinstance(t, str))
        return None

    def at(self, *tokens: object) -> str:
        """The pointer of something inside this node (a keyword, a member of a keyword)."""
        return self.pointer + "".join("/" + escape_token(t) for t in tokens)

    @property
    def is_definition(self) -> bool:
        return self.keyword in CONTAINERS

    @property
    def location(self) -> str:
        """The node's absolute location: its document's URI and its JSON pointer."""
        return f"{self.document.uri}#{self.pointer}"


@dataclass(frozen=True, slots=True)
class Reference:
    """Where a ``$ref`` (or ``$dynamicRef``/``$recursiveRef``) leads."""

    keyword: str
    value: str
    uri: str
    status: RefStatus
    target: Node | None = None

    @property
    def dynamic(self) -> bool:
        """A dynamic reference: its target may depend on the path that reached it (the model
        resolves it from the document's root, as a validator starting there does first)."""
        return self.keyword != "$ref"


Predicate = Callable[[Node], bool]


class Document:
    """A parsed schema, walked once; callers query it through the methods below.

    ``resources`` are the other schemas its references may reach, by URI (file URI or
    ``$id``): a contract's other schema files. ``base_uri`` defaults to the file's URI.
    """

    def __init__(
        self,
        schema: Any,
        *,
        file: str | Path = "<schema>",
        label: str | None = None,
        role: Role = "schema",
        contract: Any = None,
        base_pointer: str = "",
        resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
        base_uri: str | None = None,
        dialect: str | None = None,
        _resources: _Resources | None = None,
    ) -> None:
        self.schema = schema
        self.file = str(file)
        self.label = label
        self.role = role
        #: The contract this schema belongs to, for the lint rules that read it (the model itself
        #: knows nothing of contracts: it sits below them).
        self.contract = contract
        self.base_pointer = base_pointer
        self.uri = urldefrag(base_uri or _file_uri(file))[0]
        self.dialect, self.dialect_known = dialects.detect(schema)
        if dialect is not None and not (isinstance(schema, Mapping) and "$schema" in schema):
            self.dialect = dialect  # a resource without $schema is read in its referrer's dialect
        self.vocabulary = dialects.VOCABULARIES[self.dialect]
        self.ref_overrides = self.dialect in dialects.REF_OVERRIDES
        self.children: dict[str, list[Node]] = {}
        self._plain: bool = _resources.plain if _resources is not None else False  # the root's: set by _Resources
        self._resources = _resources or _Resources(self, resources)
        self.nodes: list[Node] = self._walk()
        self.by_pointer: dict[str, Node] = {n.pointer: n for n in self.nodes}
        self._resources.index(self)
        self._references: dict[Node, tuple[Reference, ...]] = {}
        self._referrers: dict[Node, list[Node]] | None = None
        self._conjuncts: dict[Node, tuple[Node, ...]] = {}
        self._holds: dict[tuple[Node, Predicate], bool] = {}

    @property
    def root(self) -> Node:
        return self.nodes[0]

    @property
    def specification(self) -> referencing.Specification[Any]:
        """The ``referencing`` specification of the document's dialect (imports ``referencing``)."""
        return dialects.specification(self.dialect)

    def identifier(self, schema: Any) -> Any:
        """The identifier (``$id``, ``id`` in draft-04) of a schema object as ``referencing``
        reads it in this dialect. In a plain set (see :func:`plain`) only a resource's root
        may have one, a ``$id`` every dialect of the set reads alike."""
        if self._plain:
            return schema.get("$id") if isinstance(schema, dict) else None
        return self.specification.id_of(schema)

    # ------------------------------------------------------------------ walk
    def _walk(self) -> list[Node]:
        base = self._base(self.schema, self.uri)
        root = Node("", self.schema, None, None, None, None, False, True, base, self)
        nodes: list[Node] = []
        stack = [root]
        while stack:
            node = stack.pop()
            nodes.append(node)
            kids = list(self._children_of(node))
            self.children[node.pointer] = kids
            stack.extend(reversed(kids))
        return nodes

    def _children_of(self, node: Node) -> Iterator[Node]:
        raw = node.raw
        skip_siblings = self.ref_overrides and isinstance(raw.get("$ref"), str)
        for keyword, value in raw.items():
            kind = dialects.slot(self.dialect, keyword)
            if kind is None or (skip_siblings and keyword not in CONTAINERS):
                continue
            if kind is Slot.MAP:
                if isinstance(value, dict):
                    for key, sub in value.items():
                        yield from self._child(node, keyword, key, sub)
            elif kind is Slot.LIST or (kind is Slot.ITEMS and isinstance(value, list)):
                if isinstance(value, list) and (kind is Slot.LIST or self.dialect in dialects.ITEMS_ARRAYS):
                    for index, sub in enumerate(value):
                        yield from self._child(node, keyword, str(index), sub)
            else:
                yield from self._child(node, keyword, None, value)

    def _child(self, parent: Node, keyword: str, key: str | None, schema: Any) -> Iterator[Node]:
        if not isinstance(schema, dict | bool):
            return
        pointer = parent.at(keyword) if key is None else parent.at(keyword, key)
        in_place = keyword in IN_PLACE
        if keyword == "properties":
            name: str | None = key
        else:
            name = parent.name if in_place else None
        yield Node(pointer, schema, parent, keyword, key, name, in_place,
                   parent.asserting and keyword not in NON_ASSERTING, self._base(schema, parent.base, pointer), self)

    def _base(self, schema: Any, base: str, pointer: str = "") -> str:
        """The base URI inside ``schema`` (at ``pointer``): changed by its ``$id`` as
        ``referencing`` reads it in this dialect (``id`` in draft-04, none beside ``$ref``
        before 2019-09). An identifier no URI can be made of is the schema's error."""
        identifier = self.identifier(schema) if isinstance(schema, dict) else None
        if isinstance(identifier, str) and identifier:
            try:
                return urldefrag(urljoin(base, identifier))[0]
            except ValueError as exc:  # "http://[x": urllib refuses it as an IPv6 address
                keyword = "$id" if "$id" in schema else "id"
                raise ContractError(f"{keyword} {identifier!r} is not a URI reference ({exc})",
                                    file=self.file, pointer=f"{self.base_pointer}{pointer}/{keyword}",
                                    locate=position_in_file,
                                    code="contract.invalid_schema") from None
        return base

    # ------------------------------------------------------------------ references
    def references(self, node: Node) -> tuple[Reference, ...]:
        """Where each reference keyword of the node leads (in the order of
        :data:`~harness.schemas.dialects.REF_KEYWORDS`)."""
        found = self._references.get(node)
        if found is None:
            found = tuple(self._resources.locate(node, keyword, value) for keyword in REF_KEYWORDS
                          if isinstance(value := node.get(keyword), str))
            self._references[node] = found
        return found

    def meant(self, ref: Reference) -> str:
        """For a dangling reference, `` (did you mean X?)`` naming the nearest ``$anchor`` or
        sibling definition of this document; else the empty string."""
        from harness.errors import did_you_mean
        from harness.pointer import resolve, split

        name = unquote(ref.value.partition("#")[2])
        if name.startswith("/"):
            *parent, last = split(name)
            known = resolve(self.root.schema, parent, None)
            return did_you_mean(last, known if isinstance(known, dict) else ())
        anchors = (n.schema.get("$anchor") for n in self.nodes if isinstance(n.schema, dict))
        return did_you_mean(name, (a for a in anchors if isinstance(a, str)))

    def reference(self, node: Node) -> Reference | None:
        """Where the node's (first) reference keyword leads, or None if it has none."""
        found = self.references(node)
        return found[0] if found else None

    def target(self, node: Node) -> Node | None:
        ref = self.reference(node)
        return ref.target if ref is not None else None

    def referrers(self, node: Node) -> list[Node]:
        """The nodes of this document whose reference leads to ``node``."""
        if self._referrers is None:
            self._referrers = {}
            for candidate in self.nodes:
                target = self.target(candidate)
                if target is not None:
                    self._referrers.setdefault(target, []).append(candidate)
        return self._referrers.get(node, [])

    # ------------------------------------------------------------------ structure
    def kids(self, node: Node, keyword: str) -> list[Node]:
        """The node's subschemas under one keyword."""
        return [k for k in node.document.children.get(node.pointer, ()) if k.keyword == keyword]

    def conjuncts(self, node: Node) -> tuple[Node, ...]:
        """The node and every subschema that applies whenever it does: ``allOf`` branches and
        reference targets, transitively."""
        cached = self._conjuncts.get(node)
        if cached is None:
            cached = self._conjuncts[node] = tuple(self.reach(node, ("allOf",)))
        return cached

    def alternatives(self, node: Node) -> list[Node]:
        """Every subschema that may apply to the node's instance: conjuncts plus the branches
        of ``anyOf``/``oneOf``/``then``/``else``, transitively."""
        return self.reach(node, ALTERNATIVES)

    def reach(self, node: Node, keywords: Iterable[str]) -> list[Node]:
        """The node and what its reference and ``keywords`` lead to, transitively, in order."""
        wanted = frozenset(keywords)
        out: list[Node] = []
        seen: set[Node] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            out.append(current)
            following = [k for k in current.document.children.get(current.pointer, ())
                         if k.keyword in wanted]
            stack.extend(reversed(following))
            target = current.document.target(current)
            if target is not None:
                stack.append(target)
        return out

    def site(self, node: Node) -> Node:
        """The outermost subschema describing the same instance as ``node``."""
        while node.in_place and node.parent is not None:
            node = node.parent
        return node

    def in_place_ancestors(self, node: Node) -> Iterator[Node]:
        while node.in_place and node.parent is not None:
            node = node.parent
            yield node

    def facts(self, node: Node) -> Iterator[Node]:
        """Every subschema that certainly applies to the node's instance when the node does:
        its conjuncts and those of the schemas around it at the same instance."""
        current: Node | None = node
        while current is not None:
            yield from self.conjuncts(current)
            current = current.parent if current.in_place else None

    def holds(self, node: Node, predicate: Predicate) -> bool:
        """Whether ``predicate`` is true of some schema that applies to the node's instance.

        A node inside ``$defs`` is judged by its uses: it holds if it holds on every ``$ref``
        to it (an unused definition is judged on its own).
        """
        return self._holds_at(node, predicate, frozenset())

    def _holds_at(self, node: Node, predicate: Predicate, visiting: frozenset[Node]) -> bool:
        key = (node, predicate)
        if key in self._holds:
            return self._holds[key]
        result = any(predicate(n) for n in self.facts(node))
        if not result:
            site = self.site(node)
            if site.is_definition and site not in visiting:
                uses = site.document.referrers(site)
                inner = visiting | {site}
                result = bool(uses) and all(self._holds_at(u, predicate, inner) for u in uses)
        if not visiting:
            self._holds[key] = result
        return result

    def effective_types(self, node: Node) -> frozenset[str] | None:
        """The types the node's instance can have, from every ``type`` that applies to it."""
        found: frozenset[str] | None = None
        for fact in self.facts(node):
            declared = fact.types
            if declared is not None:
                found = declared if found is None else found & declared
        return found

    def in_place_cycle(self) -> tuple[Node, ...] | None:
        """A cycle of references that never descends into the instance, or None.

        ``{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`` asks, to
        validate a value, to validate the same value against the same schema again: no
        validator can evaluate it (python-jsonschema recurses without end; jsonschema-rs gives
        up and accepts anything). References through ``properties``, ``items`` and the like
        move to a part of the instance, so a recursive tree schema is fine. Only schemas
        reachable from the root count (``$defs`` through references). The cycle is returned
        as its nodes, the first repeated last."""
        successors: dict[Node, list[Node]] = {}
        todo = [self.root]
        while todo:
            node = todo.pop()
            if node in successors:
                continue
            following: list[Node] = []
            successors[node] = following
            for ref in node.document.references(node):
                if ref.target is not None:
                    following.append(ref.target)
                    todo.append(ref.target)
            for kid in node.document.children.get(node.pointer, ()):
                if kid.keyword in CONTAINERS:
                    continue  # reached through references only
                if kid.in_place:
                    following.append(kid)
                todo.append(kid)
        colour: dict[Node, int] = {}
        for start in successors:
            if colour.get(start):
                continue
            path = [start]
            iterators = [iter(successors[start])]
            colour[start] = 1
            while iterators:
                step = next(iterators[-1], None)
                if step is None:
                    colour[path.pop()] = 2
                    iterators.pop()
                    continue
                state = colour.get(step, 0)
                if state == 1:
                    return (*path[path.index(step):], step)
                if state == 0:
                    colour[step] = 1
                    path.append(step)
                    iterators.append(iter(successors.get(step, ())))
        return None

    # ------------------------------------------------------------------ instances
    def instance_nodes(
        self, tokens: Iterable[str], start: Node | None = None, *, through: Iterable[str] = ALTERNATIVES
    ) -> list[Node]:
        """The subschemas that describe the instance at ``tokens`` (an instance pointer's
        tokens), found through ``properties`` and array items, from each node via its
        reference and the in-place keywords ``through``."""
        wanted = tuple(through)
        current = [start or self.root]
        for token in tokens:
            following: list[Node] = []
            for node in current:
                for option in self.reach(node, wanted):
                    following.extend(k for k in _unique(_positions(option, token, open_members=False))
                                     if k not in following)
            current = following
        return current

    def governing(self, tokens: Iterable[str]) -> list[Node]:
        """Every subschema whose keywords may constrain the instance at ``tokens``: the nodes
        describing it (through ``properties``, items, references and ``allOf``/``anyOf``/
        ``oneOf``) and, transitively, their references and branches."""
        found: list[Node] = []
        for node in self.instance_nodes(tokens, through=BRANCHES):
            found.extend(n for n in self.reach(node, BRANCHES) if n not in found)
        return found

    def walk_instance(self, instance: Any, *, through: Iterable[str] = ALTERNATIVES
                      ) -> Iterator[tuple[str, Any, list[Node]]]:
        """Every value of ``instance`` (depth first, in document order) with its pointer and
        the subschemas that describe it: reached through ``properties``, matching
        ``patternProperties``, ``additionalProperties`` and items, and from each node through its
        references and the in-place keywords ``through``."""
        wanted = frozenset(through)
        stack: list[tuple[str, Any, list[Node]]] = [("", instance, self.reach(self.root, wanted))]
        while stack:
            pointer, value, nodes = stack.pop()
            yield pointer, value, nodes
            if isinstance(value, dict):
                members = [(str(k), v) for k, v in value.items()]
            elif isinstance(value, list):
                members = [(str(i), v) for i, v in enumerate(value)]
            else:
                continue
            following = []
            for token, member in members:
                kids = _unique(k for n in nodes for k in _positions(n, token, open_members=True))
                found = _unique(r for k in kids for r in self.reach(k, wanted))
                following.append((f"{pointer}/{escape_token(token)}", member, found))
            stack.extend(reversed(following))

    def inner_positions(
        self, node: Node, *, through: Iterable[str] = ALTERNATIVES
    ) -> list[tuple[tuple[str, ...] | None, Node]]:
        """Every subschema describing a value inside the node's instance, at any depth, each
        once, breadth first: reached through ``properties``, ``patternProperties``,
        ``additionalProperties``/``unevaluatedProperties`` and items, and from each node through
        its references and the in-place keywords ``through``. Each comes with the tokens of its
        instance pointer relative to the node's instance, or None below an array item or a map
        member (no one pointer names every such value). Subschemas that admit nothing
        (``false``) are left out."""
        wanted = frozenset(through)
        found: list[tuple[tuple[str, ...] | None, Node]] = []
        seen = {node}
        queue: list[tuple[tuple[str, ...] | None, Node]] = [((), node)]
        index = 0
        while index < len(queue):
            tokens, current = queue[index]
            index += 1
            for option in self.reach(current, wanted):
                for kid in option.document.children.get(option.pointer, ()):
                    if kid.keyword not in _INNER or kid in seen or not _admits(kid):
                        continue
                    seen.add(kid)
                    named = kid.keyword == "properties" and kid.key is not None
                    inner = (*tokens, kid.key or "") if named and tokens is not None else None
                    found.append((inner, kid))
                    queue.append((inner, kid))
        return found

    def declared(self, tokens: Iterable[str]) -> Declared:
        """Where the schema declares the instance at ``tokens`` (an instance pointer's tokens):
        what may appear there.

        Like :meth:`instance_nodes`, plus members declared through ``patternProperties`` and
        through ``additionalProperties``/``unevaluatedProperties`` given as a schema (a map).
        ``certain`` is False when the walk passed a reference the model cannot follow (to a
        resource nobody handed in, or a dynamic one) or a pattern it cannot read: an empty
        answer then proves nothing.
        """
        current = [self.root]
        certain = True
        walked: list[str] = []
        for token in tokens:
            following: list[Node] = []
            members: set[str] = set()
            for node in current:
                for option in self.alternatives(node):
                    for ref in option.document.references(option):
                        certain = certain and ref.target is not None and not ref.dynamic
                    for kid in option.document.children.get(option.pointer, ()):
                        if kid.keyword == "properties" and kid.key is not None:
                            members.add(kid.key)
                        elif kid.keyword == "patternProperties" and kid.key is not None:
                            certain = certain and _compiles(kid.key)
                    following.extend(k for k in _positions(option, token, open_members=True)
                                     if k not in following)
            if not following:
                return Declared((), certain, tuple(walked), tuple(sorted(members)))
            walked.append(token)
            current = following
        return Declared(tuple(current), certain, tuple(walked), ())


@dataclass(frozen=True, slots=True)
class Declared:
    """What :meth:`Document.declared` found: the nodes, and where the walk stopped."""

    nodes: tuple[Node, ...]
    certain: bool
    #: The leading tokens that were found (all of them when ``nodes`` is not empty).
    found: tuple[str, ...]
    #: Member names declared where the walk stopped (for a did-you-mean).
    members: tuple[str, ...]

    @property
    def missing(self) -> bool:
        """True when the schema certainly declares nothing there."""
        return not self.nodes and self.certain


def _positions(option: Node, token: str, *, open_members: bool) -> Iterator[Node]:
    """The subschemas of ``option`` that describe its instance's member or item ``token``.

    ``properties`` by name and items by position (``prefixItems``, array ``items``, then
    ``items``) always; with ``open_members`` also where a member not named in ``properties``
    falls (``patternProperties`` whose pattern matches it, else ``additionalProperties`` /
    ``unevaluatedProperties``) and items past the positions (``additionalItems``,
    ``unevaluatedItems``), unless such a schema admits nothing.
    """
    kids = option.document.children.get(option.pointer, ())
    named = [k for k in kids if k.keyword == "properties" and k.key == token]
    yield from named
    if open_members:
        matched = [k for k in kids if k.keyword == "patternProperties" and k.key is not None
                   and _compiles(k.key) and re.search(k.key, token) is not None]
        yield from matched
        if not named and not matched:
            yield from (k for k in kids if k.keyword in _REST_MEMBERS and _admits(k))
    if not is_index(token):
        return
    positions = [k for k in kids if k.keyword in ("prefixItems", "items") and k.key is not None]
    yield from (k for k in positions if k.key == token)
    past = int(token) >= len(positions)
    for kid in kids:
        if kid.keyword == "items" and kid.key is None:
            if past and (not open_members or _admits(kid)):
                yield kid
        elif open_members and kid.keyword in _REST_ITEMS and _admits(kid) \
                and (kid.keyword == "unevaluatedItems" or (positions and past)):
            yield kid


def _admits(kid: Node) -> bool:
    return kid.schema is not False and kid.schema != {"not": {}}


def _unique(nodes: Iterable[Node]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if node not in out:
            out.append(node)
    return out


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _file_uri(file: str | Path) -> str:
    path = Path(file)
    return path.resolve().as_uri() if path.name else NAMELESS


def join_uri(base: str, ref: str) -> str:
    """Resolve ``ref`` against ``base``; also for URN bases, which ``urljoin`` leaves alone."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if urlsplit(ref).scheme:
        return ref
    return urljoin(base, ref)


#: What ``referencing`` raises reading a schema that breaks its meta-schema (``"$defs": 1``,
#: ``"$id": 5``, a pointer through a string).
_MALFORMED = (AttributeError, TypeError, ValueError, LookupError)

#: Keywords whose presence in a schema object gives ``referencing`` an identifier or an anchor
#: to index (in some dialect: ``id`` is draft-04's ``$id``).
_NAMING = frozenset({"$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"})
#: Keywords holding subschemas in some dialect, for the harness's walk or ``referencing``'s
#: crawl (``contentSchema`` is one ``referencing`` enters; the walk does not).
_HOLDERS = frozenset(SLOTS) | {"contentSchema"}
_MAPS = frozenset(k for k, kind in SLOTS.items() if kind is Slot.MAP)
_LISTS = frozenset(k for k, kind in SLOTS.items() if kind is Slot.LIST)


def plain(schema: Any, dialect: str = dialects.DEFAULT) -> bool:
    """Whether ``schema``, read in its own dialect or (without ``$schema``) in ``dialect``,
    names nothing but itself and has the shape of a schema: no anchor anywhere, no identifier
    but a ``$id`` at its root that every reading takes alike (a string not starting with ``#``;
    not draft-04, nor beside a ``$ref`` in draft-06/07, which ignore it there), and a schema
    (or, where a keyword takes them, an array or object of schemas) under every keyword that
    holds subschemas in any dialect, ``$ref`` siblings included.

    In a set of plain schemas every base URI is its resource's URI or root ``$id``, there is no
    anchor to find, and ``referencing``'s crawl of the set cannot fail half-way, so a ``$ref``
    is resolved by URI and JSON pointer alone: the model then does that itself, without
    ``referencing``. Checking more than any one dialect reads only makes the answer False more
    often (then ``referencing`` resolves, as always)."""
    own, known = dialects.detect(schema)
    declared = isinstance(schema, dict) and "$schema" in schema
    crawled = own if known and declared else dialect  # as dialects.resource reads it
    readings = {own if declared else dialect, crawled}  # the document's, the registry's
    legacy = crawled == "draft-04"  # draft-04's crawl fails on a boolean subschema
    if isinstance(schema, dict) and "$id" in schema:
        identifier = schema["$id"]
        if not isinstance(identifier, str) or identifier.startswith("#") or "draft-04" in readings \
                or ("$ref" in schema and not readings.isdisjoint(dialects.REF_OVERRIDES)):
            return False
        schema = {k: v for k, v in schema.items() if k != "$id"}
    if legacy and isinstance(schema, bool):
        return False
    stack = [schema]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        if not _NAMING.isdisjoint(current):
            return False
        for keyword in _HOLDERS.intersection(current):
            value = current[keyword]
            if keyword in _MAPS:
                if not isinstance(value, dict):
                    return False
                subs = list(value.values())
                if keyword == "dependencies" and not (subs and isinstance(subs[0], Mapping)):
                    # Property dependencies (arrays of names) first: the crawl skips them all.
                    stack.extend(sub for sub in subs if isinstance(sub, dict))
                    continue
            elif keyword in _LISTS or (keyword == "items" and isinstance(value, list)):
                if not isinstance(value, list) or (keyword == "items" and crawled == "2020-12"):
                    return False
                subs = value
            else:
                subs = [value]
            for sub in subs:
                if isinstance(sub, bool):
                    if legacy and keyword not in ("additionalProperties", "additionalItems"):
                        return False
                elif not isinstance(sub, dict):
                    return False
            stack.extend(subs)
    return True


def _names(content: Any, uri: str) -> str | None:
    """The URI (without fragment) a schema handed in under ``uri`` names itself by its root
    ``$id``; None without one (or with one that is no URI)."""
    named = content.get("$id") if isinstance(content, dict) else None
    if not isinstance(named, str):
        return None
    try:
        return urldefrag(urljoin(uri, named))[0]
    except ValueError:
        return None


class _Remote(Exception):
    """A reference to a resource nobody handed in."""


def _pointer(contents: Any, pointer: str) -> Any:
    """What a JSON pointer (a URI fragment: percent-encoded) reaches in ``contents``, read as
    ``referencing`` reads it (``Resource.pointer``): an index into any sequence by ``int()``;
    raises what it raises (LookupError, ValueError, TypeError) where nothing is there."""
    for segment in unquote(pointer[1:]).split("/"):
        if isinstance(contents, Sequence):
            contents = contents[int(segment)]
        else:
            contents = contents[segment.replace("~1", "/").replace("~0", "~")]
    return contents


class _Resources:
    """The documents a schema's references may reach: one ``referencing`` registry over the
    root document and the resources handed in, and a document per resource, made on demand.
    Nothing outside them is ever retrieved."""

    def __init__(self, root: Document, resources: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        self.root = root
        pairs = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
        # The root's base first (its ``$id`` read alike with or without ``referencing`` when
        # the root is plain), then whether the whole set is.
        root._plain = plain(root.schema, root.dialect)
        own = {root.uri, root._base(root.schema, root.uri)}
        #: id(content) -> (first URI it was handed in under, content); the root's own entry is
        #: the root (a copy of the same file among the resources is left out).
        self.contents: dict[int, tuple[str, Any]] = {id(root.schema): (root.uri, root.schema)}
        entries: list[tuple[str, Any]] = []
        for uri, content in pairs:
            uri = urldefrag(uri)[0]
            if uri in own:
                continue
            if _names(content, uri) in own and content == root.schema:
                # The root's own file under another URI (a vendor schema is read with
                # contract.yaml's URI): the root itself there, not a copy claiming its $id
                # (which of the two the registry then held depended on its crawl order).
                content = root.schema
            self.contents.setdefault(id(content), (uri, content))
            entries.append((uri, content))
        #: URI -> content, as the registry holds them after its crawl: a later one under the
        #: same URI wins, the root is added last, then each is also under its root ``$id``.
        self._by_uri: dict[str, Any] = {**dict(entries), root.uri: root.schema}
        #: No anchor, no identifier but root ``$id`` s, each naming one content (see
        #: :func:`plain`): ``$ref`` is resolved without ``referencing``.
        self.plain = all(plain(content, root.dialect) for content in self._by_uri.values())
        for uri, content in list(self._by_uri.items()) if self.plain else ():
            if isinstance(content, dict) and "$id" in content:
                try:
                    named = urljoin(uri, content["$id"].rstrip("#"))  # as Resource.id() reads it
                except ValueError:  # not a URI (``http://[``): the crawl fails on it
                    self.plain = False
                    break
                self.plain = self.plain and self._by_uri.setdefault(named, content) is content
        root._plain = self.plain
        self._entries = entries
        self._registry: referencing.Registry[Any] | None = None
        self.documents: dict[int, Document] = {}
        self._nodes: dict[int, Node] = {}

    @property
    def registry(self) -> referencing.Registry[Any]:
        """One ``referencing`` registry over the root and the resources, crawled (made on
        first use: a plain set resolves its ``$ref`` s without it)."""
        if self._registry is None:
            root = self.root
            registry = dialects.registry(self._entries, default=root.dialect).with_resource(
                root.uri, dialects.resource(root.schema, root.dialect))
            try:
                self._registry = registry.crawl()
            except _MALFORMED:
                # A schema its meta-schema rejects (an ``$id`` that is no string, ``$defs`` that
                # is no object) cannot be indexed; its references are then read without the index.
                self._registry = registry
        return self._registry

    def _lookup(self, base: str, value: str) -> Any:
        """What ``value`` leads to from ``base`` in a plain set, as ``Resolver.lookup`` finds
        it: the resource by URI (:class:`_Remote` if nobody handed it in), then the pointer; a
        fragment that is no pointer names an anchor, and a plain set has none (LookupError)."""
        if value.startswith("#"):
            uri, fragment = base, value[1:]
        else:
            uri, fragment = urldefrag(urljoin(base, value))
        if uri not in self._by_uri:
            raise _Remote(uri)
        contents = self._by_uri[uri]
        if fragment.startswith("/"):
            return _pointer(contents, fragment)
        if fragment:
            raise LookupError(fragment)
        return contents

    def index(self, document: Document) -> None:
        self.documents[id(document.schema)] = document
        for node in document.nodes:
            if isinstance(node.schema, dict):
                self._nodes.setdefault(id(node.schema), node)

    def _node_of(self, contents: Any) -> Node | None:
        found = self._nodes.get(id(contents))
        if found is None and len(self.documents) < len(self.contents):
            for key, (uri, content) in list(self.contents.items()):
                if key not in self.documents:
                    Document(content, file=_file_of(uri), base_uri=uri, dialect=self.root.dialect,
                             _resources=self)
            found = self._nodes.get(id(contents))
        return found

    def _scoped(self, base: str) -> Any:
        """A resolver at ``base`` whose dynamic scope starts at the root document, where a
        validator of the root starts."""
        import referencing.exceptions

        resolver: Any = self.registry.resolver(base_uri=self.root.root.base)
        if base == self.root.root.base:
            return resolver
        try:
            scoped: Any = resolver.lookup(base).resolver
        except (referencing.exceptions.Unresolvable, *_MALFORMED):
            scoped = self.registry.resolver(base_uri=base)
        return scoped

    def locate(self, node: Node, keyword: str, value: str) -> Reference:
        uri = join_uri(node.base, value)
        if self.plain and keyword == "$ref":
            try:
                contents = self._lookup(node.base, value)
            except _Remote:
                return Reference(keyword, value, uri, "remote")
            except _MALFORMED:
                return Reference(keyword, value, uri, "dangling")
            return self._found(node, keyword, value, uri, contents)
        import referencing.exceptions
        import referencing.jsonschema

        try:
            if keyword == "$recursiveRef":
                resolved = referencing.jsonschema.lookup_recursive_ref(self._scoped(node.base))
            elif keyword == "$dynamicRef":
                resolved = self._scoped(node.base).lookup(value)
            else:
                resolved = self.registry.resolver(base_uri=node.base).lookup(value)
        except (referencing.exceptions.PointerToNowhere, referencing.exceptions.NoSuchAnchor,
                referencing.exceptions.InvalidAnchor, *_MALFORMED):
            return Reference(keyword, value, uri, "dangling")
        except referencing.exceptions.Unresolvable:
            return Reference(keyword, value, uri, "remote")
        return self._found(node, keyword, value, uri, resolved.contents)

    def _found(self, node: Node, keyword: str, value: str, uri: str, contents: Any) -> Reference:
        """The reference whose lookup reached ``contents``: its node, local or in another resource."""
        target = self._node_of(contents)
        owner = target if target is not None else self._resource_root(uri)
        if target is None and owner is not None and (uri.partition("#")[2] or "/").startswith("/"):
            # Not an object (``true``, ``false``): found by its pointer from its resource's root.
            target = owner.document.by_pointer.get(owner.pointer + unquote(urldefrag(uri)[1]))
        elsewhere = owner is not None and owner.document is not node.document
        return Reference(keyword, value, uri, "contract" if elsewhere else "local", target)

    def _resource_root(self, uri: str) -> Node | None:
        """The node at the root of the resource ``uri`` names."""
        if self.plain:
            contents = self._by_uri.get(urldefrag(uri)[0], _Remote)
            return None if contents is _Remote else self._node_of(contents)
        import referencing.exceptions

        try:
            contents = self.registry.resolver().lookup(urldefrag(uri)[0]).contents
        except (referencing.exceptions.Unresolvable, *_MALFORMED):
            return None
        return self._node_of(contents)


def _file_of(uri: str) -> str:
    """A file name for a resource's document (for messages): its path for a file URI."""
    if uri.startswith("file://"):
        return unquote(urlsplit(uri).path)
    return uri
