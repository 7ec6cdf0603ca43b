"""A hostile MCP server over stdio that writes exactly the raw lines a test scripts.

    python tests/servers/scripted_mcp.py SCRIPT.json [--log=FILE]

SCRIPT is a JSON object. Each member names what the server received and holds the raw lines
(strings, written as they are, each followed by a newline) it writes in answer; ``{id}`` in a
line is replaced by the received request's id as JSON:

- ``"initialize"``, ``"tools/list"``, ``"ping"``, any method: answers to a request of that method;
- ``"tools/call:NAME"``: answers to a call of tool NAME (before ``"tools/call"``);
- ``"start"``: lines written once, at start.

A request with no script gets a plain, valid answer (``initialize``, ``tools/list`` listing
``get_weather``, ``delete_item`` and ``service_status``, ``ping``; a call of ``get_weather``
returns valid weather) or, for any other method, a -32601 error. Every line received is
appended, byte for byte, to ``--log`` (what a test asserts never reached the server). The
server parses leniently, as many servers do: a batch is served item by item, a notification
named ``tools/call`` is run, the method is matched without regard to case, and a line that is
not UTF-8 is read with replacement characters: whatever reaches it, it runs.
"""

from __future__ import annotations

import json
import sys

DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"
TOOLS = [
    {"name": "get_weather", "description": "Current weather for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
    {"name": "delete_item", "description": "Delete an item.",
     "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}}},
    {"name": "service_status", "description": "The state of a service.",
     "inputSchema": {"type": "object", "properties": {}}},
]
WEATHER = {"city": "Oslo", "temperature_c": 21.5, "conditions": "clear"}


def default(method: str, params: dict) -> dict | None:
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "ping":
        return {}
    if method == "tools/call":
        name = params.get("name")
        if name == "get_weather":
            return {"content": [{"type": "text", "text": json.dumps(WEATHER)}], "structuredContent": WEATHER}
        if name == "service_status":
            return {"content": [], "structuredContent": {"state": "up"}}
        return {"content": [{"type": "text", "text": f"ran {name}"}], "structuredContent": {"ran": name}}
    return None


def write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def serve(message: dict, script: dict) -> None:
    method = str(message.get("method", "")).lower()
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    ident = message.get("id")
    name = params.get("name") if method == "tools/call" else None
    lines = script.get(f"tools/call:{name}") if name is not None else None
    if lines is None:
        lines = script.get(method)
    if lines is not None:
        for line in lines:
            write(line.replace("{id}", json.dumps(ident)))
        return
    if ident is None and method != "tools/call":
        return  # a notification
    result = default(method, params)
    if result is None:
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}}))
    else:
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}))


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        script = json.load(handle)
    log = next((a.split("=", 1)[1] for a in sys.argv[2:] if a.startswith("--log=")), None)
    for line in script.get("start", []):
        write(line)
    for raw in sys.stdin.buffer:
        if log:
            with open(log, "ab") as handle:
                handle.write(raw if raw.endswith(b"\n") else raw + b"\n")
        try:
            value = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict):
                serve(message, script)
    return 0


if __name__ == "__main__":
    sys.exit(main())
