"""``CMP999``: the class of a difference no rule claims (the engine assigns it itself)."""

from __future__ import annotations

from harness.compat.diff import Site
from harness.compat.registry import RULES, Facts, Finding
from harness.compat.rules.common import UNKNOWN, S


@RULES.rule("CMP999", group="keyword", keywords=("\x00never",), reader=UNKNOWN, writer=UNKNOWN,
            example=({"$schema": S}, {"$schema": S}))
def unclassified(site: Site, facts: Facts) -> Finding | None:
    """A difference no rule models: unknown both ways (the classifier fails closed)."""
    return None
