"""What a fuzz run adds to the reports: :class:`FuzzContributor`.

Each property on each tool is one case of the harness's report formats (id
``<tool>::fuzz::<property>``, source ``fuzz``), so the JSON report keeps its structure and
schema; it gains a ``fuzz`` section with the profile, the per-property outcomes and the
generator statistics of each tool (generated, discarded as invalid, unique, boundary values).
In a fuzz report, ``summary.tools.<tool>.by_layer`` counts the boundary verdicts of the
generated examples by the layer that decided them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.codes import LAYER_ORDER
from harness.events import FAILED, FINDING, PASSED, CaseResult, Event, Section, Summary
from harness.fuzz.model import ACCEPTED
from harness.fuzz.properties import PROPERTIES
from harness.fuzz.replay import REPLAYED, summary_lines
from harness.fuzz.runner import FuzzFinished, FuzzReport, Outcome, PropertyFinished
from harness.markdown import code_span
from harness.reporting.base import Contributor
from harness.reporting.files import md_cell
from harness.reporting.terminal import Folding

_COLUMNS = [layer.value for layer in LAYER_ORDER] + [ACCEPTED]
_SHOWN_BYTES = 400


def _cell(outcome: Outcome | None) -> str:
    if outcome is None:
        return "n/a"
    if outcome.status == PASSED:
        return f"held ({outcome.examples})"
    return "FINDING" if outcome.status == FINDING else "FAILED"


def _rate(stats: dict[str, Any]) -> str:
    return f"{stats.get('discard_rate', 0.0) * 100:.1f}%"


def generator_rows(report: FuzzReport) -> list[list[str]]:
    """tool, source, generated, discarded, discard rate, unique, boundary values; not for a tool
    whose every property replayed its saved examples (it generated nothing this run)."""
    replayed = {tool for tool, outcomes in _by_tool(report).items()
                if outcomes and all(o.mode == REPLAYED for o in outcomes.values())}
    rows = []
    for tool, generators in sorted(report.generators.items()):
        if tool in replayed:
            continue
        for source in ("documents", "vendor"):
            stats = generators.get(source)
            if stats:
                rows.append([tool, source, str(stats["generated"]), str(stats["discarded"]), _rate(stats),
                             str(stats["unique"]), str(stats.get("boundary", 0))])
    return rows


def _properties(report: FuzzReport) -> list[str]:
    seen = {o.prop for o in report.outcomes}
    return [name for name in PROPERTIES.names() if name in seen]


def _by_tool(report: FuzzReport) -> dict[str, dict[str, Outcome]]:
    tools: dict[str, dict[str, Outcome]] = {}
    for outcome in report.outcomes:
        tools.setdefault(outcome.tool, {})[outcome.prop] = outcome
    for tool in report.not_applicable:
        tools.setdefault(tool, {})
    return tools


def _example(payload: bytes) -> str:
    text = payload[:_SHOWN_BYTES].decode("utf-8", "backslashreplace")
    more = f" ... ({len(payload):,} bytes)" if len(payload) > _SHOWN_BYTES else f" ({len(payload)} bytes)"
    return text + more


def outcome_text(outcome: Outcome) -> str:
    """A failing property, for people: what was expected, what happened, the shrunk example,
    the fixture written for it and how to reproduce it."""
    head = "FINDING" if outcome.status == FINDING else "FAILED"
    lines = [f"{head} {outcome.id} ({outcome.problem})", f"  property: {PROPERTIES[outcome.prop].summary}"
             if outcome.prop in PROPERTIES else f"  property: {outcome.prop}"]
    f = outcome.finding
    if f is not None:
        lines.append(f"  expected: {f.expected_text or f.expected.describe() or 'a verdict'}")
        where = f" at {f.instance_pointer or '/'}" if f.layer and f.instance_pointer is not None else ""
        lines.append(f"  actual:   {f.actual_text or f.actual + where}")
    lines.append(f"  detail:   {outcome.detail}")
    if f is not None:
        if f.message:
            lines.append(f"  message:  {f.message}")
        if f.operator:
            lines.append(f"  mutation: {f.operator} at {f.pointer or '/'}: {f.original} -> {f.mutated}")
        shrunk = (f"shrunk (hypothesis tried {_n(outcome.shrinks, 'smaller variant')} after the first failure)"
                  if outcome.shrinks else "not shrunk")
        lines.append(f"  example:  {_example(f.payload)}, {shrunk}")
        lines.append(f"  request:  {json.dumps(dict(f.request), ensure_ascii=False)}  now: {f.now.isoformat()}")
    if outcome.fixture:
        lines.append(f"  fixture:  {outcome.fixture} (+ .case.yaml): copy fixtures/ into the project to keep it")
    if outcome.reproduce:
        lines.append(f"  reproduce with: {outcome.reproduce}")
    if outcome.blob and outcome.reproduce:
        lines.append(f"  this example exactly: {outcome.reproduce} --blob {outcome.blob}")
    return "\n".join(lines)


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def verdict_line(report: FuzzReport) -> str:
    examples = _n(sum(o.examples for o in report.outcomes), "example")
    total = _n(len(report.outcomes), "property", "properties")
    tools = _n(len({o.tool for o in report.outcomes}), "tool")
    if report.ok:
        return f"all {total} held on {tools} ({examples}, {report.duration_s:.1f}s)"
    return (f"{report.count(FAILED)} failed, {_n(report.count(FINDING), 'finding')}, {report.count(PASSED)} held "
            f"of {total} on {tools} ({examples}, {report.duration_s:.1f}s)")


def replay_lines(report: FuzzReport) -> list[str]:
    """Per tool, what was replayed (inputs unchanged since its last green run) and what was
    generated, and why, for the properties that held; a line per property that did not (its
    example count is of the search that failed, not of a whole run); then any warning about a
    saved run."""
    rows = [(o.tool, o.prop, o.mode, o.why, o.examples) for o in report.outcomes if o.ok]
    failed = []
    for o in report.outcomes:
        if not o.ok:
            when = f"after {_n(o.examples, 'example')} held" if o.examples else "on its first example"
            failed.append(f"{o.tool}: {o.prop} {'failed' if o.status == FAILED else 'found a finding'} {when} "
                          f"({o.why}; see below)")
    return [*summary_lines(rows), *failed,
            *sorted({w for o in report.outcomes if o.warning for w in o.warning.splitlines()})]


def _profile_line(report: FuzzReport) -> str:
    seed = f", seed {report.seed}" if report.seed is not None else ""
    return f"fuzz profile {report.profile.name}: {report.max_examples} examples per property and tool{seed}"


# --------------------------------------------------------------------------- the contributor

_NOTHING_GENERATED = "No documents generated: every property replayed its saved examples."
_GENERATOR_HEADER = ["tool", "source", "generated", "discarded as invalid", "discard rate", "unique",
                     "boundary values"]


def properties_rows(report: FuzzReport) -> tuple[list[str], list[list[str]]]:
    """The properties by tool: a row per tool, a column per property run."""
    names = _properties(report)
    return ["tool", *names], [[tool, *(_cell(outcomes.get(n)) for n in names)]
                              for tool, outcomes in sorted(_by_tool(report).items())]


class FuzzContributor(Contributor):
    """Keeps the run's outcomes and its report, and renders them in every format."""

    command = "fuzz"
    title = "Contract fuzz"
    junit_suite = "contract-harness-fuzz"
    progress_label = "fuzzing"
    table_note = ("Each layer column counts the boundary verdicts of the generated examples (one per mutant for "
                  "`rejects_near_misses`) by the layer that decided them; `cases` counts the properties.")

    def __init__(self) -> None:
        self.outcomes: dict[str, Outcome] = {}
        self.report: FuzzReport | None = None

    def handle(self, event: Event) -> None:
        if isinstance(event, PropertyFinished):
            self.outcomes[event.outcome.id] = event.outcome
        elif isinstance(event, FuzzFinished):
            self.report = event.report

    def _report(self) -> FuzzReport:
        assert self.report is not None, "the fuzz run has not finished"
        return self.report

    # -- terminal
    def terminal_head(self) -> list[Any]:
        report = self._report()
        return [_profile_line(report), *replay_lines(report), Folding("properties by tool", *properties_rows(report))]

    def terminal_table(self, summary: Summary) -> Folding:
        rows = [[tool, *(str(counts.columns.get(c, 0)) for c in _COLUMNS)]
                for tool, counts in sorted(summary.tools.items())]
        return Folding("verdicts by deciding layer (one per example, one per mutant for rejects_near_misses)",
                       ["tool", *_COLUMNS], rows)

    def terminal_body(self) -> list[Any]:
        header = [name if name != "discarded as invalid" else "discarded" for name in _GENERATOR_HEADER]
        rows = generator_rows(self._report())
        return [Folding("generated documents", header, rows, left=2)] if rows else []

    def terminal_problems(self, problems: Sequence[CaseResult]) -> list[str]:
        # Unwrapped: commands and examples stay copyable.
        return ["\n" + outcome_text(o) for o in self._report().outcomes if not o.ok]

    def verdict(self, summary: Summary) -> str:
        return verdict_line(self._report())

    # -- JSON
    def json_case(self, result: CaseResult, data: dict[str, Any]) -> dict[str, Any]:
        # A case that held did what was expected of every example (a case that did not carries
        # its shrunk example's verdict).
        if data["status"] == PASSED:
            data["actual"]["accepted"] = data["expected"]["accept"]
        return data

    def json_members(self, summary: Summary) -> dict[str, Any]:
        return {"fuzz": self._report().to_dict()}

    # -- JUnit
    def junit_properties(self, case_id: str) -> dict[str, str]:
        outcome = self.outcomes.get(case_id)
        if outcome is None:
            return {}
        stats = self._report().generators.get(outcome.tool, {}).get("documents", {})
        extra = {"property": outcome.prop, "examples": str(outcome.examples),
                 "generated": str(stats.get("generated", 0)), "discarded": str(stats.get("discarded", 0)),
                 "unique": str(stats.get("unique", 0))}
        if outcome.blob:
            extra["blob"] = outcome.blob
        if outcome.fixture:
            extra["fixture"] = outcome.fixture
        return extra

    # -- Markdown
    def heading(self, summary: Summary) -> str:
        return verdict_line(self._report())

    def markdown_sections(self) -> list[str]:
        report = self._report()
        header, rows = properties_rows(report)
        lines = [_profile_line(report) + ".", "",
                 "| tool | " + " | ".join(f"`{n}`" for n in header[1:]) + " |", "|---|" + "---:|" * (len(header) - 1)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        generated = generator_rows(report)
        if not generated:
            return [*lines, "", _NOTHING_GENERATED]
        lines += ["", "| " + " | ".join(_GENERATOR_HEADER) + " |", "|---|---|---:|---:|---:|---:|---:|"]
        return lines + ["| " + " | ".join(row) + " |" for row in generated]

    def markdown_problems(self, problems: Sequence[CaseResult]) -> list[str]:
        lines = ["### Properties that did not hold", ""]
        for outcome in (o for o in self._report().outcomes if not o.ok):
            lines += [f"**{code_span(outcome.id, cell=False)}** — {outcome.status} ({outcome.problem}): "
                      f"{md_cell(outcome.detail)}", ""]
            if outcome.finding is not None:
                lines += ["```json", _example(outcome.finding.payload), "```", ""]
            if outcome.fixture:
                lines += [f"Fixture written: {code_span(outcome.fixture, cell=False)} (with its `.case.yaml`).", ""]
            if outcome.reproduce:
                lines += ["```sh", outcome.reproduce]
                if outcome.blob:
                    lines.append(f"{outcome.reproduce} --blob {outcome.blob}")
                lines += ["```", ""]
        return lines[:-1]

    # -- HTML
    def html_page(self, summary: Summary, *, title: str, generated_at: str) -> str:
        """The fuzz run's own page: properties x tools, the examples each ran, the verdicts by
        deciding layer, the generator statistics, and each property that did not hold with its
        shrunk example and reproduce line (the check page's cases x case kinds matrix would count
        properties as cases)."""
        import html

        from harness.reporting.html import page_head, section_tables

        esc = html.escape
        report = self._report()
        badge = f'<span class="verdict {"ok" if report.ok else "bad"}">{esc(verdict_line(report))}</span>'
        out = page_head(title, badge, generated_at, script=False)
        out.append(f"<p>{esc(_profile_line(report))}.</p>")
        said = replay_lines(report)
        if said:
            out += ["<ul>", *(f"<li>{esc(line)}</li>" for line in said), "</ul>"]
        header, rows = properties_rows(report)
        out += ["<h2>Properties by tool</h2>",
                "<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead><tbody>"]
        for row in rows:
            cells = [f"<td>{esc(row[0])}</td>"]
            for cell in row[1:]:
                kind = "ok" if cell.startswith("held") else ("" if cell == "n/a" else "bad")
                cells.append(f'<td class="{kind}">{esc(cell)}</td>' if kind else f"<td>{esc(cell)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        examples = [[o.tool, o.prop, f"{o.examples:,}", o.mode, o.why, o.status] for o in report.outcomes]
        verdicts = [[tool, *(str(counts.columns.get(c, 0)) for c in _COLUMNS)]
                    for tool, counts in sorted(summary.tools.items())]
        sections = [
            Section("Examples", ["tool", "property", "examples", "how", "why", "status"], examples,
                    note="The examples each property ran: generated, or replayed from its last green run while its "
                         "inputs hash the same. A property that did not hold counts those of the search that failed."),
            Section("Verdicts by deciding layer", ["tool", *_COLUMNS], verdicts,
                    note="One boundary verdict per example (one per mutant for rejects_near_misses), by the layer "
                         "that decided it."),
        ]
        generated = generator_rows(report)
        if generated:
            sections.append(Section("Generated documents", _GENERATOR_HEADER, generated,
                                    note="Every generated value is re-validated by the production validator; the "
                                         "ones it rejects are discarded and counted."))
        out += section_tables(sections)
        if not generated:
            out += ["<h2>Generated documents</h2>", f"<p>{esc(_NOTHING_GENERATED)}</p>"]
        failing = [o for o in report.outcomes if not o.ok]
        if failing:
            out.append("<h2>Properties that did not hold</h2>")
            for outcome in failing:
                out += [f'<h3 class="bad">{esc(outcome.id)}</h3>', f"<pre>{esc(outcome_text(outcome))}</pre>"]
        if report.notes:
            out += section_tables([Section("Notes", ["note"], [[n] for n in report.notes])])
        return "\n".join([*out, "</body></html>"]) + "\n"

    def html_sections(self) -> list[Section]:
        report = self._report()
        sections = [
            Section("Properties by tool", *properties_rows(report), note=_profile_line(report) + "."),
        ]
        generated = generator_rows(report)
        sections.append(Section("Generator statistics", _GENERATOR_HEADER, generated,
                                note="Every generated value is re-validated by the production validator; the ones "
                                     "it rejects are discarded and counted." if generated else _NOTHING_GENERATED))
        if report.notes:
            sections.append(Section("Notes", ["note"], [[n] for n in report.notes]))
        return sections

