"""MCP servers as a source of contracts: ``tools/list`` responses and ``tools/call`` results.

For each tool that declares an ``outputSchema`` the draft keeps the schema exactly as the
server published it (draft-07 stays draft-07), with ``envelope: null`` (``structuredContent``
is a bare result the boundary wraps itself), the tool's ``inputSchema`` as the request shape,
a first ``agent_view`` from the schema's top-level properties and, when the server command is
known, an ``mcp`` upstream pointing back at it. ``tools/call`` results become fixture
candidates: the exact bytes of ``structuredContent``, cut from the raw JSON-RPC line by drift's
own reader. ``isError`` results and JSON-RPC errors carry no data to hold to the schema; they
are listed as skipped (drift maps them to the failure envelope).

A capture folder (``--captures DIR``) has the layout the shared real-tools corpus uses::

    DIR/<tool>/requests/<case>.json   the tools/call request ({"method", "params": {"name", "arguments"}})
    DIR/<tool>/raw/<case>.json        the JSON-RPC response line, byte for byte
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.contract.records import DEFAULT_MAX_BYTES
from harness.errors import ContractError, RejectedInput, printable_path
from harness.files import read_bytes
from harness.strict_json import DEFAULT_MAX_DEPTH, strict_loads

if TYPE_CHECKING:
    from harness.drift.kinds import Fetched
from harness.onboarding.draft import Candidate, Skipped, ToolDraft, first_line, header
from harness.onboarding.errors import OnboardingError
from harness.onboarding.infer import infer_schema
from harness.onboarding.instances import example_of
from harness.onboarding.names import plan_tool_names, upstream_name
from harness.onboarding.view import derive_agent_view

UPSTREAM_DEFAULT = "mcp"
#: The largest saved tools/list or captured message an import reads: the longest line the live
#: reader (:mod:`harness.onboarding.mcp_live`) accepts.
MAX_INPUT_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class McpTool:
    """One entry of a ``tools/list`` result, as published."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    read_only: bool = False
    title: str | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """One ``tools/call``: the arguments sent and the raw response line received."""

    tool: str
    name: str
    args: Mapping[str, Any] | None
    raw: bytes
    recorded_at: str | None = None


@dataclass(frozen=True, slots=True)
class Server:
    """How to reach the server again (for the contract's upstream), when known: the command
    that starts it over stdio (its args may hold ``${NAME}`` references, kept as written) with
    the environment it needs (``{NAME: "${NAME}"}``, never a value); or the URL of its Streamable
    HTTP endpoint with its headers (templates, as given)."""

    command: str
    args: tuple[str, ...] = ()
    name: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def as_given(self) -> str:
        """The server as given: its URL, or its command line (``${NAME}`` never filled in)."""
        return self.url if self.url is not None else " ".join([self.command, *self.args])


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def env_references(names: Iterable[str]) -> dict[str, str]:
    """``--env NAME`` options as an upstream's ``env:`` (``{NAME: "${NAME}"}``); a name that is not
    one is a usage error."""
    out: dict[str, str] = {}
    for name in names:
        if not _ENV_NAME.fullmatch(name):
            raise OnboardingError(
                f"--env {name!r} is not an environment variable name (letters, digits, _; the value is read "
                "from the environment, never given here)",
                code="usage.invalid",
            )
        out[name] = "${" + name + "}"
    return out


def parse_header(text: str) -> tuple[str, str]:
    """``--header 'Name: value'``: the name and the value as written (a template); a credential's
    value must be a ``${NAME}`` reference, as in an upstream's ``headers:``."""
    from harness.drift.http import SECRET_HEADER  # drift is large: only when a header is given

    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not colon or not _HEADER_NAME.fullmatch(name):
        raise OnboardingError(f"--header {name or text!r} must look like 'Name: value', e.g. "
                              "'Authorization: Bearer ${TOKEN}'", code="usage.invalid")
    if any(c in value for c in "\r\n\0"):
        raise OnboardingError(f"--header {name!r}: a header value cannot hold a line break", code="usage.invalid")
    if SECRET_HEADER.search(name) and "${" not in value:
        raise OnboardingError(
            f"--header {name!r} carries a credential, so its value must be an ${{ENV}} reference (e.g. "
            f"'{name}: Bearer ${{TOKEN}}', quoted so the shell keeps it): the contract records it as written",
            code="upstream.literal_secret",
        )
    return name, value


