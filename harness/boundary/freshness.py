"""Layer 6, ``freshness``: declared timestamps are real RFC 3339 instants within a window.

JSON Schema's ``format: date-time`` says a string looks like a timestamp; it cannot say the
timestamp is recent, because a schema has no clock. Each declared field is parsed with a
strict RFC 3339 parser (a timestamp without an offset is ``freshness.unparseable``) and held
against the injected clock: older than ``max_age`` is ``freshness.stale``, further ahead than
``max_future_skew`` is ``freshness.future``.
"""

from __future__ import annotations

from datetime import timedelta

from harness.boundary.base import Evaluation, Rejection
from harness.codes import (
    FRESHNESS_FUTURE,
    FRESHNESS_MISSING,
    FRESHNESS_STALE,
    FRESHNESS_UNPARSEABLE,
)
from harness.pointer import MISSING, resolve
from harness.timeutil import parse_rfc3339


def _span(delta: timedelta) -> str:
    seconds = int(abs(delta.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    parts += [f"{hours}h"] if hours else []
    parts += [f"{minutes}m"] if minutes else []
    parts += [f"{secs}s"] if secs or not parts else []
    return "".join(parts)


def check(ev: Evaluation) -> Rejection | None:
    """Hold every declared timestamp to its window; failure results carry none."""
    failure = ev.outcome == "failure"
    for rule in ev.contract.freshness:
        value = resolve(ev.result, rule.field)
        if value is MISSING:
            if failure:
                continue
            return Rejection(
                FRESHNESS_MISSING, f"no timestamp at {rule.field}", instance_pointer=rule.field
            )
        instant = parse_rfc3339(value)
        if instant is None:
            return Rejection(
                FRESHNESS_UNPARSEABLE,
                f"{rule.field} is not an RFC 3339 date-time with an offset",
                instance_pointer=rule.field,
            )
        age = ev.now - instant
        if age > rule.max_age:
            return Rejection(
                FRESHNESS_STALE,
                f"{rule.field} is {_span(age)} old; max_age is {rule.max_age_text}",
                instance_pointer=rule.field,
            )
        if -age > rule.max_future_skew:
            return Rejection(
                FRESHNESS_FUTURE,
                f"{rule.field} is {_span(age)} in the future; "
                f"max_future_skew is {rule.max_future_skew_text}",
                instance_pointer=rule.field,
            )
    return None
