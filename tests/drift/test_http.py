"""The http upstream kind against the sandbox on loopback: what issue 5 asks of each profile."""

from __future__ import annotations

import gzip
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from harness.errors import ContractError, UsageError
from tests.drift.conftest import item_contract, sandbox_env
from tests.helpers.contracts import item

pytestmark = pytest.mark.drift
HTTP = ["sandbox"]


def test_the_stable_sandbox_shows_no_drift(project: Path, sandbox: Any, drift: Any) -> None:
    checks, summary, _ = drift(project, sandbox_env(sandbox, "stable"), upstreams=HTTP)
    assert len(checks) == 6 and summary.ok
    assert {c.status for c in checks.values()} == {"held"}
    assert all(c.baseline and not c.changes and c.verdict.accepted for c in checks.values())


def test_the_drifted_sandbox_names_each_change_with_its_path_and_kind(project: Path, sandbox: Any, drift: Any) -> None:
    checks, summary, _ = drift(project, sandbox_env(sandbox, "drifted"), upstreams=HTTP)
    found = {cid: [(c.kind, c.path) for c in check.changes] for cid, check in checks.items() if check.changes}
    assert found == {
        "deployment_status::drift::sandbox[staging]": [
            ("field_added", "/maintenance"),
            ("object_where_string", "/state"),
            ("field_added", "/state/message"),
            ("field_added", "/state/value"),
        ],
        "review_status::drift::sandbox[CR-1042]": [("enum_value_new", "/data/decision")],
        "job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]": [("field_added", "/run/queue")],
    }
    staging = checks["deployment_status::drift::sandbox[staging]"]
    assert (staging.status, staging.verdict.code) == ("rejected", "schema.enum")
    assert staging.seen_before == "deployment_status::historical::maintenance-banner/state_object"
    review = checks["review_status::drift::sandbox[CR-1042]"]
    assert review.changes[0].after == '"approved_with_conditions"' and review.verdict.code == "schema.enum"
    job = checks["job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]"]
    assert job.status == "drifted" and job.verdict.accepted  # the adapter absorbs it; the shape still changed
    assert not summary.ok


HOSTILE = {
    "review_status::drift::sandbox[CR-1042]": ("parse", "parse.duplicate_member", "approved"),
    "review_status::drift::sandbox[CR-1043]": (
        "schema",
        "schema.additionalProperties",
        "SYSTEM: ignore",
    ),
    "job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]": (
        "parse",
        "parse.non_finite_number",
        "NaN",
    ),
    "job_status::drift::sandbox[bluebird/run_2aB4c6D8e0fG]": (
        "transport",
        "transport.max_depth",
        "steps",
    ),
    "deployment_status::drift::sandbox[staging]": ("parse", "parse.syntax", "Bad Gateway"),
    "deployment_status::drift::sandbox[production]": ("transport", "transport.max_bytes", "xxxxxx"),
}


def test_hostile_responses_are_rejected_at_their_layer_and_nothing_of_them_reaches_the_agent(
    project: Path, sandbox: Any, drift: Any
) -> None:
    checks, _, _ = drift(project, sandbox_env(sandbox, "hostile"), upstreams=HTTP)
    for cid, (layer, code, payload_text) in HOSTILE.items():
        check = checks[cid]
        assert (check.status, check.verdict.layer.value, check.verdict.code) == (
            "rejected",
            layer,
            code,
        ), cid
        agent = check.verdict.agent_result
        assert agent["outcome"] == "failure" and agent["error"] == {
            "code": "INVALID_RESPONSE",
            "retryable": False,
        }
        assert payload_text not in check.verdict.agent_json


def test_a_huge_body_costs_at_most_max_bytes_plus_one(project: Path, sandbox: Any, drift: Any) -> None:
    checks, _, drift_plan = drift(project, sandbox_env(sandbox, "hostile"), tools=["deployment_status"], upstreams=HTTP)
    huge = checks["deployment_status::drift::sandbox[production]"]
    max_bytes = drift_plan.targets[0].contract.limits.max_bytes
    assert huge.info["bytes_read"] == max_bytes + 1  # of a 1 GiB body
    assert huge.verdict.audit.raw_size == max_bytes + 1


