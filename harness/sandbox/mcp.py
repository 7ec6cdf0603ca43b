"""The demo MCP server (``contract-harness sandbox --mcp``): the demo tools over stdio.

Built with the ``mcp`` SDK's low-level :class:`~mcp.server.lowlevel.Server`. Each demo tool
is an MCP tool whose ``outputSchema`` is what its contract expects of the upstream (the
review tool's in the draft-07 dialect, as many servers emit it), and whose
``structuredContent`` is what the HTTP sandbox would answer, profile by profile. The
``drifted`` profile also advertises drifted schemas.

Some hostility cannot be said through an SDK — it serialises results itself, so it never
repeats a member or writes NaN. For those scenarios the tool returns a placeholder and the
server's output stream *splices* the scenario's raw bytes into the JSON-RPC line where the
placeholder was, as a broken or malicious server would send them. The ``flaky`` profile maps
the HTTP failures onto MCP ones: a slow tool, a server that exits mid-session, ``isError``,
a JSON-RPC error, a result without ``structuredContent``, an answer to another request id.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, BinaryIO

import anyio
import anyio.to_thread

from harness.sandbox.scenarios import DEFAULT_REQUEST_ID, Context, Reply, reply
from harness.version import __version__

TOOLS = ("review_status", "job_status", "deployment_status")
_SPLICE = "__splice__"


def _demo(tool: str) -> Any:
    from harness.contract import demo_root, load_contract

    return load_contract(demo_root() / "contracts" / tool)


def _to_draft07(schema: Any) -> Any:
    """The same schema in the draft-07 dialect (``definitions`` for ``$defs``)."""
    if isinstance(schema, dict):
        out = {("definitions" if k == "$defs" else k): _to_draft07(v) for k, v in schema.items()}
        if isinstance(out.get("$ref"), str):
            out["$ref"] = out["$ref"].replace("#/$defs/", "#/definitions/")
        return out
    if isinstance(schema, list):
        return [_to_draft07(v) for v in schema]
    return schema


def output_schema(tool: str, profile: str) -> dict[str, Any]:
    """The outputSchema the sandbox advertises for a tool in a profile."""
    contract = _demo(tool)
    schema = copy.deepcopy(dict(contract.vendor_schema if contract.adapter else contract.schema()))
    drifted = profile == "drifted"
    if tool == "review_status":
        if drifted:
            schema["$defs"]["reviewStatus"]["properties"]["decision"]["enum"].append("approved_with_conditions")
        schema = _to_draft07(schema)
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
        schema["type"] = "object"  # MCP: an outputSchema's root is an object
    elif tool == "job_status" and drifted:
        schema["properties"]["run"]["properties"]["queue"] = {"type": "string"}
    elif tool == "deployment_status" and drifted:
        state = schema["properties"]["state"]
        schema["properties"]["state"] = {
            "anyOf": [
                state,
                {
                    "type": "object",
                    "required": ["value"],
                    "properties": {"value": {"type": "string"}, "message": {"type": "string"}},
                },
            ]
        }
        schema["properties"]["maintenance"] = {"type": "boolean"}
    return schema


class SplicingStdout:
    """The server's stdout: JSON-RPC lines as the SDK wrote them, except where a tool left a
    placeholder — there the scenario's raw bytes go on the wire instead."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.splices: dict[str, tuple[Reply, bool]] = {}

    def register(self, answer: Reply, *, wrong_id: bool = False) -> dict[str, str]:
        token = uuid.uuid4().hex
        self.splices[token] = (answer, wrong_id)
        return {_SPLICE: token}

    async def write(self, text: str) -> None:
        for token, (answer, wrong_id) in list(self.splices.items()):
            marker = json.dumps({_SPLICE: token}, separators=(",", ":"))
            if marker in text:
                del self.splices[token]
                await self._spliced(text, marker, answer, wrong_id)
                return
        await anyio.to_thread.run_sync(self.stream.write, text.encode("utf-8"))

    async def _spliced(self, text: str, marker: str, answer: Reply, wrong_id: bool) -> None:
        if wrong_id:
            message = json.loads(text)
            message["id"] = "not-your-request"
            text = json.dumps(message, separators=(",", ":")) + "\n"
        head, _, tail = text.partition(marker)
        pieces: Iterator[bytes] = (
            answer.chunks()
            if answer.huge
            else iter(
                [(answer.raw or answer.body()).replace(b"\n", b" ")]
                if not wrong_id
                else [json.dumps(answer.document).encode()]
            )
        )
        await anyio.to_thread.run_sync(self.stream.write, head.encode("utf-8"))
        for piece in pieces:
            await anyio.to_thread.run_sync(self.stream.write, piece)
        await anyio.to_thread.run_sync(self.stream.write, tail.encode("utf-8"))

    async def flush(self) -> None:
        await anyio.to_thread.run_sync(self.stream.flush)


def build_server(profile: str, huge_bytes: int, stdout: SplicingStdout) -> Any:
    """The low-level MCP server of the demo tools in ``profile``."""
    from mcp import types
    from mcp.server.lowlevel.server import Server
    from mcp.shared.exceptions import MCPError

    tools = [
        types.Tool(
            name=tool,
            description=_demo(tool).description,
            input_schema=dict(_demo(tool).request_schema),
            output_schema=output_schema(tool, profile),
            # Every demo tool only reads: drift calls a tool only when tools/list says so.
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
        for tool in TOOLS
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in TOOLS:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name}")
        meta = params.meta or {}
        request_id = meta.get("request_id") if isinstance(meta.get("request_id"), str) else None
        context = Context(
            tool=params.name,
            args=params.arguments or {},
            request_id=request_id or DEFAULT_REQUEST_ID,
            now=datetime.now(UTC),
            huge_bytes=huge_bytes,
        )
        answer = reply(profile, context)
        if answer.delay_s:
            await anyio.sleep(answer.delay_s)
        if answer.reset:
            os._exit(3)  # a crash: the client sees the output end mid-session
        if answer.status == 503:
            raise MCPError(code=types.INTERNAL_ERROR, message="service unavailable")
        if answer.status >= 400:
            return types.CallToolResult(content=[types.TextContent(type="text", text=answer.scenario)], is_error=True)
        if answer.redirect:
            answer = reply("stable", context)
            return _result(stdout.register(answer, wrong_id=True), "(answered for another request)")
        if answer.content_type != "application/json":
            return types.CallToolResult(content=[types.TextContent(type="text", text=answer.body().decode())])
        if answer.raw is not None or answer.huge:
            return _result(stdout.register(answer), "(raw result)")
        return _result(answer.document, json.dumps(answer.document))

    def _result(structured: Any, text: str) -> Any:
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)

    return Server(
        "contract-harness-sandbox",
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(profile: str, huge_bytes: int) -> None:
    from mcp.server.stdio import stdio_server

    stdout = SplicingStdout(sys.stdout.buffer)
    server = build_server(profile, huge_bytes, stdout)
    async with stdio_server(stdout=stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_stdio(profile: str, *, huge_bytes: int) -> None:
    """Serve until stdin closes."""
    anyio.run(_serve, profile, huge_bytes)
