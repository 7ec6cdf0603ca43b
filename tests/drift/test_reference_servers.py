"""Import, then drift, against the npm reference MCP servers nobody here wrote: nothing changes.

The filesystem server serves a temporary directory; after ``import mcp`` and ``drift`` the
directory is byte-for-byte what it was (every path, type, size, mode and content hashed). The
memory server keeps its graph in a file, named by the MEMORY_FILE_PATH the import was told to
give it: drift starts the server with it and reads that graph; none of its mutating tools is
ever called, so the file never changes. ``.ci/run`` installs both with npm; where Node.js or a
package is absent the tests skip and say why.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main

pytestmark = pytest.mark.drift

REPO = Path(__file__).resolve().parents[2]
MODULES = Path(os.environ.get("HARNESS_NPM_MODULES", REPO / ".ci" / "node_modules"))


def server_bin(name: str) -> Path:
    """The server's executable from ``.ci/node_modules``; the test skips, with the reason, without it."""
    path = MODULES / ".bin" / f"mcp-server-{name}"
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed (.ci/run installs the reference MCP servers with npm where it is)")
    if not path.exists():
        pytest.skip(f"@modelcontextprotocol/server-{name} is not installed in {MODULES} (.ci/run installs it with npm)")
    return path


def tree_digest(root: Path) -> str:
    """Every entry under ``root``: relative path, type, size, mode, and the content of files."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        digest.update(f"{path.relative_to(root)}\0{info.st_mode:o}\0{info.st_size}\0".encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def add_requests(root: Path, requests: dict[str, list[dict[str, object]]]) -> None:
    """Give the named tools' upstreams sample requests (as a user would), never the opt-in."""
    for contract in (root / "contracts").glob("*/contract.yaml"):
        data = yaml.safe_load(contract.read_text())
        (entry,) = data["upstreams"].values()
        if data["tool"] in requests:
            entry["requests"] = requests[data["tool"]]
        entry["mcp"]["startup_timeout_s"] = 60
        assert "side_effects" not in entry
        contract.write_text(yaml.safe_dump(data, sort_keys=False))


def drift_checks(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, object]]:
    monkeypatch.chdir(root)
    main(["drift", "--json", "drift.json", "--cases-dir", str(root / "cases")])
    return {c["id"]: c for c in json.loads((root / "drift.json").read_text())["drift"]["checks"]}


def test_import_and_drift_leave_the_filesystem_servers_directory_byte_for_byte_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = server_bin("filesystem")
    served = tmp_path / "served"
    (served / "notes").mkdir(parents=True)
    (served / "notes" / "a.txt").write_text("first line\nsecond line\n")
    (served / "x").write_bytes(b"\x00\x01binary")
    (served / "empty").mkdir()
    before = tree_digest(served)
    project = tmp_path / "project"
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"list_allowed_directories": {}, "read_text_file": {"path": str(served / "notes/a.txt")}}))
    assert main(["import", "mcp", "--into", str(project), "--sample", str(samples), "--", str(server), str(served)]) == 0
    assert tree_digest(served) == before
    target = str(served / "notes" / "a.txt")
    add_requests(  # what a user might add to the tools that write, without side_effects: allowed
        project,
        {
            "write_file": [{"path": target, "content": "overwritten"}],
            "edit_file": [{"path": target, "edits": [{"oldText": "first", "newText": "changed"}]}],
            "create_directory": [{"path": str(served / "new")}],
            "move_file": [{"source": target, "destination": str(served / "moved.txt")}],
        },
    )
    checks = drift_checks(project, monkeypatch)
    capsys.readouterr()
    assert tree_digest(served) == before
    for tool in ("write_file", "edit_file", "create_directory", "move_file"):
        (call,) = [c for cid, c in checks.items() if cid.startswith(f"{tool}::") and "[outputSchema]" not in cid]
        assert (call["status"], call["reason"]) == ("not_called", "side_effects"), tool
    read = next(c for cid, c in checks.items() if cid.startswith("read_text_file::") and "outputSchema" not in cid)
    assert read["status"] == "held"  # the sampled read-only call is made, and holds
    assert all(c["status"] != "not_called" or c["reason"] in ("side_effects", "no_requests") for c in checks.values())


def test_the_memory_server_reads_its_recorded_file_and_its_mutating_tools_never_change_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = server_bin("memory")
    memory = tmp_path / "memory.jsonl"
    ada = {"type": "entity", "name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
    memory.write_text(json.dumps(ada) + "\n")
    before = memory.read_bytes()
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory))
    project = tmp_path / "project"
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({"read_graph": {}}))
    # --env: the server is started with MEMORY_FILE_PATH (here and in drift), recorded as ${MEMORY_FILE_PATH}.
    assert main(["import", "mcp", "--into", str(project), "--env", "MEMORY_FILE_PATH", "--sample", str(samples),
                 "--", str(server)]) == 0
    assert b'"Ada"' in (project / "fixtures/accepted/read_graph/sample_1.json").read_bytes()
    entity = {"name": "Bob", "entityType": "person", "observations": ["x"]}
    add_requests(
        project,
        {
            "create_entities": [{"entities": [entity]}],
            "create_relations": [{"relations": [{"from": "Ada", "to": "Ada", "relationType": "knows"}]}],
            "add_observations": [{"observations": [{"entityName": "Ada", "contents": ["x"]}]}],
            "delete_entities": [{"entityNames": ["Ada"]}],
            "delete_observations": [{"deletions": [{"entityName": "Ada", "observations": ["wrote the first program"]}]}],
            "delete_relations": [{"relations": [{"from": "Ada", "to": "Ada", "relationType": "knows"}]}],
        },
    )
    recorded = yaml.safe_load((project / "contracts/read_graph/contract.yaml").read_text())
    assert next(iter(recorded["upstreams"].values()))["mcp"]["env"] == {"MEMORY_FILE_PATH": "${MEMORY_FILE_PATH}"}
    checks = drift_checks(project, monkeypatch)
    capsys.readouterr()
    assert memory.read_bytes() == before
    mutating = [c for cid, c in checks.items() if cid.split("::")[0].startswith(("create_", "add_", "delete_"))]
    calls = [c for c in mutating if c["subject"] == "response"]
    assert len(calls) == 6 and {(c["status"], c["reason"]) for c in calls} == {("not_called", "side_effects")}
    read_graph = next(c for cid, c in checks.items() if cid.startswith("read_graph::") and c["subject"] == "response")
    assert read_graph["status"] == "held"
    # Drift's server read the recorded file: the shape it records is the graph with Ada in it.
    assert main(["drift", "--record", "--tool", "read_graph"]) == 0
    capsys.readouterr()
    recorded_shapes = list((project / "fixtures/historical/read_graph").rglob("*.json"))
    assert recorded_shapes and all(b'"Ada"' in path.read_bytes() for path in recorded_shapes)
    assert memory.read_bytes() == before
