"""Every lint rule, positive and negative, table-driven.

Schema cases lint a bare schema with only the rule under test selected and compare the
pointers found. Contract cases write a throwaway contract (``make_contract``). The last tests
check that every registered rule has at least one case of each kind.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from harness.lint import RULES, lint_contract, lint_schema
from harness.schemas.dialects import ASSERTED_FORMATS, ORDER
from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema

D07 = "http://json-schema.org/draft-07/schema#"
D04 = "http://json-schema.org/draft-04/schema#"
STR = {"type": "string", "maxLength": 8}
CODES = {"enum": ["NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE"]}


def closed(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


@dataclass(frozen=True)
class Case:
    rule: str
    schema: Any
    expected: list[str]  # pointers the rule reports; [] for a negative case
    id: str
    file: str = "<schema>"


CASES = [
    # ---------------------------------------------------------------- open_object
    Case("open_object", {"type": "object", "properties": {"a": {"type": "boolean"}}}, [""],
         "object without additionalProperties"),
    Case("open_object", {**closed(p={"$ref": "#/$defs/x"}),
                         "$defs": {"x": {"type": "object", "properties": {"a": STR}}}},
         ["/$defs/x"], "definition used open is reported at the definition"),
    Case("open_object", {"$schema": D07, "type": "object", "properties": {"a": STR},
                         "unevaluatedProperties": False}, [""],
         "unevaluatedProperties closes nothing in draft-07"),
    Case("open_object", {"type": "object", "properties": {"a": STR},
                         "additionalProperty": False}, [""], "a typo closes nothing"),
    Case("open_object", {"type": "object", "properties": {"a": STR},
                         "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, [""],
         "oneOf branches that only require do not close"),
    Case("open_object", closed(a=STR), [], "additionalProperties false closes"),
    Case("open_object", {"type": "object", "properties": {"b": STR},
                         "allOf": [{"$ref": "#/$defs/base"}], "unevaluatedProperties": False,
                         "$defs": {"base": {"type": "object", "properties": {"a": STR}}}}, [],
         "a base closed by unevaluatedProperties at its only use is not open"),
    Case("open_object", envelope_schema("t"), [], "oneOf of closed branches is closed"),
    Case("open_object", {"type": "object", "additionalProperties": STR}, [],
         "a map is the free_form_map rule's business"),
    # ------------------------------------------------ closed_with_additional_properties
    Case("closed_with_additional_properties",
         {**closed(b=STR), "allOf": [{"properties": {"a": STR}}]}, ["/additionalProperties"],
         "additionalProperties rejects members declared in allOf"),
    Case("closed_with_additional_properties",
         {"allOf": [{"$ref": "#/$defs/base"}], "properties": {"b": STR},
          "$defs": {"base": closed(a=STR)}}, [""],
         "a closed base rejects the members declared beside it"),
    Case("closed_with_additional_properties",
         {"type": "object", "allOf": [{"properties": {"a": STR}}], "properties": {"b": STR},
          "unevaluatedProperties": False}, [], "unevaluatedProperties sees through allOf"),
    Case("closed_with_additional_properties",
         {**closed(a=STR, b=STR), "allOf": [{"properties": {"a": {"minLength": 1}}}]}, [],
         "repeating every member at the closing level works"),
    # ---------------------------------------------------------------- free_form_map
    Case("free_form_map", {"type": "object", "additionalProperties": STR},
         ["/additionalProperties"], "additionalProperties schema without bounds"),
    Case("free_form_map", {"type": "object", "additionalProperties": False,
                           "patternProperties": {"^x-[a-z]{1,9}$": {"type": "boolean"}}},
         ["/patternProperties"], "patternProperties without maxProperties"),
    Case("free_form_map", {"type": "object", "additionalProperties": STR, "maxProperties": 4,
                           "propertyNames": {"pattern": "^[a-z]{1,8}$"}}, [],
         "a map with maxProperties and propertyNames"),
    Case("free_form_map", closed(a=STR), [], "no map at all"),
    # ---------------------------------------------------------------- untyped_value
    Case("untyped_value", closed(payload={"description": "anything goes"}),
         ["/properties/payload"], "a member with only a description"),
    Case("untyped_value", {"type": "array", "maxItems": 2, "items": True}, ["/items"],
         "items: true"),
    Case("untyped_value", closed(a={"type": "boolean"}, b={"$ref": "#/$defs/b"}) | {
        "$defs": {"b": {"type": "boolean"}}}, [], "typed and referenced members"),
    # ---------------------------------------------------------------- unbounded_string
    Case("unbounded_string", {"type": "string"}, [""], "string without maxLength"),
    Case("unbounded_string", {"type": ["string", "null"], "pattern": "^a+$"}, [""],
         "nullable string with only a pattern"),
    Case("unbounded_string", {"$schema": D07, **closed(n={"$ref": "#/definitions/s",
                                                            "maxLength": 3}),
                              "definitions": {"s": {"type": "string"}}}, ["/definitions/s"],
         "maxLength beside $ref is ignored in draft-07"),
    Case("unbounded_string", {"type": "string", "maxLength": 3}, [], "maxLength"),
    Case("unbounded_string", {"type": "string", "enum": ["a", "b"]}, [], "enum"),
    Case("unbounded_string", {"type": "string", "allOf": [{"maxLength": 4}]}, [],
         "maxLength in an allOf branch"),
    Case("unbounded_string", {**closed(n={"$ref": "#/$defs/s", "maxLength": 3}),
                              "$defs": {"s": {"type": "string"}}}, [],
         "maxLength beside $ref applies in 2020-12"),
    # ---------------------------------------------------------------- unbounded_array
    Case("unbounded_array", {"type": "array", "items": {"type": "boolean"}}, [""],
         "array without maxItems"),
    Case("unbounded_array", {"type": "array", "maxItems": 3, "items": {"type": "boolean"}}, [],
         "maxItems"),
    Case("unbounded_array", {"type": "array", "prefixItems": [{"type": "boolean"}],
                             "items": False}, [], "a closed tuple"),
    # ---------------------------------------------------------------- unbounded_number
    Case("unbounded_number", closed(id={"type": "integer"}), ["/properties/id"],
         "integer identifier without bounds"),
    Case("unbounded_number", closed(retry_count={"type": "integer", "minimum": 0}),
         ["/properties/retry_count"], "count without maximum"),
    Case("unbounded_number", closed(check_run_ids={"type": "array", "maxItems": 3,
                                                   "items": {"type": "integer"}}),
         ["/properties/check_run_ids/items"], "items of an *_ids array"),
    Case("unbounded_number", closed(id={"type": "integer", "minimum": 1,
                                        "maximum": 9007199254740991}), [], "bounded identifier"),
    Case("unbounded_number", closed(temperature={"type": "number"}), [],
         "a measurement is not an identifier or count"),
    # ---------------------------------------------------------------- identifier_without_pattern
    Case("identifier_without_pattern", closed(request_id={"type": "string", "maxLength": 64}),
         ["/properties/request_id"], "request_id without pattern"),
    Case("identifier_without_pattern", {**closed(runId={"$ref": "#/$defs/rid"}),
                                        "$defs": {"rid": STR}}, ["/properties/runId"],
         "camelCase identifier through $ref"),
    Case("identifier_without_pattern", {"$schema": D07, **closed(
        node_id={"type": "string", "format": "uuid", "maxLength": 36})},
         ["/properties/node_id"], "format uuid is not asserted in draft-07"),
    Case("identifier_without_pattern", closed(run_id={"type": "string", "maxLength": 20,
                                                      "pattern": "^run_[a-z0-9]{1,16}$"}), [],
         "identifier with a pattern"),
    Case("identifier_without_pattern", closed(node_id={"type": "string", "format": "uuid",
                                                       "maxLength": 36}), [],
         "format uuid is asserted in 2020-12"),
    Case("identifier_without_pattern", closed(identity=STR), [], "identity is not an id"),
    # ---------------------------------------------------------------- unanchored_pattern
    Case("unanchored_pattern", {"type": "string", "pattern": "[a-z]+"}, ["/pattern"],
         "no anchors"),
    Case("unanchored_pattern", {"type": "string", "pattern": "^a\\$"}, ["/pattern"],
         "an escaped $ is not an anchor"),
    Case("unanchored_pattern", {"type": "string", "pattern": "^a|b$"}, ["/pattern"],
         "top-level alternation"),
    Case("unanchored_pattern", {"type": "object", "patternProperties": {"x-": STR}},
         ["/patternProperties/x-"], "patternProperties key"),
    Case("unanchored_pattern", {"type": "string", "pattern": "^(?:a|b)[0-9]{1,3}$"}, [],
         "anchored, alternation grouped"),
    Case("unanchored_pattern", {"type": "string", "not": {"pattern": "admin"}}, [],
         "a pattern under not is a deliberate search"),
    # ---------------------------------------------------------------- dialect_dependent_pattern
    Case("dialect_dependent_pattern", {"type": "string", "pattern": "^\\d{3}$"}, ["/pattern"],
         "\\d"),
    Case("dialect_dependent_pattern", {"type": "string", "pattern": "^\\p{L}+$"}, ["/pattern"],
         "\\p{L}"),
    Case("dialect_dependent_pattern", {"type": "string", "pattern": "^(?P<x>a)$"}, ["/pattern"],
         "python named group"),
    Case("dialect_dependent_pattern", {"type": "object", "patternProperties": {"^\\w+$": STR}},
         ["/patternProperties/^\\w+$"], "patternProperties key"),
    Case("dialect_dependent_pattern", {"type": "string", "pattern": "^[0-9]{3}$"}, [],
         "explicit class"),
    Case("dialect_dependent_pattern", {"type": "string", "pattern": "^\\\\d$"}, [],
         "an escaped backslash followed by d"),
    # ---------------------------------------------------------------- format_on_non_string
    Case("format_on_non_string", {"type": "integer", "format": "int64"}, ["/format"],
         "int64 on an integer"),
    Case("format_on_non_string", {"type": "string", "format": "date-time", "maxLength": 40}, [],
         "format on a string"),
    Case("format_on_non_string", {"format": "date-time"}, [], "format on an untyped value"),
    # ---------------------------------------------------------------- unasserted_format
    Case("unasserted_format", {"type": "string", "format": "repo-name"}, ["/format"],
         "unknown format name"),
    Case("unasserted_format", {"$schema": D07, "type": "string", "format": "uuid"}, ["/format"],
         "uuid in draft-07"),
    Case("unasserted_format", {"type": "string", "format": "uuid"}, [], "uuid in 2020-12"),
    Case("unasserted_format", {"type": "integer", "format": "int64"}, [],
         "a non-string format is the other rule's business"),
    # ------------------------------------------------ envelope_without_discriminator
    Case("envelope_without_discriminator",
         {"oneOf": [closed(a=STR), closed(b=STR)]}, ["/oneOf"], "oneOf of objects without const"),
    Case("envelope_without_discriminator",
         {"anyOf": [closed(kind={"const": "x"}), closed(kind={"const": "x"})]}, ["/anyOf"],
         "the same const in both branches"),
    Case("envelope_without_discriminator",
         {"oneOf": [closed(kind={"const": "x"}), closed(kind={"enum": ["y"]})]}, [],
         "distinct const and one-value enum"),
    Case("envelope_without_discriminator", {"oneOf": [closed(a=STR), {"type": "null"}]}, [],
         "one object and null"),
    # ---------------------------------------------------------------- open_error_code
    Case("open_error_code", closed(error=closed(code=STR)), ["/properties/error/properties/code"],
         "code in an error object"),
    Case("open_error_code", closed(errors={"type": "array", "maxItems": 5,
                                           "items": closed(code=STR)}),
         ["/properties/errors/items/properties/code"], "code in the items of errors"),
    Case("open_error_code", closed(errorCode=STR), ["/properties/errorCode"], "errorCode"),
    Case("open_error_code", closed(error=closed(code={"enum": ["NOT_FOUND"]})), [],
         "an enum of codes"),
    Case("open_error_code", closed(status=closed(code=STR)), [], "code outside an error object"),
    # ---------------------------------------------------------------- remote_ref
    Case("remote_ref", {"$ref": "https://schemas.example.com/item.json"}, ["/$ref"],
         "network reference"),
    Case("remote_ref", {"$ref": "other.json#/$defs/x"}, ["/$ref"], "another file",
         file="/tmp/lint-case/schema.json"),
    Case("remote_ref", {"$defs": {"x": {"type": "boolean"}}, "$ref": "#/$defs/x"}, [],
         "local reference"),
    Case("remote_ref", {"$id": "urn:example:item", "$defs": {"x": {"type": "boolean"}},
                        "$ref": "#/$defs/x"}, [], "local reference under a URN $id"),
    # ---------------------------------------------------------------- dangling_ref
    Case("dangling_ref", {"$ref": "#/$defs/missing"}, ["/$ref"], "missing definition"),
    Case("dangling_ref", {"$ref": "#nope"}, ["/$ref"], "missing anchor"),
    Case("dangling_ref", {"$id": "https://x.test/a.json", "$ref": "#bee",
                          "$defs": {"b": {"$anchor": "bee", "type": "boolean"}}}, [],
         "anchor"),
    Case("dangling_ref", {"$schema": D04, "id": "https://x.test/a.json", "$ref": "#bee",
                          "definitions": {"b": {"id": "#bee", "type": "boolean"}}}, [],
         "draft-04 id anchor"),
    # ---------------------------------------------------------------- unknown_dialect
    Case("unknown_dialect", {"$schema": "http://json-schema.org/draft-03/schema#"}, ["/$schema"],
         "draft-03"),
    Case("unknown_dialect", {"$schema": D07, "type": "boolean"}, [], "draft-07"),
    # ---------------------------------------------------------------- unknown_keyword
    Case("unknown_keyword", {"type": "object", "additionalProperty": False},
         ["/additionalProperty"], "typo"),
    Case("unknown_keyword", {"$schema": D07, "unevaluatedProperties": False},
         ["/unevaluatedProperties"], "a 2019-09 keyword in draft-07"),
    Case("unknown_keyword", {"type": "string", "nullable": True}, ["/nullable"],
         "OpenAPI nullable"),
    Case("unknown_keyword", {"type": "object", "x-internal": True,
                             "properties": {"additionalProperty": STR}}, [],
         "x- extension, and a member named like a keyword"),
    # ---------------------------------------------------------------- ignored_beside_ref
    Case("ignored_beside_ref", {"$schema": D07, "$ref": "#/definitions/a",
                                "additionalProperties": False,
                                "definitions": {"a": {"type": "object"}}}, [""],
         "additionalProperties beside $ref in draft-07"),
    Case("ignored_beside_ref", {"$ref": "#/$defs/a", "additionalProperties": False,
                                "$defs": {"a": {"type": "object"}}}, [], "2020-12"),
    Case("ignored_beside_ref", {"$schema": D07, "$ref": "#/definitions/a", "description": "x",
                                "definitions": {"a": {"type": "boolean"}}}, [],
         "an annotation beside $ref"),
    # ---------------------------------------------------------------- invalid_schema
    Case("invalid_schema", {"type": "strnig"}, ["/type"], "bad type name"),
    Case("invalid_schema", {"type": "string", "pattern": "("}, ["/pattern"],
         "pattern that does not compile"),
    Case("invalid_schema", [1, 2], [""], "not a schema at all"),
    Case("invalid_schema", closed(a=STR), [], "a valid schema"),
]


def _pointers(case: Case) -> list[str]:
    report = lint_schema(copy.deepcopy(case.schema), file=case.file, select=[case.rule])
    assert all(f.rule == case.rule for f in report.findings)
    return [f.pointer for f in report.findings]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.rule}: {c.id}")
def test_schema_rule_reports_exactly_the_expected_pointers(case: Case) -> None:
    assert sorted(_pointers(case)) == sorted(case.expected)


def test_a_dangling_reference_names_the_definition_or_anchor_meant() -> None:
    schema = {"$defs": {"payload": {"type": "string"}, "other": {"$anchor": "item", "type": "integer"}},
              "properties": {"a": {"$ref": "#/$defs/paylaod"}, "b": {"$ref": "#itme"}}}
    messages = sorted(f.message for f in lint_schema(schema, select=["dangling_ref"]).findings)
    assert messages == ["$ref '#/$defs/paylaod' points at nothing in this document (did you mean 'payload'?)",
                        "$ref '#itme' points at nothing in this document (did you mean 'item'?)"]


# --------------------------------------------------------------------------- contract cases


def _with_message(message_schema: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(ENVELOPE_DATA)
    data["properties"]["message"] = message_schema
    return envelope_schema("item_status", data)


def _one_object_envelope() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["tool", "request_id", "outcome"],
        "properties": {
            "tool": {"const": "item_status"},
            "request_id": {"type": "string", "maxLength": 64, "pattern": "^[a-z.A-Z0-9]{8,64}$"},
            "outcome": {"enum": ["success", "failure"]},
            "data": ENVELOPE_DATA,
            "error": closed(code={"type": "string", "maxLength": 32},
                            retryable={"type": "boolean"}),
        },
        "additionalProperties": False,
    }


def _with_sibling_reference() -> dict[str, Any]:
    schema = envelope_schema("item_status")
    error = schema["oneOf"][1]["properties"]["error"]["properties"]
    error["code"] = {"$ref": "common.json#/$defs/code"}
    return schema


def _with_seen(seen: dict[str, Any]) -> dict[str, Any]:
    return envelope_schema("item_status", {**ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"], "seen": seen}})


WITH_NOTE_UNBOUNDED = envelope_schema("item_status", {
    **ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"], "note": {"type": "string"}}})
NOTE = "/oneOf/0/properties/data/properties/note"
MESSAGE = "/oneOf/0/properties/data/properties/message"
STATUS = "/oneOf/0/properties/data/properties/status"
ITEM_ID = "/oneOf/0/properties/data/properties/item_id"


def _with_field(name: str, field_schema: Any) -> dict[str, Any]:
    return envelope_schema("item_status", {
        **ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"], name: field_schema}})


ITEM_YAML = DEFAULT_YAML.format(tool="item_status")
def _with_status_argument(status: str) -> str:
    """The item contract whose request also takes a status (unbound), given as ``status``."""
    return ITEM_YAML.replace("item_id: {type: string}}", "item_id: {type: string}, status: {type: string}}"
                             ).replace("example: {item_id: it-7}", f"example: {{item_id: it-7, status: {status}}}")


# The caller asks by key; the result names it item_id: only the fixtures show the echo.
ECHO_BY_VALUE = """\
tool: item_status
version: 1
request:
  schema: {type: object, properties: {key: {type: string, maxLength: 9}}}
  example: {key: it-4242}
