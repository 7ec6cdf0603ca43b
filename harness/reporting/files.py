"""Report files: JSON (stable, documented structure), JUnit XML, Markdown, reproductions."""

from __future__ import annotations

import abc
import hashlib
import json
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from junit_xml import TestCase, TestSuite, to_xml_report_string

from harness import __version__
from harness.engine import (
    FAILED,
    FINDING,
    PASSED,
    CaseFinished,
    CaseResult,
    CaseSkipped,
    Event,
    RunFinished,
    Summary,
)
from harness.files import write_atomic

FORMAT_VERSION = 1


def problem_lines(r: CaseResult) -> list[str]:
    """A case that did not hold, for people: expectation, verdict, details, how to reproduce."""
    lines = [
        f"expected: {r.expected.describe()}",
        f"actual:   {r.code or 'accepted'}"
        + (f" at {r.instance_pointer or '/'}" if r.layer and r.instance_pointer is not None else ""),
        f"detail:   {r.detail}",
    ]
    if r.message:
        lines.append(f"message:  {r.message}")
    if r.operator:
        lines.append(f"mutation: {r.operator} at {r.pointer or '/'}: {r.original} -> {r.mutated}")
    if r.reproduce:
        lines.append(f"reproduce with: {r.reproduce}")
    return lines
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


class Collector:
    """Keeps every result and the summary; subclasses write them at the end."""

    def __init__(self) -> None:
        self.results: list[CaseResult] = []
        self.summary: Summary | None = None

    def handle(self, event: Event) -> None:
        if isinstance(event, CaseFinished):
            self.results.append(event.result)
        elif isinstance(event, RunFinished):
            self.summary = event.summary
            self.finish()

    def finish(self) -> None:  # pragma: no cover - overridden
        pass


# --------------------------------------------------------------------------- JSON


