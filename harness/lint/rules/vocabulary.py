"""Rules about the schema language itself: the declared dialect, its keywords, and schemas
that break its meta-schema."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema_rs

from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.shapes import patterns
from harness.pointer import join
from harness.schemas import dialects, keywords
from harness.schemas.dialects import DIALECTS
from harness.schemas.document import Document, Node

_SUPPORTED = ", ".join(sorted(DIALECTS))
#: Keywords other specifications use that JSON Schema validators ignore, with what to do.
FOREIGN_HINTS: dict[str, str] = {
    "nullable": 'OpenAPI 3.0 keyword: add "null" to "type" instead',
    "discriminator": "OpenAPI keyword: pin a const member in each oneOf branch instead",
    "example": 'OpenAPI keyword: use "examples" (an array)',
    "xml": "OpenAPI keyword",
    "externalDocs": "OpenAPI keyword",
}


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.DOCUMENT,
    summary="$schema that names no dialect the harness supports",
    fix=f'declare one of: {_SUPPORTED}',
)
def unknown_dialect(doc: Document) -> Iterator[Hit]:
    """The dialect decides what every keyword means. An unknown ``$schema`` (a typo, draft-03,
    a custom meta-schema) makes the harness refuse the contract; the linter reads the schema
    as 2020-12 and says so.
    """
    if not doc.dialect_known:
        declared = doc.root.raw.get("$schema")
        yield Hit(f"$schema {declared!r} is not a supported dialect; read as 2020-12",
                  pointer="/$schema")


def _keyword_problem(doc: Document, keyword: str) -> str:
    if keyword in FOREIGN_HINTS:
        return f"{keyword!r} is not JSON Schema ({FOREIGN_HINTS[keyword]})"
    elsewhere = dialects.dialects_with(keyword)
    if elsewhere:
        return (f"{keyword!r} is not a {doc.dialect} keyword (it belongs to "
                f"{', '.join(elsewhere)}); {doc.dialect} validators ignore it")
    return f"unknown keyword {keyword!r}{keywords.did_you_mean(keyword, doc.vocabulary)}: validators ignore it"


@RULES.rule(
    severity=Severity.ERROR,
    all_nodes=True,
    summary="keyword the schema's dialect does not define (a typo, or another dialect's)",
    fix="fix the spelling, use the dialect's keyword, or prefix an extension with x-",
)
def unknown_keyword(node: Node) -> Iterator[Hit]:
    """Validators ignore keywords they do not know, so ``additionalProperty: false`` closes
    nothing, ``unevaluatedProperties`` in a draft-07 schema closes nothing, and OpenAPI's
    ``nullable`` changes nothing. Extensions prefixed ``x-`` are allowed.
    """
    doc = node.document
    for keyword in node.raw:
        if keyword not in doc.vocabulary and not keyword.startswith("x-"):
            yield Hit(_keyword_problem(doc, keyword), pointer=node.at(keyword))


@RULES.rule(
    severity=Severity.ERROR,
    all_nodes=True,
    summary="keywords beside $ref in draft-07 and older, where validators ignore them",
    fix='wrap the reference: {"allOf": [{"$ref": "..."}], ...the other keywords...}, or move '
        "to 2020-12",
)
def ignored_beside_ref(node: Node) -> Iterator[str]:
    """Before 2019-09, ``$ref`` replaces the object it sits in: ``{"$ref": "#/definitions/x",
    "additionalProperties": false}`` is just the reference, and the constraint beside it is
    silently dropped.
    """
    doc = node.document
    if not doc.ref_overrides or not isinstance(node.raw.get("$ref"), str):
        return
    ignored = [k for k, v in node.raw.items() if k != "$ref" and k in doc.vocabulary
               and not dialects.is_annotation(k, v, doc.dialect) and k not in dialects.CONTAINERS]
    if ignored:
        verb = "is" if len(ignored) == 1 else "are"
        yield f"{', '.join(ignored)} beside $ref {verb} ignored in {doc.dialect}"


@lru_cache(maxsize=4096)
def _compiles(pattern: str) -> bool:
    try:
        jsonschema_rs.validator_for({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError):
        return False
    return True


def _meta_errors(schema: Any) -> Iterator[tuple[str, str]]:
    if jsonschema_rs.meta.is_valid(schema):
        return
    # Only here, to point at each error: importing jsonschema costs seconds (its format
    # checkers build grammars at import), and most schemas never get this far.
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    seen: set[str] = set()
    for error in sorted(cls(cls.META_SCHEMA).iter_errors(schema), key=lambda e: e.json_path):
        pointer = join(error.absolute_path)
        if pointer not in seen:
            seen.add(pointer)
            message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
            yield pointer, message


@RULES.rule(
    severity=Severity.ERROR,
    target=Target.DOCUMENT,
    summary="schema that breaks its dialect's meta-schema, or a pattern that does not compile",
    fix="correct the keyword's value (see the message) so the schema validates against its "
        "meta-schema",
)
def invalid_schema(doc: Document) -> Iterator[Hit]:
    """A schema its own meta-schema rejects (``"type": "strnig"``, ``"required": "id"``,
    ``"maxLength": "10"``) is refused by strict validators and misread by lenient ones. A
    ``pattern`` the production regex engine cannot compile makes the contract unloadable.
    """
    if not isinstance(doc.schema, dict | bool):
        yield Hit(f"a schema must be an object or a boolean, not {type(doc.schema).__name__}")
        return
    if doc.dialect_known:
        for pointer, message in _meta_errors(doc.schema):
            yield Hit(message, pointer=pointer)
    for node in doc.nodes:
        for _, text, pointer in patterns(node):
            if not _compiles(text):
                yield Hit(f"pattern {text!r} does not compile in the validator's regex engine",
                          pointer=pointer)
