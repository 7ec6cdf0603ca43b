"""``contract-harness guard -- COMMAND [ARGS...]``: the contracts in front of a running agent."""

from __future__ import annotations

import argparse
import os
from typing import Any

from harness.cli import command_help
from harness.errors import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "guard",
        help=command_help("guard"),
        description=(
            "Start the MCP server COMMAND and relay JSON-RPC between it and the client on "
            "stdin/stdout. Each tools/call result of a tool that has a contract goes through the "
            "boundary; the client gets the agent view (structuredContent and one text block) or "
            "the failure envelope with isError: true, never the server's own text. tools/list "
            "shows each guarded tool with the agent view's outputSchema and hides tools without "
            "a contract (--allow-unguarded lets them through). Diagnostics go to stderr. "
            "Configure your MCP client to start: contract-harness guard [OPTIONS] -- COMMAND [ARGS...]"
        ),
    )
    p.add_argument(
        "--contracts",
        action="append",
        metavar="DIR",
        help="contract dirs, contracts/ folders or project roots (repeatable; default: the nearest "
        "contracts/ folder, from the working directory upward)",
    )
    p.add_argument("--demo", action="store_true", help="guard with the embedded demo contracts")
    p.add_argument("--tool", action="append", metavar="T", help="guard only this contract's tool (repeatable)")
    p.add_argument(
        "--map",
        action="append",
        metavar="MCP_NAME=TOOL",
        help="the MCP tool MCP_NAME is guarded by contract TOOL (when the names differ; repeatable)",
    )
    p.add_argument(
        "--upstream",
        metavar="NAME",
        help="read tool name, meta, result and timeouts from the mcp upstream of this name",
    )
    p.add_argument(
        "--allow-unguarded",
        action="store_true",
        help="let tools without a contract through unchecked (default: hidden and denied)",
    )
    p.add_argument(
        "--pass",
        dest="passed",
        action="append",
        metavar="SURFACE",
        help="relay a surface other than tools as the server sends it (repeatable): resources, prompts, "
        "completions, logging, subscriptions, sampling, elicitation (default: none; refused)",
    )
    p.add_argument("--audit", metavar="FILE", help="append one JSON line per guarded call to FILE")
    p.add_argument("--raw-dir", metavar="DIR", help="keep a protected copy of every raw result in DIR")
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="time per guarded call when the contract's mcp upstream sets no timeout_s, and per other request "
        "(default 60)",
    )
    p.add_argument(
        "--max-message-bytes",
        type=int,
        metavar="N",
        help="longest JSON-RPC line ever buffered (default 16 MiB; each guarded tool also has "
        "its own cap from its contract)",
    )
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve MCP over Streamable HTTP at http://HOST:PORT/mcp (a client configures that URL in place "
        "of the server's) instead of stdio; each client session gets its own server process (port 0: any "
        "free port, printed on stderr)",
    )
    p.add_argument(
        "--url",
        metavar="URL",
        help="guard the remote MCP server at URL (Streamable HTTP) instead of starting -- COMMAND",
    )
    p.add_argument(
        "--header",
        dest="headers",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a header sent to --url (repeatable); values may hold ${NAME} references, filled from the "
        "environment and redacted from every output; a credential's value must be one",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    p.set_defaults(run=run)


def _mapping(entries: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in entries or []:
        mcp_name, sep, tool = entry.partition("=")
        if not sep or not mcp_name or not tool:
            raise UsageError(f"--map {entry!r}: expected MCP_NAME=TOOL (e.g. --map read_text_file=file_text)")
        if mcp_name in out:
            raise UsageError(f"--map {mcp_name!r} is given twice")
        out[mcp_name] = tool
    return out


def _nearest_contracts() -> list[str]:
    """The project's contracts: the project root found upward from the working directory, as
    every other command finds it (:func:`harness.project.find_root`). Never the embedded demo
    unless asked (--demo): a guard in front of a real server with the wrong contracts would deny
    every tool, or worse, guard the wrong ones."""
    from pathlib import Path

    from harness.cli._common import contract_roots
    from harness.project import CONTRACTS, find_root

    if find_root() is None:
        raise UsageError(
            f"no {CONTRACTS}/ folder in {Path.cwd()} or above it: give --contracts DIR (an MCP client may start "
            "the guard in another directory: use an absolute path), or --demo for the embedded demo contracts",
            code="guard.no_contracts",
        )
    # As every other command names it (relative to here), so messages name files alike.
    return [str(root) for root in contract_roots([])]


def run(args: argparse.Namespace) -> int:
    from harness.guard.policy import DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_TIMEOUT_S

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if args.url is not None and command:
        raise UsageError("--url and a server COMMAND exclude each other: the guard fronts one server",
                         code="guard.no_command")
    if args.url is None and not command:
        raise UsageError("no server command: contract-harness guard [OPTIONS] -- COMMAND [ARGS...] (or --url URL "
                         "for a remote server)", code="guard.no_command")
    if args.headers and args.url is None:
        raise UsageError("--header is sent to a remote server: give --url URL", code="usage.invalid")
    timeout = DEFAULT_TIMEOUT_S if args.timeout is None else args.timeout
    if not timeout > 0:
        raise UsageError(f"--timeout must be greater than 0, not {args.timeout:g}")
    cap = DEFAULT_MAX_MESSAGE_BYTES if args.max_message_bytes is None else args.max_message_bytes
    if cap < 1024:
        raise UsageError(f"--max-message-bytes must be at least 1024, not {cap}")
    names = _mapping(args.map)
    listen = None
    if args.listen is not None:
        from harness.guard.http import listen_address

        try:
            listen = listen_address(args.listen)
        except ValueError as exc:
            raise UsageError(str(exc), code="guard.listen") from None

    from pathlib import Path

    from harness.boundary.audit import RawStore
    from harness.cli._common import load_contracts
    from harness.contract import demo_root
    from harness.drift.process import resolve_program
    from harness.drift.template import Environment, upstream_redactor
    from harness.guard.policy import Guard, GuardAudit
    from harness.guard.stdio import log_line, process_server, run_http, run_proxy

    if args.demo and args.contracts:
        raise UsageError("--demo and --contracts exclude each other")
    paths = [str(demo_root() / "contracts")] if args.demo else args.contracts or _nearest_contracts()
    contracts = load_contracts(paths, args.tool)
    env = Environment(os.environ)
    headers = _headers(args.headers, env)
    if command:
        resolve_program(command[0], Path.cwd(), "guard COMMAND")  # a missing server is a start-up error
    # The one redaction point (harness.redaction) for the audit file and the diagnostics: the
    # values of the ${ENV} variables the contracts' upstreams use (a token sent as _meta), and
    # those the --header values read.
    redactor = upstream_redactor(contracts, {**os.environ})
    if env.secrets:
        from harness.redaction import Redactor

        redactor = Redactor({**{n: os.environ[n] for n in redactor.names}, **env.secrets})

    def log(message: str) -> None:
        log_line(redactor.text(message))

    audit = None
    try:
        audit = GuardAudit(args.audit, redactor=redactor) if args.audit else None
        raw_store = RawStore(args.raw_dir) if args.raw_dir else None
    except OSError as exc:
        where = exc.filename or args.audit
        raise UsageError(f"cannot open {where}: {exc.strerror or exc}", code="guard.audit") from None
    try:
        guard = Guard.from_contracts(
            contracts,
            names=names,
            upstream=args.upstream,
            allow_unguarded=args.allow_unguarded,
            timeout_s=timeout,
            audit=audit,
            raw_store=raw_store,
            passed=args.passed or (),
            starts_server=not args.url,
        )
        listed = ", ".join(
            name if name == t.contract.tool else f"{name} (contract {t.contract.tool})"
            for name, t in sorted(guard.tools.items())
        )
        what = f"the server at {args.url}" if args.url else f"`{' '.join(command)}`"
        log(f"guarding {len(guard.tools)} tool(s) of {what}: {listed}"
            + (f"; audit: {args.audit}" if args.audit else ""))
        if args.allow_unguarded:
            log("WARNING: --allow-unguarded: tools without a contract pass through UNCHECKED; "
                "their results reach the client exactly as the server sent them")
        if guard.passed:
            log(f"WARNING: --pass {', '.join(sorted(guard.passed))}: these surfaces pass UNCHECKED; the server's "
                "text on them reaches the client as it was sent")
        for note in guard.notes:
            log(note)
        for name, tool in sorted(guard.tools.items()):
            if tool.max_message_bytes > cap:
                log(f"{name}: max_message_bytes={tool.max_message_bytes} is above --max-message-bytes={cap}, "
                    "which applies")
        if args.url is not None:
            make_server = remote_server(args.url, headers, guard, cap, log)
        else:
            make_server = process_server(command, cap)
        if listen is not None:
            return run_http(guard, make_server, *listen, max_message_bytes=cap, log=log)
        return run_proxy(guard, make_server, max_message_bytes=cap, log=log,
                         what="the session" if args.url else "the server")
    finally:
        if audit is not None:
            audit.close()


def _headers(entries: list[str], env: Any) -> dict[str, str]:
    """``--header 'Name: value'`` entries, their ``${NAME}`` references filled from ``env``."""
    from harness.drift.http import SECRET_HEADER
    from harness.drift.template import fill_env

    out: dict[str, str] = {}
    for entry in entries:
        name, colon, value = entry.partition(":")
        name, value = name.strip(), value.strip()
        if not colon or not name or any(c in name for c in " \t\r\n") or any(c in value for c in "\r\n\0"):
            raise UsageError(f"--header {name or entry!r} must look like 'Name: value', e.g. "
                             "'Authorization: Bearer ${TOKEN}'", code="usage.invalid")
        if SECRET_HEADER.search(name) and "${" not in value:
            raise UsageError(
                f"--header {name!r} carries a credential, so its value must be an ${{ENV}} reference (e.g. "
                f"'{name}: Bearer ${{TOKEN}}', quoted so the shell keeps it): a client's configuration is no place "
                "for a secret", code="upstream.literal_secret")
        out[name] = fill_env(value, env, f"--header {name}")
    return out


def remote_server(url: str, headers: dict[str, str], guard: Any, cap: int, log: Any) -> Any:
    """Server ends that are a new session with the remote server at ``url`` each."""
    from urllib.parse import urlsplit

    from harness.guard.remote import RemoteServer

    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise UsageError(f"--url {url!r} is not an http(s) URL", code="usage.invalid")
    timeout = max([guard.request_timeout_s, *(t.timeout_s for t in guard.tools.values())])

    async def make() -> Any:
        return RemoteServer(url, headers=headers, cap=cap, timeout_s=timeout, log=log)

    return make
