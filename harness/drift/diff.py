"""What changed between a baseline shape and a current one, named by location and kind.

The two shapes' views are compared with deepdiff; its report (items added to and removed from
the type, requirement and value sets) is then read as the changes a connector owner cares
about. Only changes that can hurt are reported: a type the baseline never had, a member it
never had, a member it always had that is gone, an enum value it never saw. A location the
current shape no longer uses in some way (a type or value now absent) is not drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff

from harness.drift.shape import ANY, WILDCARD, Shape, covers, last_token, parent_of

#: Change kinds, in report order, each with the one line the docs show.
CHANGE_KINDS: dict[str, str] = {
    "object_where_string": "an object where the baseline always had a string (text became structure)",
    "type_changed": "a value of a JSON type the baseline never had at this location",
    "null_appearing": "null where the baseline never had null",
    "field_added": "a member the baseline never had",
    "field_removed": "a member the baseline always had is absent",
    "field_now_optional": "a member the baseline always had is no longer promised every time",
    "enum_value_new": "a value never seen (or declared) at an enum-like location",
}


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``kind`` (a key of :data:`CHANGE_KINDS`), where, and what it was / is."""

    kind: str
    path: str
    before: str
    after: str

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


def _by_section(tree: Any, report: str) -> dict[str, set[Any]]:
    """deepdiff items of one report type, as {path or section: {values}}."""
    found: dict[str, set[Any]] = {}
    for item in tree.get(report, []):
        where = item.path(output_format="list")
        section = where[0]
        if report.startswith("dictionary_item"):
            found.setdefault(section, set()).add(where[1])
        elif section == "required":
            found.setdefault(section, set()).add(item.t2 if report.endswith("added") else item.t1)
        else:
            value = item.t2 if report.endswith("added") else item.t1
            found.setdefault(f"{section}\0{where[1]}", set()).add(value)
    return found


def diff_shapes(baseline: Shape, current: Shape) -> tuple[Change, ...]:
    """Changes from ``baseline`` to ``current``, in a stable order (location, then kind)."""
    tree = DeepDiff(baseline.view(), current.view(), view="tree")
    added_paths = _by_section(tree, "dictionary_item_added").get("types", set())
    removed_paths = _by_section(tree, "dictionary_item_removed").get("types", set())
    set_added = _by_section(tree, "set_item_added")
    changes: list[Change] = []
    for path in added_paths:
        if _reportable_addition(baseline, path):
            changes.append(Change("field_added", path, "absent", _types_text(current.types[path])))
    for path in removed_paths:
        parent = parent_of(path)
        if path in baseline.required and last_token(path) != WILDCARD and "object" in current.types.get(parent, ()):
            changes.append(Change("field_removed", path, _types_text(baseline.types[path]), "absent"))
    for path in baseline.required & current.types.keys():
        if path not in current.required and "object" in current.types.get(parent_of(path), ()):
            changes.append(Change("field_now_optional", path, "always present", "optional"))
    for key, new_types in set_added.items():
        section, _, path = key.partition("\0")
        if section == "types":
            changes.extend(_type_changes(path, baseline.types[path], frozenset(new_types)))
        elif section == "enums" and path in baseline.enums:
            values = ", ".join(sorted(new_types))
            changes.append(Change("enum_value_new", path, _values_text(baseline.enums[path]), values))
    order = list(CHANGE_KINDS)
    return tuple(sorted(changes, key=lambda c: (c.path, order.index(c.kind), c.after)))


def _values_text(values: frozenset[str]) -> str:
    shown = sorted(values)
    text = ", ".join(shown[:8])
    return text + (f", … ({len(shown) - 8} more)" if len(shown) > 8 else "")


def _reportable_addition(baseline: Shape, path: str) -> bool:
    """A new location is a change where its parent was known and closed to it: report the
    outermost new member once, never every member inside it, nor items of a known array."""
    parent = parent_of(path)
    if path == "" or parent not in baseline.types:
        return False
    if ANY in baseline.types[parent]:
        return False
    return last_token(path) != WILDCARD


def _type_changes(path: str, before: frozenset[str], added: frozenset[str]) -> list[Change]:
    new = frozenset(t for t in added if not covers(before, t) or (t == ANY and ANY not in before))
    if not new:
        return []
    changes = []
    rest: set[str] = set(new)
    if "null" in new:
        changes.append(Change("null_appearing", path, _types_text(before), "null"))
        rest.discard("null")
    if "string" in before and "object" in new:
        changes.append(Change("object_where_string", path, _types_text(before), "object"))
        rest.discard("object")
    if rest:
        changes.append(Change("type_changed", path, _types_text(before), _types_text(frozenset(rest))))
    return changes
