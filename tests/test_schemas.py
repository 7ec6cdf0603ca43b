"""harness.schemas: expansion, lowering for hypothesis-jsonschema, re-validated generation."""

from __future__ import annotations

from harness import validator_for
from harness.fuzz.generate import GenerationStats, from_schema, lower, sample
from harness.schemas import expand

S = "https://json-schema.org/draft/2020-12/schema"
D7 = "http://json-schema.org/draft-07/schema#"


def test_local_refs_are_inlined_and_remember_where_they_were_written() -> None:
    schema = {"$schema": S, "properties": {"a": {"$ref": "#/$defs/name"}}, "$defs": {"name": {"maxLength": 3}}}
    expanded = expand(schema)
    assert expanded.schema == {"properties": {"a": {"maxLength": 3}}}
    assert expanded.origin("/properties/a").pointer == "/$defs/name"
    assert expanded.refs == {"/properties/a": "#/$defs/name"} and expanded.exact


def test_draft07_spellings_are_pinned_to_2020_12() -> None:
    schema = {"$schema": D7, "items": [{"type": "string"}], "additionalItems": False,
              "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "$ref": "#/definitions/x",
              "definitions": {"x": {"type": "array"}}}
    assert expand(schema).schema == {"type": "array"}  # draft-07: $ref ignores its siblings
    del schema["$ref"]
    assert expand(schema).schema == {"prefixItems": [{"type": "string"}], "items": False,
                                     "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}}


def test_recursive_and_dynamic_references_are_kept_and_reported() -> None:
    expanded = expand({"$schema": S, "properties": {"child": {"$ref": "#"}, "x": {"$dynamicRef": "#n"}}})
    assert {u.keyword for u in expanded.unmodelled} == {"$ref", "$dynamicRef"}
    assert not expanded.exact


def test_unevaluated_properties_closed_object_is_lowered_exactly() -> None:
    schema = {"$schema": S, "type": "object", "properties": {"a": {"type": "string"}},
              "allOf": [{"properties": {"b": {"type": "integer"}}}], "unevaluatedProperties": False}
    lowered = lower(schema)
    assert lowered.exact and lowered.schema["additionalProperties"] is False
    assert lowered.schema["properties"] == {"a": {"type": "string"}, "b": True}
    stats = GenerationStats()
    values = sample(from_schema(schema, stats=stats), 30)
    assert values and stats.discarded == 0  # every generated object is closed as 2020-12 says
    assert all(set(v) <= {"a", "b"} for v in values)


def test_unevaluated_properties_fed_by_conditional_branches_is_reported_inexact() -> None:
    schema = {"$schema": S, "anyOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False}
    lowered = lower(schema)
    assert not lowered.exact and ("", "unevaluatedProperties") in lowered.inexact


def test_prefix_items_and_dependent_required_are_lowered() -> None:
    lowered = lower({"$schema": S, "prefixItems": [{"const": 1}], "items": False, "dependentRequired": {"a": ["b"]}})
    assert lowered.schema == {"$schema": D7, "items": [{"const": 1}], "additionalItems": False,
                              "dependencies": {"a": ["b"]}}


def test_generated_values_are_revalidated_and_discards_counted() -> None:
    # hypothesis-jsonschema ignores minContains: some generated arrays are discarded.
    schema = {"$schema": S, "type": "array", "contains": {"const": 1}, "minContains": 2, "maxItems": 4}
    stats = GenerationStats()
    values = sample(from_schema(schema, stats=stats), 20)
    check = validator_for(schema)
    assert values and all(check.is_valid(v) for v in values)
    assert stats.generated == stats.valid + stats.discarded and stats.valid == len(values)
