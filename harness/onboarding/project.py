"""Writing new contracts into a project, all or nothing.

Everything ``init`` and ``import`` write is first built in a staging folder inside the project
root (same file system), loaded and judged there, and only then moved into place, one
directory rename per claimed folder (``contracts/<tool>``, ``fixtures/<kind>/<tool>``). A
folder that already exists is never touched: the whole run is refused before anything is
written. When anything fails, the staging folder is removed and renames already done are
undone, so no partial contract directory is ever left behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath

from harness.contract import CONTRACT_FILE
from harness.corpus import KINDS
from harness.files import write_atomic
from harness.onboarding.errors import OnboardingError

STAGING_PREFIX = ".contract-harness-staging-"


def claims(tool: str) -> tuple[PurePosixPath, ...]:
    """The folders a new contract owns, relative to the project root."""
    return (PurePosixPath("contracts", tool), *(PurePosixPath("fixtures", kind, tool) for kind in KINDS))


def occupied(root: Path, tools: Iterable[str]) -> list[str]:
    """Claimed folders of ``tools`` that already exist under ``root`` (relative, sorted)."""
    return sorted(str(rel) for tool in tools for rel in claims(tool) if (root / rel).exists())


class Staging:
    """A scratch project root beside the real one; :meth:`commit` moves its folders in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))

    def write(self, rel: str | PurePosixPath, data: bytes) -> Path:
        target = self.path / rel
        write_atomic(target, data)
        return target

    def contract_dir(self, tool: str) -> Path:
        return self.path / "contracts" / tool

    def commit(self, tools: Iterable[str]) -> list[Path]:
        """Move every claimed folder of ``tools`` into the project; undo all on any failure."""
        moved: list[tuple[Path, Path]] = []
        made: list[Path] = []
        try:
            for tool in tools:
                for rel in claims(tool):
                    source = self.path / rel
                    if not source.exists():
                        continue
                    target = self.root / rel
                    made.extend(_make_parents(target.parent, self.root))
                    if target.exists():
                        raise OnboardingError(
                            f"{target} appeared while importing; nothing was written",
                            code="import.exists",
                        )
                    os.rename(source, target)
                    moved.append((target, source))
        except BaseException:
            for target, source in reversed(moved):
                os.rename(target, source)
            for folder in reversed(made):
                _remove_if_empty(folder)
            raise
        return [target for target, _ in moved]

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _make_parents(folder: Path, root: Path) -> list[Path]:
    """Create ``folder`` and its missing parents below ``root``; return those created."""
    missing: list[Path] = []
    current = folder
    while current != root and not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir()
    return list(reversed(missing))


def _remove_if_empty(folder: Path) -> None:
    with suppress(OSError):
        folder.rmdir()


@contextmanager
def staged(root: Path, tools: Iterable[str], *, what: str) -> Iterator[Staging]:
    """Refuse when any claimed folder exists, then yield a staging area that is always removed.

    The project root is created when missing (and removed again if the run fails and leaves
    it empty). ``what`` names the command in the refusal (``import`` or ``init``).
    """
    tools = list(tools)
    taken = occupied(root, tools)
    if taken:
        shown = ", ".join(taken[:4]) + (f" and {len(taken) - 4} more" if len(taken) > 4 else "")
        raise OnboardingError(
            f"{shown} already exist{'s' if len(taken) == 1 else ''} under {root}; {what} never "
            f"overwrites: remove {'it' if len(taken) == 1 else 'them'}, or choose another --into",
            code=f"{what}.exists",
        )
    created = _make_parents(root, Path(root.anchor)) if not root.exists() else []
    if created and not os.access(root, os.W_OK):  # pragma: no cover - a mount without write access
        raise OnboardingError(f"cannot write under {root}", code=f"{what}.unwritable")
    try:
        staging = Staging(root)
    except OSError as exc:
        for folder in reversed(created):
            _remove_if_empty(folder)
        raise OnboardingError(f"cannot write under {root}: {exc.strerror}", code=f"{what}.unwritable") from None
    ok = False
    try:
        yield staging
        ok = True
    finally:
        staging.discard()
        if not ok:
            for folder in reversed(created):
                _remove_if_empty(folder)


def contract_file(staging: Staging, tool: str) -> Path:
    return staging.contract_dir(tool) / CONTRACT_FILE
