"""Shape fingerprints and the changes between them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.drift.diff import compare, diff_shapes
from harness.drift.shape import Hints, document_shape, schema_dialect, schema_shape

DEPLOY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["environment", "revision", "state"],
    "properties": {
        "environment": {"enum": ["staging", "production"]},
        "revision": {"type": "string"},
        "state": {"enum": ["healthy", "degraded", "failed", "deploying"]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "steps": {
            "type": "array",
            "items": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    },
    "additionalProperties": False,
}
HINTS = Hints.from_schema(DEPLOY_SCHEMA)
HEALTHY = {"environment": "staging", "revision": "a83f19c", "state": "healthy"}


def changes(before: list[dict[str, Any]], after: dict[str, Any]) -> list[tuple[str, str]]:
    """What drift reports for ``after`` against a baseline of the ``before`` samples."""
    comparison = compare([document_shape(d, HINTS) for d in before], document_shape(after, HINTS))
    return [(c.kind, c.path) for c in comparison.changes]


def test_a_document_shape_has_types_always_present_members_and_enum_values() -> None:
    shape = document_shape(HEALTHY, HINTS)
    assert shape.types["/state"] == {"string"}
    assert shape.required == {"/environment", "/revision", "/state"}
    assert shape.enums == {"/environment": {'"staging"'}, "/state": {'"healthy"'}}
    assert "/revision" not in shape.enums  # not enum-like: its values would all look new


def test_array_items_share_one_location_and_a_member_one_item_lacks_is_not_required() -> None:
    shape = document_shape({**HEALTHY, "steps": [{"n": 1}, {"n": 2, "note": "x"}]}, HINTS)
    assert shape.types["/steps/*"] == {"object"}
    assert "/steps/*/n" in shape.required and "/steps/*/note" not in shape.required


def test_free_form_maps_collapse_their_keys_so_new_keys_are_not_new_members() -> None:
    assert HINTS.map_paths == {"/labels"}
    assert (
        changes(
            [{**HEALTHY, "labels": {"team": "a"}}],
            {**HEALTHY, "labels": {"owner": "b", "tier": "c"}},
        )
        == []
    )


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        ({**HEALTHY, "maintenance": True}, [("field_added", "/maintenance")]),
        ({"environment": "staging", "state": "healthy"}, [("field_removed", "/revision")]),
        ({**HEALTHY, "revision": 7}, [("type_changed", "/revision")]),
        ({**HEALTHY, "revision": None}, [("null_appearing", "/revision")]),
        (
            {**HEALTHY, "state": {"value": "healthy"}},
            [("object_where_string", "/state"), ("field_added", "/state/value")],
        ),
        ({**HEALTHY, "state": "paused"}, [("enum_value_new", "/state")]),
    ],
    ids=[
        "field_added",
        "field_removed",
        "type_changed",
        "null_appearing",
        "object_where_string",
        "enum_value_new",
    ],
)
def test_each_change_is_named_with_its_kind_and_location(
    after: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert changes([HEALTHY], after) == expected


def test_the_baseline_is_every_sample_merged() -> None:
    deploying = {**HEALTHY, "environment": "production", "state": "deploying", "note": "x"}
    assert changes([HEALTHY, deploying], HEALTHY) == []  # one sample exactly
    assert changes([HEALTHY, deploying], {**HEALTHY, "state": "failed"}) == [("enum_value_new", "/state")]


def test_a_new_combination_of_what_the_samples_had_is_named_against_the_nearest_sample() -> None:
    deploying = {**HEALTHY, "environment": "production", "state": "deploying", "note": "x"}
    comparison = compare(
        [document_shape(d, HINTS) for d in (HEALTHY, deploying)],
        document_shape({**HEALTHY, "state": "deploying"}, HINTS),
    )
    assert comparison.nearest == 0  # HEALTHY differs from it in one value only
    assert [(c.kind, c.path, c.before, c.after) for c in comparison.changes] == [
        ("enum_value_new", "/state", '"healthy"', '"deploying"'),
        ("enum_value_absent", "/state", '"healthy"', "absent"),
    ]


def test_an_integer_where_numbers_were_seen_is_a_narrowing_and_the_reverse_a_type_change() -> None:
    baseline = [{**HEALTHY, "steps": [{"n": 1.5}]}]
    assert changes(baseline, {**HEALTHY, "steps": [{"n": 2}]}) == [("type_narrowed", "/steps/*/n")]
    assert changes([{**HEALTHY, "steps": [{"n": 2}]}], {**HEALTHY, "steps": [{"n": 1.5}]}) == [
        ("type_changed", "/steps/*/n")
    ]


def test_only_the_outermost_new_member_is_reported() -> None:
    assert changes([HEALTHY], {**HEALTHY, "banner": {"text": "x", "links": [{"href": "y"}]}}) == [
        ("field_added", "/banner")
    ]


def test_a_type_or_value_one_sample_had_is_not_drift_when_another_sample_matches() -> None:
    with_null = {**HEALTHY, "revision": None, "state": "failed"}
    assert changes([HEALTHY, with_null], HEALTHY) == []
    assert changes([with_null], HEALTHY) == [  # against that one sample alone, it is drift
        ("type_changed", "/revision"),
        ("enum_value_new", "/state"),
    ]


def test_the_same_shape_has_the_same_digest_whatever_the_values() -> None:
    a = document_shape({**HEALTHY, "revision": "0d1e2f3"}, HINTS)
    b = document_shape(HEALTHY, HINTS)
    assert a.digest == b.digest and diff_shapes(a, b) == ()
    assert document_shape({**HEALTHY, "state": "failed"}, HINTS).digest != b.digest


def _draft07(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {("definitions" if k == "$defs" else k): _draft07(v) for k, v in schema.items()}
        if "$ref" in out:
            out["$ref"] = out["$ref"].replace("#/$defs/", "#/definitions/")
        return out
    return [_draft07(v) for v in schema] if isinstance(schema, list) else schema


def test_draft07_and_2020_12_spellings_of_one_schema_have_one_shape(demo) -> None:  # type: ignore[no-untyped-def]
    modern = dict(demo("review_status").schema())
    older = {**_draft07(modern), "$schema": "http://json-schema.org/draft-07/schema#"}
    assert schema_dialect(older) == "draft-07" and schema_dialect(modern) == "2020-12"
    assert schema_shape(older).to_dict() == schema_shape(modern).to_dict()
    assert diff_shapes(schema_shape(modern), schema_shape(older)) == ()


def test_draft07_ignores_keywords_beside_a_ref_and_2020_12_applies_them() -> None:
    defs = {"s": {"type": "string"}}
    node = {"$ref": "#/definitions/s", "enum": ["a"]}
    older = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": defs,
        "type": "object",
        "properties": {"x": node},
    }
    newer = {"$defs": defs, "type": "object", "properties": {"x": {**node, "$ref": "#/$defs/s"}}}
    assert "/x" not in schema_shape(older).enums
    assert schema_shape(newer).enums["/x"] == {'"a"'}


def test_oneof_branches_make_members_of_one_branch_optional(demo) -> None:  # type: ignore[no-untyped-def]
    shape = schema_shape(demo("review_status").schema())
    assert "/data" not in shape.required and "/error" not in shape.required
    assert {"/data/decision", "/tool", "/outcome"} <= shape.required
    assert shape.enums["/outcome"] == {'"success"', '"failure"'}


def test_a_schema_that_stops_promising_a_member_or_widens_an_enum_is_named(demo) -> None:  # type: ignore[no-untyped-def]
    contract = dict(demo("deployment_status").schema())
    advertised = copy.deepcopy(contract)
    advertised["required"] = ["environment", "state"]
    advertised["properties"]["state"]["enum"].append("paused")
    found = [(c.kind, c.path, c.after) for c in diff_shapes(schema_shape(contract), schema_shape(advertised))]
    assert found == [
        ("field_now_optional", "/revision", "optional"),
        ("enum_value_new", "/state", '"paused"'),
    ]


def test_recursive_and_remote_refs_promise_nothing_more_and_end() -> None:
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "child": {"$ref": "#/$defs/node"},
                    "other": {"$ref": "https://x.invalid/s.json"},
                },
            }
        },
        "$ref": "#/$defs/node",
    }
    shape = schema_shape(schema)
    assert shape.types[""] == {"object"}
    assert shape.types["/child"] == {"any"} and shape.types["/other"] == {"any"}  # not unrolled, not fetched
