"""Lint records: a finding, a waived finding, and the report that holds them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.lint.registry import Severity

if TYPE_CHECKING:
    from harness.contract import Waiver
    from harness.lint.registry import Rule


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: which rule, where (file and JSON pointer into it), what, and the fix."""

    rule: str
    severity: Severity
    message: str
    fix: str
    file: str
    pointer: str
    #: Which of a contract's files: ``v1``, ``v2``, ... ``vendor``, ``contract`` (contract.yaml);
    #: None for a bare schema file.
    schema: str | None = None
    tool: str | None = None
    line: int | None = None  # 1-based line of the pointer in the file, when it can be found

    @property
    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.file, self.line or 0, self.pointer, self.rule)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "pointer": self.pointer,
            "schema": self.schema,
            "tool": self.tool,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class WaivedFinding:
    """A finding a waiver in ``contract.yaml`` accepted, with the waiver and its position."""

    finding: Finding
    waiver: Waiver
    index: int  # position in the contract's ``waivers`` list

    def to_dict(self) -> dict[str, Any]:
        waiver = {"index": self.index, "rule": self.waiver.rule, "pointer": self.waiver.pointer,
                  "schema": self.waiver.schema, "reason": self.waiver.reason}
        return {**self.finding.to_dict(), "waiver": waiver}


@dataclass(frozen=True, slots=True)
class LintReport:
    """Everything one lint run found. ``findings`` are the unwaived ones, sorted."""

    findings: tuple[Finding, ...] = ()
    waived: tuple[WaivedFinding, ...] = ()
    targets: tuple[str, ...] = ()  # contract directories and schema files linted
    rules: tuple[Rule, ...] = ()  # the rules that ran

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def exit_code(self) -> int:
        """0 when nothing was found, 1 otherwise (the CLI's convention)."""
        return 0 if self.ok else 1

    def counts(self) -> dict[str, int]:
        """Findings per rule id, most frequent first."""
        return dict(Counter(f.rule for f in self.findings).most_common())

    def severities(self) -> dict[str, int]:
        counted = Counter(f.severity for f in self.findings)
        return {s.value: counted.get(s, 0) for s in Severity}

    @classmethod
    def merge(cls, reports: Iterable[LintReport]) -> LintReport:
        reports = list(reports)
        rules: dict[str, Rule] = {}
        for report in reports:
            rules.update((r.id, r) for r in report.rules)
        return cls(
            findings=tuple(sorted((f for r in reports for f in r.findings),
                                  key=lambda f: f.sort_key)),
            waived=tuple(w for r in reports for w in r.waived),
            targets=tuple(t for r in reports for t in r.targets),
            rules=tuple(rules.values()),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": {
                "targets": len(self.targets),
                "findings": len(self.findings),
                **self.severities(),
                "waived": len(self.waived),
                "by_rule": self.counts(),
            },
            "targets": list(self.targets),
            "findings": [f.to_dict() for f in self.findings],
            "waived": [w.to_dict() for w in self.waived],
        }
