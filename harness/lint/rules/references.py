"""Rules about ``$ref``: references that leave the schema's own files or lead nowhere."""

from __future__ import annotations

from collections.abc import Iterator

from harness.lint.registry import RULES, Hit, Severity
from harness.schemas.document import Node


@RULES.rule(
    severity=Severity.ERROR,
    all_nodes=True,
    summary="$ref to a schema outside the contract's own files (network or other files)",
    fix="copy the referenced schema into $defs (or into the contract's schemas/ folder) and "
        'refer to it locally: "#/$defs/..."',
)
def remote_ref(node: Node) -> Iterator[Hit]:
    """A remote reference makes the contract depend on a server (or a file) nobody pins: what
    it returns tomorrow decides what passes. The harness never fetches one and refuses to
    load such a contract; other validators fetch it silently.
    """
    ref = node.document.reference(node)
    if ref is not None and ref.status == "remote":
        yield Hit(f"{ref.keyword} {ref.value!r} leaves the schema's own files",
                  pointer=node.at(ref.keyword))


@RULES.rule(
    severity=Severity.ERROR,
    all_nodes=True,
    summary="$ref that points at nothing in its document",
    fix="point the reference at an existing definition (check the spelling under $defs)",
)
def dangling_ref(node: Node) -> Iterator[Hit]:
    """A reference to a definition that does not exist fails when a validator compiles the
    schema — or, in lenient tools, is skipped and leaves the value unchecked.
    """
    ref = node.document.reference(node)
    if ref is not None and ref.status == "dangling":
        yield Hit(f"{ref.keyword} {ref.value!r} points at nothing in this document{node.document.meant(ref)}",
                  pointer=node.at(ref.keyword))
