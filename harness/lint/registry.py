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

import difflib
import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from harness.errors import UsageError

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

    @property
    def description(self) -> str:
        """The rule's docstring: why it matters."""
        return inspect.cleandoc(self.check.__doc__ or self.summary)

    def run(self, subject: Any) -> Iterator[Hit]:
        for found in self.check(subject):
            yield found if isinstance(found, Hit) else Hit(found)


class RuleRegistry:
    """An ordered set of rules. The package's rules live in :data:`RULES`; tests build their own."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def rule(
        self,
        *,
        severity: Severity,
        summary: str,
        fix: str,
        target: Target = Target.NODE,
        all_nodes: bool = False,
    ) -> Callable[[F], F]:
        """Register the decorated function as a rule named after it."""

        def register(func: F) -> F:
            rule_id = func.__name__
            if not _ID.match(rule_id):
                raise ValueError(f"rule id {rule_id!r} must be snake_case")
            if rule_id in self._rules:
                raise ValueError(f"rule {rule_id!r} is already registered")
            if not summary or "\n" in summary or not fix or "\n" in fix:
                raise ValueError(f"rule {rule_id!r} needs a one-line summary and a one-line fix")
            self._rules[rule_id] = Rule(rule_id, severity, summary, fix, target, func, all_nodes)
            return func

        return register

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules.values())

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __getitem__(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._rules)

    def select(
        self, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
    ) -> tuple[Rule, ...]:
        """The rules to run: all, or those in ``select``, minus those in ``ignore``.

        An id that names no rule is a :class:`~harness.errors.UsageError` (``usage.unknown_rule``).
        """
        chosen = self._check_ids(select, "--select") if select is not None else set(self._rules)
        dropped = self._check_ids(ignore, "--ignore") if ignore is not None else set()
        return tuple(r for r in self if r.id in chosen and r.id not in dropped)

    def _check_ids(self, ids: Iterable[str], option: str) -> set[str]:
        wanted = {i.strip() for i in ids if i.strip()}
        for rule_id in sorted(wanted):
            if rule_id not in self._rules:
                raise UsageError(f"unknown rule {rule_id!r} in {option}{self.suggest(rule_id)} "
                                 "(contract-harness lint --list-rules shows them all)",
                                 code="usage.unknown_rule")
        return wanted

    def suggest(self, rule_id: str) -> str:
        """`` (did you mean X?)`` for a near miss, else the empty string."""
        close = difflib.get_close_matches(rule_id, self._rules, n=1, cutoff=0.6)
        return f" (did you mean {close[0]}?)" if close else ""


#: The rules this package ships; ``harness.lint.rules`` registers them on import.
RULES = RuleRegistry()
