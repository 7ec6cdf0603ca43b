"""Report files: JSON (stable, documented structure), JUnit XML, Markdown, reproductions.

Each file reporter folds every event in as it comes (:meth:`FileReporter.case`) and keeps only
what its format still needs — the JSON reporter one encoded line per case, the JUnit reporter one
testcase, the Markdown reporter the cases that did not hold — then writes the file once,
atomically, when the run finishes. A :class:`~harness.reporting.Contributor` adds what its kind
of run has (drift, fuzz).
"""

from __future__ import annotations

import abc
import hashlib
import json
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Sequence
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
from harness.reporting import Contributor

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


class FileReporter(abc.ABC):
    """One report file: each case folded in as it comes, the file written atomically at the end."""

    def __init__(self, path: str | Path, *, contributor: Contributor | None = None) -> None:
        self.path = Path(path)
        self.contributor = contributor or Contributor()

    def handle(self, event: Event) -> None:
        self.contributor.handle(event)
        if isinstance(event, CaseFinished):
            self.case(event.result)
        elif isinstance(event, CaseSkipped):
            self.skipped(event)
        elif isinstance(event, RunFinished):
            write_atomic(self.path, self.render(event.summary).encode("utf-8"), what="report")

    @abc.abstractmethod
    def case(self, result: CaseResult) -> None:
        """Fold one finished case in."""

    def skipped(self, event: CaseSkipped) -> None:  # noqa: B027 - most formats do not list them
        """A case deliberately not run."""

    @abc.abstractmethod
    def render(self, summary: Summary) -> str:
        """The file's whole text."""


# --------------------------------------------------------------------------- JSON


