"""Adapters of the demo tools: vendor documents in, closed contract objects out.

An adapter selects the fields the contract needs and builds a *new* object. It never copies
a vendor object wholesale, never forwards vendor text (messages, URLs), and raises on anything
it does not understand; the boundary turns that into ``adapter.error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__version__ = "2.0.0"

# Vendor run statuses -> contract states. Anything else is refused, not guessed.
_STATES = {
    "queued": "running",
    "in_progress": "running",
    "running": "running",
    "failure": "failed",
    "failed": "failed",
    "success": "succeeded",
    "succeeded": "succeeded",
}
_ERRORS = {"not_found": "NOT_FOUND", "unavailable": "UPSTREAM_UNAVAILABLE"}


class UnknownVendorValue(ValueError):
    """The vendor sent a value this adapter has no mapping for."""


def job_status_from_runs_api(document: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """Vendor ``GET /projects/{project}/runs/{run}`` -> ``job_status`` v2 envelope."""
    base = {"tool": "job_status", "request_id": request["request_id"]}
    if "error" in document:
        code = _ERRORS.get(document["error"]["type"])
        if code is None:
            raise UnknownVendorValue("error type")
        return {**base, "outcome": "failure", "error": {"code": code, "retryable": False}}
    run = document["run"]
    state = _STATES.get(run["status"])
    if state is None:
        raise UnknownVendorValue("run status")
    return {
        **base,
        "outcome": "success",
        "data": {
            "project_id": run["project"]["slug"],
            "run_id": run["id"],
            "state": state,
            "attempt": run.get("attempt_number", 1),
            "observed_at": run["updated_at"],
        },
    }


job_status_from_runs_api.version = __version__  # type: ignore[attr-defined]
