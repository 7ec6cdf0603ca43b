"""Names from the outside world made safe for contracts, directories and agent views.

MCP tool names, OpenAPI operation ids and property names may hold characters a contract's
``tool`` (and so its directory name) or an ``agent_view`` key does not allow. Each mapping is
explicit, deterministic and checked for clashes: two upstream names that would land in the
same directory (also on a case-insensitive file system) are an error, never a silent merge.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from harness.onboarding.errors import OnboardingError

#: The meta-schema's pattern for ``tool`` (also the contract directory's name).
TOOL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
#: The meta-schema's pattern for ``agent_view`` keys.
VIEW_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
#: The meta-schema's pattern for binding rule names.
BINDING_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
#: The meta-schema's pattern for upstream names.
UPSTREAM_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

_NOT_TOOL_CHAR = re.compile(r"[^A-Za-z0-9_.-]+")
_NOT_VIEW_CHAR = re.compile(r"[^A-Za-z0-9_]+")
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                       *(f"lpt{i}" for i in range(1, 10))})


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def tool_name(name: str) -> str:
    """A contract ``tool`` for an upstream name: ``/`` becomes ``.``, other runs of characters
    outside ``[A-Za-z0-9_.-]`` become ``_``; a name left empty (or reserved on Windows) gets a
    stable digest. ``pulls/get`` -> ``pulls.get``, ``files read`` -> ``files_read``."""
    text = _NOT_TOOL_CHAR.sub("_", name.replace("/", ".")).lstrip("._-")
    text = re.sub(r"\.{2,}", ".", text)[:128].rstrip(".")
    if not text or not TOOL_PATTERN.match(text) or text.split(".")[0].lower() in _RESERVED:
        text = f"tool-{_digest(name)}"
    return text


def view_name(name: str) -> str:
    """An ``agent_view`` key for a property name (``entityType`` stays, ``+1`` -> ``_1``)."""
    text = _NOT_VIEW_CHAR.sub("_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    text = text[:64]
    return text if VIEW_PATTERN.match(text) else f"field_{_digest(name)}"


def binding_name(name: str) -> str:
    """A binding rule name (``pull_number``; ``X-Run-Id`` -> ``x_run_id``)."""
    text = _NOT_VIEW_CHAR.sub("_", name).strip("_").lower()
    if not text or not text[0].isalpha():
        text = "p_" + text
    text = text[:64]
    return text if BINDING_PATTERN.match(text) else f"p_{_digest(name)}"


def upstream_name(name: str | None, default: str) -> str:
    """An upstream name for a server's own name (``mcp-servers/everything`` ->
    ``mcp-servers.everything``), or ``default``."""
    if not name:
        return default
    text = tool_name(name)[:64]
    return text if UPSTREAM_PATTERN.match(text) and not text.startswith("tool-") else default


def unique(names: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """Make names distinct by suffixing ``_2``, ``_3``... in order of appearance."""
    seen = {n for n in taken}
    out: list[str] = []
    for name in names:
        candidate, n = name, 2
        while candidate in seen:
            suffix = f"_{n}"
            candidate = name[: 64 - len(suffix)] + suffix
            n += 1
        seen.add(candidate)
        out.append(candidate)
    return out


def plan_tool_names(upstream: Iterable[str], renames: Mapping[str, str] | None = None) -> dict[str, str]:
    """Upstream name -> contract ``tool`` for every name, after ``renames`` (upstream -> tool).

    Raises ``import.invalid_name`` for a rename that is not a valid ``tool``,
    ``import.unknown_rename`` for a rename of a name that is not there, and
    ``import.name_clash`` when two upstream names map to one contract (case-insensitively).
    """
    names = list(upstream)
    renames = dict(renames or {})
    unknown = sorted(set(renames) - set(names))
    if unknown:
        raise OnboardingError(
            f"--name renames {', '.join(map(repr, unknown))}, which the source does not have "
            f"(it has: {', '.join(map(repr, names)) or 'nothing'})",
            code="import.unknown_rename",
        )
    planned: dict[str, str] = {}
    for name in names:
        target = renames.get(name, tool_name(name))
        if not TOOL_PATTERN.match(target):
            raise OnboardingError(
                f"--name {name}={target}: {target!r} is not a valid tool name "
                f"(allowed: {TOOL_PATTERN.pattern})",
                code="import.invalid_name",
            )
        planned[name] = target
    by_folded: dict[str, list[str]] = {}
    for name, target in planned.items():
        by_folded.setdefault(target.casefold(), []).append(name)
    for group in by_folded.values():
        if len(group) > 1:
            targets = sorted({planned[n] for n in group})
            raise OnboardingError(
                f"{' and '.join(map(repr, group))} would both become contract "
                f"{' / '.join(map(repr, targets))}; give one another name with "
                f"--name {group[1]}=NEW_NAME",
                code="import.name_clash",
            )
    return planned
