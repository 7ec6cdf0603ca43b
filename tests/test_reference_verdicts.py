"""The reference validator's verdicts saved between runs of ``check``: a later run with the same
schema and document takes the saved verdict where the production validator agrees with it, and
validates again wherever anything it depends on differs.

Real ``check`` runs (in this process, and with ``--jobs 2``) on throwaway projects.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import load_contract
from harness.cases import Case, CaseExpectation
from harness.cli import main
from harness.codes import Layer
from harness.differential.verdicts import FORMAT, VERDICTS_DIR, ReferenceVerdicts, document_key, validator_identity
from harness.engine import Engine
from harness.events import CaseFinished, RunFinished
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema, item

SAVED = Path(*(".contract-harness", *VERDICTS_DIR))
PROPERTIES: dict[str, Any] = dict(ENVELOPE_DATA["properties"])  # type: ignore[call-overload]


@pytest.fixture
def project(tmp_path: Path, demo_root: Path) -> Path:
    """A copy of the demo's review_status and deployment_status."""
    root = tmp_path / "project"
    for tool in ("review_status", "deployment_status"):
        for kind in ("accepted", "rejected", "historical"):
            source = demo_root / "fixtures" / kind / tool
            if source.is_dir():
                shutil.copytree(source, root / "fixtures" / kind / tool)
        shutil.copytree(demo_root / "contracts" / tool, root / "contracts" / tool)
    return root


