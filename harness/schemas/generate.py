"""Moved to :mod:`harness.fuzz.generate.documents`; kept only for ``harness.compat`` until it
imports the new path (see docs/architecture.md)."""

from harness.fuzz.generate.documents import (
    GenerationStats,
    OutOfTime,
    from_expanded,
    from_lowered,
    from_schema,
    quiet_settings,
    sample,
    time_budget,
)

__all__ = ["GenerationStats", "OutOfTime", "from_expanded", "from_lowered", "from_schema", "quiet_settings",
           "sample", "time_budget"]
