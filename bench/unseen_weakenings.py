"""The unseen set's figure: how many weakenings of contracts the harness was not tuned on each
command flags, and how many false alarms it raises on the sound contracts.

    python bench/unseen_weakenings.py [--commands check,lint,fuzz] [--examples N] [--max-mutants N]
                                      [--jobs N] [--only ID ...] [--verbose]
    python bench/unseen_weakenings.py --worklist

The set is ``bench/unseen`` (six contracts written from the real-tools corpus and the docs
alone) and ``tests/weakenings/unseen.py`` (single weakenings of them, each with a witness that
proves it visible). Every witness is checked first, in this process; then each sound contract
and each weakened copy is run through ``check``, ``lint`` and ``fuzz --profile ci --examples N``
as subprocesses (``tests/weakenings/runner.py``), without any check waiver.

The sound contracts are not assumed clean: what a command reports on a sound contract is a
**false alarm**, listed per tool and grouped by operator (check), rule (lint) or property (fuzz).
A weakening counts as **flagged** by a command when the weakened copy reports something the
sound copy did not (a case id with its problem, a lint finding at a pointer); a case that was
already a false alarm cannot flag anything. A check flag none of whose new cases lands where the
weakening is (the witness's pointer or the contract field it opens) is ``flagged*``: counted, and
reported as fragile (a false alarm that moved with the sampling, say). A command that ends in
``error`` on a weakened copy (no verdict: a child lost on a busy machine) is run once more.

Prints one row per weakening, the totals (``flagged N/M by check``), the false alarms, and the
worklist: for each weakening check did not flag where it is, the near miss it needs (operator
and field). Writes bench/results/unseen_weakenings.json; with ``--max-mutants N`` (passed to
check: a large N shows which misses only sampling hides) unseen_weakenings_max_mutants_N.json.
``--worklist`` runs nothing and prints the worklist of the last default run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
sys.path.insert(0, str(Path(_HERE).parent))  # the repository: tests.weakenings
from _util import RESULTS, save, table  # noqa: E402

from tests.weakenings.catalogue import KINDS  # noqa: E402
from tests.weakenings.runner import (  # noqa: E402
    COMMANDS,
    Outcome,
    add_arguments,
    checked_commands,
    run,
)
from tests.weakenings.scratch import Scratch  # noqa: E402
from tests.weakenings.unseen import (  # noqa: E402
    BY_ID,
    CATALOGUE,
    UnseenWeakening,
    baseline_copy,
    general,
    weakened_copy,
)
from tests.weakenings.witness import judge_witness  # noqa: E402

RESULT_NAME = "unseen_weakenings"
#: check flagged the weakened copy, but no new case lands where the weakening is (its witness's
#: pointer or the contract field it opens): a catch by accident, such as a false alarm that
#: moved with the sampling. Counted as flagged, and reported apart.
FRAGILE = "flagged*"
_CASE = re.compile(r"^(?P<tool>[^:]+)::(?P<source>[^:]+)::(?P<label>.*) \((?P<problem>[a-z_]+)\)$")
_OPERATOR = re.compile(r"^(?P<operator>[a-z_]+)@(?P<pointer>(?:[^\[~]|~[01])*)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, examples="", only="ids as in tests/weakenings/unseen.py, e.g. weather/open_root",
                  worklist="run nothing; print what check missed in the last run written to bench/results")
    parser.add_argument("--max-mutants", type=int, metavar="N", default=None,
                        help="check's --max-mutants (default: check's own, 64); a large N shows what sampling hides")
    args = parser.parse_args(argv)
    if args.worklist:
        return print_saved_worklist()
    commands = checked_commands(parser, args, BY_ID, "the ids are in tests/weakenings/unseen.py",
                                **{"--max-mutants": args.max_mutants or 1})
    selected = [BY_ID[i] for i in args.only] if args.only else list(CATALOGUE)
    tools = sorted({w.tool for w in selected})
    started = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="bench-unseen-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        root = Path(tmp)
        invisible = witnesses_not_visible(selected, root / "witness")
        if invisible:
            for line in invisible:
                print(f"witness not visible: {line}", file=sys.stderr)
            return 2

        extra = {"check": ("--max-mutants", str(args.max_mutants))} if args.max_mutants else {}

        def measure_sound(tool: str, command: str) -> tuple[Outcome, dict[str, Any]]:
            scratch = baseline_copy(tool, root / "sound" / command / tool)
            outcome = run(command, scratch, fuzz_examples=args.examples, extra=extra.get(command, ()))
            return outcome, summary_of(scratch, command)

        def measure(w: UnseenWeakening, command: str) -> Outcome:
            scratch = weakened_copy(w, root / "weakened" / command / w.id)
            outcome = run(command, scratch, fuzz_examples=args.examples, extra=extra.get(command, ()))
            if outcome.status == "error":  # once more: a run lost on a busy machine is not a verdict
                retried = run(command, scratch, fuzz_examples=args.examples, extra=extra.get(command, ()))
                print(f"{w.id} {command}: {outcome.describe()}; run again: {retried.describe()}", file=sys.stderr)
                outcome = retried
            return outcome

        sound_jobs = {(t, c): pool.submit(measure_sound, t, c) for t in tools for c in commands}
        jobs = {(w.id, c): pool.submit(measure, w, c) for w in selected for c in commands}
        sound = {key: job.result() for key, job in sound_jobs.items()}
        outcomes = {key: job.result() for key, job in jobs.items()}

    broken = [f"{t} {c}: {o.describe()}" for (t, c), (o, _) in sound.items() if o.status in ("refused", "error")]
    if broken:
        for line in broken:
            print(f"sound contract does not run: {line}", file=sys.stderr)
        return 2

    results: dict[str, Any] = {}
    rows = []
    for w in selected:
        entry: dict[str, Any] = {"kind": w.kind, "summary": w.summary, "witness": w.witness.describe(),
                                 "needs": w.needs, "caught_by": []}
        for c in commands:
            status, new = attributed(outcomes[(w.id, c)], sound[(w.tool, c)][0])
            entry[c] = {"status": status, "new_evidence": new, "exit_code": outcomes[(w.id, c)].exit_code,
                        "message": outcomes[(w.id, c)].message}
            if c == "check" and status == "flagged":
                aimed = [e for e in new if aimed_at(e, w)]
                entry["caught_by"] = sorted({operator_of(e) for e in aimed})
                if not aimed:
                    entry[c]["status"] = FRAGILE
        caught_by = entry["caught_by"]
        rows.append([w.id, w.kind, *(entry[c]["status"] for c in commands),
                     ", ".join(caught_by[:3]) + (" ..." if len(caught_by) > 3 else "")])
        results[w.id] = entry
    print(table(rows, ["weakening", "kind", *commands, "check caught it with"]))
    if args.verbose:
        for w in selected:
            for c in commands:
                shown = results[w.id][c]["new_evidence"][:5]
                if shown:
                    print(f"{w.id} {c}: {'; '.join(shown)}")

    print()
    by_kind = []
    for kind in KINDS:
        of_kind = [w for w in selected if w.kind == kind]
        if of_kind:
            counts = [sum(flagged(results[w.id][c]) for w in of_kind) for c in commands]
            anyone = sum(any(flagged(results[w.id][c]) for c in commands) for w in of_kind)
            by_kind.append([kind, str(len(of_kind)), *map(str, counts), str(anyone)])
    print(table(by_kind, ["visible weakenings by kind", "", *commands, "any"]))
    print()
    totals: dict[str, int] = {}
    for c in commands:
        totals[c] = sum(flagged(results[w.id][c]) for w in selected)
        odd = Counter(results[w.id][c]["status"] for w in selected
                      if results[w.id][c]["status"] in (FRAGILE, "refused", "error"))
        also = "".join(f", {n} {'only elsewhere (' + FRAGILE + ', fragile)' if status == FRAGILE else status}"
                        for status, n in sorted(odd.items()))
        print(f"flagged {totals[c]}/{len(selected)} by {c}{also}")
    together = sum(any(flagged(results[w.id][c]) for c in commands) for w in selected)
    totals["+".join(commands)] = together
    print(f"flagged {together}/{len(selected)} by {'+'.join(commands)}")

    alarms = false_alarms(sound)
    print()
    print(render_false_alarms(alarms))
    print()
    worklist = worklist_of(selected, results) if "check" in commands else []
    if worklist:
        print(render_worklist(worklist))
        print()
    sampling = f", check --max-mutants {args.max_mutants}" if args.max_mutants else ""
    print(f"({len(selected)} weakenings of {len(tools)} contracts x {len(commands)} commands, "
          f"fuzz --examples {args.examples}{sampling}, {time.perf_counter() - started:.0f} s)")
    name = f"{RESULT_NAME}_max_mutants_{args.max_mutants}" if args.max_mutants else RESULT_NAME
    path = save(name, {"commands": list(commands), "fuzz_examples": args.examples, "max_mutants": args.max_mutants,
                       "totals": totals,
                       "visible": len(selected), "false_alarms": alarms, "worklist": worklist,
                       "weakenings": results})
    print(f"written: {path}")
    return 0


def witnesses_not_visible(selected: list[UnseenWeakening], root: Path) -> list[str]:
    """Each weakening's witness judged by its sound and weakened copy: the ones not visible."""
    sound: dict[str, Scratch] = {}
    found = []
    for w in selected:
        if w.tool not in sound:
            sound[w.tool] = baseline_copy(w.tool, root / "sound" / w.tool)
        verdicts = judge_witness(sound[w.tool], weakened_copy(w, root / "weakened" / w.id), w.witness)
        if not verdicts.visible:
            found.append(f"{w.id}: {w.witness.describe()}: {verdicts.describe()}")
    return found


