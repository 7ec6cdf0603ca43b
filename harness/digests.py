"""Hashes of what a saved result depends on: files, folders, and the harness with its libraries.

A saved result (a fuzz run's examples, :mod:`harness.fuzz.replay`; the reference validator's
verdicts, :mod:`harness.differential.verdicts`) is used again only while the hashes of its inputs
are those it was saved with.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path


def file_digest(paths: Iterable[tuple[str, Path]]) -> str:
    """The hash of files by their names: a symlink is hashed as its target's name, never
    followed; a missing file as missing."""
    h = hashlib.sha256()
    for name, path in paths:
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            if path.is_symlink():
                h.update(b"link:" + os.fsencode(os.readlink(path)))
            else:
                h.update(path.read_bytes())
        except OSError as exc:
            h.update(f"unreadable:{exc.errno}".encode())
        h.update(b"\0")
    return h.hexdigest()


def files_below(folder: Path, *, skip: frozenset[str] = frozenset()) -> Iterator[tuple[str, Path]]:
    """Every file below ``folder`` (symlinked folders not entered), by relative name, sorted;
    not ``__pycache__``, and no dotfile or dot-folder (``.pytest_cache/``, which pytest leaves in
    the folder it runs in, ``.gitkeep``): nothing reads them."""
    if not folder.is_dir():
        return
    found: list[tuple[str, Path]] = []
    for base, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in names:
            if name.startswith("."):
                continue
            path = Path(base) / name
            relative = path.relative_to(folder).as_posix()
            if relative not in skip:
                found.append((relative, path))
    yield from sorted(found)


@cache
def _source_digest() -> str:
    package = Path(__file__).parent  # this module's folder: the harness package
    return file_digest((name, path) for name, path in files_below(package) if name.endswith((".py", ".json")))


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def _dist_infos() -> dict[str, str]:
    """Installed distributions' versions by normalised name, from the ``<name>-<version>.dist-info``
    folders on ``sys.path`` (the first of a name wins, as imports find it; an ``.egg-info`` one
    has ``""``: ask ``importlib.metadata``): one listing per path entry, without importing
    ``importlib.metadata`` (and the email parser it brings) for the usual wheel installs."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            if folder.endswith(".dist-info"):
                name, _, version = folder[: -len(".dist-info")].rpartition("-")
                if name and version:
                    found.setdefault(_normal(name), version)
            elif folder.endswith(".egg-info"):  # the version is not always in the name: ask for it
                found.setdefault(_normal(folder[: -len(".egg-info")].partition("-")[0]), "")
    return found


def installed_version(name: str) -> str | None:
    """The installed version of the distribution ``name`` (None: not installed)."""
    version = _dist_infos().get(_normal(name))
    if version:
        return version
    if version is None:
        return None
    from importlib import metadata  # an egg-info: ask the standard library

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def harness_digest(*libraries: str) -> str:
    """The harness's version and source (a development checkout changes its code without
    changing its version), and the installed versions of ``libraries`` (distribution names)."""
    import harness.version

    versions = [f"harness={harness.version.__version__}"]
    versions += [f"{name}={installed_version(name) or 'absent'}" for name in libraries]
    return hashlib.sha256(("\n".join(versions) + _source_digest()).encode()).hexdigest()
