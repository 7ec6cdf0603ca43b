"""What changed between a baseline shape and a current one, named by location and kind.

deepdiff compares the two shapes' views (types per location, always-present members, enum
values) and says *where* they differ; each differing location is then named here by what
changed there. The rule this module keeps: **every difference between two fingerprints is at
least one named change** — a location deepdiff reports is either named itself or lies inside a
location that is (the outermost new member, a parent whose type changed). Nothing is dropped
because deepdiff grouped it (its ``threshold_to_diff_deeper`` is turned off, and a section it
reports as one changed value is split into its locations again).

Kinds come in two families (:data:`WIDENING`, everything else narrowing):

- *widening*: the current shape can hold something the baseline never had — a member, a type,
  null, items, an enum value, a member no longer promised. Against a baseline merged from many
  samples, only these are drift (one sample never has everything the merge has).
- *narrowing*: the current shape has less than the baseline — a type, a member, items or an
  enum value not seen. Against one sample (or a schema against a schema) these are differences
  too, and they are named as such.

:func:`compare` applies this to a baseline of samples: see its docstring.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness.drift.shape import ANY, WILDCARD, Shape, covers, last_token, merge_all, parent_of

#: Change kinds, in report order, each with the one line the docs show.
CHANGE_KINDS: dict[str, str] = {
    "object_where_string": "an object where the baseline always had a string (text became structure)",
    "type_changed": "a value of a JSON type the baseline never had at this location",
    "null_appearing": "null where the baseline never had null",
    "type_narrowed": (
        "the JSON types at this location changed within what the baseline had (a type no longer "
        "seen, integers where numbers were, one type where any was allowed)"
    ),
    "field_added": "a member the baseline never had",
    "field_removed": "a member the baseline always had is absent",
    "field_absent": "a member the baseline had only sometimes is absent",
    "field_now_optional": "a member the baseline always had is no longer promised every time",
    "field_now_always_present": "a member the baseline had only sometimes is now present every time",
    "items_new": "items in an array (or map) the baseline only ever saw empty",
    "items_absent": "an array (or map) that had items in the baseline is empty",
    "enum_value_new": "a value never seen (or declared) at an enum-like location",
    "enum_value_absent": "a value the baseline had at an enum-like location is not there",
    "enum_removed": "the baseline's enum/const at this location is gone: any value of its type may come",
    "enum_declared": "values at this location are now limited to an enum where the baseline allowed any",
}

#: Kinds by which the current shape holds what the baseline never had: drift even against a
#: baseline merged from many samples.
WIDENING: frozenset[str] = frozenset(
    {
        "object_where_string",
        "type_changed",
        "null_appearing",
        "field_added",
        "field_removed",
        "field_now_optional",
        "items_new",
        "enum_value_new",
        "enum_removed",
    }
)

_SECTIONS = ("types", "required", "enums")


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``kind`` (a key of :data:`CHANGE_KINDS`), where, and what it was / is."""

    kind: str
    path: str
    before: str
    after: str

    @property
    def widening(self) -> bool:
        """The current shape holds something the baseline never had (see :data:`WIDENING`)."""
        return self.kind in WIDENING

    def describe(self) -> str:
        where = self.path or "/"
        return f"{self.kind.replace('_', ' ')} at {where}: {self.before} -> {self.after}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path or "/",
            "before": self.before,
            "after": self.after,
        }


def _types_text(types: frozenset[str] | None) -> str:
    if not types:
        return "absent"
    return " or ".join(sorted(types))


def _values_text(values: frozenset[str]) -> str:
    shown = sorted(values)
    text = ", ".join(shown[:8])
    return text + (f", … ({len(shown) - 8} more)" if len(shown) > 8 else "")


# --------------------------------------------------------------------------- where they differ


