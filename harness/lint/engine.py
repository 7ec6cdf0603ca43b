"""Run the rules over schema files and contracts, apply waivers, and return a report.

The engine never prints. :func:`lint_paths` is what the CLI and the pre-commit hook call;
:func:`lint_contract` is what the pytest plugin calls once per contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.contract import (
    CONTRACT_FILE,
    SCHEMAS_DIR,
    Contract,
    discover,
    load_contract,
)
from harness.datafiles import load_json_file
from harness.errors import ContractError, UsageError, closest
from harness.lint.model import Finding, LintReport, WaivedFinding
from harness.lint.operators import OPERATORS
from harness.lint.registry import RULES, Hit, Rule, RuleRegistry, Target
from harness.lint.scopes import ContractScope, WaiverUse
from harness.locate import Locator
from harness.schemas.document import Document

CONTRACT_LABEL = "contract"


def lint_schema(
    schema: Any,
    *,
    file: str | Path = "<schema>",
    registry: RuleRegistry = RULES,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> LintReport:
    """Lint one schema (already parsed) on its own, in the dialect its ``$schema`` names."""
    rules = registry.select(select, ignore)
    document = Document(schema, file=file)
    findings = _run_documents(rules, [document], tool=None)
    return LintReport(_sorted(_with_lines(findings)), (), (str(file),), rules)


def lint_file(
    path: str | Path,
    *,
    registry: RuleRegistry = RULES,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> LintReport:
    """Lint a bare schema file. A file that is not strict JSON is a ``ContractError``."""
    schema = load_json_file(Path(path))
    return lint_schema(schema, file=path, registry=registry, select=select, ignore=ignore)


def contract_documents(contract: Contract) -> dict[str, Document]:
    """Every schema of a contract by label: ``v1``, ``v2``, ..., and ``vendor``; references
    among the contract's own schema files are followed."""
    resources = contract.schema_resources()
    documents = {
        f"v{v}": Document(contract.schema(v), file=contract.schema_path(v), label=f"v{v}",
                          role="version", contract=contract, resources=resources)
        for v in contract.versions
    }
    vendor = contract.raw.get("vendor_schema")
    if isinstance(vendor, str):
        documents["vendor"] = Document(contract.vendor_schema, file=contract.directory / vendor,
                                       label="vendor", role="vendor", contract=contract,
                                       resources=resources)
    elif contract.vendor_schema is not None:
        documents["vendor"] = Document(contract.vendor_schema, file=contract.path, label="vendor",
                                       role="vendor", contract=contract,
                                       base_pointer="/vendor_schema", resources=resources)
    return documents


def _suggest_operator(name: str) -> str:
    """`` (did you mean X?)`` for a near miss of an operator's name, as the registry says it."""
    close = closest(name, OPERATORS)
    return f" (did you mean {close}?)" if close else ""


