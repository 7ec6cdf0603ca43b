"""Benchmark: how long compat takes, against baselines measured in the same run.

    python bench/compat.py [--repeat N] [--sections demo,real,github] [--largest N] [--timeout S] [--before PATH]

- **demo**: for every consecutive version pair of every demo tool, the full report (normalise,
  classify, targeted and generated witnesses, replay) with the default budget, and the static
  classification alone (best of N).
- **real**: the static classification of each real-tool schema under
  ``$HARNESS_SHARED/corpora/real-tools`` against its ``import --strict`` version (best of N).
- **github**: the 13 GitHub operations of the corpus, as a user runs them, each command in a
  fresh process: ``contract-harness import openapi --strict`` with and without ``--no-compat``
  (the baseline; target: under a minute with compat), then for the ``--largest`` operations
  (by schema size) ``contract-harness check`` on the imported contract (the baseline) and
  ``contract-harness compat TOOL --from 1 --to 2`` with the default budget (target: within 10x
  of ``check``). The OpenAPI description is rebuilt from the corpus exactly as
  ``tests/test_onboarding_real_tools.py`` does. ``--timeout`` caps every command (reported as
  ``>S``), so a slow version of the code cannot stall the run. Each command's CPU seconds are
  printed beside its wall seconds (the machine may be shared). ``--before PATH`` runs the same
  GitHub commands with another checkout's package (``git worktree add /tmp/compat-before
  ffdcaf3``, a tree without the compat witnesses) in the same run, so both trees' numbers sit
  side by side.

Results are written to bench/results/compat.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

# This folder holds harness.py (a benchmark), which must not shadow the package: import the
# package first, then make _util importable.
_HERE = str(Path(__file__).resolve().parent)
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import byte_compiled, save, table  # noqa: E402

from harness import load_contract  # noqa: E402
from harness.compat import compare, consecutive_pairs  # noqa: E402
from harness.compat.api import prepare_version  # noqa: E402
from harness.compat.classify import Comparison  # noqa: E402
from harness.compat.normalise import prepare  # noqa: E402
from harness.contract import demo_root  # noqa: E402
from harness.onboarding.tighten import tighten  # noqa: E402


def best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def real_tools() -> Path:
    shared = Path(os.environ.get("HARNESS_SHARED", ROOT.parent / "shared"))
    return shared / "corpora" / "real-tools"


def _changes(a: Any, b: Any) -> Any:
    return Comparison(a.tree, b.tree, old=a, new=b).changes()


def demo(repeat: int, rows: list[list[str]], results: dict[str, Any]) -> None:
    for tool in ("deployment_status", "job_status", "review_status"):
        contract = load_contract(demo_root() / "contracts" / tool)
        for old, new in consecutive_pairs(contract):
            compare(contract, old, new)  # warm: imports, compiled validators
            full = best(partial(compare, contract, old, new), repeat)
            a, b = prepare_version(contract, old), prepare_version(contract, new)
            static = best(partial(_changes, a, b), repeat)
            rows.append([f"{tool} v{old}->v{new}", f"{full:.2f}", f"{static * 1000:.1f}"])
            results[f"{tool}:{old}->{new}"] = {"full_s": full, "static_ms": static * 1000}


def real(repeat: int, rows: list[list[str]], results: dict[str, Any]) -> None:
    root = real_tools()
    for schema_file in sorted(root.glob("*/*/schema.json")) if root.is_dir() else []:
        schema = json.loads(schema_file.read_text())
        examples = [json.loads(p.read_text()) for p in sorted((schema_file.parent / "examples").glob("*.json"))]
        a, b = prepare(schema, label="old"), prepare(tighten(schema, examples).schema, label="new")
        static = best(partial(_changes, a, b), repeat)
        name = f"{schema_file.parent.parent.name}/{schema_file.parent.name}"
        rows.append([f"{name} (strict)", "-", f"{static * 1000:.1f}"])
        results[name] = {"static_ms": static * 1000, "bytes": schema_file.stat().st_size}


@dataclass(frozen=True, slots=True)
class Timed:
    """One CLI command run in a fresh process: wall and CPU seconds (None past the timeout)."""

    wall: float | None
    cpu: float | None
    code: int | None


def _environment(tree: Path, cwd: Path) -> dict[str, str]:
    """The environment that runs ``tree``'s package, checked: ``python -m`` puts the working
    directory first on ``sys.path``, so commands run in ``cwd`` (a scratch folder), never in a
    checkout whose package would shadow ``tree``'s."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    found = subprocess.run([sys.executable, "-c", "import harness; print(harness.__file__)"], env=env, cwd=cwd,
                           capture_output=True, text=True, check=True).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{tree}: the package imported is {found}, not this checkout's")
    return env


