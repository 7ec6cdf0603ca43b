"""The project root is found upward, the demo runs only when asked, and nothing under fixtures/
is skipped without a word."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import ContractError
from harness.project import ensure_git_entries, find_root, layout_problems, state_dir
from tests.helpers.contracts import item


@pytest.fixture
def project(make_contract: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_contract(files={"fixtures/accepted/item_status/open.json": item()})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_root_is_the_nearest_folder_upward_holding_contracts(project: Path) -> None:
    assert find_root(project) == project
    assert find_root(project / "contracts/item_status/schemas") == project
    assert find_root(project / "fixtures/accepted/item_status") == project
    assert find_root(project.parent) is None or find_root(project.parent) != project
    assert state_dir("cases", start=project / "fixtures") == project / ".contract-harness/cases"


@pytest.mark.parametrize("where", ["contracts", "contracts/item_status", "fixtures/accepted"])
@pytest.mark.parametrize("command", [["check", "--no-progress"], ["lint"], ["lock", "--check"]])
def test_commands_run_on_the_project_from_any_folder_inside(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str, command: list[str]
) -> None:
    if command[0] == "lock":
        assert main(["lock"]) == 0
        capsys.readouterr()
    monkeypatch.chdir(project / where)
    code, out, err = _run(capsys, *command)
    assert code == 0, out + err
    assert not (project / where / ".contract-harness").exists()


def test_fuzz_compat_and_drift_find_the_project_too(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "fixtures/accepted")
    assert _run(capsys, "fuzz", "--property", "survives_any_bytes", "--examples", "3", "--no-progress")[0] == 0
    # Found the project's contract, which has nothing for them to do:
    code, _, err = _run(capsys, "compat", "item_status")
    assert code == 2 and "item_status has no version before v1 to compare with" in err
    code, _, err = _run(capsys, "drift")
    assert code == 2 and "upstream.none: no upstreams to check" in err


@pytest.mark.parametrize("command", ["check", "lint", "fuzz", "compat x", "drift", "lock"])
def test_without_a_project_every_command_stops_with_the_hint_instead_of_running_the_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, *command.split())
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"contract-harness: error: project.not_found: no contracts/ folder in {tmp_path} or any parent: start one with "
        "`contract-harness init TOOL`, pass CONTRACTS, or run the embedded demo with --demo"]


@pytest.mark.parametrize(
    ("make", "code", "message"),
    [
        (lambda p: (p / "fixtures/accepted/item_stat").mkdir(), "fixture.unknown_tool",
         "fixtures/accepted/item_stat/: fixtures for tool 'item_stat', which has no contract "
         "(contracts/item_stat/contract.yaml) (did you mean 'item_status'?)"),
        (lambda p: (p / "fixtures/rejectd").mkdir(), "fixture.unknown_kind",
         "fixtures/rejectd/: folder 'rejectd' is not read: fixtures/ holds only accepted, rejected, historical "
         "(did you mean 'rejected'?)"),
        (lambda p: (p / "fixtures/accepted/item_status/open.case.yml").write_text("expect: accept\n"),
         "fixture.unread_file",
         "fixtures/accepted/item_status/open.case.yml: file 'open.case.yml' is not read: fixtures/accepted/item_status/ "
         "holds <name>.json payloads and <name>.case.yaml sidecars (a sidecar is named open.case.yaml)"),
        (lambda p: (p / "fixtures/accepted/item_status/closed.JSON").write_bytes(item()), "fixture.unread_file",
         "fixtures/accepted/item_status/closed.JSON: file 'closed.JSON' is not read: fixtures/accepted/item_status/ "
         "holds <name>.json payloads and <name>.case.yaml sidecars (a payload ends in .json, lower case)"),
        (lambda p: (p / "fixtures/historical/item_status").mkdir(parents=True)
         or (p / "fixtures/historical/item_status/old.json").write_bytes(item()), "fixture.unread_file",
         "fixtures/historical/item_status/old.json: file 'old.json' is not read: fixtures/historical/item_status/ "
         "holds one folder per label (<label>/<name>.json)"),
        (lambda p: (p / "contracts/notes").mkdir() or (p / "contracts/notes/contract.yml").write_text("tool: notes\n"),
         "contract.missing",
         "contracts/notes/: notes/ holds no contract.yaml (found contract.yml): every folder under contracts/ is one "
         "tool's contract"),
    ],
    ids=["tool without contract", "unknown kind", "sidecar misnamed", "payload upper case", "historical without label",
         "contract folder without contract.yaml"],
)
def test_what_the_harness_would_not_read_fails_the_run_in_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], object], code: str, message: str
) -> None:
    make(project)
    status, out, err = _run(capsys, "check", "--no-progress")
    assert status == 2 and out == ""
    assert err.strip() == f"contract-harness: error: {code}: {message}"


def test_dotfiles_and_readmes_beside_fixtures_are_left_alone(project: Path) -> None:
    (project / "fixtures/README.md").write_text("how we record fixtures\n")
    (project / "fixtures/accepted/item_status/.gitkeep").write_text("")
    (project / ".contract-harness-staging-x").mkdir()
    assert list(layout_problems(project)) == []


def test_layout_problems_lists_every_one(project: Path) -> None:
    (project / "fixtures/accepted/nope").mkdir()
    (project / "fixtures/rejected").mkdir()
    (project / "fixtures/rejected/stray.json").write_bytes(b"{}")
    problems = list(layout_problems(project))
    assert [p.code for p in problems] == ["fixture.unknown_tool", "fixture.unread_file"]
    assert all(isinstance(p, ContractError) for p in problems)


def test_git_entries_are_appended_once_and_nothing_else_changes(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("node_modules/\n.contract-harness/")  # no final newline
    (tmp_path / ".gitattributes").write_text("*.png binary\n")
    assert ensure_git_entries(tmp_path) == [".gitattributes: fixtures/** -text"]
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n.contract-harness/"
    assert (tmp_path / ".gitattributes").read_text() == "*.png binary\nfixtures/** -text\n"
    assert ensure_git_entries(tmp_path) == []
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert ensure_git_entries(fresh) == [".gitignore: /.contract-harness/", ".gitattributes: fixtures/** -text"]


def test_init_from_inside_a_project_scaffolds_at_its_root(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(project / "contracts")
    assert main(["init", "second_tool"]) == 0
    capsys.readouterr()
    assert (project / "contracts/second_tool/contract.yaml").is_file()
    assert not (project / "contracts/contracts").exists()


def test_demo_and_explicit_paths_do_not_mix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["check", "--demo", "contracts"], ["lint", "--demo", "contracts"], ["fuzz", "--demo", "contracts"],
                 ["compat", "x", "--demo", "--contracts", "contracts"]):
        code, _, err = _run(capsys, *argv)
        assert code == 2 and "or --demo, not both" in err, argv


def test_a_copy_of_the_demo_is_a_project_like_any_other(demo_root: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for part in ("contracts", "fixtures"):
        shutil.copytree(demo_root / part, tmp_path / part)
    monkeypatch.chdir(tmp_path / "fixtures/rejected")
    assert _run(capsys, "lock", "--check")[0] == 0


def test_lock_check_failures_are_printed_like_every_other_error(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "contracts")
    code, _, err = _run(capsys, "lock", "--check")
    assert code == 1
    assert err.splitlines() == [
        "contract-harness: error: contract.version_unlocked: ../contracts/item_status/schemas/v1.json: v1 is not in "
        "schemas.lock: run `contract-harness lock` and commit ../contracts/item_status/schemas.lock"
    ]


def test_import_writes_into_the_project_found_upward_when_no_into_is_given(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = tmp_path / "tools.json"
    listing.write_text('{"tools": [{"name": "lookup", "inputSchema": {"type": "object"}, '
                       '"outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}]}')
    monkeypatch.chdir(project / "fixtures/accepted")
    code, _, err = _run(capsys, "import", "mcp", "--from", str(listing))
    assert code == 0, err
    assert (project / "contracts/lookup/contract.yaml").is_file()
    assert not (project / "fixtures/accepted/contracts").exists()
