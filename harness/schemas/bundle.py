"""Self-contained copies of subschemas: a new schema built from parts of another.

The agent view is such a schema: each of its fields is a copy of the subschema that describes
it in the contract's schema. A copy taken out of its document loses what its references meant
there (``#payload`` names an anchor of the old document, ``#/properties/a`` a place the new one
does not have, ``other.json`` a file beside the old one), so :class:`Bundle` rewrites every
reference the model resolves into a JSON pointer within the new schema, to a copy of the target
kept in its ``$defs``. Members of the old root's ``$defs``/``definitions`` keep their names
(``#/$defs/x`` stays as written); any other target is added under a name made from its place.
A subschema that reaches a dynamic reference (``$dynamicRef``, ``$recursiveRef``) cannot be
copied this way (where such a reference leads depends on the path that reached it): it becomes
a ``$ref`` to its place in its document, and the documents are embedded whole in ``$defs``
under their base URI (a compound document, as the specification bundles), so the references
resolve exactly as they did.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from harness.schemas.dialects import CONTAINERS, REF_KEYWORDS, is_annotation
from harness.schemas.document import Document, Node

#: Keywords a copy drops: identifiers and anchors only mean something in the old document
#: (every reference to them is rewritten), and the dialect is the new root's.
_DROPPED = frozenset({"$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema"})
#: What a JSON pointer keeps unescaped in a URI fragment (RFC 6901 section 6).
_SAFE = "/~!$&'()*+,;=:@-._"


class Bundle:
    """Copies of nodes of ``document`` that resolve their references within one new schema;
    the targets they need are in :attr:`defs`, to be placed at the new schema's root."""

    def __init__(self, document: Document) -> None:
        self.document = document
        #: ``$defs``/``definitions`` of the new root: the old root's, then added targets.
        self.defs: dict[str, dict[str, Any]] = {}
        self._places: dict[Node, str] = {}
        self._embedded: dict[Document, str] = {}
        self._taken: set[str] = set()
        root = document.root
        for keyword in sorted(CONTAINERS):
            if isinstance(root.raw.get(keyword), dict):
                self.defs[keyword] = {}
                self._taken.update(root.raw[keyword])
        for keyword in self.defs:
            for member, value in root.raw[keyword].items():
                kid = document.by_pointer.get(root.at(keyword, member))
                self.defs[keyword][member] = self.copy(kid) if kid is not None else copy.deepcopy(value)

    def resolved(self, node: Node) -> Node:
        """The node, or the target of its reference when the reference is all it says (its
        siblings only annotate, or are ignored in its dialect), transitively."""
        seen = {node}
        while True:
            ref = node.document.reference(node)
            if ref is None or ref.target is None or ref.target in seen:
                return node
            if not node.document.ref_overrides and not all(
                    is_annotation(k, v) for k, v in node.raw.items() if k not in REF_KEYWORDS):
                return node
            node = ref.target
            seen.add(node)

    def copy(self, node: Node) -> Any:
        """A copy of the node's schema whose references resolve from the new root."""
        if self._dynamic(node):
            return {"$ref": self._embed(node)}
        raw = node.schema
        if not isinstance(raw, dict):
            return raw
        kids = {(k.keyword, k.key): k for k in node.document.children.get(node.pointer, ())}
        references = {r.keyword: r for r in node.document.references(node)}
        out: dict[str, Any] = {}
        for key, value in raw.items():
            if key in _DROPPED:
                continue
            ref = references.get(key)
            if ref is not None and ref.target is not None:
                out["$ref" if key in REF_KEYWORDS else key] = "#" + quote(self._place(ref.target), safe=_SAFE)
            elif isinstance(value, dict) and (key, None) not in kids:
                out[key] = {name: self._member(kids.get((key, name)), sub) for name, sub in value.items()}
            elif isinstance(value, list):
                out[key] = [self._member(kids.get((key, str(i))), sub) for i, sub in enumerate(value)]
            else:
                out[key] = self._member(kids.get((key, None)), value)
        return out

    def _dynamic(self, node: Node) -> bool:
        """Whether a dynamic reference is reachable from the node (within it or through its
        references)."""
        seen: set[Node] = set()
        todo = [node]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            if current.has("$dynamicRef") or current.has("$recursiveRef"):
                return True
            todo.extend(current.document.children.get(current.pointer, ()))
            todo.extend(r.target for r in current.document.references(current) if r.target is not None)
        return False

    def _embed(self, node: Node) -> str:
        """The node's absolute URI, its document (and every document that one refers to)
        embedded whole under its base URI."""
        todo = [node.document]
        while todo:
            document = todo.pop()
            if document in self._embedded:
                continue
            base = document.root.base
            content = document.schema
            if isinstance(content, dict) and document.identifier(content) is None:
                content = {**content, "$id": base}
            self._embedded[document] = base
            self.defs.setdefault("$defs", {})[self._name(document.root)] = copy.deepcopy(content)
            todo.extend(r.target.document for n in document.nodes for r in document.references(n)
                        if r.target is not None)
        return f"{self._embedded[node.document]}#{quote(node.pointer, safe=_SAFE)}"

    def _member(self, kid: Node | None, value: Any) -> Any:
        return copy.deepcopy(value) if kid is None else self.copy(kid)

    def _place(self, target: Node) -> str:
        """The pointer of the target's copy in the new schema (copied on first use)."""
        place = self._places.get(target)
        if place is not None:
            return place
        site = target
        while site.parent is not None and site.parent.parent is not None:
            site = site.parent
        if target.document is self.document and site.keyword in self.defs and site.key is not None:
            place = target.pointer  # under a member of the old root's definitions: copied there
            self._places[target] = place
            return place
        name = self._name(target)
        place = f"/$defs/{name}"
        self._places[target] = place
        self.defs.setdefault("$defs", {})[name] = None
        self.defs["$defs"][name] = self.copy(target)
        return place

    def _name(self, target: Node) -> str:
        stem = "root" if not target.pointer else target.pointer.strip("/").replace("/", ".").replace("~", "-")
        if target.document is not self.document:
            stem = target.document.file.rsplit("/", 1)[-1].removesuffix(".json") + "." + stem
        name, n = stem, 1
        while name in self._taken:
            n += 1
            name = f"{stem}.{n}"
        self._taken.add(name)
        return name

    def any_of(self, nodes: Iterable[Node]) -> Any:
        """The copy of each node (its reference followed where that is all it says), as one
        schema: ``true`` for none, the copy for one, else ``anyOf`` of the distinct copies."""
        copies: list[Any] = []
        for node in nodes:
            copied = self.copy(self.resolved(node))
            if copied not in copies:
                copies.append(copied)
        if not copies:
            return True
        return copies[0] if len(copies) == 1 else {"anyOf": copies}
