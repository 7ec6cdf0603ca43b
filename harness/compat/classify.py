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

from harness.boundary.validator import validator_for
from harness.compat.diff import Path, Site, align, node_at, pointer_of, sites
from harness.compat.flatten import combinators, flatten, union
from harness.compat.model import Direction, Verdict, worst
from harness.compat.normalise import REF_TARGET, Side, json_key
from harness.compat.predicates import (
    all_disjoint,
    branches,
    disjoint,
    effective_types,
    finite_values,
    forbids,
    intersect_types,
    matches,
    matches_everything,
    members,
    pattern_examples,
    pattern_names,
    types_of,
)
from harness.compat.registry import (
    DERIVED,
    EXCLUSIVE,
    RULES,
    CompatRuleRegistry,
    Constraint,
    Finding,
    NameTransition,
    NodeChange,
    Rule,
    SlotTransition,
    Target,
    ValueDomain,
)
from harness.errors import ContractError
from harness.pointer import MISSING, escape_token, resolve
from harness.schemas import dialects
from harness.schemas import keywords as kw
from harness.schemas.dialects import CONDITIONS, ITEMS, MEMBERS, SIBLING_GROUPS, UNEVALUATED, written_as
from harness.schemas.resolve import as_schema

#: Keywords of a node whose differences are worked out per array position (in 2020-12 form).
SLOTS = ITEMS - kw.LEGACY
_OTHER_NAMES = ("compat_other_name", "~", "\u2603", "0", "Z")


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
                 new: Side | None = None, registry: CompatRuleRegistry = RULES, depth: int = 0,
                 included: dict[tuple[str, str], Verdict] | None = None) -> None:
        """``old``/``new`` (the prepared versions) give written locations; without them (nested
        comparisons of subschemas) changes carry verdicts only. ``included`` is the memo of
        :meth:`includes`, shared with the nested comparisons."""
        self.old_side, self.new_side = old, new
        self._included = {} if included is None else included
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
        old, new = flatten(old), flatten(new)
        if union(old) is not None or union(new) is not None:
            return self.includes(old, new), self.includes(new, old)
        return self._compared(old, new)

    def includes(self, smaller: Any, larger: Any) -> Verdict:
        """Is every document ``smaller`` accepts accepted by ``larger``? ``safe`` when proved,
        ``breaking`` when the rules name a document that is not, else ``unknown``.

        Both are flattened first (:mod:`harness.compat.flatten`); a union is taken branch by
        branch: every branch of ``smaller`` must be included, and ``smaller`` (each of its types
        in turn) must fall in one branch of ``larger`` — for a ``oneOf``, one it shares no
        document with any other branch of."""
        a, b = flatten(smaller), flatten(larger)
        key = (json_key(a), json_key(b))
        if key not in self._included:
            self._included[key] = Verdict.UNKNOWN  # asked again inside itself: undecided
            self._included[key] = self._includes(a, b)
        return self._included[key]

    def _includes(self, a: Any, b: Any) -> Verdict:
        if a is False or b == {} or json_key(a) == json_key(b):
            return Verdict.SAFE
        if b is False:
            return Verdict.BREAKING
        conjuncts = _conjuncts(b)
        if conjuncts is not None:
            # a must meet each of b's conjuncts: its plain keywords, each allOf member, each
            # condition (answered on its own terms, so no question is asked inside itself)
            found = [self._within(a, kind, part) for kind, part in conjuncts]
            if all(v is Verdict.SAFE for v in found):
                return Verdict.SAFE
            return Verdict.BREAKING if Verdict.BREAKING in found else Verdict.UNKNOWN
        left, right = union(a), union(b)
        if left is not None:
            keyword, branches, rest = left
            found = [self.includes(flatten({"allOf": [rest, x]}) if rest else x, b) for x in branches]
            verdict = worst(found)
            if verdict is Verdict.BREAKING and keyword == "oneOf":
                return Verdict.UNKNOWN  # the branch's document may match two branches: not one of a's
            return verdict
        if right is not None:
            keyword, branches, rest = right
            if rest:  # a must fit both the keywords beside the union and the union itself
                beside, within = self.includes(a, rest), self.includes(a, {keyword: branches})
                if beside is within is Verdict.SAFE:
                    return Verdict.SAFE
                return Verdict.BREAKING if beside is Verdict.BREAKING else Verdict.UNKNOWN
            types = types_of(a)
            if types is not None and len(types) > 1:
                parts = [self.includes({**a, "type": [t]}, b) for t in sorted(types)]
                if all(v is Verdict.SAFE for v in parts):
                    return Verdict.SAFE
            for index, branch in enumerate(branches):
                if self.includes(a, branch) is not Verdict.SAFE:
                    continue
                others = [x for i, x in enumerate(branches) if i != index]
                if keyword == "anyOf" or all(disjoint(a, x) for x in others):
                    return Verdict.SAFE
            if all(disjoint(a, x) for x in branches):
                return Verdict.BREAKING
            return Verdict.UNKNOWN
        return self._compared(a, b)[0]

    def _within(self, a: Any, kind: str, part: Any) -> Verdict:
        """Does every document of ``a`` meet one conjunct of another node (see :func:`_conjuncts`)?"""
        if kind == "schema":
            return self.includes(a, part)
        if kind == "not":  # a inside "not X": a and X share no document
            if disjoint(a, part):
                return Verdict.SAFE
            return Verdict.BREAKING if self.includes(a, part) is Verdict.SAFE else Verdict.UNKNOWN
        if kind == "dependentSchemas":  # documents of a holding the name meet the schema
            name, schema = part
            if forbids(a, name):
                return Verdict.SAFE
            return self.includes(flatten({"allOf": [a, {"required": [name]}]}), schema)
        # if/then/else: documents of a meeting the condition meet then, the others else
        condition, then, otherwise = part
        verdicts = []
        if then is not None:
            verdicts.append(Verdict.SAFE if disjoint(a, condition) else
                            self.includes(flatten({"allOf": [a, condition]}), then))
        if otherwise is not None:
            inside = self.includes(a, condition)
            verdicts.append(Verdict.SAFE if inside is Verdict.SAFE else
                            self.includes(flatten({"allOf": [a, {"not": condition}]}), otherwise))
        return worst(verdicts)

    def _compared(self, old: Any, new: Any) -> tuple[Verdict, Verdict]:
        """The worst reader and writer verdicts of the changes between two (flat) subschemas."""
        if json_key(old) == json_key(new):
            return Verdict.SAFE, Verdict.SAFE
        if old is False:
            return Verdict.SAFE, Verdict.SAFE if new is False else Verdict.BREAKING
        if new is False:
            return Verdict.BREAKING, Verdict.SAFE
        if self.depth > 8:
            return Verdict.UNKNOWN, Verdict.UNKNOWN
        inner = Comparison(old, new, registry=self.registry, depth=self.depth + 1, included=self._included)
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

    # ------------------------------------------------------------------ composition
    def node_change(self, path: Path) -> NodeChange | None:
        """The node at ``path`` judged as a whole, when its composition keywords changed in a way
        the per-keyword rules would misread: the two versions accept the same documents once
        merged with their in-place members, or a union or merged member stands on one side only.
        None: the per-keyword rules judge it."""
        old, new = self.subtree("old", path), self.subtree("new", path)
        if old is MISSING or new is MISSING:
            return None
        old_flat, new_flat = flatten(old), flatten(new)
        if json_key(old_flat) == json_key(new_flat):
            return NodeChange(path, old, new, old_flat, new_flat, Verdict.SAFE, Verdict.SAFE)
        if old_flat is False or new_flat is False:  # one side accepts nothing
            return NodeChange(path, old, new, old_flat, new_flat, *self.nested(old_flat, new_flat))
        merged = json_key(old_flat) != json_key(_bare(old)) or json_key(new_flat) != json_key(_bare(new))
        unions = union(old_flat) is not None or union(new_flat) is not None
        if combinators(old) == combinators(new) or not (merged or unions):
            return None
        # Keywords written in place on both sides and untouched by the merge stay where they are:
        # their own differences are classified keyword by keyword, below this node.
        kept = _kept(old, new, old_flat, new_flat)
        old_rest = {k: v for k, v in old_flat.items() if k not in kept}
        new_rest = {k: v for k, v in new_flat.items() if k not in kept}
        if json_key(old_rest) == json_key(new_rest):
            return NodeChange(path, old, new, old_rest, new_rest, Verdict.SAFE, Verdict.SAFE, kept)
        reader, writer = self.nested(old_rest, new_rest)
        return NodeChange(path, old, new, old_rest, new_rest, reader, writer, kept)

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
            if any(isinstance(b, dict) and MEMBERS & set(_flatten_keys(b)) for b in conditional):
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
            if example is None and (only := pattern_names(pattern)) is not None and only <= declared.keys():
                continue  # it matches declared names only (^foo$): no region of its own to stand for
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
    def context(self, path: Path) -> tuple[bool, str, str]:
        """(flip reader and writer?, why a safe reader verdict is unknown here, the same for
        writer; '' when it is not)."""
        flip, reasons = False, {Direction.READER: "", Direction.WRITER: ""}

        def because(direction: Direction, reason: str) -> None:
            direction = direction.flipped() if flip else direction  # as seen from the root
            reasons[direction] = reasons[direction] or reason

        i = 0
        while i < len(path):
            parent = path[:i]
            token = path[i]
            if token == "not":
                flip = not flip
            elif token == "if":
                for direction in Direction:
                    because(direction, f"inside the if condition at {pointer_of(parent, 'new') or '/'}: not monotone")
            elif token == "contains":
                for side in ("old", "new"):
                    node = self.node(side, parent)
                    if isinstance(node, dict) and "maxContains" in node:
                        for direction in Direction:
                            because(direction, "inside contains with maxContains: not monotone")
            elif token == "oneOf":
                for direction in self._overlapping(parent):
                    because(direction, f"oneOf at {pointer_of(parent, direction.target) or '/'} has branches "
                                       "that are not provably disjoint")
            i += kw.steps(token)
        return flip, reasons[Direction.READER], reasons[Direction.WRITER]

    def _overlapping(self, path: Path) -> list[Direction]:
        """The directions in which a document matching one branch of the ``oneOf`` at ``path``
        might also match another branch of the other version (and so be rejected there).

        Reader-safe needs every old branch disjoint from every *other* new branch; writer-safe
        the reverse. A branch kept as it was is compared with the other branches as well."""
        found = []
        old, new = self.node("old", path), self.node("new", path)
        old_branches = old.get("oneOf") if isinstance(old, dict) else None
        new_branches = new.get("oneOf") if isinstance(new, dict) else None
        if not isinstance(old_branches, dict) or not isinstance(new_branches, dict):
            for found_branches in (old_branches, new_branches):
                if found_branches is not None and not all_disjoint(branches(found_branches)):
                    return list(Direction)
            return []
        for direction, (sources, targets) in ((Direction.READER, (old_branches, new_branches)),
                                              (Direction.WRITER, (new_branches, old_branches))):
            if not all(disjoint(a, b) for ka, a in sources.items() for kb, b in targets.items() if ka != kb):
                found.append(direction)
        return found

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
        consumed: list[tuple[Path, tuple[str, ...]]] = []  # a node judged whole, but the keywords kept
        done_members: set[Path] = set()

        def taken(site: Site) -> bool:
            for path, kept in consumed:
                if site.path[:len(path)] != path:
                    continue
                below = site.path[len(path):]
                if not (below[0] in kept if below else site.keyword in kept):
                    return True
            return False
        done_slots: set[Path] = set()

        def emit(group: str, fact: Any, path: Path, keyword: str) -> None:
            answers = self._ask(group, fact)
            if not answers:
                answers = [(self.registry["unclassified"], Finding(
                    self._written(fact, "old"), self._written(fact, "new"),
                    subject=getattr(fact, "keyword", keyword), note="no rule models this difference"))]
            for rule, finding in answers:
                key = (rule.id, path, finding.subject)
                if key not in seen:
                    seen.add(key)
                    found.append(self._change(rule, finding, path, keyword))

        found_sites = list(sites(self.trees["old"], self.trees["new"]))
        for site in found_sites:
            if taken(site):
                continue
            condition = _condition_of(site.path)
            if condition is not None:
                # A change inside an if condition: the conditional is judged as a whole.
                consumed.append(((*condition, "if"), ()))
                emit("keyword", Site(condition, "if"), condition, "if")
                continue
            if _restructured(site, self.node("old", site.path), self.node("new", site.path)) or site.keyword == "":
                fact = self.node_change(site.path)
                if fact is not None:
                    consumed.append((site.path, fact.kept))
                    emit("node", fact, site.path, "")
        for site in found_sites:
            if taken(site):
                continue
            domain = self.value_domain(site.path)
            if domain is not None:
                consumed.append((site.path, ()))
                emit("value", domain, site.path, _value_keyword(domain))
                continue
            if site.keyword in MEMBERS:
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

    def _written(self, fact: Any, side: str) -> Any:
        """What a finding records for ``side`` of ``fact``: a site's keyword as written
        (``(absent)`` where it is not), another fact's state on that side."""
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
        note = finding.note
        reader, writer, note = self._typed_away(keyword, path, reader, writer, note)
        if path and self._admits_nothing("old", path) and self._admits_nothing("new", path):
            reader = writer = Verdict.SAFE
            why = "in neither version does the subschema admit a value of a type it applies to"
            note = f"{note}; {why}" if note else why
        flip, reader_reason, writer_reason = self.context(path)
        if flip:
            reader, writer = writer, reader
            targets = tuple(replace(t, direction=t.direction.flipped()) for t in targets)
        if not (reader is writer is Verdict.SAFE):
            for reason, verdict in ((reader_reason, reader), (writer_reason, writer)):
                if reason and verdict is Verdict.SAFE and reason not in note:
                    note = f"{note}; {reason}" if note else reason
            reader = Verdict.UNKNOWN if reader_reason and reader is Verdict.SAFE else reader
            writer = Verdict.UNKNOWN if writer_reason and writer is Verdict.SAFE else writer
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

    def _typed_away(self, keyword: str, path: Path, reader: Verdict, writer: Verdict,
                    note: str) -> tuple[Verdict, Verdict, str]:
        """A keyword that constrains only some types (``minimum``: numbers) cannot break the
        documents of a version whose node admits none of them: ``contains: {type: string}`` ->
        ``contains: {minimum: 3}`` rejects no old document (the type's removal is its own change)."""
        typed = dialects.instance_types(keyword)
        if typed is None:
            return reader, writer, note
        for side in ("old", "new"):
            types = effective_types(self.node(side, path))
            if types is None or types & typed or not types:
                continue
            verdict = reader if side == "old" else writer
            if verdict is not Verdict.BREAKING:
                continue
            why = (f"{keyword} constrains only {'/'.join(sorted(typed))} values and the {side} schema "
                   f"admits only {'/'.join(sorted(types))} here")
            note = f"{note}; {why}" if note else why
            if side == "old":
                reader = Verdict.SAFE
            else:
                writer = Verdict.SAFE
        return reader, writer, note

    def _admits_nothing(self, side: str, path: Path) -> bool:
        """Whether the subschema at ``path`` admits no value where it applies: its types meet none
        of those its place allows (``dependentSchemas: {a: {type: string}}`` under an object
        schema rejects every object holding ``a``, and ``{type: number}`` there rejects the same
        ones: a change between them changes nothing)."""
        node = self.node(side, path)
        if node is False:
            return True
        types, allowed = effective_types(node), self._place_types(side, path)
        return types is not None and allowed is not None and not intersect_types(types, allowed)

    def _place_types(self, side: str, path: Path) -> set[str] | None:
        """The types a value may have where the subschema at ``path`` applies: those of every
        schema it applies in place of (through ``allOf``/``anyOf``/``oneOf``/``then``/``else``),
        and ``object`` for a ``dependentSchemas`` entry; None when anything goes, or the path
        passes a condition or a negation (where admitting nothing is no change of its own)."""
        allowed: set[str] | None = None
        i = 0
        while i < len(path):
            token = path[i]
            if token in dialects.NON_ASSERTING:
                return None
            if token in dialects.IN_PLACE and token not in kw.REFERENCES:
                around = effective_types(self.node(side, path[:i]))
                for types in (around, dialects.instance_types(token)):
                    if types is not None:
                        allowed = set(types) if allowed is None else intersect_types(allowed, set(types))
            else:
                allowed = None  # a member's or an item's value: another instance
            i += kw.steps(token)
        return allowed

    def _location(self, side: str, path: Path, keyword: str) -> str | None:
        owner = self.old_side if side == "old" else self.new_side
        node = self.node(side, path)
        if owner is None or not isinstance(node, dict) or (keyword not in node and keyword not in ("false", "")):
            return None
        pointer = pointer_of(path, side) if not (path and path[-1] in kw.MAP) else (
            None if pointer_of(path[:-1], side) is None else f"{pointer_of(path[:-1], side)}/{escape_token(path[-1])}")
        if pointer is None:
            return None
        where = owner.location(pointer)
        if keyword in ("false", ""):
            return where.display(owner.expanded.root)
        if where.resource == owner.expanded.root:
            keyword = written_as(keyword, resolve(owner.raw, where.pointer))
        return where.display(owner.expanded.root) + "/" + escape_token(keyword)


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





