"""Benchmark: what the fuzz items cost a pytest run, cold and warm, and how fast properties generate.

    python bench/fuzz_replay.py [--quick] [--examples N] [--baseline REF] [--project DIR] [--skip ...]

All in one run, on a copy of the demo project (contracts/ and fixtures/) in a temporary folder
(and on ``--project DIR`` too, when given):

- **pytest**: ``pytest --no-fuzz``; ``pytest`` cold (no saved fuzz runs: every property
  generates); ``pytest`` warm (nothing changed since: every property replays); each as a ratio
  to ``--no-fuzz`` (targets: cold within 3x, warm within 1.5x); ``pytest`` warm and ``--no-fuzz``
  with ``PYTHONDONTWRITEBYTECODE=1`` and no rewritten module cached (as in a CI image that sets
  it), each against the same with ``--assert=plain``: what pytest's rewriting of the plugins'
  modules costs there; then ``pytest -n 2`` and
  ``-n 0`` with ``--fuzz-regenerate`` (every property generates), and their ratio (aim: close
  to 2x on 2 cores); the same with ``--fuzz-profile nightly`` (2,000 examples a property, not 100); and
  xdist's own cost, ``-n 2`` against ``-n 0`` on a suite of as many empty tests.
- **fuzz --jobs**: ``contract-harness fuzz --regenerate`` on the demo with ``--jobs 1`` and
  ``--jobs 2``, in the ci and the nightly profile, and their ratio (aim: close to 2x).
- **the machine's ceiling** for both ratios (``_util.parallel_ceiling``, unless ``xdist`` and
  ``jobs`` are skipped): one CPU-bound child alone against two at once, 2.0x where the two cores
  do not slow each other.
- **examples/s per property**: each property of each demo tool run alone in a fresh process
  (``run_property``, ci profile, the strategy's build included), by this checkout and by the
  baseline — the harness as of ``--baseline`` (default: 5b857fd, before replay and the sampled
  generators), exported
  with ``git archive`` into a temporary folder and imported from there — alternating, best of
  ``--repeat`` (the baseline on a copy without the ``check:`` waivers it does not know); and
  valid documents per second of ``from_schema(..., compiled=True,
  boundary_values=True)`` on the real-tool schemas of the shared corpus
  (``$HARNESS_SHARED/corpora/real-tools``, skipped where absent), both ways, each drawn as that
  version's fuzz runner draws documents (since sampling: ``batches(strategy)``, 8 documents per
  hypothesis example, each sampled from a stream of the example's seed), and again in the same
  child ("warm": hypothesis's start in a process — its scan of local modules for constants,
  about 0.2 s — and the strategy's build already paid, which on the small MCP schemas is most
  of a 100-document run on both sides). Target: 3x.

Rates are per CPU second of the child (``time.process_time``: the machine is shared, and
wall-clock rates under load varied twofold between identical runs). Child processes run with
bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed), as a
user's would, and share one warmed hypothesis storage folder. Results are written to
``bench/results/fuzz_replay.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This folder holds harness.py (a benchmark), which must not shadow the package.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import byte_compiled, parallel_ceiling, save, table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: The baseline of the fuzz rates: the last commit before fuzz replay and the faster generators.
BASELINE = "5b857fd"
TOOLS = ("deployment_status", "job_status", "review_status")

_PROPERTY_CHILD = r"""
import json, sys, time
spec = json.loads(sys.argv[1])
from harness import load_contract
from harness.fuzz.properties import PROPERTIES
from harness.fuzz.runner import FuzzOptions, run_property
from harness.fuzz.subject import Subject
contract = load_contract(spec["contract"])
started, cpu = time.perf_counter(), time.process_time()
subject = Subject(contract)
outcome = run_property(subject, PROPERTIES[spec["property"]], FuzzOptions(examples=spec["examples"]))
seconds = time.perf_counter() - started
print(json.dumps({"examples": outcome.examples, "seconds": seconds, "cpu": time.process_time() - cpu,
                  "status": outcome.status}))
"""

_SCHEMA_CHILD = r"""
import json, sys, time
from hypothesis import given
spec = json.loads(sys.argv[1])
from harness.boundary.validator import validator_for
from harness.fuzz.generate import GenerationStats, from_schema, quiet_settings, time_budget, OutOfTime
schema = json.loads(open(spec["schema"]).read())
base = "file://" + spec["schema"]
validator = validator_for(schema, base_uri=base)
started, cpu = time.perf_counter(), time.process_time()
stats = GenerationStats()
strategy = from_schema(schema, validator=validator, base_uri=base, stats=stats, boundary_values=True, compiled=True)
try:  # as the fuzz runner draws: BATCH documents per hypothesis example, each sampled from its
    # own stream of the example's seed (harness.fuzz.generate.sampling; absent before it)
    from harness.fuzz.generate.sampling import BATCH, batches
