"""hypothesis's once-per-thread start, without its garbage collection.

The first ``@given`` a thread runs makes hypothesis's own ``random.Random`` and registers it
(``register_random``), and registering runs ``gc.collect()`` — to warn a user who registers a
random nothing else refers to — which costs a full collection of the process (about 12 ms in a
harness process, most of a property's run on a small MCP schema). :func:`prime_global_random`
makes and registers that random as hypothesis does, without the collection: hypothesis's own
random is referred to by hypothesis itself, so the warning could never apply. A hypothesis whose
internals differ is left to make it itself.
"""

from __future__ import annotations

import threading

_primed: set[int] = set()


def prime_global_random() -> None:
    """Make and register hypothesis's per-thread random, where it has none yet (once a thread)."""
    thread = threading.get_ident()
    if thread in _primed:
        return
    _primed.add(thread)
    try:
        from random import Random

        import hypothesis.core
        from hypothesis.internal import entropy
    except ImportError:  # pragma: no cover
        return
    local = getattr(hypothesis.core, "threadlocal", None)
    managed, keys = getattr(entropy, "RANDOMS_TO_MANAGE", None), getattr(entropy, "_RKEY", None)
    if local is None or managed is None or keys is None or not hasattr(local, "_hypothesis_global_random"):
        return  # pragma: no cover - another hypothesis: it registers its random itself
    if local._hypothesis_global_random is None:
        found = Random()
        local._hypothesis_global_random = found
        managed[next(keys)] = found  # what register_random stores, after its checks
