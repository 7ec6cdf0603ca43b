"""The HTML report: self-contained, and working in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.cases import cases_for
from harness.engine import Engine
from harness.events import Section
from harness.reporting import dispatch
from harness.reporting.html import HtmlReporter, render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("src", "href"):
            if values.get(name):
                self.external.append(f"{tag} {name}={values[name]}")
        if tag == "td" and "cell" in (values.get("class") or "") and values.get("data-tool"):
            self.cells += 1


@pytest.fixture(scope="module")
def report(demo, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("html") / "report.html"
    cases = []
    for tool in ("review_status", "job_status", "deployment_status"):
        cases += cases_for(demo(tool), max_mutants=20).cases
    dispatch(Engine().run(cases), [HtmlReporter(path, sections=[Section("Drift", ["tool", "change"], [["job_status", "field added"]])])])
    return path


def test_html_report_is_self_contained(report: Path) -> None:
    text = report.read_text()
    refs = _Refs()
    refs.feed(text)
    assert refs.external == []
    assert not re.search(r"https?://(?!example\.invalid)", text.split('id="report-data"')[0])
    assert refs.cells > 30
    assert "<h2>Drift</h2>" in text


def test_embedded_data_cannot_break_out_of_its_script_tag(demo) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from harness.events import Summary

    case = cases_for(demo("review_status"), sources=("accepted",)).cases[0]
    hostile = replace(Engine().evaluate(case), detail="</script><script>alert(1)</script>")
    summary = Summary()
    summary.add(hostile)
    page = render([hostile], summary)
    assert page.count("<script") == 2 and "</script><script>alert" not in page
    data = page.split('<script type="application/json" id="report-data">')[1].split("</script>")[0]
    assert json.loads(data)["matrix"]["cells"]["review_status"]["accepted"][0]["detail"].startswith("</script>")


@pytest.mark.skipif(not CHROMIUM and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
                    reason="Debian's chromium is not installed (.ci/run installs it and sets HARNESS_REQUIRE_BROWSER)")
def test_report_works_in_headless_chromium(report: Path) -> None:
    assert CHROMIUM, "HARNESS_REQUIRE_BROWSER is set but no chromium binary is on PATH"
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    shots = Path(os.environ.get("HARNESS_ARTIFACTS", report.parent))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri())
            cells = page.locator("td.cell[data-tool]")
            assert cells.count() > 30
            cell = page.locator('td.cell[data-tool="review_status"][data-column="add_extra_property"]')
            cell.click()
            panel = page.locator("#panel")
            assert panel.is_visible()
            assert "review_status · add_extra_property" in page.locator("#panel-title").inner_text()
            first = page.locator("#panel .case").first
            assert "review_status::mutation::add_extra_property@" in first.inner_text()
            assert "schema.additionalProperties" in first.inner_text()
            page.screenshot(path=str(shots / "html-report.png"), full_page=False)
        finally:
            browser.close()
    assert errors == []
    assert (shots / "html-report.png").stat().st_size > 10_000


@pytest.fixture(scope="module")
def other_pages(tmp_path_factory) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """The compat and fuzz HTML reports of the demo, written by their commands."""
    from harness.cli import main

    folder = tmp_path_factory.mktemp("pages")
    compat, fuzz = folder / "compat.html", folder / "fuzz.html"
    assert main(["compat", "job_status", "--examples", "10", "--samples", "5", "--html", str(compat)]) == 0
    assert main(["fuzz", "--tool", "review_status", "--examples", "5", "--no-progress", "--html", str(fuzz),
                 "--fixtures-out", str(folder / "fuzz-out")]) == 0
    return {"compat": compat, "fuzz": fuzz}


def test_compat_and_fuzz_pages_are_self_contained(other_pages: dict[str, Path]) -> None:
    for path in other_pages.values():
        refs = _Refs()
        refs.feed(path.read_text())
        assert refs.external == [], path.name
    assert "<h2>Witnesses</h2>" in other_pages["compat"].read_text()
    assert "<h2>Generated documents</h2>" in other_pages["fuzz"].read_text()


@pytest.mark.skipif(not CHROMIUM and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
                    reason="Debian's chromium is not installed (.ci/run installs it and sets HARNESS_REQUIRE_BROWSER)")
def test_compat_and_fuzz_pages_work_in_headless_chromium(other_pages: dict[str, Path]) -> None:
    assert CHROMIUM, "HARNESS_REQUIRE_BROWSER is set but no chromium binary is on PATH"
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(other_pages["compat"].as_uri())
            assert page.locator("h2", has_text="Replay").is_visible()
            assert "OK: " in page.locator(".verdict").inner_text()
            page.goto(other_pages["fuzz"].as_uri())  # its own page: properties x tools, no matrix
            assert page.locator("h2", has_text="Properties by tool").is_visible()
            assert page.locator("td.ok", has_text="held").count() > 0
            assert page.locator("#matrix").count() == 0
        finally:
            browser.close()
    assert errors == []
