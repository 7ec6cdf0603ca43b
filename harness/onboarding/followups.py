"""After writing: lint every new contract and, with ``--strict``, compare v1 with v2.

Imported schemas are kept as published, so lint (:mod:`harness.lint`) usually has findings on
v1: they are the review list. The tightened version is compared with the published one by
:func:`harness.compat.compare` under the policy the import declares for it (``writer``: a
tightening never makes a new document unreadable to old readers): the static change table and
the replay of every fixture, whose rows say which observed shapes v2 rejects. The witness search
is left out (it can take minutes on large or recursive schemas); ``contract-harness compat
TOOL`` runs it with the default budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.contract import load_contract
from harness.onboarding.apply import ToolOutcome

if TYPE_CHECKING:
    from harness.compat import CompatReport
    from harness.lint import LintReport

#: No witness search during an import: static classes and replay only (milliseconds per tool).
IMPORT_BUDGET_EXAMPLES = 0
IMPORT_BUDGET_SAMPLES = 0


@dataclass(frozen=True, slots=True)
class Review:
    """The reports on one written contract (``compat`` only with a strict version)."""

    tool: str
    lint: LintReport
    compat: CompatReport | None = None


def review(outcome: ToolOutcome, *, compat: bool = True) -> Review:
    """Lint the contract as written; with a strict version, the compat report v1 -> v2."""
    from harness.lint import lint_contract

    contract = load_contract(outcome.directory)
    report = None
    if compat and outcome.strict is not None:
        from harness.compat import Budget, compare  # imports hypothesis: only when comparing

        report = compare(contract, 1, outcome.strict.version,
                         budget=Budget(examples=IMPORT_BUDGET_EXAMPLES, samples=IMPORT_BUDGET_SAMPLES))
    return Review(outcome.tool, lint_contract(contract), report)
