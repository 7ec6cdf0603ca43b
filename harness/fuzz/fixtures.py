"""A shrunk failing example, written out as a ready-to-commit fixture with its sidecar.

```
<directory>/fixtures/<accepted|rejected>/<tool>/fuzz-<property>-<sha8>.json
<directory>/fixtures/<accepted|rejected>/<tool>/fuzz-<property>-<sha8>.case.yaml
```

The sidecar says what the property demands of the payload (``expect``), with the request and
clock it was judged under, so copying ``fixtures/`` into the project turns the finding into a
regression case that ``contract-harness check`` fails until the contract or connector is fixed.
Both files are written atomically, and never over an existing file.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path
from typing import Any

import yaml

from harness.corpus import PAYLOAD_SUFFIX, SIDECAR_SUFFIX
from harness.files import write_new
from harness.fuzz.model import Finding
from harness.timeutil import format_rfc3339

_DESCRIPTION_LIMIT = 1000


def sidecar(finding: Finding, tool: str, prop: str) -> dict[str, Any]:
    """The sidecar of a finding's fixture (valid under ``harness/sidecar.schema.json``)."""
    what = f"property {prop}"
    if finding.operator:
        what += f", operator {finding.operator} at {finding.pointer or '/'}"
    description = f"Found by contract-harness fuzz ({what}): {finding.detail}"
    if finding.problem == "raised":
        description += " The expectation is inferred from the strict parser; check it."
    data: dict[str, Any] = {"description": description[:_DESCRIPTION_LIMIT]}
    if finding.fixture.accept:
        data["expect"] = "accept"
    else:
        assert finding.fixture.layer is not None
        expect: dict[str, Any] = {"layer": finding.fixture.layer.value}
        if finding.fixture.code:
            expect["code"] = finding.fixture.code
        data["expect"] = expect
    data["request"] = dict(finding.request)
    data["now"] = format_rfc3339(finding.now)
    if finding.shape == "contract":
        data["shape"] = "contract"
    return data


def write_fixture(finding: Finding, tool: str, prop: str, directory: Path) -> Path:
    """Write the payload and its sidecar under ``directory``; return the payload's path.

    Nothing is ever overwritten: when ``fuzz-<property>-<sha8>`` is taken by other content (a
    fixture a person edited, a sidecar of another run), the next free ``-2``, ``-3``, ... is
    used; the same payload with the same sidecar is already there and is not written again."""
    digest = hashlib.sha256(finding.payload).hexdigest()[:8]
    folder = directory / "fixtures" / finding.kind / tool
    text = yaml.safe_dump(sidecar(finding, tool, prop), sort_keys=False, allow_unicode=True, width=100)
    side_bytes = text.encode("utf-8")
    for attempt in itertools.count(1):
        stem = f"fuzz-{prop}-{digest}" + ("" if attempt == 1 else f"-{attempt}")
        payload, side = folder / f"{stem}{PAYLOAD_SUFFIX}", folder / f"{stem}{SIDECAR_SUFFIX}"
        if os.path.lexists(payload) or os.path.lexists(side):
            if _holds(payload, finding.payload) and _holds(side, side_bytes):
                return payload
            continue
        if not write_new(payload, finding.payload, what="fuzz fixture"):
            continue
        if not write_new(side, side_bytes, what="fuzz fixture sidecar"):
            payload.unlink()  # taken meanwhile: ours goes, theirs stays
            continue
        return payload
    raise AssertionError("unreachable")  # pragma: no cover


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file with exactly ``data``."""
    try:
        return path.is_file() and not path.is_symlink() and path.read_bytes() == data
    except OSError:
        return False
