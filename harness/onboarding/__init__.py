"""Onboarding existing tools: ``init`` scaffolds a contract, ``import`` writes contracts from an
MCP server or an OpenAPI description, with fixtures judged by the real boundary.

    from harness.onboarding import import_mcp, import_openapi, init_tool
    imported = import_openapi(Path("."), Path("openapi.yaml"), ["tickets/get"], strict=True)
    imported.written.tools[0].fixtures      # where each example was filed, and why
    imported.reviews[0].lint                # the lint report of the new contract
    imported.reviews[0].compat              # with strict: the compat report v1 -> v2 (compat=False skips it)

Everything is written atomically (a staging folder, then one rename per claimed folder);
nothing existing is overwritten; on any error nothing is left behind and one
:class:`OnboardingError` says why, with a stable ``init.*`` / ``import.*`` code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.onboarding import mcp, openapi
from harness.onboarding.apply import FixtureOutcome, StrictOutcome, ToolOutcome, Written, write_drafts
from harness.onboarding.draft import Skipped
from harness.onboarding.errors import OnboardingError
from harness.onboarding.followups import Review, review
from harness.onboarding.scaffold import init_tool
from harness.onboarding.tighten import Tightened, tighten

__all__ = [
    "FixtureOutcome",
    "Imported",
    "OnboardingError",
    "Review",
    "StrictOutcome",
    "Tightened",
    "ToolOutcome",
    "Written",
    "import_mcp",
    "import_openapi",
    "init_tool",
    "review",
    "tighten",
]


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import wrote, the reviews of each new contract (lint, compat), and the source's
    tools it did not import, with why."""

    written: Written
    reviews: tuple[Review, ...] = ()
    skipped: tuple[Skipped, ...] = ()


def _stamp(now: datetime | None) -> str:
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def _finish(written: Written, compat: bool) -> Imported:
    return Imported(written, tuple(review(t, compat=compat) for t in written.tools))


def import_mcp(
    into: Path,
    *,
    command: Sequence[str] = (),
    url: str | None = None,
    headers: Sequence[str] = (),
    env: Sequence[str] = (),
    from_file: Path | None = None,
    captures: Path | None = None,
    samples: Sequence[tuple[str, Mapping[str, Any]]] = (),
    tools: Iterable[str] | None = None,
    renames: Mapping[str, str] | None = None,
    strict: bool = False,
    timeout_s: float = 30.0,
    now: datetime | None = None,
    compat: bool = True,
) -> Imported:
    """Contracts for the tools of an MCP server: listed live (``command``, started over stdio;
    or ``url``, reached over Streamable HTTP with ``headers``, each ``"Name: value"``) or from a
    saved ``tools/list`` response (``from_file``); sampled live (``samples``) and/or from saved
    calls (``captures``). ``env`` names the variables the server needs: it is started with them
    (and the few every program gets), and its upstream records them as ``${NAME}``."""
    stamp = _stamp(now)
    if url is not None and command:
        raise OnboardingError("give the server command after -- or its --url, not both", code="usage.invalid")
    if url is None and headers:
        raise OnboardingError("--header goes with --url (a server reached over Streamable HTTP)", code="usage.invalid")
    if url is not None and env:
        raise OnboardingError(
            "--env names the environment of a server the import starts; a server at --url runs elsewhere",
            code="usage.invalid",
        )
    given = dict(mcp.parse_header(h) for h in headers)
    needs = mcp.env_references(env)
    server: mcp.Server | None = None
    calls: list[mcp.Call] = []
    if from_file is not None:
        if not from_file.exists() and not from_file.is_symlink():
            raise OnboardingError(
                f"tools/list file {str(from_file)!r} does not exist", code="import.tools_list_invalid"
            )
        listed = mcp.parse_tools_list(mcp.read_input(from_file, "tools/list file"), from_file.name)
        source = from_file.name
        if command:
            server = mcp.Server(command[0], tuple(command[1:]), env=needs)
        elif url is not None:
            server = mcp.Server("", url=url, headers=given)
    else:
        from harness.onboarding.mcp_live import fetch, fetch_http

        if url is not None:
            listing = fetch_http(url, headers=given, samples=samples, timeout_s=timeout_s)
        else:
            listing = fetch(command, samples=samples, timeout_s=timeout_s, env=needs)
        listed, server, calls = list(listing.tools), listing.server, list(listing.calls)
        source = server.name or server.as_given
    if captures is not None:
        calls += mcp.read_captures(captures)
    drafts = mcp.drafts(listed, calls=calls, server=server, only=tools, renames=renames,
                        source=source, imported_at=stamp)
    _, skipped = mcp.plan(listed, calls, tools, source=source)
    imported = _finish(write_drafts(into, drafts, strict=strict), compat)
    return Imported(imported.written, imported.reviews, tuple(skipped))


def import_openapi(
    into: Path,
    spec: Path,
    operations: Sequence[str],
    *,
    renames: Mapping[str, str] | None = None,
    strict: bool = False,
    now: datetime | None = None,
    compat: bool = True,
    base_url_env: str = openapi.DEFAULT_BASE_URL_ENV,
) -> Imported:
    """Contracts for named operations of an OpenAPI 3.0 / 3.1 description; each upstream reads
    its base URL from ``${base_url_env}``."""
    openapi.check_env_name(base_url_env)
    loaded = openapi.load_spec(spec)
    drafts = openapi.drafts(loaded, operations, renames=renames, imported_at=_stamp(now), base_url_env=base_url_env)
    return _finish(write_drafts(into, drafts, strict=strict), compat)
