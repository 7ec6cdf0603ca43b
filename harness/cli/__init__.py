"""``contract-harness``: a thin face over the library.

Each subcommand is a module with ``register(subparsers)`` and ``run(args) -> int``. Exit 0 =
everything held, 1 = a contract finding (a rejection, a failing case, drift), 2 = usage or
configuration error. Every error is one line; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from harness import __version__
from harness.errors import one_line

#: Subcommand modules, in the order ``--help`` lists them (``import_`` registers ``import``).
COMMANDS = ("check", "verify", "lint", "compat", "drift", "sandbox", "init", "import_", "fuzz", "lock", "guard")

EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: usage.invalid: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="contract-harness",
        description="Contract testing and drift detection for AI-agent tool results.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"harness.cli.{name}")
        module.register(sub)
    return parser


#: Where hypothesis keeps its caches (its Unicode tables) when a command generates documents:
#: with the harness's other state in ``.contract-harness/``, not a ``.hypothesis/`` of its own.
HYPOTHESIS_HOME = ".contract-harness/hypothesis"


def main(argv: Sequence[str] | None = None) -> int:
    # hypothesis reads this when first imported, which the commands do lazily, after this line.
    # Absolute, in the project root: a command run from contracts/ leaves no copy there.
    from harness.project import state_dir

    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(state_dir("hypothesis")))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        check_outputs(args)
        return int(args.run(args))
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("contract-harness: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(f"contract-harness: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


#: Options naming a file a command writes: checked before the command runs, so a directory
#: named ``report.json`` or a symlink fails in a second, not after the whole run.
OUTPUT_OPTIONS = {"json": "--json", "junit": "--junit", "markdown": "--markdown", "html": "--html",
                  "output": "--output", "audit": "--audit"}


def check_outputs(args: argparse.Namespace) -> None:
    from pathlib import Path

    from harness.errors import UsageError
    from harness.files import OutputError, check_target

    for name, option in OUTPUT_OPTIONS.items():
        value = getattr(args, name, None)
        if isinstance(value, str) and value != "-":
            try:
                check_target(Path(value), option)
            except OutputError as exc:  # before the run, a wrong path is a wrong option value
                raise UsageError(str(exc)) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
