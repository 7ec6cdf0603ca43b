"""harness.fuzz.generate: exact-length strings, boundary values, and the compiled generator."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import validator_for
from harness.fuzz.generate import GenerationStats, from_schema, sample
from harness.fuzz.generate.compile import _strings, compile_strategy
from harness.fuzz.generate.edges import edges
from harness.fuzz.generate.formats import DATE_TIMES, FORMATS
from harness.fuzz.generate.lower import lower
from harness.fuzz.generate.regex import exact_length
from harness.schemas import Document

S = "https://json-schema.org/draft/2020-12/schema"
CHANGE_ID = "^CR-[0-9]{1,10}$"
REQUEST_ID = "^[A-Za-z0-9][A-Za-z0-9_.]{7,63}$"


@pytest.mark.parametrize(("pattern", "length"), [
    (CHANGE_ID, 13), (CHANGE_ID, 4), (REQUEST_ID, 64), (REQUEST_ID, 8), ("^run_[A-Za-z0-9]{12,48}$", 52),
    ("^(ab|c)+$", 7), (r"^\d+(\.\d+)?$", 6), ("ab", 5), ("^[^a-z]{3}$", 3), (None, 40),
])
def test_exact_length_strings_have_that_length_and_match_the_pattern(pattern: str | None, length: int) -> None:
    strategy = exact_length(pattern, length)
    assert strategy is not None
    values = sample(strategy, 25)
    assert values and all(len(v) == length for v in values)
    assert pattern is None or all(re.search(pattern, v) for v in values)


@pytest.mark.parametrize(("pattern", "length"), [
    ("^x$", 2),                  # unreachable length
    ("(?=a)b", 3),               # look-ahead: outside the modelled subset
    (r"^(a)\1$", 2),             # back-reference
    ("^(?i)abc$", 3),            # inline flags
    (CHANGE_ID, 5000),           # past MAX_LENGTH
])
def test_exact_length_declines_what_it_cannot_model(pattern: str, length: int) -> None:
    assert exact_length(pattern, length) is None


REVIEW = {
    "$schema": S, "type": "object", "required": ["change_id", "decision", "score", "tags"],
    "properties": {
        "change_id": {"type": "string", "pattern": CHANGE_ID, "maxLength": 13},
        "decision": {"enum": ["approved", "rejected", "pending"]},
        "score": {"type": "integer", "minimum": 1, "exclusiveMaximum": 100},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}, "maxItems": 3},
    },
    "additionalProperties": False,
}


def test_edges_name_the_boundary_values_of_each_value() -> None:
    document = {"change_id": "CR-1", "decision": "rejected", "score": 50, "tags": ["a"]}
    sites = {site.pointer: site.kinds for site in edges(Document(REVIEW), document)}
    assert sites["/change_id"] == ("length",)              # exact maxLength (13) under the pattern
    assert sites["/decision"] == ("enum", "enum")           # first and last members
    assert sites["/score"] == ("range", "range")            # minimum 1, exclusiveMaximum 100 -> 99
    assert sites["/tags"] == ("items",)                     # exactly maxItems
    assert sites["/tags/0"] == ("length",)                  # maxLength 4 (no minLength: no edge)


def test_boundary_values_reach_the_edges_a_random_search_misses() -> None:
    stats = GenerationStats()
    values = sample(from_schema(REVIEW, stats=stats, boundary_values=True, compiled=True), 150)
    check = validator_for(REVIEW)
    assert all(check.is_valid(v) for v in values)
    assert any(len(v["change_id"]) == 13 for v in values)
    assert {v["score"] for v in values} >= {1, 99}
    assert any(len(v["tags"]) == 3 for v in values)
    assert stats.boundary > 0 and stats.discarded == 0


def test_without_boundary_values_the_longest_identifier_is_rare() -> None:
    """The twin of the test above: what the edges add (not a timing, a count)."""
    values = sample(from_schema(REVIEW, compiled=True), 150)
    assert sum(len(v["change_id"]) == 13 for v in values) < sum(len(v["change_id"]) < 13 for v in values)


def test_a_boundary_value_the_whole_schema_refuses_falls_back_to_the_generated_document() -> None:
    # uniqueItems: stretching the array to maxItems repeats its items, which the schema refuses.
    schema = {"$schema": S, "type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3, "uniqueItems": True}
    stats = GenerationStats()
    values = sample(from_schema(schema, stats=stats, boundary_values=True), 80)
    assert all(len(set(v)) == len(v) for v in values)
    assert stats.boundary_invalid > 0


COMPILED_CASES = {
    "closed object": REVIEW,
    "overlapping oneOf": {"$schema": S, "type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                          "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
    "prefixItems": {"$schema": S, "type": "array", "prefixItems": [{"const": "x"}, {"type": "integer"}],
                    "items": {"type": "boolean"}, "maxItems": 4},
    "open object with a $ref": {"$schema": S, "type": "object", "required": ["a"],
                                "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string", "minLength": 2}}},
    "unmodelled keywords fall back": {"$schema": S, "type": "object", "patternProperties": {"^x-": {"type": "integer"}},
                                      "propertyNames": {"maxLength": 5}, "minProperties": 1},
    "unevaluatedProperties": {"$schema": S, "type": "object", "properties": {"a": {"type": "string"}},
                              "allOf": [{"properties": {"b": {"type": "integer"}}}], "unevaluatedProperties": False},
}


@pytest.mark.parametrize("name", sorted(COMPILED_CASES))
def test_compiled_strategies_generate_only_valid_documents(name: str) -> None:
    schema = COMPILED_CASES[name]
    stats = GenerationStats()
    values = sample(from_schema(schema, stats=stats, compiled=True), 60)
    check = validator_for(schema)
    assert values and all(check.is_valid(v) for v in values)
    assert stats.discard_rate == 0.0


def test_compiled_open_objects_get_extra_members() -> None:
    schema = {"$schema": S, "type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}
    values = sample(from_schema(schema, compiled=True), 80)
    assert any(set(v) - {"a"} for v in values)


def test_identical_subschemas_share_one_compiled_strategy() -> None:
    user = {"type": "object", "required": ["login"], "properties": {"login": {"type": "string"}}}
    schema = {"type": "object", "properties": {"author": user, "merged_by": user}, "additionalProperties": False}
    strategy = compile_strategy(lower(schema).schema)
    assert sample(strategy, 5)


@settings(max_examples=30, derandomize=True, database=None, deadline=None)
@given(st.sampled_from(sorted(COMPILED_CASES)), st.data())
def test_generated_documents_round_trip_through_json(name: str, data: st.DataObject) -> None:
    value = data.draw(from_schema(COMPILED_CASES[name], compiled=True, boundary_values=True))
    assert json.loads(json.dumps(value)) == value


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_formats_drawn_directly_are_valid_under_the_production_validator(name: str) -> None:
    # Nullable, annotated, with length bounds: the shape of GitHub's ``*_url`` members.
    schema = {"$schema": S, "type": ["string", "null"], "format": name, "description": "a value",
              "minLength": 4, "maxLength": 80}
    stats = GenerationStats()
    values = sample(from_schema(schema, stats=stats, compiled=True), 200)
    check = validator_for(schema)
    strings = [v for v in values if isinstance(v, str)]
    assert len(strings) > 50 and all(check.is_valid(v) for v in values)
    assert len(set(strings)) > 40  # a space, not a handful of constants
    assert stats.discard_rate < 0.05


def test_a_format_with_a_keyword_it_does_not_model_goes_to_hypothesis_jsonschema() -> None:
    schema = {"type": "string", "format": "uri", "not": {"const": "https://a.io"}}
    assert _strings(schema) is None
    assert _strings({"type": "string", "format": "uuid"}) is None  # not drawn here
    assert _strings({"type": ["string", "null"], "format": "uri", "examples": ["x"]}) is not None


def test_direct_date_times_cover_years_before_1000_with_four_digits() -> None:
    values = sample(DATE_TIMES, 300)
    assert any(v.startswith("0") for v in values)
    assert all(re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})$", v) for v in values)
