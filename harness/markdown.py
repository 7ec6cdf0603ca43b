"""Markdown text the reports write (the check, drift and fuzz reporters, compat's report)."""

from __future__ import annotations

import re

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
