"""Drafts in, contracts with fixtures on disk out: stage, load, judge, tighten, commit.

Each draft is written into a staging project, loaded with :func:`harness.load_contract` (so a
schema that does not compile, or a contract the meta-schema refuses, stops the whole run with
its own one-line error), its candidates judged by the real boundary and filed as fixtures, and
with ``strict`` a tightened copy written as version 2 (made current only when it still
accepts every accepted fixture). Only when every draft got that far is anything moved into
the project.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from harness.contract import CONTRACT_FILE, SCHEMAS_DIR, Contract, load_contract
from harness.errors import ContractError
from harness.onboarding.draft import Skipped, ToolDraft, dump_json, dump_yaml
from harness.onboarding.errors import OnboardingError
from harness.onboarding.fixtures import Judged, fixture_files, judge
from harness.onboarding.project import Staging, staged
from harness.onboarding.tighten import Tightened, tighten
from harness.strict_json import strict_loads

#: The compat policy declared for the change v1 -> v2 that ``--strict`` writes.
STRICT_POLICY = "writer"


@dataclass(frozen=True, slots=True)
class FixtureOutcome:
    """Where one candidate was filed and, when rejected, by what."""

    name: str
    kind: str
    code: str | None = None
    pointer: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class StrictOutcome:
    """The tightened version: its number, whether it became current, what it did."""

    version: int
    current: bool
    tightened: Tightened
    rejects: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    tool: str
    source_name: str
    directory: Path
    fixtures: tuple[FixtureOutcome, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    strict: StrictOutcome | None = None
    dialect: str = ""

    def count(self, kind: str) -> int:
        return sum(1 for f in self.fixtures if f.kind == kind)


@dataclass(frozen=True, slots=True)
class Written:
    """Everything one ``init`` or ``import`` wrote."""

    root: Path
    tools: tuple[ToolOutcome, ...] = field(default=())


def _relative(path: str | None, staging: Staging) -> str | None:
    if path is None:
        return None
    try:
        return str(Path(path).relative_to(staging.path))
    except ValueError:
        return path


def _load(staging: Staging, draft: ToolDraft) -> Contract:
    try:
        return load_contract(staging.contract_dir(draft.tool))
    except ContractError as exc:
        where = ": ".join(p for p in (_relative(exc.file, staging), exc.pointer) if p)
        raise OnboardingError(
            f"{draft.source_name!r}: {where + ': ' if where else ''}{exc.detail}",
            code=exc.code,
        ) from None


def _write_contract(staging: Staging, draft: ToolDraft, contract: dict[str, Any]) -> None:
    base = PurePosixPath("contracts", draft.tool)
    staging.write(base / CONTRACT_FILE, dump_yaml(contract, draft.header))


def _outcome(item: Judged) -> FixtureOutcome:
    if item.kind == "accepted":
        return FixtureOutcome(item.name, "accepted", note=item.note)
    verdict = item.verdicts[min(item.verdicts)]
    return FixtureOutcome(item.name, item.kind, verdict.code, verdict.instance_pointer, item.note)


def _stage_one(staging: Staging, draft: ToolDraft, strict: bool) -> ToolOutcome:
    base = PurePosixPath("contracts", draft.tool)
    contract_data = dict(draft.contract)
    _write_contract(staging, draft, contract_data)
    staging.write(base / SCHEMAS_DIR / "v1.json", dump_json(draft.schema))
    contract = _load(staging, draft)
    judged = judge(contract, draft.candidates)
    strict_outcome = None
    if strict:
        samples = [strict_loads(j.candidate.payload, max_depth=contract.limits.max_depth) for j in judged if j.accepted]
        tight = tighten(draft.schema, samples)
        staging.write(base / SCHEMAS_DIR / "v2.json", dump_json(tight.schema))
        # v2 only adds constraints: every v2 document is a v1 document (writer-safe), while
        # v1 documents v2 refuses are exactly what the compat report lists.
        contract_data["compat"] = {"by_version": {"2": STRICT_POLICY}}
        _write_contract(staging, draft, contract_data)
        contract = _load(staging, draft)
        judged = judge(contract, draft.candidates)
        rejects = tuple(j.name for j in judged if j.accepted and not j.accepted_by(2))
        current = not rejects
        if current:
            contract_data["version"] = 2
            _write_contract(staging, draft, contract_data)
            contract = _load(staging, draft)
        strict_outcome = StrictOutcome(2, current, tight, rejects)
    for item in judged:
        for rel, data in fixture_files(draft.tool, item).items():
            staging.write(rel, data)
    return ToolOutcome(
        tool=draft.tool,
        source_name=draft.source_name,
        directory=staging.root / base,
        fixtures=tuple(_outcome(j) for j in judged),
        skipped=draft.skipped,
        notes=draft.notes + tuple(f"{j.name}: {j.note}" for j in judged if j.note),
        strict=strict_outcome,
        dialect=contract.validator(1).dialect,
    )


def write_drafts(root: Path, drafts: Sequence[ToolDraft], *, strict: bool = False, what: str = "import") -> Written:
    """Write every draft into the project at ``root``, or nothing at all."""
    root = root.resolve()
    tools = [d.tool for d in drafts]
    with staged(root, tools, what=what) as staging:
        outcomes = tuple(_stage_one(staging, d, strict) for d in drafts)
        _check_fixture_folders(staging, tools)
        staging.commit(tools)
    return Written(root, outcomes)


def _check_fixture_folders(staging: Staging, tools: Sequence[str]) -> None:
    """Every staged fixture loads as ``check`` will load it (sidecars included)."""
    from harness.corpus import fixtures_for

    for tool in tools:
        try:
            fixtures_for(load_contract(staging.contract_dir(tool)))
        except ContractError as exc:  # pragma: no cover - the fixtures above are generated
            raise OnboardingError(f"{tool!r}: generated fixture is invalid: {exc}", code="import.internal") from None