def _differing(baseline: dict[str, Any], current: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(section, location) of every difference deepdiff reports between two shape views."""
    from deepdiff import DeepDiff  # here: every check imports this module (for its event), few diff shapes

    tree = DeepDiff(baseline, current, view="tree", threshold_to_diff_deeper=0)
    for report in tree:
        for item in tree[report]:
            where = item.path(output_format="list")
            section = str(where[0]) if where else ""
            if section == "required":
                # A set: the member that was added or removed is the item's value.
                value = item.t2 if report.endswith("added") else item.t1
                if isinstance(value, str):
                    yield section, value
                    continue
            elif section in _SECTIONS and len(where) > 1:
                yield section, str(where[1])
                continue
            # Reported as one changed value (a whole section, or the whole view): split it.
            for name in [section] if section in _SECTIONS else list(_SECTIONS):
                yield from ((name, path) for path in _section_differences(baseline[name], current[name]))


def _section_differences(before: Any, after: Any) -> Iterator[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        yield from (p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    else:  # the required set
        yield from set(before) ^ set(after)


# --------------------------------------------------------------------------- what changed there


def diff_shapes(baseline: Shape, current: Shape) -> tuple[Change, ...]:
    """Every difference from ``baseline`` to ``current``, named, in a stable order (location,
    then kind). Empty exactly when the two fingerprints are the same."""
    namer = _Namer(baseline, current)
    for section, path in set(_differing(baseline.view(), current.view())):
        namer.name(section, path)
    order = list(CHANGE_KINDS)
    return tuple(sorted(set(namer.changes), key=lambda c: (c.path, order.index(c.kind), c.after)))


class _Namer:
    def __init__(self, baseline: Shape, current: Shape) -> None:
        self.b = baseline
        self.c = current
        self.changes: list[Change] = []

    def add(self, kind: str, path: str, before: str, after: str) -> None:
        self.changes.append(Change(kind, path, before, after))

    def name(self, section: str, path: str) -> None:
        if section == "types":
            self._types(path)
        elif section == "required":
            self._required(path)
        else:
            self._enums(path)

    def _parent_unchanged(self, path: str) -> bool:
        """The parent is in both shapes with the same types. When it is not, the parent's own
        difference (it came, went, or changed its type) is named, and covers this location."""
        parent = parent_of(path)
        before, after = self.b.types.get(parent), self.c.types.get(parent)
        return before is not None and before == after

    def _types(self, path: str) -> None:
        before, after = self.b.types.get(path), self.c.types.get(path)
        if before is not None and after is not None:
            self._type_change(path, before, after)
        elif after is not None:
            # New here: named at the outermost new location (whose parent the baseline had),
            # also under a parent whose type changed (the new members show what it became).
            if path == "" or parent_of(path) not in self.b.types:
                return
            if last_token(path) == WILDCARD:
                self.add("items_new", path, "no items", _types_text(after))
            else:
                self.add("field_added", path, "absent", _types_text(after))
        elif before is not None:
            if path == "" or not self._parent_unchanged(path):
                return
            if last_token(path) == WILDCARD:
                self.add("items_absent", path, _types_text(before), "no items")
            elif path in self.b.required:
                self.add("field_removed", path, _types_text(before), "absent")
            else:
                self.add("field_absent", path, _types_text(before), "absent")

    def _type_change(self, path: str, before: frozenset[str], after: frozenset[str]) -> None:
        added = after - before
        new = frozenset(t for t in added if not covers(before, t) or (t == ANY and ANY not in before))
        rest: set[str] = set(new)
        if "null" in new:
            self.add("null_appearing", path, _types_text(before), "null")
            rest.discard("null")
        if "string" in before and "object" in new:
            self.add("object_where_string", path, _types_text(before), "object")
            rest.discard("object")
        if rest:
            self.add("type_changed", path, _types_text(before), _types_text(frozenset(rest)))
        if not new and before != after:
            self.add("type_narrowed", path, _types_text(before), _types_text(after))

    def _required(self, path: str) -> None:
        if path in self.b.types and path in self.c.types and (path == "" or self._parent_unchanged(path)):
            if path in self.b.required and path not in self.c.required:
                self.add("field_now_optional", path, "always present", "optional")
            elif path in self.c.required and path not in self.b.required:
                self.add("field_now_always_present", path, "optional", "always present")

    def _enums(self, path: str) -> None:
        if path not in self.b.types or path not in self.c.types:
            return  # the location came or went: named by its types
        before, after = self.b.enums.get(path), self.c.enums.get(path)
        if before is not None and after is not None:
            if after - before:
                self.add("enum_value_new", path, _values_text(before), _values_text(after - before))
            if before - after:
                self.add("enum_value_absent", path, _values_text(before - after), "absent")
        elif self.b.types[path] != self.c.types[path]:
            return  # values tracked on one side only, with different types: the type change is named
        elif before is not None:
            self.add("enum_removed", path, _values_text(before), "any value")
        elif after is not None:
            self.add("enum_declared", path, "any value", _values_text(after))


# --------------------------------------------------------------------------- against a baseline


@dataclass(frozen=True, slots=True)
class Comparison:
    """A current shape against a baseline: its changes, and when they are relative to one
    sample (``nearest``, an index into the samples) rather than to the merged baseline."""

    changes: tuple[Change, ...]
    nearest: int | None = None


def compare(samples: Sequence[Shape], current: Shape) -> Comparison:
    """``current`` against the accepted samples of a baseline.

    1. Widening changes against the samples merged (what no sample had) are drift.
    2. Otherwise a shape equal to the merge or to one sample is as before: no change.
    3. Otherwise the shape is a new combination of what the samples had (fewer members, fewer
       types or values than any one of them): its changes against the nearest sample (fewest
       changes) are the drift, so a fingerprint never seen is never reported as held.
    """
    merged = merge_all(samples)
    if merged is None:
        return Comparison(())
    widening = tuple(c for c in diff_shapes(merged, current) if c.widening)
    if widening:
        return Comparison(widening)
    digest = current.digest
    if digest == merged.digest or any(s.digest == digest for s in samples):
        return Comparison(())
    candidates: Iterable[tuple[int, tuple[Change, ...]]] = (
        (i, diff_shapes(sample, current)) for i, sample in enumerate(samples)
    )
    index, changes = min(candidates, key=lambda pair: (len(pair[1]), pair[0]))
    return Comparison(changes, index)