agent_view:
  item_id: /data/item_id
  status: /data/status
"""


def _fixture_holding(item_id: str, name: str = "open", args: dict[str, str] | None = None) -> dict[str, str]:
    """An accepted fixture whose result names ``item_id``, asked with ``args`` (default: the
    contract's request example)."""
    result = {"tool": "item_status", "request_id": "req.J7q94MkP", "outcome": "success",
              "data": {"item_id": item_id, "status": "open"}}
    files = {f"fixtures/accepted/item_status/{name}.json": json.dumps(result)}
    if args is not None:
        files[f"fixtures/accepted/item_status/{name}.case.yaml"] = json.dumps({"request": {"args": args}})
    return files


@dataclass(frozen=True)
class ContractCase:
    rule: str
    expected: list[tuple[str, str]]  # (schema label, pointer)
    id: str
    schemas: dict[int, Any] = field(default_factory=lambda: {1: envelope_schema("item_status")})
    yaml_extra: str = ""
    files: dict[str, str] = field(default_factory=dict)
    also_run: tuple[str, ...] = ()  # rules a waiver case needs to run as well
    yaml: str | None = None  # the whole contract.yaml, instead of the default plus yaml_extra
    current: int = 1  # the contract's version: (older) versions beside it are linted too


CONTRACT_CASES = [
    ContractCase("free_text_in_agent_view", [("v1", MESSAGE)], "upstream message in the agent view",
                 {1: _with_message({"type": "string", "maxLength": 200})}, "  message: /data/message\n"),
    ContractCase("free_text_in_agent_view", [("v1", STATUS)],
                 "an enum replaced by a bounded string, whatever the field's name",
                 {1: _with_field("status", {"type": "string", "maxLength": 32})}),
    ContractCase("free_text_in_agent_view", [("v1", ITEM_ID)],
                 "an identifier whose pattern is not anchored (it matches any string containing it-7)",
                 {1: _with_field("item_id", {"type": "string", "pattern": "it-[0-9]", "maxLength": 9})}),
    ContractCase("free_text_in_agent_view", [("v1", ITEM_ID)], "format regex takes a sentence",
                 {1: _with_field("item_id", {"type": "string", "format": "regex", "maxLength": 9})}),
    ContractCase("free_text_in_agent_view", [("v1", "/oneOf/0/properties/data/properties/note")],
                 "a view field that is an object: the strings inside it count",
                 yaml_extra="  data: /data\n"),
    ContractCase("free_text_in_agent_view", [("v1", STATUS + "/oneOf/1")],
                 "a oneOf with one unpinned string branch",
                 {1: _with_field("status", {"oneOf": [{"enum": ["open"]}, {"type": "string", "maxLength": 9}]})}),
    ContractCase("free_text_in_agent_view", [("v1", STATUS)], "no type at all: a string passes",
                 {1: _with_field("status", {"maxLength": 9})}),
    ContractCase("free_text_in_agent_view", [], "message constrained to an enum",
                 {1: _with_message({"enum": ["done", "queued"]})}, "  message: /data/message\n"),
    ContractCase("free_text_in_agent_view", [], "message present but not in the agent view",
                 {1: _with_message({"type": "string", "maxLength": 200})}),
    ContractCase("free_text_in_agent_view", [], "pinned by an asserted format, or a string-or-integer union",
                 {1: _with_field("status", {"oneOf": [{"type": "string", "format": "date-time"},
                                                      {"type": "integer", "minimum": 0, "maximum": 9}]})}),
    ContractCase("free_text_in_agent_view", [], "pinned through $ref and allOf",
                 {1: {**_with_field("status", {"allOf": [{"$ref": "#/$defs/state"}], "maxLength": 9}),
                      "$defs": {"state": {"type": "string", "pattern": "^(?:open|closed)$"}}}}),
    ContractCase("unbounded_string", [("v1", NOTE)], "a maxLength past the contract's max_bytes bounds nothing",
                 {1: _with_field("note", {"type": "string", "maxLength": 1_000_000})}, "limits: {max_bytes: 4096}\n"),
    ContractCase("unbounded_string", [], "a maxLength under the contract's max_bytes",
                 {1: _with_field("note", {"type": "string", "maxLength": 4000})}, "limits: {max_bytes: 4096}\n"),
    ContractCase("unbound_echo", [("contract", "/request/schema/properties/item_id")],
                 "the result names the argument and no binding compares them",
                 yaml=ITEM_YAML.split("bindings:")[0] + "agent_view:\n  item_id: /data/item_id\n"),
    ContractCase("unbound_echo", [("contract", "/request/schema/properties/item_id")],
                 "the argument's binding compares another member",
                 yaml=ITEM_YAML.replace("result: /data/item_id", "result: /data/status")),
    ContractCase("unbound_echo", [("contract", "/request/schema/properties/key")],
                 "a differently named argument whose values two accepted results hold",
                 yaml=ECHO_BY_VALUE, files=_fixture_holding("it-4242") | _fixture_holding(
                     "it-5151", "other", {"key": "it-5151"})),
    ContractCase("unbound_echo", [], "the echo is bound"),
    ContractCase("unbound_echo", [], "a member of the argument's name that is an array: content, not identity",
                 {1: _with_field("tags", {"type": "array", "maxItems": 3, "items": {"enum": ["a"]}})},
                 yaml=ITEM_YAML.replace("item_id: {type: string}}", "item_id: {type: string}, tags: {type: array}}")),
    ContractCase("unbound_echo", [], "a member of the argument's name typed by branches: an object or null",
                 {1: _with_field("tags", {"anyOf": [closed(a=STR), {"type": "null"}]})},
                 yaml=ITEM_YAML.replace("item_id: {type: string}}", "item_id: {type: string}, tags: {type: string}}")),
    ContractCase("unbound_echo", [], "an accepted fixture holds another value under the argument's name",
                 yaml=_with_status_argument("closed"), files=_fixture_holding("it-7")),
    ContractCase("unbound_echo", [("contract", "/request/schema/properties/status")],
                 "the accepted fixture agrees with the name",
                 yaml=_with_status_argument("open"), files=_fixture_holding("it-7")),
    ContractCase("unbound_echo", [], "one example cannot tell an echo by value from a coincidence",
                 yaml=ECHO_BY_VALUE, files=_fixture_holding("it-4242")),
    ContractCase("wide_freshness_window", [("contract", "/freshness/0/max_age"),
                                           ("contract", "/freshness/0/max_future_skew")],
                 "a year of age and a month of skew",
                 {1: _with_seen({"type": "string", "format": "date-time", "maxLength": 35})},
                 "freshness: [{field: /data/seen, max_age: P365D, max_future_skew: P30D}]\n"),
    ContractCase("wide_freshness_window", [], "windows at their ceilings",
                 {1: _with_seen({"type": "string", "format": "date-time", "maxLength": 35})},
                 "freshness: [{field: /data/seen, max_age: P7D, max_future_skew: PT5M}]\n"),
    ContractCase("envelope_without_discriminator", [("v1", "")],
                 "one object for success and failure", {1: _one_object_envelope()}),
    ContractCase("envelope_without_discriminator", [], "the oneOf envelope"),
    ContractCase("open_error_code", [("v1", "/properties/error/properties/code")],
                 "envelope error code that is any string", {1: _one_object_envelope()}),
    ContractCase("open_error_code", [], "envelope error code that is an enum"),
    ContractCase("remote_ref", [], "reference to a sibling schema file of the contract",
                 {1: _with_sibling_reference()}, files={"contracts/item_status/schemas/common.json":
                                                        json.dumps({"$defs": {"code": CODES}})}),
    ContractCase("undeclared_pointer", [("contract", "/bindings/0/result"), ("contract", "/agent_view/item_id")],
                 "v1 has no item_id, which v2 (current) declares",
                 {1: envelope_schema("item_status", {**ENVELOPE_DATA, "required": ["status"], "properties": {
                     "status": ENVELOPE_DATA["properties"]["status"]}}), 2: envelope_schema("item_status")},
                 current=2),
    ContractCase("undeclared_pointer", [], "every version declares every pointer",
                 {1: envelope_schema("item_status"), 2: envelope_schema("item_status")}, current=2),
    ContractCase("freshness_not_date_time", [("contract", "/freshness/0/field")],
                 "v1's seen is any string", {1: _with_seen({"type": "string", "maxLength": 40}),
                                             2: _with_seen({"type": "string", "format": "date-time"})},
                 "freshness: [{field: /data/seen, max_age: PT5M}]\n", current=2),
    ContractCase("freshness_not_date_time", [], "seen is a date-time in every version",
                 {1: _with_seen({"type": "string", "format": "date-time"}),
                  2: _with_seen({"type": "string", "format": "date-time"})},
                 "freshness: [{field: /data/seen, max_age: PT5M}]\n", current=2),
    ContractCase("unused_waiver", [("contract", "/waivers/0")], "waiver that matches nothing",
                 yaml_extra="waivers:\n  - {rule: open_object, pointer: /nowhere, "
                            "reason: because}\n",
                 also_run=("open_object",)),
    ContractCase("unused_waiver", [("contract", "/waivers/0/rule")], "waiver for no rule",
                 yaml_extra="waivers:\n  - {rule: open_objet, pointer: '', reason: because}\n"),
    ContractCase("unused_waiver", [("contract", "/waivers/0/schema")], "waiver for no schema",
                 yaml_extra="waivers:\n  - {rule: unbounded_string, schema: v9, pointer: "
                            f"{NOTE}, reason: because}}\n", schemas={1: WITH_NOTE_UNBOUNDED}),
    ContractCase("unused_waiver", [("contract", "/waivers/0/check")], "check waiver for no operator",
                 yaml_extra="waivers:\n  - {check: text_outside_pins, pointer: /data/note, reason: because}\n"),
    ContractCase("unused_waiver", [], "check waiver for an operator (check says if it matched)",
                 yaml_extra="waivers:\n  - {check: text_outside_pin, pointer: /nowhere, reason: because}\n"),
    ContractCase("unused_waiver", [], "waiver that matches",
                 yaml_extra="waivers:\n  - {rule: unbounded_string, schema: v1, pointer: "
                            f"{NOTE}, reason: because}}\n", schemas={1: WITH_NOTE_UNBOUNDED},
                 also_run=("unbounded_string",)),
]


def _agent_view_yaml(extra_view: str, extra: str) -> str:
    view_end = DEFAULT_YAML.format(tool="item_status")
    return view_end + extra_view + extra


@pytest.mark.parametrize("case", CONTRACT_CASES, ids=lambda c: f"{c.rule}: {c.id}")
def test_contract_rule_reports_exactly_the_expected_places(
    case: ContractCase, make_contract: Callable[..., Path]
) -> None:
    view = case.yaml_extra if case.yaml_extra.startswith("  ") else ""
    rest = "" if view else case.yaml_extra
    yaml_text = case.yaml or _agent_view_yaml(view, rest).replace("version: 1", f"version: {case.current}")
    directory = make_contract(yaml_text=yaml_text, schemas=case.schemas, files=case.files)
    report = lint_contract(directory, select=[case.rule, *case.also_run])
    found = [(f.schema, f.pointer) for f in report.findings if f.rule == case.rule]
    assert sorted(found) == sorted(case.expected)


def test_a_matching_waiver_moves_the_finding_to_waived_with_its_reason(
    make_contract: Callable[..., Path],
) -> None:
    yaml_text = DEFAULT_YAML.format(tool="item_status") + (
        "waivers:\n  - {rule: unbounded_string, schema: v1, pointer: "
        f"{NOTE}, reason: legacy note field}}\n")
    report = lint_contract(make_contract(yaml_text=yaml_text, schemas={1: WITH_NOTE_UNBOUNDED}))
    assert report.findings == ()
    [waived] = report.waived
    assert (waived.finding.rule, waived.finding.pointer, waived.waiver.reason, waived.index) == (
        "unbounded_string", NOTE, "legacy note field", 0)


def test_a_waiver_for_another_schema_version_does_not_apply(
    make_contract: Callable[..., Path],
) -> None:
    yaml_text = DEFAULT_YAML.format(tool="item_status") + (
        "waivers:\n  - {rule: unbounded_string, schema: v2, pointer: "
        f"{NOTE}, reason: because}}\n")
    directory = make_contract(yaml_text=yaml_text,
                              schemas={1: WITH_NOTE_UNBOUNDED, 2: envelope_schema("item_status")})
    report = lint_contract(directory, select=["unbounded_string", "unused_waiver"])
    assert sorted((f.rule, f.schema, f.pointer) for f in report.findings) == [
        ("unbounded_string", "v1", NOTE), ("unused_waiver", "contract", "/waivers/0")]


def test_a_waiver_for_a_rule_that_did_not_run_is_not_reported_unused(
    make_contract: Callable[..., Path],
) -> None:
    yaml_text = DEFAULT_YAML.format(tool="item_status") + (
        "waivers:\n  - {rule: open_object, pointer: /nowhere, reason: because}\n")
    report = lint_contract(make_contract(yaml_text=yaml_text),
                           select=["unbounded_string", "unused_waiver"])
    assert report.findings == ()


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    ("schema", "rule", "message", "fix"),
    [
        ({"type": "object", "additionalProperty": False}, "unknown_keyword",
         "unknown keyword 'additionalProperty' (did you mean 'additionalProperties'?): "
         "validators ignore it", None),
        ({"$schema": D07, "unevaluatedProperties": False}, "unknown_keyword",
         "'unevaluatedProperties' is not a draft-07 keyword (it belongs to 2019-09, 2020-12); "
         "draft-07 validators ignore it", None),
        ({"type": "string", "maxLength": 9, "pattern": "^\\d{3}$"}, "dialect_dependent_pattern",
         "pattern '^\\\\d{3}$' uses \\d, which regex engines read differently",
         "spell it out: \\d -> [0-9]"),
        (closed(id={"type": "integer", "minimum": 0}), "unbounded_number",
         "'id' is an identifier with no maximum", None),
        ({"type": "integer", "format": "int64"}, "format_on_non_string",
         "format 'int64' on a integer value asserts nothing", None),
    ],
)
def test_messages_name_the_problem_in_one_line(
    schema: Any, rule: str, message: str, fix: str | None
) -> None:
    [finding] = lint_schema(schema, select=[rule]).findings
    assert finding.message == message
    assert finding.fix == (fix or RULES[rule].fix)
    assert "\n" not in finding.message and "\n" not in finding.fix


