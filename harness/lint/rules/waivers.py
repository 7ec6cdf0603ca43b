"""Rules about the waivers themselves."""

from __future__ import annotations

from collections.abc import Iterator

from harness.lint.registry import RULES, Hit, Severity, Target
from harness.lint.scopes import WaiverUse


@RULES.rule(
    severity=Severity.WARNING,
    target=Target.WAIVER,
    summary="waiver that matches no finding, or names an unknown rule, operator or schema",
    fix="remove the waiver, or correct its rule (operator), pointer or schema",
)
def unused_waiver(use: WaiverUse) -> Iterator[Hit]:
    """A waiver outlives the finding it accepted (the schema was fixed, or the pointer moved)
    and then silently waives whatever appears at that pointer later. Waivers must match.
    """
    waiver, at = use.waiver, f"/waivers/{use.index}"
    if waiver.check and not use.known_rule:
        yield Hit(f"check waiver names no operator {waiver.check!r}{use.suggestion}", pointer=f"{at}/check")
    elif not use.known_rule:
        yield Hit(f"waiver names no rule {waiver.rule!r}{use.suggestion}", pointer=f"{at}/rule")
    elif waiver.schema is not None and waiver.schema not in use.labels:
        yield Hit(f"waiver names schema {waiver.schema!r}; this contract has "
                  f"{', '.join(use.labels)}", pointer=f"{at}/schema")
    elif use.rule_ran and use.matched == 0:
        where = f" in {waiver.schema}" if waiver.schema else ""
        yield Hit(f"waiver for {waiver.rule} at {waiver.pointer or '/'}{where} matches no "
                  "finding", pointer=at)
