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
from urllib.parse import unquote, urljoin

from harness.boundary.schema import dialect_of
from harness.pointer import MISSING, escape_token, join, resolve, split
from harness.schemas import keywords as kw

ROOT_URI = "urn:harness:schema"
_LEGACY_REF_DIALECTS = frozenset({"draft-04", "draft-06", "draft-07"})
_ITEMS_ARRAY_DIALECTS = frozenset({"draft-04", "draft-06", "draft-07", "2019-09"})


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


def _raw_children(node: Mapping[str, Any]) -> Iterable[tuple[tuple[str, ...], Any]]:
    """Every subschema position of a *written* schema, older dialects and ``$defs`` included."""
    for key, value in node.items():
        if key in kw.SINGLE or key == "additionalItems":
            if isinstance(value, dict | bool):
                yield (key,), value
            elif key == "items" and isinstance(value, list):
                yield from (((key, str(i)), v) for i, v in enumerate(value))
        elif key in kw.LIST and isinstance(value, list):
            yield from (((key, str(i)), v) for i, v in enumerate(value))
        elif (key in kw.MAP or key in kw.DEFS or key == "dependencies") and isinstance(value, dict):
            yield from (((key, name), v) for name, v in value.items() if isinstance(v, dict | bool))


class _Expander:
    def __init__(self, schema: Any, base_uri: str | None, resources: Iterable[tuple[str, Any]]) -> None:
        self.dialect = dialect_of(schema)
        root = base_uri or ROOT_URI
        if isinstance(schema, Mapping) and isinstance(schema.get("$id"), str):
            root = urljoin(root, schema["$id"]).split("#")[0]
        self.root = root
        self.documents: dict[str, Any] = {root: schema}
        for uri, document in resources:
            self.documents.setdefault(uri.split("#")[0], document)
        #: absolute resource URI -> (document URI, pointer of the resource's root)
        self.resources: dict[str, tuple[str, str]] = {}
        self.anchors: dict[tuple[str, str], tuple[str, str]] = {}
        for uri, document in list(self.documents.items()):
            self.resources.setdefault(uri, (uri, ""))
            self._index(document, uri, uri, "")
        self.origins: dict[str, Location] = {}
        self.refs: dict[str, str] = {}
        self.unmodelled: list[Unmodelled] = []

    # ------------------------------------------------------------------ index
    def _index(self, node: Any, document: str, base: str, pointer: str) -> None:
        if not isinstance(node, dict):
            return
        identifier = node.get("$id") if self.dialect != "draft-04" else node.get("id", node.get("$id"))
        if isinstance(identifier, str) and not identifier.startswith("#"):
            base = urljoin(base, identifier).split("#")[0]
            self.resources.setdefault(base, (document, pointer))
        for anchor_key in ("$anchor", "$dynamicAnchor"):
            if isinstance(node.get(anchor_key), str):
                self.anchors.setdefault((base, node[anchor_key]), (document, pointer))
        if isinstance(identifier, str) and identifier.startswith("#") and len(identifier) > 1:
            self.anchors.setdefault((base, identifier[1:]), (document, pointer))  # draft-06/07 style
        for tokens, child in _raw_children(node):
            self._index(child, document, base, pointer + join(tokens))

    def _base_at(self, document: str, resource_pointer: str, resource_uri: str, pointer: str) -> str:
        base = resource_uri
        node = resolve(self.documents[document], resource_pointer)
        for token in split(pointer)[len(split(resource_pointer)):]:
            node = resolve(node, [token])
            if isinstance(node, dict) and isinstance(node.get("$id"), str):
                base = urljoin(base, node["$id"]).split("#")[0]
        return base

    def lookup(self, ref: str, base: str) -> tuple[Location, str, Any] | None:
        """(location, base URI there, node) of a reference, or None when it does not resolve."""
        target = base.split("#")[0] + ref if ref.startswith("#") else urljoin(base, ref)
        uri, _, fragment = target.partition("#")
        fragment = unquote(fragment)
        if uri not in self.resources:
            return None
        document, resource_pointer = self.resources[uri]
        if fragment == "" or fragment.startswith("/"):
            pointer = resource_pointer + fragment
        elif (uri, fragment) in self.anchors:
            document, pointer = self.anchors[(uri, fragment)]
        else:
            return None
        node = resolve(self.documents[document], pointer)
        if node is MISSING:
            return None
        return Location(document, pointer), self._base_at(document, resource_pointer, uri, pointer), node

    # ------------------------------------------------------------------ expansion
    def unmodelled_at(self, out: str, keyword: str, reason: str, location: Location) -> None:
        self.unmodelled.append(Unmodelled(out, keyword, reason, location))

    def expand(self, node: Any, base: str, where: Location, out: str, stack: tuple[Location, ...]) -> Any:
        self.origins[out] = where
        if not isinstance(node, dict):
            return copy.deepcopy(node)
        if isinstance(node.get("$id"), str) and where.pointer != "":
            base = urljoin(base, node["$id"]).split("#")[0]
        ref = node.get("$ref")
        legacy = self.dialect in _LEGACY_REF_DIALECTS
        if isinstance(ref, str) and (legacy or all(kw.is_annotation(k) for k in node if k != "$ref")):
            # A reference alone (or, before 2019-09, a reference whose siblings are ignored):
            # the node *is* its target.
            expanded = self._follow(ref, base, where, out, stack, keep_place=False)
            if expanded is not MISSING:
                return expanded
            return {"$ref": ref}
        result: dict[str, Any] = {}
        items_is_array = self.dialect in _ITEMS_ARRAY_DIALECTS and isinstance(node.get("items"), list)
        for key, value in node.items():
            if key in kw.DEFS:
                continue
            here = where.child(key)
            path = f"{out}/{escape_token(key)}"
            if key == "$ref" and isinstance(value, str):
                expanded = self._follow(value, base, where, path, stack, keep_place=True)
                result[key] = value if expanded is MISSING else expanded
            elif key in ("$dynamicRef", "$recursiveRef"):
                self.unmodelled_at(out, key, f"{key} is resolved at run time (dynamic scope); not modelled", where)
                result[key] = copy.deepcopy(value)
            elif key == "items" and items_is_array:
                result["prefixItems"] = [
                    self.expand(v, base, here.child(i), f"{out}/prefixItems/{i}", stack)
                    for i, v in enumerate(value)
                ]
            elif key == "additionalItems" and self.dialect in _ITEMS_ARRAY_DIALECTS:
                if items_is_array:
                    result["items"] = self.expand(value, base, here, f"{out}/items", stack)
            elif (key == "dependencies" and isinstance(value, dict)
                  and self.dialect in _ITEMS_ARRAY_DIALECTS - {"2019-09"}):
                for name, dep in value.items():
                    if isinstance(dep, list):
                        result.setdefault("dependentRequired", {})[name] = list(dep)
                    else:
                        result.setdefault("dependentSchemas", {})[name] = self.expand(
                            dep, base, here.child(name), f"{out}/dependentSchemas/{escape_token(name)}", stack
                        )
            elif key in ("exclusiveMaximum", "exclusiveMinimum") and isinstance(value, bool):
                bound = "maximum" if key == "exclusiveMaximum" else "minimum"
                if value and bound in node:
                    result[key] = node[bound]
            elif key in ("maximum", "minimum") and node.get(f"exclusive{key.capitalize()}") is True:
                continue  # draft-04: rewritten as the exclusive form above
            elif key in kw.SINGLE and isinstance(value, dict | bool):
                result[key] = self.expand(value, base, here, path, stack)
            elif key in kw.LIST and isinstance(value, list):
                result[key] = [
                    self.expand(v, base, here.child(i), f"{path}/{i}", stack) for i, v in enumerate(value)
                ]
            elif key in kw.MAP and isinstance(value, dict):
                result[key] = {
                    name: self.expand(v, base, here.child(name), f"{path}/{escape_token(name)}", stack)
                    for name, v in value.items()
                }
            else:
                result[key] = copy.deepcopy(value)
        return result

    def _follow(
        self, ref: str, base: str, where: Location, out: str, stack: tuple[Location, ...], *, keep_place: bool
    ) -> Any:
        found = self.lookup(ref, base)
        if found is None:
            self.unmodelled_at(
                out.rsplit("/$ref", 1)[0] if keep_place else out, "$ref",
                f"$ref {ref!r} does not resolve within the contract's own schemas", where,
            )
            return MISSING
        target, target_base, node = found
        if target in stack:
            self.unmodelled_at(
                out.rsplit("/$ref", 1)[0] if keep_place else out, "$ref",
                f"recursive $ref {ref!r}: the schema refers to itself; not expanded", where,
            )
            return MISSING
        self.refs[out] = ref
        return self.expand(node, target_base, target, out, (*stack, target))


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
    items = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
    expander = _Expander(schema, base_uri, items)
    root = Location(expander.root, "")
    tree = expander.expand(schema, expander.root, root, "", (root,))
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


