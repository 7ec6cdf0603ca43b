"""What ``init`` and ``import`` wrote, as lines for people (the CLI prints them)."""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.onboarding.apply import ToolOutcome, Written
from harness.onboarding.followups import Review

if TYPE_CHECKING:
    from harness.compat import CompatReport
from harness.onboarding.tighten import Tightened


def _rel(path: Path) -> str:
    try:
        shown = os.path.relpath(path, Path.cwd())
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)
    return shown if not shown.startswith("../..") else str(path)


def _fixtures(outcome: ToolOutcome) -> str:
    parts = [f"{outcome.count('accepted')} accepted"]
    for kind in ("rejected", "historical"):
        if outcome.count(kind):
            parts.append(f"{outcome.count(kind)} {kind}")
    return ", ".join(parts)


def _tightened(t: Tightened) -> str:
    kinds = Counter(keyword for _, keyword, _ in t.bounded)
    bounds = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    text = f"closed {len(t.closed)} object{'s' if len(t.closed) != 1 else ''}"
    if bounds:
        text += f", added {bounds}"
    if t.left_open:
        text += f"; left open: {', '.join(p for p, _ in t.left_open[:3])}"
        text += f" and {len(t.left_open) - 3} more" if len(t.left_open) > 3 else ""
    return text


def lines(written: Written, *, source: str, verb: str = "imported") -> list[str]:
    out = []
    count = len(written.tools)
    dialects = sorted({t.dialect for t in written.tools if t.dialect})
    out.append(
        f"{verb} {count} tool{'s' if count != 1 else ''} from {source} into {_rel(written.root)}"
        + (f" (schema dialect: {', '.join(dialects)})" if dialects else "")
    )
    for tool in written.tools:
        renamed = f" (from {tool.source_name!r})" if tool.source_name != tool.tool else ""
        inferred = " (schema INFERRED from samples)" if tool.inferred else ""
        out.append(f"  {tool.tool}{renamed}: {_rel(tool.directory)}, {_fixtures(tool)}{inferred}")
        for fixture in tool.fixtures:
            if fixture.kind != "accepted":
                out.append(
                    f"    {fixture.kind} {fixture.name}: rejected by {fixture.code} at {fixture.pointer or '/'}"
                )
        for skipped in tool.skipped:
            out.append(f"    skipped {skipped.name}: {skipped.reason}")
        for note in tool.notes:
            out.append(f"    note: {note}")
        if tool.strict is not None:
            strict = tool.strict
            state = (
                "current (every accepted fixture still passes)"
                if strict.current
                else f"NOT current: it rejects {', '.join(strict.rejects)}; v1 stays current until you decide"
            )
            out.append(f"    strict: schemas/v{strict.version}.json {state}; {_tightened(strict.tightened)}")
    return out


def next_steps(written: Written) -> list[str]:
    """The commands that show the result: check, and verify on one accepted fixture."""
    if not written.tools:
        return []
    dirs = " ".join(shlex.quote(_rel(t.directory)) for t in written.tools[:3])
    more = " ..." if len(written.tools) > 3 else ""
    steps = [f"next: contract-harness check {dirs}{more}"]
    for tool in written.tools:
        accepted = [f for f in tool.fixtures if f.kind == "accepted"]
        if accepted:
            payload = written.root / "fixtures" / "accepted" / tool.tool / f"{accepted[0].name}.json"
            steps.append(
                f"      contract-harness verify {shlex.quote(_rel(tool.directory))} "
                f"{shlex.quote(_rel(payload))}"
            )
            break
    return steps


def review_lines(reviews: Sequence[Review], root: Path) -> list[str]:
    """Lint findings per contract (by rule) and the compat verdicts of strict versions."""
    out = []
    for item in reviews:
        report = item.lint
        if report.ok:
            out.append(f"lint {item.tool}: clean")
        else:
            rules = ", ".join(f"{rule} {n}" for rule, n in report.counts().items())
            out.append(f"lint {item.tool}: {len(report.findings)} findings ({rules})")
        if item.compat is not None:
            out.extend(_compat_lines(item.compat))
    if any(not r.lint.ok for r in reviews):
        out.append(f"      details: contract-harness lint {shlex.quote(_rel(root / 'contracts'))}")
    return out


def _compat_lines(report: CompatReport) -> list[str]:
    from harness.compat import Direction
    classes = Counter(a.change.rule.name for a in report.changes)
    shown = ", ".join(f"{name} {n}" for name, n in classes.most_common(4))
    more = f" and {len(classes) - 4} more kinds" if len(classes) > 4 else ""
    out = [
        f"compat {report.tool} v{report.old.version} -> v{report.new.version}: "
        f"{'OK' if report.ok else 'FAILED'} under policy {report.policy.value}; "
        f"reader {report.verdict(Direction.READER).value}, writer {report.verdict(Direction.WRITER).value}; "
        f"{len(report.changes)} changes ({shown}{more})"
    ]
    for row in report.replay:
        cells = " | ".join(f"v{c.version} {c.reason}" for c in row.cells)
        out.append(f"      {'ok  ' if row.ok else 'FAIL'} {row.fixture}: {cells}")
    for label, unsupported in report.unsupported[:3]:
        out.append(f"      unsupported in {label} at {unsupported.pointer or '/'}: {unsupported.reason}")
    out.append(f"      with witnesses: contract-harness compat {report.tool} --from {report.old.version} "
               f"--to {report.new.version}")
    return out
