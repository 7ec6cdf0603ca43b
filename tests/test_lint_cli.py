"""``contract-harness lint``: paths, formats (SARIF checked field by field), errors, pre-commit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.cli import main
from harness.lint import RULES, lint_paths
from harness.lint.sarif import FINGERPRINT, SARIF_SCHEMA, SRCROOT, to_sarif
from harness.locate import json_lines

REPO = Path(__file__).resolve().parent.parent
OPEN_SCHEMA = ('{\n  "type": "object",\n  "properties": {\n    "run_id": {"type": "string"},\n'
               '    "labels": {"type": "array", "items": {"enum": ["a", "b"]}}\n  }\n}\n')


def console_script() -> str:
    """The installed ``contract-harness`` beside this interpreter (an unactivated venv too)."""
    exe = shutil.which("contract-harness", path=str(Path(sys.executable).parent))
    exe = exe or shutil.which("contract-harness")
    assert exe, "the console script must be installed (pip install -e .)"
    return exe


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding one bare schema file, ``schemas/tool.schema.json``."""
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas/tool.schema.json").write_text(OPEN_SCHEMA)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_without_a_project_lint_stops_with_the_hint_and_never_lints_the_demo_silently(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"contract-harness: error: project.not_found: no contracts/ folder in {project} or any parent: start one "
        "with `contract-harness init TOOL`, pass CONTRACTS, or run the embedded demo with --demo"]


