"""Compile a lowered schema into hypothesis strategies once, instead of at every draw.

hypothesis-jsonschema builds an object's strategy inside a ``@composite`` that, for every
member of every generated object, canonicalises the member's schema and builds a fresh
strategy: on API-sized schemas (GitHub's REST responses) that is most of the time spent, about
0.3 s per document. :func:`compile_strategy` walks the (lowered, draft-07) schema once and
builds the same shapes from ready strategies — ``fixed_dictionaries`` for objects, ``lists``
and ``tuples`` for arrays, ``one_of`` for ``anyOf``/``oneOf`` (each branch merged with its
siblings by hypothesis-jsonschema's own ``merged``) — and hands every node it does not model
(``not``, ``if``, ``dependencies``, ``patternProperties``, ``propertyNames``, ``contains``,
``min``/``maxProperties``, unmergeable ``allOf``) and every scalar to hypothesis-jsonschema,
whose scalar strategies are built once anyway. Identical subschemas share one strategy.

The values are the same kind hypothesis-jsonschema draws; anything the compiled form gets
wrong is caught where every value is caught: the production validator, as a counted discard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema as _hj_from_schema

from harness.boundary.validator import validator_for
from harness.fuzz.generate.formats import formatted
from harness.fuzz.generate.lower import DRAFT_07
from harness.fuzz.generate.regex import matching
from harness.internals import hypothesis_jsonschema_canonical
from harness.schemas import keywords as kw

_CANONICAL = hypothesis_jsonschema_canonical()
FALSEY, TRUTHY, canonicalish, get_type, merged = (_CANONICAL.FALSEY, _CANONICAL.TRUTHY, _CANONICAL.canonicalish,
                                                 _CANONICAL.get_type, _CANONICAL.merged)
encode_canonical_json: Callable[[Any], str] = _CANONICAL.encode_canonical_json

#: Keywords the compiler models itself; a node with any other assertion goes to hj whole.
_OBJECT = frozenset({"type", "properties", "required", "additionalProperties", "minProperties",
                     "maxProperties"})
_ARRAY = frozenset({"type", "items", "additionalItems", "minItems", "maxItems", "uniqueItems"})
#: Keywords that constrain nothing an object or array strategy draws.
_INERT = frozenset({"format", "minLength", "maxLength", "pattern", "minimum", "maximum",
                    "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_EXTRA_MEMBERS = 2  # extra members drawn for an open object, at most
_EXTRA_NAME = 12
_OPTIONAL_MEMBERS = 6  # optional members drawn per object, at most
#: Any JSON value, kept small: hypothesis-jsonschema's unbounded recursive JSON in every open
#: object of an API-sized schema overruns hypothesis' choice budget (most draws then fail).
_ANY_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=16),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=8), inner, max_size=2),
    max_leaves=4,
)


def _json(value: Any) -> str:
    return encode_canonical_json(value)


def _unmodelled(node: dict[str, Any], modelled: frozenset[str]) -> bool:
    """Does ``node`` assert something the compiler does not model? Unknown keywords
    (``x-...``, OpenAPI's ``discriminator``) assert nothing."""
    return any(kw.is_known(k) and not kw.is_annotation(k) and k not in modelled and k not in _INERT
               for k in node)


class _Compiler:
    def __init__(self) -> None:
        self._memo: dict[str, st.SearchStrategy[Any]] = {}

    def build(self, node: Any) -> st.SearchStrategy[Any]:
        key = _json(node)
        if key not in self._memo:
            self._memo[key] = self._build(canonicalish(node))
        return self._memo[key]

    def _build(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        if node == FALSEY:
            return st.nothing()
        if node == TRUTHY:
            return _ANY_JSON
        if "const" in node:
            return st.just(node["const"])
        if "enum" in node:
            return st.sampled_from(node["enum"])
        for combinator in ("anyOf", "oneOf"):
            if combinator in node:
                return self._branches(node, combinator)
        types = get_type(node)
        structured = [t for t in types if t in ("object", "array")]
        scalars = [t for t in types if t not in ("object", "array")]
        parts: list[st.SearchStrategy[Any]] = []
        if "string" in scalars:
            # A pattern or a format drawn directly; for ``type: [string, null]`` too (most of
            # the ``uri`` members of GitHub's schemas are nullable).
            direct = _strings(node)
            if direct is not None:
                scalars.remove("string")
                parts.append(direct)
        if not structured and not parts:
            return _hj_from_schema(node)
        if scalars:
            parts.append(_hj_from_schema({**node, "type": scalars}))
        for kind in structured:
            strategy = self._object(node) if kind == "object" else self._array(node)
            if strategy is None:
                return _hj_from_schema(node)
            parts.append(strategy)
        return st.one_of(parts)

    def _branches(self, node: dict[str, Any], combinator: str) -> st.SearchStrategy[Any]:
        rest = {k: v for k, v in node.items() if k != combinator}
        branches = []
        for branch in node[combinator]:
            both = merged([rest, branch])
            if both is None:
                return _hj_from_schema(node)
            if canonicalish(both) != FALSEY:
                branches.append(self.build(both))
        strategy = st.one_of(branches)
        if combinator == "oneOf" and len(branches) > 1:
            # Branches may overlap: keep values exactly one of them accepts, as hj does.
            strategy = strategy.filter(validator_for({**node, "$schema": DRAFT_07}).is_valid)
        return strategy

    def _object(self, node: dict[str, Any]) -> st.SearchStrategy[Any] | None:
        if _unmodelled(node, _OBJECT):
            return None
        properties: dict[str, Any] = node.get("properties", {})
        required: list[str] = node.get("required", [])
        additional = node.get("additionalProperties", {})
        closed = canonicalish(additional) == FALSEY
        most = len(set(properties) | set(required)) + (0 if closed else _EXTRA_MEMBERS)
        if node.get("minProperties", 0) > len(required) or node.get("maxProperties", most) < most:
            return None  # the counts constrain the choice of members: hj decides
        free = self.build(additional)
        fixed = {name: self.build(properties[name]) if name in properties else free for name in required}
        optional = {name: self.build(schema) for name, schema in properties.items() if name not in fixed}
        extras = None
        if not closed:
            names = st.text(max_size=_EXTRA_NAME).filter(lambda name: name not in properties)
            extras = st.dictionaries(names, free, max_size=_EXTRA_MEMBERS)
        members = tuple(optional)
        choose = (st.lists(st.sampled_from(members), unique=True, max_size=min(len(members), _OPTIONAL_MEMBERS))
                  if members else None)
        return _objects(fixed, choose, optional, extras)

    def _array(self, node: dict[str, Any]) -> st.SearchStrategy[Any] | None:
        if _unmodelled(node, _ARRAY):
            return None
        items = node.get("items", {})
        low, high = node.get("minItems", 0), node.get("maxItems")
        unique = _json if node.get("uniqueItems") else None
        if isinstance(items, dict):
            element = self.build(items)
            if element.is_empty:
                return st.just([]) if low == 0 else st.nothing()
            return st.lists(element, min_size=low, max_size=high, unique_by=unique)
        if unique is not None:
            return None
        prefix = [self.build(item) for item in items]
        rest = self.build(node.get("additionalItems", {}))
        more_low = max(0, low - len(prefix))
        more_high = None if high is None else high - len(prefix)
        if more_high is not None and more_high < 0:
            return None  # fewer items allowed than the prefix holds: hj decides
        head = st.tuples(*prefix).map(list)
        if rest.is_empty or more_high == 0:
            return head if more_low == 0 else st.nothing()
        return st.builds(lambda a, b: a + b, head, st.lists(rest, min_size=more_low, max_size=more_high))


_STRING = frozenset({"pattern", "format", "minLength", "maxLength"})
#: Keywords of other types, which say nothing about a string.
_NOT_STRING = frozenset({"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})


def _strings(node: dict[str, Any]) -> st.SearchStrategy[Any] | None:
    """The strings of ``node`` drawn directly — from its ``pattern``'s structure or a
    :mod:`~harness.fuzz.generate.formats` construction — or None (hypothesis-jsonschema draws
    them) when it asks anything else of a string."""
    if _unmodelled(node, _STRING | _NOT_STRING):
        return None
    own = {"type": "string", **{k: v for k, v in node.items() if k in _STRING}}
    if "pattern" in own:
        return _patterned(own)
    return formatted(own)


def _patterned(node: dict[str, Any]) -> st.SearchStrategy[Any] | None:
    """A string with a ``pattern`` (and length bounds, nothing else) from the pattern's
    structure (:func:`harness.fuzz.generate.regex.matching`); None for anything else."""
    pattern = node.get("pattern")
    if not isinstance(pattern, str) or set(node) - {"type", "pattern", "minLength", "maxLength"}:
        return None
    low, high = node.get("minLength", 0), node.get("maxLength")
    if not isinstance(low, int) or not (high is None or isinstance(high, int)):
        return None
    return matching(pattern, low, high)


@st.composite
def _objects(
    draw: Any,
    fixed: dict[str, st.SearchStrategy[Any]],
    choose: st.SearchStrategy[list[str]] | None,
    optional: dict[str, st.SearchStrategy[Any]],
    extras: st.SearchStrategy[dict[str, Any]] | None,
) -> dict[str, Any]:
    """An object: every required member, a few optional ones, a few extras when open.

    Optional members are chosen as a short list, not each with even odds: API schemas declare
    dozens per object, nested, and including half of them at every level builds documents
    larger than hypothesis' choice budget (the draw is then thrown away).
    """
    out = {name: draw(strategy) for name, strategy in fixed.items()}
    if choose is not None:
        for name in draw(choose):
            out[name] = draw(optional[name])
    if extras is not None:
        out = {**draw(extras), **out}
    return out


def compile_strategy(schema: Any) -> st.SearchStrategy[Any]:
    """A strategy for values of ``schema`` (a lowered, draft-07 schema), built once."""
    return _Compiler().build(schema)
