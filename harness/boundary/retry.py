"""Retry as a policy object outside the model: attempts, a time budget, qualifying codes.

Only transient failures qualify (an unavailable upstream, a stale timestamp, a broken read).
Schema, binding and adapter rejections never do: the same bytes would be wrong again, and a
policy naming them is refused. Every attempt fetches and validates anew — a retried
consequential call acts on fresh evidence, never on an earlier result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.codes import AgentCode, Layer, layer_of
from harness.errors import HarnessError, UsageError

if TYPE_CHECKING:
    from harness.boundary.pipeline import Boundary, Verdict

_NEVER = (Layer.SCHEMA, Layer.BINDING, Layer.ADAPTER)
DEFAULT_RETRY_ON = frozenset(
    {AgentCode.UPSTREAM_UNAVAILABLE.value, "freshness.stale", "transport.read_error"}
)


class UpstreamError(HarnessError):
    """Raised by a fetch function when the upstream gave no body to check.

    ``code`` is a transport code (``transport.unavailable`` or ``transport.not_found``).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 3
    time_budget_s: float = 10.0
    retry_on: frozenset[str] = DEFAULT_RETRY_ON
    backoff_s: float = 0.1
    max_backoff_s: float = 2.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise UsageError(f"max_attempts must be at least 1, not {self.max_attempts}")
        if self.time_budget_s <= 0:
            raise UsageError(f"time_budget_s must be positive, not {self.time_budget_s}")
        for code in self.retry_on:
            if "." in code and layer_of_safe(code) in _NEVER:
                raise UsageError(
                    f"{code} can never be retried: the same bytes would be rejected again "
                    f"(schema, binding and adapter rejections stop the workflow)"
                )

    def qualifies(self, verdict: Verdict) -> bool:
        """A verdict is worth another attempt: not a success, not structural, code listed."""
        if verdict.accepted and verdict.outcome == "success":
            return False
        if verdict.layer in _NEVER:
            return False
        agent_code = verdict.agent_result["error"]["code"]
        return verdict.code in self.retry_on or agent_code in self.retry_on


def layer_of_safe(code: str) -> Layer | None:
    try:
        return layer_of(code)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class RetryOutcome:
    verdict: Verdict
    attempts: tuple[Verdict, ...] = field(default_factory=tuple)


def run_with_retry(
    fetch: Callable[[], Any],
    boundary: Boundary,
    request: dict[str, Any] | None = None,
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> RetryOutcome:
    """Fetch and check until a verdict does not qualify for retry, or the policy runs out.

    ``fetch()`` returns the raw body (bytes, stream or chunks) or raises :class:`UpstreamError`.
    """
    policy = policy or RetryPolicy()
    started = monotonic()
    attempts: list[Verdict] = []
    delay = policy.backoff_s
    while True:
        try:
            verdict = boundary.check(fetch(), request)
        except UpstreamError as exc:
            verdict = boundary.upstream_failure(exc.code, exc.message, request)
        attempts.append(verdict)
        if not policy.qualifies(verdict) or len(attempts) >= policy.max_attempts:
            break
        if monotonic() - started + delay > policy.time_budget_s:
            break
        sleep(delay)
        delay = min(delay * 2, policy.max_backoff_s)
    return RetryOutcome(verdict=attempts[-1], attempts=tuple(attempts))
