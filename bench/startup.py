"""Benchmark: how long the CLI takes to start, against a bare interpreter start in the same run.

    python bench/startup.py [--repeat 15] [--contract contracts/review_status]

Runs, alternating round by round so drift in machine speed hits every command alike, each of:

- the baseline: ``python -c pass`` (the interpreter alone, with this environment's site);
- ``contract-harness --help`` and ``contract-harness lint CONTRACT`` (the console script, as
  pre-commit runs it), and the same through ``python -m harness.cli``;
- ``contract-harness check --help``, for reference (it loads the engine's argument helpers);
- ``contract-harness check PROJECT --no-progress`` on a new repository of one tool
  (``contract-harness init ticket_lookup``, its 62 cases), where start-up is most of the run.

and prints the best (minimum) wall time of each and its ratio to the baseline. Target: ``--help``
and ``lint`` on one contract within 6x the bare interpreter. Each command also has the modules it
imports counted (``python -X importtime``), to say where the time goes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if p not in (str(_HERE), "")]
sys.path.append(str(_HERE))
from _util import save, table  # noqa: E402

REPO = _HERE.parent
TARGET = 6.0


def commands(contract: str, before: str | None = None, project: str | None = None) -> dict[str, list[str]]:
    script = shutil.which("contract-harness", path=str(Path(sys.executable).parent)) or "contract-harness"
    older = {}
    checking = {"contract-harness check NEW_REPO": [script, "check", project, "--no-progress"]} if project else {}
    if before:  # an earlier version of the package, run the same way (PYTHONPATH first)
        folder = str(Path(before).resolve())
        boot = f"import sys; sys.path.insert(0, {folder!r}); from harness.cli import main; sys.exit(main())"
        older = {"before: --help": [sys.executable, "-c", boot, "--help"],
                 "before: lint CONTRACT": [sys.executable, "-c", boot, "lint", contract]}
        if project:
            older["before: check NEW_REPO"] = [sys.executable, "-c", boot, "check", project, "--no-progress"]
    return {**older, **checking,
        "python -c pass": [sys.executable, "-c", "pass"],
        "contract-harness --help": [script, "--help"],
        "contract-harness lint CONTRACT": [script, "lint", contract],
        "python -m harness.cli --help": [sys.executable, "-m", "harness.cli", "--help"],
        "python -m harness.cli lint CONTRACT": [sys.executable, "-m", "harness.cli", "lint", contract],
        "contract-harness check --help": [script, "check", "--help"],
    }


#: The children's environment: bytecode cached, as an installed package has it, in a folder of
#: this run (PYTHONDONTWRITEBYTECODE, set in some CI images, would have every start compile the
#: harness from source; the cache must not land in the repository either).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from the child's rusage) of one run."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {child.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime


def imported(argv: list[str]) -> int:
    """How many modules a command imports (lines of -X importtime)."""
    python = [sys.executable, "-X", "importtime"]
    rest = argv[1:] if argv[0] == sys.executable else ["-m", "harness.cli", *argv[1:]]
    done = subprocess.run([*python, *rest], cwd=REPO, capture_output=True, text=True, env=ENV)
    return sum(1 for line in done.stderr.splitlines() if line.startswith("import time:")) - 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds; the best of each command is kept")
    parser.add_argument("--contract", default="contracts/review_status", help="the contract lint runs on")
    parser.add_argument("--before", metavar="DIR",
                        help="a folder holding an earlier version of the harness package (e.g. from "
                             "`git archive`), measured the same way in the same rounds")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-pycache-") as cache, \
            tempfile.TemporaryDirectory(prefix="startup-repo-") as project:
        ENV["PYTHONPYCACHEPREFIX"] = cache
        script = shutil.which("contract-harness", path=str(Path(sys.executable).parent)) or "contract-harness"
        subprocess.run([script, "init", "ticket_lookup"], cwd=project, env=ENV, check=True, capture_output=True)
        return measure(args, project)


def measure(args: argparse.Namespace, project: str | None = None) -> int:
    runs = commands(args.contract, args.before, project)
    best = dict.fromkeys(runs, float("inf"))
    cpu = dict.fromkeys(runs, float("inf"))
    for command in runs.values():  # warm the file cache and the bytecode
        timed(command)
    for _ in range(args.repeat):
        for name, command in runs.items():
            wall, used = timed(command)
            best[name], cpu[name] = min(best[name], wall), min(cpu[name], used)
    base, base_cpu = best["python -c pass"], cpu["python -c pass"]
    rows, results = [], []
    for name, command in runs.items():
        ratio, cpu_ratio = best[name] / base, cpu[name] / base_cpu
        modules = imported(command)
        results.append({"command": name, "best_s": best[name], "ratio": ratio, "cpu_s": cpu[name],
                        "cpu_ratio": cpu_ratio, "modules": modules})
        rows.append([name, f"{best[name] * 1000:.0f}", f"{ratio:.1f}x", f"{cpu[name] * 1000:.0f}",
                     f"{cpu_ratio:.1f}x", f"{modules}"])
    print(table(rows, ["command", "wall ms", "wall vs python -c pass", "CPU ms", "CPU vs python -c pass",
                       "modules imported"]))
    print("(best of each; CPU = user + system time of the process, less sensitive than wall time to\n"
          " other work on the machine)")
    held = all(r["ratio"] <= TARGET for r in results
               if r["command"] in ("contract-harness --help", "contract-harness lint CONTRACT"))
    print(f"target: contract-harness --help and lint CONTRACT within {TARGET:.0f}x python -c pass: "
          + ("held" if held else "NOT held"))
    print(f"saved {save('startup', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
