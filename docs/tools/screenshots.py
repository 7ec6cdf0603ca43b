"""Regenerate the README's pictures from the embedded demo.

    python docs/tools/screenshots.py

- ``docs/images/terminal-summary.svg``: ``contract-harness check`` as a terminal shows it
  (rich's SVG export of the real output);
- ``docs/images/html-report.png``: the HTML report in headless Chromium (Debian's ``chromium``,
  driven with Playwright), a cell opened.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from harness.cases import cases_for
from harness.contract import demo_root, discover, load_contract
from harness.engine import Engine
from harness.reporting import dispatch
from harness.reporting.html import HtmlReporter
from harness.reporting.terminal import TerminalReporter

IMAGES = Path(__file__).resolve().parent.parent / "images"


def main() -> int:
    IMAGES.mkdir(exist_ok=True)
    cases = [c for d in discover([demo_root()]) for c in cases_for(load_contract(d)).cases]
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        terminal = TerminalReporter(progress=False, width=150)
        terminal.console = Console(record=True, width=150, file=open(Path(tmp) / "out.txt", "w"))  # noqa: SIM115
        dispatch(Engine().run(cases), [terminal, HtmlReporter(html)])
        terminal.console.save_svg(str(IMAGES / "terminal-summary.svg"), title="contract-harness check")
        chromium = shutil.which("chromium")
        if chromium is None:
            print("chromium not found: html-report.png not regenerated", file=sys.stderr)
            return 1
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 820})
            page.goto(html.as_uri())
            page.locator('td.cell[data-tool="review_status"][data-column="duplicate_member"]').click()
            page.screenshot(path=str(IMAGES / "html-report.png"))
            browser.close()
    print(f"wrote {IMAGES / 'terminal-summary.svg'} and {IMAGES / 'html-report.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
