"""Rules about the shapes an agent relies on: success/failure envelopes and error codes."""

from __future__ import annotations

from collections.abc import Iterator

from harness.contract import Envelope
from harness.lint.names import is_error_code
from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.shapes import declares_object, is_closed_set, pinned_value
from harness.pointer import split
from harness.schemas.document import Document, Node


def _object_branch(doc: Document, branch: Node) -> bool:
    return any(declares_object(c) for c in doc.conjuncts(branch))


def _pinned_members(doc: Document, branch: Node) -> dict[str, str]:
    """Members a branch pins to one value: name -> canonical JSON of the value."""
    pinned: dict[str, str] = {}
    for part in doc.conjuncts(branch):
        for member in doc.kids(part, "properties"):
            for fact in doc.conjuncts(member):
                value = pinned_value(fact)
                if value is not None and member.key is not None:
                    pinned.setdefault(member.key, value)
    return pinned


def _discriminator(doc: Document, branches: list[Node]) -> str | None:
    tables = [_pinned_members(doc, b) for b in branches]
    for name in sorted(set.intersection(*(set(t) for t in tables))):
        values = [t[name] for t in tables]
        if len(set(values)) == len(values):
            return name
    return None


def _envelope_union(doc: Document) -> Node | None:
    for part in doc.conjuncts(doc.root):
        for keyword in ("oneOf", "anyOf"):
            if doc.kids(part, keyword):
                return part
    return None


def _union_keyword(node: Node) -> str:
    return "oneOf" if node.document.kids(node, "oneOf") else "anyOf"


def _contract_envelope(doc: Document, envelope: Envelope) -> Iterator[Hit]:
    union = _envelope_union(doc)
    if union is None:
        yield Hit(f"the result envelope is one object for success and failure: no oneOf whose "
                  f"branches pin {envelope.outcome!r} with const", pointer="")
        return
    keyword = _union_keyword(union)
    branches = doc.kids(union, keyword)
    outcomes = set()
    for branch in branches:
        value = _pinned_members(doc, branch).get(envelope.outcome)
        if value is None:
            yield Hit(f"envelope branch does not pin {envelope.outcome!r} with const",
                      pointer=branch.pointer)
            continue
        outcomes.add(value)
        required = {r for c in doc.conjuncts(branch)
                    for r in (c.get("required") or []) if isinstance(r, str)}
        if envelope.outcome not in required:
            yield Hit(f"envelope branch does not require {envelope.outcome!r}",
                      pointer=branch.pointer)
    wanted = {f'"{envelope.success}"', f'"{envelope.failure}"'}
    if outcomes and not wanted <= outcomes:
        missing = ", ".join(sorted(wanted - outcomes))
        yield Hit(f"no envelope branch pins {envelope.outcome!r} to {missing}",
                  pointer=union.at(keyword))


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.DOCUMENT,
    summary="success/failure envelope (or any oneOf/anyOf of objects) without a "
            "discriminating const",
    fix='pin a member in every branch with "const" (e.g. "outcome": {"const": "success"}) and '
        "require it",
)
def envelope_without_discriminator(doc: Document) -> Iterator[Hit]:
    """Without a member pinned to a different ``const`` in each branch, one document can match
    the success and the failure shape at once (a success carrying an ``error``), validators
    report a useless ``oneOf`` failure, and readers guess which shape they hold. In a contract
    with an envelope, the root must be a ``oneOf`` whose branches pin the envelope's
    ``outcome`` member to its success and failure values.
    """
    union = None
    contract = doc.contract
    if doc.role == "version" and contract is not None and contract.envelope is not None:
        yield from _contract_envelope(doc, contract.envelope)
        union = _envelope_union(doc)
    for node in doc.nodes:
        if not node.asserting:
            continue
        for keyword in ("oneOf", "anyOf"):
            if node is union and keyword == _union_keyword(node):
                continue
            branches = [b for b in doc.kids(node, keyword) if _object_branch(doc, b)]
            if len(branches) >= 2 and _discriminator(doc, branches) is None:
                yield Hit(f"{keyword} of {len(branches)} object shapes has no member pinned to "
                          "a different const in each", pointer=node.at(keyword))


def _holder_name(node: Node) -> str | None:
    """The name of the object (or array of objects) holding the member ``node`` describes."""
    doc = node.document
    holder = node.parent
    if holder is None:
        return None
    site = doc.site(holder)
    if site.keyword == "properties":
        return site.key
    if site.keyword in ("items", "prefixItems") and site.parent is not None:
        return doc.site(site.parent).key if doc.site(site.parent).keyword == "properties" else None
    return None


def _error_code_nodes(doc: Document) -> Iterator[Node]:
    contract = doc.contract
    envelope = contract.envelope if contract is not None else None
    if doc.role != "version" or envelope is None:
        return
    union = _envelope_union(doc)
    branches = doc.kids(union, _union_keyword(union)) if union is not None else [doc.root]
    failure = f'"{envelope.failure}"'
    for branch in branches:
        if _pinned_members(doc, branch).get(envelope.outcome) not in (failure, None):
            continue
        found = doc.instance_nodes(split(envelope.error_code), start=branch)
        yield from found or [branch]


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.DOCUMENT,
    summary="error code that is not a finite enum",
    fix='list the codes: "enum": ["NOT_FOUND", "UPSTREAM_UNAVAILABLE", ...]',
)
def open_error_code(doc: Document) -> Iterator[Hit]:
    """An agent decides what to do next from an error code. A code that can be any string is
    free text by another name: it can carry an instruction, and no caller can handle every
    value. In a contract, the envelope's error code (``/error/code`` by default) must be an
    enum; elsewhere every ``error_code``, or ``code`` inside an ``error`` object, must be.
    """
    seen: set[str] = set()
    contract_nodes = list(_error_code_nodes(doc))
    for node in contract_nodes:
        if node.keyword != "properties":
            envelope = doc.contract.envelope if doc.contract is not None else None
            where = envelope.error_code if envelope is not None else "the error code"
            seen.add(node.pointer)
            yield Hit(f"the failure envelope declares no {where}", pointer=node.pointer)
    generic = [n for n in doc.nodes if n.asserting and n.keyword == "properties"
               and is_error_code(n.name, _holder_name(n))]
    for node in [n for n in contract_nodes if n.keyword == "properties"] + generic:
        if node.pointer in seen or doc.holds(node, is_closed_set):
            continue
        seen.add(node.pointer)
        yield Hit(f"error code {node.name!r} is not an enum: any value passes",
                  pointer=node.pointer)
