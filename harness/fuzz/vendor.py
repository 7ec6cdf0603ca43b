"""Vendor documents for a tool with an adapter: seeded with what its fixtures show, and bound
to the request through the adapter.

A vendor schema states only what the adapter relies on, so documents generated from it rarely
carry a value the adapter understands (``"status": "in_progress"``) and never answer the
request. :func:`known_values` reads the tool's accepted fixtures for the values (and member
names) a schema does not state; :func:`seeded_with` puts some of those values into generated
documents; :func:`bound_vendor_documents` asks the adapter where each vendor value lands and
sets the ones it copies into bound fields and timestamps to the request's and to fresh ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from hypothesis import strategies as st

from harness.boundary.validator import SchemaValidator
from harness.contract import Contract
from harness.fuzz.generate.shared import between, pick
from harness.fuzz.strategies import Bound, dumps, resolved, timestamps, vendor_documents
from harness.mutations.context import replace_at
from harness.pointer import MISSING, escape_token, resolve, split


def _accepted_documents(contract: Contract) -> list[Any]:
    from harness.corpus import fixtures_for
    from harness.errors import HarnessError
    from harness.strict_json import strict_loads

    try:
        fixtures = fixtures_for(contract, ("accepted",))
    except HarnessError:
        return []
    documents = []
    for fixture in fixtures:
        if fixture.shape != "upstream":
            continue
        try:
            documents.append(strict_loads(fixture.read(), max_depth=contract.limits.max_depth))
        except (HarnessError, OSError):
            continue
    return documents


def accepted_objects(contract: Contract) -> tuple[Any, ...]:
    """The contract objects of the accepted upstream fixtures (for a tool with an adapter, the
    adapter's output for each): what the contract's fields hold by design, which a near miss of
    a generated document is told as check tells a fixture's (a field an accepted fixture holds
    null is nullable on purpose)."""
    documents = _accepted_documents(contract)
    adapter = contract.adapter_function() if contract.adapter is not None else None
    if adapter is None:
        return tuple(documents)
    from types import MappingProxyType

    request = MappingProxyType(dict(contract.normalise_request(None)))
    out = []
    for document in documents:
        try:
            out.append(adapter(json.loads(dumps(document)), request))
        except Exception:  # an adapter that refuses a fixture: check reports that, not fuzz
            continue
    return tuple(out)


def known_values(contract: Contract) -> tuple[dict[str, list[Any]], dict[str, list[str]]]:
    """What the contract's accepted upstream fixtures show and a schema does not state: the
    scalar values at each pointer (``"status": "in_progress"``), to seed generated documents
    with, and the member names of each object (``message``, ``html_url``), the likeliest
    names for an adapter to copy, to inject canaries under."""
    values: dict[str, list[Any]] = {}
    members: dict[str, list[str]] = {}
    for document in _accepted_documents(contract):
        stack: list[tuple[str, Any]] = [("", document)]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                names = members.setdefault(where, [])
                names.extend(k for k in node if k not in names)
                stack.extend((f"{where}/{escape_token(k)}", v) for k, v in node.items())
            elif isinstance(node, list):
                stack.extend((f"{where}/{i}", v) for i, v in enumerate(node))
            elif where:
                seen = values.setdefault(where, [])
                if not any(type(v) is type(node) and v == node for v in seen):
                    seen.append(node)
    return values, members


@st.composite
def _seeded(draw: Callable[[st.SearchStrategy[Any]], Any], documents: st.SearchStrategy[Any],
            known: dict[str, list[Any]], validator: SchemaValidator) -> Any:
    document = draw(documents)
    sites = [p for p in known if resolve(document, split(p)) is not MISSING]
    if not sites:
        return document
    seeded = document
    for pointer in sites:
        if draw(between(0, 3)):  # three times in four; shrinks to the value as generated
            seeded = replace_at(seeded, split(pointer), known[pointer][draw(pick(len(known[pointer])))])
    return seeded if validator.is_valid(seeded) else document


def seeded_with(documents: st.SearchStrategy[Any], known: dict[str, list[Any]],
                validator: SchemaValidator) -> st.SearchStrategy[Any]:
    """``documents`` with some values replaced by values seen at the same pointer in accepted
    fixtures (:func:`known_values`), when the schema still accepts the result."""
    if not known:
        return documents
    return _seeded(documents, known, validator)


def _equal_leaves(document: Any, value: Any) -> list[list[str]]:
    found: list[list[str]] = []
    stack: list[tuple[list[str], Any]] = [([], document)]
    while stack:
        tokens, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(([*tokens, k], v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(([*tokens, str(i)], v) for i, v in enumerate(node))
        elif type(node) is type(value) and node == value:
            found.append(tokens)
    return found


def _adapt(contract: Contract, version: int, document: Any, request: Mapping[str, Any]) -> Any:
    """The adapter's output for ``document`` if it is a contract-valid object, else MISSING."""
    from types import MappingProxyType

    adapter = contract.adapter_function()
    assert adapter is not None
    try:
        output = adapter(json.loads(dumps(document)), MappingProxyType(dict(request)))
        return output if contract.validator(version).is_valid(output) else MISSING
    except Exception:
        return MISSING


@st.composite
def _bound_vendor(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    documents: st.SearchStrategy[Any],
    contract: Contract,
    version: int,
    now: datetime,
    tally: dict[str, int],
) -> Bound:
    document = draw(documents)
    request = contract.default_request()
    full = contract.normalise_request(request)
    output = _adapt(contract, version, document, full)
    if output is MISSING:
        return Bound(document, request, now)
    bound = document
    for rule in contract.bindings:
        value, expected = resolve(output, rule.result_tokens), resolve(full, rule.request_tokens)
        if value is not MISSING and expected is not MISSING and value != expected:
            for tokens in _equal_leaves(bound, value):
                bound = replace_at(bound, tokens, expected)
    for fresh in contract.freshness:
        value = resolve(output, fresh.tokens)
        if value is not MISSING:
            stamp = draw(timestamps(now, fresh))
            for tokens in _equal_leaves(bound, value):
                bound = replace_at(bound, tokens, stamp)
    vendor = contract.vendor_validator()
    if vendor is not None and vendor.is_valid(bound) and _adapt(contract, version, bound, full) is not MISSING:
        tally["vendor_bound"] = tally.get("vendor_bound", 0) + 1
        return Bound(bound, request, now)
    return Bound(document, request, now)


def bound_vendor_documents(
    contract: Contract,
    version: int | None = None,
    *,
    now: datetime | None = None,
    documents: st.SearchStrategy[Any] | None = None,
    tally: dict[str, int] | None = None,
) -> st.SearchStrategy[Bound]:
    """Vendor documents answering the default request: where the adapter maps one to a
    contract-valid object, the vendor values it copied into bound fields are set to the
    request's, and those it copied into declared timestamps are made fresh (the adapter is the
    oracle of which vendor value lands where). Documents it refuses are kept as drawn.
    ``tally["vendor_bound"]`` counts documents bound this way."""
    version, clock = resolved(contract, version, now)
    source = documents if documents is not None else vendor_documents(contract)
    return _bound_vendor(source, contract, version, clock, tally if tally is not None else {})
