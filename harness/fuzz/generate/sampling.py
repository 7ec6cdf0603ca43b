"""Sampling: the same hypothesis strategies, drawn from a seeded PRNG.

hypothesis records every choice it makes so that it can shrink them: about 70 µs a choice on a
2-core CI machine, so a document of a few dozen choices costs milliseconds before a property
runs, and an API-sized one a second. A :class:`Sampler` draws a value from the *same strategy
objects* — the compiled schema strategies, the pattern and format generators, boundary values,
the binding composites, hypothesis-jsonschema's scalars — with a ``random.Random``: composites
are called with the sampler's own ``draw``; maps, filters, ``one_of``, lists, unique lists,
fixed dictionaries, tuples, ``builds``, ``sampled_from``/``just``, integers, floats, text,
characters, bytes, booleans, ``recursive``, ``shared``, ``deferred`` and lazy strategies are
interpreted here; any other strategy (or a subclass that draws differently from the class it
extends) is drawn by hypothesis itself, so a value is never drawn *wrongly*, only more slowly.
Every document is still re-validated by the production validator where it always was (the
filter :func:`~harness.fuzz.generate.documents.from_lowered` puts on it).

:func:`draw_sampled` is one value: hypothesis draws a 64-bit seed (its single choice for the
value) and the value is sampled from it; a sample that trips a filter or an ``assume`` is drawn
again from the same stream, up to :data:`ATTEMPTS` times, then the example is rejected.
:func:`batches` samples :data:`BATCH` values from one seed, each from its own stream, as the
fuzz runner samples its examples (hypothesis's own cost per example, 1-2 ms, then paid once per
batch). Seed 0, hypothesis's first, samples its first value with every choice at its simplest.

The cost is structural shrinking: hypothesis can shrink the seed, not the document. The fuzz
runner therefore searches by sampling and, when a property fails, searches again with
hypothesis's own generation (inside :func:`native`, where :func:`draw_sampled` is a plain
``draw``), which shrinks what it finds (docs/fuzz.md, "Sampling").
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import UnsatisfiedAssumption

from harness.internals import hypothesis_sampled_transforms, hypothesis_scalar_draws, hypothesis_strategies

_HYPOTHESIS = hypothesis_strategies()
_collections, _core, _deferred, _flatmapped = (_HYPOTHESIS.collections, _HYPOTHESIS.core, _HYPOTHESIS.deferred,
                                               _HYPOTHESIS.flatmapped)
_lazy, _misc, _numbers, _recursive = _HYPOTHESIS.lazy, _HYPOTHESIS.misc, _HYPOTHESIS.numbers, _HYPOTHESIS.recursive
_shared, _strategies, _strings = _HYPOTHESIS.shared, _HYPOTHESIS.strategies, _HYPOTHESIS.strings
COLLECTION_DEFAULT_MAX_SIZE = _HYPOTHESIS.COLLECTION_DEFAULT_MAX_SIZE

#: Samples of one value drawn from one seed before the example is rejected.
ATTEMPTS = 8
#: Values sampled per hypothesis example where several are wanted (:func:`batches`; the fuzz
#: runner checks this many examples per hypothesis example): hypothesis's own cost per example
#: (1-2 ms on a 2-core CI machine) is then paid once per batch.
BATCH = 8
#: Draws of a filtered strategy before the sample is given up (hypothesis tries 3 times).
FILTER_TRIES = 5
#: The seed hypothesis draws per sampled value: its only choice, and what it shrinks.
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

_NATIVE: ContextVar[bool] = ContextVar("native_generation", default=False)


@contextmanager
def native() -> Iterator[None]:
    """Within the block, :func:`draw_sampled` leaves every draw to hypothesis (which shrinks)."""
    token = _NATIVE.set(True)
    try:
        yield
    finally:
        _NATIVE.reset(token)


def is_native() -> bool:
    return _NATIVE.get()


class Simplest(random.Random):
    """A stream of the simplest choices: what hypothesis's first example of a run is made of
    (every choice at its minimum). Seed 0, the first seed hypothesis draws, samples with it, so
    a sampled run starts from the simplest document too."""

    def random(self) -> float:
        return 0.0

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return 0 if stop is None else start

    def randint(self, a: int, b: int) -> int:
        return a

    def getrandbits(self, k: int) -> int:
        return 0

    def randbytes(self, n: int) -> bytes:
        return bytes(n)

    def shuffle(self, x: Any) -> None:
        return None

    def choice(self, seq: Any) -> Any:
        return seq[0]

    def uniform(self, a: float, b: float) -> float:
        return a


def stream(seed: int, index: int = 0) -> random.Random:
    """The choices of the ``index``-th value sampled from ``seed``: :class:`Simplest` for the
    first from seed 0, else a PRNG seeded with both (each pair its own stream)."""
    if seed == 0 and index == 0:
        return Simplest()
    return random.Random(seed if index == 0 else (seed << 16) + index)


class Sampler:
    """Draws values of hypothesis strategies from ``rng``; ``fallback`` draws the rest.

    Scalars come from hypothesis's own distributions (its ``HypothesisProvider``, driven by
    ``rng``: the same integers, floats, constants of the code under test — a NUL byte, a BOM —
    and characters in the same shrink order), so sampled values reach hypothesis's edges about
    as often as native ones; what is left out is the recording of every choice.
    """

    __slots__ = ("_constant", "_integer", "_limits", "_shared", "fallback", "minimal", "provider", "rng")

    def __init__(self, rng: random.Random, fallback: Callable[[Any], Any]) -> None:
        self.rng = rng
        #: Every choice at its simplest (a :class:`Simplest` stream).
        self.minimal = isinstance(rng, Simplest)
        self.fallback = fallback
        self._shared: dict[Any, Any] = {}
        self._limits: dict[int, int] = {}
        draws = hypothesis_scalar_draws(rng)
        self.provider, self._constant, self._integer = draws.provider, draws.constant, draws.integer

    def reset(self) -> None:
        """Forget what one sample shared (``st.shared``), before the next attempt."""
        self._shared.clear()
        self._limits.clear()

    def draw(self, strategy: Any) -> Any:
        handler = _handler(type(strategy))
        return self.fallback(strategy) if handler is None else handler(self, strategy)

    # ------------------------------------------------------------------ sizes and scalars
    def count(self, low: int, high: float, average: float) -> int:
        """A collection size in ``[low, high]`` whose mean is about ``average`` (geometric above
        ``low``, as hypothesis's ``many`` draws it)."""
        size = low
        extra = max(average - low, 0.0)
        stop = 1.0 - extra / (extra + 1.0)  # go on with probability p = 1 - stop (never, simplest)
        random_ = self.rng.random
        while size < high and random_() >= stop:
            size += 1
        return size

    def boolean(self) -> bool:
        return self.rng.random() >= 0.5

    def constant(self, kind: str, constraints: dict[str, Any]) -> Any:
        """Now and then (5%) one of hypothesis's constants for ``kind`` that fit, else None."""
        if self.minimal:
            return None
        return self._constant(kind, constraints)

    def integer(self, low: int | None, high: int | None, weights: dict[int, float] | None = None) -> int:
        if self.minimal:  # hypothesis's simplest integer: 0, or the bound nearest it
            value = 0 if low is None else max(0, low)
            return value if high is None else min(value, high)
        found = self.constant("integer", {"min_value": low, "max_value": high, "weights": weights,
                                          "shrink_towards": 0})
        if found is not None:
            return int(found)
        if weights:
            r = self.rng.random()
            for value, p in weights.items():
                if r < p:
                    return value
                r -= p
        return int(self._integer(low, high))

    def string(self, intervals: Any, low: int, high: int) -> str:
        if not len(intervals):
            if low:
                raise UnsatisfiedAssumption("sampling")
            return ""
        found = self.constant("string", {"intervals": intervals, "min_size": low, "max_size": high})
        if found is not None:
            return str(found)
        size = self.count(low, high, min(max(low * 2, low + 5), 0.5 * (low + high)))
        if not size:
            return ""
        many, random_ = len(intervals), self.rng.random
        simplest = _simplest_characters(intervals)
        if many <= 256:
            return "".join(simplest[int(random_() * many)] for _ in range(size))
        # As hypothesis draws: one of the 256 simplest characters four times in five, else any
        # other (one random number per character picks the part and the place in it).
        char, rest = intervals.char_in_shrink_order, many - 256
        return "".join(simplest[int(r * 320)] if (r := random_()) < 0.8 else char(256 + int((r - 0.8) * 5 * rest))
                       for _ in range(size))


_SIMPLEST: dict[Any, str] = {}


def _simplest_characters(intervals: Any) -> str:
    """The first 256 characters of ``intervals`` in hypothesis's shrink order (kept per set)."""
    key = intervals.intervals
    found = _SIMPLEST.get(key)
    if found is None:
        if len(_SIMPLEST) > 1024:
            _SIMPLEST.clear()
        found = _SIMPLEST[key] = "".join(intervals.char_in_shrink_order(i) for i in range(min(256, len(intervals))))
    return found


# ---------------------------------------------------------------------- handlers


def _sampled_from(sampler: Sampler, s: Any) -> Any:
    elements = s.elements
    transforms = hypothesis_sampled_transforms(s)
    rng = sampler.rng
    if not transforms:
        return elements[rng.randrange(len(elements))]
    order: list[int] | None = None
    for attempt in range(len(elements)):
        if attempt < 3:
            index = rng.randrange(len(elements))
        else:  # as hypothesis does after three misses: try every element once, in some order
            if order is None:
                order = list(range(len(elements)))
                rng.shuffle(order)
            if attempt - 3 >= len(order):
                break
            index = order[attempt - 3]
        value = _transform(elements[index], transforms)
        if value is not _FILTERED:
            return value
    raise UnsatisfiedAssumption("sampling")


_FILTERED = object()


def _transform(value: Any, transforms: Any) -> Any:
    for name, function, _location in transforms:
        if name == "map":
            value = function(value)
        elif not function(value):
            return _FILTERED
    return value


def _one_of(sampler: Sampler, s: Any) -> Any:
    branches = s.element_strategies
    if not branches:
        raise UnsatisfiedAssumption("sampling")
    return sampler.draw(branches[sampler.rng.randrange(len(branches))])


def _mapped(sampler: Sampler, s: Any) -> Any:
    return s.pack(sampler.draw(s.mapped_strategy))


def _filtered(sampler: Sampler, s: Any) -> Any:
    conditions = s.flat_conditions
    for _ in range(FILTER_TRIES):
        value = sampler.draw(s.filtered_strategy)
        if all(condition(value) for condition in conditions):
            return value
    raise UnsatisfiedAssumption("sampling")


def _flat_mapped(sampler: Sampler, s: Any) -> Any:
    return sampler.draw(s.expand(sampler.draw(s.base)))


def _composite(sampler: Sampler, s: Any) -> Any:
    return s.definition(sampler.draw, *s.args, **s.kwargs)


def _builds(sampler: Sampler, s: Any) -> Any:
    args = [sampler.draw(a) for a in s.args]
    kwargs = {k: sampler.draw(v) for k, v in s.kwargs.items()}
    return s.target(*args, **kwargs)


def _wrapped(sampler: Sampler, s: Any) -> Any:
    return sampler.draw(s.wrapped_strategy)


def _shared_draw(sampler: Sampler, s: Any) -> Any:
    key = s.key if s.key is not None else s
    if key not in sampler._shared:
        sampler._shared[key] = sampler.draw(s.base)
    return sampler._shared[key]


def _recursive_draw(sampler: Sampler, s: Any) -> Any:
    key = id(s.limited_base)
    previous = sampler._limits.get(key)
    try:
        for _ in range(FILTER_TRIES):
            sampler._limits[key] = s.max_leaves
            try:
                return sampler.draw(s.strategy)
            except _recursive.LimitReached:
                continue
        sampler._limits[key] = 1
        return sampler.draw(s.limited_base)
    finally:
        if previous is None:
            sampler._limits.pop(key, None)
        else:
            sampler._limits[key] = previous


def _limited(sampler: Sampler, s: Any) -> Any:
    key = id(s)
    left = sampler._limits.get(key, 0)
    if left <= 0:
        raise _recursive.LimitReached
    sampler._limits[key] = left - 1
    return sampler.draw(s.base_strategy)


def _nothing(sampler: Sampler, s: Any) -> Any:
    raise UnsatisfiedAssumption("sampling")


def _booleans(sampler: Sampler, s: Any) -> bool:
    return sampler.boolean()


def _integers(sampler: Sampler, s: Any) -> int:
    weights = None
    if s.start is not None and s.end is not None and s.end - s.start > 127:  # as IntegersStrategy
        weights = {s.start: 2 / 128, s.start + 1: 1 / 128, s.end - 1: 1 / 128, s.end: 2 / 128}
    return sampler.integer(s.start, s.end, weights)


def _floats(sampler: Sampler, s: Any) -> float:
    if sampler.minimal:  # 0.0, or the bound nearest it
        return float(min(max(0.0, s.min_value), s.max_value))
    return float(sampler.provider.draw_float(min_value=s.min_value, max_value=s.max_value, allow_nan=s.allow_nan,
                                             smallest_nonzero_magnitude=s.smallest_nonzero_magnitude))


def _one_char(sampler: Sampler, s: Any) -> str:
    return sampler.string(s.intervals, 1, 1)


def _unwrapped(s: Any) -> Any:
    while isinstance(s, (_lazy.LazyStrategy, _deferred.DeferredStrategy)):
        s = s.wrapped_strategy
    return s


def _text(sampler: Sampler, s: Any) -> str:
    elements = _unwrapped(s.element_strategy)
    high = COLLECTION_DEFAULT_MAX_SIZE if s.max_size == math.inf else s.max_size
    if isinstance(elements, _strings.OneCharStringStrategy):
        return sampler.string(elements.intervals, s.min_size, high)
    return "".join(sampler.draw(elements) for _ in range(sampler.count(s.min_size, high, s.average_size)))


def _bytes(sampler: Sampler, s: Any) -> bytes:
    found = sampler.constant("bytes", {"min_size": s.min_size, "max_size": s.max_size})
    if found is not None:
        return bytes(found)
    average = min(max(s.min_size * 2, s.min_size + 5), 0.5 * (s.min_size + s.max_size))
    size = sampler.count(s.min_size, s.max_size, average)
    rng = sampler.rng
    if rng.random() < 0.5:
        return rng.randbytes(size)
    # Half the time, bytes with the simplest ones (NUL, 0xff) as common as hypothesis's search
    # makes them: its mutations of earlier examples zero whole spans, which one seed cannot.
    random_, choice = rng.random, rng.getrandbits
    return bytes(0 if (r := random_()) < 0.08 else 0xFF if r < 0.1 else choice(8) for _ in range(size))


def _tuples(sampler: Sampler, s: Any) -> tuple[Any, ...]:
    return tuple(sampler.draw(e) for e in s.element_strategies)


def _lists(sampler: Sampler, s: Any) -> list[Any]:
    if s.element_strategy.is_empty:
        return []
    size = sampler.count(s.min_size, s.max_size, s.average_size)
    return [sampler.draw(s.element_strategy) for _ in range(size)]


def _unique_lists(sampler: Sampler, s: Any) -> list[Any]:
    if s.element_strategy.is_empty:
        return []
    wanted = sampler.count(s.min_size, s.max_size, s.average_size)
    seen: tuple[set[Any], ...] = tuple(set() for _ in s.keys)
    out: list[Any] = []
    misses = 0
    while len(out) < wanted and misses < 2 * FILTER_TRIES:
        try:
            value = sampler.draw(s.element_strategy)
        except UnsatisfiedAssumption:
            misses += 1
            continue
        if not _add_unique(sampler, s, value, seen, out):
            misses += 1
    return _at_least(s.min_size, out)


def _unique_sampled_lists(sampler: Sampler, s: Any) -> list[Any]:
    wanted = sampler.count(s.min_size, s.max_size, s.average_size)
    remaining = list(s.element_strategy.elements)
    transforms = hypothesis_sampled_transforms(s.element_strategy)
    seen: tuple[set[Any], ...] = tuple(set() for _ in s.keys)
    out: list[Any] = []
    rng = sampler.rng
    while remaining and len(out) < wanted:
        value = _transform(remaining.pop(rng.randrange(len(remaining))), transforms)
        if value is not _FILTERED:
            _add_unique(sampler, s, value, seen, out)
    return _at_least(s.min_size, out)


def _add_unique(sampler: Sampler, s: Any, value: Any, seen: tuple[set[Any], ...], out: list[Any]) -> bool:
    """Append ``value`` to a unique list's ``out`` (with its tuple suffix, as hypothesis's
    dictionaries have it) unless one of its keys was seen; whether it was appended."""
    keys = [key(value) for key in s.keys]
    if any(k in known for k, known in zip(keys, seen, strict=True)):
        return False
    for k, known in zip(keys, seen, strict=True):
        known.add(k)
    out.append(value if s.tuple_suffixes is None else (value, *sampler.draw(s.tuple_suffixes)))
    return True


def _at_least(size: int, out: list[Any]) -> list[Any]:
    if len(out) < size:
        raise UnsatisfiedAssumption("sampling")
    return out


def _fixed_dictionaries(sampler: Sampler, s: Any) -> Any:
    pairs = [(key, sampler.draw(strategy)) for key, strategy in s.mapping.items()]
    if s.optional is not None:
        remaining = [k for k, v in s.optional.items() if not v.is_empty]
        rng = sampler.rng
        for _ in range(sampler.count(0, len(remaining), len(remaining) / 2)):
            key = remaining.pop(rng.randrange(len(remaining)))
            pairs.append((key, sampler.draw(s.optional[key])))
    sampler.rng.shuffle(pairs)
    return type(s.mapping)(pairs)


#: The strategy classes interpreted here, each with how it draws. A subclass is drawn by its
#: base's handler only where it inherits the base's ``do_draw`` (it draws the same way).
_HANDLERS: dict[type, Callable[[Sampler, Any], Any]] = {
    _strategies.SampledFromStrategy: _sampled_from,
    _misc.JustStrategy: _sampled_from,
    _strategies.OneOfStrategy: _one_of,
    _strategies.MappedStrategy: _mapped,
    _strategies.FilteredStrategy: _filtered,
    _flatmapped.FlatMapStrategy: _flat_mapped,
    _core.CompositeStrategy: _composite,
    _core.BuildsStrategy: _builds,
    _lazy.LazyStrategy: _wrapped,
    _deferred.DeferredStrategy: _wrapped,
    _shared.SharedStrategy: _shared_draw,
    _recursive.RecursiveStrategy: _recursive_draw,
    _recursive.LimitedStrategy: _limited,
    _misc.Nothing: _nothing,
    _misc.BooleansStrategy: _booleans,
    _numbers.IntegersStrategy: _integers,
    _numbers.FloatStrategy: _floats,
    _strings.OneCharStringStrategy: _one_char,
    _strings.TextStrategy: _text,
    _strings.BytesStrategy: _bytes,
    _collections.TupleStrategy: _tuples,
    _collections.ListStrategy: _lists,
    _collections.UniqueListStrategy: _unique_lists,
    _collections.UniqueSampledListStrategy: _unique_sampled_lists,
    _collections.FixedDictStrategy: _fixed_dictionaries,
}
_RESOLVED: dict[type, Callable[[Sampler, Any], Any] | None] = {}


def _handler(cls: type) -> Callable[[Sampler, Any], Any] | None:
    try:
        return _RESOLVED[cls]
    except KeyError:
        pass
    found = _HANDLERS.get(cls)
    if found is None:
        for base in cls.__mro__[1:]:
            if base in _HANDLERS:
                # A subclass that draws its own way (its own do_draw) is hypothesis's to draw.
                if getattr(cls, "do_draw", None) is getattr(base, "do_draw", None):
                    found = _HANDLERS[base]
                break
    _RESOLVED[cls] = found
    return found


# ---------------------------------------------------------------------- entry points


def draw_sampled(draw: Callable[[Any], Any], strategy: Any) -> Any:
    """One value of ``strategy``: ``draw`` (hypothesis's) gives a seed, the value is sampled
    from it. Inside :func:`native`, simply ``draw(strategy)``."""
    if _NATIVE.get():
        return draw(strategy)
    return sample_value(stream(draw(SEEDS)), strategy, draw)


def sample_value(rng: random.Random, strategy: Any, fallback: Callable[[Any], Any]) -> Any:
    """One value of ``strategy`` from ``rng`` (``fallback`` draws what is not interpreted):
    sampled again from the same stream when it trips a filter or an ``assume``, up to
    :data:`ATTEMPTS` times, then rejected (hypothesis's ``reject()``)."""
    sampler = Sampler(rng, fallback)
    for _ in range(ATTEMPTS):
        try:
            return sampler.draw(strategy)
        except UnsatisfiedAssumption:
            sampler.reset()
    raise UnsatisfiedAssumption("sampling")


@st.composite
def _sampled(draw: Any, strategy: Any) -> Any:
    return draw_sampled(draw, strategy)


def sampled(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``strategy``'s values, sampled from one seed each (:func:`draw_sampled`)."""
    return _sampled(strategy)


@st.composite
def _batches(draw: Any, strategy: Any, size: int) -> list[Any]:
    seed, out = draw(SEEDS), []
    for index in range(size):
        try:
            out.append(draw(strategy) if _NATIVE.get() else sample_value(stream(seed, index), strategy, draw))
        except UnsatisfiedAssumption:
            continue  # this value only: the batch goes on
    if not out:
        raise UnsatisfiedAssumption("sampling")
    return out


def batches(strategy: st.SearchStrategy[Any], size: int = BATCH) -> st.SearchStrategy[list[Any]]:
    """Lists of up to ``size`` values of ``strategy``, each sampled from its own stream of one
    seed (the first value of seed 0 the simplest); inside :func:`native`, drawn by hypothesis."""
    return _batches(strategy, size)
