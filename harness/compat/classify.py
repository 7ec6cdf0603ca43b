"""The static classifier: from two canonical trees to a list of classified changes.

1. :func:`harness.compat.diff.sites` says where the aligned trees differ.
2. Each site is turned into *facts* for the rule groups (see :mod:`harness.compat.registry`):
   a node whose values are finite in either version is compared value by value (and nothing
   below it is looked at again); differences in ``properties`` / ``patternProperties`` /
   ``additionalProperties`` / ``unevaluatedProperties`` become per-name transitions, worked out
   over every schema that applies unconditionally to the same object (the node, its ``allOf``
   members and references, and the ones it is a member of); ``prefixItems`` / ``items`` /
   ``unevaluatedItems`` become per-position transitions; everything else is a keyword fact.
3. Every rule of the fact's group is asked; the one that claims it gives the finding. A fact
   no rule claims becomes ``unclassified`` (unknown both ways): the classifier fails closed.
4. The context of the node adjusts the verdicts: under ``not`` reader and writer swap; under an
   ``if`` condition, a ``oneOf`` whose branches are not provably disjoint, or a ``contains``
   with ``maxContains``, a one-way verdict becomes ``unknown``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from harness.boundary.schema import validator_for
from harness.compat.diff import Path, Site, align, node_at, pointer_of, sites
from harness.compat.model import Direction, Verdict, worst
from harness.compat.normalise import Side, json_key
from harness.compat.predicates import (
    all_disjoint,
    branches,
    finite_values,
    matches,
    matches_everything,
    members,
    pattern_examples,
)
from harness.compat.registry import (
    DERIVED,
    EXCLUSIVE,
    RULES,
    Constraint,
    Finding,
    NameTransition,
    Registry,
    Rule,
    SlotTransition,
    Target,
    ValueDomain,
)
from harness.errors import ContractError
from harness.pointer import MISSING, resolve
from harness.schemas import keywords as kw
from harness.schemas.resolve import as_schema

MEMBERSHIP = frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"})
SLOTS = frozenset({"prefixItems", "items", "unevaluatedItems"})
_OTHER_NAMES = ("compat_other_name", "~", "\u2603", "0", "Z")
_NUMERIC = {"integer", "number"}


@dataclass(frozen=True, slots=True)
class Change:
    """One classified difference between two versions (static verdicts)."""

    rule: Rule
    path: Path
    keyword: str
    subject: str
    before: Any
    after: Any
    reader: Verdict
    writer: Verdict
    old_pointer: str | None
    new_pointer: str | None
    old_location: str | None  # the keyword as written in the old schema (validator's pointer)
    new_location: str | None
    note: str = ""
    targets: tuple[Target, ...] = field(default=(), repr=False)

    @property
    def pointer(self) -> str:
        """Where the change is, in the new version's expanded tree (the old one's if gone)."""
        found = self.new_pointer if self.new_pointer is not None else self.old_pointer
        return found or ""

    def verdict(self, direction: Direction) -> Verdict:
        return self.reader if direction is Direction.READER else self.writer

    def location(self, side: str) -> str | None:
        return self.old_location if side == "old" else self.new_location


# --------------------------------------------------------------------------- the engine


class Comparison:
    """Two canonical trees, aligned, and what the rules may ask about them."""

    def __init__(self, old_tree: Any, new_tree: Any, *, old: Side | None = None,
                 new: Side | None = None, registry: Registry = RULES, depth: int = 0) -> None:
        """``old``/``new`` (the prepared versions) give written locations; without them (nested
        comparisons of subschemas) changes carry verdicts only."""
        self.old_side, self.new_side = old, new
        self.registry = registry
        self.depth = depth
        self.trees = dict(zip(("old", "new"), align(old_tree, new_tree), strict=True))
        self.canonical = {"old": old_tree, "new": new_tree}
        self._membership: dict[Path, list[NameTransition]] = {}

    # ------------------------------------------------------------------ questions rules ask
    def node(self, side: str, path: Path) -> Any:
        return node_at(self.trees[side], path)

    def subtree(self, side: str, path: Path) -> Any:
        """The canonical (unaligned) subtree at an aligned path."""
        pointer = pointer_of(path, side)
        return MISSING if pointer is None else resolve(self.canonical[side], pointer)

    def nested(self, old: Any, new: Any) -> tuple[Verdict, Verdict]:
        """Static reader / writer verdicts for replacing subschema ``old`` by ``new``."""
        old = {} if old is True else old
        new = {} if new is True else new
        if json_key(old) == json_key(new):
            return Verdict.SAFE, Verdict.SAFE
        if old is False:
            return Verdict.SAFE, Verdict.SAFE if new is False else Verdict.BREAKING
        if new is False:
            return Verdict.BREAKING, Verdict.SAFE
        if self.depth > 8:
            return Verdict.UNKNOWN, Verdict.UNKNOWN
        inner = Comparison(old, new, registry=self.registry, depth=self.depth + 1)
        changes = inner.changes()
        return worst(c.reader for c in changes), worst(c.writer for c in changes)

    def conjunction(self, constraint: Constraint, side: str) -> Any:
        parts = [self.subtree(side, path) for path in constraint.sources]
        parts = [p for p in parts if p is not MISSING and p != {}]
        if constraint.state == "forbidden":
            return False
        if not parts:
            return {}
        return parts[0] if len(parts) == 1 else {"allOf": parts}

    # ------------------------------------------------------------------ value domains
    def value_domain(self, path: Path) -> ValueDomain | None:
        old, new = self.subtree("old", path), self.subtree("new", path)
        if old is MISSING or new is MISSING:
            return None
        old_values, new_values = finite_values(old), finite_values(new)
        if old_values is None and new_values is None:
            return None
        try:
            old_check = validator_for(as_schema(old)).is_valid
            new_check = validator_for(as_schema(new)).is_valid
        except ContractError:
            return None  # not compilable on its own (an unexpanded reference): keyword facts
        old_accepted = tuple(v for v in old_values or () if old_check(v))
        new_accepted = tuple(v for v in new_values or () if new_check(v))
        return ValueDomain(
            path, old, new,
            old_accepted if old_values is not None else None,
            new_accepted if new_values is not None else None,
            tuple(v for v in old_accepted if not new_check(v)),
            tuple(v for v in new_accepted if not old_check(v)),
        )

    # ------------------------------------------------------------------ membership
    def cluster_root(self, path: Path) -> Path:
        root = list(path)
        while root:
            if root[-1] == "$ref":
                root.pop()
            elif len(root) >= 2 and root[-2] == "allOf":
                del root[-2:]
            else:
                break
        return tuple(root)

    def cluster(self, side: str, root: Path) -> list[tuple[Path, Any]]:
        found: list[tuple[Path, Any]] = []

        def walk(path: Path, node: Any) -> None:
            if not isinstance(node, dict):
                if node is False:
                    found.append((path, node))
                return
            found.append((path, node))
            for tokens, member in members(node):
                walk(path + tokens, member)

        start = self.node(side, root)
        if start is not MISSING:
            walk(root, start)
        return found

    def _visible(self, side: str, path: Path) -> tuple[set[str], set[str], bool, bool]:
        """Names and patterns the cluster under ``path`` evaluates, whether some member
        evaluates every name, and whether that is exact (no conditional branch declares names)."""
        names: set[str] = set()
        patterns: set[str] = set()
        everything, exact = False, True
        for member_path, node in self.cluster(side, path):
            if not isinstance(node, dict):
                continue
            names |= set(node.get("properties") or {})
            patterns |= set(node.get("patternProperties") or {})
            if "additionalProperties" in node or (member_path != path and "unevaluatedProperties" in node):
                everything = True
            conditional = [*branches(node.get("anyOf")), *branches(node.get("oneOf")),
                           *branches(node.get("dependentSchemas")),
                           *(node[k] for k in ("if", "then", "else") if k in node)]
            if any(isinstance(b, dict) and MEMBERSHIP & set(_flatten_keys(b)) for b in conditional):
                exact = False
        return names, patterns, everything, exact

    def constraint(self, side: str, root: Path, name: str) -> Constraint:
        parts: list[tuple[Path, Any]] = []
        closer: tuple[Path, str] | None = None
        declared = False
        for path, node in self.cluster(side, root):
            if node is False:
                return Constraint("forbidden", ((path, False),), (path, "false"))
            properties = node.get("properties") or {}
            patterns = node.get("patternProperties") or {}
            if name in properties:
                declared = True
                parts.append(((*path, "properties", name), properties[name]))
            hits = [p for p in patterns if matches(p, name)]
            parts += [((*path, "patternProperties", p), patterns[p]) for p in hits]
            if name not in properties and not hits and "additionalProperties" in node:
                parts.append(((*path, "additionalProperties"), node["additionalProperties"]))
                if node["additionalProperties"] is False:
                    closer = (path, "additionalProperties")
            if "unevaluatedProperties" in node and "additionalProperties" not in node:
                names, pats, everything, exact = self._visible(side, path)
                if not exact:
                    return Constraint("unknown", reason=(
                        "unevaluatedProperties sees names declared in conditional branches "
                        "(anyOf/oneOf/if/dependentSchemas); not modelled"))
                seen = name in names or any(matches(p, name) for p in pats)
                if not everything and not seen:
                    parts.append(((*path, "unevaluatedProperties"), node["unevaluatedProperties"]))
                    if node["unevaluatedProperties"] is False:
                        closer = closer or (path, "unevaluatedProperties")
            if (properties.get(name) is False) and closer is None:
                closer = ((*path, "properties"), name)
        if any(schema is False for _, schema in parts):
            return Constraint("forbidden", tuple(parts), closer, declared)
        if all(schema == {} for _, schema in parts):
            return Constraint("any", tuple(parts), None, declared)
        return Constraint("schemas", tuple(parts), None, declared)

    def membership(self, path: Path) -> list[NameTransition]:
        root = self.cluster_root(path)
        if root in self._membership:
            return self._membership[root]
        clusters = {side: self.cluster(side, root) for side in ("old", "new")}
        declared: dict[str, None] = {}
        patterns: dict[str, None] = {}
        for side in ("old", "new"):
            for _, node in clusters[side]:
                if isinstance(node, dict):
                    declared.update(dict.fromkeys(node.get("properties") or {}))
                    patterns.update(dict.fromkeys(node.get("patternProperties") or {}))
        names: list[tuple[str, str]] = [(n, "named") for n in declared]
        many_patterns = len(patterns) > 1
        for pattern in patterns:
            example = next((e for e in pattern_examples(pattern) if e not in declared), None)
            names.append((example, "pattern") if example is not None else (pattern, "pattern?"))
        if not any(matches_everything(p) for p in patterns):
            other = next((n for n in _OTHER_NAMES
                          if n not in declared and not any(matches(p, n) for p in patterns)), None)
            names.append((other, "other") if other is not None else ("", "other?"))
        transitions = []
        for name, region in names:
            transitions.extend(self._transition(root, name, region, many_patterns))
        self._membership[root] = transitions
        return transitions

    def _transition(self, root: Path, name: str, region: str, many_patterns: bool) -> list[NameTransition]:
        if region.endswith("?"):
            unknown = Constraint("unknown", reason=f"no name found to stand for the {region[:-1]} region")
            return [NameTransition(root, name, region[:-1], unknown, unknown, Verdict.UNKNOWN,
                                   Verdict.UNKNOWN, True, "patternProperties")]
        old, new = self.constraint("old", root, name), self.constraint("new", root, name)
        if old.state == new.state and old.state in ("any", "forbidden"):
            return []
        if old.state == new.state == "schemas" and old.sources == new.sources:
            return []  # same subschemas: their own differences are keyword facts
        if "unknown" in (old.state, new.state):
            reader = writer = Verdict.UNKNOWN
        else:
            reader, writer = self.nested(self.conjunction(old, "old"), self.conjunction(new, "new"))
            if region == "pattern" and many_patterns:
                reader = Verdict.UNKNOWN if reader is Verdict.SAFE else reader
                writer = Verdict.UNKNOWN if writer is Verdict.SAFE else writer
        declaring = next((p[:-2] for p, _ in (*new.parts, *old.parts)
                          if p[-2:-1] == ("properties",) and p[-1] == name), root)
        closer = old.closer or new.closer
        keyword = closer[1] if closer else ("additionalProperties" if region == "other" else "properties")
        open_before = old.state != "forbidden"
        return [NameTransition(declaring, name, region, old, new, reader, writer, open_before, keyword)]

    # ------------------------------------------------------------------ array positions
    def slots(self, path: Path) -> list[SlotTransition]:
        def slot(side: str, index: int | None) -> Constraint:
            node = self.node(side, path)
            if not isinstance(node, dict):
                return Constraint("forbidden" if node is False else "any")
            prefix = node.get("prefixItems") or []
            if index is not None and index < len(prefix):
                sub = prefix[index]
                where: Path = (*path, "prefixItems", str(index))
            elif "items" in node:
                sub, where = node["items"], (*path, "items")
            elif "unevaluatedItems" in node:
                if any(members(node)) or any(k in node for k in ("anyOf", "oneOf", "if", "contains")):
                    return Constraint("unknown", reason="unevaluatedItems with in-place applicators; not modelled")
                sub, where = node["unevaluatedItems"], (*path, "unevaluatedItems")
            else:
                return Constraint("any")
            state = "forbidden" if sub is False else "any" if sub == {} else "schemas"
            keyword = "prefixItems" if len(where) > len(path) + 1 else where[-1]
            return Constraint(state, ((where, sub),), (path, keyword) if sub is False else None)

        lengths = [len((self.node(s, path) or {}).get("prefixItems") or [])
                   if isinstance(self.node(s, path), dict) else 0 for s in ("old", "new")]
        found = []
        for index in [*range(max(lengths)), None]:
            old, new = slot("old", index), slot("new", index)
            if old.state == new.state and old.state in ("any", "forbidden"):
                continue
            if old.state == new.state == "schemas" and old.sources == new.sources:
                continue
            if "unknown" in (old.state, new.state):
                reader = writer = Verdict.UNKNOWN
            else:
                reader, writer = self.nested(self.conjunction(old, "old"), self.conjunction(new, "new"))
            found.append(SlotTransition(path, "rest" if index is None else str(index), old, new, reader, writer))
        return found

    # ------------------------------------------------------------------ context
    def context(self, path: Path) -> tuple[bool, str]:
        """(flip reader and writer?, why one-way verdicts are unknown here, or '')."""
        flip, reason = False, ""
        i = 0
        while i < len(path):
            parent = path[:i]
            token = path[i]
            if token == "not":
                flip = not flip
            elif token == "if":
                reason = reason or f"inside the if condition at {pointer_of(parent, 'new') or '/'}: not monotone"
            elif token == "contains":
                for side in ("old", "new"):
                    node = self.node(side, parent)
                    if isinstance(node, dict) and "maxContains" in node:
                        reason = reason or "inside contains with maxContains: not monotone"
            elif token == "oneOf":
                for side in ("old", "new"):
                    node = self.node(side, parent)
                    if isinstance(node, dict) and not all_disjoint(branches(node.get("oneOf"))):
                        reason = reason or (f"oneOf at {pointer_of(parent, side) or '/'} has branches "
                                            "that are not provably disjoint")
            i += 2 if token in kw.BRANCHES | kw.MAP | {"prefixItems"} else 1
        return flip, reason

    # ------------------------------------------------------------------ classification
    def _ask(self, group: str, fact: Any) -> list[tuple[Rule, Finding]]:
        answers = []
        for rule in self.registry.group(group):
            if not rule.applies(fact):
                continue
            finding = rule.detect(fact, self)
            if finding is not None:
                answers.append((rule, finding))
                if group in EXCLUSIVE:
                    break
        return answers

    def changes(self) -> list[Change]:
        found: list[Change] = []
        seen: set[tuple[str, Path, str]] = set()
        consumed: list[Path] = []
        done_members: set[Path] = set()
        done_slots: set[Path] = set()

        def emit(group: str, fact: Any, path: Path, keyword: str) -> None:
            answers = self._ask(group, fact)
            if not answers:
                answers = [(self.registry["unclassified"], Finding(
                    self._shown(fact, "old"), self._shown(fact, "new"),
                    subject=getattr(fact, "keyword", keyword), note="no rule models this difference"))]
            for rule, finding in answers:
                key = (rule.id, path, finding.subject)
                if key not in seen:
                    seen.add(key)
                    found.append(self._change(rule, finding, path, keyword))

        for site in sites(self.trees["old"], self.trees["new"]):
            if any(site.path[:len(p)] == p for p in consumed):
                continue
            domain = self.value_domain(site.path)
            if domain is not None:
                consumed.append(site.path)
                emit("value", domain, site.path, _value_keyword(domain))
                continue
            if site.keyword in MEMBERSHIP:
                root = self.cluster_root(site.path)
                if root not in done_members:
                    done_members.add(root)
                    for transition in self.membership(site.path):
                        emit("member", transition, transition.path, transition.keyword)
                continue
            if site.keyword in SLOTS:
                if site.path not in done_slots:
                    done_slots.add(site.path)
                    for slot in self.slots(site.path):
                        emit("items", slot, slot.path, "items")
                continue
            emit("keyword", site, site.path, site.keyword)
        written_differs = (self.old_side is not None and self.new_side is not None
                           and json_key(self.old_side.raw) != json_key(self.new_side.raw))
        if found or written_differs:
            found += self._unmodelled()
        return found

    def _shown(self, fact: Any, side: str) -> Any:
        if isinstance(fact, Site):
            node = self.node(side, fact.path)
            value = node.get(fact.keyword, "(absent)") if isinstance(node, dict) else node
            return value.get(fact.member, "(absent)") if fact.member and isinstance(value, dict) else value
        return getattr(getattr(fact, side, None), "state", None)

    def _unmodelled(self) -> list[Change]:
        """Constructs not modelled in either version, once the versions differ at all (as
        written: a dynamic reference may reach a changed ``$defs`` entry the expanded trees do
        not show)."""
        extra = []
        rule = self.registry["unsupported_reference"]
        for label, side in (("old", self.old_side), ("new", self.new_side)):
            if side is None:
                continue
            for item in side.unsupported:
                if item.keyword not in kw.REFERENCES:
                    continue
                finding = Finding(item.reason, item.reason, subject=f"{side.label}: {item.keyword}",
                                  reader=Verdict.UNKNOWN, writer=Verdict.UNKNOWN,
                                  note="the schemas differ elsewhere; what this construct means "
                                       "after the change is not modelled")
                change = self._change(rule, finding, (), item.keyword)
                extra.append(replace(
                    change,
                    old_pointer=item.pointer if label == "old" else None,
                    new_pointer=item.pointer if label == "new" else None,
                    old_location=item.location.display(side.expanded.root) if label == "old" else None,
                    new_location=item.location.display(side.expanded.root) if label == "new" else None,
                ))
        return extra

    def _change(self, rule: Rule, finding: Finding, path: Path, keyword: str) -> Change:
        reader = finding.reader if rule.reader == DERIVED or finding.reader is not None else Verdict(rule.reader)
        writer = finding.writer if rule.writer == DERIVED or finding.writer is not None else Verdict(rule.writer)
        assert reader is not None and writer is not None, f"{rule.name} must give derived verdicts"
        targets = tuple(replace(t, path=t.path if t.path is not None else path) for t in finding.targets)
        flip, reason = self.context(path)
        note = finding.note
        if flip:
            reader, writer = writer, reader
            targets = tuple(replace(t, direction=t.direction.flipped()) for t in targets)
        if reason and not (reader is writer is Verdict.SAFE):
            reader = Verdict.UNKNOWN if reader is Verdict.SAFE else reader
            writer = Verdict.UNKNOWN if writer is Verdict.SAFE else writer
            note = f"{note}; {reason}" if note else reason
        old_at = finding.old_at or (path, keyword)
        new_at = finding.new_at or (path, keyword)
        if flip:
            targets = ()  # a witness inside a negation is found by sampling, not by focusing
        return Change(
            rule=rule, path=path, keyword=keyword, subject=finding.subject,
            before=finding.before, after=finding.after, reader=reader, writer=writer,
            old_pointer=pointer_of(path, "old") if self.node("old", path) is not MISSING else None,
            new_pointer=pointer_of(path, "new") if self.node("new", path) is not MISSING else None,
            old_location=self._location("old", *old_at), new_location=self._location("new", *new_at),
            note=note, targets=targets,
        )

    def _location(self, side: str, path: Path, keyword: str) -> str | None:
        owner = self.old_side if side == "old" else self.new_side
        node = self.node(side, path)
        if owner is None or not isinstance(node, dict) or (keyword not in node and keyword not in ("false", "")):
            return None
        pointer = pointer_of(path, side) if not (path and path[-1] in kw.MAP) else (
            None if pointer_of(path[:-1], side) is None else f"{pointer_of(path[:-1], side)}/{_escape(path[-1])}")
        if pointer is None:
            return None
        where = owner.location(pointer)
        return where.display(owner.expanded.root) + ("" if keyword in ("false", "") else "/" + _escape(keyword))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _flatten_keys(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        yield from node
        for _, member in members(node):
            yield from _flatten_keys(member)


def _value_keyword(domain: ValueDomain) -> str:
    for node in (domain.new_node, domain.old_node):
        if isinstance(node, dict):
            for key in ("const", "enum", "type"):
                if key in node:
                    return key
    return "enum"



