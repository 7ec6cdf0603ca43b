"""``contract-harness check``: every case of every contract, reported by rejecting layer."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from harness.cases import DEFAULT_MAX_MUTANTS, SOURCES, Case, cases_for, shard
from harness.cli import command_help
from harness.contract import Contract, discover, load_contract
from harness.drift.template import upstream_redactor
from harness.engine import Engine
from harness.errors import UsageError
from harness.mutations import REGISTRY
from harness.project import CONTRACTS, check_layout, project_root, state_dir
from harness.reporting import dispatch, reporters_for
from harness.reporting.reproductions import protected

DEFAULT_CASES_DIR = ".contract-harness/cases"
CASES_DIR_HELP = f"(default: {DEFAULT_CASES_DIR} in the project root)"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help=command_help("check"),
        description=(
            "Run every case (accepted, rejected and historical fixtures, and near-miss "
            "mutations of each accepted fixture) through the boundary and report which layer "
            "rejected each. Without CONTRACTS: the project around the working directory (the "
            "nearest folder upward holding contracts/); --demo runs the embedded demo. "
            "Exit 0 all held, 1 a case failed or a finding, 2 usage or configuration error."
        ),
    )
    add_selection_arguments(p)
    p.add_argument("--json", metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown report (CI job summary)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--cases-dir", metavar="DIR",
                   help=f"where payloads of failing cases are written for 'verify' {CASES_DIR_HELP}")
    p.add_argument("--no-differential", action="store_true",
                   help="skip the reference validator (python jsonschema) cross-check")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.set_defaults(run=run)


def add_contract_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("contracts", nargs="*", metavar="CONTRACTS",
                   help="contract dirs, contracts/ folders or project roots")
    p.add_argument("--tool", action="append", metavar="T", help="only this tool (repeatable)")
    add_demo_argument(p)


def add_demo_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--demo", action="store_true",
                   help="run on the embedded demo contracts (three tools) instead of a project")


def add_selection_arguments(p: argparse.ArgumentParser) -> None:
    add_contract_arguments(p)
    p.add_argument("--source", action="append", choices=SOURCES,
                   help="only cases of this source (repeatable)")
    p.add_argument("--operator", action="append", metavar="OP",
                   help="only mutations by this operator (repeatable)")
    p.add_argument("--max-mutants", type=int, default=DEFAULT_MAX_MUTANTS, metavar="N",
                   help=f"cap mutants per fixture, sampled deterministically (default {DEFAULT_MAX_MUTANTS})")
    p.add_argument("--shard", metavar="I/N", help="run the I-th of N deterministic slices")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r} must look like I/N, e.g. 2/4") from None
    if count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {text!r}: need 1 <= I <= N")
    return index, count


def contract_roots(paths: list[str], demo: bool = False) -> list[Path]:
    """What CONTRACTS stand for: the paths given, else the demo (``--demo``), else the project
    found upward from the working directory (none: a usage error with the hint)."""
    if paths and demo:
        raise UsageError("give CONTRACTS or --demo, not both")
    if paths:
        return [Path(p) for p in paths]
    root = project_root(demo=demo)
    # As the user would type it from here ("." or "../.."), so file names in messages are too.
    try:
        shown = os.path.relpath(root)
    except ValueError:  # pragma: no cover - another drive on Windows
        return [root]
    return [Path(shown) if not demo and not shown.startswith("../../..") else root]


def project_roots(roots: list[Path], contract_dirs: list[Path]) -> list[Path]:
    """The project roots behind the paths given and the contract directories found in them."""
    found: list[Path] = []
    for path in roots:
        if (path / CONTRACTS).is_dir():
            found.append(path)
        elif path.name == CONTRACTS and path.is_dir():
            found.append(path.parent)
    found += [d.parent.parent for d in contract_dirs if d.parent.name == CONTRACTS]
    return found


def load_contracts(paths: list[str], tools: list[str] | None, demo: bool = False,
                   locks: bool = True) -> list[Contract]:
    """Contracts named on the command line (default: the project around the working directory,
    or the embedded demo with ``demo``), after the project's layout is checked; with ``locks``,
    a published schema version changed in place (schemas.lock) is an error."""
    from harness import lock

    roots = contract_roots(paths, demo)
    directories = discover(roots)
    check_layout(project_roots(roots, directories))
    contracts = [load_contract(d) for d in directories]
    if locks:
        for contract in contracts:
            lock.verify(contract)
    if not contracts:
        raise UsageError(f"no contracts found under {', '.join(map(str, roots))}")
    if tools:
        known = {c.tool for c in contracts}
        unknown = sorted(set(tools) - known)
        if unknown:
            raise UsageError(f"unknown tool {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        contracts = [c for c in contracts if c.tool in tools]
    return contracts


def collect(args: argparse.Namespace) -> tuple[list[Case], list[str]]:
    """The selected cases of the selected contracts, and why some could not be made."""
    if args.max_mutants < 0:
        raise UsageError(f"--max-mutants must be >= 0, not {args.max_mutants}")
    if args.operator:
        REGISTRY.select(args.operator, select_option="--operator")
    sharding = parse_shard(args.shard)
    cases: list[Case] = []
    notes: list[str] = []
    for contract in load_contracts(args.contracts, args.tool, args.demo):
        collected = cases_for(
            contract,
            sources=args.source or SOURCES,
            max_mutants=args.max_mutants,
            operators=args.operator,
        )
        cases.extend(collected.cases)
        notes.extend(collected.notes)
    if sharding:
        cases = shard(cases, *sharding)
    return cases, notes


def report_files(args: argparse.Namespace) -> dict[str, str | None]:
    """The report files a command was asked for (``--json`` ... ``--html``)."""
    return {name: getattr(args, name, None) for name in ("json", "junit", "markdown", "html")}


def run(args: argparse.Namespace) -> int:
    cases, notes = collect(args)
    contracts = {id(c.contract): c.contract for c in cases}.values()
    redactor = upstream_redactor(contracts, os.environ)
    fixtures = {c.id: (c.path, c.contract.root) for c in cases if c.path is not None}
    reporters = reporters_for(report_files(args), progress=False if args.no_progress else None)
    engine = Engine(differential=not args.no_differential, unused_waivers=args.shard is None)
    cases_dir = Path(args.cases_dir) if args.cases_dir else state_dir("cases")
    summary = dispatch(protected(engine.run(cases, notes), redactor, cases_dir, fixtures), reporters)
    assert summary is not None
    return 0 if summary.ok else 1
