"""The operator registry: each near-miss operator is one decorated function with metadata.

```python
@operator(layer=Layer.SCHEMA, structural=True, targets="every object", mandatory=True)
def add_extra_property(ctx: MutationContext) -> Iterator[Mutant]:
    \"\"\"An extra member, carrying a canary, in each object.\"\"\"
```

The function name is the registry key and the report label. The declaration drives the catalogue
(docs), the meta-tests and the expectation of every mutant the operator yields: an operator
yields bare mutants (where, how to build the bytes, what changed) naming one of its declared
:class:`Variant` s, and the registry fills in the layers that must stop each one and the code
it must carry. An operator with one expectation declares it inline (``layer=``, ``code=``,
``also=``, ``structural=``); one with several declares ``variants=``.
Registries are objects: tests make fresh ones instead of resetting a global.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from harness.codes import LAYER_ORDER, Layer
from harness.frozen import fast_frozen
from harness.registry import Registry

if TYPE_CHECKING:
    from harness.contract import Contract
    from harness.mutations.context import MutationContext

CANARY_PREFIX = "hx-canary-"
#: The modules declaring the built-in operators, in catalogue (and report) order.
OPERATOR_MODULES = (
    "harness.mutations.structure",
    "harness.mutations.values",
    "harness.mutations.semantics",
    "harness.mutations.raw",
)
#: In a declared code, the mutant's ``note`` (``binding.{note}``: the binding's name).
NOTE = "{note}"


@fast_frozen
@dataclass(frozen=True, slots=True)
class Mutant:
    """One near miss: how it was made, what must reject it, and how to build its bytes.

    An operator sets ``variant`` (one its declaration names; ``""`` for an operator with one
    expectation); ``layers`` and ``code`` are filled in from the declaration. ``build`` is
    called only for mutants that survive sampling, so a huge payload costs one serialisation
    per *selected* mutant.
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
    #: Operator detail, e.g. the binding a ``break_binding`` mutant breaks.
    note: str = ""
    variant: str = ""

    @property
    def label(self) -> str:
        return f"{self.operator}@{self.pointer or '/'}"


@fast_frozen
@dataclass(frozen=True, slots=True)
class DeferredMutant:
    """A mutant described before it is built: what the registry checks and sampling needs (its
    variant, whether it is absorbable), and ``make``, which builds it — called only for the
    mutants sampling keeps. An operator with many targets yields these instead of
    :class:`Mutant` s, so a fixture's hundred candidates cost little when eight are kept; what
    ``make`` returns must name the same variant and absorbability."""

    make: Callable[[], Mutant] = field(repr=False, compare=False)
    variant: str = ""
    absorbable: bool = False
    #: Where the mutant will be (its :attr:`Mutant.pointer`): what coverage sampling needs.
    pointer: str = ""


