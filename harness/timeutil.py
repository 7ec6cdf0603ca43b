"""RFC 3339 timestamps and ISO 8601 durations, parsed strictly.

``datetime.fromisoformat`` accepts far more than RFC 3339 (dates alone, basic format, no
offset), so timestamps are matched against the RFC's grammar first. A timestamp without an
offset is not a point in time and is refused. The grammar's ``time-secfrac`` has any number of
digits, as the production validator's ``date-time`` format reads it: a value the schema layer
accepts is never unparseable to the freshness layer (digits past the microsecond are dropped).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_RFC3339 = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt]"
    r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):(?P<s>[0-9]{2})(?P<frac>\.[0-9]+)?"
    r"(?P<tz>[Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)
_DURATION = re.compile(
    r"P(?=[0-9T])(?:(?P<d>[0-9]+)D)?"
    r"(?:T(?=[0-9])(?:(?P<h>[0-9]+)H)?(?:(?P<m>[0-9]+)M)?(?:(?P<s>[0-9]+(?:\.[0-9]+)?)S)?)?",
    re.ASCII,
)


def parse_rfc3339(text: object) -> datetime | None:
    """An aware datetime for an RFC 3339 ``date-time``, or None if ``text`` is not one."""
    if not isinstance(text, str):
        return None
    m = _RFC3339.fullmatch(text)
    if m is None:
        return None
    tz_text = m["tz"]
    if tz_text in ("Z", "z"):
        tz = timezone.utc
    else:
        hours, minutes = int(tz_text[1:3]), int(tz_text[4:6])
        if hours > 23 or minutes > 59:
            return None
        sign = -1 if tz_text[0] == "-" else 1
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    second = int(m["s"])
    leap = second == 60
    micro = int((m["frac"] or ".0")[1:7].ljust(6, "0"))
    try:
        value = datetime(
            int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]),
            59 if leap else second, micro, tzinfo=tz,
        )
    except ValueError:
        return None
    if leap:
        # RFC 3339 allows :60 only as a positive leap second, i.e. 23:59:60 UTC.
        try:
            utc = value.astimezone(timezone.utc)
            if (utc.hour, utc.minute) != (23, 59):
                return None
            value += timedelta(seconds=1)
        except OverflowError:  # a leap second at the edge of year 1 or 9999: not representable
            return None
    return value


def parse_duration(text: str) -> timedelta:
    """``PT15M`` -> 15 minutes. Days, hours, minutes and seconds only (no ambiguous months)."""
    m = _DURATION.fullmatch(text)
    if m is None:
        raise ValueError(f"{text!r} is not an ISO 8601 duration like PT15M or P1DT2H")
    try:
        return timedelta(
            days=int(m["d"] or 0),
            hours=int(m["h"] or 0),
            minutes=int(m["m"] or 0),
            seconds=float(m["s"] or 0),
        )
    except OverflowError:
        raise ValueError(f"{text!r} is longer than the longest duration Python holds "
                         f"(about {timedelta.max.days:,} days)") from None


def format_rfc3339(value: datetime) -> str:
    text = value.astimezone(timezone.utc).isoformat(timespec="seconds")
    return text.replace("+00:00", "Z")
