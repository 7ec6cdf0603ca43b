"""Report files: JSON (stable, documented structure), JUnit XML, Markdown, reproductions.

Each file reporter folds every event in as it comes (:meth:`FileReporter.case`) and keeps in
memory only what does not grow with the run: the JSON and JUnit reporters write each case, encoded
as it finishes, to a spool file (anonymous, beside the target), the Markdown reporter keeps the
cases it will show. When the run finishes the file is written once, atomically
(:class:`~harness.files.AtomicWriter`): what only the end knows (the summary, the per-tool
counts) first, then the spooled cases copied after it. A run cut short leaves no report at the
target path, and memory stays flat in the number of cases. A
:class:`~harness.reporting.Contributor` adds what its kind of run has (drift, fuzz).
"""

from __future__ import annotations

import abc
import hashlib
import json
import re
import shlex
import tempfile
import xml.etree.ElementTree as ET
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from harness.errors import printable_path
from harness.events import FAILED, FINDING, PASSED, CaseFinished, CaseResult, CaseSkipped, Event, RunFinished, Summary
from harness.files import AtomicWriter, OutputError, write_atomic
from harness.markdown import code_span
from harness.reporting.base import Contributor
from harness.version import __version__

if TYPE_CHECKING:  # junit-xml is imported by the JUnit report alone, when it writes a case
    from junit_xml import TestCase

FORMAT_VERSION = 1


def problem_lines(r: CaseResult) -> list[str]:
    """A case that did not hold, for people: expectation, verdict, details, how to reproduce."""
    if r.problem == "version_changed":  # no payload: a schema file and its record
        return [f"file:     {r.fixture}", f"detail:   {r.detail}", f"reproduce with: {r.reproduce}"]
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
    if r.fix:
        lines.append(f"fix:      {r.fix}")
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
            try:
                with AtomicWriter(self.path, what="report") as out:
                    self.write(out, event.summary)
            finally:
                self.close()

    @abc.abstractmethod
    def case(self, result: CaseResult) -> None:
        """Fold one finished case in."""

    def skipped(self, event: CaseSkipped) -> None:  # noqa: B027 - most formats do not list them
        """A case deliberately not run."""

    @abc.abstractmethod
    def write(self, out: AtomicWriter, summary: Summary) -> None:
        """Write the whole file to ``out``."""

    def close(self) -> None:  # noqa: B027 - only spooling formats hold anything
        """Release what the reporter holds (spool files); called once the file is written."""


class TextFileReporter(FileReporter):
    """A report whose whole text is rendered at the end (Markdown, HTML); the spooling formats
    (JSON, JUnit) write their cases instead."""

    @abc.abstractmethod
    def render(self, summary: Summary) -> str:
        """The file's whole text."""

    def write(self, out: AtomicWriter, summary: Summary) -> None:
        out.write(self.render(summary).encode("utf-8"))


class Spool:
    """Encoded cases on their way to a report: an anonymous temporary file (beside the report,
    removed by the system when closed or when the process ends, however it ends) written in
    order and read back in pieces."""

    _CHUNK = 1 << 20

    def __init__(self, report: Path) -> None:
        try:
            report.parent.mkdir(parents=True, exist_ok=True)
            # Closed by close(), or by the system with the process: it has no name to leave behind.
            self._file: IO[bytes] = tempfile.TemporaryFile(dir=report.parent, prefix=".spool.")  # noqa: SIM115
        except OSError as exc:  # named by the report the user gave, not the spool's or a folder's name
            raise OutputError(f"cannot write report {printable_path(report)}: {exc.strerror or type(exc).__name__}",
                              errno_=exc.errno) from None
        self.size = 0

    def append(self, data: bytes) -> tuple[int, int]:
        """Add ``data``; its (offset, length) in the spool."""
        offset = self.size
        self._file.write(data)
        self.size += len(data)
        return offset, len(data)

    def read(self, offset: int, length: int) -> bytes:
        self._file.seek(offset)
        data = self._file.read(length)
        self._file.seek(0, 2)
        return data

    def copy_to(self, out: AtomicWriter) -> None:
        """Everything spooled, in order."""
        self._file.flush()
        self._file.seek(0)
        while chunk := self._file.read(self._CHUNK):
            out.write(chunk)
        self._file.seek(0, 2)

    def close(self) -> None:
        self._file.close()


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


