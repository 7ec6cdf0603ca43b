"""Rules about ``format``: where it asserts nothing."""

from __future__ import annotations

from collections.abc import Iterator

from harness.lint.registry import RULES, Hit, Severity
from harness.schemas.dialects import ASSERTED_FORMATS
from harness.schemas.document import Node


@RULES.rule(
    severity=Severity.WARNING,
    summary="format on a value that is not a string",
    fix='bound numbers with "minimum"/"maximum" instead, and drop the format',
)
def format_on_non_string(node: Node) -> Iterator[Hit]:
    """Formats only check strings: ``{"type": "integer", "format": "int64"}`` (an OpenAPI
    habit) accepts any integer, however large. The reader believes a range was checked.
    """
    declared = node.get("format")
    types = node.document.effective_types(node)
    if isinstance(declared, str) and types is not None and "string" not in types:
        yield Hit(f"format {declared!r} on a {' or '.join(sorted(types))} value asserts nothing",
                  pointer=node.at("format"))


@RULES.rule(
    severity=Severity.WARNING,
    summary="format the production validator does not assert",
    fix='state the shape with "pattern" and "maxLength", or use an asserted format (date-time, '
        "uri, email, uuid, ...)",
)
def unasserted_format(node: Node) -> Iterator[Hit]:
    """The harness asserts formats, but only those its validator implements for the dialect;
    any other name (``int64``, ``repo-name``, ``uuid`` in draft-07) is an annotation that lets
    every string through.
    """
    declared = node.get("format")
    types = node.document.effective_types(node)
    if not isinstance(declared, str) or (types is not None and "string" not in types):
        return
    dialect = node.document.dialect
    if declared not in ASSERTED_FORMATS[dialect]:
        yield Hit(f"format {declared!r} is not asserted in {dialect}: any string passes",
                  pointer=node.at("format"))
