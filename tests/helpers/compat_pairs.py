"""Original/update schema pairs with the right answer for each, from JSON Schema semantics.

Each :class:`Pair` holds an old and a new schema and the reader / writer verdicts they have
(reader-safe: every document the old schema accepts, the new one accepts; writer-safe: the
reverse), worked out by hand from the 2020-12 specification (draft-07 forms for the same
questions where the draft spells them differently). ``safe`` means it holds for every document;
``breaking`` means a document exists that proves it does not (the test then expects compat to
find one). They cover what compat must decide without crying wolf: combinators that cancel out,
conditions removed and added, names covered by ``patternProperties``, and two changes at one
keyword. ``tests/test_compat_pairs.py`` runs them; ``bench/compat_verdicts.py --pairs`` counts
their ``unknown`` verdicts on any version of the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

S = "https://json-schema.org/draft/2020-12/schema"
D7 = "http://json-schema.org/draft-07/schema#"
SAFE, BREAKING = "safe", "breaking"


@dataclass(frozen=True)
class Pair:
    category: str
    title: str
    old: Any
    new: Any
    reader: str
    writer: str


def s(schema: dict[str, Any], dialect: str = S) -> dict[str, Any]:
    return {"$schema": dialect, **schema}


STRING = {"type": "string", "maxLength": 5}
KIND_A = {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind"]}
KIND_B = {"type": "object", "properties": {"kind": {"const": "b"}, "s": {"type": "string"}}, "required": ["kind"]}
OBJ = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}

PAIRS: list[Pair] = [
    # ------------------------------------------------------------------ combinators that cancel out
    Pair("combinators", "one-member oneOf means its member", s(STRING), s({"oneOf": [STRING]}), SAFE, SAFE),
    Pair("combinators", "one-member anyOf means its member", s(STRING), s({"anyOf": [STRING]}), SAFE, SAFE),
    Pair("combinators", "one-member allOf means its member", s(STRING), s({"allOf": [STRING]}), SAFE, SAFE),
    Pair("combinators", "type moved into an allOf member", s({"type": "string"}), s({"allOf": [{"type": "string"}]}),
         SAFE, SAFE),
    Pair("combinators", "keywords split across allOf members", s({"type": "string", "minLength": 1, "maxLength": 5}),
         s({"allOf": [{"type": "string"}, {"minLength": 1}, {"maxLength": 5}]}), SAFE, SAFE),
    Pair("combinators", "oneOf to anyOf over branches of different types",
         s({"oneOf": [{"type": "string"}, {"type": "integer"}]}), s({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
         SAFE, SAFE),
    Pair("combinators", "anyOf to oneOf over branches of different types",
         s({"anyOf": [{"type": "string"}, {"type": "null"}]}), s({"oneOf": [{"type": "string"}, {"type": "null"}]}),
         SAFE, SAFE),
    Pair("combinators", "oneOf to anyOf over branches with different consts (a discriminator)",
         s({"oneOf": [KIND_A, KIND_B]}), s({"anyOf": [KIND_A, KIND_B]}), SAFE, SAFE),
    Pair("combinators", "oneOf to anyOf over overlapping branches lets through what matched two",
         s({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}),
         s({"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}), SAFE, BREAKING),
    Pair("combinators", "a repeated allOf member adds nothing",
         s({"type": "string", "allOf": [{"maxLength": 5}]}), s({"type": "string", "allOf": [{"maxLength": 5}, {"maxLength": 5}]}),
         SAFE, SAFE),
    Pair("combinators", "an allOf member the rest already implies adds nothing",
         s({"type": "string", "maxLength": 5}), s({"type": "string", "maxLength": 5, "allOf": [{"type": "string"}]}),
         SAFE, SAFE),
    Pair("combinators", "an allOf member implied by the node, with a loose bound",
         s({"type": "string", "maxLength": 5}), s({"type": "string", "maxLength": 5, "allOf": [{"maxLength": 10}]}),
         SAFE, SAFE),
    Pair("combinators", "an impossible allOf is false", s({"allOf": [{"type": "number"}, {"type": "string"}]}), False,
         SAFE, SAFE),
    Pair("combinators", "an impossible allOf accepts nothing, so anything is reader-safe",
         s({"allOf": [{"type": "number"}, {"type": "string"}]}), s({"type": "string"}), SAFE, BREAKING),
    Pair("combinators", "a type list written as an anyOf of types", s({"type": ["string", "null"]}),
         s({"anyOf": [{"type": "string"}, {"type": "null"}]}), SAFE, SAFE),
    Pair("combinators", "a value moved into a wider union", s({"type": "string"}),
         s({"anyOf": [{"type": "string"}, {"type": "integer"}]}), SAFE, BREAKING),
    Pair("combinators", "a union collapsed to one of its branches", s({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
         s({"type": "string"}), BREAKING, SAFE),
    Pair("combinators", "a property's type moved into a one-member allOf, and bounded",
         s({"type": "object", "properties": {"a": {"type": "string"}}}),
         s({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}], "maxLength": 3}}}), BREAKING, SAFE),
    Pair("combinators", "a definition referenced instead of written in place",
         s({"type": "object", "properties": {"a": STRING}}),
         s({"type": "object", "properties": {"a": {"$ref": "#/$defs/short"}}, "$defs": {"short": STRING}}), SAFE, SAFE),
    # ------------------------------------------------------------------ conditions removed and added
    Pair("conditions", "a dependentSchemas entry removed", s({**OBJ, "dependentSchemas": {"a": {"required": ["b"]}}}),
         s(OBJ), SAFE, BREAKING),
    Pair("conditions", "a dependentSchemas entry added", s(OBJ), s({**OBJ, "dependentSchemas": {"a": {"required": ["b"]}}}),
         BREAKING, SAFE),
    Pair("conditions", "a dependentRequired entry removed", s({**OBJ, "dependentRequired": {"a": ["b"]}}), s(OBJ),
         SAFE, BREAKING),
    Pair("conditions", "a dependentRequired entry added", s(OBJ), s({**OBJ, "dependentRequired": {"a": ["b"]}}),
         BREAKING, SAFE),
    Pair("conditions", "a dependency added on a name the object requires anyway",
         s({**OBJ, "required": ["b"]}), s({**OBJ, "required": ["b"], "dependentRequired": {"a": ["b"]}}), SAFE, SAFE),
    Pair("conditions", "a dependency removed from a name the object still requires",
         s({**OBJ, "required": ["b"], "dependentRequired": {"a": ["b"]}}), s({**OBJ, "required": ["b"]}), SAFE, SAFE),
    Pair("conditions", "an if/then removed", s({**OBJ, "if": {"required": ["a"]}, "then": {"required": ["b"]}}), s(OBJ),
         SAFE, BREAKING),
    Pair("conditions", "an if/then added", s(OBJ), s({**OBJ, "if": {"required": ["a"]}, "then": {"required": ["b"]}}),
         BREAKING, SAFE),
    Pair("conditions", "an if/else removed", s({**OBJ, "if": {"required": ["a"]}, "else": {"required": ["b"]}}), s(OBJ),
         SAFE, BREAKING),
    Pair("conditions", "an if narrowed, with only then", s({**OBJ, "if": {"required": ["a"]}, "then": {"required": ["b"]}}),
         s({**OBJ, "if": {"required": ["a", "c"]}, "then": {"required": ["b"]}}), SAFE, BREAKING),
    Pair("conditions", "a not member removed", s({"type": "string", "not": {"const": "x"}}), s({"type": "string"}),
         SAFE, BREAKING),
    Pair("conditions", "a not member added", s({"type": "string"}), s({"type": "string", "not": {"const": "x"}}),
         BREAKING, SAFE),
    Pair("conditions", "a not member added that the node already excludes", s({"type": "string"}),
         s({"type": "string", "not": {"type": "integer"}}), SAFE, SAFE),
    Pair("conditions", "a dependentSchemas entry's type changed, unsatisfiable either way on an object",
         s({**OBJ, "dependentSchemas": {"a": {"type": "string"}}}),
         s({**OBJ, "dependentSchemas": {"a": {"type": "number"}}}), SAFE, SAFE),
    # ------------------------------------------------------------------ names covered by patternProperties
    Pair("patterns", "a property added that its pattern already constrains the same way",
         s({"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}),
         s({"type": "object", "properties": {"x-id": {"type": "string"}}, "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False}), SAFE, SAFE),
    Pair("patterns", "a property added, stricter than its pattern",
         s({"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}),
         s({"type": "object", "properties": {"x-id": {"type": "string", "maxLength": 3}},
            "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}), BREAKING, SAFE),
    Pair("patterns", "a property added, looser than its pattern (the pattern still applies)",
         s({"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}),
         s({"type": "object", "properties": {"x-id": {}}, "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False}), SAFE, SAFE),
    Pair("patterns", "a property of a closed object moved to a pattern matching its name only",
         s({"type": "object", "properties": {"x-id": {"type": "string"}}, "additionalProperties": False}),
         s({"type": "object", "patternProperties": {"^x-id$": {"type": "string"}}, "additionalProperties": False}),
         SAFE, SAFE),
    Pair("patterns", "a property removed, now covered by additionalProperties with a oneOf it matches once",
         s({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}),
         s({"type": "object", "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}),
         SAFE, BREAKING),
    # ------------------------------------------------------------------ two changes at one keyword
    Pair("one keyword", "an enum value replaced", s({"enum": ["a", "b"]}), s({"enum": ["a", "c"]}), BREAKING, BREAKING),
    Pair("one keyword", "a required name replaced", s({**OBJ, "required": ["a"]}), s({**OBJ, "required": ["b"]}),
         BREAKING, BREAKING),
    Pair("one keyword", "array positions changed at two places",
         s({"type": "array", "prefixItems": [{"type": "string", "maxLength": 5}, {"type": "integer"}]}),
         s({"type": "array", "prefixItems": [{"type": "string", "maxLength": 3}, {"type": "number"}]}),
         BREAKING, BREAKING),
    Pair("one keyword", "a type replaced inside a property, and a bound added beside it",
         s({"type": "object", "properties": {"a": {"type": "string"}}}),
         s({"type": "object", "properties": {"a": {"type": "integer", "maximum": 9}}}), BREAKING, BREAKING),
    Pair("one keyword", "a numeric bound added where only strings are allowed", s({"type": "string"}),
         s({"type": "string", "minimum": 3}), SAFE, SAFE),
    Pair("one keyword", "contains: a type replaced by a numeric bound (strings still pass it)",
         s({"type": "array", "contains": {"type": "string"}}), s({"type": "array", "contains": {"minimum": 3}}),
         SAFE, BREAKING),
    # ------------------------------------------------------------------ the same questions in draft-07
    Pair("draft-07", "one-member oneOf (draft-07)", s(STRING, D7), s({"oneOf": [STRING]}, D7), SAFE, SAFE),
    Pair("draft-07", "type moved into allOf beside a $ref (draft-07 ignores $ref siblings)",
         s({"definitions": {"t": {"type": "string"}}, "$ref": "#/definitions/t"}, D7),
         s({"definitions": {"t": {"type": "string"}}, "allOf": [{"$ref": "#/definitions/t"}]}, D7), SAFE, SAFE),
    Pair("draft-07", "oneOf to anyOf over different types (draft-07)",
         s({"oneOf": [{"type": "string"}, {"type": "integer"}]}, D7), s({"anyOf": [{"type": "string"}, {"type": "integer"}]}, D7),
         SAFE, SAFE),
    Pair("draft-07", "a dependencies schema removed (draft-07)", s({**OBJ, "dependencies": {"a": {"required": ["b"]}}}, D7),
         s(OBJ, D7), SAFE, BREAKING),
    Pair("draft-07", "a dependencies list added (draft-07)", s(OBJ, D7), s({**OBJ, "dependencies": {"a": ["b"]}}, D7),
         BREAKING, SAFE),
    Pair("draft-07", "a dependency added on a name the object requires anyway (draft-07)",
         s({**OBJ, "required": ["b"]}, D7), s({**OBJ, "required": ["b"], "dependencies": {"a": ["b"]}}, D7), SAFE, SAFE),
    Pair("draft-07", "a dependencies schema's type changed, unsatisfiable either way on an object (draft-07)",
         s({**OBJ, "dependencies": {"a": {"type": "string"}}}, D7),
         s({**OBJ, "dependencies": {"a": {"type": "number"}}}, D7), SAFE, SAFE),
    Pair("draft-07", "properties of a closed object moved to a looser pattern matching their names only (draft-07)",
         s({"type": "object", "properties": {"x-id": {"type": "string", "maxLength": 8}, "x-key": {"type": "string"}},
            "additionalProperties": False}, D7),
         s({"type": "object", "patternProperties": {"^x-(id|key)$": {"type": "string"}}, "additionalProperties": False},
           D7), SAFE, BREAKING),
    Pair("draft-07", "an if/then removed (draft-07)", s({**OBJ, "if": {"required": ["a"]}, "then": {"required": ["b"]}}, D7),
         s(OBJ, D7), SAFE, BREAKING),
    Pair("draft-07", "a property removed, covered by additionalProperties with a oneOf (draft-07)",
         s({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, D7),
         s({"type": "object", "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, D7),
         SAFE, BREAKING),
    Pair("draft-07", "tuple items changed at two places (draft-07)",
         s({"type": "array", "items": [{"type": "string", "maxLength": 5}, {"type": "integer"}]}, D7),
         s({"type": "array", "items": [{"type": "string", "maxLength": 3}, {"type": "number"}]}, D7), BREAKING, BREAKING),
    Pair("draft-07", "contains: a type replaced by a numeric bound (draft-07)",
         s({"type": "array", "contains": {"type": "string"}}, D7), s({"type": "array", "contains": {"minimum": 3}}, D7),
         SAFE, BREAKING),
    Pair("draft-07", "an enum value replaced (draft-07)", s({"enum": ["a", "b"]}, D7), s({"enum": ["a", "c"]}, D7),
         BREAKING, BREAKING),
    Pair("draft-07", "a definition referenced instead of written in place (draft-07)",
         s({"type": "object", "properties": {"a": STRING}}, D7),
         s({"type": "object", "properties": {"a": {"$ref": "#/definitions/short"}}, "definitions": {"short": STRING}}, D7),
         SAFE, SAFE),
]
