"""Templates, ${ENV} references and redaction."""

from __future__ import annotations

import logging

import pytest

from harness.drift.template import Environment, Template, redacted_logging
from harness.errors import ContractError, UsageError


def test_env_references_and_placeholders_fill_in_one_pass() -> None:
    env = Environment({"BASE": "http://h/{x}", "TOKEN": "t0k3n-abc"})
    template = Template.parse("${BASE}/r/{id}?t=${TOKEN}&{{lit}}", "f: /url")
    assert template.render(env, {"id": "${TOKEN}"}) == "http://h/{x}/r/${TOKEN}?t=t0k3n-abc&{lit}"
    assert template.env_names == ("BASE", "TOKEN") and template.fields == ("id",)


def test_display_never_shows_environment_values() -> None:
    template = Template.parse("${BASE}/r/{id}", "f: /url")
    assert template.display({"id": "CR 1"}, lambda v: v.replace(" ", "%20")) == "${BASE}/r/CR%201"


@pytest.mark.parametrize("text", ["{", "a}b", "${", "{a.b}", "{0}"])
def test_a_stray_brace_is_one_line_naming_the_place(text: str) -> None:
    with pytest.raises(ContractError) as info:
        Template.parse(text, "contracts/x/contract.yaml: /upstreams/s/http/url")
    message = str(info.value)
    assert "\n" not in message and message.startswith("contracts/x/contract.yaml: /upstreams/s/http/url")
    assert info.value.code == "upstream.template"


def test_an_unset_variable_names_itself_and_where_it_is_needed() -> None:
    with pytest.raises(UsageError) as info:
        Environment({}).require(Template.parse("${REVIEW_API}/x", "contracts/r/contract.yaml: /upstreams/s/http/url"))
    assert info.value.code == "upstream.env_unset"
    assert str(info.value) == (
        "environment variable REVIEW_API is not set (needed by contracts/r/contract.yaml: /upstreams/s/http/url)"
    )


def test_a_fallback_is_used_only_when_the_variable_is_unset_or_empty() -> None:
    template = Template.parse("${PROFILE:-stable}", "w")
    assert template.render(Environment({}), {}) == "stable"
    assert template.render(Environment({"PROFILE": ""}), {}) == "stable"
    assert template.render(Environment({"PROFILE": "flaky"}), {}) == "flaky"


def test_a_placeholder_without_an_argument_is_refused_with_the_alternatives() -> None:
    with pytest.raises(
        ContractError,
        match=r"placeholder \{change\} is not an argument of request CR-1.*allowed: change_id",
    ):
        Template.parse("/r/{change}", "w").check_fields({"change_id"}, "CR-1")


def test_secrets_are_redacted_longest_first_and_short_values_are_left_alone() -> None:
    env = Environment({"TOKEN": "abcd1234", "PREFIX": "abcd", "FLAG": "on"})
    for name in ("TOKEN", "PREFIX", "FLAG"):
        env.get(name, None, "w")
    assert env.redact("token abcd1234, prefix abcd, flag on") == "token ${TOKEN}, prefix ${PREFIX}, flag on"
    assert env.found_in(b"echo abcd1234") == ["PREFIX", "TOKEN"]


def test_fallback_values_are_not_secrets() -> None:
    env = Environment({})
    Template.parse("${PROFILE:-stable}", "w").render(env, {})
    assert env.redact("stable") == "stable"


def test_log_records_made_during_a_run_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    env = Environment({"TOKEN": "s3cr3t-value"})
    env.get("TOKEN", None, "w")
    logger = logging.getLogger("httpx")
    with caplog.at_level(logging.DEBUG), redacted_logging(env):
        logger.info("HTTP Request: GET %s", "http://h/x?token=s3cr3t-value")
    logger.info("after: %s", "s3cr3t-value")  # outside the run: untouched (nothing captured)
    assert "s3cr3t-value" not in caplog.text and "token=${TOKEN}" in caplog.text