def _kept(old: Any, new: Any, old_flat: Any, new_flat: Any) -> tuple[str, ...]:
    """The keywords of a restructured node that stay where they are: written in the node itself
    in both versions and left as written by the merge; never part of a group whose meaning
    depends on a sibling that moved (``properties`` beside an ``additionalProperties`` that went
    into a member), nor anything next to ``unevaluated*`` (which sees every member)."""
    if not all(isinstance(n, dict) for n in (old, new, old_flat, new_flat)):
        return ()
    if any(k in f for f in (old_flat, new_flat) for k in UNEVALUATED):
        return ()
    kept = {k for k in old if k in new and k not in kw.BRANCHES | {"$ref", REF_TARGET}
            and k in old_flat and k in new_flat
            and json_key(old_flat[k]) == json_key(old[k]) and json_key(new_flat[k]) == json_key(new[k])}
    for group in SIBLING_GROUPS:
        present = group & (set(old_flat) | set(new_flat))
        if present & kept and not present <= kept:
            kept -= present
    return tuple(sorted(kept))


def _bare(node: Any) -> Any:
    return {k: v for k, v in node.items() if k != REF_TARGET} if isinstance(node, dict) else node


def _condition_of(path: Path) -> Path | None:
    """The node whose ``if`` condition holds ``path`` (the outermost), or None."""
    i = 0
    while i < len(path):
        if path[i] == "if":
            return path[:i]
        i += kw.steps(path[i])
    return None


