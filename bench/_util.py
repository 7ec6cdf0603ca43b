"""Timing helpers shared by the benchmarks: best-of-N throughput, peak memory, tables."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
#: The checkout's own package.
PACKAGE = Path(__file__).resolve().parent.parent / "harness"


def byte_compiled(*others: Path | str | None) -> None:
    """Write the ``.pyc`` files of this checkout's ``harness`` and of each other tree given (a
    folder holding a ``harness`` package, or the package folder itself; None is skipped).

    A tree without them (``git archive`` of an earlier commit, or any tree run with
    ``PYTHONDONTWRITEBYTECODE`` set, as on this machine) compiles every module it imports on
    every run: that is measured as the package's own time, and makes an earlier version look
    slower than it is. Each benchmark that runs child processes compiles the trees it runs
    first, so both sides start alike."""
    import compileall

    for tree in (PACKAGE, *others):
        if tree is None:
            continue
        folder = Path(tree)
        folder = folder / "harness" if (folder / "harness" / "__init__.py").is_file() else folder
        compileall.compile_dir(str(folder), quiet=2, force=False)


def throughput(fn: Callable[[], Any], *, min_time: float = 0.3, repeats: int = 5) -> float:
    """Calls per second: best of ``repeats`` rounds, each at least ``min_time`` seconds."""
    fn()  # warm caches and compiled validators
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / 10:
            break
        number *= 2
    per_round = max(1, int(number * (min_time / max(elapsed, 1e-9))))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(per_round):
            fn()
        best = min(best, (time.perf_counter() - start) / per_round)
    return 1.0 / best


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    def line(row: list[str]) -> str:
        cells = zip(row, widths, strict=True)
        return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(cells))

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def save(name: str, data: Any) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


#: A CPU-bound child for :func:`parallel_ceiling`: the interpreter's everyday work (JSON, dicts,
#: strings, sorting), about a second of it, and nothing shared with another child.
_SPIN = """
import json
doc = {"items": [{"id": f"it-{i:06d}", "state": "running", "tags": ["a", "b"], "n": i} for i in range(40)]}
for i in range(4000):
    text = json.dumps(doc, sort_keys=True)
    back = json.loads(text)
    sorted(back["items"], key=lambda item: (item["state"], -item["n"]))
"""


def parallel_ceiling(rounds: int = 3) -> dict[str, float]:
    """What two processes gain on this machine at best: one CPU-bound child alone, then two at
    once (wall seconds, best of ``rounds``), and ``ceiling`` = 2 x alone / together (2.0 on two
    idle cores that do not slow each other; less where they share a physical core, a cache or a
    host). A ``-n 2`` or ``--jobs 2`` ratio is read against it, not against 2."""
    def wall(count: int) -> float:
        started = time.perf_counter()
        children = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(count)]
        for child in children:
            if child.wait() != 0:
                raise SystemExit("parallel_ceiling: a child failed")
        return time.perf_counter() - started

    alone = min(wall(1) for _ in range(rounds))
    together = min(wall(2) for _ in range(rounds))
    return {"alone_s": alone, "together_s": together, "ceiling": 2 * alone / together}
