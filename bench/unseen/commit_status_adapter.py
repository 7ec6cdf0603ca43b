"""GitHub's combined commit status -> the ``commit_status`` contract object.

Reads only the members ``schemas/vendor.json`` declares. The combined state is mapped through a
closed table (an unknown state is refused, never guessed); each status keeps its context, state
and update time; ``updated_at`` is the newest status's update time, the evidence freshness
judges.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

__version__ = "1"

COMBINED_STATES = {"failure": "failure", "pending": "pending", "success": "success"}


class UnknownVendorValue(ValueError):
    """A vendor value the contract has no word for."""


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def adapt(document: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    state = document["state"]
    if state not in COMBINED_STATES:
        raise UnknownVendorValue("combined state")
    statuses = [
        {"context": s["context"], "state": s["state"], "updated_at": s["updated_at"]}
        for s in document["statuses"]
    ]
    if not statuses:
        raise ValueError("no status to judge the commit by")
    newest = max(document["statuses"], key=lambda s: _instant(s["updated_at"]))["updated_at"]
    return {
        "owner": document["repository"]["owner"]["login"],
        "repo": document["repository"]["name"],
        "sha": document["sha"],
        "state": COMBINED_STATES[state],
        "total_count": document["total_count"],
        "statuses": statuses,
        "updated_at": newest,
    }
