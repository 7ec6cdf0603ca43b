"""Hypothesis strategies of documents valid under a schema, as the production validator says.

``from_schema(schema)`` lowers the schema (:mod:`harness.schemas.lower`), builds a
``hypothesis_jsonschema`` strategy from the lowered form, and passes every value through the
production validator (``jsonschema-rs``, formats asserted): values it rejects are discarded,
never returned. :class:`GenerationStats` counts what was generated, discarded and unique, so
a caller can report the discard rate. With ``boundary_values=True`` each document may also have
a few values pushed to the edges of their constraints (:mod:`harness.schemas.boundary`).

``sample(strategy, n)`` draws up to ``n`` values deterministically (derandomized, no example
database), for library code that wants values rather than a property test.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from hypothesis_jsonschema import from_schema as _hj_from_schema

from harness.boundary.schema import SchemaValidator, validator_for
from harness.schemas.boundary import with_boundary_values
from harness.schemas.compile import compile_strategy
from harness.schemas.lower import Lowered, lower
from harness.schemas.resolve import as_schema, expand


@dataclass(slots=True)
class GenerationStats:
    """Counters of one strategy: values generated, discarded as invalid, and distinct; and,
    with boundary values, documents that kept one and those whose edge was refused."""

    generated: int = 0
    discarded: int = 0
    boundary: int = 0
    boundary_invalid: int = 0
    _seen: set[str] = field(default_factory=set, repr=False)

    @property
    def valid(self) -> int:
        return self.generated - self.discarded

    @property
    def unique(self) -> int:
        return len(self._seen)

    @property
    def discard_rate(self) -> float:
        return self.discarded / self.generated if self.generated else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated": self.generated,
            "discarded": self.discarded,
            "unique": self.unique,
            "discard_rate": round(self.discard_rate, 4),
            "boundary": self.boundary,
            "boundary_invalid": self.boundary_invalid,
        }

    def _keep(self, is_valid: Callable[[Any], bool]) -> Callable[[Any], bool]:
        def check(value: Any) -> bool:
            self.generated += 1
            try:
                ok = is_valid(value)
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                self.discarded += 1
                return False
            self._seen.add(json.dumps(value, sort_keys=True, default=str))
            return True

        return check


class GenerationError(Exception):
    """hypothesis-jsonschema cannot build a strategy for this (lowered) schema."""


def from_lowered(
    lowered: Lowered,
    validator: SchemaValidator,
    *,
    stats: GenerationStats | None = None,
    compiled: bool = False,
) -> st.SearchStrategy[Any]:
    """A strategy from an already lowered schema, filtered by ``validator``.

    ``compiled`` builds the strategy once (:mod:`harness.schemas.compile`) instead of letting
    hypothesis-jsonschema rebuild object strategies at every draw.
    """
    try:
        base = compile_strategy(lowered.schema) if compiled else _hj_from_schema(lowered.schema)
    except (HypothesisException, ValueError, TypeError, KeyError) as exc:  # pragma: no cover - rare
        raise GenerationError(f"cannot generate from the lowered schema: {exc}") from None
    counters = stats if stats is not None else GenerationStats()
    return base.filter(counters._keep(validator.is_valid))


def from_schema(
    schema: Any,
    *,
    validator: SchemaValidator | None = None,
    base_uri: str | None = None,
    resources: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    stats: GenerationStats | None = None,
    boundary_values: bool = False,
    compiled: bool = False,
) -> st.SearchStrategy[Any]:
    """Documents valid under ``schema`` (Draft 2020-12 or the dialect it declares).

    ``validator`` is the production validator to hold every value to (compiled from
    ``schema``, ``base_uri`` and ``resources`` when not given). Pass ``stats`` to count
    generated and discarded values; ``boundary_values`` to push some values to the edges of
    their constraints; ``compiled`` to build the strategy once (see :func:`from_lowered`).
    """
    items = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
    if validator is None:
        validator = validator_for(schema, resources=items, base_uri=base_uri)
    expanded = expand(schema, base_uri=base_uri, resources=items)
    counters = stats if stats is not None else GenerationStats()
    strategy = from_lowered(lower(expanded), validator, stats=counters, compiled=compiled)
    if boundary_values:
        strategy = with_boundary_values(strategy, expanded.schema, validator, counters)
    return strategy


def from_expanded(tree: Any, *, stats: GenerationStats | None = None,
                  boundary_values: bool = False, compiled: bool = False) -> st.SearchStrategy[Any]:
    """Documents valid under an expanded tree (:func:`harness.schemas.resolve.expand`)."""
    validator = validator_for(as_schema(tree))
    counters = stats if stats is not None else GenerationStats()
    strategy = from_lowered(lower(tree, expanded=True), validator, stats=counters, compiled=compiled)
    if boundary_values:
        strategy = with_boundary_values(strategy, tree, validator, counters)
    return strategy


#: Settings for library code: deterministic, no example database, no health checks (the
#: callers measure discards themselves), no deadline.
def quiet_settings(max_examples: int, *, shrink: bool = False) -> settings:
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


def sample(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """Up to ``n`` values of ``strategy``, the same ones on every run."""
    found: list[Any] = []

    @quiet_settings(n)
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    with contextlib.suppress(HypothesisException):  # fewer values than asked (all discarded)
        collect()
    return found