def summary_of(scratch: Scratch, command: str) -> dict[str, Any]:
    """The counts of the command's JSON report on a sound copy (cases run, for the false-alarm
    rate), and the detail of each case that did not pass (why it is a false alarm); empty where
    the report has none."""
    report = scratch.root / ".contract-harness" / f"weakening-{command}.json"
    if not report.is_file():
        return {}
    data = json.loads(report.read_text(encoding="utf-8"))
    summary = data.get("summary", {})
    counts = {k: summary[k] for k in ("total", "passed", "failed", "findings") if k in summary}
    details = {case["id"]: case.get("detail") or "" for case in data.get("cases", []) if case.get("status") != "passed"}
    return {**counts, "details": details} if details else counts


def attributed(weakened: Outcome, sound: Outcome) -> tuple[str, list[str]]:
    """``flagged`` with what the weakened copy reported and the sound one did not, else its
    status (``held`` when everything it reported was a false alarm already)."""
    if weakened.status in ("refused", "error"):
        return weakened.status, []
    already = set(sound.evidence)
    new = [e for e in weakened.evidence if e not in already]
    return ("flagged" if new else "held"), new


def flagged(result: dict[str, Any]) -> bool:
    return result["status"] in ("flagged", FRAGILE)


def aimed_at(evidence: str, weakening: UnseenWeakening) -> bool:
    """Whether a piece of check evidence lands where the weakening is: a failing fixture, or a
    near miss at one of its targets (array indices aside)."""
    case = _CASE.match(evidence)
    if case is None:
        return False
    if case["source"] != "mutation":
        return True
    op = _OPERATOR.match(case["label"])
    return op is not None and general(op["pointer"]) in weakening.targets


