"""The one place the harness reaches into other libraries' private parts.

Each reach-in is a function here: no other module of the package imports a private module of
another library or reads a private attribute of its objects. Where a public hook exists the
harness uses it instead; what is left has none. Each library's parts are imported when first
asked for (a command that never fuzzes never imports hypothesis).

:data:`CHECKED` names the version of each library these were read against;
``tests/test_internals.py`` fails when an installed version differs, so a new release is read
before it is trusted.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable
from typing import Any

#: Distribution -> the version whose private parts this module was checked against.
CHECKED = {
    "anyio": "4.16.0",
    "hypothesis": "6.170.9",
    "hypothesis-jsonschema": "0.23.1",
    "jsonschema": "4.26.0",
    "pytest-xdist": "3.8.0",
}
#: The Python minor versions whose standard library's private parts (``re``'s parser,
#: ``concurrent.futures``' pool, asyncio's subprocess transport) were checked.
CHECKED_PYTHON = ("3.11",)


# --------------------------------------------------------------------------- python-jsonschema
# The differential's walks evaluate a subschema with the validator object python-jsonschema's
# own evaluation makes for it, and its bounded class makes them as the library does: the library
# has no public way to reach a validator's keyword list or its ``referencing`` resolver.


def jsonschema_applicable(validator: Any) -> list[tuple[Any, str, Any]]:
    """The keywords ``iter_errors`` applies for a validator: (keyword function, name, value)."""
    return validator._validators  # type: ignore[no-any-return]


def jsonschema_resolver(validator: Any) -> Any:
    """The ``referencing`` resolver a validator resolves ``$ref`` with (base URI, dynamic scope)."""
    return validator._resolver


def jsonschema_evolve(validator: Any, schema: Any, resolver: Any) -> Any:
    """A validator for ``schema`` resolving with ``resolver``, every other field kept: what
    ``descend`` makes for a subschema (``evolve``'s private ``_resolver`` argument)."""
    return validator.evolve(schema=schema, _resolver=resolver)


def jsonschema_init_fields(cls: Any) -> list[tuple[str, str]]:
    """A validator class's constructor fields as ``evolve`` copies them: (attribute, argument).
    The classes are ``attrs`` classes: their fields are ``__attrs_attrs__`` (what ``attrs.fields``
    reads; attrs is python-jsonschema's dependency, not the harness's)."""
    return [(field.name, field.alias) for field in cls.__attrs_attrs__ if field.init]


# --------------------------------------------------------------------------- hypothesis
# Sampling (harness/fuzz/generate/sampling.py) draws hypothesis's own strategy objects from a
# seeded stream, one choice per example instead of one per value: it dispatches on the strategy
# classes and draws scalars from hypothesis's own distributions. The rest spares fixed costs of a
# process (a gc.collect, the UTF-8 table, the local-constants scan) or keeps hypothesis's
# per-process state consistent when a time budget interrupts a draw.


@functools.cache
def hypothesis_strategies() -> types.SimpleNamespace:
    """hypothesis's strategy classes by module, and its scalar provider."""
    from hypothesis.internal.conjecture.providers import COLLECTION_DEFAULT_MAX_SIZE, HypothesisProvider
    from hypothesis.strategies._internal import (
        collections,
        core,
        deferred,
        flatmapped,
        lazy,
        misc,
        numbers,
        recursive,
        shared,
        strategies,
        strings,
    )

    return types.SimpleNamespace(
        collections=collections, core=core, deferred=deferred, flatmapped=flatmapped, lazy=lazy, misc=misc,
        numbers=numbers, recursive=recursive, shared=shared, strategies=strategies, strings=strings,
        HypothesisProvider=HypothesisProvider, COLLECTION_DEFAULT_MAX_SIZE=COLLECTION_DEFAULT_MAX_SIZE)


def hypothesis_given_state() -> tuple[Any, ...]:
    """hypothesis's per-process state that a ``@given`` sets on entry and unsets on exit — its
    recursion-limit bookkeeping and its "inside a @given" marker — to put back with
    :func:`hypothesis_restore_given_state` if an alarm interrupts a run half-way: left
    inconsistent, every later ``@given`` fails on entry."""
    from hypothesis import control
    from hypothesis.internal.conjecture import junkdrawer

    limiter = getattr(junkdrawer, "_stackframe_limiter", None)
    limits = None
    if limiter is not None and hasattr(limiter, "_active_contexts"):
        limits = (limiter._active_contexts, limiter._original_limit, set(limiter._known_limits),
                  sys.getrecursionlimit())
    variable = getattr(control, "_current_build_context", None)
    context = (False, None) if variable is None or not hasattr(variable, "data") else (True, variable.value)
    return limits, context


def hypothesis_restore_given_state(state: tuple[Any, ...]) -> None:
    from hypothesis import control
    from hypothesis.internal.conjecture import junkdrawer

    limits, (known, value) = state
    limiter = getattr(junkdrawer, "_stackframe_limiter", None)
    if limits is not None and limiter is not None:
        active, original, known_limits, limit = limits
        if (limiter._active_contexts, limiter._original_limit) != (active, original):
            limiter._active_contexts, limiter._original_limit, limiter._known_limits = active, original, known_limits
            sys.setrecursionlimit(limit)
    variable = getattr(control, "_current_build_context", None)
    if known and variable is not None and variable.value is not value:
        variable.data.value = value


def hypothesis_local_module_check() -> tuple[Callable[[str], bool], Callable[[Callable[[str], bool]], None]] | None:
    """hypothesis's test of whether a module file is the user's (its local-constants scan reads
    those), and a function that replaces it; None where hypothesis has no such scan."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without local constants
        return None
    local = getattr(providers, "is_local_module_file", None)
    if not callable(local):  # pragma: no cover - renamed in a later hypothesis
        return None

    def replace(check: Callable[[str], bool]) -> None:
        setattr(providers, "is_local_module_file", check)  # noqa: B010 - a private name

    return local, replace


def hypothesis_library_folders() -> tuple[str, ...] | None:
    """The folders hypothesis counts as not the user's (site-packages, the standard library)."""
    try:
        from hypothesis.internal.scrutineer import SITE_PACKAGES_DIRS, STDLIB_DIRS
    except ImportError:  # pragma: no cover - renamed in a later hypothesis
        return None
    return tuple(str(folder) for folder in (*SITE_PACKAGES_DIRS, *STDLIB_DIRS))


def hypothesis_register_thread_random(make: Callable[[], Any]) -> None:
    """Make this thread's hypothesis random (``make()``) and register it as ``register_random``
    does after its checks, unless hypothesis has made it already or keeps it otherwise."""
    try:
        import hypothesis.core
        from hypothesis.internal import entropy
    except ImportError:  # pragma: no cover
        return
    local = getattr(hypothesis.core, "threadlocal", None)
    managed, keys = getattr(entropy, "RANDOMS_TO_MANAGE", None), getattr(entropy, "_RKEY", None)
    if local is None or managed is None or keys is None or not hasattr(local, "_hypothesis_global_random"):
        return  # pragma: no cover - another hypothesis: it registers its random itself
    if local._hypothesis_global_random is None:
        found = make()
        local._hypothesis_global_random = found
        managed[next(keys)] = found


def hypothesis_scalar_draws(rng: Any) -> types.SimpleNamespace:
    """hypothesis's scalar provider driven by ``rng`` (a ``random.Random``) instead of a test
    case's choices: ``provider`` (its public draws, ``draw_float``, ...), ``constant(kind,
    constraints)`` (now and then one of hypothesis's constants for ``kind``, else None) and
    ``integer(low, high)`` (its integer distribution), bound once."""
    provider = hypothesis_strategies().HypothesisProvider(None)
    provider._random = rng
    return types.SimpleNamespace(provider=provider, constant=provider._maybe_draw_constant,
                                 integer=provider._draw_integer_from_distribution)


def hypothesis_sampled_transforms(strategy: Any) -> Any:
    """The maps and filters applied to a ``sampled_from`` strategy (hypothesis folds
    ``.map``/``.filter`` into it): ``(kind, function, location)`` triples, ``kind`` ``"map"``
    or a filter."""
    return strategy._transformations


def hypothesis_charmap_file(name: str) -> Any:
    """The path of hypothesis's cached character table ``name`` (a ``pathlib.Path``)."""
    from hypothesis.internal.charmap import charmap_file

    return charmap_file(name)


def hypothesis_home_override() -> Any:
    """The home directory hypothesis was told to use (``set_hypothesis_home_dir``; None unless
    someone set it), to give back after a block that sets its own: hypothesis has no getter for
    the override, only for the directory it resolves to."""
    import hypothesis.configuration as configuration

    return vars(configuration).get("__hypothesis_home_directory")


def hypothesis_generated_seed(test: Any) -> int | None:
    """The seed hypothesis drew for a ``@given`` test's last run (replays its search)."""
    return getattr(test, "_hypothesis_internal_use_generated_seed", None)


# --------------------------------------------------------------------------- hypothesis-jsonschema
# The compiled generator (harness/fuzz/generate/compile.py) merges and canonicalises subschemas
# as hypothesis-jsonschema does, so that what it hands over is read the same way.


@functools.cache
def hypothesis_jsonschema_canonical() -> types.SimpleNamespace:
    """hypothesis-jsonschema's canonical forms: ``canonicalish``, ``merged``, ``get_type``, the
    ``TRUTHY``/``FALSEY`` schemas and ``encode_canonical_json``."""
    from hypothesis_jsonschema._canonicalise import FALSEY, TRUTHY, canonicalish, get_type, merged
    from hypothesis_jsonschema._encode import encode_canonical_json

    return types.SimpleNamespace(FALSEY=FALSEY, TRUTHY=TRUTHY, canonicalish=canonicalish, get_type=get_type,
                                 merged=merged, encode_canonical_json=encode_canonical_json)


# --------------------------------------------------------------------------- pytest-xdist
# The plugin's opt-in scheduling (harness/pytest_schedule.py) extends xdist's load scheduling
# (its pending lists, its sends): xdist's public Scheduling protocol would mean writing load's
# bookkeeping again.


def xdist_load_scheduling() -> Any:
    """pytest-xdist's ``LoadScheduling`` class."""
    from xdist.scheduler import LoadScheduling

    return LoadScheduling


# --------------------------------------------------------------------------- anyio
# The guard's relay (harness/guard/stdio.py) reads and writes a server process's pipes through the
# asyncio streams anyio wraps: the wrapper adds a cancellation check and a yield to the event loop
# around every write, most of what a message costs the loop. Closing a process's pipes
# (harness/drift/process.py) closes the asyncio transport under anyio's process, which asyncio
# keeps open while a pipe end is (a child killed before it wrote EOF), as the mcp SDK's stdio
# client does. Neither has a public way in anyio or asyncio.


def anyio_asyncio_stream(stream: Any) -> Any:
    """The asyncio ``StreamReader``/``StreamWriter`` inside one of anyio's process streams, or
    None (another backend, or a stream anyio did not make)."""
    return getattr(stream, "_stream", None)


def anyio_subprocess_transport(process: Any) -> Any:
    """The asyncio subprocess transport under an anyio process, or None (another backend)."""
    return getattr(getattr(process, "_process", None), "_transport", None)


# --------------------------------------------------------------------------- the standard library


@functools.cache
def regex_parser() -> tuple[Any, Any]:
    """``re``'s parser and its constants (as hypothesis's own regex strategy reads them): the
    pattern-shaped strings of harness/fuzz/generate/regex.py are drawn from a pattern's parse."""
    import re._constants
    import re._parser

    return re._constants, re._parser


def process_pool_processes(pool: Any) -> list[Any]:
    """The worker processes of a ``concurrent.futures.ProcessPoolExecutor`` (to stop them, not
    wait for their tasks)."""
    return list(getattr(pool, "_processes", {}).values())
