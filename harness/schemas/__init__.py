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

from typing import TYPE_CHECKING, Any

from harness.schemas.lower import Lowered, lower
from harness.schemas.resolve import Expanded, Location, Unmodelled, as_schema, expand

if TYPE_CHECKING:
    from harness.schemas.generate import GenerationStats, from_expanded, from_schema, sample

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

#: The generator's names load on first use: it imports hypothesis, which loading a contract
#: (that asks :mod:`harness.schemas.resolve` about its references) must not.
_EXPORTS = dict.fromkeys(("GenerationStats", "from_expanded", "from_schema", "sample"), "harness.schemas.generate")


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.schemas' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