def _load(data: bytes, source: str) -> list[Any]:
    """One JSON value, or JSON Lines (one value per line: response pages)."""
    try:
        return [strict_loads(data, max_depth=256)]
    except RejectedInput as whole:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2:
            raise OnboardingError(f"{source}: not valid JSON ({whole})", code="import.tools_list_invalid") from None
        out = []
        for number, line in enumerate(lines, 1):
            try:
                out.append(strict_loads(line, max_depth=256))
            except RejectedInput as exc:
                raise OnboardingError(
                    f"{source}: line {number} is not valid JSON ({exc})", code="import.tools_list_invalid"
                ) from None
        return out


def _pages(values: Iterable[Any], source: str) -> list[Mapping[str, Any]]:
    pages: list[Mapping[str, Any]] = []
    for value in values:
        if isinstance(value, list):
            pages.extend(_pages(value, source))
            continue
        if not isinstance(value, Mapping):
            raise OnboardingError(
                f"{source}: expected a tools/list response or result object, not {type(value).__name__}",
                code="import.tools_list_invalid",
            )
        if "error" in value and "result" not in value:
            error = value["error"] if isinstance(value["error"], Mapping) else {}
            raise OnboardingError(
                f"{source}: the server answered tools/list with error {error.get('code', '?')}: "
                f"{first_line(str(error.get('message', '')), 200)}",
                code="import.server_error",
            )
        result = value.get("result", value)
        if not isinstance(result, Mapping) or not isinstance(result.get("tools"), list):
            raise OnboardingError(
                f"{source}: no tools list (expected {{\"result\": {{\"tools\": [...]}}}} or {{\"tools\": [...]}})",
                code="import.tools_list_invalid",
            )
        pages.append(result)
    return pages


def parse_tools_list(data: bytes, source: str) -> list[McpTool]:
    """The tools of a saved ``tools/list`` response: a JSON-RPC response line, its ``result``,
    a JSON array of pages or JSON Lines of pages."""
    tools: list[McpTool] = []
    seen: set[str] = set()
    for page in _pages(_load(data, source), source):
        for index, entry in enumerate(page["tools"]):
            where = f"{source}: tools[{index}]"
            if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry["name"]:
                raise OnboardingError(f"{where} has no name", code="import.tools_list_invalid")
            name = entry["name"]
            if name in seen:
                raise OnboardingError(f"{where}: tool {name!r} is listed twice", code="import.tools_list_invalid")
            seen.add(name)
            output = entry.get("outputSchema")
            if output is not None and not isinstance(output, Mapping):
                raise OnboardingError(
                    f"{where} ({name!r}): outputSchema must be an object", code="import.tools_list_invalid"
                )
            given = entry.get("inputSchema", {"type": "object"})
            if not isinstance(given, Mapping):
                raise OnboardingError(
                    f"{where} ({name!r}): inputSchema must be an object", code="import.tools_list_invalid"
                )
            hints = entry.get("annotations")
            annotations: Mapping[str, Any] = hints if isinstance(hints, Mapping) else {}
            tools.append(
                McpTool(
                    name=name,
                    description=str(entry.get("description") or ""),
                    input_schema=given,
                    output_schema=output,
                    read_only=annotations.get("readOnlyHint") is True,
                    title=entry.get("title") if isinstance(entry.get("title"), str) else None,
                )
            )
    return tools


def next_cursor(data: bytes) -> str | None:
    """The ``nextCursor`` of one raw ``tools/list`` response line, if any."""
    page = _pages(_load(data, "tools/list"), "tools/list")[0]
    cursor = page.get("nextCursor")
    return cursor if isinstance(cursor, str) and cursor else None


# ----------------------------------------------------------------------------- calls


def read_input(path: Path, what: str) -> bytes:
    """A file an import reads (a saved ``tools/list``, a captured call): a regular file under
    the cap of the longest line the live reader accepts (:func:`harness.files.read_bytes`);
    anything else is one line naming the file."""
    try:
        return read_bytes(path, limit=MAX_INPUT_BYTES, what=what)
    except ContractError as exc:
        raise OnboardingError(f"{printable_path(path)}: {exc.detail}", code=exc.code) from None


