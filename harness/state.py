"""Saved state (``.contract-harness/``): files a run keeps for the next one, sealed so that no
edit of them can change a verdict.

The state folder is a cache (CI restores it from ``actions/cache``): the reference validator's
saved verdicts (:mod:`harness.differential.verdicts`) and the fuzz properties' saved runs
(:mod:`harness.fuzz.replay`). Each may spare work — a reference validation, a generation — and
each is a claim about public inputs (a schema, a document, a contract's files) that anyone who
can write the folder could write too: a verdict that agrees with the production validator where
the reference would not, fuzz examples that miss what generation would find. So a saved file is
taken only when it carries a **seal**: an HMAC-SHA256, under a key kept outside the state
folder, of its body and of its place in the folder. A file without a valid seal is never read
beyond that check, and the run does the work it would have spared; the next save replaces it.

The key (:func:`key`):

- ``CONTRACT_HARNESS_STATE_KEY``, when set (a CI secret: state restored from a cache is then
  used across jobs, and whoever writes the cache without the secret cannot seal a file);
- else a random key made on first use in the user's state folder
  (``$XDG_STATE_HOME/contract-harness/state.key``, by default
  ``~/.local/state/contract-harness/state.key``, mode 0600), never inside the project's state
  folder. State sealed on another machine (a CI cache restored without the variable) is not
  used, and is said once per process.

Reading (:func:`read`) and writing (:func:`write`) never go through a symlink: not the file, not
the state folder, not a folder between them; the file must be a regular file under a size cap.
Whatever is wrong is a :class:`StateUnusable` with the reason in words, which the caller turns
into a one-line warning and a fresh run.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, printable_path
from harness.files import inside, kind_of, read_at_most, read_bytes, symlink_between, write_atomic, write_new

KEY_ENV = "CONTRACT_HARNESS_STATE_KEY"
#: Where the key is made, below the user's state folder.
KEY_FILE = ("contract-harness", "state.key")
#: What the HMAC of a sealed file covers besides its body (a seal of one kind of file is no
#: seal of another).
_DOMAIN = b"contract-harness saved state 1\0"
_SEAL_OPEN = b'{"seal":"'
_ID_HEX = 16
_MAC_HEX = 64
#: How an earlier release's file starts: its ``format`` first.
_FORMAT_FIRST = re.compile(rb'\{\s*"format"\s*:\s*([0-9]{1,3})\s*,')
#: ``{"seal":"<key id>:<mac>",``: a sealed file's first bytes.
_SEAL_LENGTH = len(_SEAL_OPEN) + _ID_HEX + 1 + _MAC_HEX + 2


class StateUnusable(ValueError):
    """A saved file the run does not take: the reason, in words."""


class EarlierState(StateUnusable):
    """A file without a seal: an earlier release's (its verdicts are not taken, silently)."""


class FolderUnusable(StateUnusable):
    """The state folder (or a folder in it) is a symlink or not a folder: nothing in it is read
    or written."""


class NoKey(StateUnusable):
    """No key to seal or check a seal with (no home folder, a read-only one)."""


class ForeignState(StateUnusable):
    """A file sealed with another key: another machine's, or a cache restored without
    ``CONTRACT_HARNESS_STATE_KEY``."""


# --------------------------------------------------------------------------- the key


_FILE_KEYS: dict[str, bytes] = {}