def _in_place(key: str) -> bool:
    return key in kw.IN_PLACE


def in_place_cycle(
    schema: Any,
    *,
    base_uri: str | None = None,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
) -> tuple[Location, ...] | None:
    """A cycle of references that never descends into the instance, or None.

    ``{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`` asks, to validate
    a value, to validate the same value against the same schema again: no validator can
    evaluate it (python-jsonschema recurses without end; jsonschema-rs gives up and accepts
    anything). References through ``properties``, ``items`` and the like move to a part of
    the instance, so a recursive tree schema is fine. The cycle is returned as the locations
    of its schemas, the first repeated last."""
    items = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
    expander = _Expander(schema, base_uri, items)
    root = Location(expander.root, "")
    # Every reachable schema, and its in-place successors (same instance location).
    in_place: dict[Location, list[Location]] = {}
    todo: list[tuple[Location, str, Any]] = [(root, expander.root, schema)]
    while todo:
        where, base, node = todo.pop()
        if where in in_place:
            continue
        successors: list[Location] = []
        in_place[where] = successors
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("$id"), str) and where.pointer != "":
            base = urljoin(base, node["$id"]).split("#")[0]
        ref = node.get("$ref")
        if isinstance(ref, str):
            found = expander.lookup(ref, base)
            if found is not None:
                target, target_base, target_node = found
                successors.append(target)
                todo.append((target, target_base, target_node))
        for tokens, child in _raw_children(node):
            if tokens[0] in kw.DEFS:
                continue  # reached through references only
            location = where.child(*tokens)
            if _in_place(tokens[0]):
                successors.append(location)
            todo.append((location, base, child))
    # Depth-first over the in-place edges; a grey node met again closes a cycle.
    colour: dict[Location, int] = {}
    for start in in_place:
        if colour.get(start):
            continue
        path: list[Location] = [start]
        iterators = [iter(in_place[start])]
        colour[start] = 1
        while iterators:
            following = next(iterators[-1], None)
            if following is None:
                colour[path.pop()] = 2
                iterators.pop()
                continue
            state = colour.get(following, 0)
            if state == 1:
                return (*path[path.index(following):], following)
            if state == 0:
                colour[following] = 1
                path.append(following)
                iterators.append(iter(in_place.get(following, ())))
    return None


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
        elif key in kw.SINGLE or key in kw.LIST:
            merged = as_schema(value)
            if key == "allOf" and "allOf" in out:
                merged = [*merged, *out["allOf"]]
            out[key] = merged
        elif key in kw.MAP and isinstance(value, dict):
            out[key] = {name: as_schema(v) for name, v in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out