def lint_contract(
    contract: Contract | str | Path,
    *,
    registry: RuleRegistry = RULES,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> LintReport:
    """Lint a contract: every schema version, the vendor schema, the agent view, the waivers."""
    if not isinstance(contract, Contract):
        contract = load_contract(contract)
    rules = registry.select(select, ignore)
    documents = contract_documents(contract)
    findings = _run_documents(rules, list(documents.values()), tool=contract.tool)
    scope = ContractScope(contract, documents)
    for rule in rules:
        if rule.target is Target.CONTRACT:
            findings += [_contract_finding(rule, hit, contract) for hit in rule.run(scope)]
    kept, waived, matched = _apply_waivers(contract, findings)
    labels = (*documents, CONTRACT_LABEL)
    ran = {r.id for r in rules}
    for index, waiver in enumerate(contract.waivers):
        if waiver.check:
            # A check near miss's waiver: check applies it and reports it unused; lint says
            # whether it names an operator at all.
            known = waiver.check in OPERATORS
            use = WaiverUse(waiver, index, 0, known, False, labels, "" if known else _suggest_operator(waiver.check))
        else:
            use = WaiverUse(waiver, index, matched[index], waiver.rule in registry,
                            waiver.rule in ran, labels, registry.suggest(waiver.rule))
        for rule in rules:
            if rule.target is Target.WAIVER:
                kept += [_contract_finding(rule, hit, contract) for hit in rule.run(use)]
    locator = Locator()
    return LintReport(
        _sorted(_with_lines(kept, locator)),
        tuple(WaivedFinding(_with_line(w.finding, locator), w.waiver, w.index) for w in waived),
        (str(contract.directory),),
        rules,
    )


def lint_paths(
    paths: Sequence[str | Path],
    *,
    registry: RuleRegistry = RULES,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> LintReport:
    """Lint contract directories, ``contracts/`` folders, project roots and schema files.

    A ``contract.yaml``, or a ``.json`` file in a contract's ``schemas/``, lints that whole
    contract (so its waivers apply); any other ``.json`` file is linted as a bare schema.
    """
    registry.select(select, ignore)  # report a bad rule id before reading anything
    contracts: list[Path] = []
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = discover([path])
            if not found:
                raise UsageError(f"{raw}: no {CONTRACT_FILE} here or under contracts/ "
                                 "(pass a contract directory, a contracts/ folder or schema files)")
            contracts += found
        elif path.is_file():
            owner = _owning_contract(path)
            if owner is not None:
                contracts.append(owner)
            elif path.suffix == ".json":
                files.append(path)
            else:
                raise UsageError(f"{raw}: neither a {CONTRACT_FILE} nor a .json schema file")
        else:
            raise ContractError("no such file or directory", file=str(raw), code="contract.missing")
    reports = [lint_contract(c, registry=registry, select=select, ignore=ignore)
               for c in _unique(contracts)]
    reports += [lint_file(f, registry=registry, select=select, ignore=ignore)
                for f in _unique(files)]
    if not reports:
        return LintReport(rules=registry.select(select, ignore))
    return LintReport.merge(reports)


def _owning_contract(path: Path) -> Path | None:
    if path.name == CONTRACT_FILE:
        return path.parent
    in_schemas = path.suffix == ".json" and path.parent.name == SCHEMAS_DIR
    if in_schemas and (path.parent.parent / CONTRACT_FILE).is_file():
        return path.parent.parent
    return None


def _unique(paths: list[Path]) -> list[Path]:
    seen: dict[Path, Path] = {}
    for path in paths:
        seen.setdefault(path.resolve(), path)
    return list(seen.values())


# --------------------------------------------------------------------------- running


def _run_documents(
    rules: Sequence[Rule], documents: list[Document], tool: str | None
) -> list[Finding]:
    node_rules = [r for r in rules if r.target is Target.NODE]
    document_rules = [r for r in rules if r.target is Target.DOCUMENT]
    findings: dict[tuple[str, str, str, str], Finding] = {}
    for document in documents:
        vendor = document.role == "vendor"
        for node in document.nodes:
            for rule in node_rules:
                if (node.asserting or rule.all_nodes) and (rule.vendor or not vendor):
                    for hit in rule.run(node):
                        found = _finding(rule, hit, document, node.pointer, tool)
                        findings.setdefault(_identity(found), found)
        for rule in document_rules:
            if vendor and not rule.vendor:
                continue
            for hit in rule.run(document):
                found = _finding(rule, hit, document, "", tool)
                findings.setdefault(_identity(found), found)
    return list(findings.values())


def _identity(finding: Finding) -> tuple[str, str, str, str]:
    return (finding.rule, finding.file, finding.pointer, finding.message)


def _finding(rule: Rule, hit: Hit, document: Document, pointer: str, tool: str | None) -> Finding:
    where = hit.pointer if hit.pointer is not None else pointer
    return Finding(rule.id, rule.severity, hit.message, hit.fix or rule.fix, document.file,
                   document.base_pointer + where, document.label, tool)


def _contract_finding(rule: Rule, hit: Hit, contract: Contract) -> Finding:
    return Finding(rule.id, rule.severity, hit.message, hit.fix or rule.fix, str(contract.path),
                   hit.pointer or "", CONTRACT_LABEL, contract.tool)


def _apply_waivers(
    contract: Contract, findings: list[Finding]
) -> tuple[list[Finding], list[WaivedFinding], list[int]]:
    """Split findings into kept and waived; count what each waiver matched."""
    matched = [0] * len(contract.waivers)
    kept: list[Finding] = []
    waived: list[WaivedFinding] = []
    for finding in findings:
        for index, waiver in enumerate(contract.waivers):
            if (
                waiver.rule == finding.rule
                and _normal(waiver.pointer) == finding.pointer
                and (waiver.schema is None or waiver.schema == finding.schema)
            ):
                matched[index] += 1
                waived.append(WaivedFinding(finding, waiver, index))
                break
        else:
            kept.append(finding)
    return kept, waived, matched


def _normal(pointer: str) -> str:
    """A waiver may write the root of a schema as ``/`` (no schema keyword is named "")."""
    return "" if pointer == "/" else pointer


def _with_line(finding: Finding, locator: Locator) -> Finding:
    line = locator.line(finding.file, finding.pointer)
    return finding if line is None else replace(finding, line=line)


def _with_lines(findings: list[Finding], locator: Locator | None = None) -> list[Finding]:
    locator = locator or Locator()
    return [_with_line(f, locator) for f in findings]


def _sorted(findings: list[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=lambda f: f.sort_key))
