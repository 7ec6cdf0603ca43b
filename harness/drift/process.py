"""Starting and stopping the programs behind ``command`` and ``mcp`` upstreams.

A program named without a slash is looked up on ``PATH``, then beside the running Python (a
virtualenv's ``bin/``, where ``contract-harness`` itself lives); a relative path is relative to
the project root. A program gets a small environment — never the harness's own (which holds the
secrets of every other upstream) — plus what its ``env:`` grants. Each runs in its own process
group, so a timeout stops it and everything it started.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

import anyio
from anyio.abc import Process

from harness.errors import ContractError
from harness.internals import anyio_subprocess_transport

#: Passed through from the harness's environment to every program.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SHELL", "TERM", "USER", "LOGNAME")
_GRACE_S = 2.0


def resolve_program(name: str, root: Path, where: str) -> str:
    """The absolute path of a program, or a configuration error naming where it was expected."""
    if os.sep in name or (os.altsep and os.altsep in name):
        # Absolute, but links kept: a virtualenv's python is a link, and resolving it starts
        # the base interpreter without the environment's packages.
        path = Path(os.path.abspath(root / name))
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    else:
        found = shutil.which(name)
        if found:
            return found
        beside = Path(sys.executable).parent / name
        if beside.is_file() and os.access(beside, os.X_OK):
            return str(beside)
    raise ContractError(
        f"program {name!r} not found (looked on PATH, beside {sys.executable}, and relative to {root} for paths)",
        file=where,
        code="upstream.program_not_found",
    )


def child_environment(extra: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What a program is started with: the :data:`INHERITED` variables of ``environ`` (default:
    this process's environment), and ``extra``."""
    source = os.environ if environ is None else environ
    env = {k: source[k] for k in INHERITED if k in source}
    env.update(extra)
    return env


async def start(argv: list[str], env: Mapping[str, str], cwd: Path) -> Process:
    """Start a program with piped stdin, stdout and stderr, in a new process group."""
    return await anyio.open_process(
        argv,
        env=dict(env),
        cwd=str(cwd),
        start_new_session=True,
    )


async def wait_exit(process: Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout`` (polled: asyncio's wait() also waits for
    pipes a grandchild may still hold)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(process: Process, sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


async def stop(process: Process, *, close_stdin_first: bool = True) -> None:
    """Stop a program and its group: close its stdin (a polite MCP server exits), then SIGTERM,
    then SIGKILL, each after a short grace. Never waits unboundedly; safe under cancellation."""
    with anyio.CancelScope(shield=True):
        if close_stdin_first and process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
            if await wait_exit(process, _GRACE_S):
                _signal_group(process, signal.SIGKILL)  # whatever it started goes too
                await _close_streams(process)
                return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            _signal_group(process, sig)
            if await wait_exit(process, _GRACE_S):
                break
        _signal_group(process, signal.SIGKILL)
        await _close_streams(process)


async def kill(process: Process) -> None:
    """Stop at once (a timeout, a byte cap): SIGKILL to the whole group."""
    with anyio.CancelScope(shield=True):
        _signal_group(process, signal.SIGKILL)
        await wait_exit(process, _GRACE_S)
        await _close_streams(process)


async def _close_streams(process: Process) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.aclose()
    # asyncio keeps the subprocess transport open while a pipe end is (a child killed before
    # it wrote EOF); nothing public closes it, so reach it as the mcp SDK's stdio client does.
    transport = anyio_subprocess_transport(process)
    close = getattr(transport, "close", None)
    if callable(close):
        close()


class StderrTail:
    """The last ``limit`` bytes a program wrote to stderr: for the operator, never the agent."""

    def __init__(self, limit: int = 8192) -> None:
        self.limit = limit
        self._data = bytearray()
        self._cut = False
        self.done = anyio.Event()

    def feed(self, chunk: bytes) -> None:
        self._data += chunk
        if len(self._data) > self.limit:
            del self._data[: len(self._data) - self.limit]
            self._cut = True

    def text(self) -> str:
        text = self._data.decode("utf-8", "replace")
        if self._cut:
            # The cut fell inside a line: drop that part line, which could hold the end of a
            # secret no redaction would recognise any more.
            text = text.partition("\n")[2]
        return text

    async def drain(self, process: Process) -> None:
        try:
            while process.stderr is not None:
                self.feed(await process.stderr.receive(1 << 14))
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.done.set()


def tail_lines(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text``, from the start of a line: a part line could
    hold the end of a secret, which no redaction would recognise."""
    if len(text) <= limit:
        return text
    return text[-limit:].partition("\n")[2]