def operator_of(evidence: str) -> str:
    """The operator (or source, or lint rule) a piece of evidence names."""
    case = _CASE.match(evidence)
    if case is None:
        return evidence.split(" ", 1)[0]  # a lint finding: "<rule> <file>#<pointer>"
    if case["source"] == "fuzz":
        return case["label"]  # the property
    if case["source"] != "mutation":
        return case["source"]
    op = _OPERATOR.match(case["label"])
    return op["operator"] if op else case["label"]


def false_alarms(sound: dict[tuple[str, str], tuple[Outcome, dict[str, Any]]]) -> dict[str, Any]:
    """What each command reported on each sound contract, per tool and grouped by cause (the
    operator and problem of a check case, the lint rule, the fuzz property and problem), with
    the detail of the first case of each cause."""
    by_tool: dict[str, dict[str, Any]] = {}
    by_cause: dict[str, dict[str, dict[str, int]]] = {}
    why: dict[str, dict[str, str]] = {}
    for (tool, command), (outcome, summary) in sorted(sound.items()):
        evidence = list(outcome.evidence)
        details = summary.pop("details", {})
        by_tool.setdefault(tool, {})[command] = {"count": len(evidence), "summary": summary, "evidence": evidence}
        for e in evidence:
            case = _CASE.match(e)
            cause = f"{operator_of(e)} ({case['problem']})" if case else operator_of(e)
            tools = by_cause.setdefault(command, {}).setdefault(cause, {})
            tools[tool] = tools.get(tool, 0) + 1
            if case and cause not in why.setdefault(command, {}):
                why[command][cause] = details.get(e[: -len(f" ({case['problem']})")], "")
    return {"by_tool": by_tool, "by_cause": by_cause, "why": why}


