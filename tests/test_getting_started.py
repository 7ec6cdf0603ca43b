"""docs/getting-started.md, followed step by step: every command of its ``sh`` blocks, in order,
in one shell, in a git repository made from scratch.

Two substitutions, both about where things come from, none about what is run: the git URL the
harness is installed from is a commit of this work tree (no network), and the new virtual
environment gets the harness's dependencies already present (a path file naming this
interpreter's packages, the harness's own left out; its own old setuptools removed so the one
present builds), as the package index would give them; pip runs with no index.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.helpers.paths import REPO
from tests.helpers.workflow_steps import harness_source, runner_env

GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
DOC = REPO / "docs" / "getting-started.md"
URL = "git+https://github.com/OWNER/tool-contract-harness@main"
MARK = "=== command: "


def commands() -> list[str]:
    """Every command of the page's ``sh`` blocks, in order (comments and blank lines left out)."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.S):
        found += [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return found


def _dependencies_present(packages: Path) -> str:
    """Shell that gives the new .venv the harness's dependencies (links to this interpreter's
    packages in ``packages``, the harness's own left out) and leaves it without its own old
    setuptools and with a ``pytest`` command, as installing the dependencies would."""
    packages.mkdir()
    for outer in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        for entry in Path(outer).iterdir():
            if not entry.name.startswith(("tool_contract_harness", "__editable__", "harness")) \
                    and not (packages / entry.name).exists():
                (packages / entry.name).symlink_to(entry)
    return (f"python3.11 -m venv .venv && .venv/bin/python -m pip uninstall -q -y setuptools && "
            f"echo {packages} > \"$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')"
            "/outer-packages.pth\" && printf '#!/bin/sh\\nexec \"$(dirname \"$0\")/python\" -m pytest \"$@\"\\n' "
            "> .venv/bin/pytest && chmod +x .venv/bin/pytest")


def test_the_page_has_the_commands_a_newcomer_types() -> None:
    found = commands()
    assert found[0].startswith("python3.11 -m venv .venv && . .venv/bin/activate && pip install ")
    assert URL in found[0]
    for expected in ("contract-harness init ticket_status", "contract-harness check",
                     "contract-harness verify contracts/ticket_status fixtures/accepted/ticket_status/ok.json",
                     "contract-harness lock"):
        assert any(line.split("  #")[0].strip() == expected for line in found), expected


def test_every_command_of_getting_started_runs_in_order_in_a_new_repository(tmp_path: Path) -> None:
    source = tmp_path / "harness"
    source.mkdir()
    sha = harness_source(REPO, source, GIT_ENV)
    repo = tmp_path / "my-tools"
    repo.mkdir()
    env = runner_env(GIT_ENV)
    env.pop("PIP_NO_BUILD_ISOLATION")  # set below, for the doc's own pip
    subprocess.run(["git", "init", "--quiet", "-b", "main"], cwd=repo, env=env, check=True)
    script = ["set -eo pipefail", "export PIP_NO_INDEX=1 PIP_NO_BUILD_ISOLATION=0"]
    venv = _dependencies_present(tmp_path / "packages")
    for line in commands():
        run = line.replace("python3.11 -m venv .venv", venv)
        run = run.replace(URL, f"git+file://{source}@{sha}")
        script += [f"echo '{MARK}{line.split('  #')[0].strip()}'", run]
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", "\n".join(script)], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    out = done.stdout
    assert done.returncode == 0, (out + done.stderr)[-4000:]
    said = {part.split("\n", 1)[0]: part.split("\n", 1)[1] if "\n" in part else "" for part in out.split(MARK)[1:]}
    assert "Successfully installed tool-contract-harness-" in said[next(k for k in said if k.startswith("python3.11"))]
    assert "all 739 cases held" in said["contract-harness check --demo"]
    assert (repo / "report.html").is_file()
    assert "recorded v1 in contracts/ticket_status/schemas.lock" in said["contract-harness init ticket_status"]
    assert re.search(r"all \d+ cases held", said["contract-harness check"])
    assert re.search(r"= \d+ passed in ", said["pytest -rs"]), said["pytest -rs"]
    assert "accepted" in said["contract-harness verify contracts/ticket_status fixtures/accepted/ticket_status/ok.json"]
    assert said["contract-harness lock --check"].startswith("schemas.lock: 1 version of 1 tool recorded, none changed")
    assert sys.executable not in out  # the page's own .venv ran everything
