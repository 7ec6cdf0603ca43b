"""``contract-harness``: a thin face over the library.

Each subcommand is a module with ``register(subparsers)`` and ``run(args) -> int``, listed in
:data:`COMMANDS` with its one-line help. Only the module of the command being run is imported
(with what it needs): ``contract-harness --help`` loads no validator, YAML parser, terminal
renderer or async runtime. Exit 0 = everything held, 1 = a
contract finding (a rejection, a failing case, drift), 2 = usage or configuration error. Every
error is one line; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from harness.errors import one_line
from harness.version import __version__

#: Subcommands in the order ``--help`` lists them: name -> (module under harness.cli, one-line help).
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "run every fixture and near-miss mutation of every contract"),
    "verify": ("verify", "run one payload through the boundary and print the verdict"),
    "lint": ("lint", "check schemas and contracts for agent-boundary strictness"),
    "compat": ("compat", "compare two schema versions of a tool: change classes, witnesses, replay"),
    "drift": ("drift", "check live upstreams against their contracts and against what they sent before"),
    "sandbox": ("sandbox", "serve the demo tools' upstreams on loopback (HTTP, or an MCP server on stdio)"),
    "init": ("init", "scaffold contracts/TOOL/ with a closed skeleton schema and two fixtures"),
    "import": ("import_", "write contracts from an MCP server or an OpenAPI description"),
    "fuzz": ("fuzz", "check the fuzz properties of every contract with generated documents"),
    "lock": ("lock", "record each contract's published schema versions in schemas.lock (--check: none changed)"),
    "guard": ("guard", "an MCP stdio proxy: every result of a contracted tool passes the boundary first"),
}

EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: usage.invalid: {message}\n")


class _CommandParser(_Parser):
    """A command's parser (and its own commands', as `import mcp`): ``--debug`` is accepted after
    the command too, where a user adds it to the line that failed; absent there, it leaves the
    value given before the command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                          help="show tracebacks for errors")


def command_help(command: str) -> str:
    """A subcommand's one-line help (its module passes it to ``add_parser``)."""
    return COMMANDS[command][1]


def build_parser(commands: Iterable[str] | None = None, *, others: bool = True) -> argparse.ArgumentParser:
    """The parser, with the full parsers of ``commands`` (default: every one) and, for the others
    (unless not ``others``), a name and a line of help: enough to list them, nothing imported."""
    wanted = set(COMMANDS if commands is None else commands)
    parser = _Parser(
        prog="contract-harness",
        description="Contract testing and drift detection for AI-agent tool results.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for name, (module, line) in COMMANDS.items():
        if name in wanted:
            importlib.import_module(f"harness.cli.{module}").register(sub)
        elif others:
            sub.add_parser(name, help=line)
    return parser


def requested(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the top-level
    options take no value), if that is a command."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


#: Where hypothesis keeps its caches (its Unicode tables) when a command generates documents:
#: with the harness's other state in ``.contract-harness/``, not a ``.hypothesis/`` of its own.
HYPOTHESIS_HOME = ".contract-harness/hypothesis"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = requested(argv)
    # A command named: its parser alone (the others' are only listed by --help, which names none).
    parser = build_parser([command], others=False) if command else build_parser([])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # hypothesis reads this when first imported, which the commands do lazily, after this line.
    # Absolute, in the project root (the one CONTRACTS belong to, else the working directory's):
    # a command run from contracts/, or given a project from elsewhere, leaves no copy there.
    from harness.cli._common import state_start
    from harness.project import state_dir

    start = state_start(contract_paths(args), getattr(args, "demo", False))
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(state_dir("hypothesis", start=start)))
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


def contract_paths(args: argparse.Namespace) -> list[str]:
    """The CONTRACTS a command was given: its positional paths, and those of ``--contracts DIR``
    (``guard``'s one folder, ``compat``'s alias of its positional CONTRACTS)."""
    paths: list[str] = []
    for name in ("contracts", "contracts_option"):
        value = getattr(args, name, None)
        paths += [value] if isinstance(value, str) else list(value or [])
    return paths


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
                # A report is written atomically beside itself; the audit log is appended to.
                check_target(Path(value), option, probe=name != "audit")
            except OutputError as exc:  # before the run, a wrong path is a wrong option value
                raise UsageError(str(exc)) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
