"""The project a command works on: found upward from the working directory, never guessed.

A *project root* is the nearest folder, from the working directory upward, that holds
``contracts/`` (as git and pytest find theirs). ``check``, ``lint``, ``fuzz``, ``compat`` and
``drift`` run on it from anywhere inside (``contracts/``, ``fixtures/accepted/`` ...). Where
there is none they stop with a one-line hint; the embedded demo runs only when asked for
(``--demo``), never as a silent fallback.

:func:`check_layout` refuses what the harness would otherwise skip without a word: a fixture
folder for a tool that has no contract (``fixtures/accepted/contact_lookpu/``), a kind folder
that is not one of ``accepted``/``rejected``/``historical``, a file no case source reads
(``ok.JSON``, ``ok.case.yml``), and a ``contracts/<tool>/`` without ``contract.yaml``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import ContractError, UsageError, did_you_mean
from harness.files import kind_of, symlink_between

CONTRACTS = "contracts"
FIXTURES = "fixtures"
CONTRACT_FILE = "contract.yaml"
#: Folder of the harness's own state in a project (cases, fuzz examples, hypothesis caches).
STATE_DIR = ".contract-harness"
FIXTURE_KINDS = ("accepted", "rejected", "historical")
#: Where a case of ``check`` comes from: a fixture kind, or a mutation of an accepted fixture
#: (here, not in :mod:`harness.cases`, so that ``check --help`` lists them without the library).
SOURCES = (*FIXTURE_KINDS, "mutation")
#: Mutants made of each accepted fixture unless asked otherwise (sampled deterministically).
DEFAULT_MAX_MUTANTS = 64
PAYLOAD_SUFFIX = ".json"
SIDECAR_SUFFIX = ".case.yaml"
NOT_FOUND_HINT = (
    "start one with `contract-harness init TOOL`, pass CONTRACTS, or run the embedded demo with --demo"
)


def find_root(start: str | Path | None = None) -> Path | None:
    """The nearest folder from ``start`` (default: the working directory) upward holding
    ``contracts/``; None when there is none up to the file system's root."""
    here = Path(start if start is not None else os.getcwd()).absolute()
    for folder in (here, *here.parents):
        if (folder / CONTRACTS).is_dir():
            return folder
    return None


def demo_root() -> Path:
    """The embedded demo project: ``contracts/`` and ``fixtures/`` of the three demo tools.

    In a wheel they are package data under ``harness/demo/``; in a source checkout (an
    editable install) they are this repository's own top-level folders.
    """
    from importlib import resources  # only for the demo

    packaged = Path(str(resources.files("harness").joinpath("demo")))
    if (packaged / CONTRACTS).is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / CONTRACTS).is_dir() and (checkout / FIXTURES).is_dir():
        return checkout
    raise UsageError(
        f"the embedded demo is missing from this installation (looked in {packaged} and {checkout}); "
        "reinstall tool-contract-harness",
        code="project.no_demo",
    )


def project_root(*, demo: bool = False, start: str | Path | None = None) -> Path:
    """The project a command without explicit paths runs on: the demo when asked, else the
    root found upward; none found is a usage error with the hint."""
    if demo:
        return demo_root()
    found = find_root(start)
    if found is None:
        where = Path(start if start is not None else os.getcwd()).absolute()
        raise UsageError(f"no {CONTRACTS}/ folder in {where} or any parent: {NOT_FOUND_HINT}",
                         code="project.not_found")
    return found


def relative_folder(path: Path, start: Path) -> str:
    """``path`` as seen from ``start`` when below it (``contracts/``, ``./``), else as it is."""
    try:
        return f"{path.relative_to(start)}/" if path != start else "./"
    except ValueError:
        return f"{path}/"


def contracts_around(here: Path) -> tuple[Path, str] | None:
    """The contracts a run given no paths, from the folder ``here`` of a project, is about beyond
    what lies below ``here``, and why, as ``check`` runs from anywhere inside: from
    ``fixtures/<kind>/<tool>/...`` or ``contracts/<tool>/<folder>``, that tool's contract; from
    ``fixtures/``, ``fixtures/<kind>/`` or any other folder of the project (``tests/``), every
    contract. None outside a project, at or above its ``contracts/`` (the contracts lie below),
    or where the folder meant does not exist."""
    here = here.resolve()
    root = find_root(here)
    if root is None:
        return None
    contracts, fixtures = (root / CONTRACTS).resolve(), (root / FIXTURES).resolve()
    if here == fixtures or fixtures in here.parents:
        parts = here.relative_to(fixtures).parts
        tool = contracts / parts[1] if len(parts) >= 2 and parts[0] in FIXTURE_KINDS else None
        added, why = ((tool, f"the contract of the fixtures in {here.name}/") if tool is not None and tool.is_dir()
                      else (contracts, "the contracts of the fixtures folder pytest ran in"))
    elif contracts in here.parents and len(here.relative_to(contracts).parts) >= 2:
        added, why = contracts / here.relative_to(contracts).parts[0], f"the contract {here.name}/ belongs to"
    elif here == contracts or here in contracts.parents:
        return None
    else:
        added, why = contracts, f"the project around {relative_folder(here, root)}"
    return (added, why) if added.is_dir() else None


