"""The dialects of JSON Schema the harness reads, and one vocabulary table for each.

Every question "what does this keyword mean here?" is answered from this module: which dialect a
schema declares (:func:`dialect_of`, strict; :func:`detect`, lenient), which keywords a dialect
defines (:data:`VOCABULARIES`), how a keyword holds subschemas (:func:`slot`), whether those
describe the same instance as the schema holding them (:data:`IN_PLACE`) or only select or negate
(:data:`NON_ASSERTING`), which keywords only annotate (:data:`ANNOTATIONS`) and which assert
(:data:`ASSERTIONS`), where ``$ref`` overrides its siblings (:data:`REF_OVERRIDES`), which
formats the production validator asserts (:data:`ASSERTED_FORMATS`), and the ``referencing``
specification that resolves references in each dialect (:func:`specification`).

A keyword a dialect does not define is ignored by that dialect's validators: walkers skip it
and lint reports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from harness.errors import ContractError

if TYPE_CHECKING:
    import referencing

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
#: Meta-schema URI (without the empty fragment) -> dialect name.
DIALECTS: dict[str, str] = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
DEFAULT = "2020-12"
#: Oldest first.
ORDER = ("draft-04", "draft-06", "draft-07", "2019-09", "2020-12")

#: Dialect -> the ``referencing`` specification of it, filled on first use: ``referencing``
#: (with ``attrs``) is imported only by a schema set that needs it (identifiers, anchors, a
#: reference into a resource nobody handed in: see :mod:`harness.schemas.document`), not by
#: ``lint`` on a contract whose references are all JSON pointers.
_SPECIFICATIONS: dict[str, referencing.Specification[Any]] = {}

#: Dialects in which ``$ref`` replaces its schema object: sibling keywords are ignored.
REF_OVERRIDES = frozenset({"draft-04", "draft-06", "draft-07"})
#: Dialects in which ``items`` may be an array of schemas (positional items).
ITEMS_ARRAYS = frozenset({"draft-04", "draft-06", "draft-07", "2019-09"})
#: Containers of reusable subschemas. ``definitions`` is kept by 2019-09/2020-12 for
#: compatibility and ``$defs`` works in older drafts through JSON-pointer references, so both
#: are accepted (and walked) in every dialect.
CONTAINERS = frozenset({"$defs", "definitions"})
#: The keywords that refer to another schema.
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
#: Keywords that only annotate: a schema made of nothing else accepts any value. (``format``
#: is not one: the harness asserts formats; see :func:`accepts_anything` for unknown names.)
ANNOTATIONS = frozenset({
    "$comment", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema", "$vocabulary",
    "id", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "contentMediaType", "contentEncoding", "contentSchema",
})
#: Keywords that constrain a value directly (no subschema), in any dialect.
ASSERTIONS = frozenset({
    "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "format",
    "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
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


SLOTS: dict[str, Slot] = {
    "allOf": Slot.LIST, "anyOf": Slot.LIST, "oneOf": Slot.LIST, "prefixItems": Slot.LIST,
    "not": Slot.ONE, "if": Slot.ONE, "then": Slot.ONE, "else": Slot.ONE,
    "additionalProperties": Slot.ONE, "unevaluatedProperties": Slot.ONE,
    "propertyNames": Slot.ONE, "contains": Slot.ONE, "additionalItems": Slot.ONE,
    "unevaluatedItems": Slot.ONE,
    "properties": Slot.MAP, "patternProperties": Slot.MAP, "dependentSchemas": Slot.MAP,
    "dependencies": Slot.MAP, "$defs": Slot.MAP, "definitions": Slot.MAP,
    "items": Slot.ITEMS,
}
#: Keywords whose subschemas (or, for the references, whose target) describe the same instance
#: as the schema holding them: the in-place applicators. The rest of :data:`SLOTS` describe a
#: member or an item (or, for the containers, nothing until referenced).
IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
                      "dependentSchemas", "dependencies", *REF_KEYWORDS})
#: In-place keywords whose subschemas are branches of one instance.
BRANCHES = frozenset({"allOf", "anyOf", "oneOf"})
#: In-place keywords whose subschemas may apply to the instance and constrain it (not the
#: condition ``if`` nor the negated ``not``).
ALTERNATIVES = BRANCHES | {"then", "else"}
#: Keywords under which a subschema does not assert on its own (it selects or is negated).
NON_ASSERTING = frozenset({"not", "if"})
#: In-place keywords whose subschemas are alternatives: one at least (``anyOf``) or exactly one
#: (``oneOf``) must hold.
UNIONS = ("anyOf", "oneOf")
#: Applicators a validator reports as failing themselves when none (or not exactly one) of their
#: subschemas holds: the error points at the applicator, not at the subschema's keyword that
#: made it fail.
REPORTED_WHOLE = frozenset({"anyOf", "oneOf", "not", "contains"})
#: Keywords that add a condition to the instance of their schema (answered each on its own
#: terms, beside the schema's plain keywords): the in-place applicators other than the unions.
CONDITIONS = frozenset({"allOf", "not", "if", "then", "else", "dependentSchemas"})
#: Keywords whose subschemas describe an object's members (by name, by pattern, the rest).
MEMBERS = frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"})
#: Keywords whose subschemas describe an array's items (by position, the rest).
ITEMS = frozenset({"prefixItems", "items", "additionalItems", "unevaluatedItems"})
#: Keywords that see the annotations of every in-place applicator of their instance: what they
#: constrain changes when an applicator is added or removed anywhere beside them.
UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
#: Keywords whose meaning depends on siblings in the same schema object: ``additionalProperties``
#: on the names ``properties`` and ``patternProperties`` declare, ``items`` on the positions of
#: ``prefixItems``, ``then``/``else`` on ``if``, ``minContains``/``maxContains`` on ``contains``.
#: A group moves between schema objects only whole.
SIBLING_GROUPS = (
    frozenset({"properties", "patternProperties", "additionalProperties"}),
    frozenset({"prefixItems", "items"}),
    frozenset({"if", "then", "else"}),
    frozenset({"contains", "minContains", "maxContains"}),
)
#: The count bounds as (lower, upper) pairs: a schema with lower > upper accepts no such value.
COUNT_BOUNDS = (("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties"))
#: Keywords bounding a value from above (the tighter of two is the smaller) and from below.
UPPER_BOUNDS = frozenset({"maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum", "maxContains"})
LOWER_BOUNDS = frozenset({"minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum", "minContains"})
#: Keywords that describe an object's members directly: their names, number and values (any
#: value that is no object passes them). ``dependentSchemas`` applies a whole schema instead.
OBJECT_KEYWORDS = MEMBERS | {"required", "propertyNames", "maxProperties", "minProperties", "dependentRequired"}
#: Keywords that say something about one value only, not about its members or items.
SCALAR_KEYWORDS = frozenset({
    "type", "const", "enum", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength",
})
#: The instance types a type-specific assertion constrains (any other value passes it): a
#: change of such a keyword can reject or admit only values of these types.
_TYPED_KEYWORDS: Mapping[str, frozenset[str]] = MappingProxyType({
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
                    frozenset({"number", "integer"})),
    **dict.fromkeys(("minLength", "maxLength", "pattern", "format"), frozenset({"string"})),
    **dict.fromkeys(("minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", *ITEMS),
                    frozenset({"array"})),
    **dict.fromkeys(OBJECT_KEYWORDS | {"dependentSchemas"}, frozenset({"object"})),
})


def instance_types(keyword: str) -> frozenset[str] | None:
    """The instance types ``keyword`` constrains, when it constrains only some (``maximum``:
    numbers; ``maxLength``: strings); None for a keyword every value is subject to."""
    return _TYPED_KEYWORDS.get(keyword)


#: How older dialects spell a 2020-12 keyword, where they spell it otherwise: the keyword a
#: validator of that dialect names in its schema pointers.
_OLDER_SPELLING = {"dependentSchemas": "dependencies", "dependentRequired": "dependencies", "prefixItems": "items",
                   "items": "additionalItems"}


def written_as(keyword: str, node: Any) -> str:
    """The keyword a schema object written in an older dialect uses for the 2020-12 ``keyword``
    (draft-07's ``dependencies`` for ``dependentSchemas``, ``items`` for ``prefixItems``,
    ``additionalItems`` for the ``items`` beside an array of positions), as :func:`expand
    <harness.schemas.resolve.expand>` rewrote it; ``keyword`` itself where the node spells it so."""
    if not isinstance(node, Mapping):
        return keyword
    if keyword == "items" and isinstance(node.get("items"), list):
        return "additionalItems"
    older = _OLDER_SPELLING.get(keyword)
    if older is not None and keyword not in node and older in node:
        return older
    return keyword


def slot(dialect: str, keyword: str) -> Slot | None:
    """How ``keyword`` holds subschemas in ``dialect``; None if it holds none there."""
    if keyword not in VOCABULARIES[dialect]:
        return None
    return SLOTS.get(keyword)


def detect(schema: Any) -> tuple[str, bool]:
    """``(dialect, known)``: the dialect ``$schema`` names, or 2020-12 (known=False if unknown)."""
    if not isinstance(schema, Mapping) or "$schema" not in schema:
        return DEFAULT, True
    uri = schema["$schema"]
    if isinstance(uri, str) and uri.rstrip("#") in DIALECTS:
        return DIALECTS[uri.rstrip("#")], True
    return DEFAULT, False


def dialect_of(schema: Any, known: Iterable[str] = ()) -> str:
    """The dialect a schema declares (``2020-12`` when it declares none); an unknown one is a
    :class:`~harness.errors.ContractError`.

    ``known`` are extra meta-schema URIs the caller can supply (custom meta-schemas).
    """
    if not isinstance(schema, Mapping) or "$schema" not in schema:
        return DEFAULT
    uri = schema["$schema"]
    if not isinstance(uri, str):
        raise ContractError("$schema must be a string", pointer="/$schema")
    normalised = uri.rstrip("#")
    if normalised in known or uri in known:
        return f"custom ({uri})"
    if normalised not in DIALECTS:
        raise ContractError(
            f"unknown $schema {uri!r}",
            pointer="/$schema",
            allowed=sorted(DIALECTS),
            code="contract.unknown_dialect",
        )
    return DIALECTS[normalised]


def dialects_with(keyword: str) -> tuple[str, ...]:
    """The dialects that define ``keyword``, oldest first."""
    return tuple(d for d in ORDER if keyword in VOCABULARIES[d])


def specification(dialect: str) -> referencing.Specification[Any]:
    """The ``referencing`` specification that reads ``$id``, anchors and subresources as
    ``dialect`` does (2020-12 for a dialect the harness does not know)."""
    if not _SPECIFICATIONS:
        import referencing.jsonschema as spec

        _SPECIFICATIONS.update({"draft-04": spec.DRAFT4, "draft-06": spec.DRAFT6, "draft-07": spec.DRAFT7,
                                "2019-09": spec.DRAFT201909, "2020-12": spec.DRAFT202012})
    return _SPECIFICATIONS.get(dialect, _SPECIFICATIONS["2020-12"])


def resource(schema: Any, default: str = DEFAULT) -> referencing.Resource[Any]:
    """A ``referencing`` resource of a schema, in the dialect its ``$schema`` names (else
    ``default``)."""
    if not isinstance(schema, Mapping | bool):
        import referencing

        return referencing.Resource.opaque(schema)  # not a schema: nothing in it to index
    dialect, known = detect(schema)
    if not known or not isinstance(schema, Mapping) or "$schema" not in schema:
        dialect = default
    return specification(dialect).create_resource(schema)


def _refuse(uri: str) -> referencing.Resource[Any]:
    import referencing.exceptions

    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


def registry(resources: Iterable[tuple[str, Any]], default: str = DEFAULT) -> referencing.Registry[Any]:
    """A ``referencing`` registry of these schemas (by URI) that never retrieves anything else:
    a reference to any other URI is unresolvable, never a network fetch."""
    import referencing

    empty: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
    return empty.with_resources((uri, resource(schema, default)) for uri, schema in resources)


def is_annotation(keyword: str, value: Any = None, dialect: str = DEFAULT) -> bool:
    """Whether ``keyword`` (with ``value``) never changes which documents are valid: an
    annotation, an ``x-`` extension, or a ``format`` the production validator does not assert."""
    if keyword in ANNOTATIONS or keyword.startswith("x-"):
        return True
    return keyword == "format" and isinstance(value, str) and value not in ASSERTED_FORMATS[dialect]


def accepts_anything(schema: Any, dialect: str = DEFAULT) -> bool:
    """``true``, ``{}``, or an object holding nothing but annotations (and ``x-`` extensions)."""
    if schema is True:
        return True
    return isinstance(schema, Mapping) and all(is_annotation(k, v, dialect) for k, v in schema.items())
