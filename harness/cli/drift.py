"""``contract-harness drift``: send each upstream's sample requests and report what changed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.cli import command_help
from harness.cli._common import load_contracts, state_start
from harness.cli.check import CASES_DIR_HELP, add_demo_argument, parse_shard, report_files
from harness.drift import DEFAULT_CONCURRENCY
from harness.errors import UsageError
from harness.project import state_dir


def register(sub: Any) -> None:
    p = sub.add_parser(
        "drift",
        help=command_help("drift"),
        description=(
            "Send each upstream's sample requests (upstreams: in contract.yaml), run every "
            "response through the boundary, fingerprint its shape and compare it with "
            "fixtures/historical/<tool>/. Without CONTRACTS: the project around the working "
            "directory (the nearest folder upward holding contracts/); --demo runs the embedded "
            "demo (whose upstreams need `contract-harness sandbox`). Exit 0 no drift, "
            "1 drift, a rejection or an upstream failure, 2 configuration error."
        ),
    )
    p.add_argument(
        "contracts",
        nargs="*",
        metavar="CONTRACTS",
        help="contract dirs, contracts/ folders or project roots",
    )
    p.add_argument("--tool", action="append", metavar="T", help="only this tool (repeatable)")
    add_demo_argument(p)
    p.add_argument(
        "--upstream",
        action="append",
        metavar="NAME",
        help="only the upstream of this name (repeatable)",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help="write each new shape into fixtures/historical/<tool>/ with a sidecar",
    )
    p.add_argument("--json", metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown report (CI job summary)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument(
        "--cases-dir",
        metavar="DIR",
        help=f"where rejected responses are written for 'verify' {CASES_DIR_HELP}",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"upstreams checked at once (default {DEFAULT_CONCURRENCY})",
    )
    p.add_argument(
        "--budget",
        type=float,
        metavar="S",
        help="stop the whole run after S seconds (default: the sum of the upstreams' timeouts); "
        "requests still unanswered are reported with reason run_budget",
    )
    p.add_argument("--shard", metavar="I/N",
                   help="check the I-th of N deterministic slices of the contracts (by tool name): one job of a "
                        "CI matrix; an empty slice is no error")
    p.add_argument("--list-env", action="store_true",
                   help="print the environment variables (${NAME}) the selected upstreams read, one per line, "
                        "and exit: what a CI job maps from its secrets; nothing is sent")
    p.set_defaults(run=run)


def sharded(contracts: list[Any], shard: tuple[int, int] | None) -> list[Any]:
    """The contracts of one slice: sorted by tool, every N-th from the I-th."""
    if shard is None:
        return contracts
    index, count = shard
    return [c for n, c in enumerate(sorted(contracts, key=lambda c: c.tool)) if n % count == index - 1]


def listed_env(contracts: list[Any], upstreams: list[str] | None) -> list[str]:
    """The ``${NAME}`` variables the selected upstreams of ``contracts`` read, sorted."""
    from harness.drift.template import env_names

    names: set[str] = set()
    for contract in contracts:
        for name, entry in contract.raw.get("upstreams", {}).items():
            if not upstreams or name in upstreams:
                names |= env_names(entry)
    return sorted(names)


def run(args: argparse.Namespace) -> int:
    # The runner (the engine, deepdiff, async transports) and the reporters load here, not for
    # drift --help.
    from harness.drift.runner import DriftRunner, plan
    from harness.reporting import dispatch, reporters_for
    from harness.reporting.drift import DriftContributor
    from harness.reporting.reproductions import protected

    if args.concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, not {args.concurrency}")
    shard = parse_shard(args.shard)
    contracts = sharded(load_contracts(args.contracts, args.tool, args.demo), shard)
    if args.list_env:
        for name in listed_env(contracts, args.upstream):
            print(name)
        return 0
    if shard is not None and not contracts:
        print(f"drift: shard {args.shard} holds no contract (fewer contracts than shards); nothing to check")
        return 0
    drift_plan = plan(contracts, upstreams=args.upstream)
    runner = DriftRunner(drift_plan, record=args.record, concurrency=args.concurrency, budget_s=args.budget)
    budget = runner.budget_s
    reporters = reporters_for(report_files(args), lambda: DriftContributor(budget), progress=False)
    # Rejected responses go to the cases directory only when they hold no secret; every event
    # is redacted (the runner's events already are; this is the same single point as check's).
    cases_dir = Path(args.cases_dir) if args.cases_dir else state_dir("cases", start=state_start(args.contracts,
                                                                                                args.demo))
    summary = dispatch(protected(runner.events(), drift_plan.env.redactor(), cases_dir), reporters)
    assert summary is not None
    return 0 if summary.ok else 1
