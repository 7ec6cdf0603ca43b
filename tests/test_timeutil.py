"""harness.timeutil: the RFC 3339 parser agrees with the production validator's ``date-time``.

The freshness layer parses what the schema layer let through as ``"format": "date-time"``: a
timestamp the validator accepts and the parser refuses would be a ``freshness.unparseable``
rejection of a valid result, and one the parser reads but the validator refuses would mean the
two layers read different grammars.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from harness import validator_for
from harness.timeutil import parse_rfc3339
from tests.helpers.paths import CORPORA, absent_corpus

DATE_TIME = CORPORA / "json-schema-test-suite" / "tests" / "draft2020-12" / "optional" / "format" / "date-time.json"
_VALIDATOR = validator_for({"format": "date-time"})


def _suite_cases() -> list[Any]:
    if not DATE_TIME.is_file():
        return absent_corpus("json-schema-test-suite", arity=2)
    cases = []
    for group in json.loads(DATE_TIME.read_text(encoding="utf-8")):
        for test in group["tests"]:
            if isinstance(test["data"], str):  # other types are not date-times to any format check
                cases.append(pytest.param(test["data"], test["valid"], id=test["description"][:60]))
    return cases


@pytest.mark.corpus
@pytest.mark.parametrize(("text", "valid"), _suite_cases())
def test_the_parser_reads_exactly_the_suites_valid_date_times(text: str, valid: bool) -> None:
    assert _VALIDATOR.is_valid(text) is valid
    assert (parse_rfc3339(text) is not None) is valid


@pytest.mark.parametrize("digits", [1, 6, 9, 10, 15, 100, 4000])
def test_any_number_of_fractional_digits_is_read_as_the_validator_reads_it(digits: int) -> None:
    text = "2026-11-01T11:58:00." + "9" * digits + "+01:00"
    assert _VALIDATOR.is_valid(text)
    parsed = parse_rfc3339(text)
    micro = int(("9" * digits)[:6].ljust(6, "0"))
    assert parsed == datetime(2026, 11, 1, 11, 58, 0, micro, tzinfo=timezone(timedelta(hours=1)))


@pytest.mark.parametrize("text", ["2026-11-01T11:58:00.Z", "2026-11-01T11:58:00.1x2Z", "2026-11-01T11:58:00,5Z"])
def test_a_malformed_fraction_is_refused_by_both(text: str) -> None:
    assert not _VALIDATOR.is_valid(text)
    assert parse_rfc3339(text) is None
