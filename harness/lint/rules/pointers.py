"""Rules that hold contract.yaml's pointers to every supported schema version.

Loading a contract already refuses pointers its *current* version does not declare (see
:mod:`harness.contract.schema_checks`); these rules say the same of the older versions still
supported, whose historical fixtures and compat replays read the same pointers.
"""

from __future__ import annotations

from collections.abc import Iterator

import harness.contract.schema_checks as schema_checks
from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.scopes import ContractScope


def _grouped(scope: ContractScope, kind: str) -> Iterator[Hit]:
    contract = scope.contract
    seen: dict[str, tuple[list[str], str]] = {}
    for version in contract.versions:
        for problem in schema_checks.problems(contract, version):
            if problem.kind != kind:
                continue
            if problem.optional and version != contract.version:
                continue  # an optional view field may be absent from an older version
            labels, message = seen.setdefault(problem.pointer, ([], problem.message))
            labels.append(problem.schema)
    for pointer, (labels, message) in seen.items():
        yield Hit(f"{message}" + (f" (also in {', '.join(labels[1:])})" if len(labels) > 1 else ""),
                  pointer=pointer)


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.CONTRACT,
    summary="binding, freshness or agent_view pointer that a supported schema version does not declare",
    fix="correct the pointer, or declare the member in that version's schema",
)
def undeclared_pointer(scope: ContractScope) -> Iterator[Hit]:
    """A binding, freshness or agent_view pointer names a place in the result. Where the schema
    declares nothing there, every result of that version fails the layer that reads it (or
    never carries the value at all): a typo such as ``/data/acount_id`` turns every case red,
    and an older version without the member fails every historical fixture it replays.
    """
    yield from _grouped(scope, "pointer")


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.CONTRACT,
    summary="freshness field that a supported schema version does not declare as a date-time",
    fix='give the field "type": "string", "format": "date-time" in that version',
)
def freshness_not_date_time(scope: ContractScope) -> Iterator[Hit]:
    """The freshness layer parses its fields as RFC 3339 date-times. A schema that lets any
    string (or a number) through there accepts results whose age cannot be judged: say so in
    the schema with ``"format": "date-time"``, which the schema layer asserts.
    """
    yield from _grouped(scope, "date_time")
