"""Imported payloads judged by the real boundary and filed as fixtures with sidecars.

A payload the contract accepts becomes ``fixtures/accepted/<tool>/<name>.json``. One it rejects
is an observed shape the schema does not allow (an upstream's own example that violates its
own schema, a sampled result that drifted): it becomes
``fixtures/historical/<tool>/imported/<name>.json`` with a sidecar pinning the verdict (layer,
code, instance pointer), per schema version when there are several, so ``check`` and ``compat``
replay it and a reviewer sees exactly what the schema refuses. A designed negative (``init``'s
example) goes to ``fixtures/rejected/<tool>/`` with the same kind of sidecar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from harness.boundary.pipeline import Boundary, Verdict
from harness.contract import Contract
from harness.errors import InvalidRequest
from harness.onboarding.draft import Candidate, dump_yaml
from harness.onboarding.errors import OnboardingError

HISTORICAL_LABEL = "imported"
_NOT_FILE_CHAR = re.compile(r"[^A-Za-z0-9_.-]+")


def fixture_name(text: str) -> str:
    """A file stem for a case name (``response if content is a file`` -> ``response_if_...``)."""
    name = _NOT_FILE_CHAR.sub("_", text).strip("._-")[:100]
    return name or "example"


@dataclass(frozen=True, slots=True)
class Judged:
    """One candidate with its verdict under every schema version of the contract."""

    candidate: Candidate
    name: str
    verdicts: Mapping[int, Verdict]
    request: Mapping[str, Any] | None
    note: str | None = None

    def accepted_by(self, version: int) -> bool:
        return self.verdicts[version].accepted

    @property
    def accepted(self) -> bool:
        """Accepted by the first version: the schema as the source published it."""
        return self.verdicts[min(self.verdicts)].accepted

    @property
    def kind(self) -> str:
        """The fixture folder it belongs in: accepted, rejected or historical."""
        if self.candidate.negative:
            return "rejected"
        return "accepted" if self.accepted else "historical"


def _request(contract: Contract, args: Mapping[str, Any] | None) -> tuple[Mapping[str, Any] | None, str | None]:
    if args is None:
        return None, None
    request = {"args": dict(args)}
    try:
        contract.normalise_request(request)
    except InvalidRequest as exc:
        return None, f"its request was left out: {exc}"
    return request, None


def judge(contract: Contract, candidates: Iterable[Candidate], versions: Iterable[int] | None = None) -> list[Judged]:
    """Run every candidate through the boundary of each version (default: all of them)."""
    versions = tuple(versions or contract.versions)
    boundaries = {v: Boundary(contract, version=v) for v in versions}
    names: set[str] = set()
    judged = []
    for candidate in candidates:
        name = fixture_name(candidate.name)
        stem, n = name, 2
        while name in names:
            name, n = f"{stem}_{n}", n + 1
        names.add(name)
        request, note = _request(contract, candidate.args)
        # The clock ``check`` will judge the fixture at: the contract's, else the system's.
        verdicts = {v: b.check(candidate.payload, request, now=contract.default_now) for v, b in boundaries.items()}
        judged.append(Judged(candidate, name, verdicts, request, note))
    return judged


def _expectation(verdict: Verdict) -> Any:
    if verdict.accepted:
        return "accept"
    expect: dict[str, Any] = {"layer": verdict.layer.value if verdict.layer else None, "code": verdict.code}
    if verdict.instance_pointer is not None:
        expect["pointer"] = verdict.instance_pointer
    return expect


def sidecar(item: Judged) -> dict[str, Any]:
    """The ``<name>.case.yaml`` data of a judged candidate."""
    candidate = item.candidate
    data: dict[str, Any] = {}
    description = candidate.description
    pinned = item.kind != "accepted"
    if item.kind == "historical":
        first = item.verdicts[min(item.verdicts)]
        lead = description.rstrip() + ("" if description.rstrip().endswith(".") else ".") if description else ""
        description = (lead + " " if lead else "") + f"The imported schema rejects it: {first.message}"
    if description:
        data["description"] = description[:1000]
    if pinned:
        if len(item.verdicts) == 1:
            data["expect"] = _expectation(next(iter(item.verdicts.values())))
        else:
            data["expect_by_version"] = {str(v): _expectation(item.verdicts[v]) for v in sorted(item.verdicts)}
    if item.request is not None:
        data["request"] = dict(item.request)
    if candidate.upstream:
        data["upstream"] = candidate.upstream
    if candidate.recorded_at:
        data["recorded_at"] = candidate.recorded_at
    return data


def fixture_files(tool: str, item: Judged) -> dict[PurePosixPath, bytes]:
    """Payload and sidecar of one judged candidate, relative to the project root."""
    if item.kind == "rejected" and item.accepted:
        raise OnboardingError(
            f"{tool}: the negative example {item.name!r} is accepted by the schema", code="import.internal"
        )
    folder = PurePosixPath("fixtures", item.kind, tool)
    if item.kind == "historical":
        folder = folder / HISTORICAL_LABEL
    side = sidecar(item)
    files = {folder / f"{item.name}.json": item.candidate.payload}
    if side:
        files[folder / f"{item.name}.case.yaml"] = dump_yaml(side)
    return files
