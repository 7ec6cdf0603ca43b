"""Helpers shared by subcommands: reading request files, resolving contract paths, loading the
selected contracts. Light on purpose: ``guard`` starts with these and the boundary only (no
engine, reporters or drift runner)."""

from __future__ import annotations

import contextlib
import gc
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError, did_you_mean, printable_path
from harness.files import kind_of
from harness.project import CONTRACTS, check_layout, find_root, project_root

if TYPE_CHECKING:
    from harness.contract import Contract

# The loader (YAML, the production validator, the schema model) is imported by the functions
# that read documents: a command's --help builds its parser from this module without it.


#: The cyclic collector's thresholds for a run of many cases (Python's are 700, 10, 10). Each case
#: makes and drops a few hundred containers, nearly all freed by their reference counts; at
#: Python's thresholds the collector ran about 550 times in a 47,000-case ``check`` and walked
#: every object the loaded contracts hold four times: 0.26 s of a 7.7 s run, 0.05 s at these
#: (the same peak RSS). mypy raises its thresholds the same way.
GC_THRESHOLDS = (20_000, 20, 20)


@contextlib.contextmanager
def collecting_less() -> Iterator[None]:
    """The cyclic collector's thresholds raised to :data:`GC_THRESHOLDS` (never lowered) for the
    block, and given back after it (``main`` may run in a caller's process: a test, a bench)."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(GC_THRESHOLDS, before, strict=True)))
    try:
        yield
    finally:
        gc.set_threshold(*before)


def existing_file(path: str, what: str) -> Path:
    """``path`` as given on the command line: an existing regular file (symlinks followed),
    else a one-line :class:`UsageError` saying what it is instead."""
    file = Path(path)
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        raise UsageError(f"{what} file {printable_path(path)!r} does not exist") from None
    except OSError as exc:
        raise UsageError(f"{what} file {printable_path(path)!r} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{what} file {printable_path(path)!r} is {kind_of(mode)}, not a regular file")
    return file


def read_document(path: str, what: str) -> Any:
    """A JSON or YAML file given on the command line, parsed strictly (errors: file:line:column)."""
    from harness.datafiles import load_json_file, load_yaml

    file = existing_file(path, what)
    if file.suffix == ".json":
        return load_json_file(file, what=f"{what} file")
    return load_yaml(file, what=f"{what} file")


def state_start(paths: list[str] | None, demo: bool = False) -> Path | None:
    """Where a command given CONTRACTS keeps its state (``.contract-harness/``: saved verdicts,
    reproductions, fuzz replays): the project those paths belong to, when they all belong to
    one, wherever it is run from; otherwise None, for :func:`~harness.project.state_dir`'s
    default (the working directory's project, else the working directory)."""
    if demo or not paths:
        return None
    roots = {find_root(Path(path).absolute()) for path in paths}
    return roots.pop() if len(roots) == 1 and None not in roots else None


def contract_roots(paths: list[str], demo: bool = False) -> list[Path]:
    """What CONTRACTS stand for: the paths given, else the demo (``--demo``), else the project
    found upward from the working directory (none: a usage error with the hint)."""
    if paths and demo:
        raise UsageError("give CONTRACTS or --demo, not both")
    if paths:
        return [Path(p) for p in paths]
    root = project_root(demo=demo)
    # As the user would type it from here ("." or "../.."), so file names in messages are too.
    try:
        shown = os.path.relpath(root)
    except ValueError:  # pragma: no cover - another drive on Windows
        return [root]
    return [Path(shown) if not demo and not shown.startswith("../../..") else root]


def project_roots(roots: list[Path], contract_dirs: list[Path]) -> list[Path]:
    """The project roots behind the paths given and the contract directories found in them."""
    found: list[Path] = []
    for path in roots:
        if (path / CONTRACTS).is_dir():
            found.append(path)
        elif path.name == CONTRACTS and path.is_dir():
            found.append(path.parent)
    found += [d.parent.parent for d in contract_dirs if d.parent.name == CONTRACTS]
    return found


def contract_directories(paths: list[str], demo: bool = False) -> list[Path]:
    """The contract directories named on the command line (default: the project around the
    working directory, or the embedded demo with ``demo``), after the project's layout is
    checked; none is a usage error."""
    from harness.contract import discover

    roots = contract_roots(paths, demo)
    directories = discover(roots)
    check_layout(project_roots(roots, directories))
    if not directories:
        raise UsageError(f"no contracts found under {', '.join(map(str, roots))}")
    return directories


def selected_tools(known: list[str], tools: list[str] | None) -> set[str]:
    """The tools ``--tool`` selects among ``known`` (all without it); an unknown one is a usage
    error."""
    if not tools:
        return set(known)
    unknown = sorted(set(tools) - set(known))
    if unknown:
        raise UsageError(f"unknown tool {', '.join(unknown)} (known: {', '.join(sorted(set(known)))})"
                         + (did_you_mean(unknown[0], known) if len(unknown) == 1 else ""))
    return set(tools)


def load_contracts(paths: list[str], tools: list[str] | None, demo: bool = False,
                   locks: bool = True) -> list[Contract]:
    """Contracts named on the command line (:func:`contract_directories`), each loaded and
    checked (:func:`load_checked`: every one, also those ``tools`` leaves out), then those of
    ``tools`` (all without it; a tool is its directory's name, which loading checks)."""
    directories = contract_directories(paths, demo)
    selected = selected_tools([d.name for d in directories], tools)
    from harness.contract.load import load_checked

    contracts = [load_checked(d, locks) for d in directories]
    return [c for c in contracts if c.tool in selected]


def record_versions(written: Any) -> list[str]:
    """Record each written tool's schema versions in its ``schemas.lock`` (``init`` and
    ``import``), so that a pull request adding the contract passes the versions check; one line
    per tool for the summary. Until the lock is committed the record is a draft: editing the
    schema and running ``lock`` records it again."""
    import harness.lock as lock
    from harness.contract import load_contract

    out = []
    for tool in written.tools:
        contract = load_contract(tool.directory)
        recorded = lock.update(contract)
        if recorded:
            versions = ", ".join(f"v{v}" for v in recorded)
            out.append(f"recorded {versions} in {lock.lock_path(contract).relative_to(written.root)}")
    return out