def read_captures(folder: Path) -> list[Call]:
    """Calls saved in a capture folder (``<tool>/requests/<case>.json``, ``<tool>/raw/<case>.json``)."""
    if not folder.is_dir():
        raise OnboardingError(f"capture folder {str(folder)!r} does not exist", code="import.capture_invalid")
    calls = []
    for raw_file in sorted(folder.glob("*/raw/*.json")):
        case = raw_file.stem
        tool_dir = raw_file.parent.parent
        request_file = tool_dir / "requests" / raw_file.name
        name, args = tool_dir.name, None
        if request_file.is_file():
            name, args = _read_request(request_file, tool_dir.name)
        calls.append(Call(tool=name, name=case, args=args, raw=read_input(raw_file, "captured response")))
    if not calls:
        raise OnboardingError(
            f"capture folder {str(folder)!r} holds no <tool>/raw/<case>.json files", code="import.capture_invalid"
        )
    return calls


def _read_request(path: Path, default_tool: str) -> tuple[str, Mapping[str, Any] | None]:
    try:
        request = strict_loads(read_input(path, "captured request"))
    except RejectedInput as exc:
        raise OnboardingError(f"{path}: not valid JSON ({exc})", code="import.capture_invalid") from None
    params = request.get("params") if isinstance(request, Mapping) else None
    if not isinstance(params, Mapping):
        raise OnboardingError(
            f"{path}: expected a tools/call request with params {{name, arguments}}", code="import.capture_invalid"
        )
    name = params.get("name", default_tool)
    args = params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(args, Mapping):
        raise OnboardingError(f"{path}: params.name must be a string and params.arguments an object",
                              code="import.capture_invalid")
    return name, args


def read_call(call: Call, result: str = "structured") -> Fetched:
    """A raw ``tools/call`` response line as drift reads it, at an imported contract's limits;
    ``result`` says where the result is (:mod:`harness.drift.frame`'s modes)."""
    from harness.drift.frame import default_max_message_bytes, read_call_line  # drift is large

    return read_call_line(
        call.raw, result=result, max_depth=DEFAULT_MAX_DEPTH,
        max_message_bytes=default_max_message_bytes(DEFAULT_MAX_BYTES),
    )


def result_mode(call: Call) -> str | None:
    """Where a sampled result of a tool without ``outputSchema`` is: ``structured`` (it has
    ``structuredContent``), ``text`` (its first text block is a JSON object or array), or
    ``text_string`` (plain text); None when the call failed or its message is refused."""
    structured = read_call(call)
    if structured.body is not None:
        return "structured"
    text = read_call(call, "text")
    if text.body is None:
        return None
    try:
        value = strict_loads(text.body, max_depth=DEFAULT_MAX_DEPTH)
    except RejectedInput:
        return "text_string"
    return "text" if isinstance(value, dict | list) else "text_string"


#: What a result mode keeps of a ``tools/call`` answer, for fixture descriptions.
_KEPT = {"structured": "structuredContent", "text": "the first text block's text",
         "text_string": "the first text block's text as a JSON string"}


def candidate_from_call(
    call: Call, upstream: str | None, fetched: Fetched | None = None, mode: str = "structured"
) -> Candidate | Skipped:
    """The fixture candidate a raw ``tools/call`` response line holds, or why there is none.

    The line is judged exactly as drift judges it (:func:`harness.drift.frame.read_call_line`,
    at the default limits an imported contract gets): the whole message strict, then the exact
    bytes of ``result.structuredContent``. A tool failure (``isError``, a JSON-RPC error) or a
    message refused before the boundary would run (a duplicate member anywhere in it, NaN, a
    broken frame) is no fixture: drift reports those as failures of the upstream.
    """
    fetched = fetched or read_call(call)
    if fetched.failure is not None:
        return Skipped(
            call.name,
            f"{fetched.failure.message} (a tool failure, drift maps it to the failure envelope; "
            "not kept as a fixture, nor as a drift request)",
        )
    if fetched.refusal is not None or fetched.body is None:
        refusal = fetched.refusal
        why = f"{refusal.code}: {refusal.message}" if refusal else "no result"
        return Skipped(call.name, f"the message is refused before the boundary ({why})")
    where = f" from {upstream}" if upstream else ""
    return Candidate(
        name=call.name,
        payload=fetched.body,
        args=call.args,
        description=f"{_KEPT[mode]} of a tools/call of {call.tool!r}{where}, byte for byte.",
        upstream=upstream,
        recorded_at=call.recorded_at,
    )


