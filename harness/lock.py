"""Published schema versions are immutable: ``contracts/<tool>/schemas.lock`` proves it.

Once ``schemas/vN.json`` is published it never changes in place; a change is a new version,
proved by ``compat``. The lock file records a hash of every published version::

    # Published schema versions of review_status: never edited in place (add a new version).
    v1 sha256:4f0c...

``contract-harness lock`` adds the versions not yet recorded and refuses to touch one that
changed; ``check`` (and the pytest plugin) report a recorded version that changed as a finding
of its tool, ``fuzz``, ``drift`` and ``compat`` refuse such a contract; ``lock --check`` also
fails on versions not recorded and, with ``--base REF``, on any version file that differs from
the one on the base branch (git). A record git has not committed yet is a draft (``init``
records v1 as scaffolded): its version may still change, and ``lock`` records it again.

The hash is the sha256 of the schema's canonical JSON (keys sorted, no insignificant
whitespace): reformatting a file or reordering its keys is no change; any change of meaning is.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ContractError, UsageError
from harness.files import read_text

if TYPE_CHECKING:
    from harness.contract.records import Contract

LOCK_FILE = "schemas.lock"
#: A lock holds one line per published version: anything larger is not one.
MAX_LOCK_BYTES = 64 << 10
_ENTRY = re.compile(r"^v([1-9][0-9]*) sha256:([0-9a-f]{64})$")
CHANGED = "contract.version_changed"
UNLOCKED = "contract.version_unlocked"


def digest(schema: Any) -> str:
    """``sha256:<hex>`` of a schema's canonical JSON."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def lock_path(contract: Contract) -> Path:
    return contract.directory / LOCK_FILE


