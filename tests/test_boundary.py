from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from harness import Boundary, InvalidRequest, MemoryAuditSink, RawStore, load_contract
from tests.helpers.contracts import DEFAULT_YAML, envelope_schema, item

CANARY = "CANARY-7f3a"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
SUCCESS_KEYS = {"tool", "request_id", "outcome", "data"}
FAILURE_KEYS = {"tool", "request_id", "outcome", "error"}


def test_accepted_result_becomes_a_fresh_small_object(make_contract) -> None:  # type: ignore[no-untyped-def]
    boundary = Boundary(load_contract(make_contract()))
    verdict = boundary.check(item(note="for people"))
    assert verdict.accepted and verdict.layer is None and verdict.code is None
    assert verdict.agent_result == {
        "tool": "item_status",
        "request_id": "req.J7q94MkP",
        "outcome": "success",
        "data": {"item_id": "it-7", "status": "open"},
    }
    # A fresh copy each time: mutating it changes nothing.
    verdict.agent_result["data"]["status"] = "closed"
    assert verdict.agent_result["data"]["status"] == "open"


@pytest.mark.parametrize(
    ("raw", "layer", "code"),
    [
        (b"", "transport", "transport.empty"),
        (b"[" * 100_000, "transport", "transport.max_depth"),
        (b'{"tool": "item_status", "tool": "item_status"}', "parse", "parse.duplicate_member"),
        (item(extra=CANARY), "schema", "schema.additionalProperties"),
        (item(tool="other_tool"), "schema", "schema.const"),
        (item().replace(b"req.J7q94MkP", b"req.Forged001"), "binding", "binding.request_id"),
        (item().replace(b'"it-7"', b'"it-8"'), "binding", "binding.item_id"),
    ],
)
def test_first_rejecting_layer_ends_the_run(make_contract, raw, layer, code) -> None:  # type: ignore[no-untyped-def]
    verdict = Boundary(load_contract(make_contract())).check(raw)
    assert (verdict.accepted, verdict.layer, verdict.code) == (False, layer, code)
    assert set(verdict.agent_result) == FAILURE_KEYS
    assert verdict.agent_result["error"] == {"code": "INVALID_RESPONSE", "retryable": False}


def test_rejections_of_one_request_share_one_envelope_and_each_request_has_its_own(make_contract) -> None:  # type: ignore[no-untyped-def]
    boundary = Boundary(load_contract(make_contract()))
    first, second = boundary.check(item(extra=CANARY)), boundary.check(item(tool="other_tool"))
    assert first.agent_json == second.agent_json == json.dumps(first.agent_result, ensure_ascii=False)
    assert first.agent_result["request_id"] == "req.J7q94MkP"
    other = {"request_id": "req.Another01", "args": {"item_id": "it-7"}}
    third = boundary.check(item(extra=CANARY).replace(b"req.J7q94MkP", b"req.Another01"), other)
    assert third.code == "schema.additionalProperties"
    assert json.loads(third.agent_json)["request_id"] == "req.Another01" and CANARY not in third.agent_json
    assert json.loads(first.agent_json)["request_id"] == "req.J7q94MkP"  # not changed by the third


def test_byte_cap_comes_from_the_contract(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "limits: {max_bytes: 64}\n")
    verdict = Boundary(load_contract(d)).check(io.BytesIO(item(note="x" * 10)))
    assert verdict.code == "transport.max_bytes"
    assert verdict.audit.raw_size == 65


def test_canary_in_any_unexpected_place_never_reaches_the_agent(make_contract) -> None:  # type: ignore[no-untyped-def]
    boundary = Boundary(load_contract(make_contract()))
    doc = json.loads(item())
    variants = [
        {**doc, "debug": CANARY},
        {**doc, "data": {**doc["data"], "message": CANARY}},
        {**doc, "error": {"code": CANARY, "retryable": True}},
        {**doc, "data": {**doc["data"], "status": CANARY}},
        {**doc, "outcome": "failure", "error": {"code": "NOT_FOUND", "retryable": False, "detail": CANARY}},
    ]
    for variant in variants:
        verdict = boundary.check(json.dumps(variant).encode())
        assert CANARY not in verdict.agent_json
        assert not verdict.accepted


