"""Benchmark: how fast the fuzz generator produces valid documents, and how many it discards.

    python bench/fuzz.py [--examples N] [--budget S] [--repeat R] [--only SUBSTRING] [--quick]

For every demo tool (its contract schema, and the vendor schema of an adapter tool) and every
schema under ../shared/corpora/real-tools/*/*/schema.json (skipped where absent), in the same
run and with the same derandomized hypothesis settings:

- ours: ``harness.fuzz.generate.from_schema(..., compiled=True, boundary_values=True)`` — what
  ``harness.fuzz.from_contract`` uses: lowered, compiled once, boundary values pushed, every
  value re-validated by the production validator (invalid ones discarded and counted);
- plain: ``hypothesis_jsonschema.from_schema`` on the same schema as written, each value
  validated by the production validator too (counted as invalid, not discarded);
- plain on lowered: ``hypothesis_jsonschema.from_schema`` on our lowered schema, to tell the
  lowering's share from the compiler's.

Valid examples per second include building the strategy. Each generator runs in its own
process for at most N examples or S seconds (killed past that: a single document of a large
schema can take minutes), so one slow schema cannot stall the rest; the generators alternate,
R rounds, and each keeps its best round (the same derandomized examples every round). Targets: a discard rate
under 5% on every schema, and ours no slower than plain per valid example. Results are written
to bench/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

# This folder holds harness.py (a benchmark), which must not shadow the package: import the
# package first, then make _util importable.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import byte_compiled, save, table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GENERATORS = ("ours", "plain", "plain-lowered")

_CHILD = r"""
import json, sys, time
from hypothesis import given, strategies as st
from harness.boundary.validator import validator_for
from harness.fuzz.generate import GenerationStats, from_schema, lower, quiet_settings
from hypothesis_jsonschema import from_schema as plain

spec = json.loads(sys.argv[1])
schema, kind, n = spec["schema"], spec["generator"], spec["examples"]
spec["resources"] = [tuple(r) for r in spec["resources"]]
validator = validator_for(schema, resources=spec["resources"], base_uri=spec["base_uri"])
started = time.perf_counter()  # imports and the validator aside: the strategy's build counts
stats = GenerationStats()
if kind == "ours":
    strategy = from_schema(schema, validator=validator, base_uri=spec["base_uri"], resources=spec["resources"],
                           stats=stats, boundary_values=True, compiled=True)
elif kind == "plain":
    strategy = plain(schema)
else:
    strategy = plain(lower(schema, base_uri=spec["base_uri"], resources=spec["resources"]).schema)
built = time.perf_counter() - started
print(json.dumps({"built": built}), flush=True)
seen = set()

@quiet_settings(n)
@given(strategy)
def collect(value):
    valid = validator.is_valid(value) if kind != "ours" else True
    key = json.dumps(value, sort_keys=True, default=str)
    new = key not in seen
    seen.add(key)
    print(json.dumps({"t": time.perf_counter() - started, "valid": valid, "new": new,
                      "generated": stats.generated, "discarded": stats.discarded}), flush=True)

try:
    collect()
    error = None
except Exception as exc:
    error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
