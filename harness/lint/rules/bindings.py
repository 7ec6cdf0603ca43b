"""Rules about what ties a result to its request and to its time: bindings and freshness
windows."""

from __future__ import annotations

from collections.abc import Iterator

from harness.contract.records import MAX_AGE_CEILING, MAX_FUTURE_SKEW_CEILING
from harness.lint.echoes import declared_arguments, echoes
from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.scopes import ContractScope
from harness.pointer import escape_token


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.CONTRACT,
    summary="request argument the result echoes (same name, or same value in the fixtures) with "
            "no binding comparing them",
    fix="add a binding: - {name: <argument>, result: <where it comes back>, request: /args/<argument>}",
)
def unbound_echo(scope: ContractScope) -> Iterator[Hit]:
    """A result that names the thing it is about (``run_id``, ``environment``) must be about the
    thing asked for: a binding compares the echo with the request argument, so an answer about
    another run, project or environment — a cache mix-up, a wrong join, an upstream bug — is
    rejected instead of acted on. An argument is echoed where a member of a supported schema
    version has its name (unless an accepted fixture holds another value there, or the member
    is certainly an object or an array: content, such as the entities a call created), or
    where the results of accepted fixtures asked with at least two different values hold the
    value asked for (a string of at least four characters) at the same pointer (contract
    objects only: lint runs no adapter). An echo counts as bound only by a binding of that
    argument to that pointer.
    """
    contract = scope.contract
    bound = {(b.request, b.result) for b in contract.bindings}
    declared = set(declared_arguments(contract))
    for echo in echoes(contract):
        request = f"/args/{escape_token(echo.argument)}"
        if (request, echo.result) in bound:
            continue
        others = [b.result for b in contract.bindings if b.request == request]
        instead = f" (its binding compares {', '.join(others)} instead)" if others else ""
        where = ("/request/schema/properties/" if echo.argument in declared
                 else "/request/example/") + escape_token(echo.argument)
        yield Hit(f"request argument {echo.argument!r} ({request}) comes back at {echo.result} "
                  f"({echo.seen}) and no binding compares them{instead}",
                  pointer=where,
                  fix=f"add to bindings: - {{name: {echo.argument}, result: {echo.result}, request: {request}}}")




@RULES.rule(
    severity=Severity.WARNING,
    target=Target.CONTRACT,
    summary="freshness window past its ceiling: max_age over P7D, or max_future_skew over PT5M",
    fix="narrow the window to what the tool can honestly promise, or waive the finding with the "
        "reason the window is that wide",
)
def wide_freshness_window(scope: ContractScope) -> Iterator[Hit]:
    """A freshness rule stops an agent from acting on a stale or a future-dated answer only if
    its window is narrow. ``max_age: P365D`` accepts last year's state as current, and
    ``max_future_skew: P30D`` accepts timestamps a month ahead (a wrong clock, a forged
    result), and no fixture tells a deliberate window from a slip of the keyboard. The ceilings
    are ``max_age`` 7 days and ``max_future_skew`` 5 minutes; a tool whose data truly is older
    (a weekly report) keeps its window with a waiver that says so.
    """
    for index, rule in enumerate(scope.contract.freshness):
        at = f"/freshness/{index}"
        if rule.max_age > MAX_AGE_CEILING:
            yield Hit(f"freshness of {rule.field}: max_age {rule.max_age_text} is over the ceiling "
                      "P7D: a result a week old passes as current", pointer=f"{at}/max_age")
        if rule.max_future_skew > MAX_FUTURE_SKEW_CEILING:
            yield Hit(f"freshness of {rule.field}: max_future_skew {rule.max_future_skew_text} is over "
                      "the ceiling PT5M: a timestamp that far ahead is a wrong clock or a forged result",
                      pointer=f"{at}/max_future_skew")
