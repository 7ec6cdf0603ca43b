"""Bindings for the request arguments an imported tool's results echo, seen in its samples.

A result that names what it is about (the ``owner`` asked for, the ``run_id``) must be about
what was asked: ``check``'s ``change_echo`` mutants and lint's ``unbound_echo`` rule both ask
for a binding there. An import writes one where its accepted samples prove the echo — every
one of them was asked with the argument and holds exactly its value at one pointer (outside
arrays) — found the ways lint finds echoes: a member of the argument's name (in the schema or
in the samples), or the value asked for at one pointer in samples asked with different values.
An echo a sample contradicts, or that no sample shows, is left to lint and the reviewer: a
binding the next answer cannot meet would reject it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.contract import Contract
from harness.lint.echoes import Echo, Observed, arguments, echoes_by_name, echoes_by_value, result_values
from harness.onboarding.names import binding_name
from harness.pointer import MISSING, escape_token, split


def echo_bindings(contract: Contract, samples: Sequence[tuple[Mapping[str, Any], Any]]) -> list[dict[str, str]]:
    """The ``bindings:`` entries to add for ``samples`` (each: the request's args and the accepted
    result), beside those the contract has."""
    document = contract.document()
    seen = [Observed(f"sample_{i}", args, dict(result_values(document, result)))
            for i, (args, result) in enumerate(samples)]
    if not seen:
        return []
    names = arguments(contract)
    by_sample = [Echo(split(pointer)[-1], pointer, "same name in a sample")
                 for one in seen for pointer in one.values if pointer and split(pointer)[-1] in names]
    bound = {(b.request, b.result) for b in contract.bindings}
    taken = {b.name for b in contract.bindings}
    out: list[dict[str, str]] = []
    for echo in (*echoes_by_name(contract, names), *echoes_by_value(seen, names), *by_sample):
        request = "/args/" + escape_token(echo.argument)
        if (request, echo.result) in bound or not all(_echoed(one, echo) for one in seen):
            continue
        bound.add((request, echo.result))
        name, n = binding_name(echo.argument), 2
        while name in taken:
            name, n = f"{binding_name(echo.argument)[:60]}_{n}", n + 1
        taken.add(name)
        out.append({"name": name, "result": echo.result, "request": request})
    return out


def _echoed(one: Observed, echo: Echo) -> bool:
    asked = one.args.get(echo.argument, MISSING)
    held = one.values.get(echo.result, MISSING)
    return (isinstance(asked, str | int) and not isinstance(asked, bool)
            and type(held) is type(asked) and held == asked)
