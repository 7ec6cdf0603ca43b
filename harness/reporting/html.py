"""The HTML report: one self-contained file (no network, no external assets).

A matrix of tools x case kinds (fixture sources and mutation operators), each cell coloured by
the layer that rejected its cases; clicking a cell opens the cases behind it (payload excerpt,
expected and actual layer, message, reproduce command). Other commands add their own sections
through ``sections`` (drift), or make a page of their own with the same shell (fuzz's
properties, :func:`page_head` and :func:`section_tables`); ``compat``, which has no cases, uses
:func:`sections_page`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from harness.codes import LAYER_ORDER
from harness.events import FAILED, FINDING, CaseResult, Section, Summary
from harness.reporting.base import Contributor
from harness.reporting.files import TextFileReporter
from harness.version import __version__

#: One colour per layer (and for accepted cases); chosen to be distinguishable.
LAYER_COLOURS = {
    "transport": "#8e6c8a",
    "parse": "#b5651d",
    "schema": "#2b6cb0",
    "adapter": "#6b8e23",
    "binding": "#d53f8c",
    "freshness": "#2c7a7b",
    "projection": "#6b46c1",
    "accepted": "#718096",
}
FIXTURE_COLUMNS = ("accepted", "rejected", "historical")


def _case(r: CaseResult) -> dict[str, Any]:
    return {
        "id": r.id,
        "status": r.status,
        "problem": r.problem,
        "expected": r.expected.describe(),
        "actual": r.code or "accepted",
        "layer": r.column,
        "pointer": r.instance_pointer if r.layer else None,
        "message": r.message,
        "detail": r.detail,
        "mutation": f"{r.operator} at {r.pointer or '/'}: {r.original} -> {r.mutated}" if r.operator else None,
        "excerpt": r.excerpt,
        "reproduce": r.reproduce,
    }


class Matrix:
    """Tools x case kinds, filled one case at a time: rows (tools), columns (fixture kinds, other
    sources such as drift, then operators in first-seen order), and each cell's cases."""

    def __init__(self) -> None:
        self.operators: list[str] = []
        self.sources: list[str] = []
        self.cells: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def add(self, result: CaseResult) -> None:
        if result.operator:
            if result.operator not in self.operators:
                self.operators.append(result.operator)
        elif result.source not in self.sources:
            self.sources.append(result.source)
        self.cells.setdefault(result.tool, {}).setdefault(result.operator or result.source, []).append(_case(result))

    def to_dict(self) -> dict[str, Any]:
        sources = [c for c in FIXTURE_COLUMNS if c in self.sources]
        sources += [s for s in self.sources if s not in sources]
        tools = sorted(self.cells)
        return {"tools": tools, "columns": sources + self.operators, "cells": {t: self.cells[t] for t in tools}}


