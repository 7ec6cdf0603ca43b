"""The compat API behind ``harness.compat`` (see its docstring): ``compare`` a contract's
versions, ``compare_schemas`` outside a contract, ``consecutive_pairs`` for the pytest plugin."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from harness.compat.assess import assess
from harness.compat.model import DEFAULT_POLICY, Budget, Policy, declared_policy, parse_policy
from harness.compat.normalise import Side, prepare
from harness.compat.replay import replay
from harness.compat.report import CompatReport, ModelChange, SchemaInfo
from harness.contract import Contract
from harness.corpus import fixtures_for
from harness.errors import UsageError


def consecutive_pairs(contract: Contract) -> list[tuple[int, int]]:
    """Every (older, newer) pair of consecutive supported versions, oldest first."""
    versions = contract.versions
    return list(itertools.pairwise(versions))


def prepare_version(contract: Contract, version: int) -> Side:
    """One version of a contract's schema, ready to compare."""
    contract.schema(version)  # unknown version: one-line ContractError listing the versions
    file = contract.schema_path(version)
    return prepare(
        contract.schema(version),
        label=f"v{version}",
        validator=contract.validator(version),
        base_uri=file.resolve().as_uri(),
        resources=contract.schema_resources(),
        raw_bytes=file.read_bytes(),
        file=str(file),
    )


def _models(old: Side, new: Side) -> tuple[ModelChange, ...]:
    pointers = dict.fromkeys([*old.models, *new.models])
    return tuple(ModelChange(p, old.models.get(p), new.models.get(p)) for p in pointers
                 if old.models.get(p) != new.models.get(p))


def _unsupported(old: Side, new: Side) -> tuple[tuple[str, Any], ...]:
    return tuple((old.label, u) for u in old.unsupported) + tuple((new.label, u) for u in new.unsupported)


def _seeds(contract: Contract) -> list[Any]:
    """The contract's accepted and historical fixtures that parse as JSON: real documents to
    build witnesses from (each version uses those its schema accepts)."""
    found = []
    for fixture in fixtures_for(contract, ("accepted", "historical")):
        try:
            found.append(json.loads(fixture.read()))
        except (ValueError, OSError):
            continue
    return found


def compare(
    contract: Contract,
    old: int | None = None,
    new: int | None = None,
    *,
    policy: Policy | str | None = None,
    budget: Budget | None = None,
    replay_fixtures: bool = True,
) -> CompatReport:
    """Compare two versions of a contract's schema (default: the current one and the one
    before it). ``policy`` overrides what the contract declares (``compat.policy``)."""
    if new is None:
        new = contract.version
    if old is None:
        earlier = [v for v in contract.versions if v < new]
        if not earlier:
            raise UsageError(
                f"{contract.tool} has no version before v{new} to compare with "
                f"(versions: {', '.join(map(str, contract.versions))})"
            )
        old = earlier[-1]
    if old == new:
        raise UsageError(f"--from and --to are both v{old}: nothing to compare")
    started = time.perf_counter()
    old_side, new_side = prepare_version(contract, old), prepare_version(contract, new)
    if policy is None:
        chosen, source = declared_policy(contract.raw, new, file=str(contract.path))
    else:
        chosen, source = (parse_policy(policy) if isinstance(policy, str) else policy), "argument"
    assessment = assess(old_side, new_side, budget or Budget(), seeds=_seeds(contract))
    rows = replay(contract, old, new, assessment.changes) if replay_fixtures else ()
    return CompatReport(
        tool=contract.tool,
        old=SchemaInfo.of(old_side, old),
        new=SchemaInfo.of(new_side, new),
        policy=chosen,
        policy_source=source,
        assessment=assessment,
        replay=rows,
        unsupported=_unsupported(old_side, new_side),
        models=_models(old_side, new_side),
        seconds=time.perf_counter() - started,
    )


def compare_schemas(
    old: Any,
    new: Any,
    *,
    policy: Policy | str = DEFAULT_POLICY,
    budget: Budget | None = None,
    resources: Any = (),
) -> CompatReport:
    """Compare two schemas outside any contract (no replay). For tests and ad-hoc checks."""
    started = time.perf_counter()
    old_side = prepare(old, label="old", resources=resources)
    new_side = prepare(new, label="new", resources=resources)
    assessment = assess(old_side, new_side, budget or Budget())
    return CompatReport(
        tool=None,
        old=SchemaInfo.of(old_side, None),
        new=SchemaInfo.of(new_side, None),
        policy=parse_policy(policy) if isinstance(policy, str) else policy,
        policy_source="argument",
        assessment=assessment,
        replay=(),
        unsupported=_unsupported(old_side, new_side),
        models=_models(old_side, new_side),
        seconds=time.perf_counter() - started,
    )