def json_report(results: Sequence[CaseResult], summary: Summary, command: str = "check",
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


def case_line(case: dict[str, Any]) -> str:
    """One case of the JSON report, as its line of the file: compact (the C encoder: the
    pure-Python indenting encoder costs more than the cases on a large run), indented."""
    return "    " + json.dumps(case, ensure_ascii=False, separators=(", ", ": "))


_PLACEHOLDER = "\u0000cases\u0000"


def assemble(document: dict[str, Any], lines: Sequence[str]) -> str:
    """The JSON report's text: ``document`` indented, its ``cases`` the given lines, one case per
    line (which also keeps the file greppable by case id)."""
    head = json.dumps({**document, "cases": _PLACEHOLDER}, indent=2, ensure_ascii=False)
    marker = json.dumps(_PLACEHOLDER)
    if not lines or head.count(marker) != 1:  # no case, or the marker text elsewhere: no shortcut
        cases = [json.loads(line) for line in lines]
        return json.dumps({**document, "cases": cases}, indent=2, ensure_ascii=False) + "\n"
    return head.replace(marker, "[\n" + ",\n".join(lines) + "\n  ]") + "\n"


def dump_report(document: dict[str, Any]) -> str:
    """The JSON report as text: indented, with one case per line."""
    cases = document.get("cases")
    if not isinstance(cases, list):
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return assemble(document, [case_line(case) for case in cases])


class JsonReporter(FileReporter):
    """The JSON report; each case is encoded when it finishes, the document around them at the end."""

    def __init__(self, path: str | Path, command: str | None = None, *,
                 contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.command = command or self.contributor.command
        self.lines: list[str] = []

    def case(self, result: CaseResult) -> None:
        self.lines.append(case_line(self.contributor.json_case(result, result.to_dict())))

    def render(self, summary: Summary) -> str:
        return assemble(json_report([], summary, self.command, self.contributor.json_members(summary)), self.lines)


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


def _failure_text(r: CaseResult) -> str:
    return "\n".join(problem_lines(r))


def junit_case(result: CaseResult) -> TestCase:
    """One case as a JUnit testcase (classname = the tool; failures and findings as failures)."""
    case = TestCase(result.id.split("::", 1)[1], classname=result.tool, elapsed_sec=result.duration_s,
                    status=result.status)
    if result.status == FAILED:
        case.add_failure_info(message=f"{result.problem}: {result.detail}", output=_failure_text(result),
                              failure_type=result.problem)
    elif result.status == FINDING:
        case.add_failure_info(message=f"finding ({result.problem}): {result.detail}",
                              output=_failure_text(result), failure_type=f"finding.{result.problem}")
    return case


def skipped_case(skipped: CaseSkipped) -> TestCase:
    """A case deliberately not run, as a skipped testcase with the reason."""
    case = TestCase(skipped.id.split("::", 1)[1], classname=skipped.tool, status="skipped")
    case.add_skipped_info(message=skipped.reason)
    return case


class JUnitReporter(FileReporter):
    """One testsuite per tool (``<suite>.<tool>``), one testcase per case with its layer
    properties (a contributor adds its own), per-layer counts on each suite; cases deliberately
    not run are skipped testcases with their reason."""

    def __init__(self, path: str | Path, *, contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.cases: dict[str, list[TestCase]] = {}
        self.skips: dict[str, list[TestCase]] = {}
        self.properties: dict[tuple[str, str], tuple[str, dict[str, str]]] = {}

    def case(self, result: CaseResult) -> None:
        testcase = junit_case(result)
        self.cases.setdefault(result.tool, []).append(testcase)
        self.properties[(result.tool, testcase.name)] = (result.id, _properties(result))

    def skipped(self, event: CaseSkipped) -> None:
        self.skips.setdefault(event.tool, []).append(skipped_case(event))

    def render(self, summary: Summary) -> str:
        suites = []
        for tool in sorted(set(self.cases) | set(self.skips)):
            counts = summary.tools[tool].columns if tool in summary.tools else {}
            properties = {f"rejected_by_{c}" if c != "accepted" else "accepted": str(counts.get(c, 0))
                          for c in Summary.columns()}
            suites.append(TestSuite(f"{self.contributor.junit_suite}.{tool}",
                                    self.cases.get(tool, []) + self.skips.get(tool, []), properties=properties))
        text = to_xml_report_string(suites, encoding="utf-8")
        # junit-xml has no per-testcase properties; add them (the JUnit schema allows them).
        root = ET.fromstring(text)
        for suite in root.iter("testsuite"):
            for testcase in suite.iter("testcase"):
                found = self.properties.get((testcase.get("classname", ""), testcase.get("name", "")))
                if found is None:
                    continue
                case_id, standard = found
                props = ET.Element("properties")
                for name, value in {**standard, **self.contributor.junit_properties(case_id)}.items():
                    ET.SubElement(props, "property", name=name, value=value)
                testcase.insert(0, props)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


# --------------------------------------------------------------------------- Markdown


def md_cell(text: str) -> str:
    """``text`` for a Markdown table cell: pipes escaped, on one line."""
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


_MAX_MARKDOWN_PROBLEMS = 200


def layer_table_markdown(summary: Summary) -> list[str]:
    """The tools x layers table as Markdown."""
    header, rows = summary.table()
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def markdown(results: Sequence[CaseResult], summary: Summary, title: str = "Contract harness",
             contributor: Contributor | None = None) -> str:
    """A report for a CI job summary: verdict line, tools x layers table, the contributor's
    sections, the cases that did not hold (``results`` need hold only those), notes."""
    contributor = contributor or Contributor()
    failed = summary.count(FAILED)
    findings = summary.count(FINDING)
    verdict = contributor.heading(summary) or (
        f"{summary.total} cases, {len(summary.tools)} tools — "
        + ("all held" if summary.ok else f"{failed} failed, {findings} findings"))
    lines = [f"## {title}: {verdict}", "", *layer_table_markdown(summary), ""]
    lines.append(contributor.table_note)
    sections = contributor.markdown_sections()
    if sections:
        lines += ["", *sections]
    problems = [r for r in results if r.status != PASSED]
    custom = contributor.markdown_problems(problems) if problems else None
    if custom is not None:
        lines += ["", *custom]
    elif problems:
        lines += ["", "### Cases that did not hold", "",
                  "| case | status | expected | actual | pointer | detail |", "|---|---|---|---|---|---|"]
        for r in problems[:_MAX_MARKDOWN_PROBLEMS]:
            lines.append(
                f"| {code_span(r.id)} | {r.status} ({r.problem}) | {md_cell(r.expected.describe())} | "
                f"{md_cell(r.code or 'accepted')} | {code_span(r.instance_pointer or '/') if r.layer else '`-`'} | "
                f"{md_cell(r.detail)} |"
            )
        if len(problems) > _MAX_MARKDOWN_PROBLEMS:
            lines.append(f"| … | {len(problems) - _MAX_MARKDOWN_PROBLEMS} more in the JSON report | | | | |")
        repro = [r for r in problems if r.reproduce][:20]
        if repro:
            lines += ["", "<details><summary>Reproduce</summary>", "", "```sh"]
            lines += [r.reproduce or "" for r in repro]
            lines += ["```", "", "</details>"]
    if summary.notes:
        lines += ["", "### Notes", ""] + [f"- {md_cell(n)}" for n in summary.notes]
    return "\n".join(lines) + "\n"


class MarkdownReporter(FileReporter):
    """The Markdown report; keeps only the cases that did not hold."""

    def __init__(self, path: str | Path, *, contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.problems: list[CaseResult] = []

    def case(self, result: CaseResult) -> None:
        if result.status != PASSED:
            self.problems.append(result)

    def render(self, summary: Summary) -> str:
        return markdown(self.problems, summary, self.contributor.title, self.contributor)


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
    if result.shape == "contract":
        argv += ["--shape", "contract"]
    return replace(result, reproduce=shlex.join(argv))