#: ``json.dumps(..., ensure_ascii=False, separators=(", ", ": "))`` without an encoder made per case.
_LINE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def case_line(case: dict[str, Any]) -> str:
    """One case of the JSON report, as its line of the file: compact (the C encoder: the
    pure-Python indenting encoder costs more than the cases on a large run), indented."""
    return "    " + _LINE(case)


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
    """The JSON report; each case is encoded when it finishes and spooled, the document around
    them written at the end with the spooled cases copied in: the same bytes as
    :func:`dump_report` of :func:`json_report`, in memory flat in the number of cases."""

    def __init__(self, path: str | Path, command: str | None = None, *,
                 contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.command = command or self.contributor.command
        self.count = 0
        self._spool: Spool | None = None

    def case(self, result: CaseResult) -> None:
        if self._spool is None:
            self._spool = Spool(self.path)
        line = case_line(self.contributor.json_case(result, result.to_dict()))
        self._spool.append(((",\n" if self.count else "") + line).encode("utf-8"))
        self.count += 1

    def write(self, out: AtomicWriter, summary: Summary) -> None:
        document = json_report([], summary, self.command, self.contributor.json_members(summary))
        marker = json.dumps(_PLACEHOLDER)
        head = json.dumps({**document, "cases": _PLACEHOLDER}, indent=2, ensure_ascii=False)
        if self._spool is None or head.count(marker) != 1:
            # No case, or the marker text elsewhere in the document: the slow, exact way.
            lines = self._spool_lines()
            out.write(assemble(document, lines).encode("utf-8"))
            return
        before, after = head.split(marker)
        out.write((before + "[\n").encode("utf-8"))
        self._spool.copy_to(out)
        out.write(("\n  ]" + after + "\n").encode("utf-8"))

    def _spool_lines(self) -> list[str]:
        if self._spool is None:
            return []
        text = self._spool.read(0, self._spool.size).decode("utf-8")
        return text.split(",\n") if text else []  # a line never holds a newline

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None


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
    from junit_xml import TestCase

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
    from junit_xml import TestCase

    case = TestCase(skipped.id.split("::", 1)[1], classname=skipped.tool, status="skipped")
    case.add_skipped_info(message=skipped.reason)
    return case


_ATTRIBUTE_SPACE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
#: The characters a JUnit report leaves out, as junit-xml's documents leave them out: C0 and C1
#: controls but tab and line feed, surrogates, and the noncharacters.
_ILLEGAL_XML = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x84), (0x86, 0x9F), (0xD800, 0xDFFF), (0xFDD0, 0xFDDF),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)))) + "]")


def legal_xml(text: str) -> str:
    """``text`` without the characters XML 1.0 does not allow (see :data:`_ILLEGAL_XML`)."""
    return _ILLEGAL_XML.sub("", text)


def _as_reparsed(element: ET.Element) -> None:
    """What an XML parser makes of ``element`` once written and read back — how the report was
    built before it was streamed (junit-xml's document parsed to add properties): line breaks
    and tabs in attribute values become spaces, a carriage return in text a line feed."""
    for node in element.iter():
        for name, value in node.attrib.items():
            node.set(name, value.translate(_ATTRIBUTE_SPACE))
        if node.text and "\r" in node.text:
            node.text = node.text.replace("\r\n", "\n").replace("\r", "\n")


def testcase_xml(testcase: TestCase, properties: dict[str, str]) -> str:
    """One ``<testcase>`` element as junit-xml builds it, with ``properties`` as its first
    child (junit-xml has no per-testcase properties; the JUnit schema allows them), laid out as
    junit-xml's pretty-printed document lays it out one level down, illegal XML characters
    removed (:func:`legal_xml`)."""
    import junit_xml

    element = junit_xml.TestSuite("", [testcase]).build_xml_doc().find("testcase")
    assert element is not None
    children = list(element)
    if children:  # each child (failure, skipped) on its own line, indented
        element.text = "\n\t\t\t"
        for child in children:
            child.tail = "\n\t\t\t"
        children[-1].tail = "\n\t\t"
    _as_reparsed(element)  # the properties were added after the document was read back
    if properties:
        props = ET.Element("properties")
        for name, value in properties.items():
            ET.SubElement(props, "property", name=name, value=value)
        element.insert(0, props)
    return legal_xml(ET.tostring(element, encoding="unicode"))