@dataclass(frozen=True, slots=True)
class Variant:
    """What must stop one kind of mutant of an operator.

    ``layer`` must reject it, with ``code`` when given (``{note}`` in it stands for the
    mutant's note); ``also`` are layers that may stop it first (a ``const`` in the schema
    catching a wrong tool name). A ``structural`` near miss, in the raw document of a tool with
    an adapter, may instead be stopped by the adapter's output check, or absorbed by the adapter
    (accepted, nothing reaching the agent: the mutant says ``absorbable``); only structural
    variants may be absorbable. An ``optional`` near miss is one the contract may allow (a member
    no schema requires, removed): accepted with nothing leaking passes, rejected by ``layer``
    passes, but the schema accepting it and a later layer rejecting it is a contract gap (the
    schema lets through what the contract cannot take).
    """

    layer: Layer
    code: str | None = None
    also: tuple[Layer, ...] = ()
    structural: bool = False
    optional: bool = False
    #: What to change in the contract when a near miss of this variant gets through (a
    #: ``contract_gap`` or a ``missed``), as one line: ``{pointer}`` is where the mutant is,
    #: ``{schema}`` what judged it (``v<N>``, ``vendor``), ``{note}`` the mutant's note. The
    #: report prints it, with the check waiver to paste for a finding kept on purpose.
    fix: str = ""

    def layers_for(self, contract: Contract) -> tuple[Layer, ...]:
        """Where a mutant of this variant must be stopped for ``contract``, in pipeline order."""
        adapted = contract.adapter is not None
        # Kept by the variant's identity (hashing its fields, a Layer among them, costs more than
        # the answer), with the variant itself, so a reused id never answers for another one.
        found = _LAYERS.get((id(self), adapted))
        if found is None or found[0] is not self:
            found = _LAYERS[(id(self), adapted)] = (self, _layers(self, adapted))
        return found[1]

    def code_for(self, mutant: Mutant) -> str | None:
        return None if self.code is None else self.code.replace(NOTE, mutant.note)

    def fix_for(self, mutant: Mutant, schema: str, field_name: str | None = None) -> str:
        """The declared fix, filled in for one mutant judged by ``schema`` (``field_name``: the
        field its pointer is a value of, when it is known)."""
        if not self.fix:
            return ""
        return self.fix.format(pointer=(mutant.pointer if field_name is None else field_name) or "/", schema=schema,
                               note=mutant.note)

    @property
    def catalogue_code(self) -> str | None:
        """The code as the catalogue shows it (``binding.<note>``)."""
        return None if self.code is None else self.code.replace(NOTE, "<note>")


_LAYERS: dict[tuple[int, bool], tuple[Variant, tuple[Layer, ...]]] = {}


def _layers(variant: Variant, adapted: bool) -> tuple[Layer, ...]:
    """:meth:`Variant.layers_for` a contract with an adapter (``adapted``) or without one."""
    layers = {variant.layer, *variant.also}
    if variant.structural and adapted:
        layers.add(Layer.ADAPTER)
    return tuple(layer for layer in LAYER_ORDER if layer in layers)


@dataclass(frozen=True, slots=True)
class Operator:
    """A registered operator: its function and the declaration that drives its mutants.

    ``variants`` maps each variant name to its :class:`Variant` (the one variant of a plain
    operator is named ``""``); with ``labelled``, a mutant's variant name ends its case label
    (``stretch_string@/data/name~huge``), because one target gets a mutant of each.
    ``typical_code`` is what the schema layer usually answers (its code names the keyword of
    the user's schema that rejected, which no operator can know): shown in the catalogue,
    never required.
    """

    name: str
    func: Callable[[MutationContext], Iterable[Mutant | DeferredMutant]] = field(repr=False)
    variants: Mapping[str, Variant]
    targets: str
    summary: str
    mandatory: bool
    labelled: bool = False
    typical_code: str | None = None

    @property
    def layer(self) -> Layer:
        """The layer that must reject this operator's (first variant's) mutants."""
        return next(iter(self.variants.values())).layer

    @property
    def code(self) -> str | None:
        """The code its (first variant's) mutants must carry, else the typical code."""
        return next(iter(self.variants.values())).code or self.typical_code

    def label(self, mutant: Mutant) -> str:
        """The mutant's case label: ``operator@pointer``, plus ``~variant`` when labelled."""
        return mutant.label + (f"~{mutant.variant}" if self.labelled and mutant.variant else "")

    def __call__(self, ctx: MutationContext) -> Iterator[Mutant]:
        """The operator's mutants for one fixture, each with the expectation its variant declares."""
        for mutant in self.bare(ctx):
            yield self.expected(mutant, ctx)

    def bare(self, ctx: MutationContext) -> Iterator[Mutant | DeferredMutant]:
        """The operator's mutants as it yields them (each naming a variant it declares; a
        :class:`DeferredMutant` not built yet), before their expectations are filled in: what
        sampling chooses among."""
        for mutant in self.func(ctx):
            variant = self.variants.get(mutant.variant)
            if variant is None:
                raise ValueError(f"operator {self.name!r} yielded variant {mutant.variant!r}, which it does "
                                 f"not declare (declared: {', '.join(map(repr, self.variants))})")
            if mutant.absorbable and not variant.structural:
                raise ValueError(f"operator {self.name!r}: only a structural variant may be absorbable")
            yield mutant

    def expected(self, mutant: Mutant | DeferredMutant, ctx: MutationContext) -> Mutant:
        """A bare mutant of this operator (built, if it was a :class:`DeferredMutant`) with the
        expectation its variant declares."""
        if isinstance(mutant, DeferredMutant):
            built = mutant.make()
            if (built.variant, built.absorbable) != (mutant.variant, mutant.absorbable):
                raise ValueError(f"operator {self.name!r} built a {built.variant!r} mutant (absorbable: "
                                 f"{built.absorbable}) it described as {mutant.variant!r} ({mutant.absorbable})")
            mutant = built
        variant = self.variants[mutant.variant]
        # Made field by field (``dataclasses.replace`` costs several times as much, per kept mutant).
        return Mutant(mutant.operator, mutant.pointer, mutant.build, mutant.original, mutant.mutated,
                      variant.layers_for(ctx.contract), variant.code_for(mutant),
                      mutant.absorbable or variant.optional, mutant.canary, mutant.note, mutant.variant)


