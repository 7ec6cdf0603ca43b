"""Property fuzzing of contracts, adapters and the boundary.

- strategies (:mod:`harness.fuzz.strategies`): :func:`from_contract` (documents valid under a
  contract's schema, boundary values included), :func:`bound_documents`, :func:`near_misses`
  and :func:`near_miss_sets` (generated documents through the mutation operators),
  :func:`vendor_documents` (seeded and bound in :mod:`harness.fuzz.vendor`),
  :func:`arbitrary_bytes`; canaries in :mod:`harness.fuzz.canaries` (:func:`with_canaries`);
- properties (:mod:`harness.fuzz.properties`): the registry :data:`PROPERTIES` of the five
  properties checked per tool;
- the runner (:mod:`harness.fuzz.runner`): :func:`fuzz` runs them under a :data:`PROFILES`
  profile (``ci``, ``nightly``) and yields events; failures are shrunk, reproducible, and
  written out as fixtures.

Importing this package is cheap: the pytest plugin reads :data:`PROPERTIES` without loading
hypothesis; the strategies and the runner load it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.fuzz.model import Finding, Observation, PropertyViolation
from harness.fuzz.properties import PROPERTIES, Property, PropertyRegistry, fuzz_property
from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.fuzz.canaries import Injected, with_canaries
    from harness.fuzz.runner import (
        PROFILES,
        FuzzFinished,
        FuzzOptions,
        FuzzReport,
        FuzzStarted,
        Outcome,
        Profile,
        PropertyFinished,
        PropertyStarted,
        fuzz,
        run_property,
    )
    from harness.fuzz.strategies import (
        Bound,
        Bytes,
        NearMiss,
        NearMisses,
        arbitrary_bytes,
        bound_documents,
        from_contract,
        near_miss_sets,
        near_misses,
        vendor_documents,
    )
    from harness.fuzz.subject import Subject

_LAZY = {
    **dict.fromkeys(
        ["PROFILES", "FuzzFinished", "FuzzOptions", "FuzzReport", "FuzzStarted", "Outcome", "Profile",
         "PropertyFinished", "PropertyStarted", "fuzz", "run_property"], "harness.fuzz.runner"),
    **dict.fromkeys(
        ["Bound", "Bytes", "NearMiss", "NearMisses", "arbitrary_bytes", "bound_documents", "from_contract",
         "near_miss_sets", "near_misses", "vendor_documents"], "harness.fuzz.strategies"),
    **dict.fromkeys(["Injected", "with_canaries"], "harness.fuzz.canaries"),
    "Subject": "harness.fuzz.subject",
}

__all__ = [
    "PROFILES",
    "PROPERTIES",
    "Bound",
    "Bytes",
    "Finding",
    "FuzzFinished",
    "FuzzOptions",
    "FuzzReport",
    "FuzzStarted",
    "Injected",
    "NearMiss",
    "NearMisses",
    "Observation",
    "Outcome",
    "Profile",
    "Property",
    "PropertyFinished",
    "PropertyRegistry",
    "PropertyStarted",
    "PropertyViolation",
    "Subject",
    "arbitrary_bytes",
    "bound_documents",
    "from_contract",
    "fuzz",
    "fuzz_property",
    "near_miss_sets",
    "near_misses",
    "run_property",
    "vendor_documents",
    "with_canaries",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
