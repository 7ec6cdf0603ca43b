"""Fuzz replay: a property whose inputs are unchanged since its last green run replays it.

Real runs of ``pytest`` and ``contract-harness fuzz`` in throwaway projects (a copy of the demo's
deployment_status, and of job_status with its adapter moved into the project), a few examples
per property to keep them short.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.fuzz.model import Observation
from harness.fuzz.replay import ReplayStore, _harness_digest, kept, summary_lines
from harness.pytest_schedule import spread

REPLAY = Path(".contract-harness/fuzz/replay")


def _project(tmp_path: Path, demo_root: Path, tool: str) -> Path:
    project = tmp_path / "project"
    for kind in ("accepted", "rejected", "historical"):
        source = demo_root / "fixtures" / kind / tool
        if source.is_dir():
            shutil.copytree(source, project / "fixtures" / kind / tool)
    shutil.copytree(demo_root / "contracts" / tool, project / "contracts" / tool)
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\ncontract_harness_fuzz_examples = 5\n")
    return project


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_STORAGE_DIRECTORY", "PYTEST_ADDOPTS")}


def _pytest(project: Path, *args: str, prelude: str = "") -> tuple[int, str]:
    """``pytest -k fuzz`` in ``project`` (``prelude``: Python run first, in the same process)."""
    code = f"{prelude}\nimport sys, pytest\nsys.exit(pytest.main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "-q", "-k", "fuzz", *args], capture_output=True, text=True,
                          cwd=project, env=_env(), timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def _line(output: str, tool: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(f"{tool}: ")]
    assert lines, output
    return lines[-1]


@pytest.fixture
def deployment(tmp_path: Path, demo_root: Path) -> Path:
    return _project(tmp_path, demo_root, "deployment_status")


def test_pytest_replays_an_unchanged_contract_and_generates_again_when_its_schema_changes(deployment: Path) -> None:
    code, out = _pytest(deployment)
    assert code == 0, out
    assert _line(out, "deployment_status") == "deployment_status: generated 20 examples (first run)"
    saved = json.loads((deployment / REPLAY / "deployment_status/accepts_valid.json").read_text())
    assert len(saved["examples"]) == 5 and set(saved["inputs"]) >= {"contract", "schemas", "fixtures", "harness"}

    code, out = _pytest(deployment)
    assert code == 0, out
    line = _line(out, "deployment_status")
    assert line.startswith("deployment_status: replayed 20 saved examples (inputs unchanged since 20"), line

    (deployment / "contracts/deployment_status/schemas.lock").unlink()  # a draft v2 may be edited
    schema = deployment / "contracts/deployment_status/schemas/v2.json"
    schema.write_text(schema.read_text().replace("{", '{"description": "edited",', 1))
    code, out = _pytest(deployment)
    assert code == 0, out
    assert "generated 20 examples (schema changed)" in _line(out, "deployment_status")


def _cli(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """``contract-harness fuzz`` in ``project`` (in this process): its line for the tool."""
    from harness.cli import main

    monkeypatch.chdir(project)
    code = main(["fuzz", "--examples", "3", "--no-progress", "--property", "accepts_valid", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    return _line(out, "job_status")


def test_each_input_of_a_contract_changed_makes_the_cli_generate_again_and_says_which(
        tmp_path: Path, demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, demo_root, "job_status")
    (project / "my_adapters.py").write_text("from harness.demo.adapters import job_status_from_runs_api\n")
    contract = project / "contracts/job_status/contract.yaml"
    contract.write_text(contract.read_text().replace("harness.demo.adapters:", "my_adapters:"))
    monkeypatch.syspath_prepend(str(project))

    def run(*extra: str) -> str:
        return _cli(project, monkeypatch, capsys, *extra)

    assert run() == "job_status: generated 3 examples (first run)"
    assert run().startswith("job_status: replayed 3 saved examples (inputs unchanged since 20")
    assert (project / REPLAY / "job_status/accepts_valid.json").is_file()
    contract.write_text(contract.read_text() + "# a comment\n")
    assert run() == "job_status: generated 3 examples (contract.yaml changed)"
    (project / "my_adapters.py").write_text("from harness.demo.adapters import job_status_from_runs_api  # v2\n")
    assert run() == "job_status: generated 3 examples (adapter changed)"
    fixture = next((project / "fixtures/accepted/job_status").glob("*.json"))
    fixture.write_text(fixture.read_text() + "\n")
    assert run() == "job_status: generated 3 examples (fixtures changed)"
    # What nothing reads is no input: pytest's cache left in a folder it ran in, a .gitkeep.
    for folder in (project / "fixtures/accepted/job_status", project / "contracts/job_status"):
        (folder / ".pytest_cache/v").mkdir(parents=True)
        (folder / ".pytest_cache/v/lastfailed").write_text("{}")
        (folder / ".gitkeep").write_text("")
    assert run().startswith("job_status: replayed 3 saved examples (inputs unchanged since 20")
    monkeypatch.setattr("harness.version.__version__", "99.0")  # another release of the harness
    _harness_digest.cache_clear()
    try:
        assert run() == "job_status: generated 3 examples (harness version changed)"
    finally:
        monkeypatch.undo()
        _harness_digest.cache_clear()
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    assert run() == "job_status: generated 3 examples (harness version changed)"  # and back
    assert run("--examples", "4") == "job_status: generated 4 examples (fuzz settings changed)"
    assert run("--examples", "4").startswith("job_status: replayed 4 saved examples")
    assert run("--examples", "4", "--regenerate") == "job_status: generated 4 examples (regeneration forced)"
    assert run("--profile", "nightly") == "job_status: generated 3 examples (nightly profile always generates)"
    assert run("--seed", "3") == "job_status: generated 3 examples (--seed)"


def test_a_run_that_only_replayed_shows_no_generator_statistics_of_zeros(
        tmp_path: Path, demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    project = _project(tmp_path, demo_root, "deployment_status")
    monkeypatch.chdir(project)

    def run() -> tuple[str, str, str]:
        assert main(["fuzz", "--examples", "3", "--no-progress", "--markdown", "f.md", "--html", "f.html"]) == 0
        return capsys.readouterr().out, (project / "f.md").read_text(), (project / "f.html").read_text()

    out, markdown, html = run()
    assert "generated documents" in out and "| deployment_status | documents | " in markdown
    out, markdown, html = run()
    assert "deployment_status: replayed " in out
    assert "generated documents" not in out and "| deployment_status | documents | " not in markdown
    note = "No documents generated: every property replayed its saved examples."
    assert note in markdown and note in html


def test_regenerating_is_forced_by_the_flag_or_the_ini_key_and_nightly_always_generates(deployment: Path) -> None:
    assert _pytest(deployment)[0] == 0
    code, out = _pytest(deployment, "--fuzz-regenerate")
    assert code == 0 and "generated 20 examples (regeneration forced)" in _line(out, "deployment_status"), out
    code, out = _pytest(deployment, "-o", "contract_harness_fuzz_regenerate=true")
    assert code == 0 and "generated 20 examples (regeneration forced)" in _line(out, "deployment_status"), out
    code, out = _pytest(deployment, "--fuzz-profile", "nightly")
    assert code == 0 and "(nightly profile always generates)" in _line(out, "deployment_status"), out
    code, out = _pytest(deployment, "-o", "contract_harness_fuzz_regenerate=maybe")
    assert code != 0 and "contract_harness_fuzz_regenerate 'maybe': not a valid boolean" in out
    assert "Traceback" not in out


def test_a_corrupt_or_symlinked_saved_run_is_a_one_line_warning_and_the_property_generates(deployment: Path) -> None:
    assert _pytest(deployment)[0] == 0
    (deployment / REPLAY / "deployment_status/accepts_valid.json").write_bytes(b"{not json")
    elsewhere = deployment / "elsewhere.json"
    elsewhere.write_text("keep me")
    linked = deployment / REPLAY / "deployment_status/survives_any_bytes.json"
    linked.unlink()
    linked.symlink_to(elsewhere)
    code, out = _pytest(deployment)
    assert code == 0, out
    assert "Traceback" not in out
    warnings = [line for line in out.splitlines() if line.startswith("warning: fuzz replay: ")]
    assert any("accepts_valid.json: not sealed; generating" in w for w in warnings), out
    assert any("survives_any_bytes.json: a symlink (not followed); generating" in w for w in warnings), out
    assert len(warnings) == 2, out  # one line a file: not again when it is not saved
    line = _line(out, "deployment_status")
    assert "accepts_valid, survives_any_bytes: generated 10 examples (saved run not taken)" in line
    assert elsewhere.read_text() == "keep me" and linked.is_symlink()
    # The corrupt one was replaced by a good saved run: the next run replays it.
    saved = json.loads((deployment / REPLAY / "deployment_status/accepts_valid.json").read_text())
    assert len(saved["examples"]) == 5
    line = _line(_pytest(deployment)[1], "deployment_status")
    assert "accepts_valid" in line.split("generated")[0] and "replayed" in line


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads which file a descriptor is through /proc")
def test_a_saved_run_is_not_synced_and_an_empty_one_is_read_as_unreadable(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay file is a cache: written atomically without a sync; the empty file a power loss
    can leave of it is a warning, and the property generates."""
    synced: list[str] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd)))
    store = ReplayStore(tmp_path)
    assert store.save("tool_a", "accepts_valid", {"schema": "1"}, [[1]], 1) is None
    assert synced == []
    assert store.decide("tool_a", "accepts_valid", {"schema": "1"}, 1).examples == ([1],)
    store.path("tool_a", "accepts_valid").write_bytes(b"")
    decision = store.decide("tool_a", "accepts_valid", {"schema": "1"}, 1)
    assert decision.examples is None and decision.why == "saved run not taken"
    assert decision.warning is not None and "accepts_valid.json: not sealed; generating" in decision.warning