except ImportError:
    size = 1
else:
    strategy, size = batches(strategy), BATCH
count = [0]

@quiet_settings(-(-spec["examples"] // size))
@given(strategy)
def collect(value):
    count[0] += len(value) if size > 1 else 1

try:
    with time_budget(spec["budget"]):
        collect()
except Exception:
    pass
first = {"valid": count[0], "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu}
# Again in the same process (the same documents: derandomized): what a document costs once the
# process has paid hypothesis's start (its scan of local modules for constants, a collection)
# and the strategy's build.
count[0], cpu = 0, time.process_time()
try:
    with time_budget(spec["budget"]):
        collect()
except Exception:
    pass
print(json.dumps({**first, "warm_valid": count[0], "warm_cpu": time.process_time() - cpu}))
"""


def _env(pythonpath: Path, storage: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(pythonpath), HYPOTHESIS_STORAGE_DIRECTORY=str(storage))
    return env


def _child(code: str, spec: dict[str, Any], pythonpath: Path, storage: Path, cwd: Path) -> dict[str, Any] | None:
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], capture_output=True, text=True,
                          env=_env(pythonpath, storage), cwd=cwd, timeout=900)
    if proc.returncode != 0:
        print(f"  child failed: {(proc.stderr.strip().splitlines() or ['?'])[-1][:200]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _baseline_tree(ref: str, into: Path) -> Path:
    """The harness package as of ``ref``, exported into ``into`` (imported from there)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "harness"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    byte_compiled(into)  # as this checkout's: no side compiles its modules inside a timing
    return into


def _demo_project(into: Path) -> Path:
    project = into / "demo"
    project.mkdir()
    for name in ("contracts", "fixtures"):
        shutil.copytree(ROOT / name, project / name)
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return project


def _pytest(project: Path, *args: str, storage: Path, no_bytecode: bool = False) -> tuple[float, str]:
    env = _env(ROOT, storage)
    if no_bytecode:  # as a CI image that sets it: no bytecode, and no rewritten module, is written
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        _drop_rewritten()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], capture_output=True, text=True,
                          cwd=project, env=env, timeout=1800)
    seconds = time.perf_counter() - started
    last = (proc.stdout.strip().splitlines() or ["?"])[-1]
    if proc.returncode != 0:
        print(f"  pytest {' '.join(args)} exited {proc.returncode}: {last}", file=sys.stderr)
    return seconds, last


def _drop_rewritten() -> None:
    """Delete the modules pytest rewrote and cached in earlier runs (``*-pytest-*.pyc``) for the
    packages that ship a pytest plugin: this checkout's ``harness`` and the installed hypothesis,
    xdist and others: a fresh CI image has none."""
    import importlib.util

    folders = [ROOT / "harness"]
    for name in ("hypothesis", "xdist"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders += [Path(p) for p in spec.submodule_search_locations]
    for folder in folders:
        for cached in folder.rglob("__pycache__/*-pytest-*.pyc"):
            cached.unlink(missing_ok=True)


def _baseline_project(demo: Path, into: Path) -> Path:
    """A copy of the demo for the baseline harness: without the waivers of a mutation check
    (``- {check: ...}``), a key that version refuses; they waive ``text_outside_pin``, an
    operator it does not have, and change nothing it generates."""
    project = into / "demo-baseline"
    shutil.copytree(demo, project)
    for path in project.glob("contracts/*/contract.yaml"):
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line for line in lines if not line.lstrip().startswith("- {check:")))
    return project