@dataclass
class _Suite:
    """What a testsuite's element needs, counted as its cases arrive, and where they are spooled."""

    tests: int = 0
    failures: int = 0
    skipped: int = 0
    time: float = 0  # as junit-xml sums it (from the int 0): "0" for a suite of untimed cases
    cases: array[int] = field(default_factory=lambda: array("q"))
    skips: array[int] = field(default_factory=lambda: array("q"))

    def attributes(self, name: str) -> dict[str, str]:
        return {"disabled": "0", "errors": "0", "failures": str(self.failures), "name": name,
                "skipped": str(self.skipped), "tests": str(self.tests), "time": str(self.time)}


def _open_tag(tag: str, attributes: dict[str, str]) -> str:
    return ET.tostring(ET.Element(tag, attributes), encoding="unicode").removesuffix(" />")


class JUnitReporter(FileReporter):
    """One testsuite per tool (``<suite>.<tool>``), one testcase per case with its layer
    properties (a contributor adds its own), per-layer counts on each suite; cases deliberately
    not run are skipped testcases with their reason.

    Each testcase is serialised when its case finishes and spooled; only per-tool counts and
    spool offsets stay in memory. A contributor that adds testcase properties is asked when the
    file is written (fuzz's statistics are known only then): its testcases keep their ids."""

    def __init__(self, path: str | Path, *, contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.suites: dict[str, _Suite] = {}
        self._spool: Spool | None = None
        # Only a contributor that adds properties needs the case ids at the end.
        self._late = type(self.contributor).junit_properties is not Contributor.junit_properties
        self._ids: dict[int, str] = {}

    def _add(self, tool: str, text: str, spans: str, case_id: str | None) -> _Suite:
        if self._spool is None:
            self._spool = Spool(self.path)
        suite = self.suites.setdefault(tool, _Suite())
        offset, length = self._spool.append(text.encode("utf-8"))
        getattr(suite, spans).extend((offset, length))
        if case_id is not None and self._late:
            self._ids[offset] = case_id
        suite.tests += 1
        return suite

    def case(self, result: CaseResult) -> None:
        testcase = junit_case(result)
        suite = self._add(result.tool, testcase_xml(testcase, _properties(result)), "cases", result.id)
        suite.failures += bool(testcase.is_failure())
        if testcase.elapsed_sec:
            suite.time += testcase.elapsed_sec

    def skipped(self, event: CaseSkipped) -> None:
        suite = self._add(event.tool, testcase_xml(skipped_case(event), {}), "skips", None)
        suite.skipped += 1

    def _testcase(self, offset: int, length: int) -> bytes:
        assert self._spool is not None
        data = self._spool.read(offset, length)
        extra = self.contributor.junit_properties(self._ids[offset]) if offset in self._ids else {}
        if not extra:
            return data
        element = ET.fromstring(data)
        props = element.find("properties")
        if props is None:
            props = ET.Element("properties")
            element.insert(0, props)
        for name, value in extra.items():
            found = next((p for p in props if p.get("name") == name), None)
            if found is None:
                ET.SubElement(props, "property", name=name, value=value)
            else:
                found.set("value", value)
        return legal_xml(ET.tostring(element, encoding="unicode")).encode("utf-8")

    def write(self, out: AtomicWriter, summary: Summary) -> None:
        tools = sorted(self.suites)
        total = {"disabled": 0, "errors": 0, "failures": sum(self.suites[t].failures for t in tools),
                 "tests": sum(self.suites[t].tests for t in tools)}
        # As junit-xml sums them: each suite's time as its text, read back.
        elapsed = sum(float(str(self.suites[t].time)) for t in tools)
        root = {**{k: str(v) for k, v in total.items()}, "time": str(float(elapsed) if tools else 0)}
        out.write(('<?xml version="1.0" encoding="utf-8"?>\n' + _open_tag("testsuites", root if tools else {})
                   + (">\n" if tools else " />")).encode("utf-8"))
        for tool in tools:
            suite = self.suites[tool]
            counts = summary.tools[tool].columns if tool in summary.tools else {}
            head = [_open_tag("testsuite", suite.attributes(f"{self.contributor.junit_suite}.{tool}")) + ">",
                    "\t\t<properties>"]
            for column in Summary.columns():
                name = f"rejected_by_{column}" if column != "accepted" else "accepted"
                head.append("\t\t\t" + ET.tostring(ET.Element("property", name=name, value=str(counts.get(column, 0))),
                                                    encoding="unicode"))
            head.append("\t\t</properties>")
            out.write(("\t" + "\n".join(head) + "\n").encode("utf-8"))
            for spans in (suite.cases, suite.skips):
                for i in range(0, len(spans), 2):
                    out.write(b"\t\t" + self._testcase(spans[i], spans[i + 1]) + b"\n")
            out.write(b"\t</testsuite>\n")
        if tools:
            out.write(b"</testsuites>")  # no newline at the end, as junit-xml writes it

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None


# --------------------------------------------------------------------------- Markdown


def md_cell(text: str) -> str:
    """``text`` for a Markdown table cell, on one line: pipes escaped, and what would make HTML or
    a link of it (``<``, ``>``, ``&``, ``[``, ``]``, and ``\\`` so that none of those escapes is
    undone) backslash-escaped, as CommonMark allows: an upstream's value stays text."""
    return _IN_CELL.sub(r"\\\g<0>", text.replace("\r", " ").replace("\n", " "))


def md_text(text: str) -> str:
    """``text`` as literal Markdown text on one line (a list item): every ASCII punctuation
    character backslash-escaped, so that nothing in it — a fixture's name — becomes HTML, a
    link, an image, an autolink (``www.x`` and ``http://x`` are none once ``.`` and ``:`` are
    escaped), emphasis or a heading in a job summary."""
    return _PUNCTUATION.sub(r"\\\g<0>", text.replace("\r", " ").replace("\n", " "))


_IN_CELL = re.compile(r"[\\|<>&\[\]]")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")


_MAX_MARKDOWN_PROBLEMS = 200
_MAX_REPRODUCE = 20


def layer_table_markdown(summary: Summary) -> list[str]:
    """The tools x layers table as Markdown."""
    header, rows = summary.table()
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def markdown(results: Sequence[CaseResult], summary: Summary, title: str = "Contract harness",
             contributor: Contributor | None = None, *, more: int = 0,
             reproducible: Sequence[CaseResult] | None = None) -> str:
    """A report for a CI job summary: verdict line, tools x layers table, the contributor's
    sections, the cases that did not hold (``results`` need hold only those, and only the first
    ones shown: ``more`` says how many others there were), notes. ``reproducible``: the cases
    whose reproduce commands are listed (default: those among ``results``)."""
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
        hidden = len(problems) - len(problems[:_MAX_MARKDOWN_PROBLEMS]) + more
        if hidden:
            lines.append(f"| … | {hidden} more in the JSON report | | | | |")
        repro = [r for r in (problems if reproducible is None else reproducible) if r.reproduce][:_MAX_REPRODUCE]
        if repro:
            lines += ["", "<details><summary>Reproduce</summary>", "", "```sh"]
            lines += [r.reproduce or "" for r in repro]
            lines += ["```", "", "</details>"]
    if summary.notes:
        lines += ["", "### Notes", ""] + [f"- {md_text(n)}" for n in summary.notes]
    return "\n".join(lines) + "\n"


class MarkdownReporter(TextFileReporter):
    """The Markdown report; keeps only the cases it shows: the first cases that did not hold
    (all of them for a contributor that writes its own list of problems) and the first ones with
    a reproduce command, and counts the others."""

    def __init__(self, path: str | Path, *, contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.problems: list[CaseResult] = []
        self.more = 0
        self.reproducible: list[CaseResult] = []
        self._keep_all = type(self.contributor).markdown_problems is not Contributor.markdown_problems

    def case(self, result: CaseResult) -> None:
        if result.status == PASSED:
            return
        if self._keep_all or len(self.problems) < _MAX_MARKDOWN_PROBLEMS:
            self.problems.append(result)
        else:
            self.more += 1
        if result.reproduce and len(self.reproducible) < _MAX_REPRODUCE:
            self.reproducible.append(result)

    def render(self, summary: Summary) -> str:
        return markdown(self.problems, summary, self.contributor.title, self.contributor, more=self.more,
                        reproducible=self.reproducible)


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