def _timed(argv: list[str], timeout: float, env: dict[str, str], cwd: Path) -> Timed:
    """One CLI command in a fresh process (``env`` from :func:`_environment`). CPU seconds (user
    and system, of the process and its children) are reported beside wall seconds: on a shared
    machine they say what the command costs, where wall time says how busy the machine was."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "harness", *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Timed(None, None, None)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode == 2:
        raise SystemExit(f"{' '.join(argv[:3])} ... failed ({env['PYTHONPATH']}): {done.stderr.decode()[-400:]}")
    return Timed(elapsed, cpu, done.returncode)


def _shown(seconds: float | None, timeout: float) -> str:
    return f">{timeout:.0f}" if seconds is None else f"{seconds:.2f}"


def _ratio(a: float | None, b: float | None, timeout: float) -> str:
    if b is None:
        return "-"
    return f">{timeout / b:.1f}x" if a is None else f"{a / b:.1f}x"


def _both(t: Timed, timeout: float) -> str:
    """Wall seconds (CPU seconds; unknown for a command stopped at the timeout)."""
    return f"{_shown(t.wall, timeout)} ({'-' if t.cpu is None else f'{t.cpu:.2f}'})"


def _cpu_ratio(a: Timed, b: Timed) -> str:
    return "-" if a.cpu is None or b.cpu is None else f"{a.cpu / b.cpu:.1f}x"


def github_tree(tree: Path, label: str, largest: int, timeout: float, results: dict[str, Any]) -> list[str]:
    """The GitHub measures with ``tree``'s package: import --strict with and without compat,
    then check and compat on the largest operations of the project imported without compat."""
    sys.path.insert(0, str(ROOT))
    from tests.test_onboarding_real_tools import github_openapi

    root = real_tools() / "github-rest-api"
    lines = [f"{label} ({tree}): seconds wall (CPU)"]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        env = _environment(tree, work)
        spec = work / "github.openapi.json"
        spec.write_text(json.dumps(github_openapi(root)))
        operations = [json.loads(p.read_text())["operationId"] for p in sorted(root.glob("*/tool.json"))]
        argv = ["import", "openapi", str(spec), "--strict", *(a for op in operations for a in ("--operation", op))]
        plain = _timed([*argv, "--into", f"{work}/plain", "--no-compat"], timeout, env, work)
        with_compat = _timed([*argv, "--into", f"{work}/compat"], timeout, env, work)
        results[f"{label}:github:import"] = {
            "operations": len(operations), "no_compat_s": plain.wall, "compat_s": with_compat.wall,
            "no_compat_cpu_s": plain.cpu, "compat_cpu_s": with_compat.cpu}
        lines.append(f"import openapi --strict, {len(operations)} GitHub operations: "
                     f"{_both(with_compat, timeout)} s with compat, {_both(plain, timeout)} s with --no-compat "
                     f"(wall {_ratio(with_compat.wall, plain.wall, timeout)}, "
                     f"CPU {_cpu_ratio(with_compat, plain)}; target: under 60 s)")
        sizes = sorted(((p.stat().st_size, p.parent.name) for p in root.glob("*/schema.json")), reverse=True)
        project = work / "plain"
        rows = []
        for size, tool in sizes[:largest]:
            check = _timed(["check", str(project / "contracts" / tool), "--no-progress"], timeout, env, work)
            report = _timed(["compat", tool, "--contracts", str(project), "--from", "1", "--to", "2",
                             "--json", f"{work}/{tool}.compat.json"], timeout, env, work)
            changes, clock = None, None
            if report.wall is not None:
                data = json.loads(Path(f"{work}/{tool}.compat.json").read_text())
                changes = len(data["changes"])
                searches = data.get("searches") or {}
                clock = sum(s.get("stopped_by_clock", 0) for s in searches.values())
            rows.append([tool, f"{size:,}", str(changes if changes is not None else "-"),
                         str(clock if clock is not None else "-"), _both(check, timeout),
                         _both(report, timeout), _ratio(report.wall, check.wall, timeout),
                         _cpu_ratio(report, check)])
            results[f"{label}:github:{tool}"] = {
                "bytes": size, "changes": changes, "stopped_by_clock": clock, "check_s": check.wall,
                "check_cpu_s": check.cpu, "check_exit": check.code, "compat_s": report.wall, "compat_cpu_s": report.cpu,
                "compat_exit": report.code}
        lines.append("")
        lines.append(table(rows, ["GitHub operation v1 -> strict v2", "schema bytes", "changes",
                                  "searches stopped by the clock", "check (s)",
                                  "compat (s)", "compat/check wall (target <= 10x)", "compat/check CPU"]))
    return lines


def github(largest: int, timeout: float, before: Path | None, results: dict[str, Any]) -> list[str]:
    root = real_tools() / "github-rest-api"
    if not root.is_dir():
        return [f"github: skipped, {root} not found (set HARNESS_SHARED)"]
    lines = github_tree(ROOT, "this tree", largest, timeout, results)
    if before is not None:
        lines += ["", *github_tree(before, "before", largest, timeout, results)]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sections", default="demo,real,github")
    parser.add_argument("--largest", type=int, default=2, help="GitHub operations timed with check and compat")
    parser.add_argument("--timeout", type=float, default=900, help="cap per CLI command, seconds")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout (e.g. a git worktree of an older commit): the GitHub "
                             "measures are run with its package too, in the same run")
    args = parser.parse_args()
    sections = {s.strip() for s in args.sections.split(",")}
    byte_compiled(args.before)
    rows: list[list[str]] = []
    results: dict[str, Any] = {}
    if "demo" in sections:
        demo(args.repeat, rows, results)
    if "real" in sections:
        real(args.repeat, rows, results)
    if rows:
        print(table(rows, ["version pair / schema", "full report (s)", "static only (ms)"]))
    if "github" in sections:
        print("\n".join(["", *github(args.largest, args.timeout, args.before, results)]))
    print(f"\nwritten to {save('compat', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
