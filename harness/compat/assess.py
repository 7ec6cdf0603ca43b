"""Static verdicts and witnesses, combined: what each change does, and how it is known.

For every change and direction: a ``breaking`` or ``unknown`` static verdict with a witness
becomes ``breaking`` proved by that witness; without one it stays as it is, ``static`` only. A
``safe`` verdict is ``sampled`` when generated documents were checked in that direction. A
witness against a ``safe`` verdict — a document the classifier said must pass — is a bug in the
classifier: it is recorded as a :class:`Contradiction` and fails the comparison loudly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.compat.classify import Change, Comparison
from harness.compat.diff import pointer_of
from harness.compat.model import Budget, Direction, Evidence, Verdict, worst
from harness.compat.normalise import Side
from harness.compat.registry import RULES, CompatRuleRegistry
from harness.compat.witness import (
    Bases,
    Sampled,
    Searches,
    Witness,
    at_location,
    bases_for,
    from_sample,
    generated,
    search,
)


@dataclass(frozen=True, slots=True)
class Assessed:
    """A change with its final verdicts, their evidence and the witnesses found."""

    change: Change
    reader: Verdict
    writer: Verdict
    reader_evidence: Evidence
    writer_evidence: Evidence
    witnesses: tuple[Witness, ...]

    def verdict(self, direction: Direction) -> Verdict:
        return self.reader if direction is Direction.READER else self.writer

    def evidence(self, direction: Direction) -> Evidence:
        return self.reader_evidence if direction is Direction.READER else self.writer_evidence


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A witness against a static ``safe`` verdict: a bug in the classifier."""

    direction: Direction
    rule: str | None
    pointer: str
    witness: Witness

    @property
    def message(self) -> str:
        where = f"{self.rule} at {self.pointer or '/'}" if self.rule else "the comparison"
        return (f"classifier bug: {where} is {self.direction.value}-safe, but a document "
                f"{self.witness.accepted_by} accepts is rejected by {self.witness.rejected_by} "
                f"({self.witness.keyword} at {self.witness.schema_pointer}: {self.witness.message})")


@dataclass(frozen=True)
class Assessment:
    changes: tuple[Assessed, ...]
    unattributed: tuple[Witness, ...]
    contradictions: tuple[Contradiction, ...]
    sampled: dict[Direction, Sampled]
    searches: dict[Direction, Searches] = field(default_factory=dict)

    def verdict(self, direction: Direction) -> Verdict:
        found = worst(a.verdict(direction) for a in self.changes)
        if any(w.direction is direction for w in self.unattributed):
            return Verdict.BREAKING
        return found

    def basis(self, direction: Direction) -> tuple[str, ...]:
        """The rules that decided the direction's verdict, ``"CMP301 max_length_tightened"``
        each, once: the changes holding that verdict (for ``safe``, every change)."""
        verdict = self.verdict(direction)
        rules = [f"{a.change.rule.id} {a.change.rule.name}" for a in self.changes if a.verdict(direction) is verdict]
        return tuple(dict.fromkeys(rules))

    def evidence(self, direction: Direction) -> Evidence:
        verdict = self.verdict(direction)
        witnessed = any(w.direction is direction for a in self.changes for w in a.witnesses) or any(
            w.direction is direction for w in self.unattributed)
        if verdict is Verdict.BREAKING and witnessed:
            return Evidence.WITNESS
        if verdict is Verdict.SAFE and self.sampled.get(direction) and self.sampled[direction].checked:
            return Evidence.SAMPLED
        return Evidence.STATIC


def _sides(direction: Direction, old: Side, new: Side) -> tuple[Side, Side]:
    return (old, new) if direction is Direction.READER else (new, old)


def _targeted(change: Change, direction: Direction, old: Side, new: Side, budget: Budget,
              bases: Bases, *, probe: bool) -> Witness | None:
    """A witness built for the change from its targets (one when probing a safe verdict)."""
    source, other = _sides(direction, old, new)
    location = change.location(direction.target)
    targets = [t for t in change.targets if t.direction is direction][: 1 if probe else 3]
    for target in targets:
        pointer = pointer_of(target.path or change.path, direction.source)
        if pointer is None:
            continue
        found = search(direction, source, other, pointer, target.conjoin, location, budget, bases)
        if found is not None:
            return found
    return None


def _sampled(change: Change, direction: Direction, old: Side, new: Side, sampled: Sampled) -> Witness | None:
    """A generated document rejected at the change's location, as its witness."""
    source, other = _sides(direction, old, new)
    location = change.location(direction.target)
    if location is None:
        return None
    for document, violations in sampled.rejected:
        found = from_sample(direction, source, other, document, violations, location)
        if found is not None:
            return found
    return None