def test_lint_demo_lints_the_embedded_demo(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    code, out, _ = run(capsys, "--demo")
    assert code == 0
    assert out.splitlines()[-1] == "lint: clean (3 targets, 5 waived)"
    assert sum("waived[" in line for line in out.splitlines()) == 5


def test_without_paths_a_local_contracts_folder_is_linted(
    capsys: pytest.CaptureFixture[str], project: Path, demo_root: Path
) -> None:
    shutil.copytree(demo_root / "contracts/review_status", project / "contracts/review_status")
    code, out, _ = run(capsys)
    assert (code, out.splitlines()[-1]) == (0, "lint: clean (1 target, 1 waived)")  # reviewed_by


def test_findings_exit_1_with_file_line_rule_pointer_message_and_fix(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, out, _ = run(capsys, "schemas/tool.schema.json")
    assert code == 1
    assert out.splitlines() == [
        "schemas/tool.schema.json:1: error[open_object] /: object accepts members it does "
        "not declare",
        f"    fix: {RULES['open_object'].fix}",
        "schemas/tool.schema.json:4: warning[identifier_without_pattern] /properties/run_id: "
        "identifier 'run_id' is any string: no pattern",
        f"    fix: {RULES['identifier_without_pattern'].fix}",
        "schemas/tool.schema.json:4: warning[unbounded_string] /properties/run_id: string has "
        "no maxLength",
        f"    fix: {RULES['unbounded_string'].fix}",
        "schemas/tool.schema.json:5: warning[unbounded_array] /properties/labels: array has no "
        "maxItems",
        f"    fix: {RULES['unbounded_array'].fix}",
        "lint: 4 findings (1 error, 3 warnings) in 1 target",
    ]


def test_select_and_ignore_take_comma_separated_ids(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, out, _ = run(capsys, "schemas/tool.schema.json", "--select",
                       "open_object,unbounded_array", "--ignore", "unbounded_array",
                       "--format", "json")
    assert code == 1
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["open_object"]
    code, out, _ = run(capsys, "schemas/tool.schema.json", "--ignore", "open_object",
                       "--ignore", "unbounded_string,unbounded_array,identifier_without_pattern")
    assert (code, out) == (0, "lint: clean (1 target)\n")


def test_json_output_lists_findings_and_waivers(
    capsys: pytest.CaptureFixture[str], project: Path, demo_root: Path
) -> None:
    code, out, _ = run(capsys, str(demo_root / "contracts/job_status"), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["findings"] == []
    assert data["summary"]["waived"] == 1  # the vendor run id (the vendor schema's openness is not judged)
    first = data["waived"][0]
    assert set(first) == {"rule", "severity", "file", "line", "pointer", "schema", "tool",
                          "message", "fix", "waiver"}
    assert set(first["waiver"]) == {"index", "rule", "pointer", "schema", "reason"}


def _sarif(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, *argv, "--format", "sarif")
    return code, json.loads(out)


def test_sarif_is_2_1_0_as_github_code_scanning_reads_it(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, log = _sarif(capsys, "schemas/tool.schema.json")
    assert code == 1
    assert (log["$schema"], log["version"]) == (SARIF_SCHEMA, "2.1.0")
    [run_] = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "contract-harness lint"
    assert re.fullmatch(r"\d+\.\d+\.\d+", driver["semanticVersion"])
    # tool.driver.rules: every rule that ran, each with the fields GitHub shows.
    assert [r["id"] for r in driver["rules"]] == list(RULES.ids)
    for descriptor, rule in zip(driver["rules"], RULES, strict=True):
        assert descriptor["name"] == "".join(p.capitalize() for p in rule.id.split("_"))
        assert descriptor["shortDescription"] == {"text": rule.summary}
        assert descriptor["fullDescription"] == {"text": rule.description}
        assert descriptor["help"]["text"].endswith(f"Fix: {rule.fix}")
        assert descriptor["help"]["markdown"].endswith(f"**Fix:** {rule.fix}")
        assert descriptor["defaultConfiguration"] == {"level": rule.severity.value}
        assert descriptor["properties"]["tags"][:2] == ["json-schema", "agent-boundary"]
    # results: ruleId, ruleIndex, level, message, locations, fingerprints.
    lines = json_lines((project / "schemas/tool.schema.json").read_text())
    assert [r["ruleId"] for r in run_["results"]] == [
        "open_object", "identifier_without_pattern", "unbounded_string", "unbounded_array"]
    for result in run_["results"]:
        rule = RULES[result["ruleId"]]
        assert driver["rules"][result["ruleIndex"]]["id"] == rule.id
        assert result["level"] == rule.severity.value
        assert result["message"]["text"].endswith(f". Fix: {rule.fix}")
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "schemas/tool.schema.json",
                                                "uriBaseId": SRCROOT}
        [logical] = location["logicalLocations"]
        pointer = logical["fullyQualifiedName"].split("#", 1)[1]
        assert logical["fullyQualifiedName"] == f"schemas/tool.schema.json#{pointer}"
        assert logical["name"] == (pointer or "/")
        assert physical["region"] == {"startLine": lines[pointer]}
        assert re.fullmatch(r"[0-9a-f]{32}", result["partialFingerprints"][FINGERPRINT])
    assert run_["originalUriBaseIds"] == {SRCROOT: {"uri": project.resolve().as_uri() + "/"}}
    assert run_["properties"] == {"waived": []}


def test_sarif_fingerprints_survive_line_moves_and_waivers_are_not_results(
    capsys: pytest.CaptureFixture[str], project: Path, demo_root: Path
) -> None:
    _, before = _sarif(capsys, "schemas/tool.schema.json")
    schema = project / "schemas/tool.schema.json"
    schema.write_text("\n\n" + schema.read_text())
    _, after = _sarif(capsys, "schemas/tool.schema.json")

    def prints(log: dict[str, Any]) -> list[tuple[str, int]]:
        return [(r["partialFingerprints"][FINGERPRINT],
                 r["locations"][0]["physicalLocation"]["region"]["startLine"])
                for r in log["runs"][0]["results"]]

    assert [p for p, _ in prints(before)] == [p for p, _ in prints(after)]
    assert [line + 2 for _, line in prints(before)] == [line for _, line in prints(after)]
    code, demo = _sarif(capsys, str(demo_root / "contracts"))
    assert code == 0 and demo["runs"][0]["results"] == []
    waived = demo["runs"][0]["properties"]["waived"]
    assert len(waived) == 5
    assert {"ruleId", "uri", "pointer", "line", "reason"} == set(waived[0])


def test_sarif_names_files_outside_the_root_by_absolute_uri(tmp_path: Path) -> None:
    file = tmp_path / "outside" / "tool.schema.json"
    file.parent.mkdir()
    file.write_text(OPEN_SCHEMA)
    elsewhere = tmp_path / "checkout"
    elsewhere.mkdir()
    log = to_sarif(lint_paths([file]), root=elsewhere)
    artifacts = {json.dumps(r["locations"][0]["physicalLocation"]["artifactLocation"])
                 for r in log["runs"][0]["results"]}
    assert artifacts == {json.dumps({"uri": file.resolve().as_uri()})}


def test_output_is_written_atomically_and_a_summary_is_printed(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, out, _ = run(capsys, "schemas/tool.schema.json", "--format", "sarif",
                       "--output", "reports/lint.sarif")
    assert code == 1
    assert out == ("lint: 4 findings (1 error, 3 warnings) in 1 target; report written to "
                   "reports/lint.sarif\n")
    assert json.loads((project / "reports/lint.sarif").read_text())["version"] == "2.1.0"
    assert [p.name for p in (project / "reports").iterdir()] == ["lint.sarif"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--select", "open_objet"], "usage.unknown_rule"),
        (["--ignore", "nope"], "usage.unknown_rule"),
        (["--select", ","], "usage.invalid"),
        (["--format", "xml"], "usage.invalid"),
        (["no/such/file.json"], "contract.missing"),
        (["broken.json"], "contract.invalid"),
        (["contracts/bad"], "contract.invalid"),
        (["schemas/tool.schema.json", "--output", "schemas"], "usage.invalid"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_a_stable_code(
    capsys: pytest.CaptureFixture[str], project: Path, argv: list[str], code: str
) -> None:
    (project / "broken.json").write_text('{"type": ')
    (project / "contracts/bad").mkdir(parents=True)
    (project / "contracts/bad/contract.yaml").write_text("tool: bad\nversion: 1\n")
    exit_code, out, err = run(capsys, *argv)
    assert exit_code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"{code}:" in err and "Traceback" not in err


def test_list_rules_names_every_rule_with_its_severity(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--list-rules")
    assert code == 0
    listed = [line.split()[:2] for line in out.splitlines()]
    assert listed == [[r.id, r.severity.value] for r in RULES]


def test_the_console_script_prints_no_traceback_on_a_malformed_schema(project: Path) -> None:
    exe = console_script()
    (project / "broken.json").write_bytes(b'{"type": "object",}')
    proc = subprocess.run([exe, "lint", "broken.json"], capture_output=True, timeout=60,
                          cwd=project)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.count(b"\n") == 1 and b"contract.invalid" in proc.stderr


# --------------------------------------------------------------------------- pre-commit


def _hooks() -> dict[str, dict[str, Any]]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list)
    return {hook["id"]: hook for hook in hooks}


def test_pre_commit_hooks_parse_and_run_the_lint_entry_point() -> None:
    hooks = _hooks()
    assert set(hooks) == {"contract-harness-lint", "contract-harness-lint-schemas"}
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    for hook in hooks.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"
        assert hook["entry"] == "contract-harness lint"
        assert hook["entry"].split()[0] in scripts
    assert hooks["contract-harness-lint"]["pass_filenames"] is False


@pytest.mark.parametrize(
    ("hook", "path", "runs"),
    [
        ("contract-harness-lint", "contracts/review_status/schemas/v1.json", True),
        ("contract-harness-lint", "contracts/review_status/contract.yaml", True),
        ("contract-harness-lint", "src/app.py", False),
        ("contract-harness-lint-schemas", "schema.json", True),
        ("contract-harness-lint-schemas", "tools/search.schema.json", True),
        ("contract-harness-lint-schemas", "package.json", False),
        ("contract-harness-lint-schemas", "fixtures/accepted/x/ok.json", False),
    ],
)
def test_pre_commit_hooks_select_the_files_they_should(hook: str, path: str, runs: bool) -> None:
    assert bool(re.search(_hooks()[hook]["files"], path)) is runs


def test_the_schema_hook_entry_lints_the_files_pre_commit_passes(project: Path) -> None:
    exe = console_script()
    entry = _hooks()["contract-harness-lint-schemas"]["entry"].split()
    proc = subprocess.run([exe, *entry[1:], "schemas/tool.schema.json"], capture_output=True,
                          timeout=60, cwd=project)
    assert proc.returncode == 1 and b"error[open_object]" in proc.stdout