# ----------------------------------------------------------------------------- drafts


def _default_args(tool: McpTool, calls: Sequence[Call]) -> tuple[Mapping[str, Any], str | None]:
    """The default request: a call's arguments (succeeded calls first), else an example of the
    inputSchema."""
    for call in calls:
        if call.args is not None:
            return call.args, None
    guess = example_of(dict(tool.input_schema))
    if isinstance(guess, Mapping):
        return guess, None
    return {}, "no default request could be derived from the inputSchema; set request.example"


def _modes(calls: Sequence[Call]) -> dict[str, str]:
    """For each tool, where its first readable sampled result is (see :func:`result_mode`)."""
    modes: dict[str, str] = {}
    for call in calls:
        if call.tool not in modes:
            mode = result_mode(call)
            if mode is not None:
                modes[call.tool] = mode
    return modes


def plan(
    tools: Sequence[McpTool], calls: Sequence[Call] = (), only: Iterable[str] | None = None, *, source: str = "server"
) -> tuple[list[str], list[Skipped]]:
    """The tools to import — each with an ``outputSchema`` or a sampled result to draft one
    from (of ``only``, when given) — and those skipped, with why."""
    by_name = {t.name: t for t in tools}
    modes = _modes(calls)
    drafted = [t.name for t in tools if t.output_schema is not None or t.name in modes]
    wanted = list(only) if only else drafted
    unknown = sorted({*wanted, *(c.tool for c in calls)} - set(by_name))
    if unknown:
        raise OnboardingError(
            f"the server has no tool {', '.join(map(repr, unknown))} (it has: {', '.join(map(repr, by_name))})",
            code="import.unknown_tool",
        )
    without = [n for n in wanted if by_name[n].output_schema is None and n not in modes]
    if without:
        raise OnboardingError(
            f"tool {', '.join(map(repr, without))} declares no outputSchema and no sampled result shows what it "
            "returns: --sample it, and its results draft a contract",
            code="import.no_output_schema",
        )
    if not wanted:
        raise OnboardingError(
            f"{source}: none of the {len(tools)} tools declares an outputSchema, and none was sampled with a "
            "result (--sample TOOL's results draft a contract for it); nothing to import",
            code="import.no_output_schema",
        )
    stray = sorted({c.tool for c in calls} - set(wanted))
    if stray:
        raise OnboardingError(
            f"results were given for {', '.join(map(repr, stray))}, which is not being imported",
            code="import.unknown_tool",
        )
    sampled = {c.tool for c in calls}
    skipped = [] if only else [
        Skipped(t.name, "no outputSchema, and its sampled calls brought no result to draft one from"
                if t.name in sampled else "no outputSchema and not sampled (--sample it to draft a contract)")
        for t in tools if t.name not in wanted
    ]
    return wanted, skipped


def drafts(
    tools: Sequence[McpTool],
    *,
    calls: Sequence[Call] = (),
    server: Server | None = None,
    only: Iterable[str] | None = None,
    renames: Mapping[str, str] | None = None,
    source: str,
    imported_at: str,
) -> list[ToolDraft]:
    """One draft per tool with an ``outputSchema``, or with sampled results a schema is drafted
    from (:mod:`harness.onboarding.infer`; of ``only``, when given)."""
    by_name = {t.name: t for t in tools}
    wanted, _ = plan(tools, calls, only, source=source)
    modes = _modes(calls)
    names = plan_tool_names(wanted, renames)
    upstream = upstream_name(server.name, UPSTREAM_DEFAULT) if server else None
    out = []
    for name in wanted:
        tool = by_name[name]
        mode = "structured" if tool.output_schema is not None else modes[name]
        mine = [c for c in calls if c.tool == name]
        read = [read_call(c, mode) for c in mine]
        found = [candidate_from_call(c, upstream, r, mode) for c, r in zip(mine, read, strict=True)]
        # The tool answered (a result, even one drift refuses): not isError, not a JSON-RPC error.
        succeeded = [c for c, r in zip(mine, read, strict=True) if r.failure is None]
        args, note = _default_args(tool, [*succeeded, *(c for c in mine if c not in succeeded)])
        candidates = tuple(c for c in found if isinstance(c, Candidate))
        out.append(
            _draft(
                tool, names[name], args, server, source, imported_at,
                candidates=candidates,
                skipped=tuple(s for s in found if isinstance(s, Skipped)),
                notes=(note,) if note else (),
                # A drift request only from a call that succeeded: a failing one would fail again
                # every night (and a tool error may have changed something on its way).
                sampled=[c.args for c in succeeded if c.args is not None],
                mode=mode,
            )
        )
    return out


