"""Moved to :mod:`harness.fuzz.generate.lower`; kept only for ``harness.compat`` until it
imports the new path (see docs/architecture.md)."""

from harness.fuzz.generate.lower import DRAFT_07, Lowered, lower

__all__ = ["DRAFT_07", "Lowered", "lower"]