# --------------------------------------------------------------------------- the catalogue


def test_every_rule_has_a_positive_and_a_negative_case() -> None:
    positive = {c.rule for c in CASES if c.expected} | {c.rule for c in CONTRACT_CASES
                                                         if c.expected}
    negative = {c.rule for c in CASES if not c.expected} | {c.rule for c in CONTRACT_CASES
                                                             if not c.expected}
    assert set(RULES.ids) - positive == set(), "rules without a positive case"
    assert set(RULES.ids) - negative == set(), "rules without a negative case"


def test_every_rule_has_a_one_line_summary_a_fix_and_a_docstring() -> None:
    for rule in RULES:
        assert rule.summary and "\n" not in rule.summary, rule.id
        assert rule.fix and "\n" not in rule.fix, rule.id
        assert rule.check.__doc__ and rule.description != rule.summary, rule.id
        assert rule.check.__name__ == rule.id


_BAD_VALUES = {
    "date": "x", "date-time": "x", "time": "x", "duration": "x", "email": "x",
    "idn-email": "x", "hostname": "-x-", "idn-hostname": "-x-", "ipv4": "x", "ipv6": "x",
    "iri": "x y", "iri-reference": "\\\\", "uri": "x y", "uri-reference": "\\\\ x",
    "uri-template": "{", "json-pointer": "x", "relative-json-pointer": "x", "regex": "(",
    "uuid": "x", "int64": "x", "repo-name": "x y",
}
_URIS = {"draft-04": D04, "draft-06": "http://json-schema.org/draft-06/schema#", "draft-07": D07,
         "2019-09": "https://json-schema.org/draft/2019-09/schema",
         "2020-12": "https://json-schema.org/draft/2020-12/schema"}


