"""The summary tables at a terminal's width: 60, 80, 100 and 200 columns.

``check`` and ``fuzz`` run for real under a pseudo-terminal (``COLUMNS`` set, as a terminal of
that width sets it); a table wider than the terminal folds into one block per tool, the tool's
name whole on its own line, and every count stays readable.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from harness.events import fold

WIDTHS = [60, 80, 100, 200]
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def at_terminal(argv: list[str], width: int, cwd: Path) -> str:
    """``contract-harness ARGV`` with its output on a pseudo-terminal ``width`` columns wide."""
    leader, follower = os.openpty()
    env = {**os.environ, "COLUMNS": str(width), "LINES": "50", "TERM": "xterm"}
    env.pop("CI", None)
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=cwd, env=env,
                            stdout=follower, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError("no output for 120 s")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other side closed: the process has ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=60) == 0, b"".join(chunks).decode()
    return _ANSI.sub("", b"".join(chunks).decode().replace("\r\n", "\n"))


def numbers_by_tool(text: str, tools: list[str]) -> dict[str, list[int]]:
    """The numbers shown after each tool's name, up to the next tool's (a table row, or a folded
    block)."""
    found: dict[str, list[int]] = {}
    current = None
    for line in text.splitlines():
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+", line)
        for word in words:
            if word in tools:
                current = word
                found[current] = []
            elif word.isdigit() and current is not None:
                found[current].append(int(word))
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_check_shows_every_tool_whole_and_every_count_at_any_width(width: int, tmp_path: Path) -> None:
    out = at_terminal(["check", "--demo", "--no-progress", "--json", str(tmp_path / "r.json")], width, tmp_path)
    table = out.split("cases by rejecting layer", 1)[1].split("\ncoverage: ", 1)[0].split("\nall ", 1)[0]
    summary = json.loads((tmp_path / "r.json").read_text())["summary"]["tools"]
    tools = sorted(summary)
    for line in table.splitlines():
        assert len(line.rstrip()) <= width, (width, line)
    expected = {tool: [t["total"], *t["by_layer"].values(), t["failed"], t["findings"]] for tool, t in summary.items()}
    assert numbers_by_tool(table, tools) == expected, out
    if width >= 140:  # wide enough for the whole table
        assert "┃ tool " in table
    else:
        assert "┃" not in table and "…" not in table
        for tool in tools:
            assert f"\n{tool}\n" in table  # on a line of its own


@pytest.mark.parametrize("width", WIDTHS)
def test_fuzz_tables_fold_on_a_narrow_terminal(width: int, tmp_path: Path) -> None:
    out = at_terminal(["fuzz", "--demo", "--examples", "3", "--no-progress"], width, tmp_path)
    body = out.split("properties by tool", 1)[1].split("\nall ", 1)[0]
    for line in body.splitlines():
        assert len(line.rstrip()) <= width, (width, line)
    assert "…" not in body
    tools = ["deployment_status", "job_status", "review_status"]
    for tool in tools:
        assert re.search(rf"(^|[│ ]){tool}[ │\n]", body, flags=re.M), tool
    if width < 140:
        assert "accepts_valid held (3)," in body  # the properties table, folded


def test_a_folded_row_keeps_its_name_whole_and_its_lines_within_the_width() -> None:
    header = ["tool", "cases", "transport", "parse", "schema"]
    rows = [["a_very_long_tool_name_that_is_wider_than_the_terminal", "12", "3", "4", "5"], ["b", "1", "0", "0", "1"]]
    lines = fold(header, rows, 20)
    assert lines[0] == rows[0][0]
    assert lines[1:4] == ["  cases 12,", "  transport 3,", "  parse 4, schema 5"]
    assert lines[4] == "b"
    assert all(len(line) <= 20 for line in lines[1:])
    assert fold(header, rows[1:], 200) == ["b", "  cases 1, transport 0, parse 0, schema 1"]


@pytest.mark.parametrize("width", [60, 200])
def test_the_plugins_table_folds_at_the_terminals_width(width: int, tmp_path: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "harness.cli", "init", "order_status"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    env = {**os.environ, "COLUMNS": str(width)}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "--no-fuzz", "-p", "no:cacheprovider"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    table = ran.stdout.split("contract cases by rejecting layer", 1)[1].split(" passed", 1)[0]
    lines = table.splitlines()[1:-1]
    assert all(len(line) <= width for line in lines), lines
    if width == 60:
        assert lines[0] == "order_status" and lines[1].startswith("  cases ")
    else:
        assert lines[0].split() == ["tool", "cases", "transport", "parse", "schema", "adapter", "binding", "freshness",
                                    "projection", "accepted", "failed", "findings"]
