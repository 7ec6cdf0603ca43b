"""The one point every event of ``check`` and ``drift`` passes on its way to the reporters.

1. A case that did not hold has its payload written to the cases directory, with the
   ``contract-harness verify`` command that reproduces it, unless

   - the payload holds a secret in any spelling, in its raw bytes or, once parsed, in its
     strings: raw bytes cannot be redacted without changing what they reproduce, so they are
     not written (CI uploads that directory as an artifact);
   - the case's fixture is a symlink leaving the project, or a file outside it: its bytes are
     someone else's file (``/proc/self/environ``), never copied into an artifact.

   Either way the report says so in the case's detail, and the payload goes no further.
2. Every event is then redacted (:meth:`harness.redaction.Redactor.value`): terminal, JSON,
   JUnit, Markdown and HTML reports all read the redacted events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from harness.events import CaseFinished, Event
from harness.redaction import Redactor
from harness.reporting.files import write_reproduction


def protected(
    events: Iterable[Event],
    redactor: Redactor,
    cases_dir: Path,
    fixtures: Mapping[str, tuple[Path, Path]] | None = None,
) -> Iterator[Event]:
    """Write reproductions (where safe), then redact each event. ``fixtures`` maps a case id to
    (the file its bytes came from, the project root) for cases read from fixture files."""
    for event in events:
        if isinstance(event, CaseFinished) and event.result.payload is not None:
            source = (fixtures or {}).get(event.result.id)
            why = withheld(event.result.payload, redactor, source)
            if why is None:
                request = redactor.value(event.result.request)
                result = write_reproduction(replace(event.result, request=request), cases_dir)
            else:
                from harness.drift.check import DriftChecked  # here: a check run imports no drift

                note = f"payload not written to the cases directory: {why}"
                result = replace(event.result, payload=None, excerpt="", detail=f"{event.result.detail}; {note}")
                if isinstance(event, DriftChecked) and event.check is not None:  # the terminal shows the check
                    event = replace(event, check=replace(event.check, notes=(*event.check.notes, note), payload=None))
            event = replace(event, result=result)
        yield redactor.value(event)


def withheld(payload: bytes, redactor: Redactor, source: tuple[Path, Path] | None = None) -> str | None:
    """Why ``payload`` must not be copied into the cases directory, or None."""
    if source is not None:
        path, root = source
        try:
            inside = path.resolve().is_relative_to(root.resolve())
        except (OSError, RuntimeError):  # a symlink loop
            inside = False
        if not inside:
            return f"its fixture {path} leads outside the project"
    names = set(redactor.found_in(payload))
    if redactor:
        with suppress(ValueError, RecursionError):  # not JSON: the raw bytes were searched
            names.update(redactor.found_in_document(json.loads(payload)))
    if names:
        return "it holds the value of " + ", ".join("${" + n + "}" for n in sorted(names))
    return None

