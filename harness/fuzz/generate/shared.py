"""Small strategies the generators draw inside ``@composite`` functions, built once.

A strategy built inside a draw is built again at every draw, and hypothesis validates a new
strategy (and works out whether it is empty) the first time it is drawn from: in the fuzz
generators that was a tenth of the time. Strategies that depend only on a size are kept here.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

BOOLEANS: st.SearchStrategy[bool] = st.booleans()


@lru_cache(maxsize=4096)
def pick(size: int) -> st.SearchStrategy[int]:
    """An index into a sequence of ``size`` items (shrinks to the first)."""
    return st.integers(0, size - 1)


@lru_cache(maxsize=4096)
def between(low: int, high: int) -> st.SearchStrategy[int]:
    """An integer from ``low`` to ``high``, both included."""
    return st.integers(low, high)


@lru_cache(maxsize=4096)
def subset(size: int, min_size: int, max_size: int) -> st.SearchStrategy[list[int]]:
    """Distinct indexes into a sequence of ``size`` items, ``min_size`` to ``max_size`` of them."""
    return st.lists(st.sampled_from(range(size)), unique=True, min_size=min_size, max_size=max_size)