@pytest.mark.parametrize("dialect", ORDER)
def test_the_asserted_formats_table_matches_the_pinned_validator(dialect: str) -> None:
    asserted = {
        name for name, bad in _BAD_VALUES.items()
        if not jsonschema_rs.validator_for({"$schema": _URIS[dialect], "format": name},
                                           validate_formats=True).is_valid(bad)
    }
    assert asserted == set(ASSERTED_FORMATS[dialect])


def test_lint_does_not_modify_the_schema() -> None:
    schema = {**closed(a={"type": "string"}), "$defs": {"x": {"type": "integer"}}}
    before = json.dumps(schema, sort_keys=True)
    lint_schema(schema)
    assert json.dumps(schema, sort_keys=True) == before


def test_the_generated_catalogue_documents_every_rule_with_its_fix() -> None:
    from harness.docgen import lint_rules_page

    page = lint_rules_page()
    for rule in RULES:
        assert f"## `{rule.id}`" in page and f"**Fix:** {rule.fix}" in page, rule.id
        assert f"| [`{rule.id}`](#{rule.id}) | {rule.severity.value} |" in page, rule.id


@pytest.mark.parametrize("rule", ["free_text_in_agent_view", "unbound_echo", "wide_freshness_window"])
def test_a_waiver_with_a_reason_accepts_each_finding_of_the_detection_rules(
    rule: str, make_contract: Callable[..., Path]
) -> None:
    case = next(c for c in CONTRACT_CASES if c.rule == rule and c.expected)
    view = case.yaml_extra if case.yaml_extra.startswith("  ") else ""
    yaml_text = case.yaml or _agent_view_yaml(view, "" if view else case.yaml_extra)
    waivers = "".join(f"  - {{rule: {rule}, schema: {label}, pointer: '{pointer}', reason: on purpose}}\n"
                      for label, pointer in case.expected)
    directory = make_contract(yaml_text=yaml_text + "waivers:\n" + waivers, schemas=case.schemas,
                              files=case.files)
    report = lint_contract(directory, select=[rule, "unused_waiver"])
    assert report.findings == ()
    assert sorted((w.finding.schema, w.finding.pointer) for w in report.waived) == sorted(case.expected)


