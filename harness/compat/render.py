"""Reporters for :class:`~harness.compat.report.CompatReport`: terminal text, Markdown and HTML.

(JSON is ``report.to_dict()``.) Reporters only read the report; they never judge.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from harness.compat.model import Direction, Evidence
from harness.compat.report import CompatReport, decided_by, value_text, witnesses_of
from harness.events import Section
from harness.markdown import code_span
from harness.pointer import display


def _title(report: CompatReport) -> str:
    tool = report.tool or "schema"
    return f"{tool}: v{report.old.version} -> v{report.new.version}" if report.old.version else f"{tool}: old -> new"


def _verdict_line(report: CompatReport, direction: Direction) -> str:
    """``breaking (witness)``; a verdict no document proves also names the rules that decided it."""
    evidence = report.evidence(direction)
    rules = decided_by(report, direction)
    by = f"; decided by {rules}" if rules and evidence is not Evidence.WITNESS else ""
    return f"{report.verdict(direction).value} ({evidence.value}{by})"


def _evidence(report_row: Any) -> str:
    return f"{report_row.reader_evidence.value}/{report_row.writer_evidence.value}"


def text(report: CompatReport) -> str:
    """The terminal report."""
    lines = []
    for contradiction in report.contradictions:
        lines.append(f"CLASSIFIER BUG: {contradiction.message}")
    status = "OK" if report.ok else "FAILED"
    lines.append(f"{_title(report)}: {status} (policy {report.policy.value}, from {report.policy_source})")
    for info in (report.old, report.new):
        lines.append(f"  {info.label}: {info.schema_id or '-'}  sha256 {info.sha256[:16]}  ({info.dialect})")
    lines.append(f"  reader-safe (old documents still accepted): {_verdict_line(report, Direction.READER)}")
    lines.append(f"  writer-safe (new documents accepted by old readers): {_verdict_line(report, Direction.WRITER)}")
    lines.append("")
    if report.changes:
        lines.append("changes:")
        for a in report.changes:
            c = a.change
            lines.append(f"  {c.rule.id} {c.rule.name} at {display(c.pointer)}"
                         + (f" [{c.subject}]" if c.subject else ""))
            lines.append(f"      {value_text(c.before, 60)} -> {value_text(c.after, 60)}")
            lines.append(f"      reader {a.reader.value} ({a.reader_evidence.value}), "
                         f"writer {a.writer.value} ({a.writer_evidence.value})"
                         + (f"; {c.note}" if c.note else ""))
    else:
        lines.append("changes: none (the versions validate the same documents)")
    found = witnesses_of(report)
    if found:
        lines.append("")
        lines.append("witnesses:")
        for assessed, w in found:
            label = f"{assessed.change.rule.id} {w.direction.value}" if assessed else f"pair {w.direction.value}"
            lines.append(f"  {label}: {value_text(w.document, 160)}")
            lines.append(f"      accepted by {w.accepted_by}, rejected by {w.rejected_by}: "
                         f"{w.keyword} at {display(w.instance_pointer)} ({w.schema_pointer}): {w.message}")
    if report.replay:
        lines.append("")
        lines.append(f"replay (v{report.old.version} | v{report.new.version}):")
        for row in report.replay:
            cells = " | ".join(cell.reason for cell in row.cells)
            mark = "ok  " if row.ok else "FAIL"
            lines.append(f"  {mark} {row.fixture}: {cells}")
            for cell in row.cells:
                if cell.problem:
                    lines.append(f"       v{cell.version}: {cell.problem}")
    if report.unsupported:
        lines.append("")
        lines.append("unsupported (not modelled):")
        for label, u in report.unsupported:
            lines.append(f"  {label} {display(u.pointer)} {u.keyword}: {u.reason}")
    lines.append("")
    for check in report.checks:
        if not check.ok:
            lines.append(f"FAILED {check.name}: {check.detail}")
    lines.append(f"{sum(c.ok for c in report.checks)} of {len(report.checks)} checks hold ({report.seconds:.2f}s)")
    return "\n".join(lines)


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown(report: CompatReport) -> str:
    """The Markdown report (for CI summaries and pull requests)."""
    out = [f"## {_title(report)}: {'OK' if report.ok else 'FAILED'}", ""]
    out += ["| version | id | sha256 | dialect |", "|---|---|---|---|"]
    for info in (report.old, report.new):
        out.append(f"| {info.label} | `{info.schema_id or '-'}` | `{info.sha256}` | {info.dialect} |")
    out += ["", f"Policy **{report.policy.value}** (from {report.policy_source}).", "",
            "| direction | verdict | evidence | decided by |", "|---|---|---|---|"]
    for d in Direction:
        out.append(f"| {d.value} | {report.verdict(d).value} | {report.evidence(d).value} | {decided_by(report, d)} |")
    out += ["", "### Checks", "", "| check | holds | detail |", "|---|---|---|"]
    for check in report.checks:
        out.append(f"| `{check.name}` | {'yes' if check.ok else '**no**'} | {_cell(check.detail)} |")
    out += ["", "### Changes", ""]
    if report.changes:
        out += ["| pointer | class | before -> after | reader | writer | rule | evidence |",
                "|---|---|---|---|---|---|---|"]
        for a in report.changes:
            c = a.change
            out.append(
                f"| `{display(c.pointer)}` | {c.rule.name}{' (' + _cell(c.subject) + ')' if c.subject else ''} "
                f"| `{_cell(value_text(c.before, 50))}` -> `{_cell(value_text(c.after, 50))}` | {a.reader.value} "
                f"| {a.writer.value} | {c.rule.id} | {_evidence(a)} |"
            )
    else:
        out.append("None: the versions validate the same documents.")
    found = witnesses_of(report)
    if found:
        out += ["", "### Witnesses", ""]
        for assessed, w in found:
            label = f"{assessed.change.rule.id} {assessed.change.rule.name}" if assessed else "pair"
            out += [f"- **{label}**, {w.direction.value}: accepted by {w.accepted_by}, rejected by "
                    f"{w.rejected_by} — `{w.keyword}` at `{display(w.instance_pointer)}` "
                    f"(`{w.schema_pointer}`): {w.message}", "",
                    "  ```json", "  " + json.dumps(w.document, ensure_ascii=False), "  ```"]
    if report.replay:
        out += ["", "### Replay", "", f"| fixture | v{report.old.version} | v{report.new.version} | ok |",
                "|---|---|---|---|"]
        for row in report.replay:
            cells = " | ".join(_cell(c.reason + (f" (expected {c.expected})" if c.expected else "")) for c in row.cells)
            problems = "; ".join(c.problem for c in row.cells if c.problem)
            out.append(f"| {code_span(row.fixture)} | {cells} | {'yes' if row.ok else '**no**: ' + _cell(problems)} |")
    if report.models:
        out += ["", "### Content models", "", "| object | old | new |", "|---|---|---|"]
        out += [f"| `{display(m.pointer)}` | {m.old or '-'} | {m.new or '-'} |" for m in report.models]
    if report.unsupported:
        out += ["", "### Unsupported", "", "| version | pointer | keyword | why |", "|---|---|---|---|"]
        out += [f"| {label} | `{display(u.pointer)}` | `{u.keyword}` | {_cell(u.reason)} |"
                for label, u in report.unsupported]
    return "\n".join(out) + "\n"


class HtmlPage(NamedTuple):
    """What the HTML report of a comparison shows (``harness.reporting.html.sections_page``
    lays it out)."""

    title: str
    ok: bool
    verdict: str
    sections: list[Section]


def html_page(report: CompatReport) -> HtmlPage:
    """The HTML report's parts: the same tables as the Markdown, for the harness's page."""
    held = sum(c.ok for c in report.checks)
    sections = [
        Section("Versions", ["version", "id", "sha256", "dialect"],
                [[i.label, i.schema_id or "-", i.sha256, i.dialect] for i in (report.old, report.new)],
                note=f"Policy {report.policy.value} (from {report.policy_source})."),
        Section("Verdicts", ["direction", "verdict", "evidence", "decided by"],
                [[d.value, report.verdict(d).value, report.evidence(d).value, decided_by(report, d)]
                 for d in Direction]),
        Section("Checks", ["check", "holds", "detail"],
                [[c.name, "yes" if c.ok else "NO", c.detail] for c in report.checks]),
        Section("Changes", ["pointer", "class", "before", "after", "reader", "writer", "rule", "evidence"],
                [[display(a.change.pointer),
                  a.change.rule.name + (f" ({a.change.subject})" if a.change.subject else ""),
                  value_text(a.change.before, 80), value_text(a.change.after, 80), a.reader.value, a.writer.value,
                  a.change.rule.id, _evidence(a)] for a in report.changes],
                note="" if report.changes else "None: the versions validate the same documents."),
    ]
    found = witnesses_of(report)
    if found:
        sections.append(Section(
            "Witnesses", ["change", "direction", "accepted by", "rejected by", "why", "document"],
            [[f"{a.change.rule.id} {a.change.rule.name}" if a else "pair", w.direction.value, w.accepted_by,
              w.rejected_by, f"{w.keyword} at {display(w.instance_pointer)} ({w.schema_pointer}): {w.message}",
              value_text(w.document, 400)] for a, w in found]))
    if report.replay:
        sections.append(Section(
            "Replay", ["fixture", f"v{report.old.version}", f"v{report.new.version}", "ok"],
            [[row.fixture, *(c.reason + (f" (expected {c.expected})" if c.expected else "") for c in row.cells),
              "yes" if row.ok else "NO: " + "; ".join(c.problem for c in row.cells if c.problem)]
             for row in report.replay]))
    if report.models:
        sections.append(Section("Content models", ["object", "old", "new"],
                                [[display(m.pointer), m.old or "-", m.new or "-"] for m in report.models]))
    if report.unsupported:
        sections.append(Section("Unsupported", ["version", "pointer", "keyword", "why"],
                                [[label, display(u.pointer), u.keyword, u.reason] for label, u in report.unsupported]))
    verdict = f"{'OK' if report.ok else 'FAILED'}: {held} of {len(report.checks)} checks hold"
    return HtmlPage(f"Compat report — {_title(report)}", report.ok, verdict, sections)