print(json.dumps({"done": time.perf_counter() - started, "error": error, "stats": stats.to_dict()}), flush=True)
"""


def _run(spec: dict[str, Any], budget: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(spec)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    records: list[dict[str, Any]] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            records.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    stopped = False
    try:
        proc.wait(timeout=budget)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        stopped = True
    reader.join(timeout=5)
    result: dict[str, Any] = {"valid": 0, "invalid": 0, "unique": 0, "seconds": budget if stopped else 0.0,
                              "built": None, "error": None, "stopped": stopped, "stats": None}
    for record in list(records):
        if "built" in record:
            result["built"] = record["built"]
        elif "done" in record:
            result["seconds"] = record["done"]
            result["error"], result["stats"] = record["error"], record["stats"]
        else:
            result["valid" if record["valid"] else "invalid"] += 1
            result["unique"] += int(record["new"] and record["valid"])
            result["stats"] = result["stats"] or {}
            result["stats"].update(generated=record["generated"], discarded=record["discarded"])
            if not stopped:
                result["seconds"] = record["t"]
    if proc.returncode not in (0, None) and not stopped and result["error"] is None:
        assert proc.stderr is not None
        result["error"] = (proc.stderr.read().strip().splitlines() or ["crashed"])[-1][:160]
    return result


def targets() -> list[tuple[str, Any, str, list[tuple[str, Any]]]]:
    """(label, schema, base URI, resources) for the demo tools and the real-tools corpus."""
    from harness import load_contract
    from harness.contract import demo_root

    found = []
    for tool in ("deployment_status", "job_status", "review_status"):
        contract = load_contract(demo_root() / "contracts" / tool)
        found.append((f"demo/{tool}", contract.schema(), contract.schema_path().resolve().as_uri(),
                      contract.schema_resources()))
        if contract.vendor_schema is not None:
            found.append((f"demo/{tool} (vendor)", contract.vendor_schema, contract.path.resolve().as_uri(),
                          contract.schema_resources()))
    shared = Path(os.environ.get("HARNESS_SHARED", ROOT.parent / "shared"))
    corpus = shared / "corpora" / "real-tools"
    for file in sorted(corpus.glob("*/*/schema.json")) if corpus.is_dir() else []:
        found.append((str(file.relative_to(corpus).parent), json.loads(file.read_text()), file.resolve().as_uri(), []))
    if not corpus.is_dir():
        print(f"note: {corpus} not found; only the demo tools are measured", file=sys.stderr)
    return found


def _rate(r: dict[str, Any]) -> float:
    return r["valid"] / r["seconds"] if r["seconds"] else 0.0


def _cell(r: dict[str, Any]) -> str:
    if r["error"] and not r["valid"]:
        return "error"
    text = f"{_rate(r):.1f}/s"
    return text + ("*" if r["stopped"] else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="examples per generator and schema")
    parser.add_argument("--budget", type=float, default=15.0, help="seconds per generator, schema and round")
    parser.add_argument("--repeat", type=int, default=2, help="rounds; each generator keeps its best")
    parser.add_argument("--only", default="", help="only schemas whose label contains this")
    parser.add_argument("--quick", action="store_true", help="one round of at most 100 examples or 8 s")
    args = parser.parse_args()
    if args.quick:
        args.examples, args.budget, args.repeat = 100, 8.0, 1
    byte_compiled()
    rows, results = [], {}
    for label, schema, base_uri, resources in targets():
        if args.only not in label:
            continue
        measured: dict[str, dict[str, Any]] = {}
        for _ in range(args.repeat):
            for generator in GENERATORS:
                spec = {"schema": schema, "generator": generator, "examples": args.examples, "base_uri": base_uri,
                        "resources": resources}
                result = _run(spec, args.budget)
                if generator not in measured or _rate(result) > _rate(measured[generator]):
                    measured[generator] = result
        ours, plain = measured["ours"], measured["plain"]
        stats = ours["stats"] or {}
        generated = stats.get("generated", 0)
        discard = stats.get("discarded", 0) / generated if generated else 0.0
        plain_total = plain["valid"] + plain["invalid"]
        invalid = plain["invalid"] / plain_total if plain_total else 0.0
        ratio = _rate(ours) / _rate(plain) if _rate(plain) else float("inf")
        rows.append([label, _cell(ours), _cell(plain), _cell(measured["plain-lowered"]),
                     "-" if ratio == float("inf") else f"{ratio:.1f}x",
                     f"{discard * 100:.1f}%" if generated else "-",
                     f"{invalid * 100:.1f}%" if plain_total else "-", str(ours["unique"])])
        results[label] = {**{g: {k: v for k, v in r.items()} for g, r in measured.items()},
                          "ours_discard_rate": discard, "plain_invalid_rate": invalid,
                          "speedup_vs_plain": None if ratio == float("inf") else ratio}
        print(table(rows[-1:], ["schema", "ours", "plain", "plain on lowered", "ours/plain",
                                "ours discarded", "plain invalid", "ours unique"]).splitlines()[-1], flush=True)
    print()
    print(table(rows, ["schema", "ours", "plain", "plain on lowered", "ours/plain", "ours discarded",
                       "plain invalid", "ours unique"]))
    print(f"\nvalid examples per second, building the strategy included; at most {args.examples} examples or "
          f"{args.budget:.0f} s each, best of {args.repeat} (* = stopped at the time budget); 'error' = no value.")
    met_discard = all(r["ours"]["valid"] and r["ours_discard_rate"] < 0.05 for r in results.values())
    met_speed = all(r["ours"]["valid"] and (r["speedup_vs_plain"] or float("inf")) >= 1.0 for r in results.values())
    print(f"discard rate under 5% on every schema: {'yes' if met_discard else 'NO'}; "
          f"no slower than plain per valid example: {'yes' if met_speed else 'NO'}")
    path = save("fuzz", {"examples": args.examples, "budget_s": args.budget, "repeat": args.repeat,
                         "schemas": results})
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
