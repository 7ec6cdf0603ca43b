"""``contract-harness init TOOL``: scaffold a closed contract with two fixtures that pass ``check``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.cli import command_help


def register(sub: Any) -> None:
    p = sub.add_parser(
        "init",
        help=command_help("init"),
        description=(
            "Scaffold contracts/TOOL/contract.yaml, schemas/v1.json (a closed success/failure "
            "envelope), one accepted and one rejected fixture with sidecars, schemas.lock recording v1, "
            "and the project's .gitignore (.contract-harness/) and .gitattributes (fixtures byte-exact) "
            "entries. "
            "Refuses to overwrite anything. The scaffold passes 'check' as generated. Exit 0 written, "
            "2 usage error (an invalid name, an existing directory)."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="the tool's name (letters, digits, '_', '.', '-')")
    p.add_argument("--into", metavar="DIR",
                   help="the project root (default: the nearest folder upward holding contracts/, "
                        "else the working directory)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from harness.cli._common import record_versions
    from harness.onboarding import init_tool, review  # only when run: keeps every CLI start fast
    from harness.onboarding.summary import lines, next_steps, review_lines
    from harness.project import ensure_git_entries, find_root

    into = Path(args.into) if args.into else (find_root() or Path.cwd())
    written = init_tool(args.tool, into)
    reviews = [review(t, compat=False) for t in written.tools]
    git = [f"added to {entry}" for entry in ensure_git_entries(written.root)]
    locked = record_versions(written)
    steps = next_steps(written)
    if steps:
        steps.append("      contract-harness lock   (once v1 says what your tool sends: records it again; "
                     "commit schemas.lock with the contract)")
    for line in [*lines(written, source="the skeleton", verb="scaffolded"), *git, *locked,
                 *review_lines(reviews, written.root), *steps]:
        print(line)
    return 0
