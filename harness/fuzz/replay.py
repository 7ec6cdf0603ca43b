"""Replaying a property's saved examples when nothing it depends on has changed.

A ``ci`` fuzz run is derandomized: on the same inputs it draws the same examples and reaches
the same verdicts. So once a property held on a tool, its run is saved — the examples it drew,
as values, and a hash of every input the run depends on (:func:`inputs_of`):

- ``contract``: ``contract.yaml``;
- ``schemas``: every other file of the contract's folder (schema versions, the vendor schema,
  ``schemas.lock``);
- ``adapter``: the source file of the adapter's module (``adapter: module:function``);
- ``fixtures``: the tool's fixtures (accepted fixtures seed the vendor documents);
- ``harness``: the harness's version and source, and the versions of hypothesis,
  hypothesis-jsonschema and jsonschema-rs;
- ``settings``: the profile and the number of examples.

The next run whose inputs hash the same replays those examples through the property (the
boundary, the mutation operators, the adapter: everything but generation) instead of
generating new ones; one whose inputs differ generates, and says which input changed. The
``nightly`` profile, a ``--seed``, a ``--blob`` and ``--regenerate`` always generate. A saved
example that no longer holds, or no longer replays, makes the property generate (and shrink)
again. A property that did not hold has no saved run.

Each saved run is one JSON file, ``<state dir>/fuzz/replay/<tool>/<property>.json``, written
atomically (:func:`harness.files.write_atomic`; not synced to disk, as a cache) and never read
or written through a symlink; one that cannot be read is a one-line warning, and the property
generates.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import harness.state as state
from harness.digests import file_digest as _digest
from harness.digests import files_below as _files
from harness.digests import harness_digest
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.contract import Contract
    from harness.fuzz.model import Observation
    from harness.fuzz.subject import Subject

FORMAT = 2
#: Formats of earlier releases (unsealed): generated again, without a warning.
_EARLIER_FORMATS = (1,)
REPLAY_DIR = ("fuzz", "replay")
#: A saved run larger than this is not read (a property's examples weigh well under a megabyte).
MAX_SAVED_BYTES = 64 << 20
#: What changed, by input, in the words a run prints.
CHANGED = {
    "contract": "contract.yaml changed",
    "schemas": "schema changed",
    "adapter": "adapter changed",
    "fixtures": "fixtures changed",
    "harness": "harness version changed",
    "settings": "fuzz settings changed",
}
#: A saved run keeps every example while their boundary verdicts add up to at most this many
#: (see :func:`kept`).
VERDICTS = 500
REPLAYED = "replayed"
GENERATED = "generated"


class Unrecordable(Exception):
    """A drawn value the saved-run format cannot hold: the run is not saved."""


# --------------------------------------------------------------------------- inputs


def _adapter_files(contract: Contract) -> list[tuple[str, Path]]:
    """The source files of the module ``adapter:`` names and of the module defining the
    function (a module may re-export an adapter defined elsewhere)."""
    import inspect

    try:
        func = contract.adapter_function()
    except HarnessError:
        return []
    module = sys.modules.get(str(contract.adapter).partition(":")[0])
    found: dict[str, Path] = {}
    for source in (getattr(module, "__file__", None), _source(inspect, func)):
        if source:
            found[str(Path(source).resolve())] = Path(source)
    return [(name, path) for name, path in sorted(found.items())]


def _source(inspect: Any, func: Any) -> str | None:
    try:
        return inspect.getsourcefile(func)  # type: ignore[no-any-return]
    except TypeError:
        return None


@cache
def _harness_digest() -> str:
    """The harness's version and source, and the versions of what generates and validates: a
    development checkout changes its code without changing its version."""
    return harness_digest("hypothesis", "hypothesis-jsonschema", "jsonschema-rs")


def inputs_of(contract: Contract, settings: str) -> dict[str, str]:
    """The hash of each input a fuzz run of ``contract`` depends on (see the module's docstring)."""
    from harness.corpus import KINDS

    adapter = _adapter_files(contract) if contract.adapter is not None else []
    fixtures = [(f"{kind}/{name}", path) for kind in KINDS for name, path in _files(contract.fixtures_dir(kind))]
    return {
        "contract": _digest([(contract.path.name, contract.path)]),
        "schemas": _digest(_files(contract.directory, skip=frozenset({contract.path.name}))),
        "adapter": _digest([(f"{contract.adapter} {name}", path) for name, path in adapter]) if adapter
        else f"none:{contract.adapter}",
        "fixtures": _digest(fixtures),
        "harness": _harness_digest(),
        "settings": hashlib.sha256(settings.encode()).hexdigest(),
    }


# --------------------------------------------------------------------------- drawn values


def encode(value: Any) -> Any:
    """A value a property drew, as JSON (raises :class:`Unrecordable` for another kind)."""
    from harness.fuzz.canaries import Injected
    from harness.fuzz.strategies import Bound, Bytes, NearMisses

    if isinstance(value, Bound):
        return {"bound": [value.document, dict(value.request), value.now.isoformat()]}
    if isinstance(value, NearMisses):  # its mutants are derived again from the document
        if value.operators is None:
            return {"near_misses": encode(value.source)}
        return {"near_misses": {"source": encode(value.source), "operators": list(value.operators)}}
    if isinstance(value, Bytes):
        return {"bytes": [base64.b64encode(value.raw).decode("ascii"), value.how]}
    if isinstance(value, Injected):
        return {"injected": [value.document, dict(value.canaries)]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if value is None or isinstance(value, bool | int | float | str):
        return {"json": value}
    raise Unrecordable(type(value).__name__)


def decode(subject: Subject, value: Any) -> Any:
    """The value :func:`encode` wrote (raises ``ValueError``/``KeyError``/``TypeError`` on
    anything else)."""
    from harness.fuzz.canaries import Injected
    from harness.fuzz.strategies import Bound, Bytes

    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError("not a saved value")
    ((kind, body),) = value.items()
    if kind == "bound":
        document, request, now = body
        return Bound(document, dict(request), datetime.fromisoformat(now))
    if kind == "near_misses":
        if isinstance(body, dict) and "operators" in body:
            return subject.near_misses_of(decode(subject, body["source"]), [str(name) for name in body["operators"]])
        return subject.near_misses_of(decode(subject, body))
    if kind == "bytes":
        raw, how = body
        return Bytes(base64.b64decode(raw, validate=True), str(how))
    if kind == "injected":
        document, canaries = body
        return Injected(document, {str(k): str(v) for k, v in dict(canaries).items()})
    if kind == "tuple":
        return tuple(decode(subject, v) for v in body)
    if kind == "json":
        return body
    raise ValueError(f"unknown saved value {kind!r}")


# --------------------------------------------------------------------------- which examples


def kept(examples: Sequence[tuple[Any, Observation]], budget: int = VERDICTS) -> list[Any]:
    """The examples a saved run keeps: all of them when their boundary verdicts add up to at
    most ``budget``; past that (``rejects_near_misses`` checks every mutant of each document),
    first each example that reached a (label, deciding layer) pair no earlier one did, then
    the others in order while the verdicts stay within ``budget``."""
    if sum(len(o.columns) for _, o in examples) <= budget:
        return [value for value, _ in examples]
    seen: set[tuple[str, str]] = set()
    chosen: list[int] = []
    for index, (_, observation) in enumerate(examples):
        pairs = set(zip(observation.labels, observation.columns, strict=False)) | {("", c) for c in observation.columns}
        if not pairs <= seen:
            seen |= pairs
            chosen.append(index)
    spent = sum(len(examples[i][1].columns) for i in chosen)
    for index, (_, observation) in enumerate(examples):
        if index not in chosen and spent + len(observation.columns) <= budget:
            chosen.append(index)
            spent += len(observation.columns)
    return [examples[i][0] for i in sorted(chosen)]


# --------------------------------------------------------------------------- saved runs


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a property replays: its saved examples (None: generate), why, and a warning
    about an unreadable saved run."""

    examples: tuple[Sequence[Any], ...] | None
    why: str
    warning: str | None = None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


class ReplayStore:
    """The saved runs of one project: ``<directory>/<tool>/<property>.json``."""

    def __init__(self, directory: Path, *, root: Path | None = None) -> None:
        self.directory = Path(directory)
        #: The state folder the directory is in (``.contract-harness``): nothing from it down
        #: is read or written through a symlink.
        if root is None:
            layout = self.directory.parts[-len(REPLAY_DIR):] == REPLAY_DIR
            root = self.directory.parents[len(REPLAY_DIR) - 1] if layout else self.directory
        self.root = Path(root)

    def path(self, tool: str, prop: str) -> Path:
        return self.directory / tool / f"{prop}.json"

    def _read(self, path: Path, tool: str, prop: str, max_examples: int) -> Any:
        """The saved run at ``path`` (None when there is none); raises ``ValueError`` with the
        reason it cannot be taken. Its seal is checked first (:mod:`harness.state`)."""
        body = state.read(path, MAX_SAVED_BYTES, root=self.root, earlier=_EARLIER_FORMATS)
        if body is None:
            return None
        saved = state.load_json(body)
        if (not isinstance(saved, dict) or saved.get("format") != FORMAT or not isinstance(saved.get("inputs"), dict)
                or not isinstance(saved.get("examples"), list) or not isinstance(saved.get("generated_at"), str)
                or type(saved.get("drawn")) is not int or saved.get("tool") != tool or saved.get("property") != prop):
            raise ValueError(f"not a saved fuzz run of {tool}::{prop} in format {FORMAT}")
        examples, drawn = len(saved["examples"]), saved["drawn"]
        if not examples:
            raise ValueError("holds no examples")
        if examples > drawn or drawn > max_examples:
            raise ValueError(f"holds {max(examples, drawn):,} examples, more than the {max_examples:,} a run draws")
        return saved

    def decide(self, tool: str, prop: str, inputs: Mapping[str, str], max_examples: int) -> Decision:
        """Replay (the saved examples) when ``inputs`` hash as in the saved run and it drew the
        ``max_examples`` a run draws, else say why not."""
        path = self.path(tool, prop)
        try:
            saved = self._read(path, tool, prop, max_examples)
        except state.EarlierState:
            return Decision(None, "first run")  # an earlier release's: generated, and replaced
        except ValueError as exc:
            said = not isinstance(exc, state.StateUnusable) or state.said_once(exc, self.root)
            warning = f"warning: fuzz replay: {path}{state.scope(exc)}: {exc}; generating" if said else None
            return Decision(None, "saved run not taken", warning)
        if saved is None:
            return Decision(None, "first run")
        changed = [CHANGED.get(name, f"{name} changed") for name in sorted(set(inputs) | set(saved["inputs"]))
                   if inputs.get(name) != saved["inputs"].get(name)]
        if changed:
            return Decision(None, ", ".join(changed))
        if saved["drawn"] < max_examples:
            return Decision(None, f"the saved run drew {saved['drawn']:,} of {max_examples:,} examples")
        try:
            since = _stamp(datetime.fromisoformat(saved["generated_at"]))
        except ValueError:
            return Decision(None, "saved run unreadable",
                            f"warning: fuzz replay: {path}: a bad generated_at; generating")
        return Decision(tuple(saved["examples"]), f"inputs unchanged since {since}")

    def save(self, tool: str, prop: str, inputs: Mapping[str, str], examples: Sequence[Any],
             drawn: int) -> str | None:
        """Save a run that held (``drawn`` examples, of which ``examples`` are kept); returns a
        one-line warning when it could not be written."""
        body = {"format": FORMAT, "tool": tool, "property": prop,
                "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "inputs": dict(inputs), "drawn": drawn, "examples": list(examples)}
        path = self.path(tool, prop)
        try:
            state.write(path, json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii"),
                        root=self.root, what="fuzz replay file")
        except (state.NoKey, state.FolderUnusable):
            return None  # said when it was read
        except (HarnessError, OSError, ValueError) as exc:
            return f"warning: fuzz replay: {path}: not saved ({str(exc).splitlines()[0] if str(exc) else exc})"
        return None

    def forget(self, tool: str, prop: str) -> None:
        """Drop the saved run of a property that did not hold (never through a symlink)."""
        state.forget(self.path(tool, prop), root=self.root)


# --------------------------------------------------------------------------- what a run says


def summary_lines(rows: Iterable[tuple[str, str, str, str, int]]) -> list[str]:
    """One line per tool from (tool, property, mode, why, examples): what was replayed (since
    the oldest of its saved runs) and what was generated and why; properties are named when a
    tool's differ."""
    tools: dict[str, list[tuple[str, str, str, int]]] = {}
    for tool, prop, mode, why, examples in rows:
        tools.setdefault(tool, []).append((prop, mode, why, examples))
    lines = []
    for tool, props in sorted(tools.items()):
        parts: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
        for prop, mode, why, examples in props:
            parts.setdefault((mode, "" if mode == REPLAYED else why), []).append((prop, why, examples))
        texts = []
        for (mode, _), members in parts.items():
            count = sum(n for _, _, n in members)
            why = min(w for _, w, _ in members)  # replayed: the oldest "inputs unchanged since ..."
            names = "" if len(parts) == 1 else f"{', '.join(p for p, _, _ in members)}: "
            verb = f"replayed {count:,} saved examples" if mode == REPLAYED else f"generated {count:,} examples"
            texts.append(f"{names}{verb} ({why})")
        lines.append(f"{tool}: {'; '.join(texts)}")
    return lines