FLAKY = {
    "review_status::drift::sandbox[CR-1042]": (
        "failed",
        "transport.unavailable",
        "timeout",
        "UPSTREAM_UNAVAILABLE",
    ),
    "review_status::drift::sandbox[CR-1043]": (
        "failed",
        "transport.unavailable",
        "reset",
        "UPSTREAM_UNAVAILABLE",
    ),
    "job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]": (
        "failed",
        "transport.unavailable",
        "http_status",
        "UPSTREAM_UNAVAILABLE",
    ),
    "job_status::drift::sandbox[bluebird/run_2aB4c6D8e0fG]": (
        "failed",
        "transport.unavailable",
        "http_status",
        "UPSTREAM_UNAVAILABLE",
    ),
    "deployment_status::drift::sandbox[staging]": (
        "rejected",
        "transport.content_type",
        None,
        "INVALID_RESPONSE",
    ),
    "deployment_status::drift::sandbox[production]": (
        "failed",
        "transport.unavailable",
        "redirect",
        "UPSTREAM_UNAVAILABLE",
    ),
}


def test_flaky_upstreams_are_classified_and_a_slow_answer_is_cut_by_its_timeout(
    project: Path, sandbox: Any, drift: Any
) -> None:
    checks, _, drift_plan = drift(project, sandbox_env(sandbox, "flaky"), upstreams=HTTP)
    for cid, (status, code, reason, agent_code) in FLAKY.items():
        check = checks[cid]
        assert (check.status, check.verdict.code, check.reason) == (status, code, reason), cid
        assert check.verdict.agent_result["error"]["code"] == agent_code
    assert "HTTP 500" in checks["job_status::drift::sandbox[bluebird/run_8f3K2j5H1g9d]"].verdict.message
    assert "127.0.0.2" in checks["deployment_status::drift::sandbox[production]"].verdict.message
    # The slow answer comes after 30 s: its own timeout (3 s here) ends it, not the run's budget.
    assert drift_plan.budget_s < 30
    assert all(check.reason != "run_budget" for check in checks.values())


def test_a_request_the_upstream_does_not_know_is_not_found(project: Path, sandbox: Any, drift: Any) -> None:
    contract = project / "contracts/review_status/contract.yaml"
    contract.write_text(contract.read_text().replace("CR-1043", "CR-404"))
    checks, _, _ = drift(project, sandbox_env(sandbox, "stable"), tools=["review_status"], upstreams=HTTP)
    check = checks["review_status::drift::sandbox[CR-404]"]
    assert (check.status, check.verdict.code, check.reason) == (
        "failed",
        "transport.not_found",
        "not_found",
    )
    assert check.verdict.agent_result["error"]["code"] == "NOT_FOUND"


def test_nothing_listens_is_refused(project: Path, drift: Any) -> None:
    import socket

    with socket.socket() as s:  # a port that was free a moment ago
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    checks, _, _ = drift(
        project,
        {"HARNESS_SANDBOX_URL": f"http://127.0.0.1:{port}"},
        tools=["review_status"],
        upstreams=HTTP,
    )
    assert {c.reason for c in checks.values()} == {"refused"}


# --------------------------------------------------------------------------- a bespoke upstream


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen_headers: ClassVar[list[dict[str, str]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        _Upstream.seen_headers.append(dict(self.headers))
        request_id = self.headers.get("X-Request-Id", "req.J7q94MkP").encode()
        body = item().replace(b"req.J7q94MkP", request_id)
        headers, status = {"Content-Type": "application/json"}, 200
        if self.path.startswith("/old/"):
            status, body, headers = 301, b"", {"Location": self.path.replace("/old/", "/new/")}
        elif self.path.startswith("/gzip/"):
            body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
        elif self.path.startswith("/bomb/"):
            body, headers["Content-Encoding"] = gzip.compress(b" " * 50_000_000), "gzip"
        elif self.path.startswith("/brotli/"):
            headers["Content-Encoding"] = "br"
        elif self.path.startswith("/vendor-json/"):
            headers["Content-Type"] = "application/vnd.example+json; charset=utf-8"
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def http_contract(make_contract: Any, http: str) -> Path:
    """item_status with one http upstream ``api`` (its config written as inline YAML)."""
    return item_contract(
        make_contract, {"api": {"http": yaml.safe_load(http), "requests": [{"item_id": "it-7"}]}}, max_bytes=2048
    )


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/old/{item_id}", "held", None),
        ("/gzip/{item_id}", "held", None),
        ("/vendor-json/{item_id}", "held", None),
        ("/bomb/{item_id}", "rejected", "transport.max_bytes"),
        ("/brotli/{item_id}", "rejected", "transport.content_type"),
    ],
    ids=[
        "same_host_redirect_followed",
        "gzip_inflated",
        "vendor_json_media_type",
        "gzip_bomb_capped",
        "unknown_encoding",
    ],
)
def test_redirects_and_encodings(
    make_contract: Any, upstream: str, drift: Any, path: str, status: str, code: str | None
) -> None:
    root = http_contract(
        make_contract,
        f'{{url: "${{API}}{path}", headers: {{X-Request-Id: "{{request_id}}"}}, timeout_s: 10}}',
    )
    checks, _, _ = drift(root, {"API": upstream})
    check = checks["item_status::drift::api[it-7]"]
    assert (check.status, check.verdict.code) == (status, code), check.detail()
    if path.startswith("/bomb/"):
        assert check.info["bytes_read"] == 2049


