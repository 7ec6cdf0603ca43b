"""Run the `run:` steps of a GitHub Actions job or composite action locally, as the runner would.

Enough of the runner for our templates: each step's ``if:`` and ``env:`` expressions are
evaluated (``inputs.*``, ``github.*``, ``steps.<id>.outcome``/``outputs``, ``always()``,
``==``, ``!=``, ``&&``, ``||``, string literals), its script runs with ``bash --noprofile
--norc -eo pipefail`` (GitHub's ``shell: bash``) in its ``working-directory``, with
``GITHUB_OUTPUT``, ``GITHUB_ENV`` and ``GITHUB_STEP_SUMMARY`` files, and ``continue-on-error``
is honoured. Two ``uses:`` steps run as the runner runs them: ``actions/checkout`` of another
repository (``repository:``, ``ref:``, ``path:``), cloned from a local git repository standing
for it (``sources``), and a local composite action (``uses: ./path``), whose steps run with its
inputs (its declared defaults, then ``with:``) and ``github.action_path``, each reported among
the job's steps. Other ``uses:`` steps (setup-python, the caller's own checkout, upload-artifact,
upload-sarif) are GitHub's, recorded as ``not run``.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepRun:
    id: str
    name: str
    outcome: str  # success, failure, skipped, not run (a `uses:` step)
    output: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class JobRun:
    steps: list[StepRun]
    summary: str

    def __getitem__(self, step_id: str) -> StepRun:
        return next(s for s in self.steps if s.id == step_id)


class _Context:
    def __init__(self, inputs: Mapping[str, str], github: Mapping[str, str], steps: Mapping[str, StepRun],
                 job: Mapping[str, str] | None = None):
        self.inputs, self.github, self.steps, self.job = inputs, github, steps, job or {}

    def value(self, term: str) -> Any:
        term = term.strip()
        if term.startswith("(") and term.endswith(")"):
            return self.evaluate(term[1:-1])
        if term == "always()":
            return True
        if len(term) >= 2 and term[0] == term[-1] == "'":
            return term[1:-1]
        parts = term.split(".")
        if parts[0] == "inputs":
            return self.inputs[parts[1]]
        if parts[0] == "github":
            return self.github.get(parts[1], "")
        if parts[0] == "job":
            return self.job[parts[1]]
        if parts[0] == "steps":
            step = self.steps.get(parts[1])
            if step is None:
                return ""
            return step.outcome if parts[2] == "outcome" else step.outputs.get(parts[3], "")
        raise ValueError(f"expression not modelled: {term!r}")

    def evaluate(self, text: str) -> Any:
        alternatives = text.split("||")
        if len(alternatives) > 1:
            for option in alternatives:
                value = self.evaluate(option)
                if value:
                    return value
            return value
        conjuncts = text.split("&&")
        if len(conjuncts) > 1:  # as GitHub's: the first falsy operand, else the last one's value
            for part in conjuncts:
                value = self.evaluate(part)
                if not value:
                    return value
            return value
        for operator in ("==", "!="):
            if operator in text:
                left, right = text.split(operator)
                same = str(self.value(left)) == str(self.value(right))
                return same if operator == "==" else not same
        return self.value(text)

    def fill(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: str(self.evaluate(m.group(1))), text)


def run_steps(
    steps: list[dict[str, Any]],
    *,
    inputs: Mapping[str, str],
    github: Mapping[str, str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float = 600,
    job: Mapping[str, str] | None = None,
    sources: Mapping[str, Path] | None = None,
) -> JobRun:
    """Run ``steps`` in ``cwd`` (the checked-out repository) and return each step's outcome.
    ``job`` is the job context (``job.workflow_repository``, ``job.workflow_sha``); ``sources``
    maps a repository name to the local git repository a checkout of it clones."""
    runner = cwd.parent / f".runner-{cwd.name}"
    runner.mkdir(exist_ok=True)
    summary = runner / "summary.md"
    summary.write_text("")
    ran, _ = _run(steps, inputs, github, cwd, env, timeout, job or {}, sources or {}, runner, summary)
    return JobRun(ran, summary.read_text())


def _run(steps: list[dict[str, Any]], inputs: Mapping[str, str], github: Mapping[str, str], cwd: Path,
         env: Mapping[str, str], timeout: float, job: Mapping[str, str], sources: Mapping[str, Path],
         runner: Path, summary: Path, prefix: str = "") -> tuple[list[StepRun], bool]:
    """The steps' records, and whether one failed that did not continue on error."""
    done: dict[str, StepRun] = {}
    ran: list[StepRun] = []
    job_failed = False
    for index, step in enumerate(steps):
        step_id = step.get("id", f"step{index}")
        name = step.get("name", step.get("uses", step_id))
        context = _Context(inputs, github, done, job)
        condition = step.get("if")
        should_run = bool(context.evaluate(condition)) if condition else not job_failed
        uses = step.get("uses", "")
        if uses.startswith("./") and should_run:  # a local composite action: its steps, here
            folder = cwd / context.fill(uses)
            action = yaml.safe_load((folder / "action.yml").read_text())
            given = {key: context.fill(str(value)) for key, value in step.get("with", {}).items()}
            declared = {key: str(spec.get("default", "")) for key, spec in action.get("inputs", {}).items()}
            inner, failed = _run(action["runs"]["steps"], {**declared, **given},
                                 {**github, "action_path": str(folder)}, cwd, env, timeout, job, sources, runner,
                                 summary, prefix=f"{prefix}{index}.")
            ran += inner
            record = StepRun(step_id, name, "failure" if failed else "success")
        elif uses.startswith("actions/checkout@") and "repository" in step.get("with", {}) and should_run:
            given = {key: context.fill(str(value)) for key, value in step["with"].items()}
            target = cwd / given.get("path", ".")
            clone = subprocess.run(["git", "clone", "--quiet", str(sources[given["repository"]]), str(target)],
                                   capture_output=True, text=True, timeout=timeout, env=dict(env))
            checked = clone.returncode == 0 and subprocess.run(
                ["git", "-C", str(target), "checkout", "--quiet", given.get("ref", "HEAD")],
                capture_output=True, text=True, timeout=timeout, env=dict(env)).returncode == 0
            record = StepRun(step_id, name, "success" if checked else "failure", clone.stderr)
        elif "uses" in step:
            record = StepRun(step_id, name, "not run" if should_run else "skipped")
        elif not should_run:
            record = StepRun(step_id, name, "skipped")
        else:
            output_file = runner / f"output-{prefix}{index}"
            output_file.write_text("")
            step_env = {**env, "GITHUB_OUTPUT": str(output_file), "GITHUB_STEP_SUMMARY": str(summary),
                        "GITHUB_ENV": str(runner / "env"), "GITHUB_WORKSPACE": str(cwd)}
            step_env.update({key: context.fill(str(value)) for key, value in step.get("env", {}).items()})
            workdir = cwd / context.fill(step.get("working-directory", "."))
            script = runner / f"step-{prefix}{index}.sh"
            script.write_text(context.fill(step["run"]))
            started = time.perf_counter()
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                  cwd=workdir, env=step_env, capture_output=True, text=True, timeout=timeout)
            outputs = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
            record = StepRun(step_id, name, "success" if proc.returncode == 0 else "failure",
                             proc.stdout + proc.stderr, outputs, time.perf_counter() - started)
        if record.outcome == "failure" and not step.get("continue-on-error"):
            job_failed = True
        done[step_id] = record
        ran.append(record)
    return ran, job_failed