def json_report(results: list[CaseResult], summary: Summary, command: str = "check",
                extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON report: see docs/reports.md and harness/report.schema.json."""
    report = {
        "report": f"contract-harness/{command}",
        "format_version": FORMAT_VERSION,
        "harness_version": __version__,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "summary": summary.to_dict(),
        "cases": [r.to_dict() for r in results],
    }
    if extra:
        report.update(extra)
    return report


def dump_report(document: dict[str, Any]) -> str:
    """The JSON report as text: indented, with one case per line.

    ``json.dumps(..., indent=2)`` runs the pure-Python encoder, which costs more than the cases
    themselves on a large run; each case is encoded compactly (the C encoder) on its own line,
    which also keeps the file greppable by case id."""
    cases = document.get("cases")
    if not isinstance(cases, list) or not cases:
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    placeholder = "\u0000cases\u0000"
    head = json.dumps({**document, "cases": placeholder}, indent=2, ensure_ascii=False)
    lines = ",\n".join("    " + json.dumps(case, ensure_ascii=False, separators=(", ", ": ")) for case in cases)
    marker = json.dumps(placeholder)
    if head.count(marker) != 1:  # the marker text elsewhere in the document: no shortcut
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return head.replace(marker, "[\n" + lines + "\n  ]") + "\n"


class FileReporter(Collector, abc.ABC):
    """Renders the whole run into one file when it finishes, written atomically."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)

    @abc.abstractmethod
    def render(self) -> str:
        """The file's whole text."""

    def finish(self) -> None:
        assert self.summary is not None
        write_atomic(self.path, self.render().encode("utf-8"), what="report")


class JsonReporter(FileReporter):
    def __init__(self, path: str | Path, command: str = "check") -> None:
        super().__init__(path)
        self.command = command

    def document(self) -> dict[str, Any]:
        assert self.summary is not None
        return json_report(self.results, self.summary, self.command)

    def render(self) -> str:
        return dump_report(self.document())


# --------------------------------------------------------------------------- JUnit


def _properties(result: CaseResult) -> dict[str, str]:
    props = {
        "source": result.source,
        "expected": result.expected.describe(),
        "expected_layer": result.expected.layer.value if result.expected.layer else "accept",
        "actual_layer": result.column,
        "actual_code": result.code or "",
        "status": result.status,
    }
    if result.operator:
        props["operator"] = result.operator
    if result.pointer is not None:
        props["pointer"] = result.pointer or "/"
    if result.reproduce:
        props["reproduce"] = result.reproduce
    return props


def junit_xml(results: list[CaseResult], summary: Summary, suite_name: str = "contract-harness",
              case_properties: Callable[[CaseResult], dict[str, str]] | None = None,
              skipped: Sequence[CaseSkipped] = ()) -> str:
    """One testsuite per tool, one testcase per case (classname = tool); layer properties on
    each testcase (``case_properties`` adds a command's own) and per-layer counts on each suite.
    ``skipped`` cases (deliberately not run) are skipped testcases with their reason."""
    suites = []
    for tool in sorted({r.tool for r in results} | {s.tool for s in skipped}):
        cases = []
        for r in (r for r in results if r.tool == tool):
            case = TestCase(r.id.split("::", 1)[1], classname=tool, elapsed_sec=r.duration_s,
                            status=r.status)
            if r.status == FAILED:
                case.add_failure_info(message=f"{r.problem}: {r.detail}", output=_failure_text(r),
                                      failure_type=r.problem)
            elif r.status == FINDING:
                case.add_failure_info(message=f"finding ({r.problem}): {r.detail}",
                                      output=_failure_text(r), failure_type=f"finding.{r.problem}")
            cases.append(case)
        for s in (s for s in skipped if s.tool == tool):
            case = TestCase(s.id.split("::", 1)[1], classname=tool, status="skipped")
            case.add_skipped_info(message=s.reason)
            cases.append(case)
        counts = summary.tools[tool].columns if tool in summary.tools else {}
        properties = {f"rejected_by_{c}" if c != "accepted" else "accepted": str(counts.get(c, 0))
                      for c in Summary.columns()}
        suites.append(TestSuite(f"{suite_name}.{tool}", cases, properties=properties))
    text = to_xml_report_string(suites, encoding="utf-8")
    # junit-xml has no per-testcase properties; add them (the JUnit schema allows them).
    root = ET.fromstring(text)
    by_name = {(r.tool, r.id.split("::", 1)[1]): r for r in results}
    for suite in root.iter("testsuite"):
        for testcase in suite.iter("testcase"):
            result = by_name.get((testcase.get("classname", ""), testcase.get("name", "")))
            if result is None:
                continue
            props = ET.Element("properties")
            extra = case_properties(result) if case_properties is not None else {}
            for name, value in {**_properties(result), **extra}.items():
                ET.SubElement(props, "property", name=name, value=value)
            testcase.insert(0, props)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


def _failure_text(r: CaseResult) -> str:
    return "\n".join(problem_lines(r))


class JUnitReporter(FileReporter):
    def render(self) -> str:
        assert self.summary is not None
        return junit_xml(self.results, self.summary)


# --------------------------------------------------------------------------- Markdown


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_BACKTICKS = re.compile(r"`+")


def code_span(text: str, *, cell: bool = True) -> str:
    """``text`` as one Markdown code span, whatever it holds: fenced by one backtick more than its
    longest run of backticks (CommonMark), on one line, pipes escaped in a table ``cell``."""
    text = text.replace("\r", " ").replace("\n", " ")
    if cell:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown(results: list[CaseResult], summary: Summary, title: str = "Contract harness") -> str:
    """A report for a CI job summary: verdict line, tools x layers table, problems."""
    failed = summary.count(FAILED)
    findings = summary.count(FINDING)
    verdict = "all held" if summary.ok else f"{failed} failed, {findings} findings"
    lines = [f"## {title}: {summary.total} cases, {len(summary.tools)} tools — {verdict}", ""]
    columns = Summary.columns()
    lines.append("| tool | cases | " + " | ".join(columns) + " | failed | findings |")
    lines.append("|---|---:|" + "---:|" * len(columns) + "---:|---:|")
    for name, tool in sorted(summary.tools.items()):
        counts = " | ".join(str(tool.columns.get(c, 0)) for c in columns)
        lines.append(f"| {name} | {tool.total} | {counts} | {tool.statuses.get(FAILED, 0)} | "
                     f"{tool.statuses.get(FINDING, 0)} |")
    lines.append("")
    lines.append("Each layer column counts the cases that layer rejected; `accepted` counts cases "
                 "that passed every layer.")
    problems = [r for r in results if r.status != PASSED]
    if problems:
        lines += ["", "### Cases that did not hold", "",
                  "| case | status | expected | actual | pointer | detail |", "|---|---|---|---|---|---|"]
        for r in problems[:200]:
            lines.append(
                f"| {code_span(r.id)} | {r.status} ({r.problem}) | {_cell(r.expected.describe())} | "
                f"{_cell(r.code or 'accepted')} | {code_span(r.instance_pointer or '/') if r.layer else '`-`'} | "
                f"{_cell(r.detail)} |"
            )
        if len(problems) > 200:
            lines.append(f"| … | {len(problems) - 200} more in the JSON report | | | | |")
        repro = [r for r in problems if r.reproduce][:20]
        if repro:
            lines += ["", "<details><summary>Reproduce</summary>", "", "```sh"]
            lines += [r.reproduce or "" for r in repro]
            lines += ["```", "", "</details>"]
    if summary.notes:
        lines += ["", "### Notes", ""] + [f"- {_cell(n)}" for n in summary.notes]
    return "\n".join(lines) + "\n"


class MarkdownReporter(FileReporter):
    def render(self) -> str:
        assert self.summary is not None
        return markdown(self.results, self.summary)


# --------------------------------------------------------------------------- reproductions


def slug(case_id: str) -> str:
    digest = hashlib.sha256(case_id.encode()).hexdigest()[:8]
    return f"{_SLUG.sub('_', case_id)[:100].strip('_')}-{digest}"


def write_reproduction(result: CaseResult, directory: Path) -> CaseResult:
    """Write a failing case's payload and request; return it with a ``reproduce`` command."""
    if result.payload is None:
        return result
    base = directory / result.tool / slug(result.id)
    payload, request = base.with_suffix(".json"), base.with_suffix(".request.json")
    write_atomic(payload, result.payload)
    if result.request is not None:
        write_atomic(request, (json.dumps(result.request, indent=2) + "\n").encode())
    argv = ["contract-harness", "verify", result.contract_dir, str(payload)]
    if result.request is not None:
        argv += ["--request", str(request)]
    if result.now:
        argv += ["--now", result.now]
    argv += ["--version", str(result.version)]
    return replace(result, reproduce=shlex.join(argv))
