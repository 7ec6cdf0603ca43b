"""Saved state (``.contract-harness/``) may make a run faster, never change its verdict.

Whoever can write the state folder (a CI cache) can write any file in it: a saved fuzz run with
no examples, a reference verdict flipped to agree with a production validator that is wrong,
JSON nested past Python's recursion limit, a directory or a symlink where a file or a folder
belongs. Each is tried here with real ``check``, ``fuzz`` and ``pytest`` runs in subprocesses on
throwaway projects: the run decides as a clean run would, says so in one warning line, and
writes nothing through a symlink.
"""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from harness import load_contract, state
from harness.fuzz.replay import ReplayStore, inputs_of
from tests.helpers.cli import run_cli
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema, item

STATE = Path(".contract-harness")
REPLAY = STATE / "fuzz" / "replay"
VERDICTS = STATE / "check" / "reference"
TOOL = "deployment_status"


def _run(project: Path, *argv: str, **env: str) -> tuple[int, str]:
    code, out, err = run_cli(project, *argv, timeout=600, **env)
    return code, out + err


def _warnings(out: str) -> list[str]:
    """The lines warning of the saved state (pytest also prints them in captured output)."""
    lines = [line for line in out.splitlines() if "warning: saved" in line or "warning: fuzz replay" in line]
    return list(dict.fromkeys(lines))


@pytest.fixture
def project(tmp_path: Path, demo_root: Path) -> Path:
    """A copy of the demo's deployment_status (5 fuzz examples a property under pytest)."""
    root = tmp_path / "project"
    for kind in ("accepted", "rejected"):
        shutil.copytree(demo_root / "fixtures" / kind / TOOL, root / "fixtures" / kind / TOOL)
    shutil.copytree(demo_root / "contracts" / TOOL, root / "contracts" / TOOL)
    (root / "pytest.ini").write_text("[pytest]\ncontract_harness_fuzz_examples = 5\ncontract_harness_max_mutants = 4\n")
    return root


def _weaken(project: Path) -> None:
    """Open v2's object: the near miss that adds an error object to a success is accepted."""
    (project / "contracts" / TOOL / "schemas.lock").unlink()
    schema = project / "contracts" / TOOL / "schemas" / "v2.json"
    schema.write_text(schema.read_text().replace('"additionalProperties": false', '"additionalProperties": true'))


# --------------------------------------------------------------------------- fuzz replay


@pytest.mark.parametrize("forgery", ["no examples", "one example", "resealed by hand"])
def test_a_forged_fuzz_replay_never_passes_a_contract_a_clean_run_flags(project: Path, forgery: str) -> None:
    code, out = _run(project, "fuzz", "--examples", "5")
    assert code == 0, out
    _weaken(project)
    schemas = inputs_of(load_contract(project / "contracts" / TOOL), "-")["schemas"]
    for path in (project / REPLAY / TOOL).glob("*.json"):
        body = json.loads(path.read_text())
        body["inputs"]["schemas"] = schemas  # every input is public: its hash is anyone's to write
        body["examples"] = [] if forgery == "no examples" else body["examples"][:1]
        if forgery == "resealed by hand":
            body["seal"] = body["seal"][:17] + "0" * 64
        path.write_text(json.dumps(body, separators=(",", ":")))
    code, out = _run(project, "fuzz", "--examples", "5")
    assert code == 1, out
    assert "FINDING deployment_status::fuzz::rejects_near_misses (contract_gap)" in out
    assert "held (0)" not in out and "held (1)" not in out
    assert "does not match its seal (edited, or damaged); generating" in out


def _store_with(tmp_path: Path, examples: list[Any], drawn: int) -> tuple[ReplayStore, dict[str, str]]:
    """A saved run sealed with this machine's key (as if the key were known to whoever wrote it)."""
    store, inputs = ReplayStore(tmp_path), {"schemas": "1"}
    body = {"format": 2, "tool": "t", "property": "accepts_valid", "generated_at": "2026-01-01T00:00:00+00:00",
            "inputs": inputs, "drawn": drawn, "examples": examples}
    state.write(store.path("t", "accepts_valid"), json.dumps(body).encode(), root=store.root, what="test")
    return store, inputs


