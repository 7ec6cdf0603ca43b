"""``contract-harness lock``: record published schema versions; ``--check`` proves none changed."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli import command_help
from harness.cli._common import load_contracts
from harness.cli.check import add_contract_arguments
from harness.lock import LOCK_FILE, Problem, base_changes, changes, check_ref, unlocked, update


def register(sub: Any) -> None:
    p = sub.add_parser(
        "lock",
        help=command_help("lock"),
        description=(
            f"A published schemas/vN.json never changes in place; a change is a new version. Record "
            f"the versions not yet in contracts/<tool>/{LOCK_FILE} (a hash of each), refusing when a "
            "recorded one changed. With --check write nothing: fail when a version changed or is not "
            "recorded, and with --base REF when a version file differs from the one at git REF (the "
            "base branch). Without CONTRACTS: the project around the working directory. Exit 0 "
            "recorded or all held, 1 a version changed in place (or, with --check, is not recorded), "
            "2 usage or configuration error."
        ),
    )
    add_contract_arguments(p)
    p.add_argument("--check", action="store_true", help="write nothing; fail on changed or unrecorded versions")
    p.add_argument("--base", metavar="REF",
                   help="with --check: also compare every version file with git REF (e.g. origin/main)")
    p.set_defaults(run=run)


def _report(problems: list[Problem]) -> int:
    # The same line as every other error the CLI prints (and as `check` refusing the version).
    for problem in problems:
        print(f"contract-harness: error: {problem.code}: {problem.file}: {problem.message}", file=sys.stderr)
    return 1 if problems else 0


def run(args: argparse.Namespace) -> int:
    if args.base is not None and not args.check:
        from harness.errors import UsageError

        raise UsageError("--base compares with a base branch and writes nothing: use it with --check")
    if args.base is not None:
        check_ref(args.base)
    contracts = load_contracts(args.contracts, args.tool, args.demo, locks=False)
    problems: list[Problem] = []
    if args.check:
        for contract in contracts:
            problems += [*changes(contract), *unlocked(contract)]
            if args.base is not None:
                seen = {p.file for p in problems}
                problems += [p for p in base_changes(contract, args.base) if p.file not in seen]
        if not problems:
            versions = sum(len(c.versions) for c in contracts)
            since = f" since {args.base}" if args.base else ""
            print(f"{LOCK_FILE}: {versions} version{'s' if versions != 1 else ''} of {len(contracts)} "
                  f"tool{'s' if len(contracts) != 1 else ''} recorded, none changed{since}")
        return _report(problems)
    for contract in contracts:
        found = list(changes(contract))
        if found:
            problems += found
            continue
        added = update(contract)
        what = "recorded " + ", ".join(f"v{v}" for v in added) if added else "nothing new"
        print(f"{contract.tool}: {what} in {contract.directory / LOCK_FILE}")
    return _report(problems)
