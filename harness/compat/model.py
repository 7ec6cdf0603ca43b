"""The vocabulary of compat reports: directions, verdicts, evidence, policies.

*Reader-safe*: every document the old version accepted, the new version accepts too (new
readers can read old traffic). *Writer-safe*: every document the new version accepts, the old
version accepts too (old readers can read what new writers send). A verdict is ``safe``,
``breaking`` or ``unknown`` (not modelled, or not decidable statically); ``unknown`` never
counts as safe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.errors import ContractError, UsageError
from harness.locate import position_in_file


class Direction(StrEnum):
    """Which way documents travel: old documents to the new version, or new ones to the old."""

    READER = "reader"
    WRITER = "writer"

    @property
    def source(self) -> str:
        """The version whose documents are sent (``old`` for reader, ``new`` for writer)."""
        return "old" if self is Direction.READER else "new"

    @property
    def target(self) -> str:
        return "new" if self is Direction.READER else "old"

    def flipped(self) -> Direction:
        return Direction.WRITER if self is Direction.READER else Direction.READER


class Verdict(StrEnum):
    SAFE = "safe"
    BREAKING = "breaking"
    UNKNOWN = "unknown"


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """``breaking`` over ``unknown`` over ``safe`` (``safe`` for none)."""
    found = set(verdicts)
    for verdict in (Verdict.BREAKING, Verdict.UNKNOWN):
        if verdict in found:
            return verdict
    return Verdict.SAFE


class Evidence(StrEnum):
    """How a verdict is known."""

    WITNESS = "witness"  # a document proves it (a break): valid on one side, rejected on the other
    SAMPLED = "sampled"  # generated documents agreed with it; no proof
    STATIC = "static"  # the classifier alone


class Policy(StrEnum):
    """What a version change is allowed to break."""

    READER = "reader"  # every change reader-safe
    WRITER = "writer"  # every change writer-safe
    FULL = "full"  # both
    NONE = "none"  # nothing required (expected rejections in the replay still count)

    @property
    def directions(self) -> tuple[Direction, ...]:
        return {
            Policy.READER: (Direction.READER,),
            Policy.WRITER: (Direction.WRITER,),
            Policy.FULL: (Direction.READER, Direction.WRITER),
            Policy.NONE: (),
        }[self]


#: Without a declared policy a version change must be fully compatible: a change that breaks
#: either direction has to say so (``compat.policy`` in contract.yaml, or ``--policy``).
DEFAULT_POLICY = Policy.FULL


def parse_policy(value: Any, *, where: str = "--policy") -> Policy:
    try:
        return Policy(value)
    except ValueError:
        raise UsageError(
            f"{where} {value!r} is not a policy (allowed: {', '.join(p.value for p in Policy)})"
        ) from None


def declared_policy(raw: Mapping[str, Any], new_version: int, *, file: str = "") -> tuple[Policy, str]:
    """The policy a contract declares for the change *to* ``new_version``, and where it came
    from: ``compat.by_version[N]``, else ``compat.policy``, else the default."""
    compat = raw.get("compat") or {}
    by_version = compat.get("by_version") or {}
    for key, source in ((str(new_version), f"compat.by_version.{new_version}"), (None, "compat.policy")):
        value = by_version.get(key) if key is not None else compat.get("policy")
        if value is not None:
            try:
                return Policy(value), f"contract ({source})"
            except ValueError:
                raise ContractError(
                    f"{value!r} is not a policy", file=file, pointer="/" + source.replace(".", "/"),
                    locate=position_in_file,
                    allowed=[p.value for p in Policy],
                ) from None
    return DEFAULT_POLICY, "default"


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard to look for witnesses: candidates per targeted search (0: no search, the static
    classification only), documents generated from each version."""

    examples: int = 40
    samples: int = 25
    #: Wall-clock cap per search (targeted or sampled): a safety net only. A search ends at its
    #: first witness or after ``examples`` candidates; the report counts the searches the clock
    #: stopped (``searches.stopped_by_clock``).
    seconds: float = 20.0
