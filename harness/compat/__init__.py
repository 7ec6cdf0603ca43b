"""Schema versions: prove what a new contract version does to old shapes.

``compare(contract, old, new)`` returns a :class:`CompatReport` combining three kinds of
evidence:

1. static classification: both versions normalised (local ``$ref`` inlined, dialect pinned),
   each object's content model marked, the trees diffed with deepdiff and every difference
   mapped to a change class of :data:`RULES` with reader / writer verdicts; what is not
   modelled is ``unsupported`` (never a false "compatible");
2. witnesses: targeted documents built from each change and documents generated from each
   version, each checked against the other version;
3. replay: the tool's historical and accepted fixtures through the boundary of both versions,
   expected rejections held to the keyword and location of the change.

``report.ok`` is true when the policy holds, no witness contradicts a static verdict, and every
replayed fixture behaves as its sidecar says; ``report.checks`` lists each of those.

Names are imported on first use: ``import harness.compat`` stays cheap (hypothesis and the
generator load only when a comparison runs), so the CLI and the pytest plugin start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.compat.api import compare as compare
    from harness.compat.api import compare_schemas as compare_schemas
    from harness.compat.api import consecutive_pairs as consecutive_pairs
    from harness.compat.api import prepare_version as prepare_version
    from harness.compat.assess import Assessed as Assessed
    from harness.compat.assess import Assessment as Assessment
    from harness.compat.assess import Contradiction as Contradiction
    from harness.compat.model import DEFAULT_POLICY as DEFAULT_POLICY
    from harness.compat.model import Budget as Budget
    from harness.compat.model import Direction as Direction
    from harness.compat.model import Evidence as Evidence
    from harness.compat.model import Policy as Policy
    from harness.compat.model import Verdict as Verdict
    from harness.compat.registry import RULES as RULES
    from harness.compat.registry import Registry as Registry
    from harness.compat.registry import Rule as Rule
    from harness.compat.replay import Cell as Cell
    from harness.compat.replay import Row as Row
    from harness.compat.report import Check as Check
    from harness.compat.report import CompatReport as CompatReport
    from harness.compat.witness import Witness as Witness

_WHERE = {name: f"harness.compat.{module}" for name, module in {
    "compare": "api", "compare_schemas": "api", "consecutive_pairs": "api", "prepare_version": "api",
    "Assessed": "assess", "Assessment": "assess", "Contradiction": "assess",
    "DEFAULT_POLICY": "model", "Budget": "model", "Direction": "model", "Evidence": "model",
    "Policy": "model", "Verdict": "model",
    "RULES": "registry", "Registry": "registry", "Rule": "registry",
    "Cell": "replay", "Row": "replay", "Check": "report", "CompatReport": "report",
    "Witness": "witness",
}.items()}

__all__ = sorted(_WHERE)


__getattr__ = lazy_exports(__name__, _WHERE, globals())
