"""Replay: the tool's historical and accepted fixtures run through the boundary of each version.

Each fixture (``fixtures/historical/<tool>/**`` and ``fixtures/accepted/<tool>/``) is judged
by the full boundary of the old and of the new schema version (:func:`harness.corpus.judge`:
contract-shaped payloads of an adapter tool skip the adapter). A cell holds the verdict and
its reason. A cell *fails* when

- the sidecar expects something of that version (``expect_by_version``, or ``expect`` for the
  contract's current version) and the verdict does not match it; or
- the new version rejects the fixture where the sidecar expects a rejection, the old version
  judged it otherwise, and the rejecting keyword is not where the two versions differ: an
  expected rejection must come from the change, not from some unrelated rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.compat.assess import Assessed
from harness.compat.witness import at_location
from harness.contract import Contract
from harness.corpus import expectation_for, fixtures_for, judge


@dataclass(frozen=True, slots=True)
class Cell:
    version: int
    accepted: bool
    layer: str | None
    code: str | None
    instance_pointer: str | None
    schema_pointer: str | None
    message: str | None
    expected: str | None
    met: bool | None
    attributed_to: str | None  # the change whose keyword rejected it ("CMP201 at /x")
    problem: str | None

    @property
    def reason(self) -> str:
        if self.accepted:
            return "accepted"
        where = f" at {self.instance_pointer or '/'}" if self.instance_pointer is not None else ""
        return f"{self.code}{where}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version, "accepted": self.accepted, "layer": self.layer, "code": self.code,
            "instance_pointer": self.instance_pointer, "schema_pointer": self.schema_pointer,
            "message": self.message, "expected": self.expected, "met": self.met,
            "attributed_to": self.attributed_to, "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class Row:
    fixture: str
    kind: str
    shape: str
    description: str
    cells: tuple[Cell, ...]

    @property
    def ok(self) -> bool:
        return all(cell.problem is None for cell in self.cells)

    def to_dict(self) -> dict[str, Any]:
        return {"fixture": self.fixture, "kind": self.kind, "shape": self.shape,
                "description": self.description, "ok": self.ok,
                "cells": [cell.to_dict() for cell in self.cells]}


def _attribute(schema_pointer: str | None, changes: tuple[Assessed, ...], side: str) -> str | None:
    if not schema_pointer:
        return None
    for assessed in changes:
        change = assessed.change
        location = change.location(side)
        if location is not None and at_location(schema_pointer, location):
            return f"{change.rule.id} {change.rule.name} at {change.pointer or '/'}"
    return None


def replay(contract: Contract, old: int, new: int, changes: tuple[Assessed, ...]) -> tuple[Row, ...]:
    """The replay matrix of a contract's fixtures for versions ``old`` and ``new``."""
    rows = []
    for fixture in fixtures_for(contract, ("historical", "accepted")):
        cells: list[Cell] = []
        for version in (old, new):
            verdict = judge(contract, fixture, version)
            expectation = expectation_for(fixture, version, contract.version)
            met = expectation.matches(verdict) if expectation is not None else None
            problem = None
            if met is False:
                got = ("accept" if verdict.accepted else
                       f"{verdict.code} at {verdict.instance_pointer or '/'} ({verdict.schema_pointer or '-'})")
                problem = f"expected {_describe(expectation)}, got {got}"
            side = "new" if version == new else "old"
            attributed = None if verdict.accepted else _attribute(verdict.schema_pointer, changes, side)
            if (problem is None and version == new and expectation is not None and not expectation.accept
                    and not verdict.accepted):
                before = cells[0]
                same_as_before = (not before.accepted and before.code == verdict.code
                                  and before.schema_pointer == verdict.schema_pointer)
                if not same_as_before and attributed is None:
                    problem = (f"rejected by {verdict.code} at {verdict.schema_pointer or '-'}, which is not "
                               f"where v{old} -> v{new} changed: the expected rejection must come from the change")
            cells.append(Cell(
                version, verdict.accepted, verdict.layer.value if verdict.layer else None, verdict.code,
                verdict.instance_pointer, verdict.schema_pointer, verdict.message,
                _describe(expectation) if expectation is not None else None, met, attributed, problem,
            ))
        rows.append(Row(fixture.id, fixture.kind, fixture.shape, fixture.description, tuple(cells)))
    return tuple(rows)


def _describe(expectation: Any) -> str:
    if expectation.accept:
        return "accept"
    parts = [expectation.code or (expectation.layer.value if expectation.layer else "reject")]
    if expectation.pointer is not None:
        parts.append(f"at {expectation.pointer or '/'}")
    if expectation.schema_pointer is not None:
        parts.append(f"({expectation.schema_pointer})")
    return " ".join(parts)
