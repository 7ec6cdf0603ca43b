"""Every difference between two fingerprints is a named change: never "held" when the shape moved.

The property (two random documents whose fingerprints differ -> at least one change, and drift
exits 1) is checked on the comparison itself with many examples, and end to end through
``contract-harness drift`` with a few; the concrete cases that were once reported as held are
kept as examples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.drift.diff import CHANGE_KINDS, WIDENING, compare, diff_shapes
from harness.drift.shape import Hints, document_shape, schema_shape

pytestmark = pytest.mark.drift

_keys = st.sampled_from(["a", "b", "c", "id", "x/y", "~"])
_scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, -1.5]) | st.sampled_from(["", "s", "t"])
documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)


def _locations(document: Any) -> list[str]:
    return sorted(document_shape(document).types)


@st.composite
def hinted_pairs(draw: st.DrawFn) -> tuple[Any, Any, Hints]:
    """Two documents and hints (enum-like locations, free-form maps) drawn from their locations."""
    before, after = draw(documents), draw(documents)
    where = sorted(set(_locations(before)) | set(_locations(after)))
    enums = draw(st.sets(st.sampled_from(where), max_size=3)) if where else set()
    maps = draw(st.sets(st.sampled_from(where), max_size=2)) if where else set()
    return before, after, Hints(frozenset(enums), frozenset(maps))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hinted_pairs())
@example(({"a": 1}, {"a": 1, "b": 2, "c": 3, "id": 4, "x/y": 5, "~": 6}, Hints()))  # deepdiff once collapsed this
@example(([1], {"a": 1}, Hints()))  # a root that went from array to object
@example(({"a": [1, "s"]}, {"a": [1]}, Hints()))  # fewer item types
@example(({"a": [{"b": 1}, {"c": 2}]}, {"a": [{"b": 1}]}, Hints()))  # an optional member gone
@example(({"a": "s"}, {"a": "t"}, Hints(frozenset({"/a"}))))  # enum values
def test_two_documents_whose_fingerprints_differ_always_have_a_named_change(pair: tuple[Any, Any, Hints]) -> None:
    before, after, hints = pair
    a, b = document_shape(before, hints), document_shape(after, hints)
    changes = diff_shapes(a, b)
    assert bool(changes) == (a.digest != b.digest), changes
    assert {c.kind for c in changes} <= set(CHANGE_KINDS)
    # Against a baseline of that one sample, drift reports them: never held when the shape moved.
    assert bool(compare([a], b).changes) == (a.digest != b.digest)
    assert diff_shapes(a, a) == ()


@settings(max_examples=300, deadline=None)
@given(st.lists(documents, min_size=1, max_size=4), documents)
def test_a_shape_no_sample_has_is_never_held_against_a_baseline_of_many(samples: list[Any], current: Any) -> None:
    shapes = [document_shape(d) for d in samples]
    shape = document_shape(current)
    comparison = compare(shapes, shape)
    known = {s.digest for s in shapes}
    assert bool(comparison.changes) == (shape.digest not in known and not _equal_to_merge(shapes, shape))
    if comparison.nearest is None:
        assert all(c.widening for c in comparison.changes)  # against the merge: only what no sample had


def _equal_to_merge(shapes: list[Any], shape: Any) -> bool:
    merged = shapes[0]
    for other in shapes[1:]:
        merged = merged.merge(other)
    return bool(merged.digest == shape.digest)


# --------------------------------------------------------------------------- end to end


def shapes_project(root: Path, baseline: Any) -> Path:
    """A bare-result contract accepting any JSON, one historical sample, and a command upstream
    that prints ``current.json``."""
    directory = root / "contracts" / "shapes"
    (directory / "schemas").mkdir(parents=True)
    # Any JSON at all; the one agent_view member is declared, as a loadable contract's must be.
    (directory / "schemas" / "v1.json").write_text('{"properties": {"x": {}}}')
    (directory / "contract.yaml").write_text(
        yaml.safe_dump(
            {
                "tool": "shapes",
                "version": 1,
                "envelope": None,
                "agent_view": {"x": {"pointer": "/x", "optional": True}},
                "upstreams": {"cli": {"command": {"argv": ["cat", "current.json"]}, "requests": [{}]}},
            }
        )
    )
    sample = root / "fixtures" / "historical" / "shapes" / "earlier"
    sample.mkdir(parents=True)
    (sample / "one.json").write_text(json.dumps(baseline))
    (sample / "one.case.yaml").write_text("expect: accept\n")
    return root


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents, documents)
@example({"a": 1}, {"a": 1, "b": 2, "c": 3, "id": 4, "x/y": 5, "~": 6})
@example([1, 2], {"a": 1})
def test_drift_exits_1_exactly_when_the_fingerprint_moved(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, before: Any, after: Any
) -> None:
    root = shapes_project(tmp_path_factory.mktemp("shapes"), before)
    (root / "current.json").write_text(json.dumps(after))
    monkeypatch.chdir(root)
    code = main(["drift", "--json", "report.json", "--cases-dir", str(root / "cases")])
    moved = document_shape(before).digest != document_shape(after).digest
    check = json.loads((root / "report.json").read_text())["drift"]["checks"][0]
    assert (code, check["status"]) == ((1, "drifted") if moved else (0, "held")), check
    assert bool(check["changes"]) == moved


# --------------------------------------------------------------------------- schemas (MCP outputSchema)

WEATHER = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["city", "temperature_c", "conditions"],
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "number"},
        "conditions": {"enum": ["clear", "cloudy", "rain"]},
    },
}


def _schema_changes(before: Any, after: Any) -> list[tuple[str, str]]:
    return [(c.kind, c.path) for c in diff_shapes(schema_shape(before), schema_shape(after))]


def test_an_output_schema_that_drops_a_required_member_is_named() -> None:
    dropped = json.loads(json.dumps(WEATHER))
    dropped["required"].remove("temperature_c")
    del dropped["properties"]["temperature_c"]
    assert _schema_changes(WEATHER, dropped) == [("field_removed", "/temperature_c")]
    optional = json.loads(json.dumps(WEATHER))
    optional["required"].remove("temperature_c")
    assert _schema_changes(WEATHER, optional) == [("field_now_optional", "/temperature_c")]


def test_an_output_schema_that_drops_enum_values_or_the_enum_is_named() -> None:
    fewer = json.loads(json.dumps(WEATHER))
    fewer["properties"]["conditions"]["enum"] = ["clear", "cloudy"]
    assert _schema_changes(WEATHER, fewer) == [("enum_value_absent", "/conditions")]
    none = json.loads(json.dumps(WEATHER))
    none["properties"]["conditions"] = {"type": "string"}
    assert _schema_changes(WEATHER, none) == [("enum_removed", "/conditions")]
    assert _schema_changes(none, WEATHER) == [("enum_declared", "/conditions")]


def test_widening_and_narrowing_kinds_partition_the_catalogue() -> None:
    assert set(CHANGE_KINDS) > WIDENING
    assert {"type_narrowed", "field_absent", "items_absent", "enum_value_absent"} <= set(CHANGE_KINDS) - WIDENING


def test_the_published_report_schema_lists_every_change_kind_and_status() -> None:
    from importlib import resources

    from harness.drift.check import STATUSES

    schema = json.loads(resources.files("harness").joinpath("report.schema.json").read_text())
    check = schema["properties"]["drift"]["properties"]["checks"]["items"]["properties"]
    assert check["changes"]["items"]["properties"]["kind"]["enum"] == list(CHANGE_KINDS)
    assert check["status"]["enum"] == list(STATUSES)