def test_upstream_failure_result_maps_to_the_finite_code_set(demo) -> None:  # type: ignore[no-untyped-def]
    raw = json.dumps({"tool": "review_status", "request_id": "req.J7q94MkP", "outcome": "failure",
                      "error": {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}}).encode()
    verdict = Boundary(demo("review_status")).check(raw)
    assert verdict.accepted and verdict.outcome == "failure"
    # retryable follows the contract's policy, not the upstream's claim
    assert verdict.agent_result["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}


def test_freshness_uses_the_injected_clock(demo, demo_root) -> None:  # type: ignore[no-untyped-def]
    raw = (demo_root / "fixtures/accepted/job_status/failed_run.json").read_bytes()
    contract = demo("job_status")
    assert Boundary(contract, clock=lambda: NOW).check(raw).accepted
    late = Boundary(contract, clock=lambda: NOW + timedelta(minutes=16)).check(raw)
    assert (late.code, late.agent_result["error"]["retryable"]) == ("freshness.stale", True)
    early = Boundary(contract, clock=lambda: NOW - timedelta(minutes=3)).check(raw)
    assert early.code == "freshness.future"
    assert Boundary(contract).check(raw, now="2026-11-01T12:12:59Z").accepted


@pytest.mark.parametrize(
    ("stamp", "code"),
    [
        ("2026-11-01T11:58:00", "freshness.unparseable"),
        ("2026-11-01", "freshness.unparseable"),
        ("20261101T115800Z", "freshness.unparseable"),
        ("2026-11-01T11:58:00+25:00", "freshness.unparseable"),
        ("2026-02-30T11:58:00Z", "freshness.unparseable"),
        ("2026-11-01T06:58:00-05:00", None),
        ("2026-11-01t11:58:00.123456789z", None),
    ],
)
def test_timestamps_are_parsed_as_rfc3339(make_contract, stamp, code) -> None:  # type: ignore[no-untyped-def]
    # The layer parses every timestamp itself, whatever the schema's format check let through:
    # judged here on its own, behind a schema that (as every loadable contract must) says date-time.
    from harness.boundary import freshness
    from harness.boundary.base import Evaluation

    data = {"type": "object", "properties": {"item_id": {"type": "string"}, "status": {"type": "string"},
                                             "seen": {"type": "string", "format": "date-time"}}}
    d = make_contract(
        yaml_text=DEFAULT_YAML.format(tool="item_status")
        + "freshness: [{field: /data/seen, max_age: PT15M}]\n",
        schemas={1: envelope_schema("item_status", data)},
    )
    contract = load_contract(d)
    ev = Evaluation(contract, 1, contract.normalise_request(None), NOW, None)
    ev.set_result(json.loads(item(seen=stamp)))
    rejection = freshness.check(ev)
    assert (rejection.code if rejection else None) == code


def test_adapter_absorbs_vendor_churn_and_never_forwards_vendor_text(demo, demo_root) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads((demo_root / "fixtures/accepted/job_status/failed_run.json").read_bytes())
    doc["run"]["new_field"] = CANARY
    doc["run"]["message"] = CANARY
    verdict = Boundary(demo("job_status"), clock=lambda: NOW).check(json.dumps(doc).encode())
    assert verdict.accepted and CANARY not in verdict.agent_json


def test_adapter_exception_text_stays_out_of_every_message(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(
        yaml_text=DEFAULT_YAML.format(tool="item_status") + "adapter: leaky_adapter_mod:adapt\n",
        files={"leaky_adapter_mod.py": "def adapt(doc, request):\n    raise KeyError(doc['data']['note'])\n"},
    )
    verdict = Boundary(load_contract(d)).check(item(note=CANARY))
    assert verdict.code == "adapter.error"
    assert CANARY not in json.dumps(verdict.to_dict())


def test_adapter_output_is_held_to_the_contract_schema(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(
        yaml_text=DEFAULT_YAML.format(tool="item_status") + "adapter: sloppy_adapter_mod:adapt\n",
        files={"sloppy_adapter_mod.py": "def adapt(doc, request):\n    doc['data']['extra'] = 1\n    return doc\n"},
    )
    verdict = Boundary(load_contract(d)).check(item())
    assert (verdict.layer, verdict.code, verdict.instance_pointer) == ("adapter", "adapter.output_invalid", "/data")


def test_bare_result_is_wrapped_with_the_callers_ids(demo) -> None:  # type: ignore[no-untyped-def]
    verdict = Boundary(demo("deployment_status")).check(
        b'{"environment": "staging", "revision": "a83f19c", "state": "healthy"}',
        {"request_id": "req.Caller0001", "args": {"environment": "staging"}},
    )
    assert verdict.agent_result == {
        "tool": "deployment_status", "request_id": "req.Caller0001", "outcome": "success",
        "data": {"environment": "staging", "revision": "a83f19c", "state": "healthy"},
    }


def test_view_schema_is_closed_and_derived_from_the_contract(demo) -> None:  # type: ignore[no-untyped-def]
    view = demo("review_status").view_schema()
    assert view["additionalProperties"] is False
    assert view["required"] == ["change_id", "decision", "reviewed_by"]
    assert view["properties"]["decision"] == {"enum": ["approved", "rejected", "pending"]}


def test_missing_view_field_is_a_projection_rejection(make_contract) -> None:  # type: ignore[no-untyped-def]
    d = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + "  note_text: /data/note\n")
    verdict = Boundary(load_contract(d)).check(item())
    assert verdict.code == "projection.missing_field"
    ok = Boundary(load_contract(d)).check(item(note="hi"))
    assert ok.agent_result["data"]["note_text"] == "hi"


def test_request_that_does_not_fit_the_contract_is_the_callers_error(demo) -> None:  # type: ignore[no-untyped-def]
    boundary = Boundary(demo("review_status"))
    with pytest.raises(InvalidRequest):
        boundary.check(b"{}", {"args": {"change_id": 42}})
    with pytest.raises(InvalidRequest):
        boundary.check(b"{}", {"tool": "job_status"})


def test_audit_record_has_the_operator_fields_and_no_values(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    sink = MemoryAuditSink()
    store = RawStore(tmp_path / "raw")
    boundary = Boundary(load_contract(make_contract()), audit=sink, raw_store=store, upstream="sandbox")
    raw = item(status=CANARY)
    verdict = boundary.check(raw)
    record = sink.records[0]
    assert record == verdict.audit
    assert record.to_dict().keys() >= {
        "tool", "contract_version", "adapter", "adapter_version", "upstream", "request_id",
        "accepted", "outcome", "layer", "code", "instance_pointer", "schema_pointer", "message",
        "raw_sha256", "raw_size", "raw_path",
    }
    assert (record.layer, record.code, record.upstream, record.raw_size) == ("schema", "schema.enum", "sandbox", len(raw))
    assert CANARY not in record.to_json()
    kept = tmp_path / "raw" / f"{record.raw_sha256}.bin"
    assert kept.read_bytes() == raw and oct(kept.stat().st_mode & 0o777) == "0o600"


def test_jsonl_sink_writes_one_line_per_verdict(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness import JsonlAuditSink

    path = tmp_path / "audit.jsonl"
    with JsonlAuditSink(path) as sink:
        boundary = Boundary(load_contract(make_contract()), audit=sink)
        boundary.check(item())
        boundary.check(b"nope")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["code"] for x in lines] == [None, "parse.syntax"]


def test_verdict_is_immutable(make_contract) -> None:  # type: ignore[no-untyped-def]
    verdict = Boundary(load_contract(make_contract())).check(item())
    with pytest.raises(AttributeError):
        verdict.accepted = False  # type: ignore[misc]


def test_all_demo_fixtures_hold(demo, demo_root) -> None:  # type: ignore[no-untyped-def]
    from harness.corpus import fixtures_for, judge

    seen = 0
    for tool in ("review_status", "job_status", "deployment_status"):
        contract = demo(tool)
        for fixture in fixtures_for(contract):
            verdict = judge(contract, fixture)  # contract-shaped payloads skip the adapter
            assert fixture.expect.matches(verdict), (fixture.id, verdict.code, fixture.expect)
            seen += 1
    assert seen >= 29
