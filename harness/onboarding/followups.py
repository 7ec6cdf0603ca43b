"""After writing: lint every new contract and, with ``--strict``, compare v1 with v2.

This is the one seam where the lint (issue 7) and compat (issue 6) libraries plug in; until
they are part of the build, :func:`review` returns a review without those reports and the
summary says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.onboarding.apply import ToolOutcome


@dataclass(frozen=True, slots=True)
class Review:
    """The reports on one written contract (None where not run)."""

    tool: str
    lint: Any = None
    compat: Any = None


def review(outcome: ToolOutcome) -> Review:
    """Lint the contract as written; with a strict version, the compat report v1 -> v2."""
    return Review(outcome.tool)
