"""A first schema for a tool that publishes none, drafted from its sampled results.

Most MCP servers declare no ``outputSchema``. From the results an import sampled, a schema is
drafted with drift's own shape model (:func:`harness.drift.shape.document_shape`, merged over
the samples: the types seen at each location, the members present in every sample), written
as Draft 2020-12 (members in the order the first sample has them; an integer seen beside a
number is a number), then tightened from the same samples as ``--strict`` tightens a published
schema (:func:`harness.onboarding.tighten.tighten`: objects closed, strings and arrays bounded).
It says what the samples showed, no more: a reviewer widens what may vary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.drift.shape import WILDCARD, Shape, document_shape, json_type, last_token, merge_all, parent_of
from harness.onboarding.tighten import tighten
from harness.pointer import escape_token, unescape_token

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")


def infer_schema(documents: Sequence[Any]) -> dict[str, Any]:
    """A tightened Draft 2020-12 schema every one of ``documents`` (at least one) is valid under."""
    shape = merge_all(document_shape(document) for document in documents)
    assert shape is not None, "infer_schema needs at least one document"
    order: dict[str, int] = {}
    for document in documents:
        _order(document, "", order)
    schema = {"$schema": DIALECT, **_node(shape, "", order)}
    return dict(tighten(schema, documents).schema)


def _order(document: Any, path: str, order: dict[str, int]) -> None:
    order.setdefault(path, len(order))
    if isinstance(document, dict):
        for key, value in document.items():
            _order(value, f"{path}/{escape_token(key)}", order)
    elif isinstance(document, list):
        for item in document:
            _order(item, f"{path}/{WILDCARD}", order)


def _node(shape: Shape, path: str, order: dict[str, int]) -> dict[str, Any]:
    types = set(shape.types.get(path, ()))
    if {"integer", "number"} <= types:
        types.discard("integer")
    node: dict[str, Any] = {}
    listed = [t for t in _ORDER if t in types]
    if listed:
        node["type"] = listed[0] if len(listed) == 1 else listed
    if "object" in types:
        members = sorted((p for p in shape.types if p and parent_of(p) == path and last_token(p) != WILDCARD),
                         key=lambda p: order.get(p, len(order)))
        node["properties"] = {unescape_token(last_token(p)): _node(shape, p, order) for p in members}
        required = [unescape_token(last_token(p)) for p in members if p in shape.required]
        if required:
            node["required"] = required
    if "array" in types and f"{path}/{WILDCARD}" in shape.types:
        node["items"] = _node(shape, f"{path}/{WILDCARD}", order)
    return node


def result_kind(document: Any) -> str:
    """The JSON type of a parsed result, for summaries (``object``, ``string``, ...)."""
    return json_type(document)
