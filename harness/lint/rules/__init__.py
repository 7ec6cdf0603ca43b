"""The rules this package ships. Importing this package registers them in ``RULES``; the
import order below is the order of the catalogue (closure first: the rules that matter most)."""

from harness.lint.rules import (  # noqa: F401, I001 - imported for their registrations, in catalogue order
    closure,
    bounds,
    patterns,
    formats,
    envelope,
    pointers,
    references,
    vocabulary,
    waivers,
)