def pytest_ratios(project: Path, storage: Path, repeat: int, xdist: bool) -> dict[str, Any]:
    replay = project / ".contract-harness" / "fuzz" / "replay"
    best: dict[str, float] = {}
    # Untimed: the first run in a fresh checkout writes bytecode and pytest's rewritten-assertion
    # caches (~3 s here), which would otherwise land in the --no-fuzz time and flatter the ratios.
    _pytest(project, "--no-fuzz", storage=storage)
    for _ in range(repeat):
        for label, args, cold in (("no-fuzz", ("--no-fuzz",), False), ("cold", (), True), ("warm", (), False)):
            if cold:
                shutil.rmtree(replay, ignore_errors=True)
            seconds, last = _pytest(project, *args, storage=storage)
            shown = " ".join(args) or "(fuzz)"
            print(f"  {project.name}: pytest {shown} [{label}]: {seconds:.1f}s  {last}", flush=True)
            best[label] = min(best.get(label, float("inf")), seconds)
        # Where pytest cannot cache the modules it rewrites (PYTHONDONTWRITEBYTECODE), against
        # --assert=plain (no rewriting at all): what rewriting costs the run.
        for label, args in (("nocache-warm", ()), ("nocache-warm-plain", ("--assert=plain",)),
                            ("nocache-no-fuzz", ("--no-fuzz",)),
                            ("nocache-no-fuzz-plain", ("--no-fuzz", "--assert=plain"))):
            seconds, last = _pytest(project, *args, storage=storage, no_bytecode=True)
            print(f"  {project.name}: PYTHONDONTWRITEBYTECODE=1 pytest {' '.join(args) or '(fuzz)'}: {seconds:.1f}s  "
                  f"{last}", flush=True)
            best[label] = min(best.get(label, float("inf")), seconds)
        if xdist:
            for label, args in (("n0", ("-n", "0", "--fuzz-regenerate")), ("n2", ("-n", "2", "--fuzz-regenerate")),
                                ("n0-nightly", ("-n", "0", "--fuzz-profile", "nightly")),
                                ("n2-nightly", ("-n", "2", "--fuzz-profile", "nightly"))):
                seconds, last = _pytest(project, *args, storage=storage)
                print(f"  {project.name}: pytest {' '.join(args)}: {seconds:.1f}s  {last}", flush=True)
                best[label] = min(best.get(label, float("inf")), seconds)
                if label == "n0":
                    items = _passed(last)
            # xdist's own cost: a suite of as many empty tests, -n 0 against -n 2.
            floor = _trivial_suite(project.parent / f"{project.name}-xdist-floor", items)
            for label, args in (("floor-n0", ("-n", "0")), ("floor-n2", ("-n", "2"))):
                seconds, last = _pytest(floor, *args, storage=storage)
                print(f"  {items} empty tests: pytest {' '.join(args)}: {seconds:.1f}s  {last}", flush=True)
                best[label] = min(best.get(label, float("inf")), seconds)
    out: dict[str, Any] = {"seconds": best, "cold_ratio": best["cold"] / best["no-fuzz"],
                           "warm_ratio": best["warm"] / best["no-fuzz"],
                           "nocache_rewrite_ratio": best["nocache-warm"] / best["nocache-warm-plain"],
                           "nocache_no_fuzz_rewrite_ratio": best["nocache-no-fuzz"] / best["nocache-no-fuzz-plain"]}
    if xdist:
        out["n0_over_n2"] = best["n0"] / best["n2"]
        out["nightly_n0_over_n2"] = best["n0-nightly"] / best["n2-nightly"]
        out["xdist_floor_s"] = best["floor-n2"] - best["floor-n0"]
        out["items"] = items
    return out


def fuzz_jobs(project: Path, storage: Path, repeat: int) -> dict[str, Any]:
    """``contract-harness fuzz --jobs 1`` against ``--jobs 2`` (every property generating), in the
    ci and the nightly profile: seconds, best of ``repeat``, and the ratio."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        for profile in ("ci", "nightly"):
            for jobs in ("1", "2"):
                started = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "harness.cli", "fuzz", "--no-progress", "--regenerate",
                                       "--profile", profile, "--jobs", jobs], capture_output=True, text=True,
                                      cwd=project, env=_env(ROOT, storage), timeout=1800)
                seconds = time.perf_counter() - started
                last = (proc.stdout.strip().splitlines() or ["?"])[-1]
                print(f"  {project.name}: fuzz --profile {profile} --jobs {jobs}: {seconds:.1f}s  {last}", flush=True)
                key = f"{profile}-{jobs}"
                best[key] = min(best.get(key, float("inf")), seconds)
    return {"seconds": best, "ci_ratio": best["ci-1"] / best["ci-2"],
            "nightly_ratio": best["nightly-1"] / best["nightly-2"]}


def _passed(line: str) -> int:
    """The item count of pytest's last line (``722 passed in 4.8s``)."""
    found = re.search(r"(\d+) passed", line)
    return int(found.group(1)) if found else 0


def _trivial_suite(into: Path, items: int) -> Path:
    """A project of ``items`` empty tests (what xdist costs with nothing to share)."""
    into.mkdir(exist_ok=True)
    (into / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (into / "test_empty.py").write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({items}))\ndef test_empty(i):\n    pass\n")
    return into


