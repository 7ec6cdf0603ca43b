"""``contract-harness lint [PATH...]``: strictness rules for agent-boundary schemas."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli import command_help
from harness.cli._common import contract_roots
from harness.cli.check import add_demo_argument
from harness.errors import UsageError
from harness.files import write_atomic
from harness.project import CONTRACTS

# The linter (its rules, the contract loader, the schema model) is imported by the functions
# that lint: ``lint --help`` builds its parser without it.

FORMATS = ("text", "json", "sarif")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "lint",
        help=command_help("lint"),
        description=(
            "Lint contract directories (every schema version, the vendor schema, the agent "
            "view and the waivers in contract.yaml) and bare JSON Schema files of any "
            "supported dialect. Default PATH: contracts/ of the project around the working "
            "directory (the nearest folder upward holding contracts/); --demo lints the embedded demo. "
            "Exit 0 clean, 1 findings, 2 usage or configuration error."
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="contract dir, contracts/ folder, project root, contract.yaml, schema")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="output format (default: text)")
    p.add_argument("--select", action="append", metavar="IDS",
                   help="comma-separated rule ids to run (default: all); repeatable")
    p.add_argument("--ignore", action="append", metavar="IDS",
                   help="comma-separated rule ids not to run; repeatable")
    p.add_argument("--output", metavar="FILE",
                   help="write the report to FILE (atomically) and print a one-line summary")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    add_demo_argument(p)
    p.set_defaults(run=run)


def _ids(values: list[str] | None, option: str) -> list[str] | None:
    if values is None:
        return None
    ids = [part.strip() for value in values for part in value.split(",") if part.strip()]
    if not ids:
        raise UsageError(f"{option} needs at least one rule id")
    return ids


def default_paths(demo: bool = False) -> list[Path]:
    """``contracts/`` of the project around the working directory (or of the embedded demo)."""
    return [root / CONTRACTS for root in contract_roots([], demo)]


def list_rules() -> str:
    from harness.lint import RULES

    width = max(len(r.id) for r in RULES)
    return "".join(f"{r.id:<{width}}  {r.severity.value:<7}  {r.summary}\n" for r in RULES)


def run(args: argparse.Namespace) -> int:
    from harness.lint import lint_paths
    from harness.lint.reporters import reporters, summary

    if args.list_rules:
        sys.stdout.write(list_rules())
        return 0
    select = _ids(args.select, "--select")
    ignore = _ids(args.ignore, "--ignore")
    paths = contract_roots(args.paths, args.demo) if args.paths else default_paths(args.demo)
    report = lint_paths(paths, select=select, ignore=ignore)
    text = reporters()[args.format](report, None)
    if args.output:
        try:
            write_atomic(Path(args.output), text.encode("utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot write --output {args.output!r}: {exc.strerror}") from None
        print(f"{summary(report)}; report written to {args.output}")
    else:
        sys.stdout.write(text)
    return report.exit_code
