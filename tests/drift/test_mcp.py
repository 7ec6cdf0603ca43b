"""The mcp upstream kind: the demo MCP server over stdio, and real captures replayed over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.sandbox.mcp import output_schema
from tests.helpers.paths import corpus

pytestmark = pytest.mark.drift
MCP = ["sandbox-mcp"]
REPLAY = Path(__file__).with_name("replay_mcp.py")


def profile(name: str) -> dict[str, str]:
    return {"HARNESS_SANDBOX_PROFILE": name}


def test_the_demo_mcp_server_advertises_the_contracts_schemas_and_answers_within_them(
    project: Path, drift: Any
) -> None:
    checks, summary, _ = drift(project, profile("stable"), upstreams=MCP)
    assert len(checks) == 9 and summary.ok, [c.detail() for c in checks.values() if c.status != "held"]
    schemas = {cid: c for cid, c in checks.items() if cid.endswith("[outputSchema]")}
    assert {c.status for c in schemas.values()} == {"held"}
    assert schemas["review_status::drift::sandbox-mcp[outputSchema]"].dialect == "draft-07"
    assert schemas["job_status::drift::sandbox-mcp[outputSchema]"].dialect == "2020-12"
    assert output_schema("review_status", "stable")["definitions"]  # really draft-07 on the wire


def test_the_drifted_mcp_server_shows_schema_drift_and_result_drift(project: Path, drift: Any) -> None:
    checks, _, _ = drift(project, profile("drifted"), upstreams=MCP)
    schema_changes = {
        cid: [(c.kind, c.path) for c in check.changes]
        for cid, check in checks.items()
        if cid.endswith("[outputSchema]")
    }
    assert schema_changes == {
        "deployment_status::drift::sandbox-mcp[outputSchema]": [
            ("field_added", "/maintenance"),
            ("object_where_string", "/state"),
            ("field_added", "/state/message"),
            ("field_added", "/state/value"),
        ],
        "job_status::drift::sandbox-mcp[outputSchema]": [("field_added", "/run/queue")],
        "review_status::drift::sandbox-mcp[outputSchema]": [("enum_value_new", "/data/decision")],
    }
    assert all(checks[cid].status == "drifted" for cid in schema_changes)
    staging = checks["deployment_status::drift::sandbox-mcp[staging]"]
    assert staging.verdict.code == "schema.enum" and ("object_where_string", "/state") in [
        (c.kind, c.path) for c in staging.changes
    ]
    assert [(c.kind, c.path) for c in checks["job_status::drift::sandbox-mcp[bluebird/run_8f3K2j5H1g9d]"].changes] == [
        ("field_added", "/run/queue")
    ]


HOSTILE = {
    "review_status::drift::sandbox-mcp[CR-1042]": ("parse.duplicate_member", "/data", "approved"),
    "review_status::drift::sandbox-mcp[CR-1043]": (
        "schema.additionalProperties",
        "/data",
        "SYSTEM: ignore",
    ),
    "job_status::drift::sandbox-mcp[bluebird/run_8f3K2j5H1g9d]": (
        "parse.non_finite_number",
        None,
        "NaN",
    ),
    "job_status::drift::sandbox-mcp[bluebird/run_2aB4c6D8e0fG]": (
        "transport.max_depth",
        None,
        "steps",
    ),
    "deployment_status::drift::sandbox-mcp[staging]": ("parse.syntax", None, "Bad Gateway"),
    "deployment_status::drift::sandbox-mcp[production]": ("transport.max_bytes", None, "xxxxxx"),
}


def test_hostile_mcp_results_are_rejected_on_the_raw_json_rpc_bytes(project: Path, drift: Any) -> None:
    checks, _, _ = drift(project, profile("hostile"), upstreams=MCP)
    for cid, (code, pointer, text) in HOSTILE.items():
        check = checks[cid]
        assert (check.status, check.verdict.code) == ("rejected", code), cid
        if pointer is not None:
            assert check.verdict.instance_pointer == pointer, cid
        assert check.verdict.agent_result["error"] == {
            "code": "INVALID_RESPONSE",
            "retryable": False,
        }
        assert text not in check.verdict.agent_json
    huge = checks["deployment_status::drift::sandbox-mcp[production]"]
    assert huge.verdict.audit.raw_size == 4 * 4096 + 65536 + 1  # the cap on one message, plus one byte


FLAKY = {
    "review_status::drift::sandbox-mcp[CR-1042]": ("failed", "transport.unavailable", "timeout"),
    "review_status::drift::sandbox-mcp[CR-1043]": ("failed", "transport.unavailable", "closed"),
    "job_status::drift::sandbox-mcp[bluebird/run_8f3K2j5H1g9d]": (
        "failed",
        "transport.tool_error",
        "is_error",
    ),
    "job_status::drift::sandbox-mcp[bluebird/run_2aB4c6D8e0fG]": (
        "failed",
        "transport.tool_error",
        "jsonrpc_error",
    ),
    "deployment_status::drift::sandbox-mcp[staging]": ("rejected", "transport.empty", None),
    "deployment_status::drift::sandbox-mcp[production]": ("rejected", "transport.frame", None),
}


def test_a_flaky_mcp_server_is_classified_and_a_slow_answer_is_cut_by_its_timeout(project: Path, drift: Any) -> None:
    checks, _, _ = drift(project, profile("flaky"), upstreams=MCP)
    for cid, expected in FLAKY.items():
        check = checks[cid]
        assert (check.status, check.verdict.code, check.reason) == expected, cid
    # isError: the tool answered that the call failed, so not "unavailable", and not retried by
    # default; no answer at all (a timeout) is unavailable, and retryable as the contract says.
    assert checks["job_status::drift::sandbox-mcp[bluebird/run_8f3K2j5H1g9d]"].verdict.agent_result["error"] == {
        "code": "TOOL_ERROR", "retryable": False}
    assert checks["review_status::drift::sandbox-mcp[CR-1042]"].verdict.agent_result["error"] == {
        "code": "UPSTREAM_UNAVAILABLE", "retryable": True}
    assert all(check.reason != "run_budget" for check in checks.values())  # every request ended on its own


def test_a_server_that_does_not_start_fails_every_check_with_its_stderr(project: Path, drift: Any) -> None:
    contract = project / "contracts/review_status/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    data["upstreams"]["sandbox-mcp"]["mcp"]["args"] = [
        "sandbox",
        "--mcp",
        "--profile",
        "no-such-profile",
    ]
    contract.write_text(yaml.safe_dump(data))
    checks, _, _ = drift(project, {}, tools=["review_status"], upstreams=MCP)
    assert {(c.status, c.reason) for c in checks.values()} == {("failed", "closed")}
    assert "invalid choice" in checks["review_status::drift::sandbox-mcp[CR-1042]"].stderr


# --------------------------------------------------------------------------- real captures


def replay_project(
    tmp_path: Path,
    source: Path,
    tool: str,
    agent_view: dict[str, str],
    *extra_args: str,
    side_effects: bool = False,
    **contract: Any,
) -> Path:
    """A contract for one recorded tool whose upstream replays the recorded server over stdio.
    ``side_effects``: the upstream opts in to calling tools not annotated read-only (harmless
    here: the replay only answers from the recording)."""
    directory = tmp_path / "contracts" / tool
    (directory / "schemas").mkdir(parents=True)
    (directory / "schemas" / "v1.json").write_bytes((source / tool / "schema.json").read_bytes())
    requests = [
        json.loads(p.read_text())["params"]["arguments"] for p in sorted((source / tool / "requests").glob("*.json"))
    ]
    (directory / "contract.yaml").write_text(
        yaml.safe_dump(
            {
                "tool": tool,
                "version": 1,
                "envelope": None,
                "agent_view": agent_view,
                **contract,
                "upstreams": {
                    "recorded": {
                        "mcp": {
                            "command": sys.executable,
                            "args": [str(REPLAY), str(source), *extra_args],
                            "timeout_s": 10,
                            "startup_timeout_s": 30,
                        },
                        "requests": requests,
                        **({"side_effects": "allowed"} if side_effects else {}),
                    }
                },
            },
            sort_keys=False,
        )
    )
    return tmp_path


@pytest.mark.corpus
def test_recorded_memory_server_lines_are_checked_through_the_mcp_path(tmp_path: Path, drift: Any) -> None:
    source = corpus("real-tools") / "mcp-server-memory"
    root = replay_project(tmp_path, source, "add_observations", {"results": "/results"}, side_effects=True)
    checks, _, _ = drift(root, {})
    got = {cid: (c.status, c.verdict.code if c.verdict else None, c.reason) for cid, c in checks.items()}
    assert got == {
        "add_observations::drift::recorded[outputSchema]": (
            "held",
            None,
            None,
        ),  # draft-07, as advertised
        "add_observations::drift::recorded[request-1]": ("held", None, None),  # one_observation
        "add_observations::drift::recorded[request-2]": (
            "failed",
            "transport.tool_error",
            "is_error",
        ),  # unknown_entity
    }
    error = checks["add_observations::drift::recorded[request-2]"].verdict
    assert "Nobody" not in error.agent_json and error.agent_result["error"] == {"code": "TOOL_ERROR", "retryable": False}


@pytest.mark.corpus
def test_recorded_everything_server_results_and_a_contract_that_drifted_from_its_schema(
    tmp_path: Path, drift: Any
) -> None:
    source = corpus("real-tools") / "mcp-server-everything"
    root = replay_project(
        tmp_path,
        source,
        "get-structured-content",
        {"temperature": "/temperature", "conditions": "/conditions"},
    )
    schema_file = root / "contracts/get-structured-content/schemas/v1.json"
    schema = json.loads(schema_file.read_text())
    schema["properties"]["conditions"]["enum"] = [
        "Cloudy",
        "Sunny / Clear",
    ]  # the contract pins the values it knew
    schema_file.write_text(json.dumps(schema))
    checks, _, _ = drift(root, {})
    by_case = {cid.split("[")[1].rstrip("]"): c for cid, c in checks.items()}
    assert by_case["Chicago"].status == "rejected" and by_case["Chicago"].verdict.code == "schema.enum"
    assert by_case["New York"].status == "held" and by_case["Los Angeles"].status == "held"
    # The server's schema allows any string where the contract pins two values: named, not held.
    assert [(c.kind, c.path) for c in by_case["outputSchema"].changes] == [("enum_removed", "/conditions")]
    raw = (source / "get-structured-content/raw/new_york.json").read_bytes()
    assert (
        by_case["New York"].verdict.audit.raw_sha256
        == __import__("hashlib")
        .sha256(raw[raw.index(b'"structuredContent":') + 20 : raw.index(b'},"jsonrpc"')])
        .hexdigest()
    )


@pytest.mark.corpus
def test_upstreams_that_start_the_same_server_share_one_process(tmp_path: Path, drift: Any) -> None:
    source = corpus("real-tools") / "mcp-server-memory"
    log = tmp_path / "starts.log"
    replay_project(tmp_path, source, "add_observations", {"results": "/results"}, str(log), side_effects=True)
    replay_project(tmp_path, source, "read_graph", {"entities": "/entities"}, str(log))
    checks, _, _ = drift(tmp_path, {})
    assert log.read_text() == "started\n"
    assert checks["read_graph::drift::recorded[outputSchema]"].status == "held"
    assert checks["read_graph::drift::recorded[default]"].status == "held"
    assert checks["add_observations::drift::recorded[request-1]"].status == "held"


@pytest.mark.corpus
def test_a_mutating_tool_is_never_called_without_the_opt_in_and_the_report_says_why(
    tmp_path: Path, drift: Any
) -> None:
    source = corpus("real-tools") / "mcp-server-memory"
    root = replay_project(tmp_path, source, "add_observations", {"results": "/results"})
    checks, summary, _ = drift(root, {})
    calls = {cid: c for cid, c in checks.items() if not cid.endswith("[outputSchema]")}
    assert {(c.status, c.reason) for c in calls.values()} == {("not_called", "side_effects")}
    assert all("readOnlyHint: true" in c.detail() and c.verdict is None for c in calls.values())
    assert summary.ok and summary.total == 1  # the schema check only; not-called checks are no cases


@pytest.mark.corpus
def test_a_tool_the_server_does_not_list_fails_its_schema_check_and_its_calls(tmp_path: Path, drift: Any) -> None:
    source = corpus("real-tools") / "mcp-server-memory"
    root = replay_project(tmp_path, source, "read_graph", {"entities": "/entities"})
    contract = root / "contracts/read_graph/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    data["upstreams"]["recorded"]["mcp"]["tool"] = "read_the_graph"
    contract.write_text(yaml.safe_dump(data))
    checks, _, _ = drift(root, {})
    schema = checks["read_graph::drift::recorded[outputSchema]"]
    assert (schema.status, schema.reason) == ("failed", "not_found")
    assert schema.notes[0].startswith("the server lists no tool 'read_the_graph' (it lists: add_observations,")
    call = checks["read_graph::drift::recorded[default]"]  # nothing says the unlisted tool is read-only
    assert (call.status, call.verdict, call.reason) == ("not_called", None, "side_effects")
    assert "the server does not list 'read_the_graph'" in call.detail()
