"""Schema utilities shared by compat and fuzzing: expand, lower, generate.

- :mod:`harness.schemas.keywords`: the vocabulary (which keywords hold subschemas, apply in
  place, only annotate);
- :mod:`harness.schemas.resolve`: :func:`expand` inlines local ``$ref`` and pins older dialects
  to their 2020-12 form, remembering where every node was written;
- :mod:`harness.schemas.lower`: :func:`lower` rewrites 2020-12 constructs hypothesis-jsonschema
  ignores into exactly equivalent draft-07 forms, and says what it could not;
- :mod:`harness.schemas.generate`: :func:`from_schema` generates documents and re-validates each
  with the production validator, counting discards; optionally from a strategy compiled once
  (:mod:`harness.schemas.compile`) and with boundary values pushed in
  (:mod:`harness.schemas.boundary`, exact-length strings from :mod:`harness.schemas.regex`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# resolve and lower are light; ``lower`` (the function) must also shadow its module's name.
from harness.schemas.lower import Lowered, lower
from harness.schemas.resolve import Expanded, Location, Unmodelled, as_schema, expand

if TYPE_CHECKING:
    from harness.schemas.generate import GenerationStats, from_expanded, from_schema, sample

# generate loads on first use: the resolver is asked about every contract when it loads, and
# must not pull in hypothesis with it.
_EXPORTS = {"GenerationStats": "generate", "from_expanded": "generate", "from_schema": "generate",
            "sample": "generate"}

__all__ = [
    "Expanded",
    "GenerationStats",
    "Location",
    "Lowered",
    "Unmodelled",
    "as_schema",
    "expand",
    "from_expanded",
    "from_schema",
    "lower",
    "sample",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.schemas' has no attribute {name!r}")
    return getattr(importlib.import_module(f"harness.schemas.{module}"), name)
