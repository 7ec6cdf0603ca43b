"""A contract agrees with its schemas: checked when it loads, and by lint for every version.

- **Envelope or bare result.** Most real results (MCP ``structuredContent``, REST bodies) carry
  no ``tool``/``request_id``/``outcome`` members. Without an ``envelope:`` key the envelope is
  inferred from the schemas: all three declared at the root -> an envelope that ``binding``
  checks; none -> a bare result the boundary wraps. ``envelope:`` overrides (``null``: bare);
  an envelope the schemas cannot hold, or a schema declaring only some of the members, is a
  load error that says what to write.
- **Pointers exist.** Every binding (both sides), freshness and agent_view pointer must be
  declared by the schema it reads — otherwise ``/data/acount_id`` loads fine and every case
  fails. The contract's current version must declare them (a load error); lint holds every
  supported version to the same (:mod:`harness.lint.rules.pointers`).
- **Freshness fields are date-times** (``"format": "date-time"``): the freshness layer parses
  them as RFC 3339, so the schema must promise one.

Schemas are read through the schema model (:class:`harness.schemas.Document`), which follows
references among the contract's own files. A pointer that passes through a reference it cannot
follow (a remote or dynamic one) is given the benefit of the doubt.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ContractError
from harness.locate import position_in_file
from harness.pointer import escape_token, join, split
from harness.schemas import Declared, Document, Node

if TYPE_CHECKING:
    from harness.contract.records import Contract, Envelope

#: The members an enveloped result carries (default names; ``envelope:`` may rename them).
ENVELOPE_MEMBERS = ("tool", "request_id", "outcome")
#: The members a request has, as the boundary sees it.
REQUEST_MEMBERS = ("tool", "request_id", "args")


# --------------------------------------------------------------------------- envelope


def schema_documents(file: Path, schemas: Mapping[int, Any], resources: list[tuple[str, Any]]) -> dict[int, Document]:
    """The schema model of each version of the contract at ``file`` (what
    :meth:`~harness.contract.Contract.document` gives, built once while loading)."""
    from harness.contract.records import SCHEMAS_DIR

    return {v: Document(s, file=file.parent / SCHEMAS_DIR / f"v{v}.json", resources=resources)
            for v, s in sorted(schemas.items())}


def envelope_for(file: Path, data: Mapping[str, Any], documents: Mapping[int, Document]) -> Envelope | None:
    """The contract's envelope: as ``envelope:`` says (checked against every schema version's
    model, :func:`schema_documents`), else inferred from the schemas. Raises
    :class:`ContractError` with the fix."""
    from harness.contract.records import SCHEMAS_DIR, Envelope

    if "envelope" in data:
        raw = data["envelope"]
        if raw is None:
            return None
        envelope = Envelope(**raw)
        names = (envelope.tool, envelope.request_id, envelope.outcome)
        for version, document in documents.items():
            missing = [n for n in names if document.declared([n]).missing]
            if missing:
                raise ContractError(
                    f"the envelope's {_listed(missing)} {'is' if len(missing) == 1 else 'are'} not declared "
                    f"at the root of {SCHEMAS_DIR}/v{version}.json, so no result can carry "
                    f"{'it' if len(missing) == 1 else 'them'}: declare {_listed(names)} in the schema "
                    "(in each oneOf branch), or write `envelope: null` for a bare result the boundary wraps",
                    file=str(file), pointer="/envelope", locate=position_in_file, code="contract.envelope")
        return envelope
    kinds: dict[int, bool] = {}
    for version, document in documents.items():
        declared = [n for n in ENVELOPE_MEMBERS if document.declared([n]).nodes]
        if declared and len(declared) < len(ENVELOPE_MEMBERS):
            absent = [n for n in ENVELOPE_MEMBERS if n not in declared]
            raise ContractError(
                f"{SCHEMAS_DIR}/v{version}.json declares {_listed(declared)} but not {_listed(absent)} at "
                f"its root: an enveloped result declares all of {_listed(ENVELOPE_MEMBERS)}, a bare "
                "result none; declare the rest, or say which it is with `envelope:` "
                "(`envelope: null` for a bare result whose own members these are)",
                file=str(file), code="contract.envelope")
        if not declared and not document.declared([ENVELOPE_MEMBERS[0]]).certain:
            # Undecidable here (a remote or dynamic reference at the root): the schema compile
            # that follows names a remote reference; otherwise check() asks for `envelope:`.
            return Envelope()
        kinds[version] = bool(declared)
    if len(set(kinds.values())) > 1:
        enveloped = [f"v{v}" for v, e in kinds.items() if e]
        bare = [f"v{v}" for v, e in kinds.items() if not e]
        plural = len(bare) > 1
        raise ContractError(
            f"{', '.join(enveloped)} declare{'' if len(enveloped) > 1 else 's'} an envelope "
            f"(tool, request_id, outcome) but {', '.join(bare)} "
            f"{'are bare results' if plural else 'is a bare result'}: "
            "every version of a tool has the same envelope; make them agree, or set `envelope:`",
            file=str(file), code="contract.envelope")
    return Envelope() if any(kinds.values()) else None


def _listed(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(repr(n) for n in names)


# --------------------------------------------------------------------------- pointers


@dataclass(frozen=True, slots=True)
class Problem:
    """One pointer of contract.yaml that a schema does not back."""

    #: Where in contract.yaml: ``/bindings/0/result``, ``/agent_view/state``, ...
    pointer: str
    #: ``v<N>`` of the result schema, or ``request`` for the request schema.
    schema: str
    message: str
    #: ``pointer``: not declared; ``date_time``: a freshness field that is no date-time.
    kind: str = "pointer"
    #: An agent_view field marked optional (may be absent from some versions).
    optional: bool = False


def _suggestion(tokens: list[str], found: Declared) -> str:
    if found.nodes or len(found.found) >= len(tokens):
        return ""
    wrong = tokens[len(found.found)]
    close = difflib.get_close_matches(wrong, found.members, n=1, cutoff=0.6)
    if not close:
        return ""
    return f" (did you mean {join([*found.found, close[0], *tokens[len(found.found) + 1:]])}?)"


def _undeclared(document: Document, pointer: str, what: str, schema_name: str) -> str | None:
    tokens = split(pointer)
    found = document.declared(tokens)
    if not found.missing:
        return None
    return f"{what} {pointer}, which {schema_name} does not declare{_suggestion(tokens, found)}"


def _is_date_time(node: Node) -> bool:
    return bool(node.get("format") == "date-time")


def problems(contract: Contract, version: int) -> Iterator[Problem]:
    """Every binding, freshness and agent_view pointer that schema ``version`` does not back."""
    from harness.contract.records import SCHEMAS_DIR

    document = contract.document(version)
    label = f"v{version}"
    name = f"{SCHEMAS_DIR}/v{version}.json"
    for index, rule in enumerate(contract.bindings):
        text = _undeclared(document, rule.result, f"binding {rule.name!r} reads the result at", name)
        if text:
            yield Problem(f"/bindings/{index}/result", label, text)
    for index, fresh in enumerate(contract.freshness):
        where = f"/freshness/{index}/field"
        text = _undeclared(document, fresh.field, "freshness reads", name)
        if text:
            yield Problem(where, label, text)
            continue
        found = document.declared(split(fresh.field))
        if found.certain and not all(document.holds(n, _is_date_time) for n in found.nodes):
            yield Problem(where, label, f"freshness field {fresh.field} is not a date-time in {name}: give it "
                                        '"type": "string", "format": "date-time"', kind="date_time")
    for view in contract.agent_view:
        spec = contract.raw.get("agent_view", {}).get(view.name)
        where = f"/agent_view/{escape_token(view.name)}" + ("/pointer" if isinstance(spec, dict) else "")
        text = _undeclared(document, view.pointer, f"agent_view field {view.name!r} reads", name)
        if text:
            yield Problem(where, label, text, optional=view.optional)


def request_problems(contract: Contract) -> Iterator[Problem]:
    """Binding pointers into the request that its ``request.schema`` does not back."""
    schema = contract.request_schema
    document = None
    if isinstance(schema, dict):
        document = contract.memo(("document", "request"),
                                    lambda: Document(schema, file=contract.path, base_pointer="/request/schema"))
    for index, rule in enumerate(contract.bindings):
        tokens = split(rule.request)
        where = f"/bindings/{index}/request"
        if not tokens or tokens[0] not in REQUEST_MEMBERS:
            close = difflib.get_close_matches(tokens[0] if tokens else "", REQUEST_MEMBERS, n=1)
            hint = f" (did you mean {join([close[0], *tokens[1:]])}?)" if close else ""
            yield Problem(where, "request", f"binding {rule.name!r} reads the request at {rule.request or '/'}, "
                                            f"but a request has only /tool, /request_id and /args{hint}")
            continue
        if tokens[0] != "args" or document is None or len(tokens) == 1:
            continue
        found = document.declared(tokens[1:])
        if found.missing:
            hint = _suggestion(tokens[1:], found).replace("mean /", "mean /args/")
            yield Problem(where, "request", f"binding {rule.name!r} reads the request at {rule.request}, "
                                            f"which request.schema does not declare{hint}")


def check(contract: Contract) -> None:
    """Raise the first problem the contract's current version (or its request schema) has.

    An optional agent_view field is an error only when no supported version declares it.
    """
    undecided = _undecided_version(contract)
    if undecided is not None:
        raise ContractError(
            f"cannot tell whether schemas/v{undecided}.json describes an enveloped result (its root "
            "refers to what cannot be followed): write `envelope: null` for a bare result, or "
            "`envelope: {}` for one carrying tool, request_id and outcome",
            file=str(contract.path), code="contract.envelope")
    for problem in request_problems(contract):
        raise ContractError(problem.message, file=str(contract.path), pointer=problem.pointer, locate=position_in_file,
                            code="contract.pointer")
    for problem in problems(contract, contract.version):
        if problem.optional and _declared_somewhere(contract, problem.pointer):
            continue
        raise ContractError(problem.message, file=str(contract.path), pointer=problem.pointer, locate=position_in_file,
                            code="contract.freshness_field" if problem.kind == "date_time" else "contract.pointer")


def _undecided_version(contract: Contract) -> int | None:
    if "envelope" in contract.raw:
        return None
    for version in contract.versions:
        document = contract.document(version)
        found = [document.declared([n]) for n in ENVELOPE_MEMBERS]
        if not any(f.nodes for f in found) and not all(f.certain for f in found):
            return version
    return None


def _declared_somewhere(contract: Contract, where: str) -> bool:
    return any(all(p.pointer != where for p in problems(contract, v)) for v in contract.versions)
