"""Benchmark: memory and time of generating near-miss mutants of one large fixture.

    python bench/mutations.py [--strings N] [--max-bytes B]

A fixture with N strings (default 2,000; about 50 KB) is mutated by every operator, and each
operator's cases are built (listed, not run). Prints, per operator, the mutants, the time and
the peak memory traced while generating them, and the ratio of that peak to the fixture's
size: the baseline measured in the same run. Mutants build their bytes only when a case runs,
so the ratio stays small whatever max_bytes is (stretch_string once held a max_bytes-long
string per string of the fixture: 2 GB for this one).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import save, table  # noqa: E402

from harness.cases import cases_for  # noqa: E402
from harness.contract import load_contract  # noqa: E402
from harness.mutations import REGISTRY  # noqa: E402

TOOL = "many_strings"


def project(root: Path, strings: int, max_bytes: int) -> Path:
    directory = root / "contracts" / TOOL
    (directory / "schemas").mkdir(parents=True)
    (directory / "contract.yaml").write_text(
        f"tool: {TOOL}\nversion: 1\nenvelope: null\nlimits: {{max_bytes: {max_bytes}}}\n"
        "agent_view: {first: /items/0}\n"
    )
    schema = {"type": "object", "required": ["items"], "additionalProperties": False,
              "properties": {"items": {"type": "array", "maxItems": strings,
                                       "items": {"type": "string", "maxLength": 40}}}}
    (directory / "schemas/v1.json").write_text(json.dumps(schema))
    fixtures = root / "fixtures/accepted" / TOOL
    fixtures.mkdir(parents=True)
    document = {"items": [f"value-{i:06d}-abcdefghij" for i in range(strings)]}
    (fixtures / "big.json").write_text(json.dumps(document))
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strings", type=int, default=2000, help="strings in the fixture (default 2,000)")
    parser.add_argument("--max-bytes", type=int, default=1 << 20, help="the contract's max_bytes (default 1 MiB)")
    args = parser.parse_args(argv)
    rows, results = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-mutations-") as tmp:
        contract = load_contract(project(Path(tmp), args.strings, args.max_bytes))
        size = (Path(tmp) / "fixtures/accepted" / TOOL / "big.json").stat().st_size
        for name in REGISTRY.names():
            tracemalloc.start()
            started = time.perf_counter()
            cases = cases_for(contract, sources=("mutation",), max_mutants=None, operators=[name]).cases
            elapsed = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            results[name] = {"mutants": len(cases), "seconds": elapsed, "peak_bytes": peak, "ratio": peak / size}
            rows.append([name, f"{len(cases):,}", f"{elapsed:.2f}", f"{peak / 2**20:.1f}", f"{peak / size:.0f}x"])
    print(f"fixture: {args.strings:,} strings, {size:,} bytes; max_bytes {args.max_bytes:,}")
    print(table(rows, ["operator", "mutants", "seconds", "peak MiB", "peak / fixture"]))
    save("mutations", {"strings": args.strings, "max_bytes": args.max_bytes, "fixture_bytes": size,
                       "operators": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
