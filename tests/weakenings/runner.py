"""Run ``check``, ``lint`` and ``fuzz`` on a scratch copy, as a user runs them, and read what
each said.

Each command runs in a process of its own, from the copy's root, on the one tool the copy holds,
writing its JSON report into the copy. By default the process is forked from a
``multiprocessing`` fork server that imported the harness once, and calls the same ``main`` as
the ``contract-harness`` script with its output redirected to files: importing the harness is
most of a ``check`` run's CPU time on the demo tools (about 1 s of 1.6 s), and this suite runs
``check`` some sixty times. ``mode="exec"`` runs ``python -m harness`` instead; a test holds the
two to the same answer. The outcome is one of:

- ``flagged``: exit 1 and the report names what failed (failing cases for ``check`` and
  ``fuzz``, findings for ``lint``). The copy differs from the baseline only by the weakening and
  the baseline holds under every command (``tests/test_weakenings.py``, ``bench/weakenings.py``),
  so whatever failed is the weakening's doing. Lint's ``unused_waiver`` alone does not count: a
  weakening that removes what a waiver excused is not a finding about the weakening.
- ``held``: exit 0.
- ``refused``: exit 2, a usage or configuration error (the weakened contract does not load).
  Counted apart from ``flagged``: CI turns red, but no contract check saw anything, and the
  catalogue holds only weakenings that load (a test makes sure) — a refusal means the catalogue
  or the harness's load checks changed.
- ``error``: anything else (another exit code, exit 1 with an empty report, a timeout).
"""

from __future__ import annotations

import argparse
import difflib
import json
import multiprocessing
import os
import pkgutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import harness.cli
from tests.weakenings.scratch import Scratch

COMMANDS = ("check", "lint", "fuzz")
STATUSES = ("flagged", "held", "refused", "error")
#: Examples per property for ``fuzz --profile ci`` in this suite: enough for the near-miss
#: and canary properties to run every operator once, small enough for a whole table in minutes.
FUZZ_EXAMPLES = 25
NOT_ATTRIBUTABLE = frozenset({"unused_waiver"})
#: What the fork server imports once: every command module (main() builds the parser of all
#: of them). None imports hypothesis, which must be imported in the child: it reads its storage
#: directory when first imported, after main() sets it. A name that does not import is skipped.
PRELOAD = ["harness.cli", *(f"harness.cli.{m.name}" for m in pkgutil.iter_modules(harness.cli.__path__)
                            if m.name != "__main__"), "harness.lock", "harness.schemas.resolve"]