def assess(old: Side, new: Side, budget: Budget, registry: CompatRuleRegistry = RULES,
           seeds: Sequence[Any] = ()) -> Assessment:
    """Classify the differences between two prepared versions and look for witnesses.

    First every change's targeted searches (built from ``seeds`` the source accepts — a
    contract's fixtures — or the simplest document it accepts); then documents generated from
    each version, only in the directions not already proved breaking: a question answered is
    not asked again. ``registry``: the change classes to use (tests pass their own)."""
    changes = Comparison(old.tree, new.tree, old=old, new=new, registry=registry).changes()
    bases: dict[Direction, Bases] = {}
    found: dict[tuple[int, Direction], Witness] = {}
    for index, change in enumerate(changes):
        for direction in Direction:
            if not any(t.direction is direction for t in change.targets):
                continue
            if direction not in bases:
                bases[direction] = bases_for(_sides(direction, old, new)[0], seeds, budget)
            witness = _targeted(change, direction, old, new, budget, bases[direction],
                                probe=change.verdict(direction) is Verdict.SAFE)
            if witness is not None:
                found[(index, direction)] = witness
    proved = {d for (i, d) in found if changes[i].verdict(d) is not Verdict.SAFE}
    sampled = {}
    for direction in Direction:
        source = _sides(direction, old, new)[0]
        if direction not in bases:
            bases[direction] = bases_for(source, seeds, budget) if seeds else Bases()
        pointers = [p for c in changes if (p := pointer_of(c.path, direction.source)) is not None]
        sampled[direction] = generated(direction, *_sides(direction, old, new),
                                       0 if direction in proved else budget.samples, budget.seconds,
                                       bases[direction], pointers)
    for index, change in enumerate(changes):
        for direction in Direction:
            if (index, direction) not in found:
                witness = _sampled(change, direction, old, new, sampled[direction])
                if witness is not None:
                    found[(index, direction)] = witness
    # A witness found while probing a safe verdict is credited to the change whose keyword and
    # location rejected it and which is not safe that way (two changes may sit at one keyword:
    # an enum value replaced, required [a] -> [b]); it is a classifier bug only when no such
    # change explains it.
    credited: dict[tuple[int, Direction], Witness] = {}
    contradictions: list[Contradiction] = []
    for (index, direction), witness in found.items():
        if changes[index].verdict(direction) is not Verdict.SAFE:
            credited.setdefault((index, direction), witness)
            continue
        explainer = _explainer(changes, direction, witness)
        if explainer is None:
            contradictions.append(Contradiction(direction, changes[index].rule.id, changes[index].pointer, witness))
            credited[(index, direction)] = witness
        else:
            credited.setdefault((explainer, direction), witness)
    results: list[Assessed] = []
    for index, change in enumerate(changes):
        final: dict[Direction, tuple[Verdict, Evidence]] = {}
        witnesses: list[Witness] = []
        for direction in Direction:
            static = change.verdict(direction)
            witness = credited.get((index, direction))
            if witness is not None:
                witnesses.append(witness)
            if static is Verdict.SAFE:
                evidence = Evidence.SAMPLED if sampled[direction].checked else Evidence.STATIC
                final[direction] = (Verdict.SAFE, evidence)
            elif witness is not None:
                final[direction] = (Verdict.BREAKING, Evidence.WITNESS)
            else:
                final[direction] = (static, Evidence.STATIC)
        results.append(Assessed(change, final[Direction.READER][0], final[Direction.WRITER][0],
                                final[Direction.READER][1], final[Direction.WRITER][1], tuple(witnesses)))
    unattributed = _unattributed(results, sampled, old, new, contradictions)
    return Assessment(tuple(results), tuple(unattributed), tuple(contradictions), sampled,
                      {d: b.searches for d, b in bases.items()})


def _explainer(changes: list[Change], direction: Direction, witness: Witness) -> int | None:
    """The index of a change not safe in ``direction`` whose location in the rejecting version
    holds the witness's rejection, or None."""
    for index, change in enumerate(changes):
        if change.verdict(direction) is Verdict.SAFE:
            continue
        location = change.location(direction.target)
        if location is not None and at_location(witness.schema_pointer, location):
            return index
    return None


def _unattributed(results: list[Assessed], sampled: dict[Direction, Sampled], old: Side, new: Side,
                  contradictions: list[Contradiction]) -> list[Witness]:
    """Generated rejections no change explains. If every change is safe that way, each one is
    a classifier bug; otherwise they are kept (three at most) as evidence for the pair."""
    from harness.compat.witness import from_sample as as_witness

    found: list[Witness] = []
    for direction, sample in sampled.items():
        source, other = _sides(direction, old, new)
        locations = [a.change.location(direction.target) for a in results]
        all_safe = all(a.verdict(direction) is Verdict.SAFE for a in results)
        for document, violations in sample.rejected:
            explained = any(
                loc is not None and as_witness(direction, source, other, document, violations, loc) is not None
                for loc in locations
            )
            if explained:
                continue
            witness = as_witness(direction, source, other, document, violations, None)
            if witness is None:
                continue
            if all_safe:
                contradictions.append(Contradiction(direction, None, "", witness))
            if sum(1 for w in found if w.direction is direction) < 3:
                found.append(witness)
    return found


def summary(assessment: Assessment) -> dict[str, Any]:
    return {
        d.value: {"verdict": assessment.verdict(d).value, "evidence": assessment.evidence(d).value}
        for d in Direction
    }