def property_rates(project: Path, baseline: Path, storage: Path, examples: int, repeat: int,
                   baseline_project: Path) -> dict[str, Any]:
    from harness import load_contract
    from harness.fuzz.properties import PROPERTIES

    results: dict[str, Any] = {}
    for tool in TOOLS:
        contract = load_contract(project / "contracts" / tool)
        for prop in PROPERTIES.applicable(contract):
            label = f"{tool}::{prop.name}"
            rates: dict[str, float] = {}
            for _ in range(repeat):
                for side, path, where in (("before", baseline, baseline_project), ("after", ROOT, project)):
                    spec = {"contract": str(where / "contracts" / tool), "property": prop.name, "examples": examples}
                    got = _child(_PROPERTY_CHILD, spec, path, storage, where)
                    if got:
                        rates[side] = max(rates.get(side, 0.0), got["examples"] / got["cpu"])
            ratio = rates.get("after", 0) / rates["before"] if rates.get("before") else None
            results[label] = {**rates, "ratio": ratio}
            print(f"  {label}: {rates.get('before', 0):.1f}/s -> {rates.get('after', 0):.1f}/s", flush=True)
    return results


def schema_rates(baseline: Path, storage: Path, examples: int, budget: float, repeat: int, cwd: Path
                 ) -> dict[str, Any]:
    shared = Path(os.environ.get("HARNESS_SHARED", ROOT.parent / "shared"))
    corpus = shared / "corpora" / "real-tools"
    if not corpus.is_dir():
        print(f"  note: {corpus} not found; the real-tool schemas are not measured", file=sys.stderr)
        return {}
    results: dict[str, Any] = {}
    for file in sorted(corpus.glob("*/*/schema.json")):
        label = str(file.relative_to(corpus).parent)
        rates: dict[str, float] = {}
        for _ in range(repeat):
            for side, path in (("before", baseline), ("after", ROOT)):
                spec = {"schema": str(file.resolve()), "examples": examples, "budget": budget}
                # Not from this checkout's folder: ``python -c`` puts the working folder first
                # on sys.path, and the baseline would import this checkout's harness.
                got = _child(_SCHEMA_CHILD, spec, path, storage, cwd)
                if got:
                    rates[side] = max(rates.get(side, 0.0), got["valid"] / got["cpu"])
                    if got.get("warm_cpu"):
                        rates[f"warm_{side}"] = max(rates.get(f"warm_{side}", 0.0), got["warm_valid"] / got["warm_cpu"])
        warm = (rates.get("warm_after", 0) / rates["warm_before"]) if rates.get("warm_before") else None
        results[label] = {**rates, "ratio": rates.get("after", 0) / rates["before"] if rates.get("before") else None,
                          "warm_ratio": warm}
        print(f"  {label}: {rates.get('before', 0):.1f}/s -> {rates.get('after', 0):.1f}/s; warm "
              f"{rates.get('warm_before', 0):.1f}/s -> {rates.get('warm_after', 0):.1f}/s", flush=True)
    return results


