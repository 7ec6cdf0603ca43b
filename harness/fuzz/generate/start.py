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
from random import Random

from harness.internals import hypothesis_register_thread_random

_primed: set[int] = set()


def prime_global_random() -> None:
    """Make and register hypothesis's per-thread random, where it has none yet (once a thread)."""
    thread = threading.get_ident()
    if thread in _primed:
        return
    _primed.add(thread)
    hypothesis_register_thread_random(Random)
