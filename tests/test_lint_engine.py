"""The lint engine: the registry, path dispatch, waivers on the demo, line numbers, robustness."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import ContractError, UsageError
from harness.lint import (
    RULES,
    Document,
    Hit,
    LintReport,
    Node,
    RuleRegistry,
    Severity,
    Target,
    lint_contract,
    lint_paths,
    lint_schema,
)
from harness.lint.reporters import render_json, render_text
from harness.locate import json_lines, yaml_lines
from tests.helpers.contracts import envelope_schema

# --------------------------------------------------------------------------- registry


def _registry_with_title_rule() -> RuleRegistry:
    registry = RuleRegistry()

    @registry.rule(severity=Severity.NOTE, summary="schema with a title", fix="remove the title")
    def titled(node: Node) -> Iterator[str]:
        """Test rule."""
        if "title" in node.raw:
            yield f"title {node.raw['title']!r}"

    @registry.rule(severity=Severity.WARNING, summary="document", fix="none",
                   target=Target.DOCUMENT)
    def whole(doc: Document) -> Iterator[Hit]:
        """Test rule."""
        yield Hit("seen", pointer="/x")

    return registry


def test_a_fresh_registry_drives_the_engine_instead_of_the_package_rules() -> None:
    schema = {"title": "root", "properties": {"a": {"title": "inner"}}}
    report = lint_schema(schema, registry=_registry_with_title_rule())
    assert [(f.rule, f.pointer, f.message, f.severity) for f in report.findings] == [
        ("titled", "", "title 'root'", Severity.NOTE),
        ("titled", "/properties/a", "title 'inner'", Severity.NOTE),
        ("whole", "/x", "seen", Severity.WARNING),
    ]
    assert [r.id for r in report.rules] == ["titled", "whole"]
    assert "titled" not in RULES


def test_registering_a_rule_twice_or_with_a_bad_name_is_refused() -> None:
    registry = _registry_with_title_rule()
    with pytest.raises(ValueError, match="already registered"):
        registry.rule(severity=Severity.NOTE, summary="s", fix="f")(
            _registry_with_title_rule()["titled"].check)

    def BadName(node: Node) -> Iterator[str]:
        yield ""

    with pytest.raises(ValueError, match="snake_case"):
        registry.rule(severity=Severity.NOTE, summary="s", fix="f")(BadName)


def test_select_and_ignore_choose_rules_and_unknown_ids_are_usage_errors() -> None:
    assert [r.id for r in RULES.select(["unbounded_string", "open_object"])] == [
        "open_object", "unbounded_string"]
    assert "open_object" not in [r.id for r in RULES.select(ignore=["open_object"])]
    with pytest.raises(UsageError) as caught:
        RULES.select(["open_objet"])
    assert caught.value.code == "usage.unknown_rule"
    assert "did you mean open_object?" in str(caught.value)


# --------------------------------------------------------------------------- demo and paths


def test_the_demo_contracts_lint_clean_with_every_waiver_justified_and_used(
    demo_root: Path,
) -> None:
    report = lint_paths([demo_root / "contracts"])
    assert report.findings == ()
    assert len(report.targets) == 3
    waived = {(w.finding.tool, w.finding.schema, w.finding.rule, w.finding.pointer)
              for w in report.waived}
    assert waived == {
        ("deployment_status", "v1", "open_object", ""),
        ("deployment_status", "v1", "unbounded_string", "/properties/state"),
        ("deployment_status", "v1", "free_text_in_agent_view", "/properties/state"),
        ("review_status", "v1", "free_text_in_agent_view", "/$defs/reviewStatus/properties/reviewed_by"),
        ("job_status", "vendor", "identifier_without_pattern", "/properties/run/properties/id"),
    }
    assert all(len(w.waiver.reason) > 20 for w in report.waived)


def test_the_demo_contracts_without_their_waivers_are_reported(demo: Callable[[str], Any]) -> None:
    from dataclasses import replace

    report = lint_contract(replace(demo("job_status"), waivers=()))
    assert {f.rule for f in report.findings} == {"identifier_without_pattern"}
    assert {f.schema for f in report.findings} == {"vendor"}


#: A contract with an adapter, its vendor_schema to follow (indented as make_contract dedents it).
_WITH_VENDOR = """\
        tool: item_status
        version: 1
        agent_view:
          item_id: /data/item_id
        adapter: tests.helpers.contracts:item