class OperatorRegistry(Registry[Operator]):
    """Operators by name, in registration order; the package's are in :data:`REGISTRY`."""

    def __init__(self, modules: Iterable[str] = ()) -> None:
        super().__init__("operator", modules=modules, unknown_code="usage.invalid")

    def register(
        self,
        *,
        targets: str,
        layer: Layer | None = None,
        code: str | None = None,
        also: tuple[Layer, ...] = (),
        structural: bool = False,
        optional: bool = False,
        fix: str = "",
        variants: Mapping[str, Variant] | None = None,
        labelled: bool = False,
        typical_code: str | None = None,
        mandatory: bool = False,
    ) -> Callable[[Callable[[MutationContext], Iterable[Mutant | DeferredMutant]]], Operator]:
        """Register the decorated function as an operator named after it.

        Either ``layer`` (with ``code``, ``also``, ``structural``, ``optional``, ``fix``) for an
        operator with one expectation, or ``variants`` for one with several; never both.
        """
        if (layer is None) == (variants is None):
            raise ValueError("declare an operator's expectation with layer=... or variants=..., not both")
        if variants is None:
            assert layer is not None
            variants = {"": Variant(layer, code, also, structural, optional, fix)}
        elif not variants or "" in variants:
            raise ValueError("variants need names")
        declared = MappingProxyType(dict(variants))

        def decorate(func: Callable[[MutationContext], Iterable[Mutant | DeferredMutant]]) -> Operator:
            name = func.__name__
            doc = (func.__doc__ or "").strip().splitlines()
            if not doc:
                raise ValueError(f"operator {name!r} needs a one-line docstring")
            return self.add(Operator(name, func, declared, targets, doc[0], mandatory, labelled, typical_code))

        return decorate

    def mandatory(self) -> list[str]:
        return [op.name for op in self if op.mandatory]

    def generate(self, ctx: MutationContext, max_mutants: int | None = None,
                 only: Iterable[str] | None = None, *, coverage: Coverage | None = None,
                 layer: Layer | None = None) -> list[Mutant]:
        """Every operator's mutants for one fixture, sampled to ``max_mutants``.

        With ``coverage`` (one per contract and kind of document, shared by its fixtures), every
        agent-visible field (:meth:`MutationContext.agent_field`) gets a mutant of each operator
        class (an operator's variant) that applies to it, once per contract, whatever the cap:
        the cap trims the rest (redundancy), never those. ``layer``: only mutants a variant
        expects that layer to stop."""
        wanted = set(only) if only is not None else None
        # Mandatory operators are dealt first: when the cap is tight, they are the ones kept.
        dealing = sorted((op for op in self if wanted is None or op.name in wanted), key=lambda op: not op.mandatory)
        if coverage is not None:
            return self._covering(ctx, dealing, max_mutants, coverage, layer)
        groups: dict[str, list[Mutant | DeferredMutant]] = {}
        rests: dict[str, Iterator[Mutant | DeferredMutant]] = {}
        filled = 0
        for op in dealing:
            if max_mutants is not None and filled >= max_mutants:
                # The first round of dealing gives each of the first max_mutants operators with a
                # mutant one, and ends the sample: the operators after them would get none.
                break
            mutants = _stopped_by(op, op.bare(ctx), ctx, layer)
            first = next(mutants, None)
            groups[op.name] = [] if first is None else [first]
            rests[op.name] = mutants
            filled += first is not None
        if max_mutants is None or filled < max_mutants:
            # Fewer operators with a mutant than the cap: some get more than one, spread over all
            # of theirs. Otherwise each dealt operator gets one, its first (see :func:`sample`):
            # the others are never made.
            for name, mutants in rests.items():
                groups[name].extend(mutants)
        picked = {id(m) for m in sample(list(groups.values()), max_mutants)}
        # Only the mutants kept get their expectations (and, when run, their bytes), in
        # registration order.
        return [op.expected(m, ctx) for op in self if op.name in groups for m in groups[op.name] if id(m) in picked]

    def _covering(self, ctx: MutationContext, dealing: list[Operator], max_mutants: int | None,
                  coverage: Coverage, layer: Layer | None) -> list[Mutant]:
        """:meth:`generate` with coverage: the mutants that probe a field and operator class no
        earlier fixture of the contract probed are kept, then the cap's remainder is sampled
        from the others."""
        groups = {op.name: list(_stopped_by(op, op.bare(ctx), ctx, layer)) for op in dealing}
        required: set[int] = set()
        for op in dealing:
            for mutant in groups[op.name]:
                found = ctx.agent_field(mutant.pointer)
                if found is not None and coverage.probe(found, op.name, mutant.variant):
                    required.add(id(mutant))
        rest = [[m for m in groups[op.name] if id(m) not in required] for op in dealing]
        cap = None if max_mutants is None else max(0, max_mutants - len(required))
        if max_mutants is not None:
            coverage.added += max(0, len(required) - max_mutants)
        picked = required | {id(m) for m in sample(rest, cap)}
        return [op.expected(m, ctx) for op in self if op.name in groups for m in groups[op.name] if id(m) in picked]


