"""Lint every real schema in the shared ``real-tools`` corpus (skipped where it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.lint import LintReport, lint_paths, lint_schema
from harness.pointer import MISSING, resolve
from tests.helpers.paths import corpus

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def real_tools() -> tuple[list[Path], LintReport]:
    files = sorted(corpus("real-tools").glob("*/*/schema.json"))
    return files, lint_paths(files)


def test_every_real_tool_schema_lints_without_a_crash_and_every_pointer_exists(
    real_tools: tuple[list[Path], LintReport],
) -> None:
    files, report = real_tools
    assert len(files) >= 28
    assert set(report.targets) == {str(f) for f in files}
    documents = {str(f): json.loads(f.read_text()) for f in files}
    assert len(report.findings) > len(files)  # open schemas all: the loop below has work
    for finding in report.findings:
        assert resolve(documents[finding.file], finding.pointer) is not MISSING, finding
        assert finding.line is not None and finding.line >= 1


def test_github_rest_schemas_are_reported_open_with_pointers(
    real_tools: tuple[list[Path], LintReport],
) -> None:
    files, report = real_tools
    github = [f for f in files if f.parts[-3] == "github-rest-api"]
    assert len(github) == 13
    for file in github:
        schema = json.loads(file.read_text())
        open_objects = [f for f in report.findings
                        if f.file == str(file) and f.rule == "open_object"]
        assert open_objects, f"{file.parent.name}: no open object reported"
        for finding in open_objects:
            node = resolve(schema, finding.pointer)
            assert isinstance(node, dict) and node.get("additionalProperties") is not False
    issue = [f.pointer for f in report.findings if f.rule == "open_object"
             and f.file.endswith("issues.get/schema.json")]
    assert "/$defs/issue" in issue and "/$defs/simple-user" in issue


def test_the_closed_mcp_output_schemas_are_not_reported_open(
    real_tools: tuple[list[Path], LintReport],
) -> None:
    files, report = real_tools
    mcp = {str(f) for f in files if f.parts[-3].startswith("mcp-server-")}
    assert len(mcp) == 15
    assert [f for f in report.findings if f.file in mcp and f.rule == "open_object"] == []
    dialects = {json.loads(Path(f).read_text()).get("$schema") for f in mcp}
    assert dialects == {"http://json-schema.org/draft-07/schema#"}


def test_the_github_error_bodies_lint_without_a_crash() -> None:
    files = sorted(corpus("real-tools").glob("github-rest-api/_errors/*.json"))
    assert files, "no github-rest-api/_errors/*.json in the real-tools corpus"
    for file in files:
        report = lint_schema(json.loads(file.read_text())["schema"], file=file)
        assert "open_object" in report.counts(), file.name