_FORKSERVER = multiprocessing.get_context("forkserver")
_FORKSERVER.set_forkserver_preload(PRELOAD)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command made of one scratch copy."""

    command: str
    status: str
    exit_code: int | None
    evidence: tuple[str, ...] = ()  # failing case ids with their problem, or lint findings
    message: str = ""  # the one-line error of a refusal or an error

    @property
    def flagged(self) -> bool:
        return self.status == "flagged"

    def describe(self, limit: int = 3) -> str:
        if self.status in ("refused", "error"):
            return f"{self.status} (exit {self.exit_code}): {self.message}"
        shown = "; ".join(self.evidence[:limit])
        more = f" (+{len(self.evidence) - limit} more)" if len(self.evidence) > limit else ""
        return f"{self.status}: {shown}{more}" if self.evidence else self.status


def add_arguments(parser: argparse.ArgumentParser, *, examples: str, only: str, worklist: str) -> None:
    """The options both weakening benchmarks take: ``--commands``, ``--examples``, ``--jobs``,
    ``--only`` (ids like ``only``), ``--verbose`` and ``--worklist``."""
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"comma-separated commands to run (default {','.join(COMMANDS)})")
    parser.add_argument("--examples", type=int, default=FUZZ_EXAMPLES,
                        help=f"fuzz examples per property (default {FUZZ_EXAMPLES}{examples})")
    parser.add_argument("--jobs", type=int, default=2, help="commands run at once (default 2)")
    parser.add_argument("--only", nargs="+", metavar="ID", default=[], help=f"only these weakenings ({only})")
    parser.add_argument("--verbose", action="store_true", help="print what each command flagged")
    parser.add_argument("--worklist", action="store_true", help=worklist)


def checked_commands(parser: argparse.ArgumentParser, args: argparse.Namespace, known: Iterable[str], hint: str,
                     **counts: int) -> tuple[str, ...]:
    """The commands to run; a usage error (``parser.error``) for an unknown command or
    weakening id, or for ``--examples``, ``--jobs`` or one of ``counts`` below 1."""
    try:
        commands = parse_commands(args.commands)
    except ValueError as exc:
        parser.error(str(exc))
    for name, value in {"--examples": args.examples, "--jobs": args.jobs, **counts}.items():
        if value < 1:
            parser.error(f"{name} must be at least 1, not {value}")
    problem = unknown_weakening(args.only, known, hint)
    if problem:
        parser.error(problem)
    return commands


def parse_commands(text: str) -> tuple[str, ...]:
    """``check,lint`` as the commands to run; a ValueError naming the unknown ones."""
    commands = tuple(c for c in text.split(",") if c)
    unknown = sorted(set(commands) - set(COMMANDS))
    if unknown or not commands:
        raise ValueError(f"--commands: unknown {', '.join(unknown) or 'none given'} (known: {', '.join(COMMANDS)})")
    return commands


def unknown_weakening(wanted: list[str], known: Iterable[str], hint: str) -> str | None:
    """The error for the first of ``wanted`` that no weakening has as its id, with the closest
    ids; None when all are known."""
    ids = list(known)
    for id_ in wanted:
        if id_ not in ids:
            close = difflib.get_close_matches(id_, ids, n=3)
            return f"--only: no weakening {id_!r}" + (f" (did you mean {', '.join(close)}?)" if close else f" ({hint})")
    return None


def arguments(command: str, tool: str, report: Path, fuzz_examples: int = FUZZ_EXAMPLES) -> list[str]:
    if command == "check":
        return ["check", "--tool", tool, "--no-progress", "--json", str(report)]
    if command == "lint":
        return ["lint", "--format", "json", "--output", str(report)]
    if command == "fuzz":
        return ["fuzz", "--tool", tool, "--profile", "ci", "--examples", str(fuzz_examples),
                "--no-progress", "--json", str(report)]
    raise ValueError(f"unknown command {command!r} (known: {', '.join(COMMANDS)})")


def run(command: str, scratch: Scratch, *, fuzz_examples: int = FUZZ_EXAMPLES, timeout: float = 600,
        mode: str = "fork", extra: tuple[str, ...] = ()) -> Outcome:
    """Run ``command`` on the scratch copy and classify what it said (``mode``: ``fork`` from the
    fork server, or ``exec`` a new ``python -m harness``; ``extra``: more options for the
    command, such as ``--max-mutants N`` for check)."""
    state = scratch.root / ".contract-harness"
    state.mkdir(parents=True, exist_ok=True)
    report = state / f"weakening-{command}.json"
    report.unlink(missing_ok=True)
    env = {**os.environ, "CI": "1", "NO_COLOR": "1", "COLUMNS": "160"}
    argv = [*arguments(command, scratch.tool, report, fuzz_examples), *extra]
    out, err = state / f"weakening-{command}.stdout", state / f"weakening-{command}.stderr"
    if mode == "exec":
        try:
            proc = subprocess.run([sys.executable, "-m", "harness", *argv], cwd=scratch.root, env=env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Outcome(command, "error", None, message=f"no answer in {timeout:.0f} s")
        code: int | None = proc.returncode
        out.write_text(proc.stdout, encoding="utf-8")
        err.write_text(proc.stderr, encoding="utf-8")
    elif mode == "fork":
        child = _FORKSERVER.Process(target=_main_in_child, args=(argv, str(scratch.root), env, str(out), str(err)))
        child.start()
        child.join(timeout)
        if child.is_alive():
            child.kill()
            child.join()
            return Outcome(command, "error", None, message=f"no answer in {timeout:.0f} s")
        code = child.exitcode
    else:
        raise ValueError(f"unknown mode {mode!r} (known: fork, exec)")
    said = [line for f in (err, out) if f.is_file() for line in f.read_text(encoding="utf-8").strip().splitlines()]
    last_line = said[-1] if said else ""
    if code == 0:
        return Outcome(command, "held", 0)
    if code == 2:
        return Outcome(command, "refused", 2, message=last_line)
    if code != 1 or not report.is_file():
        return Outcome(command, "error", code, message=last_line or "no report written")
    evidence = _evidence(command, json.loads(report.read_text(encoding="utf-8")))
    if not evidence:
        return Outcome(command, "error", 1, message=f"exit 1 with nothing attributable in the report ({last_line})")
    return Outcome(command, "flagged", 1, evidence)


def _main_in_child(argv: list[str], cwd: str, env: dict[str, str], out: str, err: str) -> None:
    """In the forked process: become ``contract-harness ARGV`` run from ``cwd``."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["contract-harness", *argv]
    from harness.cli import main

    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)


def _evidence(command: str, report: dict[str, Any]) -> tuple[str, ...]:
    if command == "lint":
        return tuple(f"{f['rule']} {Path(f['file']).name}#{f['pointer']}"
                     for f in report["findings"] if f["rule"] not in NOT_ATTRIBUTABLE)
    return tuple(f"{case['id']} ({case['problem']})" for case in report["cases"] if case["status"] != "passed")
