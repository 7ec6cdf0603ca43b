"""Where a request argument comes back in a tool's result: the echoes a binding should compare.

Found by name (a member of the argument's name in a supported schema version) or by value (the
value asked for at one place in the results of accepted fixtures asked with different values).
Lint's ``unbound_echo`` rule asks for a binding of each; ``import`` writes one where its samples
prove the echo (:mod:`harness.onboarding.bindings`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from harness.boundary.request import normalise_request
from harness.contract import Contract
from harness.pointer import join
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


def echoes_by_name(contract: Contract, names: list[str]) -> Iterator[Echo]:
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


def result_values(document: Document, result: Any) -> Iterator[tuple[str, Any]]:
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
        yield Observed(f"accepted/{fixture.name}", args, dict(result_values(contract.document(), parsed)))


def echoes_by_value(seen: list[Observed], names: list[str]) -> Iterator[Echo]:
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
    for echo in (*echoes_by_name(contract, names), *echoes_by_value(seen, names)):
        if not _contradicted(echo, seen):
            found.setdefault((echo.argument, echo.result), echo)
    return list(found.values())
