"""Near-miss mutations of accepted fixtures.

The built-in operators are declared in :mod:`~harness.mutations.structure`,
:mod:`~harness.mutations.values`, :mod:`~harness.mutations.semantics` and
:mod:`~harness.mutations.raw`; :data:`REGISTRY` names those modules and imports them on first
read, in that order (the catalogue's and the reports').
"""

from harness.mutations.context import MutationContext
from harness.mutations.registry import (
    CANARY_PREFIX,
    REGISTRY,
    Coverage,
    DeferredMutant,
    Mutant,
    Operator,
    OperatorRegistry,
    Variant,
    canary_for,
    operator,
    sample,
)

__all__ = [
    "CANARY_PREFIX",
    "REGISTRY",
    "Coverage",
    "DeferredMutant",
    "Mutant",
    "MutationContext",
    "Operator",
    "OperatorRegistry",
    "Variant",
    "canary_for",
    "operator",
    "sample",
]
