"""Shape fingerprints: what a tool result looks like, without its values.

A :class:`Shape` records, per *location* — a JSON pointer in which ``*`` stands for every array
item (and every value of a free-form map) — the JSON types seen there, which members occur
whenever their parent object does (``required``), and, at enum-like locations, the values
seen. Shapes come from documents (a live response, each historical fixture) or from a JSON
Schema read through the schema model (an MCP server's advertised ``outputSchema``, the
contract's schema; draft-07 and 2020-12), and they merge: several samples into one baseline, ``oneOf`` branches into one
schema shape. :mod:`harness.drift.diff` compares two shapes.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.pointer import escape_token
from harness.schemas import Document, Node, dialects

ANY = "any"
WILDCARD = "*"
#: Values kept per enum-like location; more would make a fingerprint a copy of the data.
MAX_ENUM_VALUES = 64
_MAX_SCHEMA_DEPTH = 48


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def encode_value(value: Any) -> str:
    """An enum value as it appears in reports: its JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def parent_of(path: str) -> str:
    return path.rsplit("/", 1)[0]


def last_token(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class Shape:
    """Locations with their types, the always-present members, and enum values seen."""

    types: Mapping[str, frozenset[str]]
    required: frozenset[str] = frozenset()
    enums: Mapping[str, frozenset[str]] = field(default_factory=dict)
    samples: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "types": {p: sorted(t) for p, t in sorted(self.types.items())},
            "required": sorted(self.required),
            "enums": {p: sorted(v) for p, v in sorted(self.enums.items())},
            "samples": self.samples,
        }

    @property
    def digest(self) -> str:
        """Same digest, same shape (the sample count aside)."""
        data = self.to_dict()
        del data["samples"]
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def view(self) -> dict[str, Any]:
        """What :mod:`harness.drift.diff` hands to deepdiff."""
        return {"types": dict(self.types), "required": self.required, "enums": dict(self.enums)}

    def merge(self, other: Shape) -> Shape:
        """Both shapes as one baseline: types and values united; a member is required when it
        is present in each shape wherever its parent object is."""
        return _union(self, other, observed=True)


def merge_all(shapes: Iterable[Shape]) -> Shape | None:
    merged: Shape | None = None
    for shape in shapes:
        merged = shape if merged is None else merged.merge(shape)
    return merged


def _ok_in(shape: Shape, path: str) -> bool:
    """``path`` does not contradict being required in ``shape``."""
    if path in shape.required:
        return True
    return path not in shape.types and parent_of(path) not in shape.types


def _union(a: Shape, b: Shape, *, observed: bool) -> Shape:
    types: dict[str, frozenset[str]] = {}
    for path in a.types.keys() | b.types.keys():
        joined = a.types.get(path, frozenset()) | b.types.get(path, frozenset())
        types[path] = frozenset({ANY}) if ANY in joined else joined
    required = frozenset(p for p in types if p and _ok_in(a, p) and _ok_in(b, p))
    enums: dict[str, frozenset[str]] = {}
    for path in a.enums.keys() | b.enums.keys():
        if not observed and path in a.types and path in b.types and (path not in a.enums or path not in b.enums):
            continue  # a schema branch without the enum allows any value there
        values = a.enums.get(path, frozenset()) | b.enums.get(path, frozenset())
        enums[path] = frozenset(sorted(values)[:MAX_ENUM_VALUES])
    return Shape(types, required, enums, a.samples + b.samples if observed else 1)


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True, slots=True)
class Hints:
    """Where a document's values are enum-like, and which objects are free-form maps (their
    keys are data, collapsed to ``*``). Derived from the schema the document is judged by."""

    enum_paths: frozenset[str] = frozenset()
    map_paths: frozenset[str] = frozenset()

    @classmethod
    def from_schema(cls, schema: Document | Any, extra_enums: Iterable[str] = ()) -> Hints:
        shape = schema_shape(schema)
        maps = frozenset(
            parent_of(p)
            for p in shape.types
            if last_token(p) == WILDCARD and "object" in shape.types.get(parent_of(p), ())
        )
        return cls(frozenset(shape.enums) | frozenset(extra_enums), maps)


def document_shape(document: Any, hints: Hints = Hints()) -> Shape:
    """The shape of one parsed document."""
    types: dict[str, set[str]] = {}
    counts: Counter[str] = Counter()
    objects: Counter[str] = Counter()
    enums: dict[str, set[str]] = {}
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, node = stack.pop()
        kind = json_type(node)
        types.setdefault(path, set()).add(kind)
        counts[path] += 1
        if path in hints.enum_paths and kind not in ("object", "array"):
            seen = enums.setdefault(path, set())
            if len(seen) < MAX_ENUM_VALUES:
                seen.add(encode_value(node))
        if kind == "object":
            objects[path] += 1
            collapse = path in hints.map_paths
            stack.extend(
                (f"{path}/{WILDCARD if collapse else escape_token(key)}", value) for key, value in node.items()
            )
        elif kind == "array":
            stack.extend((f"{path}/{WILDCARD}", item) for item in node)
    required = frozenset(p for p in types if p and last_token(p) != WILDCARD and counts[p] == objects[parent_of(p)])
    return Shape(
        {p: frozenset(t) for p, t in types.items()},
        required,
        {p: frozenset(v) for p, v in enums.items()},
    )


# --------------------------------------------------------------------------- schemas


