"""Turn a :class:`~harness.lint.model.LintReport` into text or JSON (SARIF: :mod:`.sarif`).

Paths are shown relative to ``root`` (the current directory by default) when they lie under
it, so output is stable across checkouts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from harness.lint.model import Finding, LintReport
from harness.pointer import display


def relative_path(file: str, root: Path | None = None) -> str:
    """``file`` relative to ``root`` (default: the current directory) if under it, POSIX style."""
    path = Path(file)
    base = (root or Path.cwd()).resolve()
    try:
        return path.resolve().relative_to(base).as_posix()
    except (ValueError, OSError):
        return path.as_posix()


def _where(finding: Finding, root: Path | None) -> str:
    place = relative_path(finding.file, root)
    return f"{place}:{finding.line}" if finding.line is not None else place


def summary(report: LintReport) -> str:
    """One line: what was linted and what was found."""
    targets = f"{len(report.targets)} target{'s' if len(report.targets) != 1 else ''}"
    waived = f", {len(report.waived)} waived" if report.waived else ""
    if report.ok:
        return f"lint: clean ({targets}{waived})"
    counts = ", ".join(f"{n} {s}{'s' if n != 1 else ''}"
                       for s, n in report.severities().items() if n)
    total = len(report.findings)
    return f"lint: {total} finding{'s' if total != 1 else ''} ({counts}) in {targets}{waived}"


def render_text(report: LintReport, root: Path | None = None) -> str:
    """``file:line: severity[rule] pointer: message`` and its fix, then waivers, then a summary."""
    lines = []
    for f in report.findings:
        lines.append(f"{_where(f, root)}: {f.severity.value}[{f.rule}] {display(f.pointer)}: "
                     f"{f.message}")
        lines.append(f"    fix: {f.fix}")
    for w in report.waived:
        f = w.finding
        lines.append(f"{_where(f, root)}: waived[{f.rule}] {display(f.pointer)}: "
                     f"{w.waiver.reason} (waivers[{w.index}])")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def render_json(report: LintReport, root: Path | None = None) -> str:
    """The report as one JSON document (``summary``, ``targets``, ``findings``, ``waived``)."""
    data = report.to_dict()
    for entry in (*data["findings"], *data["waived"]):
        entry["file"] = relative_path(entry["file"], root)
    data["targets"] = [relative_path(t, root) for t in data["targets"]]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _sarif(report: LintReport, root: Path | None) -> str:
    from harness.lint.sarif import render_sarif  # only when asked for: lint runs on every commit

    return render_sarif(report, root)


def reporters() -> dict[str, Callable[[LintReport, Path | None], str]]:
    """Output formats by name (``--format``)."""
    return {"text": render_text, "json": render_json, "sarif": _sarif}