def matrix(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The matrix of ``results`` (see :class:`Matrix`)."""
    grid = Matrix()
    for result in results:
        grid.add(result)
    return grid.to_dict()


def _asset(name: str) -> str:
    return resources.files("harness.reporting").joinpath("assets", name).read_text(encoding="utf-8")



def _dominant(cases: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for c in cases:
        counts[c["layer"]] = counts.get(c["layer"], 0) + 1
    return max(counts, key=lambda k: counts[k])


def page_head(title: str, verdict: str, generated_at: str, *, script: bool = True) -> list[str]:
    """The document head (inline CSS; a CSP that forbids every fetch), the title and the verdict
    line. ``verdict`` is markup built by the caller from escaped text."""
    esc = html.escape
    scripts = "script-src 'unsafe-inline'" if script else "script-src 'none'"
    return [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        f"style-src 'unsafe-inline'; {scripts}; img-src data:\">",
        f"<title>{esc(title)}</title><style>{_asset('report.css')}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f"<div>{verdict} · tool-contract-harness {esc(__version__)}"
        + (f" · {esc(generated_at)}" if generated_at else "") + "</div>",
    ]


def section_tables(sections: Sequence[Section]) -> list[str]:
    esc = html.escape
    out = []
    for section in sections:
        out.append(f"<h2>{esc(section.title)}</h2>")
        if section.note:
            out.append(f"<p>{esc(section.note)}</p>")
        head = "".join(f"<th>{esc(h)}</th>" for h in section.header)
        out.append(f"<table><thead><tr>{head}</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in row) + "</tr>" for row in section.rows]
        out.append("</tbody></table>")
    return out


def sections_page(title: str, *, ok: bool, verdict: str, sections: Sequence[Section], generated_at: str = "") -> str:
    """A report without cases (``compat``): the same page shell, a verdict and tables only; no
    script at all."""
    badge = f'<span class="verdict {"ok" if ok else "bad"}">{html.escape(verdict)}</span>'
    return "\n".join(page_head(title, badge, generated_at, script=False) + section_tables(sections)
                     + ["</body></html>"]) + "\n"


def render(
    results: Sequence[CaseResult] | Matrix,
    summary: Summary,
    *,
    title: str = "Contract harness report",
    sections: Sequence[Section] = (),
    generated_at: str = "",
) -> str:
    """The whole report as one HTML document (of ``results``, or of a matrix already filled)."""
    esc = html.escape
    grid = results.to_dict() if isinstance(results, Matrix) else matrix(results)
    failed, findings = summary.count(FAILED), summary.count(FINDING)
    verdict = (
        f'<span class="verdict ok">all {summary.total} cases held</span>' if summary.ok
        else f'<span class="verdict bad">{failed} failed, {findings} findings</span> of {summary.total} cases'
    )
    out = [
        *page_head(title, verdict, generated_at),
        "<h2>Cases by rejecting layer</h2>",
    ]
    header, rows = summary.table()
    out.append('<table class="summary"><thead><tr>' + "".join(f"<th>{esc(h)}</th>" for h in header)
               + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows]
    out.append("</tbody></table>")
    out.append("<h2>Tools &times; case kinds</h2>")
    out.append('<div class="legend">' + "".join(
        f'<span><i style="background:{LAYER_COLOURS[c]}"></i>{esc(c)}</span>'
        for c in [layer.value for layer in LAYER_ORDER] + ["accepted"]
    ) + '<span><i style="outline:2px solid #e53e3e"></i>not held</span></div>')
    out.append('<p>Each cell is coloured by the layer that rejected most of its cases; the number '
               'is how many cases it holds. Click a cell to see them.</p>')
    out.append('<table class="matrix" id="matrix"><thead><tr><th>tool</th>')
    out += [f'<th class="col">{esc(c)}</th>' for c in grid["columns"]]
    out.append("</tr></thead><tbody>")
    for tool in grid["tools"]:
        out.append(f"<tr><td>{esc(tool)}</td>")
        for column in grid["columns"]:
            cases = grid["cells"][tool].get(column)
            if not cases:
                out.append('<td class="cell empty"></td>')
                continue
            problem = any(c["status"] != "passed" for c in cases)
            colour = LAYER_COLOURS.get(_dominant(cases), "#000")
            out.append(
                f'<td class="cell{" problem" if problem else ""}" style="background:{colour}" '
                f'data-tool="{esc(tool)}" data-column="{esc(column)}" '
                f'title="{esc(tool)} · {esc(column)}: {len(cases)} cases">{len(cases)}</td>'
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    out += section_tables(sections)
    payload = json.dumps({"matrix": grid, "colours": LAYER_COLOURS}, ensure_ascii=True)
    # Inside <script>, "</script" ends the element and "<!--" / "<script" change how the parser
    # reads it; with every <, > and & escaped, case text cannot touch the markup at all.
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    out += [
        '<aside id="panel" role="dialog" aria-labelledby="panel-title"><button id="close">close</button>'
        '<h3 id="panel-title"></h3><div id="panel-body"></div></aside>',
        f'<script type="application/json" id="report-data">{payload}</script>',
        f"<script>{_asset('report.js')}</script>",
        "</body></html>",
    ]
    return "\n".join(out) + "\n"


class HtmlReporter(TextFileReporter):
    """The HTML page; each case goes into the matrix as it finishes (a compact summary of it, for
    the panel), the contributor's sections after the matrix."""

    def __init__(self, path: str | Path, *, title: str | None = None, sections: Sequence[Section] = (),
                 generated_at: str = "", contributor: Contributor | None = None) -> None:
        super().__init__(path, contributor=contributor)
        self.title = title or f"{self.contributor.title} report"
        self.sections = list(sections)
        self.generated_at = generated_at
        self.matrix = Matrix()

    def case(self, result: CaseResult) -> None:
        self.matrix.add(result)

    def render(self, summary: Summary) -> str:
        page = self.contributor.html_page(summary, title=self.title, generated_at=self.generated_at)
        if page is not None:  # a run whose cases are not fixtures and mutants (fuzz's properties)
            return page
        return render(self.matrix, summary, title=self.title,
                      sections=[*self.sections, *self.contributor.html_sections()], generated_at=self.generated_at)
