"""``contract-harness compat TOOL --from 1 --to 2``: what a new schema version does to old shapes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from harness.cli import command_help
from harness.cli._common import contract_directories
from harness.cli.check import add_demo_argument
from harness.compat.model import Budget, Policy
from harness.errors import UsageError, did_you_mean
from harness.files import write_atomic


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compat",
        help=command_help("compat"),
        description=(
            "Classify every difference between two schema versions of TOOL (reader-safe: old "
            "documents still accepted; writer-safe: new documents accepted by old readers), prove "
            "breaks with witness documents, and replay the tool's historical and accepted fixtures "
            "against both. Exit 0 when the policy holds and every expected rejection happens for "
            "the intended reason, 1 otherwise, 2 on usage errors."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="a tool of the project, or its contracts/TOOL/ folder")
    p.add_argument("--from", dest="old", type=int, metavar="N", help="old version (default: the one before --to)")
    p.add_argument("--to", dest="new", type=int, metavar="N", help="new version (default: the current one)")
    p.add_argument("--policy", choices=[p.value for p in Policy],
                   help="what the change may break (default: the contract's compat.policy, else full)")
    p.add_argument("contracts", nargs="*", metavar="CONTRACTS",
                   help="contract dirs, contracts/ folders or project roots, as for check; default: the project "
                        "around the working directory (nearest folder upward holding contracts/)")
    p.add_argument("--contracts", dest="contracts_option", action="append", metavar="DIR",
                   help="the same as CONTRACTS (kept for scripts that name the folder this way)")
    add_demo_argument(p)
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    p.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown to FILE")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report to FILE")
    p.add_argument("--examples", type=int, default=Budget().examples, metavar="N",
                   help="candidates per targeted witness search; 0: no search, the static "
                        "classification only (default: %(default)s)")
    p.add_argument("--samples", type=int, default=Budget().samples, metavar="N",
                   help="documents generated from each version (default: %(default)s)")
    p.add_argument("--seconds", type=float, default=Budget().seconds, metavar="S",
                   help="safety-net wall clock per witness search; searches end at their first witness or "
                        "after --examples candidates (default: %(default)s)")
    p.set_defaults(run=run)


def _contract_dir(tool: str, paths: list[str], demo: bool) -> Path:
    """TOOL's contract directory among the CONTRACTS given (default: the project around the
    working directory, or the demo); an unknown tool is a usage error naming the known ones."""
    if paths and demo:
        raise UsageError("give CONTRACTS or --demo, not both")
    for path in paths:
        if not Path(path).is_dir():
            raise UsageError(f"CONTRACTS {path!r} is not a directory")
    if not paths and not demo and (Path(tool) / "contract.yaml").is_file():
        # TOOL given as its contract folder (`compat contracts/orders`), as check takes it.
        paths, tool = [tool], Path(tool).resolve().name
    directories = {d.name: d for d in contract_directories(paths, demo)}
    if tool not in directories:
        where = ", ".join(paths) if paths else "the project"
        raise UsageError(f"no tool {tool!r} in {where} (tools: {', '.join(sorted(directories)) or 'none'})"
                         + did_you_mean(tool, directories))
    return directories[tool]


def run(args: argparse.Namespace) -> int:
    # The loader (YAML, the validator, the schema model) loads here, not for compat --help.
    import harness.lock as lock
    from harness.contract import load_contract

    if args.examples < 0 or args.samples < 0 or args.seconds <= 0:
        raise UsageError("--examples and --samples must be at least 0, --seconds positive")
    contract = load_contract(_contract_dir(args.tool, [*args.contracts, *(args.contracts_option or [])], args.demo))
    lock.verify(contract)
    for option, version in (("--from", args.old), ("--to", args.new)):
        if version is not None and version not in contract.versions:
            raise UsageError(f"{option} {version}: {contract.tool} has no version {version} "
                             f"(versions: {', '.join(map(str, contract.versions))})")
    from harness.compat.api import compare  # loads hypothesis: only when comparing
    from harness.compat.render import html_page, markdown, text

    report = compare(contract, args.old, args.new, policy=args.policy,
                     budget=Budget(examples=args.examples, samples=args.samples, seconds=args.seconds))
    if args.json:
        body = json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str) + "\n"
        write_atomic(Path(args.json), body.encode())
    if args.markdown:
        write_atomic(Path(args.markdown), markdown(report).encode())
    if args.html:
        from harness.reporting.html import sections_page

        page = html_page(report)
        body = sections_page(page.title, ok=page.ok, verdict=page.verdict, sections=page.sections)
        write_atomic(Path(args.html), body.encode())
    print(text(report))
    return 0 if report.ok else 1
