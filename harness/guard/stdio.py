"""``contract-harness guard``: the relay between this process's stdin/stdout and a server.

The MCP client starts the guard in place of the server; the guard starts the server (the
command after ``--``) with the same environment and working directory, and relays. The
server's stderr is the guard's own (inherited), so its logs go where the client keeps them.
Nothing but protocol is ever written to stdout.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

import anyio
from anyio.abc import Process

from harness.drift import process as proc
from harness.guard.lines import LineSplitter, Oversized
from harness.guard.policy import Guard
from harness.guard.relay import Relay, ServerEndpoint
from harness.internals import anyio_asyncio_stream

_CHUNK = 1 << 16


class StdioEndpoint:
    """This process's stdin and stdout as the client's end of the relay.

    Pipes and sockets (the normal case: an MCP client's) are read and written by the event
    loop itself; anything else (a file redirected in, a terminal, /dev/null) is read by a
    worker thread and written directly.
    """

    def __init__(self) -> None:
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._blocking: dict[int, bool] = {}

    async def open(self) -> StdioEndpoint:
        loop = asyncio.get_running_loop()
        stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
        self._blocking = {fd: os.get_blocking(fd) for fd in (stdin, stdout)}
        if _is_pipe(stdin):
            reader = asyncio.StreamReader(limit=_CHUNK)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), _dup(stdin, "rb"))
            self._reader = reader
        if _is_pipe(stdout):
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, _dup(stdout, "wb"))
            self._writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return self

    async def receive(self) -> bytes:
        if self._reader is not None:
            return await self._reader.read(_CHUNK)
        return await anyio.to_thread.run_sync(os.read, sys.stdin.fileno(), _CHUNK, abandon_on_cancel=True)

    async def send(self, data: bytes, related: str | None = None) -> None:
        if self._writer is not None:
            self._writer.write(data)
            await self._writer.drain()
            return
        view = memoryview(data)
        while view:
            view = view[os.write(sys.stdout.fileno(), view) :]

    async def aclose(self) -> None:
        """Flush what is still buffered for the client (a few seconds at most: a client that
        reads nothing more cannot hold the guard), then give the pipes back as they were."""
        if self._writer is not None:
            transport = self._writer.transport
            with anyio.move_on_after(5.0):
                while transport.get_write_buffer_size() and not transport.is_closing():
                    await anyio.sleep(0.01)
            transport.close()
        self.close()

    def close(self) -> None:
        """Give the terminal or pipe back as it was (the event loop made it non-blocking)."""
        for fd, blocking in self._blocking.items():
            with suppress(OSError):
                os.set_blocking(fd, blocking)


def _is_pipe(fd: int) -> bool:
    """Whether the event loop can watch ``fd`` (a pipe or socket; not a file, /dev/null or a
    terminal, which the thread fallback serves)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _dup(fd: int, mode: str) -> IO[bytes]:
    # A copy of the descriptor: the transport closes what it is given, and fd 0/1 stay ours.
    return os.fdopen(os.dup(fd), mode, buffering=0)


#: Control characters a peer's text may carry, written escaped: a diagnostic is one line, and
#: no peer can forge another. Applied after redaction, so a secret holding a line break is
#: matched as it is.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)} | {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def log_line(text: str) -> None:
    """One diagnostic line on stderr (never stdout: that is the protocol's)."""
    with suppress(OSError, ValueError):
        sys.stderr.write(f"contract-harness guard: {text.translate(_CONTROLS)}\n")
        sys.stderr.flush()


async def start_server(argv: Sequence[str], *, stderr: Any = None, cwd: Path | None = None) -> Process:
    """Start the server with this process's environment, in its own process group (so a stop
    reaches whatever it started). ``stderr`` None inherits this process's."""
    program = proc.resolve_program(argv[0], Path.cwd(), "guard COMMAND")
    return await anyio.open_process(
        [program, *argv[1:]],
        stderr=stderr,
        cwd=str(cwd) if cwd is not None else None,
        start_new_session=True,
    )


def _asyncio_stream(stream: Any, kind: type[Any]) -> Any:
    """The asyncio stream inside one of anyio's process streams, or None (another backend, or
    a stream of the caller's own). The relay's hot path reads and writes it directly: anyio's
    wrapper adds a cancellation check and a yield to the event loop around every write, which
    is most of what a message costs the loop (the relay's tasks never need the yield: each
    line is written whole before its first await, and the wait for a full buffer to drain is
    still awaited)."""
    inner = anyio_asyncio_stream(stream)
    return inner if isinstance(inner, kind) else None


class ProcessServer:
    """A server process over stdio: one JSON-RPC message per line, each way. The relay's
    :class:`~harness.guard.relay.ServerEndpoint` for ``guard -- COMMAND``.

    Each write is whole before its first await (a stream's write is synchronous; only the wait
    for the buffer to drain yields), so messages from different tasks never interleave and
    leave in the order they were sent; the wait is the backpressure."""

    def __init__(self, process: Process, *, cap: int, stderr: Callable[[bytes], None] | None = None) -> None:
        self.process = process
        self.cap = cap
        self.stderr = stderr
        self._writer: asyncio.StreamWriter | None = _asyncio_stream(process.stdin, asyncio.StreamWriter)
        self._reader: asyncio.StreamReader | None = _asyncio_stream(process.stdout, asyncio.StreamReader)
        self._closed = False

    async def messages(self) -> AsyncIterator[bytes | Oversized]:
        stdout = self.process.stdout
        assert stdout is not None
        reader = self._reader
        splitter = LineSplitter(self.cap)
        while True:
            try:
                chunk = await (stdout.receive(1 << 16) if reader is None else reader.read(1 << 16))
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                break
            if not chunk:  # the asyncio stream's end (anyio's raises EndOfStream)
                break
            for item in splitter.feed(chunk):
                yield item
        for item in splitter.finish():
            yield item

    async def send(self, message: bytes) -> bool:
        stdin = self.process.stdin
        if self._closed or stdin is None:
            return False
        try:
            if self._writer is None:
                await stdin.send(message + b"\n")
            else:
                self._writer.write(message + b"\n")
                await self._writer.drain()
        except (OSError, RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._closed = True
            return False
        return True

    async def run_beside(self) -> None:
        """Copy the server's stderr to the sink, where one was given (else it is inherited)."""
        stream, sink = self.process.stderr, self.stderr
        if stream is None or sink is None:
            return
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            while True:
                sink(await stream.receive(1 << 14))

    async def stop(self) -> None:
        """Close the server's stdin (the MCP way to stop a stdio server), then TERM, then KILL."""
        self._closed = True
        stdin = self.process.stdin
        if stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stdin.aclose()
        await proc.stop(self.process)

    async def status(self, wait: float) -> int | None:
        await proc.wait_exit(self.process, wait)
        return self.process.returncode


#: Makes the relay's server end: a process from ``-- COMMAND``, or a remote session (``--url``).
MakeServer = Callable[[], Awaitable[ServerEndpoint]]


def process_server(argv: Sequence[str], max_message_bytes: int) -> MakeServer:
    """Server ends that are a new process of ``argv`` each."""

    async def make() -> ServerEndpoint:
        return ProcessServer(await start_server(argv), cap=max_message_bytes)

    return make


async def serve(guard: Guard, make_server: MakeServer, *, max_message_bytes: int, log: Callable[[str], None],
                what: str = "the server") -> int:
    """Relay between stdin/stdout and the server until one side is gone; the exit status."""
    server = await make_server()
    endpoint = await StdioEndpoint().open()
    relay = Relay(guard, server, endpoint, max_message_bytes=max_message_bytes, log=log)
    try:
        async with anyio.create_task_group() as group:

            async def on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
                    async for number in signals:
                        log(f"{signal.Signals(number).name}: stopping {what}")
                        await relay.stop()
                        return

            group.start_soon(on_signal)
            status = await relay.run()
            group.cancel_scope.cancel()
    finally:
        await endpoint.aclose()
        await server.stop()
    if status is None:
        return 0
    if status < 0:
        log(f"the server was stopped by signal {-status}")
        return 128 - status
    log(f"the server exited with status {status}")
    return status


def run_proxy(
    guard: Guard, make_server: MakeServer, *, max_message_bytes: int, log: Callable[[str], None] = log_line,
    what: str = "the server",
) -> int:
    """Blocking entry point for the CLI: the client on stdio."""
    return anyio.run(lambda: serve(guard, make_server, max_message_bytes=max_message_bytes, log=log, what=what),
                     backend="asyncio")


def run_http(
    guard: Guard, make_server: MakeServer, host: str, port: int, *, max_message_bytes: int,
    log: Callable[[str], None] = log_line,
) -> int:
    """Blocking entry point for ``guard --listen``: a Streamable HTTP endpoint, one server end
    per client session."""
    from harness.guard.http import HttpGuard, serve_http

    app = HttpGuard(guard, make_server, max_message_bytes=max_message_bytes, log=log)

    def listening(url: str) -> None:
        log(f"listening on {url} (configure the client with this URL)")

    async def main() -> int:
        return await serve_http(app, host, port, on_listening=listening, log=log)

    return anyio.run(main, backend="asyncio")
