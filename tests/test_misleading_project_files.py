"""Project files and options that would mislead a run: a sidecar naming a schema version the
contract does not have or a request it cannot take, a ``contract.yaml`` that is a FIFO, fixture
names written to be HTML or links in a job summary, option values no run can use.

Real ``contract-harness`` and ``pytest`` runs in subprocesses, on projects made with ``init``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harness.errors import one_line
from tests.helpers.cli import run_cli

TOOL = "weather_lookup"


@pytest.fixture
def project(init_project: Path) -> Path:
    return init_project


def _sidecar(project: Path, text: str) -> Path:
    sidecar = project / "fixtures" / "accepted" / TOOL / "ok.case.yaml"
    sidecar.write_text(text)
    return sidecar


@pytest.mark.parametrize("command", [("check",), ("verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json")])
def test_a_sidecar_naming_a_version_the_contract_lacks_is_an_error_naming_the_sidecar(
        project: Path, command: tuple[str, ...]) -> None:
    _sidecar(project, "expect: accept\nversion: 99\n")
    code, out, err = run_cli(project, *command)
    assert (code, out) == (2, ""), out + err
    assert err == (f"contract-harness: error: fixture.invalid_sidecar: fixtures/accepted/{TOOL}/ok.case.yaml:2:1: "
                   f"/version: version 99: {TOOL} has no schema version 99 (allowed: 1)\n")


def test_a_sidecar_naming_a_version_the_contract_has_is_judged_against_it(project: Path) -> None:
    directory = project / "contracts" / TOOL
    (directory / "schemas" / "v2.json").write_text((directory / "schemas" / "v1.json").read_text().replace(
        '"additionalProperties": false', '"additionalProperties": false, "maxProperties": 1'))
    contract = directory / "contract.yaml"
    contract.write_text(re.sub(r"(?m)^version: 1$", "version: 2", contract.read_text()))
    code, out, err = run_cli(project, "verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json")
    assert code == 1 and out.startswith(f"{TOOL} v2: rejected at schema"), out + err  # the current version
    _sidecar(project, "expect: accept\nversion: 1\n")
    code, out, err = run_cli(project, "verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json")
    assert code == 0 and out.startswith(f"{TOOL} v1: accepted"), out + err
    code, out, err = run_cli(project, "check", "--source", "accepted")
    assert code == 0, out + err


@pytest.mark.parametrize("command", [("check",), ("verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json"),
                                     ("pytest", "-q", "--no-fuzz")])
def test_a_sidecar_request_the_contract_cannot_take_is_an_error_naming_the_sidecar(
        project: Path, command: tuple[str, ...]) -> None:
    _sidecar(project, "expect: accept\nrequest: {args: {nonsense: [1]}}\n")
    code, out, err = run_cli(project, *command)
    assert code == 2 if command[0] != "pytest" else code != 0, out + err
    said = out + err
    assert f"fixture.invalid_sidecar: {'' if command[0] != 'pytest' else str(project) + '/'}fixtures/accepted/" \
           f"{TOOL}/ok.case.yaml:2:1: /request: request args do not fit the contract's request schema" in said, said
    assert "Traceback" not in said


@pytest.mark.parametrize("command", [("check",), ("check", f"contracts/{TOOL}"), ("lint",), ("fuzz",),
                                     ("verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json")])
def test_a_fifo_contract_file_is_one_line_saying_so_and_is_never_read(project: Path,
                                                                      command: tuple[str, ...]) -> None:
    contract = project / "contracts" / TOOL / "contract.yaml"
    contract.unlink()
    os.mkfifo(contract)
    code, out, err = run_cli(project, *command)  # a blocking read would hang past the timeout
    assert (code, out) == (2, ""), out + err
    assert err.count("\n") == 1 and "file.not_regular: " in err, err
    assert f"contracts/{TOOL}/contract.yaml: " in err and " is a FIFO, not a regular file" in err, err


NAME = "<img src=x onerror=alert(1)>[click](https:evil.example)www.evil.example"


def test_the_markdown_report_writes_fixture_names_as_text_never_as_html_or_links(project: Path) -> None:
    (project / "fixtures" / "accepted" / TOOL / f"{NAME}.json").write_text("{}")  # not accepted: a note names it
    code, out, err = run_cli(project, "check", "--markdown", "report.md")
    assert code == 1, out + err
    markdown = (project / "report.md").read_text()
    (note,) = [line for line in markdown.splitlines() if line.startswith("- ") and "is not accepted" in line]
    # Every punctuation character escaped: no tag, link, autolink or emphasis is left to render.
    punctuation = r"[!-/:-@\[-`{-~]"
    assert re.findall(punctuation, re.sub(r"\\" + punctuation, "", note[2:])) == [], note
    assert note.startswith(r"- weather\_lookup\:\:accepted\:\:\<img src\=x onerror\=alert\(1\)\>\[click\]")
    assert re.sub(r"\\(.)", r"\1", note) == f"- {TOOL}::accepted::{NAME} is not accepted (schema.oneOf); " \
                                            "no mutations from it"


@pytest.mark.parametrize(("argv", "said"), [
    (("--fuzz-examples", "0"), "ERROR: --fuzz-examples 0: must be at least 1"),
    (("--max-mutants", "-1"), "ERROR: --max-mutants -1: must be at least 0"),
    (("-o", "contract_harness_fuzz_examples=0"), "ERROR: contract_harness_fuzz_examples '0': must be at least 1"),
    (("-o", "contract_harness_max_mutants=-3"), "ERROR: contract_harness_max_mutants '-3': must be at least 0"),
])
def test_pytest_refuses_a_count_no_run_can_use_in_one_line(project: Path, argv: tuple[str, ...], said: str) -> None:
    code, out, err = run_cli(project, "pytest", "-q", *argv)
    assert code == 4, out + err  # pytest's usage error
    assert err.strip() == said and out == "", out + err


@pytest.mark.parametrize(("argv", "said"), [
    (("check", "--max-mutants", "-1"), "usage.invalid: --max-mutants must be >= 0, not -1"),
    (("fuzz", "--examples", "0"), "usage.invalid: --examples must be at least 1, not 0"),
])
def test_the_cli_refuses_the_same_counts(project: Path, argv: tuple[str, ...], said: str) -> None:
    assert run_cli(project, *argv) == (2, "", f"contract-harness: error: {said}\n")


def test_an_error_on_a_descriptor_is_printed_without_a_file_name() -> None:
    assert one_line(IsADirectoryError(21, "Is a directory", 3)) == "file.error: Is a directory"
    assert one_line(IsADirectoryError(21, "Is a directory", "a/b")) == "file.error: a/b: Is a directory"


def test_a_markdown_cell_keeps_an_upstreams_value_as_text() -> None:
    from harness.reporting.files import md_cell

    assert md_cell("<b>x</b> [a](b) & \\<i> |\nnext") == r"\<b\>x\</b\> \[a\](b) \& \\\<i\> \| next"