@pytest.mark.parametrize(("examples", "drawn", "why"), [
    (0, 100, "holds no examples"),
    (58_500, 58_500, "holds 58,500 examples, more than the 100 a run draws"),
    (101, 100, "holds 101 examples, more than the 100 a run draws"),
])
def test_a_saved_run_with_no_examples_or_more_than_a_run_draws_is_not_replayed(
        tmp_path: Path, examples: int, drawn: int, why: str) -> None:
    store, inputs = _store_with(tmp_path, [[{"json": 1}]] * examples, drawn)
    decision = store.decide("t", "accepts_valid", inputs, 100)
    assert decision.examples is None and decision.warning is not None
    assert decision.warning.endswith(f"accepts_valid.json: {why}; generating")


def test_a_saved_run_that_drew_fewer_examples_than_the_profile_generates_and_a_kept_subset_replays(
        tmp_path: Path) -> None:
    store, inputs = _store_with(tmp_path, [[{"json": 1}]] * 3, 3)
    decision = store.decide("t", "accepts_valid", inputs, 100)
    assert decision.examples is None and decision.warning is None
    assert decision.why == "the saved run drew 3 of 100 examples"
    # A run that drew the profile's 100 keeps a covering subset of them (see kept): replayed.
    store, inputs = _store_with(tmp_path, [[{"json": 1}]] * 3, 100)
    assert store.decide("t", "accepts_valid", inputs, 100).examples == ([{"json": 1}],) * 3


# --------------------------------------------------------------------------- reference verdicts


def _disagreeing_project(root: Path) -> Path:
    """A contract whose rejected fixture the two validators disagree on: python's ``re`` reads
    ``(?P<n>a)`` as a regex, jsonschema-rs does not (the differential check reports it)."""
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"],  # type: ignore[dict-item]
                                           "note": {"type": "string", "format": "regex", "maxLength": 20}})
    directory = root / "contracts" / "item_status"
    (directory / "schemas").mkdir(parents=True)
    (directory / "schemas" / "v1.json").write_text(json.dumps(envelope_schema("item_status", data)))
    (directory / "contract.yaml").write_text(
        "tool: item_status\nversion: 1\nrequest:\n  schema: {type: object, properties: {item_id: {type: string}}}\n"
        "  example: {item_id: it-7}\nbindings:\n  - {name: item_id, result: /data/item_id, request: /args/item_id}\n"
        "agent_view:\n  item_id: /data/item_id\n  status: /data/status\n")
    rejected = root / "fixtures" / "rejected" / "item_status"
    rejected.mkdir(parents=True)
    (rejected / "named_group.json").write_bytes(item(note="(?P<n>a)"))
    (rejected / "named_group.case.yaml").write_text("expect: {layer: schema}\n")
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


def _flip(project: Path, *, reseal: bool = False) -> None:
    """Every saved verdict moved to the other list: the flipped one agrees with the production."""
    path = project / VERDICTS / "item_status.json"
    body = json.loads(path.read_text())
    for lists in body["verdicts"].values():
        lists["valid"], lists["invalid"] = lists["invalid"], lists["valid"]
    if reseal:
        body["seal"] = body["seal"][:17] + "0" * 64
    path.write_text(json.dumps(body, separators=(",", ":")))


@pytest.mark.parametrize("runner", [("check", "--no-progress"), ("check", "--no-progress", "--jobs", "2"),
                                    ("pytest", "-q", "--no-fuzz")])
@pytest.mark.parametrize("reseal", [False, True])
def test_a_flipped_saved_verdict_never_hides_a_differential_finding(
        tmp_path: Path, runner: tuple[str, ...], reseal: bool) -> None:
    project = _disagreeing_project(tmp_path / "project")
    for _ in range(2):  # a clean run flags it, and so does the run after it (verdicts saved)
        code, out = _run(project, *runner)
        assert code == 1 and "differential" in out, out
    _flip(project, reseal=reseal)
    code, out = _run(project, *runner)
    assert code == 1 and "differential" in out, out
    assert "Traceback" not in out
    warned = _warnings(out)
    assert len(warned) == 1 and "item_status.json: " in warned[0] and "; validating afresh" in warned[0], out


# --------------------------------------------------------------------------- damaged state