def state_dir(*parts: str, start: str | Path | None = None) -> Path:
    """``.contract-harness/<parts>`` of the project around ``start`` (the working directory's
    project, else the working directory itself): never a stray copy in a subfolder.

    The state folder is never followed through a symlink: where ``.contract-harness`` or a
    folder of ``parts`` in it is a symlink (or not a folder), this run's state goes to a new
    private temporary folder instead (said once, on stderr), and the run is a fresh one."""
    base = find_root(start) or Path(start if start is not None else os.getcwd()).absolute()
    folder = base / STATE_DIR
    wanted = folder.joinpath(*parts)
    problem = symlink_between(folder, wanted / "-")
    if problem is None:
        return wanted
    elsewhere = _ELSEWHERE.get(str(folder))
    if elsewhere is None:
        import sys
        import tempfile

        elsewhere = _ELSEWHERE[str(folder)] = Path(tempfile.mkdtemp(prefix="contract-harness-state-")) / STATE_DIR
        warning = f"saved state: {problem}: this run keeps its state in {elsewhere} instead (a fresh run)"
        print(f"contract-harness: warning: {warning}", file=sys.stderr)
        _WARNINGS.append(warning)
    return elsewhere.joinpath(*parts)


#: State folders refused this process (a symlink on the way), and where their state went instead.
_ELSEWHERE: dict[str, Path] = {}
_WARNINGS: list[str] = []


def state_warnings() -> list[str]:
    """The warnings :func:`state_dir` printed since the last call (the pytest plugin shows them
    in its summary: what an item prints is captured)."""
    said = list(_WARNINGS)
    _WARNINGS.clear()
    return said


def _relative(path: Path) -> str:
    """The path as the user would type it from the working directory (folders end in /)."""
    try:
        shown = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        shown = str(path)
    return shown + "/" if path.is_dir() else shown


def _suggest(name: str, known: Iterable[str]) -> str:
    return did_you_mean(name, sorted(known))


def _ignored(path: Path) -> bool:
    """Files people keep beside fixtures on purpose: dotfiles (.gitkeep) and READMEs."""
    return path.name.startswith(".") or path.name.lower().startswith("readme")


def _case_files(folder: Path) -> Iterator[Path]:
    """Entries of a folder of payloads that no case source reads."""
    for entry in sorted(folder.iterdir()):
        if _ignored(entry):
            continue
        if entry.is_dir() or not entry.name.endswith((PAYLOAD_SUFFIX, SIDECAR_SUFFIX)):
            yield entry


def layout_problems(root: Path) -> Iterator[ContractError]:
    """Every folder or file under the project that the harness would not read, as errors."""
    contracts = root / CONTRACTS
    tools: set[str] = set()
    if contracts.is_dir():
        for folder in sorted(p for p in contracts.iterdir() if p.is_dir() and not _ignored(p)):
            file = folder / CONTRACT_FILE
            if file.is_file():
                tools.add(folder.name)
                continue
            if os.path.lexists(file):  # a FIFO, a directory, a dangling symlink: never opened here
                what = kind_of(os.lstat(file).st_mode) if not file.is_symlink() else "a symlink to nothing"
                yield ContractError(f"{CONTRACT_FILE} is {what}, not a regular file", file=_relative(file),
                                    code="file.not_regular")
                continue
            near = sorted(p.name for p in folder.iterdir() if p.name.startswith("contract"))
            found = f" (found {', '.join(near)})" if near else ""
            yield ContractError(f"{folder.name}/ holds no {CONTRACT_FILE}{found}: every folder "
                                f"under {CONTRACTS}/ is one tool's contract",
                                file=_relative(folder), code="contract.missing")
    fixtures = root / FIXTURES
    if not fixtures.is_dir():
        return
    for kind in sorted(fixtures.iterdir()):
        if _ignored(kind):
            continue
        if not kind.is_dir() or kind.name not in FIXTURE_KINDS:
            yield ContractError(
                f"{'folder' if kind.is_dir() else 'file'} {kind.name!r} is not read: fixtures/ "
                f"holds only {', '.join(FIXTURE_KINDS)}{_suggest(kind.name, FIXTURE_KINDS)}",
                file=_relative(kind), code="fixture.unknown_kind")
            continue
        for tool in sorted(kind.iterdir()):
            if _ignored(tool):
                continue
            if not tool.is_dir():
                yield ContractError(
                    f"file {tool.name!r} is not read: fixtures/{kind.name}/ holds one folder per tool",
                    file=_relative(tool), code="fixture.unread_file")
            elif tool.name not in tools:
                yield ContractError(
                    f"fixtures for tool {tool.name!r}, which has no contract "
                    f"({CONTRACTS}/{tool.name}/{CONTRACT_FILE}){_suggest(tool.name, tools)}",
                    file=_relative(tool), code="fixture.unknown_tool")
            elif kind.name == "historical":
                yield from _historical_problems(tool)
            else:
                for entry in _case_files(tool):
                    yield _unread(entry, f"fixtures/{kind.name}/{tool.name}/ holds <name>.json payloads "
                                         f"and <name>{SIDECAR_SUFFIX} sidecars")


