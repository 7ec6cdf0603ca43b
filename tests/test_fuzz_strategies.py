"""harness.fuzz.strategies: valid, bound, fresh documents; near misses; canaries; bytes."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from harness import Boundary, validator_for
from harness.fuzz import (
    arbitrary_bytes,
    bound_documents,
    from_contract,
    near_misses,
    vendor_documents,
    with_canaries,
)
from harness.fuzz.canaries import Injection, declared_names
from harness.fuzz.generate import GenerationStats, sample
from harness.fuzz.properties import PROPERTIES
from harness.fuzz.replay import decode, encode
from harness.fuzz.runner import FuzzOptions, run_property
from harness.fuzz.strategies import (
    NEAR_MISS_OPERATORS,
    NEAR_MISSES_PER_DOCUMENT,
    _stamp,
    bind,
    near_miss_sets,
    timestamps,
)
from harness.fuzz.subject import Subject
from harness.fuzz.vendor import known_values
from harness.mutations import CANARY_PREFIX, REGISTRY
from harness.timeutil import parse_rfc3339
from tests.helpers.contracts import envelope_schema

TOOLS = ("review_status", "job_status", "deployment_status")


@pytest.mark.parametrize("tool", TOOLS)
def test_from_contract_generates_documents_the_production_validator_accepts(demo, tool: str) -> None:  # type: ignore[no-untyped-def]
    contract = demo(tool)
    for version in contract.versions:
        stats = GenerationStats()
        values = sample(from_contract(contract, version, stats=stats), 40)
        assert len(values) == 40
        assert all(contract.validator(version).is_valid(v) for v in values)
        assert stats.generated >= 40 and stats.discard_rate < 0.05


@pytest.mark.parametrize("tool", TOOLS)
def test_bound_documents_are_accepted_by_the_boundary(demo, tool: str) -> None:  # type: ignore[no-untyped-def]
    contract = demo(tool).without_adapter()
    boundary = Boundary(contract)
    for bound in sample(bound_documents(contract), 40):
        verdict = boundary.check(bound.raw, bound.request, now=bound.now)
        assert verdict.accepted, (verdict.code, bound.document)


def test_bind_derives_the_request_from_the_document(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    document = json.loads((contract.root / "fixtures/accepted/review_status/approved.json").read_text())
    document["request_id"] = "req.Another1"
    document["data"]["change_id"] = "CR-77"
    bound, request = bind(contract, document)
    assert bound == document
    assert request["request_id"] == "req.Another1" and request["args"] == {"change_id": "CR-77"}


def test_bind_falls_back_to_the_default_request_when_the_request_schema_refuses(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("deployment_status")
    bound, request = bind(contract, {"environment": "qa", "revision": "abcdef1", "state": "healthy"})
    assert request == contract.default_request()
    assert bound["environment"] == "staging"  # set from the default request


def test_timestamps_stay_inside_the_freshness_window_and_reach_both_edges(demo) -> None:  # type: ignore[no-untyped-def]
    rule = demo("job_status").freshness[0]
    now = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)
    stamps = sample(timestamps(now, rule), 120)
    instants = [parse_rfc3339(s) for s in stamps]
    assert all(i is not None and now - rule.max_age <= i <= now + rule.max_future_skew for i in instants)
    assert now - rule.max_age in instants and now + rule.max_future_skew in instants
    assert {len(s) for s in stamps} >= {20, 35}  # from "...Z" to nine fractional digits and an offset


def test_a_truncated_fraction_never_makes_the_oldest_timestamp_stale() -> None:
    now = datetime(2026, 1, 1, 0, 0, 0, 500_000, tzinfo=timezone.utc)
    oldest = now - timedelta(minutes=15)
    stamp = _stamp(now, -15 * 60 * 1_000_000, 0, ("Z", timedelta(0)), oldest)
    assert parse_rfc3339(stamp) == oldest  # kept its digits instead of rounding down past the edge


def test_near_misses_come_from_valid_documents_through_registered_operators(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    misses = sample(near_misses(contract), 60)
    assert {m.mutant.operator for m in misses} <= set(REGISTRY.names())
    assert len({m.mutant.operator for m in misses}) > 5
    assert all(contract.validator().is_valid(m.source.document) for m in misses)
    assert all(m.raw != m.source.raw for m in misses)


def test_near_miss_sets_exercise_every_mandatory_operator_on_each_document(demo) -> None:  # type: ignore[no-untyped-def]
    for drawn in sample(near_miss_sets(demo("job_status")), 10):
        operators = {m.mutant.operator for m in drawn.misses}
        assert set(REGISTRY.mandatory()) - {"success_plus_error"} <= operators


def test_drawn_near_miss_sets_hold_the_mutants_of_a_few_operators_and_replay_from_their_names(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("job_status")
    subject = Subject(contract)
    for drawn in sample(subject.near_miss_sets(), 20):
        assert drawn.operators is not None and 1 <= len(drawn.operators) <= NEAR_MISS_OPERATORS
        assert 1 <= len(drawn.misses) <= NEAR_MISSES_PER_DOCUMENT
        assert {m.mutant.operator for m in drawn.misses} <= set(drawn.operators)
        again = decode(subject, json.loads(json.dumps(encode(drawn))))
        assert [m.raw for m in again.misses] == [m.raw for m in drawn.misses]


def test_a_ci_run_of_rejects_near_misses_exercises_every_operator_the_full_sets_do(demo) -> None:  # type: ignore[no-untyped-def]
    # Each document gets a few operators' mutants; across the ci profile's 100 documents, every
    # operator that has a mutant on generated documents is still checked, several times over.
    contract = demo("job_status")
    outcome = run_property(Subject(contract), PROPERTIES["rejects_near_misses"], FuzzOptions(examples=100))
    assert outcome.ok and outcome.examples == 100
    every: set[str] = set()
    for drawn in sample(near_miss_sets(contract, max_mutants=None), 30):
        every |= {m.mutant.operator for m in drawn.misses}
    seen = Counter(outcome.labels)
    assert len(every) > 20 and every <= set(seen)
    assert sum(seen.values()) < 100 * NEAR_MISSES_PER_DOCUMENT


def test_canaries_are_injected_where_they_are_recorded_and_never_under_declared_names(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("job_status")
    schema = contract.vendor_schema
    values = sample(with_canaries(vendor_documents(contract), Injection("t", schema=schema)), 60)
    for injected in values:
        assert injected.canaries
        text = json.dumps(injected.document)
        for canary, pointer in injected.canaries.items():
            assert canary.startswith(CANARY_PREFIX) and canary in text
            parent, _, name = pointer.rpartition("/")
            assert name not in declared_names(schema, parent)


def test_value_canaries_stay_outside_the_agent_view(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    views = frozenset(f.pointer for f in contract.agent_view)
    documents = from_contract(contract)
    values = sample(with_canaries(documents, Injection("t", views=views, replace_values=True)), 80)
    pointers = [p for v in values for p in v.canaries.values()]
    assert not any(p in views for p in pointers)
    assert any(p in ("/tool", "/request_id", "/outcome") for p in pointers)


def test_arbitrary_bytes_mix_random_truncated_spliced_and_inserted(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("deployment_status")
    made = Counter(b.how for b in sample(arbitrary_bytes(from_contract(contract)), 150))
    assert set(made) == {"random", "text", "truncated", "spliced", "inserted"}


def test_known_values_and_members_come_from_the_accepted_fixtures(demo) -> None:  # type: ignore[no-untyped-def]
    values, members = known_values(demo("job_status"))
    assert set(values["/run/status"]) == {"failure", "in_progress", "success"}
    assert "message" in members["/run"] and "html_url" in members["/run"]


def test_vendor_documents_need_a_vendor_schema(make_contract) -> None:  # type: ignore[no-untyped-def]
    from harness import load_contract

    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status")}))
    with pytest.raises(ValueError, match="declares no vendor_schema"):
        vendor_documents(contract)
    assert validator_for(envelope_schema("item_status")).is_valid(sample(from_contract(contract), 1)[0])
