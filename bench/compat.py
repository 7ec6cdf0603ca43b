"""Benchmark: how long a compat report takes per version pair.

    python bench/compat.py [--repeat N]

For every consecutive version pair of every demo tool: the full report (normalise, classify,
targeted and generated witnesses, replay of the fixtures) with the default budget, and the
static classification alone. Also the static classification of each real-tool schema under
../shared/corpora/real-tools (when present) against itself with one maxLength tightened, to
show the cost on large schemas. Best of N runs; written to bench/results/compat.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
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
from harness.compat import compare, consecutive_pairs  # noqa: E402
from harness.compat.api import prepare_version  # noqa: E402
from harness.compat.classify import Comparison  # noqa: E402
from harness.compat.normalise import prepare  # noqa: E402
from harness.contract import demo_root  # noqa: E402


def best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def tighten(schema: Any) -> Any:
    """A copy with the first string maxLength found lowered by one (or one added)."""
    copy = json.loads(json.dumps(schema))
    stack = [copy]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "string":
                node["maxLength"] = max(0, int(node.get("maxLength", 100)) - 1)
                return copy
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return copy


def _changes(a: Any, b: Any) -> Any:
    return Comparison(a.tree, b.tree, old=a, new=b).changes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows, results = [], {}
    for tool in ("deployment_status", "job_status", "review_status"):
        contract = load_contract(demo_root() / "contracts" / tool)
        for old, new in consecutive_pairs(contract):
            compare(contract, old, new)  # warm: imports, compiled validators
            full = best(partial(compare, contract, old, new), args.repeat)
            a, b = prepare_version(contract, old), prepare_version(contract, new)
            static = best(partial(_changes, a, b), args.repeat)
            rows.append([f"{tool} v{old}->v{new}", f"{full:.2f}", f"{static * 1000:.1f}"])
            results[f"{tool}:{old}->{new}"] = {"full_s": full, "static_ms": static * 1000}
    shared = Path(os.environ.get("HARNESS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    real = shared / "corpora" / "real-tools"
    for schema_file in sorted(real.glob("*/*/schema.json")) if real.is_dir() else []:
        schema = json.loads(schema_file.read_text())
        a, b = prepare(schema, label="old"), prepare(tighten(schema), label="new")
        static = best(partial(_changes, a, b), args.repeat)
        name = f"{schema_file.parent.parent.name}/{schema_file.parent.name}"
        rows.append([name, "-", f"{static * 1000:.1f}"])
        results[name] = {"static_ms": static * 1000, "bytes": schema_file.stat().st_size}
    print(table(rows, ["version pair / schema", "full report (s)", "static only (ms)"]))
    print(f"\nwritten to {save('compat', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
