"""Files the harness reads and writes, and the rules it holds them to (docs/safety.md).

Reads: only regular files (never a FIFO, a device or a directory), opened without blocking,
each under a size cap, and — for the files of a project (contracts, schemas, sidecars,
fixtures) — only where the path, symlinks resolved, stays inside the folder it belongs to. A
fixture symlinked to ``/proc/self/environ`` is an error, not a payload.

Writes: every report, reproduction and recorded fixture is written to a temporary file beside
the target and renamed over it, so a reader sees the old file or the whole new one. The target
must be absent or a regular file: a symlink, a directory (``x.json/``), a device or a FIFO is
refused, never replaced or written through. :func:`write_new` never replaces anything.
Failures (disk full, no permission, a parent that is a file) are :class:`OutputError`, one
line with the path and the reason.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from pathlib import Path
from typing import BinaryIO

from harness.errors import ContractError, HarnessError, printable_path

#: Caps on what one file may weigh. Contracts and sidecars are hand-written YAML; schemas may
#: be generated (OpenAPI components), so they get more room.
MAX_YAML_BYTES = 1 << 20
MAX_SCHEMA_BYTES = 16 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symlink"),
)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words (``a directory``, ``a FIFO``, ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def inside(path: Path | str, folder: Path | str) -> bool:
    """Whether ``path``, every symlink resolved, is ``folder`` or below it."""
    try:
        real, base = _real(os.fspath(path)), _resolved(_absolute(os.fspath(folder)))
    except (OSError, RuntimeError):  # a symlink loop
        return False
    # Both are resolved and absolute (no ``.``, ``..`` or doubled separators): below ``base``
    # component by component is below it as text, past a separator.
    real, base = os.path.normcase(real), os.path.normcase(base)
    return real == base or real.startswith(base if base.endswith(os.sep) else base + os.sep)


def _absolute(path: str) -> str:
    """``path`` from the working directory (as ``resolve`` starts), not yet resolved."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def _real(path: str) -> str:
    """``Path(path).resolve()``; for a file that is no symlink, its folder's resolved path (kept
    per process, see :func:`_resolved`) and its name: one ``lstat`` instead of one per component."""
    path = _absolute(path)
    folder, name = os.path.split(path)
    if name in ("", ".", ".."):
        return str(Path(path).resolve())
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return str(Path(path).resolve())
    except OSError:
        return str(Path(path).resolve())
    return os.path.join(_resolved(folder), name)


@functools.lru_cache(maxsize=1024)
def _resolved(folder: str) -> str:
    """An absolute folder resolved once per process: the few folders files are held inside (a
    project's root) or read from (a tool's fixtures) are asked about for every fixture read."""
    return str(Path(folder).resolve())