def schema_dialect(schema: Any) -> str:
    """The dialect ``schema`` declares (``2020-12`` when it declares none, or one unknown)."""
    return dialects.detect(schema)[0]


def schema_shape(schema: Document | Any) -> Shape:
    """The shape a JSON Schema (or its model) promises: the locations it describes, their
    types, the members it requires, and its ``enum``/``const`` values. References are followed
    as the schema model resolves them (once on each path: a recursive one promises nothing
    more); ``if``/``then``/``else``, ``not`` and references the model cannot follow promise
    nothing here."""
    document = schema if isinstance(schema, Document) else Document(schema)
    return _SchemaWalker().walk(document.root, "", 0, ())


class _SchemaWalker:
    def walk(self, node: Node | None, path: str, depth: int, refs: tuple[Node, ...]) -> Shape:
        schema = True if node is None else node.schema
        if schema is True or schema == {} or depth > _MAX_SCHEMA_DEPTH:
            return Shape({path: frozenset({ANY})})
        if schema is False or not isinstance(schema, dict) or node is None:
            return Shape({path: frozenset()})
        document = node.document
        parts: list[Shape] = []
        ref = document.reference(node)
        if ref is not None:
            target = ref.target
            if target is None or target in refs:
                parts.append(Shape({path: frozenset({ANY})}))
            else:
                parts.append(self.walk(target, path, depth + 1, (*refs, target)))
            if document.ref_overrides:
                return parts[0]
        parts.append(self._own(node, path, depth, refs))
        for branch in document.kids(node, "allOf"):
            parts.append(self.walk(branch, path, depth + 1, refs))
        for keyword in ("oneOf", "anyOf"):
            branches = document.kids(node, keyword)
            if branches:
                parts.append(_union_all(self.walk(b, path, depth + 1, refs) for b in branches))
        result = parts[0]
        for part in parts[1:]:
            result = _intersect(result, part)
        return result

    def _own(self, node: Node, path: str, depth: int, refs: tuple[Node, ...]) -> Shape:
        document = node.document
        types: dict[str, frozenset[str]] = {path: _declared_types(node)}
        required: set[str] = set()
        enums: dict[str, frozenset[str]] = {}
        values = _enum_values(node)
        if values is not None:
            enums[path] = frozenset(encode_value(v) for v in values[:MAX_ENUM_VALUES])
        children: list[Shape] = []
        for member in document.kids(node, "properties"):
            if member.schema is not False and member.key is not None:
                children.append(self.walk(member, f"{path}/{escape_token(member.key)}", depth + 1, refs))
        names = node.get("required")
        if isinstance(names, list):
            for name in names:
                if isinstance(name, str):
                    child = f"{path}/{escape_token(name)}"
                    required.add(child)
                    types.setdefault(child, frozenset({ANY}))
        maps = [k for k in document.kids(node, "additionalProperties") if isinstance(k.schema, dict)]
        maps += [k for k in document.kids(node, "patternProperties") if k.schema is not False]
        items = [k for key in ("items", "prefixItems", "additionalItems") for k in document.kids(node, key)
                 if k.schema is not False]
        for group in (maps, items):
            if group:
                children.append(_union_all(self.walk(s, f"{path}/{WILDCARD}", depth + 1, refs) for s in group))
        for part in children:
            for p, t in part.types.items():
                types[p] = types[p] & t if p in types and ANY not in types[p] else t
            required |= part.required
            enums.update(part.enums)
        return Shape(types, frozenset(required), enums)


def _declared_types(node: Node) -> frozenset[str]:
    declared = node.types
    if declared:
        return declared
    values = _enum_values(node)
    if values is not None:
        return frozenset(json_type(v) for v in values)
    return frozenset({ANY})


def _enum_values(node: Node) -> list[Any] | None:
    if node.has("const"):
        return [node.raw["const"]]
    if isinstance(node.get("enum"), list):
        return list(node.raw["enum"])
    return None


def _union_all(shapes: Iterable[Shape]) -> Shape:
    result: Shape | None = None
    for shape in shapes:
        result = shape if result is None else _union(result, shape, observed=False)
    assert result is not None
    return result


def _covers(types: frozenset[str], kind: str) -> bool:
    return ANY in types or kind in types or (kind == "integer" and "number" in types)


def _intersect(a: Shape, b: Shape) -> Shape:
    """Both schemas at once (``allOf``, a node's own keywords with its ``oneOf``)."""
    types: dict[str, frozenset[str]] = {}
    for path in a.types.keys() | b.types.keys():
        if path not in a.types or path not in b.types:
            types[path] = a.types.get(path) or b.types.get(path) or frozenset()
            continue
        ta, tb = a.types[path], b.types[path]
        if ANY in ta:
            types[path] = tb
        elif ANY in tb:
            types[path] = ta
        else:
            types[path] = frozenset({t for t in ta if _covers(tb, t)} | {t for t in tb if _covers(ta, t)})
    enums: dict[str, frozenset[str]] = {}
    for path in a.enums.keys() | b.enums.keys():
        if path in a.enums and path in b.enums:
            enums[path] = a.enums[path] & b.enums[path]
        else:
            enums[path] = a.enums.get(path) or b.enums[path]
    return Shape(types, a.required | b.required, enums)


def covers(types: frozenset[str], kind: str) -> bool:
    """Whether a location typed ``types`` admits a value of JSON type ``kind``."""
    return _covers(types, kind)
