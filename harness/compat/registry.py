"""The compat rule registry: one decorated function per change class.

A rule is a function with metadata — a stable ``id``, the ``group`` of facts it reads, its
declared reader / writer verdicts, a one-line docstring and a minimal ``example`` pair of
schemas — registered with ``@registry.rule(...)`` in the module of its id group
(:mod:`harness.compat.rules`). The engine (:mod:`harness.compat.classify`)
hands every fact of a rule's group to the rule; the rule returns a :class:`Finding` when the
fact belongs to its class, else ``None``. The catalogue (``docs/reference/compat-rules.md``),
the docs and the table-driven tests are generated from the same metadata.

Groups and the facts they receive:

- ``keyword``: a :class:`~harness.compat.diff.Site` (one keyword of one node differs);
- ``value``: a :class:`ValueDomain` (a node whose values are finite on either side: ``enum``,
  ``const``, ``null``/``boolean`` types, compared value by value with the validator);
- ``member``: a :class:`NameTransition` (what constrains one property name changed);
- ``items``: a :class:`SlotTransition` (what constrains one array position changed);
- ``node``: a :class:`NodeChange` (a node rewritten with other composition keywords, judged as
  one change of the set of documents it accepts).

Verdicts are ``safe``, ``breaking``, ``unknown`` or ``derived`` (the finding carries verdicts computed for
the case at hand, e.g. by comparing the two subschemas a property moves between).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.compat.diff import Path
from harness.compat.model import Direction, Verdict
from harness.registry import Registry as _Registry

DERIVED = "derived"
GROUPS = ("keyword", "value", "member", "items", "node")
#: Groups whose facts belong to exactly one class (the first rule that claims one wins); in the
#: others every rule is asked (``required`` may both gain and lose names in one change).
EXCLUSIVE = frozenset({"member", "items", "node"})


@dataclass(frozen=True, slots=True)
class Target:
    """A recipe for a witness: a document valid under the ``direction``'s source version,
    generated with the node at ``path`` conjoined with ``conjoin`` (and the instance path to it
    forced to exist), that the other version should reject."""

    direction: Direction
    conjoin: Any
    path: Path | None = None  # default: the finding's node


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule concluded about one fact."""

    before: Any
    after: Any
    subject: str = ""
    reader: Verdict | None = None  # required when the rule's verdict is ``derived``
    writer: Verdict | None = None
    targets: tuple[Target, ...] = ()
    note: str = ""
    #: (node path, keyword) whose written location shows the change in each version; default:
    #: the fact's node and keyword. The other version's location is what a witness (or an
    #: expected rejection in the replay) must be rejected by.
    old_at: tuple[Path, str] | None = None
    new_at: tuple[Path, str] | None = None


@dataclass(frozen=True, slots=True)
class Constraint:
    """What constrains one property name (or array position) in one version.

    ``state`` is ``forbidden`` (a ``false`` applies), ``any`` (nothing, or only ``{}``),
    ``schemas`` (``parts`` must all hold) or ``unknown`` (not modelled); ``closer`` is where
    the forbidding keyword is; ``declared`` is true when the name is listed in ``properties``.
    """

    state: str
    parts: tuple[tuple[Path, Any], ...] = ()
    closer: tuple[Path, str] | None = None
    declared: bool = False
    reason: str = ""

    @property
    def sources(self) -> tuple[Path, ...]:
        return tuple(path for path, _ in self.parts)


@dataclass(frozen=True, slots=True)
class NameTransition:
    """One property name whose constraint changed. ``region`` is ``named`` (declared in a
    version), ``pattern`` (a representative of a ``patternProperties`` pattern) or ``other``
    (a representative of every name nothing declares)."""

    path: Path  # the object node the name belongs to (the cluster member declaring it, if any)
    name: str
    region: str
    old: Constraint
    new: Constraint
    reader: Verdict
    writer: Verdict
    open_before: bool  # the old object let undeclared names through (open or partially open)
    keyword: str  # the closing keyword involved, for display


@dataclass(frozen=True, slots=True)
class SlotTransition:
    """One array position (``"0"``, ``"1"``, ... or ``"rest"``) whose constraint changed."""

    path: Path
    slot: str
    old: Constraint
    new: Constraint
    reader: Verdict
    writer: Verdict