@dataclass
class Coverage:
    """Which agent-visible fields of one contract near misses probed, with which operator
    classes (an operator, or one variant of a labelled operator), over its fixtures; and how
    many mutants that coverage kept past ``--max-mutants``."""

    pairs: set[tuple[str, str, str]] = field(default_factory=set)
    added: int = 0

    def probe(self, field_name: str, operator_name: str, variant: str) -> bool:
        """Record a probe of ``field_name`` by that operator class: True when it is the first."""
        key = (field_name, operator_name, variant)
        if key in self.pairs:
            return False
        self.pairs.add(key)
        return True

    @property
    def fields(self) -> int:
        return len({f for f, _, _ in self.pairs})

    @property
    def classes(self) -> int:
        return len({(o, v) for _, o, v in self.pairs})


def _stopped_by(op: Operator, mutants: Iterator[Mutant | DeferredMutant], ctx: MutationContext,
                layer: Layer | None) -> Iterator[Mutant | DeferredMutant]:
    """The mutants whose variant expects ``layer`` to stop them (all of them without one)."""
    if layer is None:
        return mutants
    return (m for m in mutants if layer in op.variants[m.variant].layers_for(ctx.contract))


_M = TypeVar("_M")


def _spread(items: list[_M], count: int) -> list[_M]:
    """``count`` items evenly spaced over ``items``, first and last included."""
    if count >= len(items):
        return items
    if count == 1:
        return [items[0]]
    step = (len(items) - 1) / (count - 1)
    return [items[round(i * step)] for i in range(count)]


def sample(per_operator: list[list[_M]], cap: int | None) -> list[_M]:
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


#: The operators this package ships, loaded from :data:`OPERATOR_MODULES` on first read.
REGISTRY = OperatorRegistry(OPERATOR_MODULES)
operator = REGISTRY.register
