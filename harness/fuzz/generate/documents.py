"""Hypothesis strategies of documents valid under a schema, as the production validator says.

``from_schema(schema)`` lowers the schema (:mod:`harness.fuzz.generate.lower`), builds a
``hypothesis_jsonschema`` strategy from the lowered form, and passes every value through the
production validator (``jsonschema-rs``, formats asserted): values it rejects are discarded,
never returned. :class:`GenerationStats` counts what was generated, discarded and unique, so
a caller can report the discard rate. With ``boundary_values=True`` each document may also have
a few values pushed to the edges of their constraints (:mod:`harness.fuzz.generate.edges`).

``sample(strategy, n)`` draws up to ``n`` values deterministically (derandomized, no example
database), for library code that wants values rather than a property test.
"""

from __future__ import annotations

import contextlib
import gc
import json
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from hypothesis_jsonschema import from_schema as _hj_from_schema

from harness.boundary.validator import SchemaValidator, validator_for
from harness.fuzz.generate.compile import compile_strategy
from harness.fuzz.generate.constants import exclude_own_modules
from harness.fuzz.generate.edges import with_boundary_values
from harness.fuzz.generate.lower import Lowered, lower
from harness.fuzz.generate.start import prime_global_random
from harness.fuzz.generate.unicode import ensure_utf8_table
from harness.internals import hypothesis_given_state, hypothesis_restore_given_state
from harness.schemas import Document
from harness.schemas.resolve import as_schema, expand


class OutOfTime(Exception):
    """Raised from inside a hypothesis run to stop it when its wall-clock budget is spent."""


_DEADLINE: ContextVar[float | None] = ContextVar("generation_deadline", default=None)


_FINALIZER_FILES = ("weakref.py", "_weakrefset.py")
_FINALIZER_NAMES = frozenset({"__del__", "remove", "_remove", "_remove_dead_weakref"})


_TIMER_ACTIVE = False  # true only inside time_budget, in the main thread
_ALARMS = 0  # OutOfTime raised by the timer so far


def _alarm(signum: int, frame: Any) -> None:
    if not _TIMER_ACTIVE:
        return  # a late signal after the budget ended: nothing to stop
    # An exception raised inside a finalizer (a weakref callback, a __del__) is swallowed by
    # the interpreter: the search would go on and a warning would be printed. Try again a
    # moment later, once back in ordinary code.
    if _in_finalizer(frame):
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return
    global _ALARMS
    _ALARMS += 1
    raise OutOfTime


def _in_finalizer(frame: Any) -> bool:
    """Is ``frame`` code whose exceptions the interpreter swallows: a ``__del__``, a weakref
    callback, a garbage-collector callback (these run wherever an allocation triggers them)?"""
    if frame is None:
        return True
    code = frame.f_code
    if code.co_name in _FINALIZER_NAMES or code.co_filename.endswith(_FINALIZER_FILES):
        return True
    return any(getattr(callback, "__code__", None) is code for callback in gc.callbacks)


def _out_of_time(exc: BaseException | None) -> bool:
    """Is :class:`OutOfTime` the exception or one it was raised while handling?"""
    seen = 0
    while exc is not None and seen < 16:
        if isinstance(exc, OutOfTime):
            return True
        exc, seen = exc.__context__, seen + 1
    return False


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Within the block, generation raises :class:`OutOfTime` once ``seconds`` have passed.

    In the main thread (the CLI, pytest and its xdist workers) a real-time interval timer
    interrupts even a single slow draw — hypothesis-jsonschema retries internally on ``not``
    and tight patterns — without changing what is drawn. Elsewhere the deadline is checked
    whenever a generated value is validated.
    """
    if seconds is None:
        yield
        return
    global _TIMER_ACTIVE
    token = _DEADLINE.set(time.monotonic() + seconds)
    use_timer = (
        not _TIMER_ACTIVE  # nested budgets: the outer timer already runs
        and threading.current_thread() is threading.main_thread()
        and hasattr(signal, "setitimer")
    )
    previous: Any = None
    given_state = hypothesis_given_state() if use_timer else None
    if use_timer:
        previous = signal.signal(signal.SIGALRM, _alarm)
        _TIMER_ACTIVE = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if use_timer:
            # In this order: a handler running now sees the budget over and neither raises nor
            # re-arms; then no timer is pending when the previous handler comes back.
            _TIMER_ACTIVE = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if given_state is not None:
                hypothesis_restore_given_state(given_state)
        _DEADLINE.reset(token)


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
            limit = _DEADLINE.get()
            if limit is not None and time.monotonic() > limit:
                raise OutOfTime  # stops the surrounding hypothesis run
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

    ``compiled`` builds the strategy once (:mod:`harness.fuzz.generate.compile`) instead of letting
    hypothesis-jsonschema rebuild object strategies at every draw.
    """
    ensure_utf8_table()
    exclude_own_modules()
    prime_global_random()
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
        model = Document(schema, base_uri=base_uri, resources=items)
        strategy = with_boundary_values(strategy, model, validator, counters)
    return strategy


def from_expanded(tree: Any, *, stats: GenerationStats | None = None,
                  boundary_values: bool = False, compiled: bool = False) -> st.SearchStrategy[Any]:
    """Documents valid under an expanded tree (:func:`harness.schemas.resolve.expand`)."""
    schema = as_schema(tree)
    validator = validator_for(schema)
    counters = stats if stats is not None else GenerationStats()
    strategy = from_lowered(lower(tree, expanded=True), validator, stats=counters, compiled=compiled)
    if boundary_values:
        strategy = with_boundary_values(strategy, Document(schema), validator, counters)
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




def sample(strategy: st.SearchStrategy[Any], n: int, *, seconds: float | None = None) -> list[Any]:
    """Up to ``n`` values of ``strategy``, the same ones on every run; at most about ``seconds``
    of generation (some schemas, e.g. with ``not``, generate slowly)."""
    found: list[Any] = []

    @quiet_settings(n)
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    # Fewer values than asked: all discarded, or the time budget ran out.
    alarms = _ALARMS
    try:
        with contextlib.suppress(HypothesisException, OutOfTime), time_budget(seconds):
            collect()
    except Exception as exc:
        # The alarm can land in hypothesis's own set-up or tear-down of the test, whose handlers
        # then trip over the interruption (an internal assertion, an unbound local), sometimes
        # after hypothesis caught the OutOfTime itself: that is the budget running out, not an
        # error of the schema.
        if not (_out_of_time(exc) or alarms != _ALARMS):
            raise
    return found
