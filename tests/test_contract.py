from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import ContractError, load_contract
from harness.contract import discover
from tests.helpers.contracts import DEFAULT_YAML, envelope_schema, item


def error(path: Path) -> ContractError:
    with pytest.raises(ContractError) as info:
        load_contract(path)
    return info.value


def test_demo_contracts_load(demo) -> None:  # type: ignore[no-untyped-def]
    assert demo("review_status").versions == (1,)
    assert demo("job_status").versions == (1, 2)
    assert demo("deployment_status").envelope is None


def test_unknown_key_names_file_pointer_and_allowed_keys(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "admin_override: true\n")
    err = error(d)
    text = str(err)
    assert text.startswith(str(d / "contract.yaml") + ":11:1: /admin_override: unknown key 'admin_override'")
    assert "allowed: adapter, agent_view, bindings" in text
    assert "\n" not in text


def test_wrong_type_names_the_pointer_and_echoes_the_value(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "limits: {max_bytes: lots}\n")
    err = error(d)
    assert err.pointer == "/limits/max_bytes"
    assert '"lots"' in str(err)


def test_limits_may_only_be_lowered(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "limits: {max_depth: 100}\n")
    assert error(d).pointer == "/limits/max_depth"


def test_duplicate_yaml_keys_are_refused(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "version: 2\n")
    assert "duplicate key 'version'" in str(error(d))


def test_missing_schema_version_lists_the_versions_present(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status").replace("version: 1", "version: 3"))
    err = error(d)
    assert err.pointer == "/version" and err.allowed == (1,)


def test_tool_must_match_its_directory(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(tool="item_status", yaml_text=DEFAULT_YAML.format(tool="other_tool"))
    assert error(d).pointer == "/tool"


def test_schema_with_duplicate_keys_is_refused(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract()
    (d / "schemas" / "v1.json").write_bytes(b'{"type": "object", "type": "array"}')
    err = error(d)
    assert "v1.json" in str(err) and "parse.duplicate_member" in str(err)


def test_remote_ref_in_a_contract_schema_names_the_file(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(schemas={1: {"$ref": "https://schemas.example.com/item.json"}})
    err = error(d)
    assert err.code == "contract.remote_ref" and str(err).startswith(str(d / "schemas" / "v1.json"))


def test_ref_to_a_sibling_schema_file_resolves(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(schemas={1: {"$ref": "common.json"}})
    (d / "schemas" / "common.json").write_text(json.dumps(envelope_schema("item_status")))
    contract = load_contract(d)
    assert contract.envelope is not None  # inferred through the reference to the other file
    assert contract.validator().is_valid(json.loads(item()))


def test_an_id_no_uri_can_be_made_of_is_the_schema_files_error(make_contract, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # jsonschema-rs compiles it; urllib refuses "http://[x" as an IPv6 address.
    d = make_contract(schemas={1: {"$ref": "common.json"}})
    (d / "schemas" / "common.json").write_text(json.dumps({**envelope_schema("item_status"), "$id": "http://[x"}))
    err = error(d)
    assert err.code == "contract.invalid_schema" and err.pointer == "/$id"
    assert "common.json:1:" in str(err) and "'http://[x' is not a URI reference" in str(err)
    from harness.cli import main

    monkeypatch.chdir(d.parent.parent)
    for command in (["lint"], ["check", "--no-progress"]):
        assert main(command) == 2
        out = capsys.readouterr()
        assert "contract.invalid_schema" in out.err and "Traceback" not in out.err + out.out
        assert "harness.internal" not in out.err


def test_unimportable_adapter_is_a_contract_error(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "adapter: nowhere.mod:fn\n")
    contract = load_contract(d)
    with pytest.raises(ContractError) as info:
        contract.adapter_function()
    assert info.value.code == "contract.adapter_import" and info.value.pointer == "/adapter"


def test_adapter_module_is_imported_from_the_project_root(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(
        yaml_text=DEFAULT_YAML.format(tool="item_status") + "adapter: item_adapters_xyz:adapt\n",
        files={"item_adapters_xyz.py": "def adapt(doc, request):\n    return doc\n"},
    )
    assert load_contract(d).adapter_function()({"a": 1}, {}) == {"a": 1}


def test_discover_finds_contract_dirs(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    make_contract("a_tool")
    make_contract("b_tool")
    assert [p.name for p in discover([tmp_path])] == ["a_tool", "b_tool"]
    assert [p.name for p in discover([tmp_path / "contracts" / "b_tool"])] == ["b_tool"]


def test_contract_is_immutable(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    with pytest.raises(AttributeError):
        contract.version = 2
    with pytest.raises(TypeError):
        contract.schemas[9] = {}  # type: ignore[index]


def test_meta_schema_is_itself_valid_2020_12() -> None:
    from harness.boundary.validator import validator_for
    from harness.contract import meta_schema

    assert validator_for(meta_schema()).dialect == "2020-12"


def test_versions_may_reference_each_other(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(schemas={
        1: {"$defs": {"id": {"type": "string", "maxLength": 5}}, "type": "object"},
        2: {"type": "object", "properties": {"data": {"type": "object", "properties": {
            "item_id": {"$ref": "v1.json#/$defs/id"}, "status": {"type": "string"}}}}},
    }, yaml_text="tool: item_status\nversion: 2\nagent_view: {item_id: /data/item_id}\n")
    contract = load_contract(d)
    assert contract.validator(2).is_valid({"data": {"item_id": "it-7"}})
    assert not contract.validator(2).is_valid({"data": {"item_id": "it-7777"}})
    # The derived agent view keeps the cross-file $ref, and it resolves.
    assert contract.view_validator(2).is_valid({"item_id": "it-7"})
    assert not contract.view_validator(2).is_valid({"item_id": "it-7777"})


def test_a_ref_to_a_missing_sibling_is_one_line(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(schemas={1: {"$ref": "v9.json"}})
    err = error(d)
    assert err.code == "contract.remote_ref" and "\n" not in str(err)
