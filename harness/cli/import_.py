"""``contract-harness import``: contracts from MCP servers and OpenAPI descriptions.

(The module is ``import_`` because ``import`` is a Python keyword; the command is ``import``.)
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli import command_help
from harness.cli._common import read_document
from harness.errors import UsageError

if TYPE_CHECKING:
    from harness.onboarding import Imported


def register(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help=command_help("import"),
        description=(
            "Write contracts (and fixtures) for existing tools: every tool of an MCP server that "
            "declares an outputSchema (or was sampled), or named operations of an OpenAPI 3.0/3.1 "
            "description. Schemas are kept as published; --strict adds a tightened next version. "
            "Nothing is overwritten and nothing is left behind on failure; the project's .gitignore "
            "and .gitattributes get what init adds. Exit 0 written, 2 usage or input error."
        ),
    )
    kinds = p.add_subparsers(dest="source", metavar="SOURCE", required=True)

    m = kinds.add_parser(
        "mcp",
        help="from an MCP server over stdio or Streamable HTTP (or a saved tools/list response)",
        description=(
            "Start the MCP server given after -- (or reach the one at --url over Streamable HTTP), "
            "list its tools and write contracts/<tool>/ for each tool with an outputSchema, with an "
            "mcp upstream pointing back at the server. "
            "--from FILE reads a saved tools/list response instead (the command after --, if "
            "any, is only recorded as the upstream). --sample ARGS.json calls tools and files "
            "the raw results as fixtures; --captures DIR files saved calls "
            "(DIR/<tool>/requests/<case>.json + DIR/<tool>/raw/<case>.json)."
        ),
    )
    m.add_argument("--url", metavar="URL",
                   help="the server's Streamable HTTP endpoint (instead of a command; may be a ${NAME} reference)")
    m.add_argument("--header", dest="headers", action="append", default=[], metavar="'NAME: VALUE'",
                   help="a header sent to --url (repeatable); a credential's value must be a ${NAME} reference, "
                        "e.g. 'Authorization: Bearer ${TOKEN}' (recorded as written, never its value)")
    m.add_argument("--env", dest="env", action="append", default=[], metavar="NAME",
                   help="an environment variable the server needs (repeatable): it is started with it, here and "
                        "in drift, and the upstream records ${NAME}, never the value")
    m.add_argument("--from", dest="from_file", metavar="FILE", help="a saved tools/list response (JSON or JSON Lines)")
    m.add_argument("--sample", metavar="ARGS.json",
                   help='tools to call and their arguments: {"tool": {args}} or {"tool": [{args}, ...]}')
    m.add_argument("--captures", metavar="DIR", help="saved tools/call requests and raw response lines")
    m.add_argument("--tool", dest="tools", action="append", metavar="NAME",
                   help="import only this tool (its MCP name; repeatable)")
    m.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="seconds the whole server session may take (default 30)")
    _common_options(m)
    m.add_argument("command", nargs="*", metavar="-- COMMAND [ARGS...]", help="the server command, after --")
    m.set_defaults(run=run_mcp)

    o = kinds.add_parser(
        "openapi",
        help="from an OpenAPI 3.0 or 3.1 description (JSON or YAML)",
        description=(
            "Write a contract for each --operation: the success response schema (2020-12, local "
            "$refs bundled into $defs, 3.0 nullable converted), the operation's response "
            "examples as fixtures, path parameters as request args and, where the response "
            "echoes them, bindings; an http upstream whose base URL comes from ${API_BASE_URL} "
            "(--base-url-env), with a sample request for GET operations only."
        ),
    )
    o.add_argument("spec", metavar="SPEC", help="the OpenAPI description (.json, .yaml, .yml)")
    o.add_argument("--operation", dest="operations", action="append", required=True, metavar="ID",
                   help="an operationId to import (repeatable)")
    o.add_argument("--base-url-env", metavar="NAME", default="API_BASE_URL",
                   help="the environment variable each upstream reads its base URL from (default API_BASE_URL); "
                        "the description's own server is never written into a contract")
    _common_options(o)
    o.set_defaults(run=run_openapi)


def _common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--into", metavar="DIR",
                   help="the project root (default: the nearest folder upward holding contracts/, "
                        "else the working directory)")
    p.add_argument("--name", dest="renames", action="append", default=[], metavar="SOURCE=TOOL",
                   help="contract name for a source name (resolves clashes; repeatable)")
    p.add_argument("--strict", action="store_true",
                   help="also write a tightened copy as schema version 2 (closed objects, bounds from the examples)")
    p.add_argument("--no-compat", dest="compat", action="store_false",
                   help="with --strict, skip the compat report v1 -> v2 (slow on very large schemas)")


def _renames(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for value in values:
        source, sep, target = value.rpartition("=")
        if not sep or not source or not target:
            raise UsageError(f"--name {value!r} must look like SOURCE=TOOL, e.g. --name tickets/search=tickets")
        out[source] = target
    return out


def _samples(path: str | None) -> list[tuple[str, Mapping[str, Any]]]:
    if path is None:
        return []
    data = read_document(path, "--sample")
    if not isinstance(data, Mapping):
        raise UsageError(f'--sample {path!r} must map tool names to arguments: {{"tool": {{...}}}}')
    out: list[tuple[str, Mapping[str, Any]]] = []
    for tool, value in data.items():
        for args in value if isinstance(value, list) else [value]:
            if not isinstance(args, Mapping):
                raise UsageError(
                    f"--sample {path!r}: the arguments of {tool!r} must be an object (or a list of objects)"
                )
            out.append((str(tool), args))
    return out


def _into(value: str | None) -> Path:
    """Where an import writes: ``--into``, else the project root found upward (as ``init`` and
    every other command find it), else the working directory (a new project)."""
    from harness.project import find_root

    return Path(value) if value else (find_root() or Path.cwd())


def _print(imported: Imported, source: str) -> None:
    from harness.cli._common import record_versions
    from harness.onboarding.summary import lines, next_steps, review_lines
    from harness.project import ensure_git_entries

    written = imported.written
    skipped = [f"  skipped tool {s.name!r}: {s.reason}" for s in imported.skipped]
    # As init does: the harness's state stays out of commits, fixtures are kept byte-exact.
    git = [f"added to {entry}" for entry in ensure_git_entries(written.root)]
    locked = record_versions(written)  # as init does: a pull request adding them passes the versions check
    for line in [*lines(written, source=source), *skipped, *git, *locked,
                 *review_lines(imported.reviews, written.root), *next_steps(written)]:
        print(line)


def run_mcp(args: argparse.Namespace) -> int:
    from harness.onboarding import import_mcp  # only when run: keeps every CLI start fast

    command = [c for c in args.command if c != "--"] if args.command else []
    samples = _samples(args.sample)
    if args.from_file is None and not command and args.url is None:
        raise UsageError("give the server command after -- (import mcp -- COMMAND ARGS...), --url URL or --from FILE")
    if args.from_file is not None and args.sample is not None:
        raise UsageError("--sample calls a live server; it cannot be combined with --from (use --captures)")
    imported = import_mcp(
        _into(args.into),
        command=command,
        url=args.url,
        headers=args.headers,
        env=args.env,
        from_file=Path(args.from_file) if args.from_file else None,
        captures=Path(args.captures) if args.captures else None,
        samples=samples,
        tools=args.tools,
        renames=_renames(args.renames),
        strict=args.strict,
        timeout_s=args.timeout,
        compat=args.compat,
    )
    _print(imported, args.from_file or args.url or " ".join(command))
    return 0


def run_openapi(args: argparse.Namespace) -> int:
    from harness.onboarding import import_openapi

    imported = import_openapi(
        _into(args.into),
        Path(args.spec),
        args.operations,
        renames=_renames(args.renames),
        strict=args.strict,
        compat=args.compat,
        base_url_env=args.base_url_env,
    )
    _print(imported, args.spec)
    return 0

