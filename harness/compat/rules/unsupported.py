"""``CMP9xx``: what the classifier does not model. Each is unknown both ways (a witness may
still prove a break); registered first, so they are asked before the modelled classes."""

from __future__ import annotations

from harness.compat.diff import Site
from harness.compat.normalise import REF_TARGET
from harness.compat.registry import DERIVED, RULES, Facts, Finding, NameTransition, SlotTransition
from harness.compat.rules.common import UNKNOWN, S, obj, or_absent, values
from harness.schemas import keywords as kw


@RULES.rule("CMP901", group="keyword", reader=DERIVED, writer=DERIVED,
            example=(obj({"a": {"type": "string"}}), obj({"a": {"type": "string", "x-nullable": 1, "nullable": True}})))
def unsupported_keyword(site: Site, facts: Facts) -> Finding | None:
    """A keyword this classifier does not know changed (e.g. OpenAPI's ``nullable``): unknown."""
    if kw.is_known(site.keyword) or site.keyword in (REF_TARGET, ""):
        return None
    old, new = values(site, facts)
    return Finding(or_absent(old), or_absent(new), subject=site.keyword, reader=UNKNOWN, writer=UNKNOWN,
                   note=f"unknown keyword {site.keyword!r}{kw.did_you_mean(site.keyword)}: not modelled")


@RULES.rule("CMP902", group="keyword", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "string"}},
                      "$dynamicRef": "#n"},
                     {"$schema": S, "$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}},
                      "$dynamicRef": "#n"}))
def unsupported_reference(site: Site, facts: Facts) -> Finding | None:
    """A reference that is not expanded (``$dynamicRef``, recursive or unresolvable ``$ref``)
    is involved: unknown."""
    old, new = values(site, facts)
    if site.keyword in ("$dynamicRef", "$recursiveRef") or (
        site.keyword == "$ref" and (isinstance(old, str) or isinstance(new, str))
    ):
        return Finding(or_absent(old), or_absent(new), subject=site.keyword, reader=UNKNOWN, writer=UNKNOWN,
                       note="reference not expanded: not modelled")
    return None


@RULES.rule("CMP903", group="member", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "object", "anyOf": [{"properties": {"a": {}}}],
                      "unevaluatedProperties": False},
                     {"$schema": S, "type": "object", "anyOf": [{"properties": {"a": {}}}]}))
def object_model_unsupported(t: NameTransition, facts: Facts) -> Finding | None:
    """Which names an object allows depends on something not modelled (``unevaluatedProperties``
    fed by conditional branches, overlapping patterns): unknown."""
    if "unknown" not in (t.old.state, t.new.state):
        return None
    reason = t.old.reason or t.new.reason
    return Finding(t.old.state, t.new.state, subject=t.name, reader=UNKNOWN, writer=UNKNOWN, note=reason)


@RULES.rule("CMP904", group="items", reader=DERIVED, writer=DERIVED,
            example=({"$schema": S, "type": "array", "prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}]}],
                      "unevaluatedItems": False},
                     {"$schema": S, "type": "array", "prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}]}]}))
def array_model_unsupported(t: SlotTransition, facts: Facts) -> Finding | None:
    """Which positions an array allows depends on something not modelled: unknown."""
    if "unknown" not in (t.old.state, t.new.state):
        return None
    return Finding(t.old.state, t.new.state, subject=t.slot, reader=UNKNOWN, writer=UNKNOWN,
                   note=t.old.reason or t.new.reason)
