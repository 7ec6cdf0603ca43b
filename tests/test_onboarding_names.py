"""Names from MCP servers and OpenAPI descriptions, made safe for contracts and agent views."""

from __future__ import annotations

import pytest

from harness.onboarding import OnboardingError
from harness.onboarding.names import (
    TOOL_PATTERN,
    VIEW_PATTERN,
    binding_name,
    plan_tool_names,
    tool_name,
    upstream_name,
    view_name,
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("read_graph", "read_graph"),
        ("get-structured-content", "get-structured-content"),
        ("pulls/get", "pulls.get"),
        ("files read", "files_read"),
        ("github:create_issue", "github_create_issue"),
        ("_private", "private"),
        ("../../etc", "etc"),
        ("a..b", "a.b"),
    ],
)
def test_upstream_names_become_valid_contract_tools(given: str, expected: str) -> None:
    assert tool_name(given) == expected
    assert TOOL_PATTERN.match(expected)


@pytest.mark.parametrize("given", ["天気", "...", "con", "NUL.txt", "x" * 300])
def test_names_with_nothing_usable_get_a_stable_digest_or_are_cut(given: str) -> None:
    name = tool_name(given)
    assert TOOL_PATTERN.match(name)
    assert name == tool_name(given)
    assert name.split(".")[0].lower() not in {"con", "nul"}


def test_two_upstream_names_for_one_directory_are_a_clash_with_a_way_out() -> None:
    with pytest.raises(OnboardingError) as caught:
        plan_tool_names(["a/b", "a.b"])
    assert caught.value.code == "import.name_clash"
    assert "--name a.b=NEW_NAME" in str(caught.value)
    assert plan_tool_names(["a/b", "a.b"], {"a.b": "a_b"}) == {"a/b": "a.b", "a.b": "a_b"}


def test_names_that_differ_only_in_case_clash_on_every_file_system() -> None:
    with pytest.raises(OnboardingError, match="would both become") as caught:
        plan_tool_names(["Status", "status"])
    assert caught.value.code == "import.name_clash"


def test_a_rename_must_name_a_source_tool_and_be_a_valid_tool() -> None:
    with pytest.raises(OnboardingError) as unknown:
        plan_tool_names(["a"], {"b": "c"})
    assert unknown.value.code == "import.unknown_rename"
    with pytest.raises(OnboardingError) as invalid:
        plan_tool_names(["a"], {"a": "no spaces"})
    assert invalid.value.code == "import.invalid_name"


@pytest.mark.parametrize(("given", "expected"), [("entityType", "entityType"), ("+1", "_1"), ("2fa", "_2fa"), ("_links", "_links")])
def test_property_names_become_agent_view_keys(given: str, expected: str) -> None:
    assert view_name(given) == expected
    assert VIEW_PATTERN.match(expected)


def test_binding_and_upstream_names_fit_the_meta_schema() -> None:
    assert binding_name("X-Run-Id") == "x_run_id"
    assert binding_name("42") == "p_42"
    assert upstream_name("mcp-servers/everything", "mcp") == "mcp-servers.everything"
    assert upstream_name(None, "mcp") == "mcp"
