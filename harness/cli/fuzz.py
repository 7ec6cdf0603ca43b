"""``contract-harness fuzz``: the fuzz properties of every contract, under a hypothesis profile."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli import command_help
from harness.cli._common import load_contracts, state_start
from harness.cli.check import add_contract_arguments, report_files
from harness.errors import UsageError
from harness.fuzz.properties import PROPERTIES

PROFILE_NAMES = ("ci", "nightly")
DEFAULT_FIXTURES_DIR = ".contract-harness/fuzz"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "fuzz",
        help=command_help("fuzz"),
        description=(
            "Generate documents from each contract (valid, bound and fresh ones; near misses through "
            "every mutation operator; arbitrary bytes; canaries; vendor documents for adapters) and "
            "check the fuzz properties on them. A failure is shrunk to a minimal example, written out "
            "as a fixture with its sidecar, and printed with a command that reproduces it. Without "
            "CONTRACTS: the project around the working directory (the nearest folder upward holding "
            "contracts/); --demo fuzzes the embedded demo. Exit 0 every property held, "
            "1 a property failed or a finding, 2 usage or configuration error."
        ),
    )
    add_contract_arguments(p)
    p.add_argument("--property", action="append", metavar="P", dest="properties",
                   help=f"only this property (repeatable): {', '.join(PROPERTIES.names())}")
    p.add_argument("--profile", choices=PROFILE_NAMES, default="ci",
                   help="ci: derandomized, 100 examples per property and tool (default); "
                        "nightly: random with a printed seed, 2,000 examples, example database on")
    p.add_argument("--examples", type=int, metavar="N", help="examples per property and tool (overrides the profile)")
    p.add_argument("--seed", type=int, metavar="S", help="hypothesis seed (to reproduce a nightly run)")
    p.add_argument("--blob", metavar="B",
                   help="replay exactly one failing example (the blob a failure printed); needs one --tool and "
                        "one --property")
    p.add_argument("--generator", choices=("sampled", "native"), default="sampled",
                   help="sampled: each drawn value sampled from one hypothesis seed, a failure searched again "
                        "natively so that it shrinks (default); native: hypothesis draws every choice (what a "
                        "--blob of a shrunk failure replays with)")
    p.add_argument("--regenerate", action="store_true",
                   help="generate new examples even for a property whose inputs (schemas, contract.yaml, adapter, "
                        "fixtures, harness version) are unchanged since its last green run, which the ci profile "
                        "otherwise replays")
    p.add_argument("--json", metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown report (CI job summary)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--fixtures-out", metavar="DIR",
                   help=f"where shrunk failing examples are written as fixtures "
                        f"(default: {DEFAULT_FIXTURES_DIR} in the project root)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal, no status lines in CI")
    p.add_argument("--jobs", "-j", metavar="N",
                   help="fuzz the tools in N processes, or 'auto' (one per CPU it may use); the reports are those "
                        "of one job (default: auto; one job where the platform cannot fork)")
    p.set_defaults(run=run)


def _options(args: argparse.Namespace) -> Any:
    from harness.fuzz.runner import project_options

    if args.examples is not None and args.examples < 1:
        raise UsageError(f"--examples must be at least 1, not {args.examples}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, not {args.seed}")
    if args.properties:
        PROPERTIES.select(args.properties, select_option="--property")
    if args.blob is not None and (len(args.tool or []) != 1 or len(args.properties or []) != 1):
        raise UsageError("--blob replays one example: give exactly one --tool and one --property")
    return project_options(
        state_start(args.contracts, args.demo),
        profile=args.profile,
        examples=args.examples,
        seed=args.seed,
        properties=tuple(args.properties) if args.properties else None,
        blob=args.blob,
        fixtures_dir=Path(args.fixtures_out) if args.fixtures_out else None,
        regenerate=args.regenerate,
        generator=args.generator,
    )


def run(args: argparse.Namespace) -> int:
    from harness.parallel import can_fork, default_fallback, jobs_option

    jobs = default_fallback(args.jobs, jobs_option(args.jobs))
    contracts = load_contracts(args.contracts, args.tool, args.demo)
    options = _options(args)
    if jobs > 1 and not can_fork():
        print(f"contract-harness: --jobs {args.jobs}: this platform cannot fork; one job", file=sys.stderr)
        jobs = 1
    if args.blob is not None and not all(PROPERTIES[args.properties[0]].applies(c) for c in contracts):
        raise UsageError(f"property {args.properties[0]} does not apply to {contracts[0].tool}")
    from harness.fuzz.runner import fuzz  # loads hypothesis: only when fuzzing
    from harness.reporting import dispatch, reporters_for
    from harness.reporting.fuzz import FuzzContributor

    reporters = reporters_for(report_files(args), FuzzContributor, progress=False if args.no_progress else None)
    summary = dispatch(fuzz(contracts, options, jobs=jobs), reporters)
    return 0 if summary is not None and summary.ok else 1