def _historical_problems(tool: Path) -> Iterator[ContractError]:
    for entry in sorted(tool.iterdir()):
        if _ignored(entry):
            continue
        if not entry.is_dir():
            yield _unread(entry, f"fixtures/historical/{tool.name}/ holds one folder per label "
                                 "(<label>/<name>.json)")
            continue
        for inner in _case_files(entry):
            yield _unread(inner, f"a historical label folder holds <name>.json payloads and "
                                 f"<name>{SIDECAR_SUFFIX} sidecars")


def _unread(entry: Path, rule: str) -> ContractError:
    kind = "folder" if entry.is_dir() else "file"
    hint = ""
    lowered = entry.name.lower()
    if entry.is_file() and lowered.endswith((".case.yml", ".yaml", ".yml")) and not entry.name.endswith(SIDECAR_SUFFIX):
        stem = entry.name.split(".")[0]
        hint = f" (a sidecar is named {stem}{SIDECAR_SUFFIX})"
    elif entry.is_file() and lowered.endswith(PAYLOAD_SUFFIX) and not entry.name.endswith(PAYLOAD_SUFFIX):
        hint = f" (a payload ends in {PAYLOAD_SUFFIX}, lower case)"
    return ContractError(f"{kind} {entry.name!r} is not read: {rule}{hint}", file=_relative(entry),
                         code="fixture.unread_file")


def check_layout(roots: Iterable[Path], known: dict[Path, ContractError | None] | None = None) -> None:
    """Raise the first :func:`layout_problems` error of each project root (one line). ``known``
    remembers each root's answer (a pytest session's): asked again, the same first problem is
    raised, or nothing, without reading every fixture folder of the project again."""
    seen: dict[Path, ContractError | None] = {} if known is None else known
    for root in roots:
        resolved = root.resolve()
        if resolved not in seen:
            seen[resolved] = next(layout_problems(root), None)
        problem = seen[resolved]
        if problem is not None:
            raise problem


@contextmanager
def hypothesis_home(start: str | Path | None) -> Iterator[None]:
    """hypothesis's caches (its example database, hypothesis-jsonschema's) in the project's
    ``.contract-harness/hypothesis`` for the block, unless the user chose a place
    (``HYPOTHESIS_STORAGE_DIRECTORY``), and hypothesis's own setting given back after: no
    ``.hypothesis/`` is left at the project's root, and a user's hypothesis tests keep theirs."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    import hypothesis.configuration as configuration

    from harness.internals import hypothesis_home_override

    previous = hypothesis_home_override()
    configuration.set_hypothesis_home_dir(state_dir("hypothesis", start=start))
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)


#: Lines ``init`` makes sure a project's git files hold: the harness's state stays out of
#: commits, and fixtures (raw bytes: CRLF, BOMs, invalid UTF-8 on purpose) are never normalised.
GIT_ENTRIES = {
    ".gitignore": (f"/{STATE_DIR}/",),
    ".gitattributes": (f"{FIXTURES}/** -text",),
}


def ensure_git_entries(root: Path) -> list[str]:
    """Append the :data:`GIT_ENTRIES` lines a project's ``.gitignore`` and ``.gitattributes``
    lack (creating the files if needed; nothing else in them changes). Returns what was added,
    as ``file: line``."""
    from harness.files import write_atomic

    added: list[str] = []
    for name, lines in GIT_ENTRIES.items():
        path = root / name
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        present = {line.strip() for line in text.splitlines()}
        # "/.contract-harness/" and ".contract-harness/" both keep the folder out of commits.
        missing = [line for line in lines if line not in present and line.lstrip("/") not in present]
        if not missing:
            continue
        if text and not text.endswith("\n"):
            text += "\n"
        write_atomic(path, (text + "".join(f"{line}\n" for line in missing)).encode("utf-8"))
        added += [f"{name}: {line}" for line in missing]
    return added
