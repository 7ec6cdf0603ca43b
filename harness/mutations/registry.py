"""The operator registry: each near-miss operator is one decorated function with metadata.

```python
@operator(layer=Layer.SCHEMA, code="schema.additionalProperties", targets="every object",
          mandatory=True)
def add_extra_property(ctx: MutationContext) -> Iterator[Mutant]:
    \"\"\"An extra member, carrying a canary, in each object.\"\"\"
```

The function name is the registry key and the report label. Metadata drives the catalogue
(docs), the meta-tests and the default expectation of every mutant the operator yields.
Registries are objects: tests make fresh ones instead of resetting a global.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.codes import Layer

if TYPE_CHECKING:
    from harness.mutations.context import MutationContext

CANARY_PREFIX = "hx-canary-"


@dataclass(frozen=True, slots=True)
class Mutant:
    """One near miss: how it was made, what must reject it, and how to build its bytes.

    ``build`` is called only for mutants that survive sampling, so a huge payload costs
    one serialisation per *selected* mutant.
    """

    operator: str
    pointer: str
    build: Callable[[], bytes] = field(repr=False, compare=False)
    original: str = ""
    mutated: str = ""
    layers: tuple[Layer, ...] = ()
    code: str | None = None
    #: For tools with an adapter: a change the adapter may absorb (accepted, nothing leaks).
    absorbable: bool = False
    canary: str | None = None
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.operator}@{self.pointer or '/'}"


@dataclass(frozen=True, slots=True)
class Operator:
    name: str
    func: Callable[[MutationContext], Iterable[Mutant]] = field(repr=False)
    layer: Layer
    code: str | None
    targets: str
    summary: str
    mandatory: bool

    def __call__(self, ctx: MutationContext) -> Iterator[Mutant]:
        yield from self.func(ctx)


class OperatorRegistry:
    """Operators by name, in registration order."""

    def __init__(self) -> None:
        self._operators: dict[str, Operator] = {}

    def register(
        self,
        *,
        layer: Layer,
        targets: str,
        code: str | None = None,
        mandatory: bool = False,
    ) -> Callable[[Callable[[MutationContext], Iterable[Mutant]]], Operator]:
        def decorate(func: Callable[[MutationContext], Iterable[Mutant]]) -> Operator:
            name = func.__name__
            if name in self._operators:
                raise ValueError(f"operator {name!r} is already registered")
            doc = (func.__doc__ or "").strip().splitlines()
            if not doc:
                raise ValueError(f"operator {name!r} needs a one-line docstring")
            op = Operator(name, func, layer, code, targets, doc[0], mandatory)
            self._operators[name] = op
            return op

        return decorate

    def __iter__(self) -> Iterator[Operator]:
        return iter(self._operators.values())

    def __len__(self) -> int:
        return len(self._operators)

    def __getitem__(self, name: str) -> Operator:
        return self._operators[name]

    def __contains__(self, name: object) -> bool:
        return name in self._operators

    def names(self) -> list[str]:
        return list(self._operators)

    def mandatory(self) -> list[str]:
        return [op.name for op in self if op.mandatory]

    def generate(self, ctx: MutationContext, max_mutants: int | None = None,
                 only: Iterable[str] | None = None) -> list[Mutant]:
        """Every operator's mutants for one fixture, sampled to ``max_mutants``."""
        wanted = set(only) if only is not None else None
        groups = {op.name: list(op(ctx)) for op in self if wanted is None or op.name in wanted}
        # Mandatory operators are dealt first: when the cap is tight, they are the ones kept.
        dealing = sorted(groups, key=lambda name: not self[name].mandatory)
        picked = {id(m) for m in sample([groups[name] for name in dealing], max_mutants)}
        return [m for group in groups.values() for m in group if id(m) in picked]


def _spread(items: list[Mutant], count: int) -> list[Mutant]:
    """``count`` items evenly spaced over ``items``, first and last included."""
    if count >= len(items):
        return items
    if count == 1:
        return [items[0]]
    step = (len(items) - 1) / (count - 1)
    return [items[round(i * step)] for i in range(count)]


def sample(per_operator: list[list[Mutant]], cap: int | None) -> list[Mutant]:
    """Deterministically cap the mutants of one fixture.

    Shares are dealt round-robin, one per operator per round, in the order given (so with a
    cap below the number of operators, the first operators are kept); each operator's share is
    spread evenly over its targets, so every depth of a large document is still reached.
    """
    groups = [g for g in per_operator if g]
    if cap is None or sum(map(len, groups)) <= cap:
        return [m for g in groups for m in g]
    shares = [0] * len(groups)
    remaining = cap
    while remaining:
        progressed = False
        for i, group in enumerate(groups):
            if remaining and shares[i] < len(group):
                shares[i] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            break
    return [m for group, share in zip(groups, shares, strict=True) for m in _spread(group, share)]


def canary_for(*parts: Any) -> str:
    """A deterministic canary string, unique per mutant: ``hx-canary-<10 hex>``."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:10]
    return CANARY_PREFIX + digest


REGISTRY = OperatorRegistry()
operator = REGISTRY.register