def _rows(results: dict[str, Any], warm: bool = False) -> list[list[str]]:
    rows = []
    for label, r in results.items():
        row = [label, f"{r.get('before', 0):.1f}", f"{r.get('after', 0):.1f}",
               f"{r['ratio']:.1f}x" if r.get("ratio") else "-"]
        if warm:
            row += [f"{r.get('warm_before', 0):.1f}", f"{r.get('warm_after', 0):.1f}",
                    f"{r['warm_ratio']:.1f}x" if r.get("warm_ratio") else "-"]
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100, help="examples per property (the ci profile's 100)")
    parser.add_argument("--schema-examples", type=int, default=100, help="documents per real-tool schema")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per real-tool schema and side")
    parser.add_argument("--repeat", type=int, default=2, help="rounds; each measurement keeps its best")
    parser.add_argument("--baseline", default=BASELINE, help="git ref of the harness to compare with")
    parser.add_argument("--project", type=Path, action="append", default=[],
                        help="also time pytest on this project (copied first)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=["pytest", "xdist", "jobs", "properties", "schemas"])
    parser.add_argument("--quick", action="store_true", help="one round; 50 examples per property")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.examples, args.schema_examples, args.budget = 1, 50, 50, 10.0
    out: dict[str, Any] = {"baseline": args.baseline, "examples": args.examples}
    with tempfile.TemporaryDirectory(prefix="fuzz-replay-") as tmp:
        work = Path(tmp)
        storage = work / "hypothesis"
        demo = _demo_project(work)
        baseline = _baseline_tree(args.baseline, (work / "baseline").resolve()) if {"properties", "schemas"} - set(
            args.skip) else work
        # Warm hypothesis's own caches (its Unicode tables) once for both sides, and for the pytest
        # runs (with --skip properties too): building them is a first run's cost, not fuzz's.
        _child(_PROPERTY_CHILD, {"contract": str(demo / "contracts" / "review_status"),
                                 "property": "accepts_valid", "examples": 5}, ROOT, storage, demo)
        if not {"xdist", "jobs"} <= set(args.skip):
            out["parallel_ceiling"] = parallel_ceiling()
            print(f"this machine's ceiling for two processes: {out['parallel_ceiling']['ceiling']:.2f}x "
                  "(one CPU-bound child alone against two at once)", flush=True)
        projects = [demo]
        for extra in args.project:
            copy = work / extra.resolve().name
            shutil.copytree(extra, copy, ignore=shutil.ignore_patterns(".contract-harness", ".venv", "__pycache__"))
            projects.append(copy)
        if "pytest" not in args.skip:
            print("pytest (best of rounds):", flush=True)
            out["pytest"] = {p.name: pytest_ratios(p, storage, args.repeat, "xdist" not in args.skip) for p in projects}
        if "jobs" not in args.skip:
            print("fuzz --jobs (best of rounds):", flush=True)
            out["jobs"] = fuzz_jobs(demo, storage, args.repeat)
        if "properties" not in args.skip:
            print(f"examples/s per property (before = {args.baseline}):", flush=True)
            out["properties"] = property_rates(demo, baseline, storage, args.examples, args.repeat,
                                               _baseline_project(demo, work))
        if "schemas" not in args.skip:
            print(f"valid documents/s per real-tool schema (before = {args.baseline}):", flush=True)
            out["schemas"] = schema_rates(baseline, storage, args.schema_examples, args.budget, args.repeat, work)
    print()
    ceiling = f" against this machine's ceiling of {out['parallel_ceiling']['ceiling']:.2f}x" \
        if "parallel_ceiling" in out else ""
    for name, r in out.get("pytest", {}).items():
        s = r["seconds"]
        print(f"{name}: pytest --no-fuzz {s['no-fuzz']:.1f}s; cold {s['cold']:.1f}s = {r['cold_ratio']:.2f}x "
              f"(target <= 3x); warm {s['warm']:.1f}s = {r['warm_ratio']:.2f}x (target <= 1.5x)"
              + (f"; -n 0 {s['n0']:.1f}s / -n 2 {s['n2']:.1f}s = {r['n0_over_n2']:.2f}x (aim ~2x)"
                 if "n0_over_n2" in r else ""))
        print(f"  PYTHONDONTWRITEBYTECODE=1 (no rewritten module cached): pytest warm {s['nocache-warm']:.1f}s, "
              f"--assert=plain {s['nocache-warm-plain']:.1f}s = {r['nocache_rewrite_ratio']:.2f}x; --no-fuzz "
              f"{s['nocache-no-fuzz']:.1f}s, with --assert=plain {s['nocache-no-fuzz-plain']:.1f}s = "
              f"{r['nocache_no_fuzz_rewrite_ratio']:.2f}x (pytest's rewriting of the plugins' modules)")
        if "nightly_n0_over_n2" in r:
            print(f"  nightly profile: -n 0 {s['n0-nightly']:.1f}s / -n 2 {s['n2-nightly']:.1f}s = "
                  f"{r['nightly_n0_over_n2']:.2f}x (aim ~2x{ceiling}); xdist's own cost, {r['items']} empty tests: "
                  f"-n 0 {s['floor-n0']:.1f}s, -n 2 {s['floor-n2']:.1f}s ({r['xdist_floor_s']:+.1f}s)")
    if out.get("jobs"):
        j, s = out["jobs"], out["jobs"]["seconds"]
        print(f"demo: fuzz --jobs 1 / --jobs 2: ci {s['ci-1']:.1f}s / {s['ci-2']:.1f}s = {j['ci_ratio']:.2f}x; "
              f"nightly {s['nightly-1']:.1f}s / {s['nightly-2']:.1f}s = {j['nightly_ratio']:.2f}x (aim ~2x{ceiling})")
    for key, title in (("properties", "property"), ("schemas", "real-tool schema")):
        if out.get(key):
            warm = key == "schemas"
            print()
            print(table(_rows(out[key], warm), [title, "before/s", "after/s", "after/before"]
                        + (["warm before/s", "warm after/s", "warm after/before"] if warm else [])))
            for field, what in (("ratio", ""), ("warm_ratio", " (warm)")) if warm else (("ratio", ""),):
                ratios = [r[field] for r in out[key].values() if r.get(field)]
                if ratios:
                    print(f"{title}{what}: min {min(ratios):.1f}x, median {sorted(ratios)[len(ratios) // 2]:.1f}x "
                          "(target 3x)")
    print(f"\nwritten to {save('fuzz_replay', out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
