"""A test helper: replays a recorded MCP server of the real-tools corpus over stdio.

    python replay_mcp.py <corpus>/mcp-server-memory [START_LOG]

It answers initialize and tools/list with the recorded response lines, and each tools/call
whose name and arguments match a recorded request with that request's raw answer line — the
bytes as the real server sent them, only the trailing JSON-RPC id swapped for the caller's.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_TRAILING_ID = re.compile(rb',"id":(?:-?\d+|"[^"]*")\}\s*$')


def with_id(line: bytes, message_id: object) -> bytes:
    replaced, count = _TRAILING_ID.subn(b',"id":' + json.dumps(message_id).encode() + b"}", line)
    if count != 1:
        raise SystemExit(f"recorded line does not end with its id: {line[-60:]!r}")
    return replaced


def main(source: Path) -> None:
    initialize = (source / "initialize.response.json").read_bytes().strip()
    tools = (source / "tools-list.response.json").read_bytes().strip()
    calls = {}
    for request in source.glob("*/requests/*.json"):
        params = json.loads(request.read_text())["params"]
        key = (params["name"], json.dumps(params.get("arguments", {}), sort_keys=True))
        calls[key] = (request.parent.parent / "raw" / request.name).read_bytes().strip()
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            out = with_id(initialize, message["id"])
        elif method == "tools/list":
            out = with_id(tools, message["id"])
        elif method == "tools/call":
            key = (params.get("name"), json.dumps(params.get("arguments", {}), sort_keys=True))
            recorded = calls.get(key)
            out = (
                with_id(recorded, message["id"])
                if recorded
                else json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32602, "message": "not recorded"},
                    }
                ).encode()
            )
        else:
            out = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}).encode()
        sys.stdout.buffer.write(out + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    if len(sys.argv) > 2:  # one line per server start, for the tests that count them
        with open(sys.argv[2], "a") as log:
            log.write("started\n")
    main(Path(sys.argv[1]))
