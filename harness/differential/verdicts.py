"""The reference validator's verdicts, saved between runs of ``check`` and of the pytest plugin.

The differential check asks the reference validator (python-jsonschema) for its verdict on each
distinct (schema, document) pair of a run, and that verdict is a function of the pair and of
the reference's code alone. So ``check`` saves each verdict it obtained, and a later run that
meets the same pair again takes the saved verdict instead of validating again: the reference
validator runs once per distinct document and schema, not once per run. The production
validator is asked on every run, and its verdict is compared with the reference's, saved or
not; where they differ, the reference validates again (for its message), so a disagreement is
always reported from a verdict of this run.

A verdict is saved under two hashes (sha256):

- the **validator**'s (:func:`validator_identity`): the schema the reference validator is made
  with, every schema resource ``$ref`` may reach, the base URI (the schema file's absolute URI:
  moving the project folder starts afresh), the harness's version and source, and the versions
  of python-jsonschema and of what it validates with (``referencing``, the format checkers'
  libraries, ``regex``);
- the **document**'s (:func:`document_key`), as the run's own memory of compared pairs knows
  it: the bytes the parse layer made it of, when it came through the boundary (the parse is
  strict and the same for every contract, so one byte string is always one document; two
  spellings of one document are two keys, each validated once), else its canonical JSON text
  (keys sorted; ``1`` and ``1.0`` apart). The two never name different documents: equal
  bytes parse to one document whichever way they were hashed.

What is saved is the reference's verdict on the whole document: ``valid`` or ``invalid``, from
a whole validation, or ``invalid`` from a rejection shown on the part of the document the
production's error points at (which is a rejection of the whole document; see
:mod:`harness.differential.confirm`). No verdict is saved when the reference gave none (a pattern
search out of time, a reference failure).

A saved verdict that agrees with the production's is exactly what a forged file would hold to
hide a disagreement, so the file is sealed (:mod:`harness.state`): an HMAC under a key kept
outside the state folder. A file whose seal does not hold is not taken, and the run validates
afresh: no edit of the folder changes what a run reports.

One JSON file per tool, ``<state dir>/check/reference/<tool>.json``, sealed and written
atomically (not synced to disk: a cache) when the tool's run found a verdict it did not have,
never read or written through a symlink (the file's or a folder's); one that cannot be taken (an
empty file after a power loss, a directory, another key's seal) is a one-line warning, and the
run validates afresh (another key's is said once per process, an earlier release's not at all).
A file keeps the verdicts of the validators its last run used: this run's first, then earlier
ones, up to :data:`MAX_VERDICTS`. Before it writes, a run reads the file again and keeps what
another process saved meanwhile (the pytest plugin's xdist workers share a tool's file; so may
two CI jobs on one cache): the last writer does not erase the other's verdicts.

The pytest plugin saves and takes them as ``check`` does, in the same place (``--no-saved-verdicts``
there too).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import harness.state as state
from harness.digests import harness_digest
from harness.errors import HarnessError, printable_path

FORMAT = 3
#: Formats of earlier releases (unsealed): read as nothing saved, without a warning.
_EARLIER_FORMATS = (1, 2)
VERDICTS_DIR = ("check", "reference")
#: A saved file larger than this is not read.
MAX_SAVED_BYTES = 64 << 20
#: Verdicts a tool's file keeps at most.
MAX_VERDICTS = 200_000
#: What the reference validator's verdicts depend on besides the schema: python-jsonschema and
#: the libraries its validation and format checks use (an absent one is hashed as absent).
LIBRARIES = ("jsonschema", "referencing", "jsonschema-specifications", "rpds-py", "regex", "fqdn", "idna",
             "isoduration", "jsonpointer", "rfc3339-validator", "rfc3986-validator", "rfc3987", "uri-template",
             "webcolors")


@cache
def _libraries_digest() -> str:
    return harness_digest(*LIBRARIES)


def prepare() -> None:
    """Hash the harness and its libraries now (what every validator's identity starts from)."""
    _libraries_digest()


def document_key(document: Any, raw: bytes | None = None) -> bytes | None:
    """The sha256 a document's verdicts are known by (see the module's docstring): of ``raw``,
    the bytes the parse layer made ``document`` of, when given; else of its canonical JSON
    text (None when it has none)."""
    if raw is not None:
        return hashlib.sha256(raw).digest()
    try:
        text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def validator_identity(schema: Any, resources: list[tuple[str, Any]], base_uri: str) -> str | None:
    """The hash a reference validator's verdicts are saved under (see the module's docstring);
    None for a schema with no canonical JSON text (its verdicts are not saved)."""
    try:
        text = json.dumps([schema, sorted(resources, key=lambda r: r[0]), base_uri], sort_keys=True,
                          ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    h = hashlib.sha256(_libraries_digest().encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _where(path: Path) -> str:
    """A path as the user would type it from the working directory (absolute outside it)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        relative = str(path)
    return printable_path(str(path) if relative.startswith("..") else relative)


def print_warning(message: str) -> None:
    print(f"contract-harness: warning: {message}", file=sys.stderr)


def _lists(kept: dict[str, bool]) -> dict[str, list[str]]:
    return {"valid": sorted(d for d, v in kept.items() if v), "invalid": sorted(d for d, v in kept.items() if not v)}


_NONE: dict[str, bool] = {}


class ReferenceVerdicts:
    """The saved verdicts of a project, ``<directory>/<tool>.json``: one tool's held at a time
    (asking about another tool saves the first's), so memory does not grow with the tools."""

    def __init__(self, directory: Path, *, root: Path | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.directory = Path(directory)
        #: Where a one-line warning goes (default: stderr, after ``contract-harness: warning:``).
        self.warn = warn or print_warning
        #: The state folder the directory is in (``.contract-harness``): nothing from it down
        #: is read or written through a symlink.
        if root is None:
            layout = self.directory.parts[-len(VERDICTS_DIR):] == VERDICTS_DIR
            root = self.directory.parents[len(VERDICTS_DIR) - 1] if layout else self.directory
        self.root = Path(root)
        self._tool: str | None = None
        #: The current tool's verdicts from its file: validator -> document -> valid.
        self._saved: dict[str, dict[str, bool]] = {}
        #: This run's: those found in the file, and those obtained.
        self._used: dict[str, dict[str, bool]] = {}
        self._changed = False
        #: Whether the current tool's file was warned of when read (its save is not, again).
        self._warned = False

    def path(self, tool: str) -> Path:
        return self.directory / f"{tool}.json"

    def get(self, tool: str, validator: str, document: str) -> bool | None:
        """The saved verdict (True: valid) of ``validator`` on ``document``, or None."""
        if tool != self._tool:
            self._switch(tool)
        found = self._saved.get(validator, _NONE).get(document)
        if found is not None:
            used = self._used.get(validator)
            if used is None:
                used = self._used[validator] = {}
            used[document] = found
        return found

    def put(self, tool: str, validator: str, document: str, valid: bool) -> None:
        """A verdict this run obtained."""
        if tool != self._tool:
            self._switch(tool)
        used = self._used.get(validator)
        if used is None:
            used = self._used[validator] = {}
        if not self._changed and (used.get(document) != valid
                                  or self._saved.get(validator, _NONE).get(document) != valid):
            self._changed = True
        used[document] = valid

    def save(self) -> None:
        """Write the current tool's file, when this run obtained a verdict it did not have."""
        tool, self._tool = self._tool, None
        saved, used, changed, warned = self._saved, self._used, self._changed, self._warned
        self._saved, self._used, self._changed, self._warned = {}, {}, False, False
        if tool is None or not changed:
            return
        path = self.path(tool)
        # Another process may have saved this tool's verdicts since this one read them (two
        # pytest-xdist workers that share a tool, two CI jobs on one cache): keep theirs too.
        try:
            latest = self._read(path, tool)
        except (HarnessError, OSError, ValueError):
            latest = {}
        room = MAX_VERDICTS
        verdicts: dict[str, dict[str, list[str]]] = {}
        for validator, mine in used.items():
            kept = dict(list(mine.items())[:room])
            room -= len(kept)
            for earlier in (latest, saved):
                for document, valid in earlier.get(validator, {}).items():
                    if room <= 0:
                        break
                    if document not in kept:
                        kept[document] = valid
                        room -= 1
            verdicts[validator] = _lists(kept)
        # A validator another process added since this one read the file is as current as this
        # run's (one a later run did not use is dropped, as its schema changed).
        for validator, theirs in latest.items():
            if validator not in used and validator not in saved and room > 0:
                kept = dict(list(theirs.items())[:room])
                room -= len(kept)
                verdicts[validator] = _lists(kept)
        body = {"format": FORMAT, "tool": tool, "verdicts": verdicts}
        try:
            state.write(path, json.dumps(body, separators=(",", ":")).encode("ascii"), root=self.root,
                        what="saved reference verdicts")
        except (state.NoKey, state.FolderUnusable):
            return  # said when the file was read
        except (HarnessError, OSError, ValueError) as exc:
            if warned:
                return  # the file was warned of when read
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.warn(f"saved reference verdicts: {_where(path)}: not saved ({reason})")

    def _switch(self, tool: str) -> None:
        if tool == self._tool:
            return
        self.save()
        self._tool = tool
        path = self.path(tool)
        try:
            self._saved = self._read(path, tool)
        except state.EarlierState:
            self._saved = {}  # an earlier release's: validated afresh, and replaced
            self._changed = True
        except ValueError as exc:
            if not isinstance(exc, state.StateUnusable) or state.said_once(exc, self.root):
                self.warn(f"saved reference verdicts: {_where(path)}{state.scope(exc)}: {exc}; validating afresh")
            self._saved, self._warned = {}, True
            self._changed = True  # replaced by this run's

    def _read(self, path: Path, tool: str) -> dict[str, dict[str, bool]]:
        body = state.read(path, MAX_SAVED_BYTES, root=self.root, earlier=_EARLIER_FORMATS)
        if body is None:
            return {}
        saved = state.load_json(body)
        verdicts = saved.get("verdicts") if isinstance(saved, dict) and saved.get("format") == FORMAT else None
        if not isinstance(verdicts, dict) or saved.get("tool") != tool:
            raise ValueError(f"not saved reference verdicts of {tool} in format {FORMAT}")
        found: dict[str, dict[str, bool]] = {}
        for validator, lists in verdicts.items():
            if not isinstance(lists, dict) or not all(isinstance(lists.get(k), list) for k in ("valid", "invalid")):
                raise ValueError(f"not saved reference verdicts of format {FORMAT}")
            mine = found[validator] = {}
            for valid in (True, False):
                for document in lists["valid" if valid else "invalid"]:
                    if not isinstance(document, str):
                        raise ValueError(f"not saved reference verdicts of format {FORMAT}")
                    mine[document] = valid
        return found
