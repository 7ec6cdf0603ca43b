"""``init TOOL``: a closed contract with two fixtures, passing ``check`` as generated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import load_contract
from harness.cli import main
from harness.datafiles import load_yaml


def test_init_scaffolds_a_contract_that_passes_check_with_every_mutation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "ticket_status"]) == 0
    out = capsys.readouterr().out
    assert "scaffolded 1 tool" in out and "contract-harness check contracts/ticket_status" in out
    assert "lint ticket_status: clean" in out
    assert "recorded v1 in contracts/ticket_status/schemas.lock" in out
    assert "      contract-harness lock   (once v1 says what your tool sends: records it again; commit " in out
    assert (tmp_path / ".gitignore").read_text() == "/.contract-harness/\n"
    assert (tmp_path / ".gitattributes").read_text() == "fixtures/** -text\n"
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                  if p.is_file() and ".contract-harness" not in p.parts) == [
        ".gitattributes",
        ".gitignore",
        "contracts/ticket_status/contract.yaml",
        "contracts/ticket_status/schemas.lock",
        "contracts/ticket_status/schemas/v1.json",
        "fixtures/accepted/ticket_status/ok.case.yaml",
        "fixtures/accepted/ticket_status/ok.json",
        "fixtures/rejected/ticket_status/extra_member.case.yaml",
        "fixtures/rejected/ticket_status/extra_member.json",
    ]
    assert main(["check", "--no-progress", "--json", "report.json"]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["summary"]["total"] > 20 and report["summary"]["ok"]
    assert main(["verify", "contracts/ticket_status", "fixtures/accepted/ticket_status/ok.json"]) == 0


def test_the_scaffold_schema_is_a_closed_envelope_and_the_negative_is_stopped_at_data(tmp_path: Path) -> None:
    assert main(["init", "probe", "--into", str(tmp_path)]) == 0
    contract = load_contract(tmp_path / "contracts/probe")
    schema = contract.schema()
    assert [branch["additionalProperties"] for branch in schema["oneOf"]] == [False, False]
    assert schema["$defs"]["data"]["additionalProperties"] is False
    assert load_yaml(tmp_path / "fixtures/rejected/probe/extra_member.case.yaml")["expect"] == {
        "layer": "schema", "code": "schema.additionalProperties", "pointer": "/data"
    }


def test_init_refuses_to_overwrite_anything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fixtures/accepted/probe").mkdir(parents=True)
    (tmp_path / "fixtures/accepted/probe/mine.json").write_text("{}")
    assert main(["init", "probe", "--into", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("contract-harness: error: init.exists: fixtures/accepted/probe already exists")
    assert not (tmp_path / "contracts").exists()
    assert [p.name for p in (tmp_path / "fixtures/accepted/probe").iterdir()] == ["mine.json"]


@pytest.mark.parametrize("name", ["bad name", ".hidden", "../escape", "a" * 129, ""])
def test_init_refuses_a_name_no_contract_may_have(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", name, "--into", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("contract-harness: error: init.invalid_name: ")
    assert list(tmp_path.iterdir()) == []


def test_init_creates_the_project_folder_when_missing(tmp_path: Path) -> None:
    assert main(["init", "probe", "--into", str(tmp_path / "new" / "project")]) == 0
    assert (tmp_path / "new/project/contracts/probe/contract.yaml").is_file()
