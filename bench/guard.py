"""Benchmark: latency a ``contract-harness guard`` adds to each tools/call.

    python bench/guard.py [--calls 2000] [--rounds 10] [--tool review_status]

Starts two copies of the demo MCP server (``contract-harness sandbox --mcp --profile stable``):
one spoken to directly, one behind ``contract-harness guard`` with the demo contracts. The same
minimal client (blocking writes and reads of JSON-RPC lines, no SDK) sends the same
``tools/call`` to both, sequentially, alternating in ``--rounds`` blocks so both see the same
machine load. Each call is timed from writing the request to reading the whole answer line.

Reported: p50, p90, p99 and mean per call, direct and guarded, and what the guard adds at each
(guarded minus direct; a difference of percentiles, not a percentile of differences). Beside
them, the guard's judging alone (``GuardedTool.judge`` on a recorded answer line, in process):
the part of the added latency that is the boundary rather than the extra pipe hop. Target: under
1 ms added at p99 for the demo envelope (``review_status``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import save, table  # noqa: E402

ARGS = {
    "review_status": {"change_id": "CR-1042"},
    "job_status": {"project_id": "bluebird", "run_id": "run_8f3K2j5H1g9d"},
    "deployment_status": {"environment": "staging"},
}
CLI = str(Path(sys.executable).parent / "contract-harness")


class Client:
    """A JSON-RPC client on a subprocess's stdio: one request in flight at a time."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> tuple[float, bytes]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode()
        start = time.perf_counter()
        self.process.stdin.write(line + b"\n")
        while True:
            answer = self.process.stdout.readline()
            if not answer:
                raise SystemExit(f"the server closed its output ({method})")
            if json.loads(answer).get("id") == self.next_id:
                return time.perf_counter() - start, answer

    def initialize(self) -> None:
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        assert self.process.stdin is not None
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the process has used so far (Linux: /proc/PID/stat)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99), "mean": statistics.fmean(ordered) * 1000}


def judge_cost(tool: str, line: bytes, repeats: int = 2000) -> dict[str, float]:
    """The guard's judging of one answer line, in process (no pipes)."""
    from harness.contract import demo_root
    from harness.guard.policy import Guard

    guard = Guard.from_paths([demo_root()])
    guarded = guard.tools[tool]
    message = json.loads(line)
    # The direct answer echoes the request id the benchmark sent in _meta; judge it against that.
    document = message["result"]["structuredContent"]
    request = guarded.request(ARGS[tool], document.get("request_id", "req.J7q94MkP"))
    ident = message["id"]
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        verdict = guarded.judge(line, ident, request)
        samples.append(time.perf_counter() - start)
    assert verdict.accepted, verdict.message
    return percentiles(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per server (default 2000)")
    parser.add_argument("--rounds", type=int, default=10, help="alternating blocks (default 10)")
    parser.add_argument("--tool", choices=sorted(ARGS), default="review_status", help="the demo tool called")
    parser.add_argument("--warmup", type=int, default=100, help="untimed calls first, per server (default 100)")
    options = parser.parse_args()

    from harness.contract import demo_root

    sandbox = [CLI, "sandbox", "--mcp", "--profile", "stable"]
    direct = Client(sandbox)
    guarded = Client([CLI, "guard", "--contracts", str(demo_root() / "contracts"), "--", *sandbox])
    params = {"name": options.tool, "arguments": ARGS[options.tool], "_meta": {"request_id": "req.J7q94MkP"}}
    times: dict[str, list[float]] = {"direct": [], "guarded": []}
    lines: dict[str, bytes] = {}
    try:
        for client in (direct, guarded):
            client.initialize()
            for _ in range(options.warmup):
                client.request("tools/call", params)
        block = max(1, options.calls // options.rounds)
        cpu_before = {"direct": direct.cpu_seconds(), "guarded": guarded.cpu_seconds()}
        for _ in range(options.rounds):
            for name, client in (("direct", direct), ("guarded", guarded)):
                for _ in range(block):
                    elapsed, answer = client.request("tools/call", params)
                    times[name].append(elapsed)
                    lines[name] = answer
        # The guard process's own CPU per call (the server behind it is its child, not counted):
        # unlike wall-clock latency, it does not depend on how busy the machine is.
        cpu_ms = {name: (client.cpu_seconds() - cpu_before[name]) * 1000 / len(times[name])
                  for name, client in (("direct", direct), ("guarded", guarded))}
    finally:
        direct.close()
        guarded.close()
    guarded_result = json.loads(lines["guarded"])["result"]
    if guarded_result.get("isError"):
        raise SystemExit(f"the guard rejected the demo answer: {guarded_result}")

    stats = {name: percentiles(samples) for name, samples in times.items()}
    added = {k: stats["guarded"][k] - stats["direct"][k] for k in stats["direct"]}
    judging = judge_cost(options.tool, lines["direct"].rstrip(b"\n"))
    keys = ["p50", "p90", "p99", "mean"]
    rows = [
        ["direct", *(f"{stats['direct'][k]:.3f}" for k in keys)],
        ["guarded", *(f"{stats['guarded'][k]:.3f}" for k in keys)],
        ["added by the guard", *(f"{added[k]:+.3f}" for k in keys)],
        ["  of which judging (in process)", *(f"{judging[k]:.3f}" for k in keys)],
    ]
    print(f"{options.tool}: {len(times['direct'])} calls per server, {options.rounds} alternating rounds; "
          "milliseconds per call")
    print(table(rows, ["", *keys]))
    verdict = "meets" if added["p99"] < 1.0 else "misses"
    print(f"\nCPU per call: the server {cpu_ms['direct']:.3f} ms; the guard process {cpu_ms['guarded']:.3f} ms "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"added p99 {added['p99']:.3f} ms: {verdict} the target (< 1 ms)")
    path = save("guard", {"tool": options.tool, "calls": len(times["direct"]), "rounds": options.rounds,
                          "direct_ms": stats["direct"], "guarded_ms": stats["guarded"], "added_ms": added,
                          "judging_ms": judging,
                          "cpu_ms_per_call": {"server": cpu_ms["direct"], "guard": cpu_ms["guarded"]},
                          "load_average": os.getloadavg()[0], "target_p99_added_ms": 1.0})
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