def _draft(
    tool: McpTool,
    contract_tool: str,
    args: Mapping[str, Any],
    server: Server | None,
    source: str,
    imported_at: str,
    *,
    candidates: tuple[Candidate, ...],
    skipped: tuple[Skipped, ...],
    notes: tuple[str, ...],
    sampled: list[Mapping[str, Any]],
    mode: str = "structured",
) -> ToolDraft:
    inferred = tool.output_schema is None
    extra_notes = list(notes)
    if inferred:
        results = [strict_loads(c.payload, max_depth=DEFAULT_MAX_DEPTH) for c in candidates]
        schema = infer_schema(results)
        kept = {"structured": "their structuredContent", "text": "the JSON in their first text block",
                "text_string": "their text (plain text: a bounded string)"}[mode]
        extra_notes.append(
            f"the server publishes no outputSchema: the schema is INFERRED from {len(results)} sampled "
            f"result{'s' if len(results) != 1 else ''} ({kept}) and tightened from them; review what may vary"
        )
    else:
        schema = dict(tool.output_schema or {})
    contract: dict[str, Any] = {"tool": contract_tool}
    description = first_line(tool.description) or first_line(tool.title)
    if description:
        contract["description"] = description
    contract["version"] = 1
    contract["request"] = {"schema": dict(tool.input_schema), "example": dict(args)}
    contract["envelope"] = None
    contract["agent_view"] = derive_agent_view(schema)
    if server is not None:
        # A drift request is a call that was made and succeeded, never a guess from the
        # inputSchema: a guessed request may fail every night, or change data.
        requests = [dict(a) for a in sampled]
        if not requests:
            why = "no sampled call succeeded" if skipped else "no call was sampled with --sample or --captures"
            opt_in = "" if tool.read_only else " (and side_effects: allowed: the tool is not annotated readOnlyHint)"
            extra_notes.append(
                f"the upstream has no requests ({why}): drift reports it as not called until you add "
                f"requests: yourself{opt_in}"
            )
        config: dict[str, Any]
        if server.url is not None:
            config = {"url": server.url, **({"headers": dict(server.headers)} if server.headers else {})}
        else:
            config = {"command": server.command, "args": list(server.args)}
            if server.env:
                config["env"] = dict(server.env)
        config["tool"] = tool.name
        if mode != "structured":
            config["result"] = mode
        if inferred:
            config["output_schema"] = "none"
        contract["upstreams"] = {
            upstream_name(server.name, UPSTREAM_DEFAULT): {"mcp": config, "requests": requests}
        }
    contract["x-imported"] = {"from": "mcp", "source": source, "tool": tool.name, "at": imported_at}
    if inferred:
        contract["x-imported"]["output_schema"] = f"inferred from {len(candidates)} sampled results"
    renamed = f" (MCP name {tool.name!r})" if tool.name != contract_tool else ""
    origin = f"Imported from {source} by `contract-harness import mcp`{renamed}."
    return ToolDraft(
        tool=contract_tool,
        source_name=tool.name,
        contract=contract,
        schema=schema,
        header=inferred_header(origin, len(candidates)) if inferred else header(origin, "outputSchema"),
        candidates=candidates,
        skipped=skipped,
        notes=tuple(dict.fromkeys(extra_notes)),
        inferred=inferred,
    )


def inferred_header(origin: str, samples: int) -> str:
    """The comment at the top of a contract whose schema was inferred from samples."""
    return (
        f"{origin}\n"
        f"INFERRED: the server publishes no outputSchema; schemas/v1.json is drafted from {samples} sampled\n"
        "result(s) and tightened from them. It says what the samples showed, no more: review what may\n"
        "vary (lint says where it is open) and agent_view (the model sees every field it lists)."
    )