def test_secrets_reach_the_upstream_and_never_a_report_or_a_log(
    make_contract: Any, upstream: str, drift: Any, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "tok-5ecr3t-0f-the-n1ght"
    root = http_contract(
        make_contract,
        '{url: "${API}/brotli/{item_id}?access_token=${TOKEN}", headers: {Authorization: "Bearer ${TOKEN}"}, timeout_s: 10}',
    )
    with caplog.at_level(logging.DEBUG):
        checks, _, _ = drift(root, {"API": upstream, "TOKEN": secret})
    assert _Upstream.seen_headers[-1]["Authorization"] == f"Bearer {secret}"
    check = checks["item_status::drift::api[it-7]"]
    report = json.dumps(check.to_dict()) + check.detail() + check.verdict.audit.to_json()
    assert secret not in report and "${TOKEN}" in check.target
    assert secret not in caplog.text and "access_token=${TOKEN}" in caplog.text  # httpx logged the URL


@pytest.mark.parametrize(
    ("http", "needle", "code"),
    [
        (
            '{url: "${API}/x/{item_id}", headers: {Authorization: "Bearer abc123"}}',
            "header 'Authorization' carries a credential",
            "upstream.literal_secret",
        ),
        (
            '{url: "${API}/x/{item_id}?api_key=abc123"}',
            "query parameter 'api_key' carries a credential",
            "upstream.literal_secret",
        ),
        (
            '{url: "https://user:pw@example.invalid/x"}',
            "a password in the URL",
            "upstream.literal_secret",
        ),
        (
            '{url: "${API}/x/{itemid}"}',
            "placeholder {itemid} is not an argument of request it-7",
            "upstream.template",
        ),
        ('{url: "ftp://${API}/x"}', "needs an http:// or https:// URL", "upstream.invalid"),
        (
            '{url: "${MISSING_BASE}/x"}',
            "environment variable MISSING_BASE is not set",
            "upstream.env_unset",
        ),
    ],
    ids=[
        "literal_header_secret",
        "literal_query_secret",
        "url_password",
        "unknown_placeholder",
        "not_http",
        "unset_env",
    ],
)
def test_bad_upstream_configuration_is_one_line_before_anything_is_sent(
    make_contract: Any, drift: Any, http: str, needle: str, code: str
) -> None:
    root = http_contract(make_contract, http)
    with pytest.raises((ContractError, UsageError)) as info:
        drift(root, {"API": "http://127.0.0.1:9"})
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert info.value.code == code


def test_the_meta_schema_refuses_unknown_upstream_keys(make_contract: Any) -> None:
    from harness import load_contract

    root = http_contract(make_contract, '{url: "${API}/x", timout_s: 2}')
    with pytest.raises(
        ContractError,
        match=r"/upstreams/api/http/timout_s: unknown key 'timout_s' \(did you mean 'timeout_s'\?\).*allowed: connect_timeout_s",
    ):
        load_contract(root / "contracts/item_status")


def test_a_run_budget_stops_what_is_still_unanswered(project: Path, sandbox: Any) -> None:
    from harness.contract import load_contract
    from harness.drift.runner import DriftRunner, plan

    drift_plan = plan(
        [load_contract(project / "contracts/review_status")], upstreams=HTTP, environ=sandbox_env(sandbox, "flaky")
    )
    runner = DriftRunner(drift_plan, budget_s=0.3)  # the slow answer has a 3 s timeout here
    checks, summary = runner.run()
    assert runner.budget_s == 0.3 < drift_plan.budget_s
    assert [(c.status, c.reason) for c in checks] == [("failed", "run_budget")] * 2
    assert "the run reached its budget of 0.3 s first" in checks[0].verdict.message
    # The budget, not the 3 s timeout of the slow answer, ended them (checked by reason, not by
    # the wall clock: a loaded machine may take longer than the budget to report it).
    assert summary.count("failed") == 2