@dataclass(frozen=True, slots=True)
class ValueDomain:
    """A node whose accepted values are finite in at least one version.

    ``old_values`` / ``new_values`` are the finite sets (None when that version's node is not
    finite); ``removed`` are values the old version accepts and the new one rejects, ``added``
    the reverse (each checked with the validator against the whole node).
    """

    path: Path
    old_node: Any
    new_node: Any
    old_values: tuple[Any, ...] | None
    new_values: tuple[Any, ...] | None
    removed: tuple[Any, ...]
    added: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class NodeChange:
    """A node written with other composition keywords in the two versions (``type: string`` ->
    ``allOf: [{type: string}]``, ``oneOf`` -> ``anyOf``, a one-member ``oneOf`` ...), judged as
    a whole: ``old_flat``/``new_flat`` are the nodes merged with their in-place members
    (:func:`harness.compat.flatten.flatten`), ``reader``/``writer`` the engine's verdicts for
    replacing one by the other."""

    path: Path
    old: Any
    new: Any
    old_flat: Any
    new_flat: Any
    reader: Verdict
    writer: Verdict
    #: keywords written in place in both versions, left to the per-keyword rules (not in the flats)
    kept: tuple[str, ...] = ()


class Facts(Protocol):
    """What rules may ask the engine."""

    def node(self, side: str, path: Path) -> Any: ...

    def nested(self, old: Any, new: Any) -> tuple[Verdict, Verdict]: ...

    def includes(self, smaller: Any, larger: Any) -> Verdict: ...


Detector = Callable[..., Finding | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A change class."""

    id: str
    name: str
    group: str
    reader: str
    writer: str
    summary: str
    example: tuple[Any, Any]
    detect: Detector = field(repr=False, compare=False)
    keywords: frozenset[str] = frozenset()

    def applies(self, fact: Any) -> bool:
        return not self.keywords or getattr(fact, "keyword", None) in self.keywords


#: The modules declaring the package's rules, one per id group, in the order rules are asked
#: (the unsupported cases first).
RULE_MODULES = (
    "harness.compat.rules.unsupported",  # CMP9xx
    "harness.compat.rules.objects",  # CMP1xx
    "harness.compat.rules.values",  # CMP2xx
    "harness.compat.rules.scalars",  # CMP3xx
    "harness.compat.rules.arrays",  # CMP4xx
    "harness.compat.rules.composition",  # CMP5xx
    "harness.compat.rules.fallback",  # CMP999
)


class CompatRuleRegistry(_Registry[Rule]):
    """The compat rules: a :class:`harness.registry.Registry` keyed by rule name, with the
    ``@registry.rule(...)`` decorator, lookup by id and the rules of one fact group.

    Tests build fresh ones (``CompatRuleRegistry()``, no modules); the package's is
    :data:`RULES`, which imports :data:`RULE_MODULES` on first read.
    """

    def __init__(self, modules: Iterable[str] = ()) -> None:
        super().__init__("compat rule", modules=modules)
        self._ids: dict[str, Rule] = {}

    def rule(
        self,
        id: str,
        *,
        group: str,
        reader: str,
        writer: str,
        example: tuple[Any, Any],
        keywords: tuple[str, ...] = (),
    ) -> Callable[[Detector], Detector]:
        """Register the decorated function as the rule ``id``; its name is the rule's name and
        the first paragraph of its docstring the rule's summary."""
        if group not in GROUPS:
            raise ValueError(f"group {group!r} is not one of {GROUPS}")
        for verdict in (reader, writer):
            if verdict not in (*Verdict, DERIVED):
                raise ValueError(f"verdict {verdict!r} is not safe, breaking, unknown or derived")

        def register(function: Detector) -> Detector:
            name = function.__name__
            if id in self._ids:
                raise ValueError(f"rule {name} ({id}) is registered twice")
            paragraph = (function.__doc__ or "").strip().split("\n\n", 1)[0]
            summary = " ".join(paragraph.split()).replace("``", "`")
            # add() does not load the declaring modules (reading would, while they are importing).
            self._ids[id] = self.add(Rule(id, name, group, reader, writer, summary, example, function,
                                          frozenset(keywords)))
            return function

        return register

    def group(self, group: str) -> list[Rule]:
        """The rules of a group in registration order (the order they are asked in)."""
        return [r for r in self if r.group == group]

    def by_ids(self) -> list[Rule]:
        """Every rule, ordered by id (the catalogue's order)."""
        return sorted(self, key=lambda r: r.id)


#: The package's rules, declared in :data:`RULE_MODULES`.
RULES = CompatRuleRegistry(RULE_MODULES)
#: The class's former name, which ``harness.compat`` still exports.
Registry = CompatRuleRegistry