def read_lock(contract: Contract) -> dict[int, str] | None:
    """The recorded versions (None when the contract has no lock file).

    The lock is read as every file of a contract is (:func:`harness.files.read_text`): a regular
    file, under :data:`MAX_LOCK_BYTES`, strict UTF-8, and not through a symlink that leads out of
    the contract's folder. An error never quotes the file: a lock committed as a symlink to a
    file elsewhere must not put that file's first line in a CI log."""
    path = lock_path(contract)
    if not os.path.lexists(path):
        return None
    content = read_text(path, limit=MAX_LOCK_BYTES, within=contract.directory, what=LOCK_FILE)
    entries: dict[int, str] = {}
    for number, line in enumerate(content.splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        match = _ENTRY.match(text)
        if match is None:
            raise ContractError(f"line {number} is not 'v<N> sha256:<64 hex digits>' (nor a # comment)",
                                file=str(path), code="contract.invalid_lock")
        version = int(match.group(1))
        if version in entries:
            raise ContractError(f"line {number}: v{version} is recorded twice", file=str(path),
                                code="contract.invalid_lock")
        entries[version] = "sha256:" + match.group(2)
    return entries


@dataclass(frozen=True, slots=True)
class Problem:
    """A version that breaks the rule, as one line: ``file: code: message``."""

    file: Path
    code: str
    message: str

    def error(self) -> ContractError:
        return ContractError(self.message, file=str(self.file), code=self.code)


def _changed(contract: Contract, version: int, was: str, now: str, since: str) -> Problem:
    return Problem(contract.schema_path(version), CHANGED,
                   f"v{version} changed in place: add v{max(contract.versions) + 1} (a published version never "
                   f"changes; {since} {was[:19]}..., the file is {now[:19]}...)")


def changes(contract: Contract) -> Iterator[Problem]:
    """Recorded versions whose schema file differs from the record (a retired version, whose
    file is gone, is no change: its record stays, so it can never come back different). A
    record not committed yet (:func:`drafts`) is no publication: its version may still change."""
    recorded = read_lock(contract) or {}
    changed = [v for v, was in sorted(recorded.items())
               if v in contract.schemas and digest(contract.schema(v)) != was]
    if changed:
        draft = drafts(contract, recorded)
        for version in changed:
            if version not in draft:
                yield _changed(contract, version, recorded[version], digest(contract.schema(version)),
                               f"{LOCK_FILE} records")


def drafts(contract: Contract, recorded: dict[int, str] | None = None) -> set[int]:
    """The recorded versions whose record git has not committed: in a git work tree, those the
    lock file at ``HEAD`` does not record as the working copy does (``init`` records v1 as
    scaffolded; the scaffold is edited before it is committed). Outside git, none."""
    recorded = (read_lock(contract) or {}) if recorded is None else recorded
    if not recorded:
        return set()
    try:
        top = _git(contract.directory, "rev-parse", "--show-toplevel")
    except UsageError:  # no git: nothing tells a draft from a publication
        return set()
    if top.returncode != 0:
        return set()
    root = Path(top.stdout.decode().strip())
    try:
        where = lock_path(contract).resolve().relative_to(root).as_posix()
    except ValueError:
        return set()
    shown = _git(root, "show", f"HEAD:{where}")
    committed: dict[int, str] = {}
    if shown.returncode == 0:
        for line in shown.stdout.decode("utf-8", "replace").splitlines():
            match = _ENTRY.match(line.strip())
            if match is not None:
                committed[int(match.group(1))] = "sha256:" + match.group(2)
    return {version for version, was in recorded.items() if committed.get(version) != was}


def unlocked(contract: Contract) -> Iterator[Problem]:
    """Versions the lock file does not record yet, or records as they were before an edit in a
    record not committed yet (:func:`drafts`)."""
    recorded = read_lock(contract) or {}
    changed = [v for v in contract.versions if v in recorded and digest(contract.schema(v)) != recorded[v]]
    draft = drafts(contract, recorded) if changed else set()
    for version in contract.versions:
        if version not in recorded:
            yield Problem(contract.schema_path(version), UNLOCKED,
                          f"v{version} is not in {LOCK_FILE}: run `contract-harness lock` and commit "
                          f"{lock_path(contract)}")
        elif version in changed and version in draft:
            yield Problem(contract.schema_path(version), UNLOCKED,
                          f"v{version} changed since {LOCK_FILE} recorded it (a record not committed yet): run "
                          f"`contract-harness lock` and commit {lock_path(contract)}")


def verify(contract: Contract) -> None:
    """Raise the first recorded version that changed in place (what ``check`` refuses)."""
    for problem in changes(contract):
        raise problem.error()


def update(contract: Contract) -> list[int]:
    """Record the versions not yet in the lock file; refuse when a recorded one changed.
    Returns the versions added (the file is written atomically, only when something is)."""
    from harness.files import write_atomic

    verify(contract)
    recorded = read_lock(contract) or {}
    # New versions, and draft records (not committed yet) whose version changed since.
    changed = [v for v in contract.versions if v in recorded and digest(contract.schema(v)) != recorded[v]]
    redone = drafts(contract, recorded) if changed else set()
    added = [v for v in contract.versions if v not in recorded or (v in changed and v in redone)]
    if not added:
        return []
    for version in added:
        recorded[version] = digest(contract.schema(version))
    header = (f"# Published schema versions of {contract.tool}: never edited in place (add a new version).\n"
              "# Written by `contract-harness lock`; checked by `contract-harness check` and `lock --check`.\n")
    body = "".join(f"v{v} {recorded[v]}\n" for v in sorted(recorded))
    write_atomic(lock_path(contract), (header + body).encode("utf-8"))
    return added


# --------------------------------------------------------------------------- base branch


def _git(directory: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(directory), *args], capture_output=True, timeout=60, check=False)
    except FileNotFoundError:
        raise UsageError("--base needs git, which is not on PATH") from None


def check_ref(ref: str) -> None:
    """Refuse a ``--base`` that git would read as an option, or that holds a control character
    (a line break would split the error that names it)."""
    if not ref or ref.startswith("-") or any(ord(c) < 0x20 or ord(c) == 0x7F for c in ref):
        raise UsageError("--base: not a git ref (empty, starting with '-', or holding a control character "
                         "or line break)", code="lock.bad_ref")


def base_changes(contract: Contract, ref: str) -> Iterator[Problem]:
    """Version files that exist at git ``ref`` (the base branch) and differ from the working
    tree: an in-place edit even where the lock file was edited along with it."""
    from harness.errors import RejectedInput
    from harness.strict_json import strict_loads

    check_ref(ref)
    top = _git(contract.directory, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise UsageError(f"--base {ref}: {contract.directory} is not in a git repository")
    if _git(contract.directory, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        raise UsageError(f"--base {ref}: no such commit in this repository (fetch it first, "
                         "e.g. git fetch origin main)")
    root = Path(top.stdout.decode().strip())
    for version in contract.versions:
        file = contract.schema_path(version).resolve()
        shown = _git(root, "show", f"{ref}:{file.relative_to(root).as_posix()}")
        if shown.returncode != 0:
            continue  # not on the base branch: a new version
        try:
            was = digest(strict_loads(shown.stdout, max_depth=256))
        except RejectedInput:
            continue  # unreadable there: nothing was published that a reader could rely on
        now = digest(contract.schema(version))
        if now != was:
            yield _changed(contract, version, was, now, f"{ref} has")
