"""Rules about what ties a result to its request and to its time: bindings and freshness
windows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from harness.boundary.request import normalise_request
from harness.contract import Contract
from harness.contract.records import MAX_AGE_CEILING, MAX_FUTURE_SKEW_CEILING
from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.scopes import ContractScope
from harness.pointer import escape_token, join
from harness.schemas.document import Document, Node

#: The shortest argument value an echo by value is looked for: shorter strings ("eu", "1")
#: turn up in results by coincidence.
MIN_ECHO_LENGTH = 4
_CONTAINERS = frozenset({"object", "array"})


@dataclass(frozen=True, slots=True)
class Echo:
    """A request argument that comes back in the result, and how that was seen."""

    argument: str
    result: str  # pointer into the contract object
    seen: str  # "same name in v2", "same value in 2 accepted fixtures asked with different values"


def declared_arguments(contract: Contract) -> list[str]:
    """The top-level argument names ``request.schema`` declares."""
    document = Document(contract.request_schema)
    return [kid.key for part in document.conjuncts(document.root)
            for kid in document.kids(part, "properties") if kid.key is not None]


def arguments(contract: Contract) -> list[str]:
    """The request's top-level argument names: declared by ``request.schema`` or given in
    ``request.example``."""
    names = declared_arguments(contract)
    return names + [name for name in contract.request_example if name not in names]


def _echoes_by_name(contract: Contract, names: list[str]) -> Iterator[Echo]:
    for version in reversed(contract.versions):
        document = contract.document(version)
        for tokens, node in document.inner_positions(document.root):
            if tokens and tokens[-1] in names and not _container(document, node):
                yield Echo(tokens[-1], join(tokens), f"same name in v{version}")


def _container(document: Document, node: Node, seen: frozenset[Node] = frozenset()) -> bool:
    """The member is certainly an object or an array (or null): content (the entities created,
    the items listed), not the name of what the result is about."""
    types = document.effective_types(node)
    if types is not None:
        return types <= _CONTAINERS | {"null"}
    # Typed by its branches, if at all (GitHub: an app's owner is anyOf two kinds of user).
    branches = [b for part in document.conjuncts(node) for keyword in ("oneOf", "anyOf")
                for b in document.kids(part, keyword)]
    inner = seen | {node}
    return bool(branches) and node not in seen and all(_container(document, b, inner) for b in branches)


def _values(document: Document, result: Any) -> Iterator[tuple[str, Any]]:
    """Every value of ``result`` with its pointer, except those in arrays (no binding names
    "each item")."""
    in_arrays: set[str] = set()
    for pointer, value, _nodes in document.walk_instance(result):
        if pointer and pointer.rsplit("/", 1)[0] in in_arrays:
            in_arrays.add(pointer)
            continue
        if isinstance(value, list):
            in_arrays.add(pointer)
        yield pointer, value


@dataclass(frozen=True, slots=True)
class Observed:
    """One accepted fixture's success result: the request's arguments and the result's values
    by pointer (those outside arrays)."""

    fixture: str
    args: Mapping[str, Any]
    values: Mapping[str, Any]


def observed(contract: Contract) -> Iterator[Observed]:
    """The accepted fixtures' success results, as the bindings read them.

    Of a tool with an adapter, only the fixtures that are contract objects (``shape:
    contract``): the others would need the adapter run, and lint runs no project code (a
    pre-commit hook's environment may not even import it)."""
    from harness.corpus import fixtures_for
    from harness.errors import InvalidRequest, RejectedInput
    from harness.strict_json import strict_loads

    # Parsed and schema-checked only (lint needs no other layer, nor the boundary runtime:
    # ``check`` proves the accepted fixtures pass every layer).
    envelope = contract.envelope
    for fixture in fixtures_for(contract, ("accepted",)):
        as_object = fixture.shape == "contract"
        if contract.adapter is not None and not as_object:
            continue
        try:
            parsed = strict_loads(fixture.read())
        except RejectedInput:
            continue
        judged = contract.without_adapter() if as_object else contract
        success = envelope is None or (isinstance(parsed, dict) and parsed.get(envelope.outcome) == envelope.success)
        if not (success and judged.validator().is_valid(parsed)):
            continue
        try:
            args = normalise_request(contract, fixture.request)["args"]
        except InvalidRequest:
            continue
        yield Observed(f"accepted/{fixture.name}", args, dict(_values(contract.document(), parsed)))


def _echoes_by_value(seen: list[Observed], names: list[str]) -> Iterator[Echo]:
    """Arguments whose value the results hold at one pointer, in at least two fixtures asked
    with different values: one example cannot tell an echo from a coincidence (GitHub's
    examples ask about octocat's repositories, and octocat also opened every issue in them)."""
    agreeing: dict[tuple[str, str], list[str]] = {}
    for one in seen:
        wanted = {value: name for name, value in one.args.items()
                  if name in names and isinstance(value, str) and len(value) >= MIN_ECHO_LENGTH}
        for pointer, value in one.values.items():
            if pointer and isinstance(value, str) and value in wanted:
                values = agreeing.setdefault((wanted[value], pointer), [])
                if value not in values:
                    values.append(value)
    for (argument, pointer), values in agreeing.items():
        if len(values) >= 2:
            yield Echo(argument, pointer, f"same value in {len(values)} accepted fixtures asked with different values")


def _contradicted(echo: Echo, seen: list[Observed]) -> bool:
    """A fixture holds another value there than the argument it was asked with: the names
    coincide (a ``content`` that is the server's status text, not the content written)."""
    return any(echo.argument in one.args and echo.result in one.values
               and one.values[echo.result] != one.args[echo.argument] for one in seen)


def echoes(contract: Contract) -> list[Echo]:
    """Every place a request argument comes back in the result: by name (in any supported
    schema version, unless an accepted fixture holds another value there) or by value (in the
    accepted fixtures), one per argument and pointer."""
    names = arguments(contract)
    seen = list(observed(contract))
    found: dict[tuple[str, str], Echo] = {}
    for echo in (*_echoes_by_name(contract, names), *_echoes_by_value(seen, names)):
        if not _contradicted(echo, seen):
            found.setdefault((echo.argument, echo.result), echo)
    return list(found.values())


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
