"""Witnesses: the one-value change of an accepted fixture that shows a weakening is visible.

A weakening is *visible* when some document a fixture-based test could build is rejected by the
sound contract and accepted by the weakened one. A :class:`Witness` names such a document as
one change of one accepted fixture: a value replaced, added or removed at a JSON pointer, in the
fixture's raw upstream bytes (``shape="upstream"``) or in the contract object the sound adapter
makes of it (``shape="contract"``, judged without the adapter, as ``check`` judges the
adapter's output and ``contract-harness verify --shape contract`` reproduces it).

:func:`judge_witness` runs the witness through both copies' boundaries in this process. Each
copy's adapter module (``<tool>_adapter.py`` at its root) is imported afresh for that copy and
forgotten after it, so a sound and a weakened adapter of the same name never meet.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from harness.boundary.pipeline import Boundary, Verdict
from harness.boundary.request import normalise_request
from harness.contract import Contract, load_contract
from harness.corpus import Fixture, fixtures_for
from harness.pointer import split
from tests.weakenings.scratch import CatalogueError, Scratch


class _Remove:
    def __repr__(self) -> str:
        return "REMOVE"


#: The witness removes the member (or item) at its pointer.
REMOVE: Any = _Remove()


@dataclass(frozen=True, slots=True)
class Repeat:
    """The witness replaces the array at its pointer with ``count`` items, its own repeated."""

    count: int

    def of(self, items: Any) -> list[Any]:
        if not isinstance(items, list) or not items:
            raise CatalogueError(f"Repeat({self.count}) needs a non-empty array, not {items!r}")
        return [copy.deepcopy(items[i % len(items)]) for i in range(self.count)]


@dataclass(frozen=True, slots=True)
class Witness:
    """One change of accepted fixture ``fixture``: ``value`` at ``pointer`` (a new member where
    there was none, ``REMOVE``, or ``Repeat(n)``), in its ``shape``."""

    fixture: str
    pointer: str
    value: Any
    shape: Literal["upstream", "contract"] = "upstream"

    def describe(self) -> str:
        shown = self.value if isinstance(self.value, (Repeat, _Remove)) else json.dumps(self.value)
        where = "the adapter's output of " if self.shape == "contract" else ""
        return f"{where}{self.fixture} with {self.pointer} = {shown}"

    def apply(self, document: Any) -> Any:
        changed = copy.deepcopy(document)
        *parents, last = split(self.pointer)
        node = changed
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            index = int(last)
            if self.value is REMOVE:
                del node[index]
            else:
                node[index] = self.value.of(node[index]) if isinstance(self.value, Repeat) else self.value
        elif isinstance(node, dict):
            if self.value is REMOVE:
                if last not in node:
                    raise CatalogueError(f"{self.fixture}: nothing to remove at {self.pointer}")
                del node[last]
            else:
                node[last] = self.value.of(node.get(last)) if isinstance(self.value, Repeat) else self.value
        else:
            raise CatalogueError(f"{self.fixture}: {self.pointer} is not inside an object or array")
        if changed == document:
            raise CatalogueError(f"{self.fixture}: the witness changes nothing at {self.pointer}")
        return changed


@dataclass(frozen=True, slots=True)
class WitnessVerdicts:
    """What the sound and the weakened contract made of one witness."""

    sound: Verdict
    weakened: Verdict

    @property
    def visible(self) -> bool:
        return not self.sound.accepted and self.weakened.accepted

    def describe(self) -> str:
        def said(verdict: Verdict) -> str:
            return "accepted" if verdict.accepted else f"rejected ({verdict.code})"

        return f"sound: {said(self.sound)}, weakened: {said(self.weakened)}"


@contextmanager
def own_adapters(root: Path) -> Iterator[None]:
    """Import the adapters of the project at ``root`` afresh, and forget them after."""
    names = [p.stem for p in root.glob("*_adapter.py")]
    saved = list(sys.path)
    for name in names:
        sys.modules.pop(name, None)
    try:
        yield
    finally:
        for name in names:
            sys.modules.pop(name, None)
        sys.path[:] = saved


def accepted_fixture(contract: Contract, name: str) -> Fixture:
    for fixture in fixtures_for(contract, ("accepted",)):
        if fixture.name == name:
            return fixture
    raise CatalogueError(f"{contract.tool}: no accepted fixture {name!r}")


def contract_object(contract: Contract, fixture: Fixture) -> Any:
    """What the contract's adapter makes of an accepted fixture (the fixture itself without one)."""
    document = json.loads(fixture.read())
    function = contract.adapter_function()
    if function is None:
        return document
    request = normalise_request(contract, fixture.request)
    return function(document, MappingProxyType(dict(request)))


def witness_document(sound: Scratch, witness: Witness) -> tuple[bytes, Fixture]:
    """The witness's bytes (built with the sound copy's adapter for a contract-shape witness) and
    the fixture it changes."""
    with own_adapters(sound.root):
        contract = load_contract(sound.directory)
        fixture = accepted_fixture(contract, witness.fixture)
        if witness.shape == "contract":
            if contract.adapter is None:
                raise CatalogueError(f"{contract.tool}: a contract-shape witness needs an adapter")
            base = contract_object(contract, fixture)
        else:
            base = json.loads(fixture.read())
    return json.dumps(witness.apply(base)).encode(), fixture


def judge(scratch: Scratch, raw: bytes, fixture: Fixture, shape: str) -> Verdict:
    """``raw`` through the boundary of the copy, with the fixture's request and clock."""
    with own_adapters(scratch.root):
        contract = load_contract(scratch.directory)
        target = contract.without_adapter() if shape == "contract" else contract
        return Boundary(target).check(raw, fixture.request, now=fixture.now or contract.default_now)


def judge_witness(sound: Scratch, weakened: Scratch, witness: Witness) -> WitnessVerdicts:
    raw, fixture = witness_document(sound, witness)
    return WitnessVerdicts(judge(sound, raw, fixture, witness.shape), judge(weakened, raw, fixture, witness.shape))
