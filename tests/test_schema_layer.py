from __future__ import annotations

import pytest

from harness import ContractError, validator_for


def test_violation_names_keyword_and_both_pointers() -> None:
    v = validator_for(
        {"type": "object", "properties": {"data": {"$ref": "#/$defs/d"}},
         "$defs": {"d": {"type": "object", "additionalProperties": False}}}
    )
    found = v.first_violation({"data": {"debug": "CANARY-1"}})
    assert found is not None
    assert found.code == "schema.additionalProperties"
    assert found.instance_pointer == "/data"
    assert found.schema_pointer == "/$defs/d/additionalProperties"
    assert found.evaluation_pointer == "/properties/data/$ref/additionalProperties"


def test_instance_values_are_masked_in_messages() -> None:
    v = validator_for({"properties": {"a": {"type": "integer"}, "b": {"format": "date-time"}}})
    for doc in ({"a": "SECRET-TOKEN-1"}, {"b": "SECRET-TOKEN-1"}):
        found = v.first_violation(doc)
        assert found is not None and "SECRET-TOKEN-1" not in found.message


def test_format_asserts_by_default() -> None:
    v = validator_for({"type": "string", "format": "date-time"})
    assert not v.is_valid("yesterday")
    assert v.first_violation("yesterday").code == "schema.format"  # type: ignore[union-attr]
    assert validator_for({"format": "date-time"}, assert_formats=False).is_valid("yesterday")


def test_oneof_envelope_reports_the_error_inside_the_matching_branch() -> None:
    schema = {
        "oneOf": [
            {"properties": {"outcome": {"const": "success"}, "data": {"type": "object", "additionalProperties": False}},
             "required": ["outcome"], "additionalProperties": False},
            {"properties": {"outcome": {"const": "failure"}}, "required": ["outcome"], "additionalProperties": False},
        ]
    }
    found = validator_for(schema).first_violation({"outcome": "success", "data": {"x": 1}})
    assert found is not None
    assert (found.code, found.instance_pointer) == ("schema.additionalProperties", "/data")


def test_oneof_without_a_matching_branch_stays_oneof() -> None:
    schema = {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert validator_for(schema).first_violation({}).code == "schema.oneOf"  # type: ignore[union-attr]


def test_draft07_schema_is_validated_with_draft07_semantics() -> None:
    # In draft-07, $ref overrides its siblings; in 2020-12 both apply.
    schema = {"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 2}
    assert not validator_for(schema).is_valid("abc")
    draft7 = validator_for({"$schema": "http://json-schema.org/draft-07/schema#", **schema})
    assert draft7.dialect == "draft-07"
    assert draft7.is_valid("abc")


def test_remote_ref_is_a_contract_error_never_a_fetch() -> None:
    with pytest.raises(ContractError) as info:
        validator_for({"$ref": "https://example.com/schema.json"})
    assert info.value.code == "contract.remote_ref"
    assert "never the network" in str(info.value)


def test_refs_resolve_against_the_resources_given() -> None:
    v = validator_for(
        {"$ref": "urn:contract:common#/$defs/id"},
        resources={"urn:contract:common": {"$defs": {"id": {"type": "string", "maxLength": 3}}}},
    )
    assert v.is_valid("abc") and not v.is_valid("abcd")


def test_unknown_dialect_lists_the_known_ones() -> None:
    with pytest.raises(ContractError) as info:
        validator_for({"$schema": "https://example.com/my-dialect"})
    assert info.value.code == "contract.unknown_dialect"
    assert "draft/2020-12" in str(info.value)


def test_invalid_schema_is_a_contract_error() -> None:
    with pytest.raises(ContractError) as info:
        validator_for({"type": 5})
    assert info.value.code == "contract.invalid_schema"
