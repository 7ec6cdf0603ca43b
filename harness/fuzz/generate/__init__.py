"""Generating documents valid under a schema (hypothesis), as the production validator says.

- :mod:`harness.fuzz.generate.lower`: :func:`lower` rewrites 2020-12 constructs
  hypothesis-jsonschema ignores into exactly equivalent draft-07 forms, and says what it could
  not;
- :mod:`harness.fuzz.generate.documents`: :func:`from_schema` generates documents and
  re-validates each with the production validator, counting discards
  (:class:`GenerationStats`); optionally from a strategy compiled once
  (:mod:`harness.fuzz.generate.compile`) and with boundary values pushed in
  (:mod:`harness.fuzz.generate.edges`, exact-length strings from
  :mod:`harness.fuzz.generate.regex`). :func:`sample` draws values outside a test.

References are expanded first by the schema model (:func:`harness.schemas.expand`).
"""

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
from harness.fuzz.generate.lower import Lowered, lower

__all__ = [
    "GenerationStats",
    "Lowered",
    "OutOfTime",
    "from_expanded",
    "from_lowered",
    "from_schema",
    "lower",
    "quiet_settings",
    "sample",
    "time_budget",
]
