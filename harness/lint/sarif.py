"""SARIF 2.1.0 output, in the subset GitHub code scanning reads.

- ``runs[0].tool.driver.rules``: every rule that ran, with ``id``, ``name``,
  ``shortDescription``, ``fullDescription``, ``help`` (text and markdown, with the fix) and
  ``defaultConfiguration.level``.
- ``runs[0].results``: one per unwaived finding, with ``ruleId``/``ruleIndex``, ``level``,
  ``message``, a physical location (file relative to ``%SRCROOT%``, and ``region.startLine``
  when the pointer's line is known), a logical location naming the JSON pointer, and a
  ``partialFingerprints`` entry that survives line moves (rule, file, pointer).
- Waived findings are not results: GitHub ignores SARIF ``suppressions`` unless a repository
  opts in, so they would reopen as alerts. They are listed in ``runs[0].properties.waived``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harness.lint.model import Finding, LintReport
from harness.lint.registry import Rule
from harness.pointer import display
from harness.version import __version__

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "contract-harness lint"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "contractHarnessLint/v1"


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("_")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.description},
        "help": {
            "text": f"{rule.description}\n\nFix: {rule.fix}",
            "markdown": f"{rule.description}\n\n**Fix:** {rule.fix}",
        },
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": ["json-schema", "agent-boundary", rule.target.value]},
    }


def _artifact(file: str, root: Path) -> dict[str, Any]:
    """Relative to ``%SRCROOT%`` (the root) when the file is under it, else an absolute URI."""
    path = Path(file).resolve()
    if path.is_relative_to(root):
        return {"uri": path.relative_to(root).as_posix(), "uriBaseId": SRCROOT}
    return {"uri": path.as_uri()}


def _result(finding: Finding, index: int, root: Path) -> dict[str, Any]:
    artifact = _artifact(finding.file, root)
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if finding.line is not None:
        physical["region"] = {"startLine": finding.line}
    identity = "\0".join((finding.rule, artifact["uri"], finding.pointer))
    return {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": finding.severity.value,
        "message": {"text": f"{finding.message}. Fix: {finding.fix}"},
        "locations": [{
            "physicalLocation": physical,
            "logicalLocations": [{
                "name": display(finding.pointer),
                "fullyQualifiedName": f"{artifact['uri']}#{finding.pointer}",
                "kind": "object",
            }],
        }],
        "partialFingerprints": {FINGERPRINT: hashlib.sha256(identity.encode()).hexdigest()[:32]},
    }


def to_sarif(report: LintReport, root: Path | None = None) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (one run)."""
    base = (root or Path.cwd()).resolve()
    indexes = {rule.id: i for i, rule in enumerate(report.rules)}
    waived = [{
        "ruleId": w.finding.rule,
        "uri": _artifact(w.finding.file, base)["uri"],
        "pointer": w.finding.pointer,
        "line": w.finding.line,
        "reason": w.waiver.reason,
    } for w in report.waived]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(r) for r in report.rules],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri() + "/"}},
            "results": [_result(f, indexes[f.rule], base) for f in report.findings],
            "properties": {"waived": waived},
        }],
    }


def render_sarif(report: LintReport, root: Path | None = None) -> str:
    return json.dumps(to_sarif(report, root), ensure_ascii=False, indent=2) + "\n"
