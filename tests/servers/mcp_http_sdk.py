"""An MCP server over Streamable HTTP made with the ``mcp`` SDK (``MCPServer``, its
``streamable_http_app`` run by uvicorn), for the remote-server tests.

    python tests/servers/mcp_http_sdk.py [--json-response] [--token=SECRET]

It listens on 127.0.0.1, on a port the system picks, and prints ``listening on URL`` as its first
line of output. Its notes live in the JSON file ``$NOTES_FILE`` (which must be set): read by
``read_notes`` and ``count_notes`` (annotated read-only), written by ``add_note`` (not annotated).
``read_notes`` sends a log notification before its answer, so an answer in an event stream
comes after a message of another kind. ``list_titles`` and ``shout`` declare no outputSchema:
the first answers JSON in a text block, the second plain text.
``--json-response`` answers each POST with one JSON body instead of an event stream;
``--token=SECRET`` refuses (401) every request without ``Authorization: Bearer SECRET``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from starlette.types import ASGIApp, Receive, Scope, Send
from typing_extensions import TypedDict


class Note(TypedDict):
    title: str
    body: str


class Notes(TypedDict):
    owner: str
    notes: list[Note]


class Count(TypedDict):
    owner: str
    count: int


def notes_file() -> Path:
    return Path(os.environ["NOTES_FILE"])


def load() -> list[Note]:
    file = notes_file()
    return json.loads(file.read_text()) if file.exists() else []


server = MCPServer("notes-over-http")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def read_notes(owner: str, ctx: Context) -> Notes:
    """The notes of an owner."""
    await ctx.info(f"reading the notes of {owner}")
    return {"owner": owner, "notes": load()}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def count_notes(owner: str) -> Count:
    """How many notes an owner has."""
    return {"owner": owner, "count": len(load())}


@server.tool()
def add_note(title: str, body: str) -> Note:
    """Add a note (this changes data)."""
    notes = [*load(), {"title": title, "body": body}]
    notes_file().write_text(json.dumps(notes))
    return {"title": title, "body": body}


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def list_titles(owner: str) -> dict[str, Any]:
    """The titles of an owner's notes (no outputSchema: the JSON is in a text block)."""
    return {"owner": owner, "titles": [note["title"] for note in load()]}


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def shout(text: str) -> str:
    """Text in capitals (no outputSchema)."""
    return text.upper()


class RequireToken:
    """401 for any request without the bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"no entry"})
            return
        await self.app(scope, receive, send)


def main() -> None:
    if "NOTES_FILE" not in os.environ:
        print("NOTES_FILE is not set", file=sys.stderr)
        sys.exit(3)
    flags = sys.argv[1:]
    token = next((f.split("=", 1)[1] for f in flags if f.startswith("--token=")), None)
    app: Any = server.streamable_http_app(json_response="--json-response" in flags)
    if token:
        app = RequireToken(app, token)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves them
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
