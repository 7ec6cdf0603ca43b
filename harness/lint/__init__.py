"""Lint for agent-boundary schemas: strictness rules with ids, pointers and fixes.

    from harness.lint import lint_contract, lint_paths
    report = lint_contract("contracts/review_status")   # or a loaded Contract
    report.ok, report.findings, report.waived           # findings carry rule, pointer, fix

Rules live in a :class:`RuleRegistry` (the package's are in :data:`RULES`); reporters turn a
:class:`LintReport` into text, JSON or SARIF (:mod:`harness.lint.reporters`).
"""

from harness.lint.engine import (
    contract_documents,
    lint_contract,
    lint_file,
    lint_paths,
    lint_schema,
)
from harness.lint.model import Finding, LintReport, WaivedFinding
from harness.lint.registry import RULES, Hit, Rule, RuleRegistry, Severity, Target
from harness.lint.scopes import ContractScope, WaiverUse
from harness.schemas.document import Document, Node

__all__ = [
    "RULES",
    "ContractScope",
    "Document",
    "Finding",
    "Hit",
    "LintReport",
    "Node",
    "Rule",
    "RuleRegistry",
    "Severity",
    "Target",
    "WaivedFinding",
    "WaiverUse",
    "contract_documents",
    "lint_contract",
    "lint_file",
    "lint_paths",
    "lint_schema",
]
