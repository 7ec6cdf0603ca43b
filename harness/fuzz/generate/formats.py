"""String formats drawn from direct constructions, for the compiled generator.

hypothesis-jsonschema draws ``uri`` as ``https://`` plus :func:`hypothesis.provisional.domains`
(a regular expression per label, then a random re-casing of every character), ``email`` from
:func:`hypothesis.strategies.emails` (the same domains) and ``date-time`` from a date and a time
strategy. On API-sized schemas — GitHub's REST responses carry dozens of ``uri`` members per
object — those draws were most of the generation time (12 s of 17 s for 20 documents of
``actions.get-workflow-run``). The strategies here build the same kinds of value from a few
hypothesis choices each: a host is a couple of labels drawn as whole strings, a ``date-time`` a
number of seconds and an offset. The space is narrower in ways no consumer of these formats
cares about (lower-case ASCII hosts, a handful of top-level domains, whole seconds or
milliseconds); what matters to a tool's consumer — absolute URIs with paths and queries, dates
across the whole calendar with offsets — is kept. Every value is still re-validated by the
production validator (formats asserted), so a construction it refuses is a counted discard.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
#: RFC 3986 unreserved characters (always allowed in a path segment or query, unescaped).
_UNRESERVED = _LOWER + _LOWER.upper() + _DIGITS + "-._~"
_TLDS = ("com", "org", "net", "io", "dev", "example", "test", "co.uk")

_LABEL = st.text(_LOWER + _DIGITS, min_size=1, max_size=12)
_TLD = st.sampled_from(_TLDS)
#: Hostnames: a label, sometimes a second one, and a top-level domain.
HOSTS: st.SearchStrategy[str] = st.builds(
    lambda label, sub, tld: ".".join(p for p in (sub, label, tld) if p),
    _LABEL, st.sampled_from(("", "", "www", "api")), _TLD,
)
#: A path of unreserved characters and slashes, drawn as one string (one hypothesis choice).
_PATH = st.text(_UNRESERVED + "/", max_size=32).map(lambda text: "/" + text if text else "")
_QUERY = st.text(_UNRESERVED + "=&", max_size=16).map(lambda text: "?" + text if text else "")
#: Absolute URIs: http(s), a host, sometimes a port, a path and sometimes a query.
URIS: st.SearchStrategy[str] = st.builds(
    lambda scheme, host, port, path, query: f"{scheme}://{host}{port}{path}{query}",
    st.sampled_from(("https", "http")),
    HOSTS,
    st.sampled_from(("", "", "", ":8080", ":443", ":1", ":65535")),
    _PATH,
    _QUERY,
)
#: URI references: mostly absolute URIs, sometimes a path relative to the document.
URI_REFERENCES: st.SearchStrategy[str] = st.one_of(URIS, _PATH.filter(bool))
EMAILS: st.SearchStrategy[str] = st.builds(
    lambda local, host: f"{local}@{host}", st.text(_LOWER + _DIGITS, min_size=1, max_size=16), HOSTS
)

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FIRST = int((datetime(1, 1, 1, tzinfo=timezone.utc) - _EPOCH).total_seconds())
_LAST = int((datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc) - _EPOCH).total_seconds())
_OFFSETS = ("Z", "+00:00", "+01:00", "-05:00", "+05:30", "-12:00", "+14:00")
_SECONDS = st.integers(_FIRST, _LAST)
_MILLIS = st.one_of(st.just(None), st.integers(0, 999))


def _stamp(seconds: int, millis: int | None, offset: str) -> str:
    moment = _EPOCH + timedelta(seconds=seconds)
    fraction = "" if millis is None else f".{millis:03d}"
    # %Y does not pad years before 1000 to four digits; RFC 3339 requires them.
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}{fraction}{offset}"


#: RFC 3339 date-times from year 1 to 9999 (shrinking towards 1970-01-01T00:00:00Z).
DATE_TIMES: st.SearchStrategy[str] = st.builds(_stamp, _SECONDS, _MILLIS, st.sampled_from(_OFFSETS))
DATES: st.SearchStrategy[str] = _SECONDS.map(lambda s: _stamp(s, None, "")[:10])
TIMES: st.SearchStrategy[str] = st.builds(
    lambda s, millis, offset: _stamp(s, millis, offset)[11:], st.integers(0, 86399), _MILLIS,
    st.sampled_from(_OFFSETS),
)

#: The formats drawn here; any other goes to hypothesis-jsonschema.
FORMATS: dict[str, st.SearchStrategy[str]] = {
    "uri": URIS,
    "iri": URIS,
    "uri-reference": URI_REFERENCES,
    "iri-reference": URI_REFERENCES,
    "hostname": HOSTS,
    "idn-hostname": HOSTS,
    "email": EMAILS,
    "idn-email": EMAILS,
    "date-time": DATE_TIMES,
    "date": DATES,
    "time": TIMES,
}


def formatted(node: dict[str, Any]) -> st.SearchStrategy[str] | None:
    """Strings of ``node`` (``type: string`` with a ``format`` of :data:`FORMATS` and at most
    length bounds besides), or None when the node asks for anything else."""
    name = node.get("format")
    strategy = FORMATS.get(name) if isinstance(name, str) else None
    if strategy is None or set(node) - {"type", "format", "minLength", "maxLength"}:
        return None
    low, high = node.get("minLength", 0), node.get("maxLength")
    if not isinstance(low, int) or not (high is None or isinstance(high, int)):
        return None
    if low or high is not None:
        return strategy.filter(lambda s: low <= len(s) <= (len(s) if high is None else high))
    return strategy