def _restructured(site: Site, old: Any, new: Any) -> bool:
    """Is the site a composition keyword (or an expanded reference) added, removed, or a member
    of one added or removed?"""
    if site.keyword not in kw.BRANCHES and site.keyword != "$ref":
        return False
    if site.member is None:
        return not (isinstance(old, dict) and isinstance(new, dict) and site.keyword in old and site.keyword in new)
    return site.member.startswith("-:") or site.member.endswith(":-")




def _conjuncts(node: Any) -> list[tuple[str, Any]] | None:
    """A flat node as the conjuncts it requires — its plain keywords, each ``allOf`` member, each
    ``not``, ``dependentSchemas`` entry and if/then/else — or None when it has no condition (or
    an ``unevaluated*`` keyword that sees what the conditions evaluate)."""
    if not isinstance(node, dict) or not any(k in node for k in CONDITIONS):
        return None
    if UNEVALUATED & set(node):
        return None
    plain = {k: v for k, v in node.items() if k not in CONDITIONS}
    parts: list[tuple[str, Any]] = [("schema", plain)] if plain else []
    parts += [("schema", member) for member in node.get("allOf") or []]
    if "not" in node:
        parts.append(("not", node["not"]))
    for name, schema in (node.get("dependentSchemas") or {}).items():
        parts.append(("dependentSchemas", (name, schema)))
    if "if" in node and ("then" in node or "else" in node):
        parts.append(("if", (node["if"], node.get("then"), node.get("else"))))
    return parts
