"""The CLI imports lazily: which modules ``contract-harness --help`` loads (the plugin's own
imports are checked in tests/test_plugin.py).

Checked on ``sys.modules`` in a fresh interpreter (never on a time): a module listed here that
gets imported is a regression whatever the machine's speed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries none of these need: validators, YAML, diffing, rendering, async runtimes, generators.
HEAVY = ("jsonschema", "jsonschema_rs", "referencing", "yaml", "deepdiff", "rich", "anyio", "hypothesis",
         "hypothesis_jsonschema", "httpx", "mcp", "junit_xml", "greenery", "regex")


def _modules_after(code: str, cwd: Path | None = None) -> set[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["frobnicate"]])
def test_the_cli_lists_its_commands_without_loading_any_library(argv: list[str]) -> None:
    modules = _modules_after(
        "import contextlib, io\nfrom harness.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        "assert code in (0, 2), code")
    assert _heavy(modules) == []
    assert not any(name.startswith(("harness.cli.", "harness.boundary", "harness.engine")) for name in modules)


def test_the_cli_help_lists_every_command_with_its_line() -> None:
    from harness.cli import COMMANDS, build_parser

    text = build_parser([]).format_help()
    for name, (_, line) in COMMANDS.items():
        assert f"    {name}" in text and line[:40] in " ".join(text.split())


def test_a_command_loads_its_own_module_only() -> None:
    modules = _modules_after(
        "import contextlib, io\nfrom harness.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['guard', '--help']) == 0")
    assert {name for name in modules if name.startswith("harness.cli.")} == {"harness.cli.guard"}


@pytest.mark.parametrize("command", ["check", "verify", "lint", "compat", "drift", "init", "import", "lock", "guard", "sandbox"])
def test_a_command_help_builds_its_parser_without_the_command_library(command: str) -> None:
    modules = _modules_after(
        "import contextlib, io\nfrom harness.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main([{command!r}, '--help']) == 0")
    assert _heavy(modules) == []
    library = ("harness.cases", "harness.engine", "harness.mutations", "harness.contract.load", "harness.lint.",
               "harness.schemas", "harness.boundary.")
    assert sorted(name for name in modules if name.startswith(library)) == []


#: What ``lint`` on a contract needs is the loader, the schema model and the rules: YAML and the
#: production validator (contract.yaml's meta-schema). Nothing that runs cases, renders reports
#: or talks to upstreams; and not ``referencing`` (nor its ``attrs``) for a contract whose
#: references are JSON pointers (the demo's): the schema model resolves those itself.
LINT_NEEDS_NOT = ("jsonschema", "deepdiff", "rich", "anyio", "hypothesis", "hypothesis_jsonschema", "httpx",
                  "mcp", "junit_xml", "greenery", "regex", "referencing", "attr", "attrs")


def test_lint_on_one_contract_loads_only_what_linting_needs() -> None:
    from pathlib import Path

    contract = Path(__file__).resolve().parent.parent / "contracts" / "review_status"
    modules = _modules_after(
        "import contextlib, io\nfrom harness.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['lint', {str(contract)!r}]) == 0")
    assert sorted(name for name in modules if name.split(".")[0] in LINT_NEEDS_NOT) == []
    ours = {name for name in modules if name.startswith("harness.")}
    assert "harness.lint.engine" in ours  # it did lint
    assert not ours & {"harness.engine", "harness.cases", "harness.mutations", "harness.differential",
                       "harness.boundary.pipeline", "harness.reporting", "harness.drift", "harness.lint.sarif"}
    assert {name for name in ours if name.startswith("harness.cli.")} == {"harness.cli.lint", "harness.cli.check", "harness.cli._common"}


#: What ``check`` with its default reports never uses: drift's shape diffing, report formats not
#: asked for, upstream clients, generators.
CHECK_NEEDS_NOT = ("deepdiff", "junit_xml", "httpx", "mcp", "anyio", "hypothesis", "hypothesis_jsonschema",
                   "greenery")


def test_check_loads_only_what_checking_needs(tmp_path: Path) -> None:
    # A copy of this repository's project: its state (the saved verdicts) starts empty here.
    demo = tmp_path / "project"
    for folder in ("contracts", "fixtures"):
        shutil.copytree(Path(__file__).resolve().parent.parent / folder, demo / folder)
    run = ("import contextlib, io\nfrom harness.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()):\n"
           f"    assert main(['check', {str(demo)!r}, '--no-progress', '--max-mutants', '1', '--jobs', '1']) == 0")
    modules = _modules_after(run, cwd=tmp_path)
    assert sorted(name for name in modules if name.split(".")[0] in CHECK_NEEDS_NOT) == []
    # One job and no progress bar: no process pool, no bar.
    assert not modules & {"multiprocessing", "concurrent.futures.process", "rich.progress", "harness.drift.check",
                          "harness.drift.diff"}
    assert "harness.engine" in modules  # it did check
    assert "jsonschema" in modules  # the reference validator validated (and saved its verdicts)
    # Again, with every verdict saved: python-jsonschema is never asked, nor imported.
    modules = _modules_after(run, cwd=tmp_path)
    assert "harness.engine" in modules
    assert not modules & {"jsonschema", "harness.differential.reference"}
