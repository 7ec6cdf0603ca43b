"""Run the `run:` steps of a GitHub Actions job or composite action locally, as the runner would.

Enough of the runner for our templates: each step's ``if:`` and ``env:`` expressions are
evaluated (``inputs.*``, ``github.*``, ``steps.<id>.outcome``/``outputs``, ``always()``,
``==``, ``!=``, ``&&``, ``||``, string literals), its script runs with ``bash --noprofile
--norc -eo pipefail`` (GitHub's ``shell: bash``) in its ``working-directory``, with
``GITHUB_OUTPUT``, ``GITHUB_ENV`` and ``GITHUB_STEP_SUMMARY`` files, and ``continue-on-error``
is honoured. ``uses:`` steps (setup-python, upload-artifact, upload-sarif) are not run: they
are GitHub's, recorded as ``not run``.
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
    def __init__(self, inputs: Mapping[str, str], github: Mapping[str, str], steps: Mapping[str, StepRun]):
        self.inputs, self.github, self.steps = inputs, github, steps

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
) -> JobRun:
    """Run ``steps`` in ``cwd`` (the checked-out repository) and return each step's outcome."""
    runner = cwd.parent / f".runner-{cwd.name}"
    runner.mkdir(exist_ok=True)
    summary = runner / "summary.md"
    summary.write_text("")
    done: dict[str, StepRun] = {}
    ran: list[StepRun] = []
    job_failed = False
    for index, step in enumerate(steps):
        step_id = step.get("id", f"step{index}")
        name = step.get("name", step.get("uses", step_id))
        context = _Context(inputs, github, done)
        condition = step.get("if")
        should_run = bool(context.evaluate(condition)) if condition else not job_failed
        if "uses" in step:
            record = StepRun(step_id, name, "not run" if should_run else "skipped")
        elif not should_run:
            record = StepRun(step_id, name, "skipped")
        else:
            output_file = runner / f"output-{index}"
            output_file.write_text("")
            step_env = {**env, "GITHUB_OUTPUT": str(output_file), "GITHUB_STEP_SUMMARY": str(summary),
                        "GITHUB_ENV": str(runner / "env"), "GITHUB_WORKSPACE": str(cwd)}
            step_env.update({key: context.fill(str(value)) for key, value in step.get("env", {}).items()})
            workdir = cwd / context.fill(step.get("working-directory", "."))
            script = runner / f"step-{index}.sh"
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
    return JobRun(ran, summary.read_text())


def runner_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment for the steps: this interpreter's bin first on PATH (its
    ``python`` and ``contract-harness``), no package index, no progress bars."""
    import sys

    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "HYPOTHESIS_", "PYTEST_"))}
    env.update({"PATH": bin_dir + os.pathsep + env.get("PATH", ""), "PIP_NO_INDEX": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "CI": "true", "GIT_TERMINAL_PROMPT": "0"})
    env.update(extra or {})
    return env
