"""Expand a schema: local references inlined, the dialect pinned to Draft 2020-12.

``expand(schema)`` returns a tree with the same meaning in which every ``$ref`` that resolves
within the schema and the resources handed in (the contract's own files, never the network) is
replaced by the schema it names, and older dialects' spellings are rewritten to their 2020-12
form (``items: [...]`` -> ``prefixItems``, ``dependencies`` -> ``dependentRequired`` /
``dependentSchemas``, draft-04 boolean ``exclusiveMaximum``, and draft-07's rule that ``$ref``
ignores its siblings). ``$defs`` disappear: what is not referenced does not validate anything.

A reference alone in its object (annotations aside) is replaced by its target, at the same
pointer. A reference with sibling assertions keeps its place: ``{"$ref": <expanded target>,
...siblings}``, read as an in-place applicator like a one-member ``allOf`` (2020-12 semantics);
:func:`as_schema` turns such a tree back into an ordinary schema.

What cannot be expanded exactly stays as written and is listed in ``Expanded.unmodelled``:
``$dynamicRef`` and ``$recursiveRef``, references that do not resolve, and recursive references
(expanding them would never end). Every node of the tree remembers where it came from
(``Expanded.origins``: resource URI and JSON pointer), which is what a validator's schema
pointer names.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import harness.schemas.dialects as dialects
import harness.schemas.keywords as kw
from harness.pointer import MISSING, escape_token, join, split
from harness.schemas.dialects import dialect_of
from harness.schemas.document import NAMELESS as ROOT_URI
from harness.schemas.document import Document, Node


@dataclass(frozen=True, slots=True)
class Location:
    """Where a schema node is written: a resource (file URI or ``$id``) and a JSON pointer."""

    resource: str
    pointer: str

    def child(self, *tokens: object) -> Location:
        return Location(self.resource, self.pointer + join(tokens))

    def keyword(self, keyword: str) -> str:
        """The JSON pointer of ``keyword`` in this node, as a validator reports it."""
        return self.pointer + "/" + escape_token(keyword)

    def display(self, root: str) -> str:
        return self.pointer if self.resource == root else f"{self.resource}#{self.pointer}"


@dataclass(frozen=True, slots=True)
class Unmodelled:
    """A construct the expansion kept as written because it cannot be modelled exactly."""

    pointer: str  # in the expanded tree
    keyword: str
    reason: str
    location: Location


@dataclass(frozen=True, slots=True)
class Expanded:
    """A schema with its local references inlined, in Draft 2020-12 form."""

    schema: Any
    dialect: str
    root: str
    origins: Mapping[str, Location] = field(repr=False)
    #: Expanded pointer -> the ``$ref`` as written, for every reference that was expanded.
    refs: Mapping[str, str] = field(repr=False)
    unmodelled: tuple[Unmodelled, ...] = ()

    @property
    def exact(self) -> bool:
        """True when nothing was kept unexpanded."""
        return not self.unmodelled

    def origin(self, pointer: str) -> Location:
        """The written location of the node at an expanded pointer (nearest known ancestor)."""
        tokens = split(pointer)
        while True:
            here = join(tokens)
            if here in self.origins:
                known = self.origins[here]
                rest = split(pointer)[len(tokens):]
                return known.child(*rest) if rest else known
            if not tokens:
                return Location(self.root, pointer)
            tokens.pop()


class _Expander:
    def __init__(self, document: Document, root: str) -> None:
        self.document = document
        self.dialect = document.dialect
        self.root = root
        self.origins: dict[str, Location] = {}
        self.refs: dict[str, str] = {}
        self.unmodelled: list[Unmodelled] = []

    def location(self, node: Node) -> Location:
        """Where a node is written: its document (the root one by its base URI) and pointer."""
        resource = self.root if node.document is self.document else node.document.uri
        return Location(resource, node.pointer)

    def unmodelled_at(self, out: str, keyword: str, reason: str, location: Location) -> None:
        self.unmodelled.append(Unmodelled(out, keyword, reason, location))

    # Not keywords.walk: this reads the schema as written (any dialect, through the Document's
    # nodes and references) to make the expanded tree that walk reads.
    def expand(self, node: Node, out: str, stack: tuple[Node, ...]) -> Any:
        where = self.location(node)
        self.origins[out] = where
        raw = node.schema
        if not isinstance(raw, dict):
            return copy.deepcopy(raw)
        doc = node.document
        ref = raw.get("$ref")
        if isinstance(ref, str) and (doc.ref_overrides or all(kw.is_annotation(k) for k in raw if k != "$ref")):
            # A reference alone (or, before 2019-09, a reference whose siblings are ignored):
            # the node *is* its target.
            expanded = self._follow(node, out, stack, keep_place=False)
            return {"$ref": ref} if expanded is MISSING else expanded
        result: dict[str, Any] = {}
        legacy_items = doc.dialect in dialects.ITEMS_ARRAYS
        items_is_array = legacy_items and isinstance(raw.get("items"), list)
        for key, value in raw.items():
            if key in kw.DEFS or (key not in doc.vocabulary and key in dialects.VOCABULARIES["2020-12"]):
                continue  # definitions validate nothing; another dialect's keyword is ignored here
            path = f"{out}/{escape_token(key)}"
            if key == "$ref" and isinstance(value, str):
                expanded = self._follow(node, path, stack, keep_place=True)
                result[key] = value if expanded is MISSING else expanded
            elif key in ("$dynamicRef", "$recursiveRef"):
                self.unmodelled_at(out, key, f"{key} is resolved at run time (dynamic scope); not modelled", where)
                result[key] = copy.deepcopy(value)
            elif key == "items" and items_is_array:
                result["prefixItems"] = [self._child(node, f"{out}/prefixItems/{i}", stack, key, i, v)
                                         for i, v in enumerate(value)]
            elif key == "additionalItems" and legacy_items:
                if items_is_array:
                    result["items"] = self._child(node, f"{out}/items", stack, key, None, value)
            elif key == "dependencies" and isinstance(value, dict) and key in doc.vocabulary:
                for name, dep in value.items():
                    if isinstance(dep, list):
                        result.setdefault("dependentRequired", {})[name] = list(dep)
                    else:
                        result.setdefault("dependentSchemas", {})[name] = self._child(
                            node, f"{out}/dependentSchemas/{escape_token(name)}", stack, key, name, dep)
            elif key in ("exclusiveMaximum", "exclusiveMinimum") and isinstance(value, bool):
                bound = "maximum" if key == "exclusiveMaximum" else "minimum"
                if value and bound in raw:
                    result[key] = raw[bound]
            elif key in ("maximum", "minimum") and raw.get(f"exclusive{key.capitalize()}") is True:
                continue  # draft-04: rewritten as the exclusive form above
            elif key in kw.SINGLE and isinstance(value, dict | bool):
                result[key] = self._child(node, path, stack, key, None, value)
            elif key in kw.LIST and isinstance(value, list):
                result[key] = [self._child(node, f"{path}/{i}", stack, key, i, v) for i, v in enumerate(value)]
            elif key in kw.MAP and isinstance(value, dict):
                result[key] = {name: self._child(node, f"{path}/{escape_token(name)}", stack, key, name, v)
                               for name, v in value.items()}
            else:
                result[key] = copy.deepcopy(value)
        return result

    def _child(self, node: Node, out: str, stack: tuple[Node, ...], keyword: str, key: object, value: Any) -> Any:
        """The expansion of a subschema of ``node``; a value the model does not walk as a
        schema (not an object or boolean) is kept as written."""
        child = node.document.by_pointer.get(node.at(keyword) if key is None else node.at(keyword, key))
        if child is None:
            self.origins[out] = self.location(node).child(*((keyword,) if key is None else (keyword, key)))
            return copy.deepcopy(value)
        return self.expand(child, out, stack)

    def _follow(self, node: Node, out: str, stack: tuple[Node, ...], *, keep_place: bool) -> Any:
        where = self.location(node)
        refs = [r for r in node.document.references(node) if r.keyword == "$ref"]
        ref = refs[0] if refs else None
        written = str(node.raw.get("$ref"))
        holder = out.rsplit("/$ref", 1)[0] if keep_place else out
        if ref is None or ref.target is None:
            self.unmodelled_at(holder, "$ref", f"$ref {written!r} does not resolve within the contract's own schemas",
                               where)
            return MISSING
        if ref.target in stack:
            self.unmodelled_at(holder, "$ref", f"recursive $ref {written!r}: the schema refers to itself; not expanded",
                               where)
            return MISSING
        self.refs[out] = written
        return self.expand(ref.target, out, (*stack, ref.target))


def expand(
    schema: Any,
    *,
    base_uri: str | None = None,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
) -> Expanded:
    """Inline every local ``$ref`` of ``schema`` and pin it to Draft 2020-12 form.

    ``base_uri`` is the schema file's URI (relative references resolve against it);
    ``resources`` maps other URIs (the contract's other schema files, by file URI or ``$id``)
    to their contents. Nothing is ever fetched.
    """
    document = Document(schema, base_uri=base_uri or ROOT_URI, resources=resources, dialect=dialect_of(schema))
    expander = _Expander(document, document.root.base)
    tree = expander.expand(document.root, "", (document.root,))
    if isinstance(tree, dict):
        tree.pop("$schema", None)
    return Expanded(
        schema=tree,
        dialect=expander.dialect,
        root=expander.root,
        origins=expander.origins,
        refs=expander.refs,
        unmodelled=tuple(expander.unmodelled),
    )


def in_place_cycle(
    schema: Any,
    *,
    base_uri: str | None = None,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
) -> tuple[Location, ...] | None:
    """:meth:`Document.in_place_cycle` of ``schema``, as the locations of its schemas."""
    document = Document(schema, base_uri=base_uri or ROOT_URI, resources=resources)
    cycle = document.in_place_cycle()
    if cycle is None:
        return None
    expander = _Expander(document, document.root.base)
    return tuple(expander.location(node) for node in cycle)


def as_schema(tree: Any) -> Any:
    """An ordinary 2020-12 schema with the meaning of an expanded tree.

    Expanded ``$ref`` members (objects held by ``$ref``) become ``allOf`` members; references
    kept as written stay as they are.
    """
    if isinstance(tree, list):
        return [as_schema(item) for item in tree]
    if not isinstance(tree, dict):
        return tree
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if key == "$ref" and isinstance(value, dict | bool):
            out.setdefault("allOf", [])
            out["allOf"] = [*out["allOf"], as_schema(value)]
        elif kw.holds(key, value) is not None:
            merged = kw.map_held(key, value, lambda sub, _tokens: as_schema(sub))
            if key == "allOf" and "allOf" in out:
                merged = [*merged, *out["allOf"]]
            out[key] = merged
        else:
            out[key] = copy.deepcopy(value)
    return out