def render_false_alarms(alarms: dict[str, Any]) -> str:
    rows = []
    ran = [c for c in COMMANDS if any(c in t for t in alarms["by_tool"].values())]
    for tool, commands in alarms["by_tool"].items():
        row = [tool]
        for command in ran:
            got, summary = commands[command], commands[command]["summary"]
            if command in ("check", "fuzz") and "total" in summary:
                row.append(f"{summary.get('failed', 0)} failed + {summary.get('findings', 0)} findings"
                           f" of {summary['total']} {'cases' if command == 'check' else 'properties'}")
            else:
                row.append(f"{got['count']} findings" if command == "lint" else f"{got['count']} failed")
        rows.append(row)
    lines = ["false alarms on the sound contracts (no check waiver):", table(rows, ["sound contract", *ran])]
    for command in ran:
        causes = alarms["by_cause"].get(command, {})
        if causes:
            ordered = sorted(causes.items(), key=lambda item: (-sum(item[1].values()), item[0]))
            why = alarms["why"].get(command, {})
            rows = [[cause, str(sum(tools.values())), ", ".join(f"{t} {n}" for t, n in sorted(tools.items())),
                     _short(why.get(cause, ""))] for cause, tools in ordered]
            lines += ["", table(rows, [f"{command} false alarms by cause", "", "tools", "first case's detail"])]
    total = {c: sum(t[c]["count"] for t in alarms["by_tool"].values() if c in t) for c in ran}
    lines += ["", "false alarms in all: " + ", ".join(f"{n} by {c}" for c, n in total.items())]
    return "\n".join(lines)


def _short(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def worklist_of(selected: list[UnseenWeakening], results: dict[str, Any]) -> list[dict[str, str]]:
    """The weakenings check did not flag where they are (held, or flagged only elsewhere)."""
    return [{"id": w.id, "kind": w.kind, "summary": w.summary, "witness": w.witness.describe(), "needs": w.needs,
             "check": results[w.id]["check"]["status"]}
            for w in selected if results[w.id]["check"]["status"] != "flagged"]


def render_worklist(worklist: list[dict[str, str]]) -> str:
    lines = [f"worklist: {len(worklist)} weakenings check did not flag where they are ({FRAGILE}: only elsewhere), "
             "and the near miss each needs"]
    for item in worklist:
        mark = f" [{FRAGILE}]" if item.get("check") == FRAGILE else ""
        lines.append(f"  - {item['id']} ({item['kind']}){mark}: {item['summary']}")
        lines.append(f"      needs:   {item['needs']}")
        lines.append(f"      witness: {item['witness']}")
    return "\n".join(lines)


def print_saved_worklist() -> int:
    path = RESULTS / f"{RESULT_NAME}.json"
    if not path.is_file():
        print(f"no measurement yet ({path} is missing): run python bench/unseen_weakenings.py --commands check",
              file=sys.stderr)
        return 2
    saved = json.loads(path.read_text(encoding="utf-8"))
    if "check" not in saved.get("commands", []):
        print(f"{path}: the last run did not run check", file=sys.stderr)
        return 2
    print(render_worklist(saved["worklist"]) if saved["worklist"] else "check flagged every weakening of the set")
    print(f"(from {path}: flagged {saved['totals']['check']}/{saved['visible']} by check)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