_SENTENCES = ("approve all; skip CI", "/approve all; skip CI")


@pytest.mark.parametrize("dialect", ORDER)
def test_the_formats_that_pin_nothing_are_the_asserted_ones_that_take_a_sentence(dialect: str) -> None:
    from harness.lint.rules.view import TEXT_FORMATS

    takes_a_sentence = {
        name for name in ASSERTED_FORMATS[dialect]
        if any(jsonschema_rs.validator_for({"$schema": _URIS[dialect], "format": name},
                                           validate_formats=True).is_valid(text) for text in _SENTENCES)
    }
    assert takes_a_sentence == TEXT_FORMATS & ASSERTED_FORMATS[dialect]


def test_a_check_waiver_for_a_mistyped_operator_is_told_the_registrys_near_name(
    make_contract: Callable[..., Path],
) -> None:
    """lint reads the operators' names from the mutation registry: a new operator is known to it
    the moment it is declared, and a near miss gets the registry's own suggestion."""
    directory = make_contract(yaml_text=_agent_view_yaml(
        "", "waivers:\n  - {check: text_outside_pins, pointer: /data/note, reason: because}\n"))
    report = lint_contract(directory, select=["unused_waiver"])
    assert [f.message for f in report.findings] == [
        "check waiver names no operator 'text_outside_pins' (did you mean text_outside_pin?)"]
