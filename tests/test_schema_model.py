"""harness.schemas: the one model of a JSON Schema every package asks.

Its references (``$ref``, ``$anchor``, ``$id``, ``$dynamicRef``, other files of a contract), its
answers about instance pointers, its keyword table, and the packages that used to answer these
questions on their own (the agent view, mutations, drift shapes, the contract's schema checks).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import Boundary, load_contract
from harness.drift.shape import schema_shape
from harness.errors import ContractError
from harness.schemas import Document, dialects, expand, keywords
from harness.schemas.bundle import Bundle

S = "https://json-schema.org/draft/2020-12/schema"
D7 = "http://json-schema.org/draft-07/schema#"

ANCHORED = {
    "$schema": S,
    "type": "object",
    "required": ["payload"],
    "properties": {"payload": {"$ref": "#payload"}},
    "additionalProperties": False,
    "$defs": {
        "p": {
            "$anchor": "payload",
            "type": "object",
            "required": ["name"],
            # Pinned (lint's free_text_in_agent_view); the pattern takes "far too long a name",
            # so only maxLength rejects it below.
            "properties": {"name": {"type": "string", "pattern": "^[a-z ]+$", "maxLength": 10}},
            "additionalProperties": False,
        }
    },
}
BARE = "tool: thing\nversion: 1\nlimits: {max_bytes: 8192, max_depth: 8}\nagent_view:\n  name: /payload/name\n"


def _project(root: Path, schema: Any, contract: str = BARE, files: dict[str, Any] | None = None) -> Path:
    directory = root / "contracts" / "thing"
    (directory / "schemas").mkdir(parents=True)
    (directory / "contract.yaml").write_text(contract)
    (directory / "schemas" / "v1.json").write_text(json.dumps(schema))
    for name, content in (files or {}).items():
        (directory / "schemas" / name).write_text(json.dumps(content))
    return directory


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


# --------------------------------------------------------------------------- the reported crash


def test_an_anchor_reference_loads_checks_and_lints_from_a_users_project_without_a_traceback(tmp_path: Path) -> None:
    # The name behind the anchor is free text in the agent view: check's text_outside_pin finds
    # that (the schema reached through the anchor accepts "approve al"), and the user waives it.
    _project(tmp_path, ANCHORED, BARE + "waivers:\n  - {check: text_outside_pin, pointer: /payload/name, "
                                        "reason: \"a display name, shown and never acted on\"}\n")
    fixtures = tmp_path / "fixtures" / "accepted" / "thing"
    fixtures.mkdir(parents=True)
    (fixtures / "ok.json").write_text('{"payload": {"name": "x"}}')
    subfolder = tmp_path / "contracts" / "thing" / "schemas"  # run from below the project root
    check = _cli(subfolder, "check", "--no-progress")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Traceback" not in check.stderr and "all" in check.stdout and "held" in check.stdout
    lint = _cli(subfolder, "lint")
    assert lint.returncode == 0 and "Traceback" not in lint.stderr, lint.stdout + lint.stderr
    contract = load_contract(tmp_path / "contracts" / "thing")
    assert contract.view_schema()["properties"]["name"] == {"type": "string", "pattern": "^[a-z ]+$", "maxLength": 10}
    verdict = Boundary(contract).check(b'{"payload": {"name": "far too long a name"}}')
    assert verdict.code == "schema.maxLength" and verdict.layer == "schema"


def test_an_agent_view_pointer_misspelled_behind_an_anchor_is_named_at_load(tmp_path: Path) -> None:
    _project(tmp_path, ANCHORED, BARE.replace("/payload/name", "/payload/nmae"))
    with pytest.raises(ContractError) as raised:
        load_contract(tmp_path / "contracts" / "thing")
    assert raised.value.code == "contract.pointer" and "did you mean /payload/name?" in str(raised.value)


@pytest.mark.parametrize(("ref", "meant"), [("#paylaod", "payload"), ("#/$defs/pp", "p")])
def test_a_misspelt_reference_is_named_where_it_is_written_with_the_name_meant(
        tmp_path: Path, ref: str, meant: str) -> None:
    _project(tmp_path, {**ANCHORED, "properties": {"payload": {"$ref": ref}}})
    result = _cli(tmp_path, "check", "--no-progress")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("contract-harness: error: contract.invalid_schema: contracts/thing/schemas/v1.json:1:")
    assert f"/properties/payload/$ref: $ref '{ref}' names nothing in this schema (did you mean '{meant}'?)" in line


# --------------------------------------------------------------------------- references


def test_references_resolve_through_anchors_ids_and_pointers_with_their_status() -> None:
    schema = {
        "$id": "https://example.test/root.json",
        "$defs": {
            "a": {"$anchor": "aa", "type": "integer"},
            "b": {"$id": "b.json", "$defs": {"c": {"type": "null"}}, "$ref": "#/$defs/c"},
        },
        "allOf": [{"$ref": "#aa"}, {"$ref": "b.json"}, {"$ref": "#/$defs/missing"},
                  {"$ref": "https://elsewhere.test/x.json"}, {"$ref": "#nothere"}],
    }
    doc = Document(schema)
    refs = [doc.reference(n) for n in doc.kids(doc.root, "allOf")]
    assert [(r.status, r.target.pointer if r.target else None) for r in refs if r] == [
        ("local", "/$defs/a"), ("local", "/$defs/b"), ("dangling", None), ("remote", None), ("dangling", None)]
    inner = doc.by_pointer["/$defs/b"]
    assert inner.base == "https://example.test/b.json"
    assert doc.target(inner) is doc.by_pointer["/$defs/b/$defs/c"]  # resolved against b.json


def test_a_reference_to_another_file_of_the_contract_leads_into_that_files_document() -> None:
    other = {"$defs": {"id": {"$anchor": "ident", "type": "string", "maxLength": 8}}}
    doc = Document({"properties": {"id": {"$ref": "common.json#ident"}}}, base_uri="file:///c/schemas/v1.json",
                   resources=[("file:///c/schemas/common.json", other)])
    ref = doc.reference(doc.by_pointer["/properties/id"])
    assert ref is not None and ref.status == "contract" and ref.target is not None
    assert ref.target.pointer == "/$defs/id" and ref.target.document.schema is other
    assert [n.get("maxLength") for n in doc.governing(["id"])] == [None, 8]
    assert doc.declared(["id"]).certain


def test_draft_07_reads_an_id_beside_a_ref_and_the_ref_siblings_as_its_validators_do() -> None:
    schema = {"$schema": D7, "definitions": {"s": {"$id": "#str", "type": "string"}},
              "properties": {"x": {"$ref": "#str", "maxLength": 3}}}
    doc = Document(schema)
    node = doc.by_pointer["/properties/x"]
    assert doc.target(node) is doc.by_pointer["/definitions/s"]  # a draft-07 plain-name $id
    assert not node.has("maxLength")  # ignored beside $ref before 2019-09


def test_a_dynamic_reference_resolves_from_the_root_as_a_validator_starting_there_does() -> None:
    tree = {"$id": "https://example.test/tree", "$dynamicAnchor": "node", "type": "object",
            "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}
    strict = {"$id": "https://example.test/strict", "$dynamicAnchor": "node", "$ref": "tree",
              "unevaluatedProperties": False}
    doc = Document(strict, resources=[("https://example.test/tree", tree)])
    leaf = doc.target(doc.root)
    assert leaf is not None
    items = leaf.document.by_pointer["/properties/children/items"]
    ref = leaf.document.reference(items)
    assert ref is not None and ref.dynamic and ref.target is doc.root  # the outermost anchor
    assert not doc.declared(["children", "0", "x"]).certain  # a dynamic step proves nothing


def test_a_reference_cycle_that_never_moves_into_the_instance_is_found_and_a_tree_is_not() -> None:
    looped = Document({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                       "$ref": "#/$defs/a"})
    cycle = looped.in_place_cycle()
    assert cycle is not None and cycle[0].pointer == cycle[-1].pointer
    tree = Document({"$defs": {"n": {"properties": {"kids": {"items": {"$ref": "#/$defs/n"}}}}},
                     "$ref": "#/$defs/n"})
    assert tree.in_place_cycle() is None


def test_a_schema_its_meta_schema_rejects_is_read_without_a_crash() -> None:
    for schema in (None, 3, [1], {"$anchor": 1, "items": "x"}):
        doc = Document(schema)
        assert [n.pointer for n in doc.nodes] == [""] and doc.reference(doc.root) is None
    doc = Document({"$id": 5, "$defs": 1, "$ref": "#/a/b"})
    ref = doc.reference(doc.root)
    assert ref is not None and ref.status == "dangling" and ref.target is None


# --------------------------------------------------------------------------- instance pointers


def test_items_past_prefix_items_are_described_by_items_and_the_first_ones_are_not() -> None:
    doc = Document({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}})
    assert [n.pointer for n in doc.instance_nodes(["0"])] == ["/prefixItems/0"]
    assert [n.pointer for n in doc.instance_nodes(["1"])] == ["/items"]
    older = Document({"$schema": D7, "items": [{"type": "string"}], "additionalItems": {"type": "integer"}})
    assert [n.pointer for n in older.declared(["0"]).nodes] == ["/items/0"]
    assert [n.pointer for n in older.declared(["3"]).nodes] == ["/additionalItems"]


def test_additional_properties_describe_only_the_members_nothing_else_names() -> None:
    doc = Document({"properties": {"a": {"type": "string"}}, "patternProperties": {"^x-": {"type": "integer"}},
                    "additionalProperties": {"type": "boolean"}})
    assert [n.pointer for n in doc.declared(["a"]).nodes] == ["/properties/a"]
    assert [n.pointer for n in doc.declared(["x-1"]).nodes] == ["/patternProperties/^x-"]
    assert [n.pointer for n in doc.declared(["other"]).nodes] == ["/additionalProperties"]
    assert Document({"properties": {"a": {}}, "additionalProperties": False}).declared(["b"]).missing


def test_a_non_ascii_digit_is_no_array_index() -> None:
    doc = Document({"type": "array", "items": {"type": "string"}})
    assert doc.declared(["²"]).missing and doc.declared(["2"]).nodes


def test_walking_an_instance_pairs_each_value_with_the_subschemas_describing_it() -> None:
    doc = Document({"$defs": {"t": {"type": "string", "maxLength": 4}},
                    "properties": {"tags": {"type": "array", "items": {"$ref": "#/$defs/t"}}}})
    walked = {p: [n.pointer for n in nodes] for p, _, nodes in doc.walk_instance({"tags": ["a"], "x": 1})}
    assert walked == {"": [""], "/tags": ["/properties/tags"],
                      "/tags/0": ["/properties/tags/items", "/$defs/t"], "/x": []}


# --------------------------------------------------------------------------- the keyword table


def test_the_2020_12_keyword_sets_are_read_off_the_one_table() -> None:
    assert {"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems",
                               "contains", "propertyNames", "not", "if", "then", "else"} == keywords.SINGLE
    assert {"allOf", "anyOf", "oneOf", "prefixItems"} == keywords.LIST
    assert {"properties", "patternProperties", "dependentSchemas"} == keywords.MAP
    assert "format" in keywords.ASSERTIONS and not keywords.is_annotation("format")
    for keyword in keywords.SINGLE | keywords.LIST | keywords.MAP:
        assert dialects.slot("2020-12", keyword) is not None, keyword



def test_walk_visits_every_subschema_of_an_expanded_tree_root_first_in_document_order() -> None:
    from harness.schemas.dialects import Slot

    tree = {"type": "object", "properties": {"a/b": {"items": {"type": "string"}}, "c": True},
            "allOf": [{"$ref": {"minProperties": 1}}, False], "$ref": "#/kept-as-written",
            "enum": [{"properties": {}}], "not": {"required": ["x"]}}
    walked = [(path, slot) for path, _, slot in keywords.walk(tree)]
    assert walked == [((), None), (("properties", "a/b"), Slot.MAP), (("properties", "a/b", "items"), Slot.ONE),
                      (("properties", "c"), Slot.MAP), (("allOf", "0"), Slot.LIST), (("allOf", "0", "$ref"), Slot.ONE),
                      (("allOf", "1"), Slot.LIST), (("not",), Slot.ONE)]  # an enum's objects are data
    assert [path for path, _, _ in keywords.walk(tree, into={"allOf", "$ref"})] == [
        (), ("allOf", "0"), ("allOf", "0", "$ref"), ("allOf", "1")]
    assert keywords.map_held("allOf", tree["allOf"], lambda sub, tokens: "/".join(tokens)) == ["allOf/0", "allOf/1"]
    assert keywords.map_held("enum", tree["enum"], lambda sub, tokens: None) == tree["enum"]

def test_ref_and_dependencies_apply_in_place_in_the_dialects_that_define_them() -> None:
    assert {"$ref", "dependencies", "dependentSchemas"} <= dialects.IN_PLACE
    doc = Document({"$schema": D7, "dependencies": {"a": {"required": ["b"]}}})
    assert doc.by_pointer["/dependencies/a"].in_place


def test_an_asserted_format_is_a_constraint_and_an_unknown_one_an_annotation() -> None:
    assert not dialects.accepts_anything({"format": "date-time"})
    assert dialects.accepts_anything({"format": "no-such-format", "description": "x"})
    assert dialects.accepts_anything({"format": "uuid"}, "draft-07")  # not asserted before 2019-09


def test_expansion_drops_keywords_the_schemas_dialect_does_not_define() -> None:
    # A draft-07 validator ignores unevaluatedProperties; its 2020-12 form must not assert it.
    tree = expand({"$schema": D7, "type": "object", "unevaluatedProperties": False}).schema
    assert tree == {"type": "object"}


# --------------------------------------------------------------------------- one answer everywhere


def test_the_agent_view_copies_a_field_schema_whose_references_resolve_in_the_view() -> None:
    schema = {"properties": {"a": {"$ref": "#/properties/b"}, "b": {"$anchor": "bee", "type": "integer"},
                             "c": {"type": "array", "items": {"$ref": "#bee"}}}}
    doc = Document(schema)
    bundle = Bundle(doc)
    copied = bundle.any_of(doc.instance_nodes(["c"]))
    assert copied == {"type": "array", "items": {"$ref": "#/$defs/properties.b"}}
    assert bundle.defs == {"$defs": {"properties.b": {"type": "integer"}}}
    assert bundle.any_of(doc.instance_nodes(["a"])) == {"type": "integer"}  # a bare reference is its target


def test_drift_shapes_follow_anchor_references_like_the_boundary() -> None:
    shape = schema_shape(ANCHORED)
    assert shape.types["/payload/name"] == {"string"}
    assert "/payload/name" in shape.required


def test_inner_positions_follow_members_items_references_and_branches_each_once() -> None:
    schema = {
        "type": "object",
        "properties": {
            "run": {"$ref": "#/$defs/run"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
            "never": False,
        },
        "oneOf": [{"properties": {"kind": {"const": "a"}}}, {"properties": {"kind": {"const": "b"}}}],
        "$defs": {"run": {"type": "object", "properties": {"id": {"type": "string"},
                                                           "parent": {"$ref": "#/$defs/run"}}}},
    }
    document = Document(schema)
    found = [(tokens, node.pointer) for tokens, node in document.inner_positions(document.root)]
    assert found == [
        (("run",), "/properties/run"),
        (("tags",), "/properties/tags"),
        (("extra",), "/properties/extra"),
        (("kind",), "/oneOf/0/properties/kind"),
        (("kind",), "/oneOf/1/properties/kind"),
        (("run", "id"), "/$defs/run/properties/id"),
        (("run", "parent"), "/$defs/run/properties/parent"),
        (None, "/properties/tags/items"),
        (None, "/properties/extra/additionalProperties"),
    ]
