"""Benchmark: peak memory of a drift check whose upstream answers with a 1 GB body.

    python bench/drift.py [--size 1073741824] [--max-bytes 1048576] [--repeat 3]

Starts the sandbox (``contract-harness sandbox``, a real HTTP server on loopback, in its own
process) and, each in a fresh Python process, runs one drift check through the ``http``
upstream kind against:

- the huge body: the hostile profile's body of ``--size`` bytes (default 1 GiB), streamed;
- the baseline: a conforming body of 80 bytes, from the same sandbox, same contract.

The contract's ``max_bytes`` is ``--max-bytes`` (default 1 MiB, the largest a contract may set).
Each process reports its peak RSS (``ru_maxrss``) after imports and after the check, the
tracemalloc peak of the check, how many bytes it read and the verdict. The claim: the huge
body costs about ``max_bytes`` more than the baseline, never the body's size.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
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

CONTRACT = """\
tool: bench_body
version: 1
limits: {{max_bytes: {max_bytes}, max_depth: 8}}
envelope: null
agent_view: {{environment: /environment}}
upstreams:
  sandbox:
    http: {{url: "${{HARNESS_SANDBOX_URL}}/_profile/{profile}/deployment_status/production", timeout_s: 120}}
"""
SCHEMA = {"type": "object", "properties": {"environment": {"type": "string", "maxLength": 20}}}


def child(root: str) -> None:
    """One check in this process; print what it cost as JSON."""
    from harness import load_contract
    from harness.drift.runner import DriftRunner, plan

    contract = load_contract(Path(root) / "contracts" / "bench_body")
    drift_plan = plan([contract])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    started = time.perf_counter()
    checks, _ = DriftRunner(drift_plan).run()
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    check = checks[0]
    print(
        json.dumps(
            {
                "rss_before_kib": before,
                "rss_after_kib": after,
                "tracemalloc_peak_bytes": peak,
                "bytes_read": check.info.get("bytes_read"),
                "code": check.verdict.code if check.verdict else None,
                "elapsed_s": round(elapsed, 3),
            }
        )
    )


def project(directory: Path, profile: str, max_bytes: int) -> Path:
    root = directory / profile
    (root / "contracts/bench_body/schemas").mkdir(parents=True)
    (root / "contracts/bench_body/contract.yaml").write_text(CONTRACT.format(max_bytes=max_bytes, profile=profile))
    (root / "contracts/bench_body/schemas/v1.json").write_text(json.dumps(SCHEMA))
    return root


def measure(root: Path, url: str) -> dict[str, float]:
    env = {**os.environ, "HARNESS_SANDBOX_URL": url}
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1 << 30, help="huge body size in bytes (default 1 GiB)")
    parser.add_argument("--max-bytes", type=int, default=1 << 20, help="the contract's max_bytes (default 1 MiB)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per case (median reported)")
    parser.add_argument("--child", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    exe = Path(sys.executable).with_name("contract-harness")
    sandbox = subprocess.Popen(
        [str(exe), "sandbox", "--port", "0", "--huge-bytes", str(args.size)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = sandbox.stdout.readline().strip().split("=", 1)[1]  # type: ignore[union-attr]
        results = {}
        with tempfile.TemporaryDirectory() as tmp:
            for name, profile in (("huge body", "hostile"), ("baseline (80 B)", "stable")):
                root = project(Path(tmp), profile, args.max_bytes)
                runs = [measure(root, url) for _ in range(args.repeat)]
                results[name] = {
                    key: statistics.median(r[key] for r in runs)
                    if isinstance(runs[0][key], int | float)
                    else runs[0][key]
                    for key in runs[0]
                }
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)
    huge, base = results["huge body"], results["baseline (80 B)"]
    rows = []
    for name, r in results.items():
        rows.append(
            [
                name,
                f"{r['bytes_read']:,}",
                str(r["code"]),
                f"{r['tracemalloc_peak_bytes'] / 2**20:.2f}",
                f"{r['rss_before_kib'] / 1024:.1f}",
                f"{r['rss_after_kib'] / 1024:.1f}",
                f"{(r['rss_after_kib'] - r['rss_before_kib']) / 1024:.1f}",
                f"{r['elapsed_s']:.3f}",
            ]
        )
    print(
        f"drift check, http upstream, body of {args.size:,} bytes vs 80 bytes; max_bytes={args.max_bytes:,}; "
        f"median of {args.repeat} fresh processes each"
    )
    print(
        table(
            rows,
            [
                "case",
                "bytes read",
                "verdict",
                "tracemalloc peak MiB",
                "RSS before MiB",
                "RSS peak MiB",
                "RSS growth MiB",
                "seconds",
            ],
        )
    )
    extra_rss = (huge["rss_after_kib"] - base["rss_after_kib"]) / 1024
    extra_traced = (huge["tracemalloc_peak_bytes"] - base["tracemalloc_peak_bytes"]) / 2**20
    body_mib = args.size / 2**20
    cap_mib = (args.max_bytes + 1) / 2**20
    print(f"\nthe huge body cost {extra_rss:+.1f} MiB of peak RSS and {extra_traced:+.2f} MiB of traced Python memory")
    print(f"over the baseline (max_bytes + 1 = {cap_mib:.2f} MiB; the body: {body_mib:,.0f} MiB)")
    path = save(
        "drift",
        {"size": args.size, "max_bytes": args.max_bytes, "repeat": args.repeat, "results": results},
    )
    print(f"saved {path}")


if __name__ == "__main__":
    main()
