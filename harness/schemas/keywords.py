"""The JSON Schema vocabulary, as this package walks it: which keywords hold subschemas, which
apply in place, which only annotate.

Every walker of schemas here (reference expansion, lowering for generation, the compat diff)
uses these sets, so a keyword is classified once. Anything not listed is *unknown*: walkers
keep it as data and the compat classifier treats a change to it as ``unsupported``.
"""

from __future__ import annotations

#: Keywords whose value is one subschema.
SINGLE: frozenset[str] = frozenset({
    "additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "contains",
    "propertyNames", "not", "if", "then", "else",
})
#: Keywords whose value is a list of subschemas.
LIST: frozenset[str] = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
#: Keywords whose value maps names to subschemas.
MAP: frozenset[str] = frozenset({"properties", "patternProperties", "dependentSchemas"})
#: Containers of reusable subschemas, reached only through ``$ref``.
DEFS: frozenset[str] = frozenset({"$defs", "definitions"})

#: Applicators evaluated against the same instance location (they feed ``unevaluated*``).
IN_PLACE: frozenset[str] = frozenset({
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "$ref",
})
#: Composition keywords whose members are branches of the same instance.
BRANCHES: frozenset[str] = frozenset({"allOf", "anyOf", "oneOf"})

#: Keywords that constrain a value directly (no subschema), in Draft 2020-12.
ASSERTIONS: frozenset[str] = frozenset({
    "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "format",
    "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
})

#: Keywords that never change which documents are valid (for our validator).
ANNOTATIONS: frozenset[str] = frozenset({
    "$schema", "$id", "$anchor", "$comment", "$vocabulary", "$dynamicAnchor",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "contentEncoding", "contentMediaType", "contentSchema", "$defs", "definitions",
})

#: References: ``$ref`` is modelled (expanded); the dynamic forms are not.
REFERENCES: frozenset[str] = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})

#: Older-dialect spellings that are rewritten to their 2020-12 form when a schema is pinned.
LEGACY: frozenset[str] = frozenset({"additionalItems", "dependencies", "$recursiveAnchor", "id"})

KNOWN: frozenset[str] = SINGLE | LIST | MAP | ASSERTIONS | ANNOTATIONS | REFERENCES | LEGACY


def is_annotation(keyword: str) -> bool:
    """True for keywords that only annotate, including ``x-`` extensions (OpenAPI style)."""
    return keyword in ANNOTATIONS or keyword.startswith("x-")


def is_known(keyword: str) -> bool:
    return keyword in KNOWN or keyword.startswith("x-")


def subschemas(node: object) -> list[tuple[tuple[str, ...], object]]:
    """The direct subschemas of a schema node as ``(relative path, subschema)`` pairs.

    ``$defs`` are not included: they are only reached through references.
    """
    if not isinstance(node, dict):
        return []
    found: list[tuple[tuple[str, ...], object]] = []
    for key, value in node.items():
        if key in SINGLE and isinstance(value, dict | bool):
            found.append(((key,), value))
        elif key in LIST and isinstance(value, list):
            found.extend(((key, str(i)), item) for i, item in enumerate(value))
        elif key in MAP and isinstance(value, dict):
            found.extend(((key, name), item) for name, item in value.items())
        elif key == "$ref" and isinstance(value, dict | bool):  # an expanded reference
            found.append(((key,), value))
    return found
