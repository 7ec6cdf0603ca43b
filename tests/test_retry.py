from __future__ import annotations

import pytest

from harness import Boundary, RetryPolicy, UpstreamError, UsageError, run_with_retry
from tests.helpers.contracts import item


class FakeTime:
    """An injected clock and sleep: the loop's time is ours to control."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def monotonic(self) -> float:
        return self.now


def fetches(*results):  # type: ignore[no-untyped-def]
    queue = list(results)
    calls = []

    def fetch():  # type: ignore[no-untyped-def]
        calls.append(1)
        value = queue.pop(0)
        if isinstance(value, Exception):
            raise value
        return value

    return fetch, calls


@pytest.fixture
def boundary(make_contract):  # type: ignore[no-untyped-def]
    from harness import load_contract

    return Boundary(load_contract(make_contract()))


def test_unavailable_upstream_is_retried_until_it_answers(boundary) -> None:  # type: ignore[no-untyped-def]
    t = FakeTime()
    fetch, calls = fetches(UpstreamError("transport.unavailable", "refused"), item())
    out = run_with_retry(fetch, boundary, policy=RetryPolicy(), sleep=t.sleep, monotonic=t.monotonic)
    assert out.verdict.accepted and len(out.attempts) == 2 and len(calls) == 2
    assert out.attempts[0].agent_result["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}


def test_schema_rejection_is_never_retried(boundary) -> None:  # type: ignore[no-untyped-def]
    fetch, calls = fetches(item(extra=1), item())
    out = run_with_retry(fetch, boundary, sleep=lambda s: None)
    assert out.verdict.code == "schema.additionalProperties" and len(calls) == 1


def test_attempts_are_capped(boundary) -> None:  # type: ignore[no-untyped-def]
    t = FakeTime()
    fetch, calls = fetches(*[UpstreamError("transport.unavailable", "503")] * 10)
    out = run_with_retry(fetch, boundary, policy=RetryPolicy(max_attempts=4, time_budget_s=100),
                         sleep=t.sleep, monotonic=t.monotonic)
    assert len(calls) == 4 and not out.verdict.accepted
    assert t.slept == [0.1, 0.2, 0.4]


def test_time_budget_stops_retrying(boundary) -> None:  # type: ignore[no-untyped-def]
    t = FakeTime()
    fetch, calls = fetches(*[UpstreamError("transport.unavailable", "timeout")] * 10)
    run_with_retry(fetch, boundary, policy=RetryPolicy(max_attempts=10, time_budget_s=0.5),
                   sleep=t.sleep, monotonic=t.monotonic)
    assert len(calls) == 3  # after 0.1 + 0.2 slept, the next 0.4 would pass the 0.5 s budget


def test_not_found_is_not_retried_by_default(boundary) -> None:  # type: ignore[no-untyped-def]
    fetch, calls = fetches(UpstreamError("transport.not_found", "404"), item())
    out = run_with_retry(fetch, boundary, sleep=lambda s: None)
    assert len(calls) == 1 and out.verdict.agent_result["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize("code", ["schema.type", "binding.request_id", "adapter.error"])
def test_policy_refuses_structural_codes(code: str) -> None:
    with pytest.raises(UsageError):
        RetryPolicy(retry_on=frozenset({code}))