def runner_env(extra: Mapping[str, str] | None = None, *, python: Path | None = None) -> dict[str, str]:
    """The process environment for the steps: ``python``'s bin folder (default: this
    interpreter's) first on PATH (its ``python`` and, once installed, ``contract-harness``), no
    package index, no progress bars. Where pip builds the harness from its files it uses the
    build backend already present (``PIP_NO_BUILD_ISOLATION=0`` turns isolation off: pip reads
    its ``no-`` options inverted), as an index would otherwise provide it."""
    import sys

    bin_dir = str(python.parent if python else Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "HYPOTHESIS_", "PYTEST_", "PIP_", "VIRTUAL_ENV"))}
    env.update({"PATH": bin_dir + os.pathsep + env.get("PATH", ""), "PIP_NO_INDEX": "1",
                "PIP_NO_BUILD_ISOLATION": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "CI": "true",
                "GIT_TERMINAL_PROMPT": "0"})
    env.update(extra or {})
    return env


def scratch_python(folder: Path) -> Path:
    """A new virtual environment in ``folder`` with this interpreter's packages but the harness
    (a path file naming a folder of links to every entry of its site-packages, the harness's
    own left out): the runner's Python with the harness's dependencies already present, and no
    harness for pip to find. Returns its ``python``."""
    import sys
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    inner = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    shadows = []
    for index, outer in enumerate(sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})):
        shadow = folder / f"packages-{index}"
        shadow.mkdir()
        for entry in Path(outer).iterdir():
            if not entry.name.startswith(("tool_contract_harness", "__editable__", "harness")):
                (shadow / entry.name).symlink_to(entry)
        shadows.append(shadow)
    (Path(inner) / "outer-packages.pth").write_text("".join(f"{path}\n" for path in shadows))
    return python


def harness_source(repo: Path, folder: Path, env: Mapping[str, str]) -> str:
    """The harness's repository as a user's CI would fetch it: the files git knows of in
    ``repo``'s work tree (edits not committed yet included), committed in a new repository at
    ``folder``; returns that commit's sha."""
    import shutil

    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = repo / name
        if source.is_file() and not source.is_symlink():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    for argv in (["init", "--quiet", "-b", "main"], ["add", "-A"], ["commit", "--quiet", "-m", "the harness"]):
        subprocess.run(["git", "-C", str(folder), *argv], check=True, capture_output=True, env=dict(env))
    return subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
