"""The weakening suite's figure: how many realistic weakenings of the demo contracts each command
flags.

    python bench/weakenings.py [--commands check,lint,fuzz] [--examples N] [--jobs N] [--only ID ...]
    python bench/weakenings.py --worklist

Each weakening of tests/weakenings/catalogue.py is applied to a scratch copy of its demo tool
(no schemas.lock: the lock would "catch" every in-place edit, which is not what is measured),
then ``check``, ``lint`` and ``fuzz --profile ci --examples N`` run on the copy as subprocesses.
The baseline is measured in the same run: every command on every unweakened copy must hold,
or nothing can be attributed to a weakening and the script stops. Prints one row per weakening
(``flagged``, ``held``, ``refused`` = exit 2), marks with ``!`` a result that differs from what
the catalogue records, and the totals: ``flagged N/M by check``, by check+lint+fuzz
together, the invisible ones (equivalent rewrites, documented, not counted in M). Writes
bench/results/weakenings.json. Exit 1 when a result differs from the catalogue (update it).
``--worklist`` runs nothing: it prints what the catalogue says check misses, or flags only
by accident, and what check needs to flag each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
sys.path.insert(0, str(Path(_HERE).parent))  # the repository: tests.weakenings
from _util import save, table  # noqa: E402

from tests.weakenings.catalogue import (  # noqa: E402
    BY_ID,
    CATALOGUE,
    KINDS,
    Weakening,
    baseline_copy,
    weakened_copy,
)
from tests.weakenings.runner import (  # noqa: E402
    Outcome,
    add_arguments,
    checked_commands,
    run,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, examples="; the ci profile's 100 is 4x slower",
                  only="ids as in the catalogue, e.g. review_status/open_data",
                  worklist="run nothing; print what check misses today (per the catalogue) and what it needs")
    args = parser.parse_args(argv)
    if args.worklist:
        print(worklist(CATALOGUE))
        return 0
    commands = checked_commands(parser, args, BY_ID, "--worklist lists some ids")
    selected = [BY_ID[i] for i in args.only] if args.only else list(CATALOGUE)
    started = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="bench-weakenings-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        root = Path(tmp)

        def measure(copy_of: Weakening | tuple[str, str], command: str) -> Outcome:
            if isinstance(copy_of, Weakening):
                scratch = weakened_copy(copy_of, root / "weakened" / command / copy_of.id)
            else:
                scratch = baseline_copy(*copy_of, root / "baseline" / command / "-".join(copy_of))
            return run(command, scratch, fuzz_examples=args.examples)

        bases = sorted({(w.tool, w.base) for w in selected})
        baseline = {(base, c): pool.submit(measure, base, c) for base in bases for c in commands}
        measured = {(w.id, c): pool.submit(measure, w, c) for w in selected for c in commands}
        unclean = [f"{tool} ({base}) {c}: {f.result().describe()}"
                   for ((tool, base), c), f in baseline.items() if f.result().status != "held"]
        if unclean:
            for line in unclean:
                print(f"baseline does not hold: {line}", file=sys.stderr)
            return 2
        outcomes = {key: f.result() for key, f in measured.items()}

    rows, stale, results = [], [], {}
    for w in selected:
        row = [w.id, w.kind, "visible" if w.visible else "invisible"]
        results[w.id] = {"kind": w.kind, "visible": w.visible, "must_catch": list(w.must_catch)}
        for c in commands:
            outcome = outcomes[(w.id, c)]
            recorded = getattr(w, c)
            mark = "" if outcome.status == recorded else f" ! catalogue says {recorded}"
            if mark:
                stale.append(f"{w.id} {c}: {outcome.describe()} (catalogue says {recorded})")
            row.append(outcome.status + mark)
            results[w.id][c] = {"status": outcome.status, "evidence": list(outcome.evidence),
                                "message": outcome.message}
        rows.append(row)
    print(table(rows, ["weakening", "kind", "", *commands]))
    if args.verbose:
        for w in selected:
            for c in commands:
                if outcomes[(w.id, c)].status != "held":
                    print(f"{w.id} {c}: {outcomes[(w.id, c)].describe(limit=5)}")

    visible = [w for w in selected if w.visible]
    by_kind = []
    for kind in KINDS:
        of_kind = [w for w in visible if w.kind == kind]
        if of_kind:
            counts = [sum(outcomes[(w.id, c)].flagged for w in of_kind) for c in commands]
            anyone = sum(any(outcomes[(w.id, c)].flagged for c in commands) for w in of_kind)
            by_kind.append([kind, str(len(of_kind)), *map(str, counts), str(anyone)])
    print()
    print(table(by_kind, ["visible weakenings by kind", "", *commands, "any"]))
    totals = {}
    print()
    for c in commands:
        flagged = sum(outcomes[(w.id, c)].flagged for w in visible)
        refused = sum(outcomes[(w.id, c)].status == "refused" for w in visible)
        totals[c] = flagged
        print(f"flagged {flagged}/{len(visible)} by {c}" + (f" ({refused} refused at load, exit 2)" if refused else ""))
    together = sum(any(outcomes[(w.id, c)].flagged for c in commands) for w in visible)
    totals["+".join(commands)] = together
    print(f"flagged {together}/{len(visible)} by {'+'.join(commands)}")
    print(f"invisible (equivalent or unreachable, not counted): {len(selected) - len(visible)}")
    missed = [w.id for w in visible if not outcomes.get((w.id, "check"), Outcome("check", "held", 0)).flagged]
    if "check" in commands and missed:
        print(f"missed by check: {', '.join(missed)}")
    print(f"({len(selected)} weakenings x {len(commands)} commands, fuzz --examples {args.examples}, "
          f"{time.perf_counter() - started:.0f} s)")
    path = save("weakenings", {"commands": list(commands), "fuzz_examples": args.examples, "totals": totals,
                               "visible": len(visible), "invisible": len(selected) - len(visible),
                               "weakenings": results})
    print(f"written: {path}")
    for line in stale:
        print(f"catalogue out of date: {line}", file=sys.stderr)
    return 1 if stale else 0


def worklist(catalogue: tuple[Weakening, ...]) -> str:
    """The visible weakenings check misses (or flags only by accident), grouped by what it needs."""
    groups: dict[str, list[Weakening]] = {}
    for w in catalogue:
        if w.visible and (w.check != "flagged" or w.fragile):
            groups.setdefault(w.needs or f"(flagged today by accident) {w.fragile}", []).append(w)
    lines = []
    for needs, entries in groups.items():
        lines.append(f"needs: {needs}")
        lines += [f"  - {w.id}: {w.summary}" for w in entries]
    missed = sum(w.visible and w.check != "flagged" for w in catalogue)
    fragile = sum(bool(w.fragile) for w in catalogue)
    lines.append(f"{missed} missed by check, {fragile} flagged only by accident, "
                 f"of {sum(w.visible for w in catalogue)} visible weakenings")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
