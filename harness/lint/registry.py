"""The rule registry: each lint rule is one decorated function with its metadata.

    @RULES.rule(severity=Severity.WARNING, summary="...", fix="...")
    def unbounded_string(node: Node) -> Iterator[str | Hit]:
        '''Why it matters (rendered into the catalogue and SARIF help).'''
        ...

The function's name is the rule id, the registry key and the label in every report. What the
function receives depends on ``target``: every schema node (the default), every schema
document, every contract, or every waiver of a contract. It yields a bare message (the engine
adds file, pointer, severity and fix) or a :class:`Hit` when it points elsewhere than the
node, or when the fix depends on what was found.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from harness.registry import Registry

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
F = TypeVar("F", bound=Callable[..., Iterable[Any]])


class Severity(StrEnum):
    """How bad a finding is; also the SARIF ``level``."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Target(StrEnum):
    """What a rule function is called with."""

    NODE = "node"  # every subschema (harness.schemas.Node)
    DOCUMENT = "document"  # every schema document (harness.schemas.Document)
    CONTRACT = "contract"  # every contract (harness.lint.engine.ContractScope)
    WAIVER = "waiver"  # every waiver of a contract (harness.lint.engine.WaiverUse)


@dataclass(frozen=True, slots=True)
class Hit:
    """A rule's finding when it is not simply "this message, at this node"."""

    message: str
    pointer: str | None = None  # default: the node's pointer (node rules) or the root
    fix: str | None = None  # default: the rule's fix


@dataclass(frozen=True, slots=True)
class Rule:
    """A registered rule: its id, severity, one-line summary, concrete fix and function."""

    id: str
    severity: Severity
    summary: str
    fix: str
    target: Target
    check: Callable[..., Iterable[str | Hit]]
    #: Node rules only: also run on subschemas under ``not`` and ``if``, which do not assert.
    all_nodes: bool = False
    #: Whether it judges a contract's vendor schema (what the adapter reads of a broad vendor
    #: document, open on purpose: the adapter emits the closed contract object the versions
    #: judge), as well as its versions.
    vendor: bool = True

    @property
    def description(self) -> str:
        """The rule's docstring: why it matters."""
        return inspect.cleandoc(self.check.__doc__ or self.summary)

    def run(self, subject: Any) -> Iterator[Hit]:
        for found in self.check(subject):
            yield found if isinstance(found, Hit) else Hit(found)


#: The modules declaring the package's rules, in catalogue order (closure first: the rules
#: that matter most).
RULE_MODULES = tuple(f"harness.lint.rules.{name}" for name in (
    "closure", "bounds", "patterns", "formats", "envelope", "view", "bindings", "pointers", "references",
    "vocabulary", "waivers",
))


class RuleRegistry(Registry[Rule]):
    """An ordered set of rules. The package's rules live in :data:`RULES`; tests build their own."""

    def __init__(self, modules: Iterable[str] = ()) -> None:
        super().__init__("rule", key=lambda rule: rule.id, modules=modules,
                         listing="contract-harness lint --list-rules", unknown_code="usage.unknown_rule")

    def rule(
        self,
        *,
        severity: Severity,
        summary: str,
        fix: str,
        target: Target = Target.NODE,
        all_nodes: bool = False,
        vendor: bool = True,
    ) -> Callable[[F], F]:
        """Register the decorated function as a rule named after it (``vendor=False``: a node or
        document rule that does not judge a contract's vendor schema)."""

        def register(func: F) -> F:
            rule_id = func.__name__
            if not _ID.match(rule_id):
                raise ValueError(f"rule id {rule_id!r} must be snake_case")
            if not summary or "\n" in summary or not fix or "\n" in fix:
                raise ValueError(f"rule {rule_id!r} needs a one-line summary and a one-line fix")
            self.add(Rule(rule_id, severity, summary, fix, target, func, all_nodes, vendor))
            return func

        return register

    @property
    def ids(self) -> tuple[str, ...]:
        return self.names()


#: The rules this package ships, loaded from :data:`RULE_MODULES` on first read.
RULES = RuleRegistry(RULE_MODULES)
