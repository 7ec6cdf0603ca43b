"""A schema document as the rules see it: every subschema a :class:`Node` with its pointer.

The walk is structural and dialect-aware: only keywords that hold subschemas in the document's
dialect are entered, and in draft-04/06/07 the siblings of ``$ref`` (which validators ignore)
are not. Questions that need more than one node — "does a ``maxLength`` apply to this string,
counting ``allOf`` branches, the schemas around it and every place that ``$ref``s it?" — are
answered here, so that each rule stays a few lines long.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from harness.lint import dialects
from harness.lint.dialects import CONTAINERS, IN_PLACE, NON_ASSERTING, REF_KEYWORDS, Slot
from harness.pointer import MISSING, escape_token, is_index, resolve

if TYPE_CHECKING:
    from harness.contract import Contract

_EMPTY: Mapping[str, Any] = MappingProxyType({})
#: What a document is within a contract: a versioned result schema, the vendor schema, or a
#: bare schema file linted on its own.
Role = Literal["version", "vendor", "schema"]
RefStatus = Literal["local", "dangling", "contract", "remote"]


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


@dataclass(frozen=True, slots=True)
class Reference:
    """Where a ``$ref`` (or ``$dynamicRef``/``$recursiveRef``) leads."""

    keyword: str
    value: str
    uri: str
    status: RefStatus
    target: Node | None = None


Predicate = Callable[[Node], bool]


class Document:
    """A parsed schema, walked once; rules query it through the methods below."""

    def __init__(
        self,
        schema: Any,
        *,
        file: str | Path,
        label: str | None = None,
        role: Role = "schema",
        contract: Contract | None = None,
        base_pointer: str = "",
        known_uris: Iterable[str] = (),
    ) -> None:
        self.schema = schema
        self.file = str(file)
        self.label = label
        self.role = role
        self.contract = contract
        self.base_pointer = base_pointer
        self.known_uris = frozenset(known_uris)
        self.dialect, self.dialect_known = dialects.detect(schema)
        self.vocabulary = dialects.VOCABULARIES[self.dialect]
        self.ref_overrides = self.dialect in dialects.REF_OVERRIDES
        self.resources: dict[str, str] = {}  # resource URI -> pointer of its root
        self.anchors: dict[tuple[str, str], str] = {}  # (resource URI, anchor) -> pointer
        self.children: dict[str, list[Node]] = {}
        self.nodes: list[Node] = self._walk()
        self.by_pointer: dict[str, Node] = {n.pointer: n for n in self.nodes}
        self._references: dict[str, Reference | None] = {}
        self._referrers: dict[str, list[Node]] | None = None
        self._conjuncts: dict[str, tuple[Node, ...]] = {}
        self._holds: dict[tuple[str, Predicate], bool] = {}

    @property
    def root(self) -> Node:
        return self.nodes[0]

    # ------------------------------------------------------------------ walk
    def _root_uri(self) -> str:
        path = Path(self.file)
        file_uri = path.resolve().as_uri() if path.name else "urn:harness-lint:schema"
        return file_uri

    def _walk(self) -> list[Node]:
        file_uri = self._root_uri()
        base = self._enter_resource(self.schema, file_uri, "")
        self.resources.setdefault(file_uri, "")
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
                if isinstance(value, list) and (kind is Slot.LIST or self.dialect != "2020-12"):
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
        base = self._enter_resource(schema, parent.base, pointer)
        yield Node(pointer, schema, parent, keyword, key, name, in_place,
                   parent.asserting and keyword not in NON_ASSERTING, base, self)

    def _enter_resource(self, schema: Any, base: str, pointer: str) -> str:
        """Register ``$id`` and anchors of a subschema; return its base URI."""
        if not isinstance(schema, dict):
            return base
        id_keyword = "id" if self.dialect == "draft-04" else "$id"
        declared = schema.get(id_keyword)
        if isinstance(declared, str) and declared:
            if declared.startswith("#") and self.dialect in dialects.REF_OVERRIDES:
                self.anchors[(urldefrag(base)[0], declared[1:])] = pointer
            else:
                base = urldefrag(_join(base, declared))[0]
                self.resources.setdefault(base, pointer)
        for keyword in ("$anchor", "$dynamicAnchor"):
            anchor = schema.get(keyword)
            if keyword in self.vocabulary and isinstance(anchor, str):
                self.anchors.setdefault((urldefrag(base)[0], anchor), pointer)
        return base

    # ------------------------------------------------------------------ references
    def reference(self, node: Node) -> Reference | None:
        """Where the node's reference keyword leads, or None if it has none."""
        if node.pointer in self._references:
            return self._references[node.pointer]
        found = None
        for keyword in REF_KEYWORDS:
            value = node.get(keyword)
            if isinstance(value, str):
                found = self._locate(keyword, value, node.base)
                break
        self._references[node.pointer] = found
        return found

    def _locate(self, keyword: str, value: str, base: str) -> Reference:
        uri = _join(base, value)
        resource, fragment = urldefrag(uri)
        if resource not in self.resources:
            status: RefStatus = "contract" if resource in self.known_uris else "remote"
            return Reference(keyword, value, uri, status)
        root = self.resources[resource]
        if fragment.startswith("/") or fragment == "":
            pointer: str | None = root + unquote(fragment)
        else:
            pointer = self.anchors.get((resource, fragment))
        if pointer is None or resolve(self.schema, pointer) is MISSING:
            return Reference(keyword, value, uri, "dangling")
        return Reference(keyword, value, uri, "local", self.by_pointer.get(pointer))

    def target(self, node: Node) -> Node | None:
        ref = self.reference(node)
        return ref.target if ref is not None else None

    def referrers(self, node: Node) -> list[Node]:
        """The nodes whose reference leads to ``node``."""
        if self._referrers is None:
            self._referrers = {}
            for candidate in self.nodes:
                target = self.target(candidate)
                if target is not None:
                    self._referrers.setdefault(target.pointer, []).append(candidate)
        return self._referrers.get(node.pointer, [])

    # ------------------------------------------------------------------ structure
    def kids(self, node: Node, keyword: str) -> list[Node]:
        """The node's subschemas under one keyword."""
        return [k for k in self.children.get(node.pointer, ()) if k.keyword == keyword]

    def conjuncts(self, node: Node) -> tuple[Node, ...]:
        """The node and every subschema that applies whenever it does: ``allOf`` branches and
        reference targets, transitively."""
        cached = self._conjuncts.get(node.pointer)
        if cached is None:
            cached = self._conjuncts[node.pointer] = tuple(self._reach(node, ("allOf",)))
        return cached

    def alternatives(self, node: Node) -> list[Node]:
        """Every subschema that may apply to the node's instance: conjuncts plus the branches
        of ``anyOf``/``oneOf``/``then``/``else``, transitively."""
        return self._reach(node, ("allOf", "anyOf", "oneOf", "then", "else"))

    def _reach(self, node: Node, keywords: tuple[str, ...]) -> list[Node]:
        """The node and what its reference and ``keywords`` lead to, transitively, in order."""
        out: list[Node] = []
        seen: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if current.pointer in seen:
                continue
            seen.add(current.pointer)
            out.append(current)
            following = [k for k in self.children.get(current.pointer, ())
                         if k.keyword in keywords]
            stack.extend(reversed(following))
            target = self.target(current)
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

    def _holds_at(self, node: Node, predicate: Predicate, visiting: frozenset[str]) -> bool:
        key = (node.pointer, predicate)
        if key in self._holds:
            return self._holds[key]
        result = any(predicate(n) for n in self.facts(node))
        if not result:
            site = self.site(node)
            if site.is_definition and site.pointer not in visiting:
                uses = self.referrers(site)
                inner = visiting | {site.pointer}
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

    def instance_nodes(self, tokens: Iterable[str], start: Node | None = None) -> list[Node]:
        """The subschemas that describe the instance at ``tokens`` (an instance pointer's
        tokens), found through ``properties`` and array items."""
        current = [start or self.root]
        for token in tokens:
            following: list[Node] = []
            for node in current:
                for option in self.alternatives(node):
                    following.extend(k for k in self.kids(option, "properties") if k.key == token)
                    if is_index(token):
                        following.extend(self.kids(option, "items"))
                        following.extend(k for k in self.kids(option, "prefixItems")
                                         if k.key == token)
            current = following
        return current

    def declared(self, tokens: Iterable[str]) -> Declared:
        """Where the schema declares the instance at ``tokens`` (an instance pointer's tokens).

        Like :meth:`instance_nodes`, plus members declared through ``patternProperties`` and
        through ``additionalProperties``/``unevaluatedProperties`` given as a schema (a map).
        ``certain`` is False when the walk passed a reference this document cannot follow (to
        another file) or a pattern it cannot read: an empty answer then proves nothing.
        """
        current = [self.root]
        certain = True
        walked: list[str] = []
        for token in tokens:
            following: list[Node] = []
            members: set[str] = set()
            for node in current:
                for option in self.alternatives(node):
                    ref = self.reference(option)
                    if ref is not None and ref.status != "local":
                        certain = False
                    for kid in self.children.get(option.pointer, ()):
                        if kid.keyword == "properties" and kid.key is not None:
                            members.add(kid.key)
                        if _declares(kid, token):
                            following.append(kid)
                        elif kid.keyword == "patternProperties" and kid.key is not None:
                            certain = certain and _compiles(kid.key)
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


def _declares(kid: Node, token: str) -> bool:
    """Whether a subschema under some keyword describes the member or item ``token``."""
    keyword = kid.keyword
    if keyword == "properties":
        return kid.key == token
    if keyword == "patternProperties":
        return kid.key is not None and _compiles(kid.key) and re.search(kid.key, token) is not None
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        return kid.schema is not False and kid.schema != {"not": {}}
    if token.isdigit():
        if keyword == "prefixItems" or (keyword == "items" and kid.key is not None):
            return kid.key == token
        return keyword in ("items", "additionalItems", "unevaluatedItems") and kid.schema is not False
    return False


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _join(base: str, ref: str) -> str:
    """Resolve ``ref`` against ``base``; also for URN bases, which ``urljoin`` leaves alone."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if urlsplit(ref).scheme:
        return ref
    return urljoin(base, ref)
