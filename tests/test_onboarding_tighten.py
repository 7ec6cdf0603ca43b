"""``--strict``: the tightened copy closes objects, keeps composition working, bounds from examples."""

from __future__ import annotations

from typing import Any

from harness import validator_for
from harness.onboarding.tighten import MAX_SAFE_INTEGER, MIN_LENGTH, UNSEEN_LENGTH, tighten

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def test_declared_objects_are_closed_and_strings_bounded_from_the_examples() -> None:
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "note": {"type": "string"}}}
    result = tighten(schema, [{"name": "x" * 100}])
    assert result.schema["additionalProperties"] is False
    assert result.schema["properties"]["name"]["maxLength"] == 512  # next power of two >= 4 x 100
    assert result.schema["properties"]["note"]["maxLength"] == UNSEEN_LENGTH
    assert result.closed == ("/",)
    assert schema == {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "note": {"type": "string"}}}


def test_nothing_already_stated_is_changed() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}, "additionalProperties": {"type": "integer"}}
    result = tighten(schema, [{"a": "abc", "b": 1}])
    assert result.schema == {**schema, "additionalProperties": {"type": "integer", "maximum": MAX_SAFE_INTEGER, "minimum": 0}}
    assert result.left_open == ()
    assert result.closed == ()


def test_allof_composition_is_closed_at_the_composing_node_so_siblings_stay_valid() -> None:
    schema = {
        "$schema": DRAFT_07,
        "definitions": {"base": {"type": "object", "properties": {"id": {"type": "integer"}}}},
        "allOf": [{"$ref": "#/definitions/base"}, {"type": "object", "properties": {"name": {"type": "string"}}}],
    }
    document = {"id": 1, "name": "ada"}
    result = tighten(schema, [document])
    validator = validator_for(result.schema)
    assert validator.is_valid(document)
    assert not validator.is_valid({**document, "extra": True})
    assert "additionalProperties" not in result.schema["definitions"]["base"]
    assert result.schema["additionalProperties"] is False


def test_oneof_alternatives_of_a_bare_node_are_closed_one_by_one() -> None:
    schema = {"oneOf": [{"type": "object", "required": ["a"], "properties": {"a": {"const": 1}}},
                        {"type": "object", "required": ["b"], "properties": {"b": {"const": 2}}}]}
    validator = validator_for(tighten(schema, []).schema)
    assert validator.is_valid({"a": 1}) and validator.is_valid({"b": 2})
    assert not validator.is_valid({"a": 1, "c": 3})


def test_alternatives_of_a_node_with_its_own_members_are_closed_with_the_union() -> None:
    schema = {"type": "object", "properties": {"kind": {"type": "string"}},
              "oneOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                        {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}
    validator = validator_for(tighten(schema, [{"kind": "x", "a": 1}]).schema)
    assert validator.is_valid({"kind": "x", "a": 1})
    assert validator.is_valid({"kind": "y", "b": 2})
    assert not validator.is_valid({"kind": "x", "a": 1, "other": 0})


def test_free_form_objects_are_left_open_and_listed() -> None:
    result = tighten({"type": "object", "properties": {"labels": {"type": "object"}}}, [])
    assert result.left_open == (("/properties/labels", "it declares no members (a free-form object)"),)


def test_integers_get_the_interoperable_maximum_and_a_floor_only_when_observed_non_negative() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"count": {"type": "integer"}, "delta": {"type": "integer"}}}
    result = tighten(schema, [{"count": 3, "delta": -2}])
    count, delta = result.schema["properties"]["count"], result.schema["properties"]["delta"]
    assert count == {"type": "integer", "maximum": MAX_SAFE_INTEGER, "minimum": 0}
    assert delta == {"type": "integer", "maximum": MAX_SAFE_INTEGER}


def test_identifiers_seen_non_empty_must_stay_non_empty() -> None:
    schema = {"type": "object", "properties": {"node_id": {"type": "string"}, "gravatar_id": {"type": "string"}, "title": {"type": "string"}}}
    props = tighten(schema, [{"node_id": "MDQ6", "gravatar_id": "", "title": "x"}]).schema["properties"]
    assert props["node_id"]["minLength"] == 1
    assert "minLength" not in props["gravatar_id"]
    assert "minLength" not in props["title"]
    assert props["title"]["maxLength"] == MIN_LENGTH


def test_observations_follow_refs_and_items_to_the_node_that_describes_them() -> None:
    schema = {"type": "array", "items": {"$ref": "#/$defs/tag"}, "$defs": {"tag": {"type": "string"}}}
    result = tighten(schema, [["a" * 300, "b"], []])
    assert result.schema["$defs"]["tag"]["maxLength"] == 2048
    assert result.schema["maxItems"] == 32


def test_the_id_is_dropped_so_two_versions_can_live_side_by_side() -> None:
    result = tighten({"$id": "urn:example:thing", "type": "string"}, ["x"])
    assert "$id" not in result.schema
    assert result.notes


def test_in_2020_12_composed_nodes_are_closed_with_unevaluated_properties() -> None:
    schema = {"allOf": [{"$ref": "#/$defs/base"}], "properties": {"name": {"type": "string"}},
              "$defs": {"base": {"type": "object", "properties": {"id": {"type": "integer"}}}}}
    result = tighten(schema, [])
    assert result.schema["unevaluatedProperties"] is False
    assert "additionalProperties" not in result.schema and "id" not in result.schema["properties"]
    validator = validator_for(result.schema)
    assert validator.is_valid({"id": 1, "name": "x"}) and not validator.is_valid({"id": 1, "other": 2})


def test_strings_are_bounded_from_the_examples_below_pattern_properties_and_dependent_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {"card": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "dependentSchemas": {"card": {"properties": {"billing": {"type": "string"}}}},
    }
    document = {"card": "4111", "x-trace": "t" * 100, "billing": "b" * 70}
    result = tighten(schema, [document])
    assert result.schema["patternProperties"]["^x-"]["maxLength"] == 512  # 4 x 100, as for a declared member
    assert result.schema["dependentSchemas"]["card"]["properties"]["billing"]["maxLength"] == 512  # 4 x 70
    assert result.schema["properties"]["card"]["maxLength"] == MIN_LENGTH
