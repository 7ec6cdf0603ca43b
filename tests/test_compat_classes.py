"""Every change class the compat issue names, with both verdicts and a witness (or unsupported).

Each row is an (old, new) pair of schemas, the class the change must be classified as, the
final reader / writer verdicts, and the directions a witness must prove. A witness against a
``safe`` verdict would be a classifier bug: no row may have one.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.compat import RULES, Budget, Direction, Evidence, Verdict, compare_schemas

S = "https://json-schema.org/draft/2020-12/schema"
B, SF, UN = Verdict.BREAKING, Verdict.SAFE, Verdict.UNKNOWN
R, W = Direction.READER, Direction.WRITER
BUDGET = Budget(examples=20, samples=6, seconds=120)


def obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"$schema": S, "type": "object", "properties": properties, **more}


def string(**more: Any) -> dict[str, Any]:
    return {"$schema": S, "type": "string", **more}


def integer(**more: Any) -> dict[str, Any]:
    return {"$schema": S, "type": "integer", **more}


NAME = {"type": "string", "maxLength": 8}
CASES: list[tuple[str, Any, Any, str, Verdict, Verdict, set[Direction]]] = [
    ("required property added", obj({"a": NAME, "b": NAME}, required=["a"]),
     obj({"a": NAME, "b": NAME}, required=["a", "b"]), "required_property_added", B, SF, {R}),
    ("property removed from a closed object", obj({"a": NAME, "b": NAME}, additionalProperties=False),
     obj({"a": NAME}, additionalProperties=False), "property_removed_from_closed_object", B, SF, {R}),
    ("property removed from an open object", obj({"a": NAME, "b": {"type": "integer"}}),
     obj({"a": NAME}), "property_removed_from_open_object", SF, B, {W}),
    ("optional property added to a closed object", obj({"a": NAME}, additionalProperties=False),
     obj({"a": NAME, "b": {"type": "integer"}}, additionalProperties=False), "property_added_to_closed_object", SF, B, {W}),
    ("optional property added to an open object", obj({"a": NAME}),
     obj({"a": NAME, "b": {"type": "integer"}}), "property_added_to_open_object", B, SF, {R}),
    ("optional property added to a closed object (unevaluatedProperties)", obj({"a": NAME}, unevaluatedProperties=False),
     obj({"a": NAME, "b": {"type": "integer"}}, unevaluatedProperties=False), "property_added_to_closed_object", SF, B, {W}),
    ("enum narrowed", {"$schema": S, "enum": ["a", "b", "c"]}, {"$schema": S, "enum": ["a", "b"]}, "enum_narrowed", B, SF, {R}),
    ("enum widened", {"$schema": S, "enum": ["a", "b"]}, {"$schema": S, "enum": ["a", "b", "c"]}, "enum_widened", SF, B, {W}),
    ("open value turned into an enum", string(), {"$schema": S, "enum": ["healthy", "failed"]}, "enum_introduced", B, SF, {R}),
    ("const changed", {"$schema": S, "const": "v1"}, {"$schema": S, "const": "v2"}, "const_changed", B, B, {R, W}),
    ("type changed", string(), integer(), "type_changed", B, B, {R, W}),
    ("type narrowed (number to integer)", {"$schema": S, "type": "number"}, integer(), "type_narrowed", B, SF, {R}),
    ("type widened", integer(), {"$schema": S, "type": ["integer", "string"]}, "type_widened", SF, B, {W}),
    ("maxLength tightened", string(maxLength=10), string(maxLength=4), "max_length_tightened", B, SF, {R}),
    ("maxLength loosened", string(maxLength=4), string(maxLength=10), "max_length_loosened", SF, B, {W}),
    ("minLength tightened", string(minLength=1), string(minLength=4), "min_length_tightened", B, SF, {R}),
    ("minLength loosened", string(minLength=4), string(minLength=1), "min_length_loosened", SF, B, {W}),
    ("maximum tightened", integer(maximum=1000), integer(maximum=100), "maximum_tightened", B, SF, {R}),
    ("maximum loosened", integer(exclusiveMaximum=100), integer(maximum=1000), "maximum_loosened", SF, B, {W}),
    ("minimum tightened", integer(minimum=0), integer(minimum=1), "minimum_tightened", B, SF, {R}),
    ("minimum loosened", integer(minimum=1), integer(), "minimum_loosened", SF, B, {W}),
    ("pattern tightened", string(pattern="^[a-z]{1,8}$"), string(pattern="^[a-z]{1,3}$"), "pattern_tightened", B, SF, {R}),
    ("pattern loosened", string(pattern="^[a-z]{1,3}$"), string(pattern="^[a-z0-9]{1,3}$"), "pattern_loosened", SF, B, {W}),
    ("oneOf branch added",
     {"$schema": S, "oneOf": [obj({"kind": {"const": "a"}}, required=["kind"])]},
     {"$schema": S, "oneOf": [obj({"kind": {"const": "a"}}, required=["kind"]), obj({"kind": {"const": "b"}}, required=["kind"])]},
     "one_of_branch_added", SF, B, {W}),
    ("oneOf branch removed",
     {"$schema": S, "oneOf": [obj({"kind": {"const": "a"}}, required=["kind"]), obj({"kind": {"const": "b"}}, required=["kind"])]},
     {"$schema": S, "oneOf": [obj({"kind": {"const": "a"}}, required=["kind"])]},
     "one_of_branch_removed", B, SF, {R}),
    ("additionalProperties closed", obj({"a": NAME}), obj({"a": NAME}, additionalProperties=False), "object_closed", B, SF, {R}),
    ("additionalProperties opened", obj({"a": NAME}, additionalProperties=False), obj({"a": NAME}), "object_opened", SF, B, {W}),
    ("unevaluatedProperties closed", obj({"a": NAME}), obj({"a": NAME}, unevaluatedProperties=False), "object_closed", B, SF, {R}),
    ("unevaluatedProperties opened", obj({"a": NAME}, unevaluatedProperties=False), obj({"a": NAME}), "object_opened", SF, B, {W}),
    ("format added", string(), string(format="date-time"), "format_added", B, SF, {R}),
    ("$ref target changed",
     {"$schema": S, "$defs": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
     {"$schema": S, "$defs": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}}, "properties": {"x": {"$ref": "#/$defs/b"}}},
     "ref_target_changed", B, SF, {R}),
    ("$ref renamed, same target content",
     {"$schema": S, "$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
     {"$schema": S, "$defs": {"b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/b"}}},
     "ref_target_changed", SF, SF, set()),
    # unsupported: never a false "compatible"
    ("unknown keyword (OpenAPI nullable)", obj({"a": NAME}), obj({"a": {**NAME, "nullable": True}}),
     "unsupported_keyword", UN, UN, set()),
    ("$dynamicRef", {"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "string"}}, "$dynamicRef": "#n"},
     {"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}}, "$dynamicRef": "#n"},
     "unsupported_reference", UN, UN, set()),
]


@pytest.mark.parametrize(("title", "old", "new", "name", "reader", "writer", "witnessed"), CASES, ids=[c[0] for c in CASES])
def test_change_class_has_both_verdicts_and_a_witness_for_each_break(
    title: str, old: Any, new: Any, name: str, reader: Verdict, writer: Verdict, witnessed: set[Direction]
) -> None:
    report = compare_schemas(old, new, budget=BUDGET)
    found = [a for a in report.changes if a.change.rule.name == name]
    assert found, f"{title}: expected {name}, got {[a.change.rule.name for a in report.changes]}"
    assessed = found[0]
    proved = {w.direction for w in assessed.witnesses}
    if reader is UN:
        # Not modelled: unknown, or breaking where a witness proves it; never safe.
        for direction in (R, W):
            assert assessed.verdict(direction) is (B if direction in proved else UN), title
    else:
        assert (assessed.reader, assessed.writer) == (reader, writer), title
        assert proved == witnessed, f"{title}: witnesses for {proved}, expected {witnessed}"
    for witness in assessed.witnesses:
        assert witness.rejected_by != witness.accepted_by and witness.message
    assert not report.contradictions, [c.message for c in report.contradictions]


def test_every_issue_class_is_covered_by_the_table() -> None:
    covered = {c[3] for c in CASES}
    issue = {
        "required_property_added", "property_removed_from_closed_object", "property_removed_from_open_object",
        "property_added_to_closed_object", "property_added_to_open_object", "enum_narrowed", "enum_widened",
        "const_changed", "type_changed", "max_length_tightened", "max_length_loosened", "min_length_tightened",
        "min_length_loosened", "maximum_tightened", "maximum_loosened", "minimum_tightened", "minimum_loosened",
        "pattern_tightened", "pattern_loosened", "one_of_branch_added", "one_of_branch_removed", "object_closed",
        "object_opened", "format_added", "ref_target_changed", "unsupported_keyword", "unsupported_reference",
    }
    assert issue <= covered, issue - covered
    assert covered <= {rule.name for rule in RULES}


@pytest.mark.parametrize("rule", [r for r in RULES if r.name != "unclassified"], ids=lambda r: f"{r.id}-{r.name}")
def test_every_rule_example_is_classified_as_its_rule(rule: Any) -> None:
    old, new = rule.example
    # Classification only: a short search budget keeps slow-to-generate examples quick.
    report = compare_schemas(old, new, budget=Budget(examples=10, samples=0, seconds=2))
    names = [a.change.rule.name for a in report.changes]
    assert rule.name in names, names


def test_identical_schemas_have_no_changes_and_are_sampled_safe() -> None:
    schema = obj({"a": NAME}, required=["a"], additionalProperties=False)
    report = compare_schemas(schema, {**schema, "title": "annotations never change validation"}, budget=BUDGET)
    assert report.changes == () and report.ok
    assert report.evidence(R).value == "sampled"


def test_a_recursive_reference_makes_an_otherwise_safe_change_unknown() -> None:
    old = obj({"name": string(maxLength=3), "child": {"$ref": "#"}})
    new = obj({"name": string(maxLength=10), "child": {"$ref": "#"}})
    report = compare_schemas(old, new, budget=BUDGET)
    assert report.verdict(R) is Verdict.UNKNOWN  # never a false "compatible"
    assert any(a.change.rule.name == "unsupported_reference" for a in report.changes)
    assert not report.ok


def test_a_change_under_not_swaps_reader_and_writer() -> None:
    old = {"$schema": S, "not": {"enum": ["a", "b"]}}
    new = {"$schema": S, "not": {"enum": ["a"]}}
    report = compare_schemas(old, new, budget=BUDGET)
    (assessed,) = report.changes
    assert assessed.change.rule.name == "enum_narrowed"  # inside the not: "b" is now allowed
    assert (assessed.reader, assessed.writer) == (SF, B)


def test_a_change_inside_overlapping_oneof_branches_is_unknown_until_a_witness_decides() -> None:
    old = {"$schema": S, "oneOf": [{"required": ["a"]}, {"required": ["b"], "properties": {"b": {"maxLength": 5}}}]}
    new = {"$schema": S, "oneOf": [{"required": ["a"]}, {"required": ["b"], "properties": {"b": {"maxLength": 9}}}]}
    report = compare_schemas(old, new, budget=BUDGET)
    (assessed,) = report.changes
    assert assessed.change.reader is Verdict.UNKNOWN and "not provably disjoint" in assessed.change.note


def test_a_generation_cut_by_its_clock_returns_what_it_has() -> None:
    from harness.fuzz.generate.documents import GenerationStats, from_schema, sample

    # The clock is a safety net only; one millisecond cannot draw ten thousand objects. Fifty
    # times: the alarm lands anywhere, hypothesis's own set-up included (where it once escaped
    # as an AssertionError in about one run in thirteen).
    schema = {"$schema": S, "type": "object", "not": {"required": ["debug"]}}
    for _ in range(50):
        stats = GenerationStats()
        values = sample(from_schema(schema, stats=stats), 10_000, seconds=0.001)
        assert len(values) < 10_000 and stats.generated < 10_000


def test_a_search_over_a_negated_object_ends_by_its_examples_not_the_clock() -> None:
    # hypothesis-jsonschema generates "not" over objects by rejection; the searches leave such
    # a "not" to the validators, so they end when they find a witness or run out of examples.
    report = compare_schemas({"$schema": S, "type": "object"},
                             {"$schema": S, "type": "object", "not": {"required": ["debug"]}},
                             budget=Budget(examples=50, samples=10, seconds=600))
    (assessed,) = report.changes
    assert assessed.change.rule.name == "applicator_changed"
    assert (assessed.reader, assessed.reader_evidence) == (B, Evidence.WITNESS)
    assert "debug" in assessed.witnesses[0].document
    searches = report.to_dict()["searches"]
    assert searches["reader"]["found"] == searches["reader"]["run"] == 1
    assert all(s["stopped_by_clock"] == 0 for s in searches.values())


def _keyword_tables(source: str) -> list[tuple[int, list[str]]]:
    """Module-level constants of a source file that list JSON Schema keywords: a set, tuple or
    list of strings, or a dict from strings to strings, holding two keywords or more."""
    import ast

    from harness.schemas.dialects import VOCABULARIES

    keywords = frozenset().union(*VOCABULARIES.values())
    found = []
    for statement in ast.parse(source).body:
        if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
            continue
        value = statement.value
        if isinstance(value, ast.Call) and value.args:  # frozenset({...})
            value = value.args[0]
        if isinstance(value, ast.Set | ast.Tuple | ast.List):
            items = value.elts
        elif isinstance(value, ast.Dict) and all(isinstance(v, ast.Constant) for v in value.values):
            items = [k for k in value.keys if k is not None] + list(value.values)
        else:
            continue
        strings = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if len(strings) == len(items) and len(keywords.intersection(strings)) >= 2:
            found.append((statement.lineno, strings))
    return found


def test_compat_keeps_no_keyword_table_of_its_own_the_schema_model_answers() -> None:
    from pathlib import Path

    import harness.compat

    package = Path(harness.compat.__file__).parent
    tables = {str(p.relative_to(package)): _keyword_tables(p.read_text()) for p in sorted(package.rglob("*.py"))}
    assert _keyword_tables('X = frozenset({"allOf", "anyOf"})\nY = {"items": "additionalItems"}\n')  # it can fail
    assert {name: found for name, found in tables.items() if found} == {}


def test_hypothesis_state_an_alarm_leaves_half_set_is_put_back_when_the_budget_ends() -> None:
    # Where the alarm lands between hypothesis setting its "inside a @given" marker and the
    # ``with`` block that unsets it, or half-way through its recursion-limit bookkeeping, every
    # later @given would fail (nested_given, or an internal assertion). Simulated: both left off.
    from hypothesis import control
    from hypothesis.internal.conjecture import junkdrawer

    from harness.fuzz.generate.documents import GenerationStats, from_schema, sample, time_budget

    limiter = junkdrawer._stackframe_limiter
    with time_budget(60):
        control._current_build_context.data.value = object()
        limiter._active_contexts += 1
    assert not control.currently_in_test_context()
    assert limiter._active_contexts == 0
    values = sample(from_schema({"$schema": S, "type": "integer"}, stats=GenerationStats()), 5)
    assert len(values) == 5


def test_an_unknown_keyword_one_typo_from_a_known_one_is_named_with_it() -> None:
    report = compare_schemas(obj({"a": NAME}), obj({"a": {**NAME, "maxLenght": 3}}), budget=BUDGET)
    (found,) = [a for a in report.changes if a.change.rule.name == "unsupported_keyword"]
    assert "unknown keyword 'maxLenght' (did you mean 'maxLength'?): not modelled" in found.change.note
    assert any("(did you mean 'maxLength'?): its meaning is not modelled" in u.reason for _, u in report.unsupported)
    nullable = compare_schemas(obj({"a": NAME}), obj({"a": {**NAME, "nullable": True}}), budget=BUDGET)
    assert "did you mean" not in "".join(a.change.note for a in nullable.changes)
