"""What each supported JSON Schema dialect knows: its keywords, where subschemas sit, its formats.

The linter reads a schema the way a validator of its declared dialect would: a keyword the
dialect does not define is ignored by validators (so it is a finding, not a constraint), and
only the keywords that hold subschemas in that dialect are walked.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from harness.boundary.schema import DIALECTS

DEFAULT = "2020-12"
#: Dialects in which ``$ref`` replaces its schema object: sibling keywords are ignored.
REF_OVERRIDES = frozenset({"draft-04", "draft-06", "draft-07"})
#: Containers of reusable subschemas. ``definitions`` is kept by 2019-09/2020-12 for
#: compatibility and ``$defs`` works in older drafts through JSON-pointer references, so both
#: are accepted (and walked) in every dialect.
CONTAINERS = frozenset({"$defs", "definitions"})
#: Keywords that only annotate; a schema made of nothing else accepts any value.
ANNOTATIONS = frozenset({
    "$comment", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema", "$vocabulary",
    "id", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "format", "contentMediaType", "contentEncoding", "contentSchema",
})

_DRAFT_04 = frozenset({
    "$schema", "id", "$ref", "definitions",
    "type", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "items", "additionalItems", "maxItems", "minItems",
    "uniqueItems", "maxProperties", "minProperties", "required", "properties",
    "patternProperties", "additionalProperties", "dependencies", "allOf", "anyOf", "oneOf", "not",
    "title", "description", "default", "format",
})
_DRAFT_06 = (_DRAFT_04 - {"id"}) | {"$id", "const", "contains", "propertyNames", "examples"}
_DRAFT_07 = _DRAFT_06 | {
    "$comment", "if", "then", "else", "readOnly", "writeOnly", "contentMediaType",
    "contentEncoding",
}
_DRAFT_2019_09 = (_DRAFT_07 - {"definitions", "dependencies"}) | {
    "$anchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$defs", "dependentSchemas",
    "dependentRequired", "unevaluatedItems", "unevaluatedProperties", "maxContains",
    "minContains", "deprecated", "contentSchema",
}
_DRAFT_2020_12 = (_DRAFT_2019_09 - {"$recursiveRef", "$recursiveAnchor", "additionalItems"}) | {
    "$dynamicRef", "$dynamicAnchor", "prefixItems",
}

#: Keywords of each dialect (containers included).
VOCABULARIES: dict[str, frozenset[str]] = {
    "draft-04": _DRAFT_04 | CONTAINERS,
    "draft-06": _DRAFT_06 | CONTAINERS,
    "draft-07": _DRAFT_07 | CONTAINERS,
    "2019-09": _DRAFT_2019_09 | CONTAINERS,
    "2020-12": _DRAFT_2020_12 | CONTAINERS,
}
ORDER = ("draft-04", "draft-06", "draft-07", "2019-09", "2020-12")

#: Formats the production validator (jsonschema-rs, as pinned) asserts in each dialect. Any
#: other format name is an annotation that lets every string through. Measured, and pinned by
#: ``tests/test_lint_rules.py``.
_FORMATS_04 = frozenset({"date", "date-time", "time", "email", "idn-email", "hostname", "ipv4",
                         "ipv6", "uri", "regex"})
_FORMATS_06 = _FORMATS_04 | {"uri-reference", "uri-template", "json-pointer"}
_FORMATS_07 = _FORMATS_06 | {"idn-hostname", "iri", "iri-reference", "relative-json-pointer"}
_FORMATS_2019 = _FORMATS_07 | {"duration", "uuid"}
ASSERTED_FORMATS: dict[str, frozenset[str]] = {
    "draft-04": _FORMATS_04,
    "draft-06": _FORMATS_06,
    "draft-07": _FORMATS_07,
    "2019-09": _FORMATS_2019,
    "2020-12": _FORMATS_2019,
}


class Slot(Enum):
    """How a keyword holds subschemas."""

    ONE = "one"  # a schema
    LIST = "list"  # an array of schemas
    MAP = "map"  # an object whose values are schemas
    ITEMS = "items"  # a schema, or (before 2020-12) an array of schemas


_SLOTS: dict[str, Slot] = {
    "allOf": Slot.LIST, "anyOf": Slot.LIST, "oneOf": Slot.LIST, "prefixItems": Slot.LIST,
    "not": Slot.ONE, "if": Slot.ONE, "then": Slot.ONE, "else": Slot.ONE,
    "additionalProperties": Slot.ONE, "unevaluatedProperties": Slot.ONE,
    "propertyNames": Slot.ONE, "contains": Slot.ONE, "additionalItems": Slot.ONE,
    "unevaluatedItems": Slot.ONE,
    "properties": Slot.MAP, "patternProperties": Slot.MAP, "dependentSchemas": Slot.MAP,
    "dependencies": Slot.MAP, "$defs": Slot.MAP, "definitions": Slot.MAP,
    "items": Slot.ITEMS,
}
#: Keywords whose subschemas describe the same instance as the schema holding them.
IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
                      "dependentSchemas", "dependencies"})
#: Keywords under which a subschema does not assert on its own (it selects or is negated).
NON_ASSERTING = frozenset({"not", "if"})
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")

#: Keywords other specifications use that JSON Schema validators ignore, with what to do.
FOREIGN_HINTS: dict[str, str] = {
    "nullable": 'OpenAPI 3.0 keyword: add "null" to "type" instead',
    "discriminator": "OpenAPI keyword: pin a const member in each oneOf branch instead",
    "example": 'OpenAPI keyword: use "examples" (an array)',
    "xml": "OpenAPI keyword",
    "externalDocs": "OpenAPI keyword",
}


def slot(dialect: str, keyword: str) -> Slot | None:
    """How ``keyword`` holds subschemas in ``dialect``; None if it holds none there."""
    if keyword not in VOCABULARIES[dialect]:
        return None
    return _SLOTS.get(keyword)


def detect(schema: Any) -> tuple[str, bool]:
    """``(dialect, known)``: the dialect ``$schema`` names, or 2020-12 (known=False if unknown)."""
    if not isinstance(schema, Mapping) or "$schema" not in schema:
        return DEFAULT, True
    uri = schema["$schema"]
    if isinstance(uri, str) and uri.rstrip("#") in DIALECTS:
        return DIALECTS[uri.rstrip("#")], True
    return DEFAULT, False


def dialects_with(keyword: str) -> tuple[str, ...]:
    """The dialects that define ``keyword``, oldest first."""
    return tuple(d for d in ORDER if keyword in VOCABULARIES[d])