"""


def test_the_vendor_schema_is_not_judged_open_and_a_version_is(make_contract: Callable[..., Path]) -> None:
    """The vendor schema states what the adapter reads of a broad document: open on purpose, no
    finding and no waiver needed. The same object as a version is an error."""
    opened = {"type": "object", "properties": {"state": {"enum": ["up", "down"]}}}
    directory = make_contract(yaml_text=_WITH_VENDOR + f"        vendor_schema: {json.dumps(opened)}\n")
    assert [f.rule for f in lint_contract(directory).findings if f.schema == "vendor"] == []
    report = lint_paths([_write(directory.parent.parent / "loose.json", json.dumps(opened))])
    assert [f.rule for f in report.findings] == ["open_object"]


def test_a_schema_file_inside_a_contract_lints_the_whole_contract(demo_root: Path) -> None:
    report = lint_paths([demo_root / "contracts/job_status/schemas/v2.json",
                         demo_root / "contracts/job_status/contract.yaml"])
    assert report.targets == (str(demo_root / "contracts/job_status"),)
    assert len(report.waived) == 1


def test_a_bare_schema_file_is_linted_on_its_own(tmp_path: Path) -> None:
    file = tmp_path / "tool.schema.json"
    file.write_text('{\n  "type": "object",\n  "properties": {\n    "name": {"type": "string"}\n'
                    "  }\n}\n")
    report = lint_paths([file])
    assert report.targets == (str(file),)
    assert [(f.rule, f.pointer, f.line, f.schema) for f in report.findings] == [
        ("open_object", "", 1, None), ("unbounded_string", "/properties/name", 4, None)]


@pytest.mark.parametrize(
    ("make", "error", "code"),
    [
        (lambda d: d / "missing.json", ContractError, "contract.missing"),
        (lambda d: d, UsageError, "usage.invalid"),
        (lambda d: _write(d / "notes.txt", "hello"), UsageError, "usage.invalid"),
        (lambda d: _write(d / "broken.json", '{"type": '), ContractError, "contract.invalid"),
        (lambda d: _write(d / "dup.json", '{"type": "string", "type": "integer"}'),
         ContractError, "contract.invalid"),
    ],
    ids=["missing path", "folder without contracts", "not a schema file", "malformed JSON",
         "duplicate member"],
)
def test_bad_paths_raise_one_line_errors_with_stable_codes(
    tmp_path: Path, make: Callable[[Path], Path], error: type[Exception], code: str
) -> None:
    with pytest.raises(error) as caught:
        lint_paths([make(tmp_path)])
    assert caught.value.code == code  # type: ignore[attr-defined]
    assert "\n" not in str(caught.value)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_an_unknown_rule_id_is_reported_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        lint_paths([tmp_path / "missing.json"], select=["nope"])


def test_an_inline_vendor_schema_is_located_in_contract_yaml(
    make_contract: Callable[..., Path],
) -> None:
    yaml_text = _WITH_VENDOR + """\
        vendor_schema:
          type: object
          properties:
            id: {type: string, maxLength: 5}
            name: {type: string}
        waivers:
          - {rule: identifier_without_pattern, schema: vendor, pointer: /vendor_schema/properties/id,
             reason: the adapter pins it}
        """
    directory = make_contract(yaml_text=yaml_text)
    report = lint_contract(directory)
    assert [w.finding.pointer for w in report.waived] == ["/vendor_schema/properties/id"]
    assert [(f.rule, f.file, f.pointer, f.line) for f in report.findings] == [
        ("unbounded_string", str(directory / "contract.yaml"), "/vendor_schema/properties/name", 10)]


# --------------------------------------------------------------------------- documents


def test_references_resolve_through_ids_anchors_and_urn_bases() -> None:
    schema = {
        "$id": "urn:example:root",
        "$defs": {
            "a": {"$anchor": "aa", "type": "boolean"},
            "nested": {"$id": "https://x.test/nested.json", "$defs": {"b": {"type": "null"}},
                       "$ref": "#/$defs/b"},
        },
        "allOf": [{"$ref": "#aa"}, {"$ref": "https://x.test/nested.json"},
                  {"$ref": "#/$defs/a"}, {"$ref": "https://elsewhere.test/x.json"}],
    }
    doc = Document(schema, file="<schema>")
    refs = [doc.reference(n) for n in doc.kids(doc.root, "allOf")]
    assert [(r.status, r.target.pointer if r and r.target else None) for r in refs if r] == [
        ("local", "/$defs/a"), ("local", "/$defs/nested"), ("local", "/$defs/a"),
        ("remote", None)]
    nested = doc.by_pointer["/$defs/nested"]
    assert doc.target(nested) is doc.by_pointer["/$defs/nested/$defs/b"]


def test_draft_07_ref_siblings_are_not_walked_but_definitions_are() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a",
              "properties": {"x": {}}, "definitions": {"a": {"type": "string"}}}
    pointers = [n.pointer for n in Document(schema, file="<schema>").nodes]
    assert pointers == ["", "/definitions/a"]


# --------------------------------------------------------------------------- lines


def test_json_lines_map_every_pointer_to_the_line_of_its_key() -> None:
    text = '{\n  "a": {\n    "b/c": [\n      1,\n      {"d~e": true}\n    ]\n  },\n  "f": "x"\n}\n'
    lines = json_lines(text)
    assert lines == {"": 1, "/a": 2, "/a/b~1c": 3, "/a/b~1c/0": 4, "/a/b~1c/1": 5,
                     "/a/b~1c/1/d~0e": 5, "/f": 8}
    assert json.loads(text) == {"a": {"b/c": [1, {"d~e": True}]}, "f": "x"}  # every pointer above exists


def test_yaml_lines_map_every_pointer_to_the_line_of_its_key() -> None:
    text = "tool: x\nagent_view:\n  a: /data/a\nwaivers:\n  - {rule: r, pointer: ''}\n"
    lines = yaml_lines(text)
    assert (lines["/tool"], lines["/agent_view/a"], lines["/waivers/0"],
            lines["/waivers/0/rule"]) == (1, 3, 5, 5)


# --------------------------------------------------------------------------- reports


def test_reports_merge_and_render_as_text_and_json(tmp_path: Path) -> None:
    one = lint_schema({"type": "string"}, file=tmp_path / "one.json")
    two = lint_schema({"type": "boolean"}, file=tmp_path / "two.json")
    merged = LintReport.merge([one, two])
    assert (merged.targets, merged.exit_code, merged.counts()) == (
        (str(tmp_path / "one.json"), str(tmp_path / "two.json")), 1, {"unbounded_string": 1})
    assert render_text(merged, tmp_path).splitlines() == [
        "one.json: warning[unbounded_string] /: string has no maxLength",
        f"    fix: {RULES['unbounded_string'].fix}",
        "lint: 1 finding (1 warning) in 2 targets",
    ]
    data = json.loads(render_json(merged, tmp_path))
    assert data["summary"] == {"targets": 2, "findings": 1, "error": 0, "warning": 1, "note": 0,
                               "waived": 0, "by_rule": {"unbounded_string": 1}}
    assert data["findings"][0]["file"] == "one.json"


# --------------------------------------------------------------------------- robustness

_KEYWORDS = ["type", "properties", "items", "allOf", "anyOf", "oneOf", "$ref", "$defs",
             "definitions", "additionalProperties", "patternProperties", "pattern", "format",
             "enum", "const", "required", "maxLength", "prefixItems", "not", "if", "then",
             "$id", "$anchor", "$schema", "dependencies", "unevaluatedProperties", "x"]
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6),
                     st.sampled_from(["#", "#/$defs/a", "#a", "string", "object", "^\\d$", "(",
                                      "http://json-schema.org/draft-07/schema#", "urn:x"]))
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(_KEYWORDS), inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_JSON)
def test_lint_never_crashes_on_any_json_document(schema: Any) -> None:
    report = lint_schema(schema)
    assert all(f.rule in RULES for f in report.findings)


def test_a_default_contract_lints_clean(make_contract: Callable[..., Path]) -> None:
    directory = make_contract(schemas={1: envelope_schema("item_status")})
    assert lint_contract(directory).findings == ()