def test_a_saved_run_keeps_every_cheap_example_and_a_covering_subset_of_costly_ones() -> None:
    cheap = [(i, Observation(("accepted",), ("success",))) for i in range(100)]
    assert kept(cheap) == list(range(100))
    costly = [(i, Observation(("schema",) * 60, ("op_a",) * 60)) for i in range(100)]
    costly[50] = (50, Observation(("schema",) * 59 + ("binding",), ("op_a",) * 59 + ("op_b",)))
    chosen = kept(costly, budget=500)
    assert 50 in chosen and 0 in chosen  # the first, and the one that reached something new
    assert sum(len(costly[i][1].columns) for i in chosen) <= 500


def test_the_run_says_per_tool_what_was_replayed_and_what_was_generated_and_why() -> None:
    rows = [("a", "p", "replayed", "inputs unchanged since 2026-12-01T04:31Z", 100),
            ("a", "q", "replayed", "inputs unchanged since 2026-12-01T04:30Z", 12),
            ("b", "p", "generated", "schema changed", 100), ("b", "q", "replayed", "inputs unchanged since x", 5)]
    assert summary_lines(rows) == [
        "a: replayed 112 saved examples (inputs unchanged since 2026-12-01T04:30Z)",
        "b: p: generated 100 examples (schema changed); q: replayed 5 saved examples (inputs unchanged since x)",
    ]


def test_long_items_are_spread_evenly_among_the_short_ones() -> None:
    items = [f"case{i}" for i in range(9)] + ["fuzz1", "fuzz2", "fuzz3"]
    out = spread(items, lambda item: item.startswith("fuzz"))
    assert sorted(out) == sorted(items)
    assert [out.index(f"fuzz{k}") for k in (1, 2, 3)] == [0, 4, 8]
    assert spread(["a", "b"], lambda item: False) == ["a", "b"]
