"""A contract agrees with its schemas: the envelope inferred, every pointer declared."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Boundary, ContractError, load_contract
from harness.lint import lint_contract
from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema, item

BARE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["account_id", "balance"],
    "properties": {
        "account_id": {"type": "string", "pattern": "^ac-[0-9]{1,6}$", "maxLength": 9},
        "balance": {"type": "integer"},
        "updated_at": {"type": "string", "format": "date-time", "maxLength": 35},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 10},
                   "maxProperties": 4},
    },
    "additionalProperties": False,
}
BARE_YAML = """\
tool: account
version: 1
request:
  schema: {type: object, properties: {account_id: {type: string}}}
  example: {account_id: ac-7}
bindings:
  - {name: account_id, result: /account_id, request: /args/account_id}
agent_view:
  account_id: /account_id
  balance: /balance
"""


def _error(make_contract: Callable[..., Path], **kwargs: Any) -> ContractError:
    with pytest.raises(ContractError) as info:
        load_contract(make_contract(**kwargs))
    return info.value


def test_a_bare_result_needs_no_envelope_key_and_the_boundary_wraps_it(make_contract: Callable[..., Path]) -> None:
    contract = load_contract(make_contract("account", yaml_text=BARE_YAML, schemas={1: BARE}))
    assert contract.envelope is None
    verdict = Boundary(contract).check(b'{"account_id": "ac-7", "balance": 12}')
    assert verdict.accepted, verdict.code
    assert verdict.agent_result == {"tool": "account", "request_id": "req.J7q94MkP", "outcome": "success",
                                    "data": {"account_id": "ac-7", "balance": 12}}


def test_an_envelope_declared_by_the_schema_is_inferred_and_checked_by_binding(make_contract: Callable[..., Path]) -> None:
    contract = load_contract(make_contract())
    assert contract.envelope is not None and contract.envelope.request_id == "request_id"
    wrong = json.loads(item())
    wrong["request_id"] = "req.Other0042"
    assert Boundary(contract).check(json.dumps(wrong).encode()).code == "binding.request_id"


def test_an_explicit_envelope_the_schema_cannot_hold_is_a_load_error_with_the_fix(make_contract: Callable[..., Path]) -> None:
    err = _error(make_contract, tool="account", yaml_text=BARE_YAML + "envelope: {}\n", schemas={1: BARE})
    assert err.code == "contract.envelope" and err.pointer == "/envelope"
    assert "'tool', 'request_id', 'outcome' are not declared at the root of schemas/v1.json" in str(err)
    assert "or write `envelope: null` for a bare result the boundary wraps" in str(err)
    assert "\n" not in str(err)


def test_renamed_envelope_members_are_held_to_the_schema(make_contract: Callable[..., Path]) -> None:
    err = _error(make_contract, yaml_text=DEFAULT_YAML.format(tool="item_status") + "envelope: {request_id: id}\n")
    assert "the envelope's 'id' is not declared" in str(err)


def test_a_schema_declaring_part_of_the_envelope_asks_which_it_is(make_contract: Callable[..., Path]) -> None:
    schema = json.loads(json.dumps(BARE))
    schema["properties"]["outcome"] = {"enum": ["ok", "late"]}
    err = _error(make_contract, tool="account", yaml_text=BARE_YAML, schemas={1: schema})
    assert err.code == "contract.envelope"
    assert "schemas/v1.json declares 'outcome' but not 'tool', 'request_id' at its root" in str(err)
    # The fix the message gives works: the upstream's own `outcome` member, in a bare result.
    contract = load_contract(make_contract("account", yaml_text=BARE_YAML + "envelope: null\n", schemas={1: schema}))
    assert contract.envelope is None


def test_versions_that_disagree_about_the_envelope_are_a_load_error(make_contract: Callable[..., Path]) -> None:
    yaml_text = BARE_YAML.replace("version: 1", "version: 2")
    enveloped = envelope_schema("account", {**ENVELOPE_DATA, "properties": {"account_id": {"type": "string"},
                                                                             "balance": {"type": "integer"}}})
    err = _error(make_contract, tool="account", yaml_text=yaml_text, schemas={1: enveloped, 2: BARE})
    assert "v1 declares an envelope (tool, request_id, outcome) but v2 is a bare result" in str(err)


@pytest.mark.parametrize(
    ("old", "new", "pointer", "message"),
    [
        ("result: /account_id", "result: /acount_id", "/bindings/0/result",
         "binding 'account_id' reads the result at /acount_id, which schemas/v1.json does not declare "
         "(did you mean /account_id?)"),
        ("request: /args/account_id", "request: /args/acount_id", "/bindings/0/request",
         "binding 'account_id' reads the request at /args/acount_id, which request.schema does not declare "
         "(did you mean /args/account_id?)"),
        ("request: /args/account_id", "request: /arguments/account_id", "/bindings/0/request",
         "binding 'account_id' reads the request at /arguments/account_id, but a request has only /tool, "
         "/request_id and /args (did you mean /args/account_id?)"),
        ("balance: /balance", "balance: /balence", "/agent_view/balance",
         "agent_view field 'balance' reads /balence, which schemas/v1.json does not declare (did you mean /balance?)"),
    ],
)
def test_a_pointer_the_schema_does_not_declare_is_a_load_error_not_a_red_run(
    make_contract: Callable[..., Path], old: str, new: str, pointer: str, message: str
) -> None:
    err = _error(make_contract, tool="account", yaml_text=BARE_YAML.replace(old, new), schemas={1: BARE})
    assert (err.code, err.pointer) == ("contract.pointer", pointer)
    # The position is where the pointer's value is written in contract.yaml.
    assert re.search(rf"contract\.yaml:\d+:\d+: {re.escape(pointer)}: {re.escape(message)}$", str(err)), str(err)


def test_a_freshness_field_must_be_declared_a_date_time(make_contract: Callable[..., Path]) -> None:
    schema = json.loads(json.dumps(BARE))
    err = _error(make_contract, tool="account", schemas={1: schema},
                 yaml_text=BARE_YAML + "freshness: [{field: /balance, max_age: PT5M}]\n")
    assert (err.code, err.pointer) == ("contract.freshness_field", "/freshness/0/field")
    assert 'freshness field /balance is not a date-time in schemas/v1.json: give it "type": "string", ' \
           '"format": "date-time"' in str(err)
    contract = load_contract(make_contract("account", schemas={1: schema},
                                           yaml_text=BARE_YAML + "freshness: [{field: /updated_at, max_age: PT5M}]\n"))
    assert [f.field for f in contract.freshness] == ["/updated_at"]


def test_members_of_a_declared_map_and_pattern_properties_count_as_declared(make_contract: Callable[..., Path]) -> None:
    schema = json.loads(json.dumps(BARE))
    schema["properties"]["limits"] = {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer"}},
                                      "additionalProperties": False}
    yaml_text = BARE_YAML + "  env: /labels/env\n  daily: /limits/daily\n"
    contract = load_contract(make_contract("account", yaml_text=yaml_text.replace("agent_view:\n", "agent_view:\n"),
                                           schemas={1: schema}))
    assert [v.name for v in contract.agent_view] == ["account_id", "balance", "env", "daily"]
    err = _error(make_contract, tool="account", yaml_text=BARE_YAML + "  x: /limits/Daily\n", schemas={1: schema})
    assert "/limits/Daily, which schemas/v1.json does not declare" in str(err)


def test_a_pointer_through_a_reference_to_a_sibling_file_is_followed(make_contract: Callable[..., Path]) -> None:
    directory = make_contract("account", yaml_text=BARE_YAML.replace("result: /account_id", "result: /acount_id"),
                              schemas={1: {"$ref": "common.json"}})
    (directory / "schemas/common.json").write_text(json.dumps(BARE))
    with pytest.raises(ContractError, match="did you mean /account_id"):
        load_contract(directory)


def test_an_optional_view_field_must_be_declared_by_some_version(make_contract: Callable[..., Path]) -> None:
    yaml_text = BARE_YAML.replace("version: 1", "version: 2") + "  note: {pointer: /note, optional: true}\n"
    with_note = json.loads(json.dumps(BARE))
    with_note["properties"]["note"] = {"enum": ["frozen"]}
    load_contract(make_contract("account", yaml_text=yaml_text, schemas={1: with_note, 2: BARE}))
    err = _error(make_contract, tool="account", yaml_text=yaml_text, schemas={1: BARE, 2: BARE})
    assert err.pointer == "/agent_view/note/pointer"


def test_lint_holds_the_older_versions_to_the_same_pointers(make_contract: Callable[..., Path]) -> None:
    old = json.loads(json.dumps(BARE))
    del old["properties"]["account_id"]
    old["required"] = ["balance"]
    old["properties"]["updated_at"] = {"type": "string", "maxLength": 35}
    yaml_text = BARE_YAML.replace("version: 1", "version: 2") + "freshness: [{field: /updated_at, max_age: PT5M}]\n"
    report = lint_contract(make_contract("account", yaml_text=yaml_text, schemas={1: old, 2: BARE}),
                           select=["undeclared_pointer", "freshness_not_date_time"])
    found = sorted((f.rule, f.schema, f.pointer, f.message) for f in report.findings)
    assert found == [
        ("freshness_not_date_time", "contract", "/freshness/0/field",
         'freshness field /updated_at is not a date-time in schemas/v1.json: give it "type": "string", '
         '"format": "date-time"'),
        ("undeclared_pointer", "contract", "/agent_view/account_id",
         "agent_view field 'account_id' reads /account_id, which schemas/v1.json does not declare"),
        ("undeclared_pointer", "contract", "/bindings/0/result",
         "binding 'account_id' reads the result at /account_id, which schemas/v1.json does not declare"),
    ]
    assert all(f.line for f in report.findings)  # pointers into contract.yaml, with their lines


def test_the_demo_contracts_are_consistent_in_every_version(demo_root: Path) -> None:
    for tool in ("review_status", "job_status", "deployment_status"):
        report = lint_contract(demo_root / "contracts" / tool, select=["undeclared_pointer", "freshness_not_date_time"])
        assert report.ok, report.findings
