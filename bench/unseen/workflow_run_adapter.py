"""GitHub's workflow run -> the ``workflow_run`` contract object.

Reads only the members ``schemas/vendor.json`` declares. The conclusion is mapped through a
closed table onto the contract's words (GitHub's ``startup_failure`` is a ``failure``; null
while the run has not finished); an unknown conclusion is refused, never guessed. A run
without a name (GitHub allows null) is refused. ``updated_at`` is the evidence freshness
judges.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__version__ = "1"

CONCLUSIONS: dict[str | None, str | None] = {
    None: None, "action_required": "action_required", "cancelled": "cancelled", "failure": "failure",
    "neutral": "neutral", "skipped": "skipped", "stale": "stale", "startup_failure": "failure",
    "success": "success", "timed_out": "timed_out",
}


class UnknownVendorValue(ValueError):
    """A vendor value the contract has no word for."""


def adapt(document: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    conclusion = document["conclusion"]
    if conclusion not in CONCLUSIONS:
        raise UnknownVendorValue("conclusion")
    if document["name"] is None:
        raise ValueError("a workflow run without a name")
    repository = document["repository"]
    return {
        "owner": repository["owner"]["login"],
        "repo": repository["name"],
        "id": document["id"],
        "name": document["name"],
        "event": document["event"],
        "status": document["status"],
        "conclusion": CONCLUSIONS[conclusion],
        "head_branch": document["head_branch"],
        "head_sha": document["head_sha"],
        "run_number": document["run_number"],
        "run_attempt": document["run_attempt"],
        "workflow_id": document["workflow_id"],
        "updated_at": document["updated_at"],
    }
