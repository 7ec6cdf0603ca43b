"""Measure: how many compat verdicts are ``unknown`` (and how many witnesses contradict a
static verdict) on the demo and on the real-tool schemas of the shared corpus.

    python bench/compat_verdicts.py [--static-only] [--pairs] [--examples N] [--samples N] [--only SUBSTRING]

The pairs, each compared in both directions' verdicts (reader and writer):

- **demo**: every consecutive version pair of every demo tool (``compare(contract, old, new)``,
  fixtures replayed);
- **strict**: every schema under ``$HARNESS_SHARED/corpora/real-tools/*/*/schema.json`` against
  its ``import --strict`` version (:func:`harness.onboarding.tighten.tighten` with the tool's
  examples): the comparison ``contract-harness import ... --strict`` makes;
- **loosen**: the same pairs the other way round (the strict version relaxed back to the
  original, as when a too-strict version is rolled back);
- **pairs** (with ``--pairs``): the table of original/update pairs of ``tests/helpers/compat_pairs.py``,
  each with its answer from JSON Schema semantics; these also count the verdicts that are
  *wrong* (a ``safe`` answered ``breaking`` or the reverse; ``unknown`` is counted apart).

For each pair it counts the changes, the change verdicts (two per change) that are ``unknown``,
the pair-level verdicts that are ``unknown``, and the classifier contradictions (``CLASSIFIER
BUG`` lines). ``--static-only`` counts the classifier's static verdicts without any witness
search (fast on every version of the code); otherwise every pair gets the full report with the
given search budget (default: the ``compat`` command's). Results go to
``bench/results/compat_verdicts.json``. The script uses only the oldest compat API
(``compare``, ``compare_schemas``, ``Comparison``), so the same command measures any commit:
run it with that checkout's package importable (its editable install, or
``PYTHONPATH=<checkout>``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# This folder holds harness.py (a benchmark), which must not shadow the package: import the
# package first, then make _util importable.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import save, table  # noqa: E402

from harness import load_contract  # noqa: E402
from harness.compat import Budget, Direction, Verdict, compare, compare_schemas, consecutive_pairs  # noqa: E402
from harness.compat.api import prepare_version  # noqa: E402
from harness.compat.classify import Comparison  # noqa: E402
from harness.compat.normalise import prepare  # noqa: E402
from harness.contract import demo_root  # noqa: E402
from harness.onboarding.tighten import tighten  # noqa: E402


def real_tools() -> Path:
    shared = Path(os.environ.get("HARNESS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    return shared / "corpora" / "real-tools"


def strict_pairs(only: str) -> list[tuple[str, Any, Any]]:
    """(name, original, strict version) for every real-tool schema."""
    root = real_tools()
    found = []
    for schema_file in sorted(root.glob("*/*/schema.json")) if root.is_dir() else []:
        name = f"{schema_file.parent.parent.name}/{schema_file.parent.name}"
        if only not in name:
            continue
        schema = json.loads(schema_file.read_text())
        examples = [json.loads(p.read_text()) for p in sorted((schema_file.parent / "examples").glob("*.json"))]
        found.append((name, schema, tighten(schema, examples).schema))
    return found


def table_pairs(only: str) -> list[tuple[str, Any, Any, dict[str, str]]]:
    """(name, old, new, expected verdicts) of tests/helpers/compat_pairs.py."""
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.helpers.compat_pairs import PAIRS

    found = []
    for item in PAIRS:
        name = f"{item.category}: {item.title}"
        if only in name:
            found.append((name, item.old, item.new, {"reader": item.reader, "writer": item.writer}))
    return found


def _count(changes: list[tuple[Verdict, Verdict, str]], pair: dict[str, Verdict], contradictions: int,
           seconds: float) -> dict[str, Any]:
    unknown = sum((r is Verdict.UNKNOWN) + (w is Verdict.UNKNOWN) for r, w, _ in changes)
    return {
        "changes": len(changes),
        "unknown_verdicts": unknown,
        "unknown_by_rule": dict(Counter(rule for r, w, rule in changes for v in (r, w) if v is Verdict.UNKNOWN)),
        "pair": {d: v.value for d, v in pair.items()},
        "pair_unknown": sum(v is Verdict.UNKNOWN for v in pair.values()),
        "contradictions": contradictions,
        "seconds": round(seconds, 2),
    }


def static(old: Any, new: Any) -> dict[str, Any]:
    from harness.compat.model import worst

    started = time.perf_counter()
    changes = Comparison(old.tree, new.tree, old=old, new=new).changes()
    rows = [(c.reader, c.writer, f"{c.rule.id} {c.rule.name}") for c in changes]
    pair = {d.value: worst(c.verdict(d) for c in changes) for d in Direction}
    return _count(rows, pair, 0, time.perf_counter() - started)


def full(report: Any, seconds: float) -> dict[str, Any]:
    rows = [(a.reader, a.writer, f"{a.change.rule.id} {a.change.rule.name}") for a in report.changes]
    pair = {d.value: report.verdict(d) for d in Direction}
    return _count(rows, pair, len(report.contradictions), seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static-only", action="store_true", help="static verdicts only, no witness search")
    parser.add_argument("--examples", type=int, default=Budget().examples)
    parser.add_argument("--samples", type=int, default=Budget().samples)
    parser.add_argument("--only", default="", help="only pairs whose name contains this")
    parser.add_argument("--pairs", action="store_true", help="also the table of pairs of tests/helpers/compat_pairs.py")
    args = parser.parse_args()
    budget = Budget(examples=args.examples, samples=args.samples)
    results: dict[str, dict[str, Any]] = {}
    for tool in ("deployment_status", "job_status", "review_status"):
        contract = load_contract(demo_root() / "contracts" / tool)
        for old, new in consecutive_pairs(contract):
            name = f"demo {tool} v{old}->v{new}"
            if args.only not in name:
                continue
            if args.static_only:
                results[name] = static(prepare_version(contract, old), prepare_version(contract, new))
            else:
                started = time.perf_counter()
                report = compare(contract, old, new, budget=budget)
                results[name] = full(report, time.perf_counter() - started)
    for name, original, strict in strict_pairs(args.only):
        for label, a, b in (("strict", original, strict), ("loosen", strict, original)):
            key = f"{label} {name}"
            if args.static_only:
                results[key] = static(prepare(a, label="old"), prepare(b, label="new"))
            else:
                started = time.perf_counter()
                report = compare_schemas(a, b, budget=budget)
                results[key] = full(report, time.perf_counter() - started)
            print(f"{key}: {results[key]['unknown_verdicts']} unknown of {2 * results[key]['changes']}"
                  f" ({results[key]['seconds']} s)", file=sys.stderr, flush=True)
    for name, old_schema, new_schema, expected in table_pairs(args.only) if args.pairs else []:
        key = f"pairs {name}"
        if args.static_only:
            results[key] = static(prepare(old_schema, label="old"), prepare(new_schema, label="new"))
        else:
            started = time.perf_counter()
            report = compare_schemas(old_schema, new_schema, budget=budget)
            results[key] = full(report, time.perf_counter() - started)
        got = results[key]["pair"]
        results[key]["wrong"] = sum(got[d] != expected[d] and got[d] != "unknown" for d in expected)
    rows = [[name, str(r["changes"]), str(r["unknown_verdicts"]), str(r["pair_unknown"]),
             str(r["contradictions"]), f"{r['seconds']:.2f}"] for name, r in results.items()]
    groups: dict[str, list[dict[str, Any]]] = {}
    for name, r in results.items():
        groups.setdefault(name.split(" ", 1)[0], []).append(r)
    for group, items in groups.items():
        wrong = sum(r.get("wrong", 0) for r in items)
        if group == "pairs":
            print(f"table of pairs: {wrong} pair verdicts wrong (safe for breaking or the reverse), "
                  f"{sum(r['pair_unknown'] for r in items)} unknown, of {2 * len(items)}", file=sys.stderr)
        rows.append([f"TOTAL {group} ({len(items)} pairs)", str(sum(r["changes"] for r in items)),
                     str(sum(r["unknown_verdicts"] for r in items)), str(sum(r["pair_unknown"] for r in items)),
                     str(sum(r["contradictions"] for r in items)), f"{sum(r['seconds'] for r in items):.2f}"])
    mode = ("static verdicts" if args.static_only
            else f"full reports (examples {budget.examples}, samples {budget.samples})")
    print(f"compat verdicts, {mode}")
    print(table(rows, ["pair", "changes", "unknown change verdicts", "unknown pair verdicts",
                       "contradictions", "seconds"]))
    unknown_rules: Counter[str] = Counter()
    for r in results.values():
        unknown_rules.update(r["unknown_by_rule"])
    if unknown_rules:
        print("\nunknown verdicts by rule: " + ", ".join(f"{k} {n}" for k, n in unknown_rules.most_common()))
    print(f"\nwritten to {save('compat_verdicts' + ('_static' if args.static_only else ''), results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