def read_bytes(
    path: Path, *, limit: int, within: Path | None = None, what: str = "file", truncate: bool = False
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, inside ``within`` if given.

    With ``truncate``, a longer file is not an error: its first ``limit + 1`` bytes are
    returned (a payload's transport layer needs no more to know it is too long).

    Raises :class:`~harness.errors.ContractError` naming the file: ``contract.missing`` when it
    does not exist, ``file.outside`` when it resolves outside ``within``, ``file.not_regular``,
    ``file.too_large``, ``file.unreadable``.
    """
    name = printable_path(path)
    if within is not None and not inside(path, within):
        raise ContractError(
            f"{what} resolves outside {printable_path(within)}; a symlink may not lead out of it",
            file=name, code="file.outside",
        )
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise ContractError("file not found", file=name, code="contract.missing") from None
    except OSError as exc:
        raise ContractError(f"cannot read {what}: {exc.strerror or exc}", file=name,
                            code="file.unreadable") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ContractError(f"{what} is {kind_of(info.st_mode)}, not a regular file", file=name,
                                code="file.not_regular")
        if info.st_size > limit and not truncate:
            raise ContractError(_too_large(what, info.st_size, limit), file=name, code="file.too_large")
        data = read_at_most(fd, limit + 1)  # files in /proc say size 0: one byte past the cap to know
    except OSError as exc:
        raise ContractError(f"cannot read {what}: {exc.strerror or exc}", file=name,
                            code="file.unreadable") from None
    finally:
        os.close(fd)
    if len(data) > limit and not truncate:
        raise ContractError(_too_large(what, len(data), limit, at_least=True), file=name, code="file.too_large")
    return data


def read_at_most(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from the descriptor ``fd`` (fewer at its end)."""
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _too_large(what: str, size: int, limit: int, at_least: bool = False) -> str:
    more = "more than " if at_least else ""
    return f"{what} is {more}{size - 1 if at_least else size:,} bytes; the cap is {limit:,}"


def read_text(path: Path, *, limit: int, within: Path | None = None, what: str = "file") -> str:
    """:func:`read_bytes`, decoded as strict UTF-8 (an error names the line and column)."""
    data = read_bytes(path, limit=limit, within=within, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ContractError(f"not UTF-8 text (byte {exc.start}: {exc.reason})", file=printable_path(path),
                            code="file.unreadable", line=line, column=column) from None


# --------------------------------------------------------------------------- writes


def symlink_between(root: Path, path: Path) -> str | None:
    """Why ``path`` cannot be reached from ``root`` without following a symlink or crossing
    something that is not a folder (``root`` and every folder below it down to ``path``'s,
    ``path`` itself not included); None when it can, or when a folder on the way does not exist
    yet (nothing to follow)."""
    folder = root
    for part in (None, *path.relative_to(root).parts[:-1]):
        if part is not None:
            folder = folder / part
        try:
            mode = os.lstat(folder).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            return f"{printable_path(folder)}: {exc.strerror or exc}"
        if stat.S_ISLNK(mode):
            return f"{printable_path(folder)} is a symlink (not followed)"
        if not stat.S_ISDIR(mode):
            return f"{printable_path(folder)} is {kind_of(mode)}, not a folder"
    return None



class OutputError(HarnessError, OSError):
    """A report, reproduction or fixture could not be written. Also an ``OSError``, so callers
    that degrade on a failed write (drift's recorder) keep doing so."""

    code = "output.unwritable"

    def __init__(self, message: str, *, code: str | None = None, errno_: int | None = None) -> None:
        HarnessError.__init__(self, message, code=code)
        self.errno = errno_
        self.strerror = message


def check_target(path: Path, what: str = "output", *, probe: bool = False) -> None:
    """Refuse a target that exists and is not a regular file (symlinks included), or whose
    parent is not a directory; with ``probe``, also one whose nearest existing folder takes no
    new file. Called before a run, so a bad ``--json`` fails in a second."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # a parent that is a file: said just below
        info = None
    except OSError as exc:
        raise _failed(path, what, exc) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputError(
            f"{what} {printable_path(path)} is {kind_of(info.st_mode)}; refusing to write to it (give a file path)",
            code="output.not_regular",
        )
    for parent in (path.parent, *path.parent.parents):
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"cannot write {what} {printable_path(path)}: {printable_path(parent)} is not a "
                                  "directory", errno_=errno.ENOTDIR)
            if probe:
                # The file is written beside itself first (a temporary file renamed over it), in
                # folders made as needed: a folder that takes no new entry (read-only, /proc) is
                # refused now, by the name given.
                import tempfile  # as AtomicWriter: only a command that writes a file loads it

                try:
                    tempfile.TemporaryFile(dir=parent, prefix=".probe.").close()
                except OSError as exc:
                    raise _failed(path, what, exc) from None
            break


def _failed(path: Path, what: str, exc: OSError) -> OutputError:
    reason = exc.strerror or type(exc).__name__
    return OutputError(f"cannot write {what} {printable_path(path)}: {reason}", errno_=exc.errno)


def write_atomic(path: Path, data: bytes, mode: int = 0o644, *, what: str = "file", durable: bool = True) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one.

    The target must be absent or a regular file; raises :class:`OutputError` otherwise, and on
    any failure to write (nothing is left behind: the temporary file is removed). ``durable``:
    see :class:`AtomicWriter`."""
    with AtomicWriter(path, mode, what=what, durable=durable) as out:
        out.write(data)


class AtomicWriter:
    """A file written piece by piece that appears at ``path`` whole or not at all.

    The pieces go to a temporary file beside the target (same folder, so the final rename is
    atomic); :meth:`commit` syncs it and renames it over ``path``, :meth:`abort` removes it. As
    a context manager it commits when the block ends normally and aborts on any exception
    (``KeyboardInterrupt`` included): an interrupted run leaves the old file, never half of a
    new one. A process killed outright leaves only its hidden ``.<name>.*.tmp`` beside the
    target. Errors are :class:`OutputError`, as for :func:`write_atomic`.

    ``durable=False`` skips the sync before the rename, for a cache (the reference's saved
    verdicts, the fuzz replays) that a run rewrites per tool: the rename is still atomic, so a
    reader never sees part of a file, but a machine that loses power right after may keep the
    old file, or an empty one, which the cache's reader takes as nothing saved (one warning for
    a file it cannot read). A sync costs a millisecond here and several on a CI runner's
    network disk, once per tool and run. Reports, fixtures, baselines and locks stay durable.
    """

    def __init__(self, path: Path | str, mode: int = 0o644, *, what: str = "file", durable: bool = True) -> None:
        self.path = Path(path)
        self.mode = mode
        self.what = what
        self.durable = durable
        check_target(self.path, what)
        import tempfile  # writes only: reading commands (lint) need not load it

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, self._tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name[:64]}.", suffix=".tmp")
        except OSError as exc:
            raise _failed(self.path, what, exc) from None
        self._handle: BinaryIO | None = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        if self._handle is None:
            raise ValueError(f"{printable_path(self.path)}: already committed or aborted")
        try:
            self._handle.write(data)
        except OSError as exc:
            self.abort()
            raise _failed(self.path, self.what, exc) from None

    def commit(self) -> None:
        """Sync the temporary file (when durable) and rename it over the target."""
        if self._handle is None:
            raise ValueError(f"{printable_path(self.path)}: already committed or aborted")
        try:
            handle, self._handle = self._handle, None
            with handle:
                handle.flush()
                if self.durable:
                    os.fsync(handle.fileno())
            os.chmod(self._tmp, self.mode)
            check_target(self.path, self.what)  # narrow the window in which the target may have changed
            os.replace(self._tmp, self.path)
        except OutputError:
            self.abort()
            raise
        except OSError as exc:
            self.abort()
            raise _failed(self.path, self.what, exc) from None

    def abort(self) -> None:
        """Drop what was written; the target is left as it was. Safe to call more than once."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()
        with contextlib.suppress(OSError):
            if os.path.lexists(self._tmp):
                os.unlink(self._tmp)

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def write_new(path: Path, data: bytes, mode: int = 0o644, *, what: str = "file") -> bool:
    """Write ``data`` to ``path`` only if nothing is there (atomically); False if something is.

    The whole file appears at once (hard link of a finished temporary file), and an existing
    file, symlink or anything else at ``path`` is never replaced."""
    import tempfile

    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            return False
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: exclusive create, then copy
            return _create_exclusive(path, data, mode)
        return True
    except OSError as exc:
        raise _failed(path, what, exc) from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)


def _create_exclusive(path: Path, data: bytes, mode: int) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return True


def open_append(path: Path, what: str = "file") -> int:
    """A descriptor appending to ``path`` (created if absent): a regular file, never through a
    symlink, never a FIFO or device."""
    path = Path(path)
    check_target(path, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(f"{what} {printable_path(path)} is a symlink; refusing to write through it",
                              code="output.not_regular") from None
        raise _failed(path, what, exc) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise OutputError(f"{what} {printable_path(path)} is {kind_of(info.st_mode)}; refusing to write to it",
                          code="output.not_regular")
    os.set_blocking(fd, True)
    return fd
