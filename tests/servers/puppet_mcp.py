"""A stdio MCP "server" whose every byte a test writes: its stdin and stdout are a TCP socket
on loopback that the test holds.

    python tests/servers/puppet_mcp.py PORT
    python tests/servers/puppet_mcp.py --record LOG -- COMMAND [ARGS...]

The first form connects to 127.0.0.1:PORT, then copies stdin to the socket and the socket to
stdout, byte for byte, until either side ends: the guard in front of it talks to whatever the
test writes (a hostile server played by a hypothesis state machine). The second form starts
COMMAND (a real server) and copies both ways, appending every byte the server receives to LOG:
what a test asserts never reached it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from typing import BinaryIO


def pump(source: BinaryIO, write: object, done: threading.Event) -> None:
    try:
        while True:
            chunk = source.read1(1 << 16) if hasattr(source, "read1") else source.read(1 << 16)
            if not chunk:
                break
            write(chunk)  # type: ignore[operator]
    except OSError:
        pass
    finally:
        done.set()


def to_stdout(chunk: bytes) -> None:
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()


def main() -> int:
    done = threading.Event()
    if sys.argv[1] == "--record":
        log, command = sys.argv[2], sys.argv[sys.argv.index("--") + 1 :]
        server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert server.stdin is not None and server.stdout is not None

        def to_server(chunk: bytes) -> None:
            with open(log, "ab") as handle:
                handle.write(chunk)
            server.stdin.write(chunk)  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]

        threading.Thread(target=pump, args=(sys.stdin.buffer, to_server, done), daemon=True).start()
        threading.Thread(target=pump, args=(server.stdout, to_stdout, done), daemon=True).start()
        done.wait()
        server.kill()
        return 0
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    reader = sock.makefile("rb", buffering=0)
    threading.Thread(target=pump, args=(sys.stdin.buffer, sock.sendall, done), daemon=True).start()
    threading.Thread(target=pump, args=(reader, to_stdout, done), daemon=True).start()
    done.wait()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