def _check(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           *extra: str) -> tuple[dict[str, Any], str]:
    """``check`` in ``project``: its JSON report and its output (stdout and stderr)."""
    monkeypatch.chdir(project)
    code = main(["check", "--no-progress", "--json", "report.json", *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    return json.loads((project / "report.json").read_text()), captured.out + captured.err


def _outcomes(report: dict[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    return [(c["id"], c["status"], c["problem"], c["actual"]["layer"]) for c in report["cases"]]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_second_run_takes_every_verdict_saved_by_the_first_and_reaches_the_same_results(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    first, out = _check(project, monkeypatch, capsys, "--jobs", jobs)
    counts = first["summary"]["differential"]
    assert counts["saved"] == 0 and counts["full"] > 0 and counts["confirmed"] > 0
    assert counts["compared"] == counts["confirmed"] + counts["full"]
    assert "saved by an earlier run" not in out
    files = sorted(p.name for p in (project / SAVED).iterdir())
    assert files == ["deployment_status.json", "review_status.json"]
    body = json.loads((project / SAVED / "review_status.json").read_text())
    assert body["format"] == FORMAT and body["tool"] == "review_status"
    (lists,) = body["verdicts"].values()  # one schema version's validator
    assert lists["valid"] and lists["invalid"]

    second, out = _check(project, monkeypatch, capsys, "--jobs", jobs, "-v")  # -v: what it took from the first
    counts = second["summary"]["differential"]
    assert counts["saved"] == counts["compared"] == first["summary"]["differential"]["compared"]
    assert counts["full"] == counts["confirmed"] == 0
    assert _outcomes(second) == _outcomes(first)
    assert f"differential: {counts['saved']:,} of {counts['compared']:,} documents compared" in out


def test_a_changed_schema_validates_its_documents_afresh(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = _check(project, monkeypatch, capsys, "--tool", "review_status")
    schema = next((project / "contracts/review_status/schemas").glob("v*.json"))
    (project / "contracts/review_status/schemas.lock").unlink(missing_ok=True)  # edited in place
    schema.write_text(schema.read_text().replace("{", '{"description": "edited",', 1))
    second, _ = _check(project, monkeypatch, capsys, "--tool", "review_status")
    assert second["summary"]["differential"]["saved"] == 0
    assert second["summary"]["differential"]["compared"] == first["summary"]["differential"]["compared"]
    body = json.loads((project / SAVED / "review_status.json").read_text())
    assert len(body["verdicts"]) == 1  # the old schema's verdicts are dropped


def test_without_saved_verdicts_nothing_is_read_or_written(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _check(project, monkeypatch, capsys, "--tool", "review_status")
    before = (project / SAVED / "review_status.json").read_bytes()
    report, _ = _check(project, monkeypatch, capsys, "--tool", "review_status", "--no-saved-verdicts")
    assert "saved" not in report["summary"]["differential"]
    assert report["summary"]["differential"]["full"] > 0
    assert (project / SAVED / "review_status.json").read_bytes() == before
    shutil.rmtree(project / ".contract-harness")
    _check(project, monkeypatch, capsys, "--tool", "review_status", "--no-differential")
    assert not (project / SAVED).exists()


# b"": what a power loss can leave of a file written without a sync (the saved verdicts are a cache).
@pytest.mark.parametrize("content", [b"{not json", b"", b'{"format": 99}', b'{"format": 3, "verdicts": {"x": 1}}'])
def test_an_unreadable_file_is_a_warning_and_the_run_validates_afresh(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    target = project / SAVED / "review_status.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    report, out = _check(project, monkeypatch, capsys, "--tool", "review_status")
    assert f"contract-harness: warning: saved reference verdicts: {SAVED / 'review_status.json'}: " in out
    assert "; validating afresh" in out and "Traceback" not in out
    assert report["summary"]["differential"]["saved"] == 0
    assert json.loads(target.read_text())["format"] == FORMAT  # replaced by this run's


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads which file a descriptor is through /proc")
def test_the_saved_verdicts_are_not_synced_to_disk_and_the_report_is(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    _check(project, monkeypatch, capsys, "--jobs", "1")
    assert sorted(p.name for p in (project / SAVED).iterdir()) == ["deployment_status.json", "review_status.json"]
    assert [Path(p).parent for p in synced] == [project.resolve()]  # the report's temporary file alone
    assert Path(synced[0]).name.startswith(".report.json.")


@pytest.mark.parametrize("earlier", [1, 2])
def test_an_earlier_releases_file_is_replaced_without_a_warning(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], earlier: int) -> None:
    # Format 1 knew a document by its canonical text, format 2 was not sealed: their verdicts
    # are not taken, nor warned of.
    target = project / SAVED / "review_status.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"format": earlier, "tool": "review_status",
                                  "verdicts": {"v": {"valid": ["ab"], "invalid": []}}}))
    report, out = _check(project, monkeypatch, capsys, "--tool", "review_status")
    assert "warning" not in out
    assert report["summary"]["differential"]["saved"] == 0 and report["summary"]["differential"]["full"] > 0
    body = json.loads(target.read_text())
    assert body["format"] == FORMAT and "v" not in body["verdicts"]


def test_a_symlink_is_never_followed(project: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("keep me")
    target = project / SAVED / "review_status.json"
    target.parent.mkdir(parents=True)
    os.symlink(elsewhere, target)
    _, out = _check(project, monkeypatch, capsys, "--tool", "review_status")
    assert "a symlink (not followed); validating afresh" in out
    assert "not saved" not in out  # one line: the file was warned of when read
    assert elsewhere.read_text() == "keep me"


# ------------------------------------------------------------- a saved verdict never hides a finding


def _engine_run(contract: Any, payload: bytes, store: ReferenceVerdicts,
                accept: bool = False) -> tuple[Any, dict[str, int]]:
    expect = CaseExpectation(True) if accept else CaseExpectation(False, (Layer.SCHEMA,))
    case = Case("item_status::rejected::x", "item_status", "rejected", contract, expect, lambda: payload)
    events = list(Engine(saved=store).run([case]))
    result = next(e.result for e in events if isinstance(e, CaseFinished))
    summary = next(e.summary for e in events if isinstance(e, RunFinished))
    assert summary.differential is not None
    return result, summary.differential


def test_a_disagreement_is_found_again_on_every_run(make_contract: Callable[..., Path], tmp_path: Path) -> None:
    # Python-only regex syntax: jsonschema-rs says the note is no regex; python's re reads it.
    data = dict(ENVELOPE_DATA, properties={**PROPERTIES, "note": {"type": "string", "format": "regex"}})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    store = tmp_path / "saved"
    for _ in range(2):  # the second run has the reference's verdict saved, and still reports
        result, counts = _engine_run(contract, item(note="(?P<n>a)"), ReferenceVerdicts(store))
        assert (result.status, result.problem) == ("finding", "differential")
        assert "(jsonschema) says valid" in result.detail
        assert counts == {"compared": 1, "remembered": 0, "confirmed": 0, "full": 1, "undecided": 0, "saved": 0}


def test_a_saved_verdict_the_production_contradicts_is_validated_again_and_corrected(
        make_contract: Callable[..., Path], tmp_path: Path) -> None:
    contract = load_contract(make_contract())
    store = tmp_path / "saved"
    payload = item()
    result, counts = _engine_run(contract, payload, ReferenceVerdicts(store), accept=True)
    assert counts["full"] == 1 and result.status == "passed", result.detail
    path = store / "item_status.json"
    body = json.loads(path.read_text())
    (lists,) = body["verdicts"].values()
    assert len(lists["valid"]) == 1 and lists["invalid"] == []
    # As if the reference had said invalid: a wrong verdict, sealed as this machine seals its own.
    ((identity, _),) = body["verdicts"].items()
    wrong = ReferenceVerdicts(store)
    wrong.put("item_status", identity, lists["valid"][0], False)
    wrong.save()
    result, counts = _engine_run(contract, payload, ReferenceVerdicts(store), accept=True)
    assert counts["full"] == 1 and counts["saved"] == 0 and result.status == "passed", result.detail
    (lists,) = json.loads(path.read_text())["verdicts"].values()
    assert len(lists["valid"]) == 1 and lists["invalid"] == []
    _, counts = _engine_run(contract, payload, ReferenceVerdicts(store), accept=True)
    assert counts["saved"] == 1 and counts["full"] == 0


def test_a_document_is_known_by_its_bytes_and_two_spellings_are_validated_apart(
        make_contract: Callable[..., Path], tmp_path: Path) -> None:
    contract = load_contract(make_contract())
    compact = item()
    spaced = json.dumps(json.loads(compact), indent=2).encode()
    assert json.loads(spaced) == json.loads(compact) and spaced != compact
    assert document_key(None, compact) != document_key(None, spaced)
    assert document_key(json.loads(compact)) == document_key(json.loads(spaced))  # no bytes: canonical text
    store = tmp_path / "saved"
    for payload in (compact, spaced):
        _, counts = _engine_run(contract, payload, ReferenceVerdicts(store), accept=True)
        assert counts["full"] == 1 and counts["saved"] == 0
    (lists,) = json.loads((store / "item_status.json").read_text())["verdicts"].values()
    assert sorted(lists["valid"]) == sorted(document_key(None, p).hex() for p in (compact, spaced))  # type: ignore[union-attr]
    for payload in (compact, spaced):
        _, counts = _engine_run(contract, payload, ReferenceVerdicts(store), accept=True)
        assert counts["saved"] == 1 and counts["full"] == 0


def test_the_validators_identity_covers_its_schema_resources_base_uri_and_libraries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.differential import verdicts as reference_verdicts

    schema = {"type": "string"}
    resources = [("file:///a.json", {"type": "integer"})]
    base = validator_identity(schema, resources, "file:///s.json")
    assert base == validator_identity(dict(schema), list(resources), "file:///s.json")
    assert base != validator_identity({"type": "number"}, resources, "file:///s.json")
    assert base != validator_identity(schema, [("file:///a.json", {"type": "boolean"})], "file:///s.json")
    assert base != validator_identity(schema, resources, "file:///elsewhere/s.json")
    assert validator_identity({"x": float("nan")}, [], "") is None
    monkeypatch.setattr(reference_verdicts, "_libraries_digest", lambda: "another jsonschema")
    assert base != validator_identity(schema, resources, "file:///s.json")


def test_a_file_keeps_this_runs_verdicts_first_up_to_its_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.differential import verdicts as reference_verdicts

    store = ReferenceVerdicts(tmp_path)
    for n in range(5):
        store.put("t", "v", f"old{n}", True)
    store.save()
    monkeypatch.setattr(reference_verdicts, "MAX_VERDICTS", 4)
    store = ReferenceVerdicts(tmp_path)
    assert store.get("t", "v", "old0") is True and store.get("t", "v", "missing") is None
    store.put("t", "v", "new0", False)
    store.put("t", "v", "new1", True)
    store.save()
    (lists,) = json.loads((tmp_path / "t.json").read_text())["verdicts"].values()
    kept = set(lists["valid"]) | set(lists["invalid"])
    assert len(kept) == 4 and {"old0", "new0", "new1"} <= kept
    assert "new0" in lists["invalid"]
    # Nothing new: the file is left as it is.
    before = (tmp_path / "t.json").stat().st_mtime_ns
    store = ReferenceVerdicts(tmp_path)
    assert store.get("t", "v", "new1") is True
    store.save()
    assert (tmp_path / "t.json").stat().st_mtime_ns == before


def test_two_processes_saving_one_tool_keep_each_others_verdicts(tmp_path: Path) -> None:
    """Two pytest-xdist workers (or CI jobs) read a tool's file, then each saves what it found:
    the second writer keeps what the first saved meanwhile, a validator the first added
    included; a validator neither used, from a run before both, is dropped as stale."""
    seed = ReferenceVerdicts(tmp_path)
    seed.put("t", "stale", "d0", True)
    seed.put("t", "shared", "d0", True)
    seed.save()
    first, second = ReferenceVerdicts(tmp_path), ReferenceVerdicts(tmp_path)
    assert first.get("t", "shared", "d0") is True and second.get("t", "shared", "d0") is True
    first.put("t", "shared", "d1", False)
    first.put("t", "only-first", "d2", True)
    second.put("t", "shared", "d3", True)
    first.save()
    second.save()
    verdicts = json.loads((tmp_path / "t.json").read_text())["verdicts"]
    assert set(verdicts) == {"shared", "only-first"}
    assert verdicts["shared"] == {"valid": ["d0", "d3"], "invalid": ["d1"]}
    assert verdicts["only-first"] == {"valid": ["d2"], "invalid": []}
    third = ReferenceVerdicts(tmp_path)
    assert [third.get("t", "shared", d) for d in ("d0", "d1", "d3")] == [True, False, True]


def test_installed_versions_are_read_as_importlib_metadata_reads_them() -> None:
    from importlib import metadata

    from harness.digests import installed_version

    names = {dist.metadata["Name"] for dist in metadata.distributions() if dist.metadata["Name"]}
    assert len(names) > 20
    assert {name: installed_version(name) for name in names} == {name: metadata.version(name) for name in names}
    assert installed_version("no-such-distribution-here") is None
