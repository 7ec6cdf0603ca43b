"""``contract-harness check``: every case of every contract, reported by rejecting layer."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli import command_help
from harness.cli._common import (
    collecting_less,
    contract_directories,
    load_contracts,
    selected_tools,
    state_start,
)
from harness.errors import UsageError
from harness.project import state_dir

if TYPE_CHECKING:
    from harness.cases import Case, ToolCoverage
    from harness.contract import Contract
    from harness.events import CaseResult, Event

# The library (cases, engine, reporters) is imported by the functions that use it: other
# commands (lint, on every commit) import this module for its argument helpers alone.

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
    p.add_argument("--no-saved-verdicts", action="store_true",
                   help="validate every document with the reference afresh: neither read nor write the "
                        "reference's verdicts saved by earlier runs (.contract-harness/check/reference/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal, no status lines in CI")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also say what the run took from earlier runs (the reference's saved verdicts)")
    p.add_argument("--jobs", "-j", metavar="N",
                   help="run the contracts in N processes, or 'auto' (one per CPU it may use); the reports are those "
                        "of one job (default: auto; one job with --shard or where the platform cannot fork)")
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
    from harness.project import DEFAULT_MAX_MUTANTS, SOURCES

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


def check_options(args: argparse.Namespace) -> tuple[int, int] | None:
    """The selection options checked (a usage error for a bad one); the shard asked for."""
    from harness.mutations import REGISTRY

    if args.max_mutants < 0:
        raise UsageError(f"--max-mutants must be >= 0, not {args.max_mutants}")
    if args.operator:
        REGISTRY.select(args.operator, select_option="--operator")
    return parse_shard(args.shard)


@dataclass(frozen=True, slots=True)
class Stream:
    """The selected cases, made one contract at a time as they are consumed; the notes on why
    some could not be made and what each contract's near misses probed, filled in as they are;
    the contracts."""

    cases: Iterator[Case | CaseResult]
    notes: list[str]
    coverage: list[ToolCoverage]
    contracts: list[Contract]


def stream(args: argparse.Namespace) -> Stream:
    """The selected cases of the selected contracts, made one contract at a time as they are
    consumed (so a run holds one contract's cases, not all of them). Options and contracts are
    checked before this returns. With ``--shard`` the cases are listed first: a slice is taken
    by sorted id."""
    from harness.cases import SOURCES, cases_for, shard
    from harness.engine import version_findings

    sharding = check_options(args)
    # A published version changed in place is a finding of its tool, not the run's error: every
    # contract is checked, that one too.
    contracts = load_contracts(args.contracts, args.tool, args.demo, locks=False)
    notes: list[str] = []
    coverage: list[ToolCoverage] = []

    def made() -> Iterator[Case | CaseResult]:
        for contract in contracts:
            yield from version_findings(contract)
            collected = cases_for(contract, sources=args.source or SOURCES, max_mutants=args.max_mutants,
                                  operators=args.operator)
            notes.extend(collected.notes)
            if collected.coverage is not None:
                coverage.append(collected.coverage)
            yield from collected.cases

    cases = made()
    if sharding:
        cases = iter(shard(list(cases), *sharding))
    return Stream(cases, notes, coverage, contracts)


def collect(args: argparse.Namespace) -> tuple[list[Case | CaseResult], list[str]]:
    """The selected cases of the selected contracts, listed, and why some could not be made."""
    made = stream(args)
    return list(made.cases), made.notes


def report_files(args: argparse.Namespace) -> dict[str, str | None]:
    """The report files a command was asked for (``--json`` ... ``--html``)."""
    return {name: getattr(args, name, None) for name in ("json", "junit", "markdown", "html")}


def explains(args: argparse.Namespace) -> bool:
    """Whether the run's results carry the schema layer's reason for every rejection: only a
    report file shows it for a case that held (the terminal shows the cases that did not, which
    are always explained)."""
    return any(report_files(args).values())


def saved_verdicts(args: argparse.Namespace) -> Path | None:
    """Where the reference's verdicts are saved between runs (None: not at all)."""
    if args.no_differential or args.no_saved_verdicts:
        return None
    from harness.differential.verdicts import VERDICTS_DIR, prepare

    prepare()  # before any fork: the workers inherit what it computed
    return state_dir(*VERDICTS_DIR, start=state_start(args.contracts, args.demo))


def run(args: argparse.Namespace) -> int:
    import harness.parallel as parallel
    from harness.reporting import dispatch, reporters_for

    jobs = parallel.default_fallback(args.jobs, parallel.jobs_option(args.jobs), shard=bool(args.shard))
    if jobs > 1 and args.shard:
        raise UsageError(f"--jobs {args.jobs} and --shard {args.shard}: a shard runs in one process "
                         "(--shard splits a run among machines); drop one of them")
    if jobs > 1 and not parallel.can_fork():
        print(f"contract-harness: --jobs {args.jobs}: this platform cannot fork; one job", file=sys.stderr)
        jobs = 1
    reporters = reporters_for(report_files(args), progress=False if args.no_progress else None, verbose=args.verbose)
    cases_dir = Path(args.cases_dir) if args.cases_dir else state_dir("cases", start=state_start(args.contracts,
                                                                                                args.demo))
    with collecting_less():
        events = _in_jobs(args, jobs, cases_dir) if jobs > 1 else None
        if events is None:
            events = _in_one_job(args, cases_dir)
        summary = dispatch(events, reporters)
    assert summary is not None
    return 0 if summary.ok else 1


def _in_one_job(args: argparse.Namespace, cases_dir: Path) -> Iterator[Event]:
    from harness.differential.verdicts import ReferenceVerdicts
    from harness.drift.template import upstream_redactor
    from harness.engine import Engine
    from harness.events import CaseResult
    from harness.reporting.reproductions import protected

    made = stream(args)
    cases, contracts = made.cases, made.contracts
    redactor = upstream_redactor(contracts, os.environ)
    # Where the case being reported came from: the engine evaluates one case at a time, in the
    # order made, and its events are reported before the next case is made, so only the current
    # case's fixture file is ever asked for (and nothing grows with the run).
    fixtures: dict[str, tuple[Path, Path]] = {}

    def tracked() -> Iterator[Case | CaseResult]:
        for case in cases:
            fixtures.clear()
            if not isinstance(case, CaseResult) and case.path is not None:
                fixtures[case.id] = (case.path, case.contract.root)
            yield case

    saved = saved_verdicts(args)
    engine = Engine(differential=not args.no_differential, unused_waivers=args.shard is None,
                    saved=ReferenceVerdicts(saved) if saved else None, explain=explains(args))
    events = engine.run(tracked(), made.notes, tools=[c.tool for c in contracts], coverage=made.coverage)
    return protected(events, redactor, cases_dir, fixtures)


def _in_jobs(args: argparse.Namespace, jobs: int, cases_dir: Path) -> Iterator[Event] | None:
    """The run's events from ``jobs`` forked workers, each loading and running one contract at a
    time; None when fewer than two contracts are selected (one job runs them)."""
    from itertools import chain

    import harness.parallel as parallel
    from harness.cases import SOURCES
    from harness.drift.template import upstream_redactor_in
    from harness.reporting.reproductions import protected

    check_options(args)
    directories = contract_directories(args.contracts, args.demo)
    selected = selected_tools([d.name for d in directories], args.tool)
    if len(selected) < 2:
        return None
    fixtures: dict[str, tuple[Path, Path]] = {}

    def reported(result: CaseResult, source: parallel.Source) -> None:
        fixtures.clear()
        if source is not None:
            fixtures[result.id] = source

    options = parallel.Options(tuple(args.source or SOURCES), args.max_mutants,
                               tuple(args.operator) if args.operator else None, not args.no_differential,
                               saved_verdicts(args), explains(args))
    events = parallel.run(directories, selected, options, jobs, reported)

    def redacted() -> Iterator[Event]:
        first = next(events)  # RunStarted: the workers are forked and at work
        # Read while they are: the contracts' upstream variables, from the selected contracts.
        redactor = upstream_redactor_in([d for d in directories if d.name in selected], os.environ)
        yield from protected(chain([first], events), redactor, cases_dir, fixtures)

    return redacted()
