"""``import mcp --url``: a remote server over Streamable HTTP, imported, checked and drifted.

Against real servers on loopback: the ``mcp`` SDK's own server (behind a bearer token, its notes
in a file that must not change) and ``@modelcontextprotocol/server-everything`` in its
``streamableHttp`` mode (skipped, with the reason, where Node.js or the package is absent).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from tests.helpers.remote import SDK_SERVER, everything, free_port, serving

TOKEN = "notes-T0ken/secret+42"


def files_holding(root: Path, secret: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_a_remote_server_behind_a_token_is_imported_checked_and_drifted_and_its_notes_stay_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([{"title": "first", "body": "a note"}]))
    before = hashlib.sha256(notes.read_bytes()).hexdigest()
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"count_notes": {"owner": "ada"}, "read_notes": [{"owner": "ada"}, {"owner": "bo"}]}))
    project = tmp_path / "project"
    with serving([*SDK_SERVER, f"--token={TOKEN}"], {"NOTES_FILE": str(notes)}) as url:
        monkeypatch.setenv("NOTES_MCP_URL", url)
        monkeypatch.setenv("NOTES_TOKEN", TOKEN)
        assert main(["import", "mcp", "--into", str(project), "--url", "${NOTES_MCP_URL}",
                     "--header", "Authorization: Bearer ${NOTES_TOKEN}", "--sample", str(samples), "--strict"]) == 0
        imported = capsys.readouterr().out
        monkeypatch.chdir(project)
        main(["check", "--no-progress", "--json", "check.json"])
        check_out = capsys.readouterr().out
        drifted = main(["drift", "--json", "drift.json"])
        drift_out = capsys.readouterr()
    assert hashlib.sha256(notes.read_bytes()).hexdigest() == before
    contract = yaml.safe_load((project / "contracts/count_notes/contract.yaml").read_text())
    (upstream,) = contract["upstreams"].values()
    assert upstream["mcp"] == {"url": "${NOTES_MCP_URL}", "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"},
                               "tool": "count_notes"}
    assert upstream["requests"] == [{"owner": "ada"}]
    # The result echoes the owner asked for: bound, so check's change_echo mutants are caught.
    assert contract["bindings"] == [{"name": "owner", "result": "/owner", "request": "/args/owner"}]
    assert (project / "fixtures/accepted/read_notes/sample_2.json").is_file()
    # No case fails right after import (what the schemas as published leave open are findings).
    report = json.loads((project / "check.json").read_text())
    assert report["summary"]["failed"] == 0, check_out
    echoes = [c for c in report["cases"] if c["operator"] == "change_echo"]
    assert echoes and {c["status"] for c in echoes} == {"passed"}
    assert drifted == 0
    checks = json.loads((project / "drift.json").read_text())["drift"]["checks"]
    add = [c for c in checks if c["tool"] == "add_note" and c["subject"] == "response"]
    assert {c["status"] for c in checks if c["tool"] != "add_note"} == {"held"}
    assert [(c["status"], c["reason"]) for c in add] == [("not_called", "no_requests")]
    assert files_holding(tmp_path, TOKEN) == []
    assert TOKEN not in imported + check_out + drift_out.out + drift_out.err


def test_server_everything_over_streamable_http_is_imported_checked_and_drifted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"get-structured-content": [{"location": "Chicago"}, {"location": "New York"}]}))
    project = tmp_path / "project"
    with everything() as url:
        assert main(["import", "mcp", "--into", str(project), "--url", url, "--sample", str(samples),
                     "--tool", "get-structured-content", "--strict"]) == 0
        monkeypatch.chdir(project)
        main(["check", "--no-progress", "--json", "check.json"])
        out = capsys.readouterr().out
        drifted = main(["drift", "--json", "drift.json"])
        capsys.readouterr()
    assert json.loads((project / "check.json").read_text())["summary"]["failed"] == 0, out
    assert drifted == 0
    contract = yaml.safe_load((project / "contracts/get-structured-content/contract.yaml").read_text())
    assert next(iter(contract["upstreams"].values()))["mcp"]["url"] == url
    checks = json.loads((project / "drift.json").read_text())["drift"]["checks"]
    assert [c["status"] for c in checks] == ["held", "held", "held"]


def test_a_credential_written_into_a_header_is_refused_before_anything_is_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["import", "mcp", "--into", str(tmp_path), "--url", "http://127.0.0.1:9/mcp",
                 "--header", f"Authorization: Bearer {TOKEN}"])
    err = capsys.readouterr().err
    assert code == 2
    assert "upstream.literal_secret" in err and TOKEN not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "contracts").exists()


def test_a_refused_token_and_a_url_nothing_answers_are_one_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.json"
    with serving([*SDK_SERVER, f"--token={TOKEN}"], {"NOTES_FILE": str(notes)}) as url:
        monkeypatch.setenv("NOTES_TOKEN", "wrong-token")
        code = main(["import", "mcp", "--into", str(tmp_path), "--url", url,
                     "--header", "Authorization: Bearer ${NOTES_TOKEN}"])
        refused = capsys.readouterr().err
    assert code == 2 and "import.server_failed" in refused and "HTTP 401" in refused
    port = free_port()
    assert main(["import", "mcp", "--into", str(tmp_path), "--url", f"http://127.0.0.1:{port}/mcp",
                 "--timeout", "5"]) == 2
    err = capsys.readouterr().err
    assert "import.server_failed" in err and "cannot connect" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "contracts").exists()


def test_remote_tools_without_output_schema_import_from_their_json_text_and_their_plain_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([{"title": "first", "body": "a note"}, {"title": "second", "body": "b"}]))
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"list_titles": [{"owner": "ada"}, {"owner": "grace"}], "shout": {"text": "hi"}}))
    project = tmp_path / "project"
    with serving(SDK_SERVER, {"NOTES_FILE": str(notes)}) as url:
        assert main(["import", "mcp", "--into", str(project), "--url", url, "--sample", str(samples)]) == 0
        out = capsys.readouterr().out
        monkeypatch.chdir(project)
        main(["check", "--no-progress", "--json", "check.json"])
        capsys.readouterr()
        drifted = main(["drift", "--json", "drift.json"])
        capsys.readouterr()
    assert "contracts/list_titles, 2 accepted (schema INFERRED from samples)" in out
    assert "skipped tool 'add_note'" not in out  # it publishes an outputSchema: imported as published
    titles = json.loads((project / "contracts/list_titles/schemas/v1.json").read_text())
    assert titles["type"] == "object" and titles["additionalProperties"] is False
    assert titles["required"] == ["owner", "titles"]
    assert titles["properties"]["titles"]["items"] == {"type": "string", "maxLength": 256}
    contract = yaml.safe_load((project / "contracts/list_titles/contract.yaml").read_text())
    upstream = next(iter(contract["upstreams"].values()))
    assert (upstream["mcp"]["result"], upstream["mcp"]["output_schema"]) == ("text", "none")
    assert contract["bindings"] == [{"name": "owner", "result": "/owner", "request": "/args/owner"}]
    shout = yaml.safe_load((project / "contracts/shout/contract.yaml").read_text())
    assert next(iter(shout["upstreams"].values()))["mcp"]["result"] == "text_string"
    assert (project / "fixtures/accepted/shout/sample_1.json").read_bytes() == b'"HI"'
    assert json.loads((project / "check.json").read_text())["summary"]["failed"] == 0
    checks = json.loads((project / "drift.json").read_text())["drift"]["checks"]
    assert {c["status"] for c in checks if c["tool"] in ("list_titles", "shout")} == {"held"}
    assert drifted == 0
