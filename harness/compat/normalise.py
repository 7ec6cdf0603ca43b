"""One schema version, made ready to compare: expanded, canonical, with its content models.

The *canonical tree* is the expanded schema (local references inlined, dialect pinned to
2020-12, :mod:`harness.schemas.resolve`) with everything that cannot change validation taken
out and everything order-insensitive put in order, so that two versions differ exactly where
their meaning may differ:

- annotations (``title``, ``description``, ``examples``, ``$comment``, ``x-*`` ...) dropped;
- ``true`` written as ``{}``; ``type`` as a sorted list; ``enum``, ``required`` and
  ``dependentRequired`` lists sorted and de-duplicated (JSON equality: ``1 == 1.0``, ``true != 1``);
- where a ``$ref`` was expanded, the reference as written is kept as ``"$ref.target"`` so a
  changed target is itself a difference.

Unknown keywords stay (a change to one is ``unsupported``) and are listed with the constructs
the expansion could not model. Every object node gets a *content model*: ``closed`` (no name
beyond the declared ones), ``partially open`` (more names, constrained by
``patternProperties``, ``propertyNames`` or a schema-valued ``additionalProperties`` /
``unevaluatedProperties``) or ``open``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.boundary.validator import SchemaValidator, validator_for
from harness.pointer import join
from harness.schemas import keywords as kw
from harness.schemas.dialects import OBJECT_KEYWORDS
from harness.schemas.resolve import Expanded, Location, expand

REF_TARGET = "$ref.target"
CLOSED, PARTIALLY_OPEN, OPEN = "closed", "partially open", "open"


def json_key(value: Any) -> str:
    """A string equal for JSON-equal values: numbers by value, booleans apart from numbers."""
    return json.dumps(_plain(value), sort_keys=True, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() and abs(value) < 2**53 else value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def unique_sorted(values: Iterable[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(json_key(value), value)
    return [seen[k] for k in sorted(seen)]


@dataclass(frozen=True, slots=True)
class Unsupported:
    """A pointer whose meaning the classifier does not model."""

    pointer: str
    keyword: str
    reason: str
    location: Location


@dataclass(frozen=True)
class Side:
    """One version of a schema, ready to compare."""

    label: str
    raw: Any
    expanded: Expanded
    tree: Any
    validator: SchemaValidator
    sha256: str
    schema_id: str | None
    file: str | None
    unsupported: tuple[Unsupported, ...]
    models: Mapping[str, str] = field(repr=False)

    @property
    def dialect(self) -> str:
        return self.expanded.dialect

    def location(self, pointer: str) -> Location:
        return self.expanded.origin(pointer)


def content_model(node: Any) -> str | None:
    """``closed``, ``partially open`` or ``open`` for a node that describes objects, else None."""
    if not isinstance(node, dict):
        return None
    types = node.get("type")
    if types is not None and "object" not in types:
        return None
    if not (OBJECT_KEYWORDS & set(node)) and types != ["object"]:
        return None
    closure = node.get("additionalProperties", node.get("unevaluatedProperties", True))
    if "additionalProperties" in node and "unevaluatedProperties" in node:
        closure = node["additionalProperties"]
    if closure is False and not node.get("patternProperties"):
        return CLOSED
    if closure is True and "propertyNames" not in node and not node.get("patternProperties"):
        return OPEN
    return PARTIALLY_OPEN


class _Canonicaliser:
    def __init__(self, expanded: Expanded) -> None:
        self.expanded = expanded
        self.unknown: list[Unsupported] = []
        self.models: dict[str, str] = {}

    def node(self, node: Any, pointer: str) -> Any:
        if node is True:
            return {}  # one spelling for "anything": a change to or from it is a keyword diff
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if kw.is_annotation(key):
                continue
            if kw.holds(key, value) is not None:
                out[key] = kw.map_held(key, value, lambda sub, tokens: self.node(sub, pointer + join(tokens)))
            elif key in ("enum", "required") and isinstance(value, list):
                out[key] = unique_sorted(value)
            elif key == "type":
                out[key] = sorted(set(value if isinstance(value, list) else [value]))
            elif key == "dependentRequired" and isinstance(value, dict):
                out[key] = {n: unique_sorted(v) if isinstance(v, list) else v for n, v in value.items()}
            else:
                if not kw.is_known(key):
                    self.unknown.append(Unsupported(
                        pointer, key, f"unknown keyword {key!r}{kw.did_you_mean(key)}: its meaning is not modelled",
                        self.expanded.origin(pointer),
                    ))
                out[key] = value
        if pointer in self.expanded.refs:
            out[REF_TARGET] = self.expanded.refs[pointer]
        model = content_model(out)
        if model is not None:
            self.models[pointer] = model
        return out


def schema_digest(raw_bytes: bytes | None, schema: Any) -> str:
    data = raw_bytes if raw_bytes is not None else json.dumps(schema, sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def prepare(
    schema: Any,
    *,
    label: str,
    validator: SchemaValidator | None = None,
    base_uri: str | None = None,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    raw_bytes: bytes | None = None,
    file: str | None = None,
) -> Side:
    """Expand, canonicalise and model one schema version."""
    items = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
    expanded = expand(schema, base_uri=base_uri, resources=items)
    canonicaliser = _Canonicaliser(expanded)
    tree = canonicaliser.node(expanded.schema, "")
    unsupported = [
        Unsupported(u.pointer, u.keyword, u.reason, u.location) for u in expanded.unmodelled
    ] + canonicaliser.unknown
    return Side(
        label=label,
        raw=schema,
        expanded=expanded,
        tree=tree,
        validator=validator or validator_for(schema, resources=items, base_uri=base_uri),
        sha256=schema_digest(raw_bytes, schema),
        schema_id=schema.get("$id") if isinstance(schema, dict) else None,
        file=file,
        unsupported=tuple(unsupported),
        models=canonicaliser.models,
    )