def _nested_body() -> bytes:
    return b'{"format":3,"tool":"x","verdicts":' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def _damage(project: Path, how: str, elsewhere: Path) -> None:
    files = [project / VERDICTS / f"{TOOL}.json", project / REPLAY / TOOL / "accepts_valid.json"]
    if how == "nested JSON":  # sealed with this machine's key: only the parse can refuse it
        for path in files:
            state.write(path, _nested_body(), root=project / STATE, what="test")
    elif how == "a directory at a file's path":
        for path in files:
            shutil.rmtree(path, ignore_errors=True)
            path.unlink(missing_ok=True)
            path.mkdir(parents=True)
    elif how == "the state folder a symlink":
        shutil.rmtree(project / STATE, ignore_errors=True)
        (project / STATE).symlink_to(elsewhere, target_is_directory=True)
    else:  # "a folder in it a symlink"
        for sub in ("check", "fuzz"):
            shutil.rmtree(project / STATE / sub, ignore_errors=True)
            (project / STATE / sub).symlink_to(elsewhere, target_is_directory=True)


RUNS = {
    "check": ("check", "--no-progress", "--max-mutants", "4"),
    "fuzz": ("fuzz", "--examples", "5"),
    "pytest": ("pytest", "-q"),
}


@pytest.mark.parametrize("how", ["nested JSON", "a directory at a file's path", "the state folder a symlink",
                                 "a folder in it a symlink"])
@pytest.mark.parametrize("command", sorted(RUNS))
def test_damaged_state_is_one_warning_and_a_fresh_run_that_writes_nothing_through_a_symlink(
        project: Path, tmp_path: Path, command: str, how: str) -> None:
    clean, _ = _run(project, *RUNS[command])
    assert clean == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("keep me")
    _damage(project, how, elsewhere)
    # Where a refused state folder's state goes instead: a temporary folder, here the test's.
    code, out = _run(project, *RUNS[command], TMPDIR=str(tmp_path))
    assert code == 0, out
    assert "Traceback" not in out and "internal" not in out and "Error" not in out, out
    warned = _warnings(out)
    assert len(warned) == (1 if command != "pytest" or "symlink" in how else 2), out  # pytest: both stores
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep"]
    moved = list(tmp_path.glob("contract-harness-state-*"))
    assert len(moved) == ("symlink" in how), out
    if how == "nested JSON":
        assert "nested too deeply" in out, out


def test_an_unsealed_nested_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / STATE / "check" / "reference" / "t.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(state.StateUnusable, match=r"^not sealed$"):
        state.read(path, 1 << 20, root=tmp_path / STATE)


# --------------------------------------------------------------------------- the key


def test_the_key_is_made_once_outside_the_project_readable_by_its_owner_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    secret, ident = state.key()
    path = tmp_path / "xdg" / "contract-harness" / "state.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert state.key() == (secret, ident)
    path.write_text("not a key")
    state._FILE_KEYS.clear()
    with pytest.raises(state.NoKey, match="is not 64 hex digits"):
        state.key()


def test_state_sealed_under_the_environment_key_is_taken_wherever_the_same_key_is_given(project: Path) -> None:
    key = {"CONTRACT_HARNESS_STATE_KEY": "a CI secret"}
    code, out = _run(project, "fuzz", "--examples", "5", **key)
    assert code == 0, out
    code, out = _run(project, "fuzz", "--examples", "5", XDG_STATE_HOME=str(project.parent / "another-machine"),
                     **key)
    assert code == 0 and "deployment_status: replayed" in out, out
    # Without it (a cache restored on a machine with its own key): said once, and generated.
    code, out = _run(project, "fuzz", "--examples", "5")
    assert code == 0 and "deployment_status: generated 20 examples" in out, out
    warned = _warnings(out)
    assert len(warned) == 1 and "(and every other file of its folder): sealed with another key" in warned[0], out


def test_a_key_inside_the_state_folder_is_no_key(project: Path) -> None:
    code, out = _run(project, "check", "--no-progress", "--max-mutants", "4",
                     XDG_STATE_HOME=str(project / STATE / "xdg"))
    assert code == 0, out
    warned = _warnings(out)
    assert len(warned) == 1 and "is inside the state folder" in warned[0], out
    assert not (project / VERDICTS).exists()
