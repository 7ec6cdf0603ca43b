"""``contract-harness sandbox``: the demo tools' upstreams on loopback, in a chosen profile."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from harness.cli import command_help
from harness.errors import UsageError
from harness.sandbox.scenarios import DEFAULT_HUGE_BYTES, PROFILES


def register(sub: Any) -> None:
    profiles = "; ".join(f"{name}: {summary}" for name, (summary, _) in PROFILES.items())
    p = sub.add_parser(
        "sandbox",
        help=command_help("sandbox"),
        description=(
            "Serve the upstreams of the demo tools on 127.0.0.1 over real HTTP, for "
            "`contract-harness drift` to check (it prints the line that exports "
            "HARNESS_SANDBOX_URL). With --mcp, run a demo MCP server on stdin/stdout instead. "
            f"Profiles: {profiles}."
        ),
    )
    p.add_argument(
        "--port",
        type=int,
        default=8765,
        help="TCP port on 127.0.0.1 (0: any free port; default 8765)",
    )
    p.add_argument("--profile", default="stable", choices=tuple(PROFILES), help="how the upstreams behave")
    p.add_argument("--mcp", action="store_true", help="serve the demo tools as an MCP server on stdio")
    p.add_argument(
        "--huge-bytes",
        type=int,
        default=DEFAULT_HUGE_BYTES,
        metavar="N",
        help=f"size of the hostile profile's huge body (default {DEFAULT_HUGE_BYTES})",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.huge_bytes < 64:
        raise UsageError(f"--huge-bytes must be at least 64, not {args.huge_bytes}")
    if args.mcp:
        from harness.sandbox.mcp import serve_stdio

        serve_stdio(args.profile, huge_bytes=args.huge_bytes)
        return 0
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, not {args.port}")
    from harness.sandbox.http import SandboxServer

    try:
        server = SandboxServer(args.port, args.profile, args.huge_bytes)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", code="sandbox.port"
        ) from None
    # Ctrl-C, or `kill PID` from a script, stops it cleanly once the URL is out; a shell that
    # starts it in the background (`&`) hands it SIGINT ignored, so both handlers are set here.
    previous = {sig: signal.signal(sig, _interrupted) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(f"export HARNESS_SANDBOX_URL={server.url}", flush=True)
        print(f"# sandbox profile {args.profile!r} on {server.url}; Ctrl-C stops it", file=sys.stderr, flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
