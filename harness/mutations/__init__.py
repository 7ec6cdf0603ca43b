"""Near-miss mutations of accepted fixtures.

Importing this package registers the built-in operators in :data:`REGISTRY`, in the order
of the modules below (that order is also the catalogue's and the reports').
"""

from harness.mutations import structure, values, semantics, raw  # noqa: F401, I001 - registration order
from harness.mutations.context import MutationContext
from harness.mutations.registry import (
    CANARY_PREFIX,
    REGISTRY,
    Mutant,
    Operator,
    OperatorRegistry,
    canary_for,
    operator,
    sample,
)

__all__ = [
    "CANARY_PREFIX",
    "REGISTRY",
    "Mutant",
    "MutationContext",
    "Operator",
    "OperatorRegistry",
    "canary_for",
    "operator",
    "sample",
]