def key_file() -> Path:
    """Where the key is kept when ``CONTRACT_HARNESS_STATE_KEY`` is not set."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base, *KEY_FILE)


def key() -> tuple[bytes, str]:
    """The key saved state is sealed with, and its id (a hash of it, written in each seal so a
    file sealed elsewhere is told from an edited one). Raises :class:`StateUnusable` when there
    is none (no home folder, a read-only one)."""
    text = os.environ.get(KEY_ENV)
    if text:
        secret = hashlib.sha256(b"contract-harness state key\0" + text.encode("utf-8", "surrogateescape")).digest()
    else:
        path = key_file()
        found = _FILE_KEYS.get(str(path))
        if found is None:
            found = _FILE_KEYS[str(path)] = _file_key(path)
        secret = found
    return secret, hashlib.sha256(b"id\0" + secret).hexdigest()[:_ID_HEX]


def _file_key(path: Path) -> bytes:
    for _ in range(2):
        try:
            data = read_bytes(path, limit=256, what="state key")
        except HarnessError as exc:
            if getattr(exc, "code", None) != "contract.missing":
                raise NoKey(f"no key: {exc}") from None
        else:
            text = data.strip()
            if len(text) != 64 or any(c not in b"0123456789abcdef" for c in text):
                raise NoKey(f"no key: {printable_path(path)} is not 64 hex digits (delete it to make a new one)")
            return bytes.fromhex(text.decode("ascii"))
        try:
            write_new(path, (secrets.token_hex(32) + "\n").encode("ascii"), 0o600, what="state key")
        except (HarnessError, OSError) as exc:
            raise NoKey(f"no key: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    raise NoKey(f"no key: {printable_path(path)} could not be made")


# --------------------------------------------------------------------------- sealing


def _mac(secret: bytes, place: str, body: bytes) -> str:
    h = hmac.new(secret, _DOMAIN + place.encode("utf-8", "surrogateescape") + b"\0", hashlib.sha256)
    h.update(body)
    return h.hexdigest()


def _place(path: Path, root: Path) -> str:
    """The file's place in the state folder (``check/reference/tool.json``): sealed with it, so a
    file moved to another place is no longer sealed."""
    return path.relative_to(root).as_posix()


def seal(body: bytes, path: Path, root: Path) -> bytes:
    """``body`` (a JSON object's text) with its seal as its first member."""
    if not body.startswith(b"{") or body.startswith(b"{}"):
        raise ValueError("a sealed body is a JSON object with members")
    secret, ident = key()
    return _SEAL_OPEN + f"{ident}:{_mac(secret, _place(path, root), body)}".encode("ascii") + b'",' + body[1:]


def unseal(data: bytes, path: Path, root: Path, earlier: tuple[int, ...] = ()) -> bytes:
    """The body of a sealed file (the JSON object without its seal); raises
    :class:`StateUnusable` when the seal is absent, another key's, or does not match
    (:class:`EarlierState` for a file as an earlier release wrote it: unsealed, its ``format``
    first and one of ``earlier``)."""
    if not data.startswith(_SEAL_OPEN) or data[_SEAL_LENGTH - 2:_SEAL_LENGTH] != b'",':
        first = _FORMAT_FIRST.match(data)
        if first is not None and int(first.group(1)) in earlier:
            raise EarlierState("an earlier release's, not sealed")
        raise StateUnusable("not sealed")
    ident = data[len(_SEAL_OPEN):len(_SEAL_OPEN) + _ID_HEX].decode("ascii", "replace")
    written = data[len(_SEAL_OPEN) + _ID_HEX + 1:_SEAL_LENGTH - 2].decode("ascii", "replace")
    secret, mine = key()
    if ident != mine:
        raise ForeignState(f"sealed with another key (another machine's, or a cache restored without {KEY_ENV})")
    body = b"{" + data[_SEAL_LENGTH:]
    if not hmac.compare_digest(written, _mac(secret, _place(path, root), body)):
        raise StateUnusable("does not match its seal (edited, or damaged)")
    return body


# --------------------------------------------------------------------------- files


def scope(exc: ValueError) -> str:
    """`` (and every other file of its folder)`` for a problem of the whole state folder."""
    whole = isinstance(exc, NoKey | ForeignState | FolderUnusable)
    return " (and every other file of its folder)" if whole else ""


def said_once(exc: StateUnusable, root: Path) -> bool:
    """Whether a store should warn of ``exc`` now: a problem of the whole folder (its key, a
    symlink, another machine's seal) once per process and folder; any other, every time."""
    if isinstance(exc, NoKey | ForeignState | FolderUnusable):
        return first_time(f"{type(exc).__name__} {root} {exc}")
    return True


def _key_inside(root: Path) -> None:
    if os.environ.get(KEY_ENV):
        return None
    if inside(key_file(), root):
        raise NoKey(f"no key: {printable_path(key_file())} is inside the state folder "
                    f"(set {KEY_ENV} or XDG_STATE_HOME)")
    return None


def read(path: Path, limit: int, *, root: Path, earlier: tuple[int, ...] = ()) -> bytes | None:
    """The body of the sealed file ``path`` of the state folder ``root`` (None when there is
    none); raises :class:`StateUnusable` with the reason it is not taken (``earlier``: see
    :func:`unseal`)."""
    _key_inside(root)
    problem = symlink_between(root, path)
    if problem:
        raise FolderUnusable(problem)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StateUnusable("a symlink (not followed)") from None
        raise StateUnusable(exc.strerror or str(exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise StateUnusable(f"{kind_of(mode)}, not a regular file")
        data = read_at_most(fd, limit + 1)
    except OSError as exc:
        raise StateUnusable(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise StateUnusable(f"larger than {limit:,} bytes")
    return unseal(data, path, root, earlier)


def load_json(body: bytes) -> Any:
    """A sealed file's body as JSON (a body that is not: :class:`StateUnusable`)."""
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StateUnusable(f"not valid JSON ({exc.__class__.__name__})") from None
    except RecursionError:
        raise StateUnusable("nested too deeply") from None


def write(path: Path, body: bytes, *, root: Path, what: str) -> None:
    """Seal ``body`` and write it atomically (not synced: a cache) at ``path``; raises
    :class:`StateUnusable` (a symlink on the way, no key) or
    :class:`~harness.files.OutputError`."""
    _key_inside(root)
    problem = symlink_between(root, path)
    if problem:
        raise FolderUnusable(problem)
    write_atomic(path, seal(body, path, root), what=what, durable=False)


def forget(path: Path, *, root: Path) -> None:
    """Remove a saved file (never through a symlink; nothing else is removed)."""
    if symlink_between(root, path):
        return
    try:
        if stat.S_ISREG(os.lstat(path).st_mode) or os.path.islink(path):
            path.unlink()
    except OSError:
        pass


_SAID: set[str] = set()


def first_time(what: str) -> bool:
    """True the first time ``what`` is asked in this process (a warning said once per run)."""
    if what in _SAID:
        return False
    _SAID.add(what)
    return True
