"""GitHub's check run -> the ``check_run`` contract object.

Reads only the members ``schemas/vendor.json`` declares and copies them into a new, closed
object: the run's identity and outcome (``conclusion`` and ``completed_at`` null until it
completes), when it started (the evidence freshness judges), its annotation count, and for
each pull request it reports on, the number, head commit and base branch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__version__ = "1"


def adapt(document: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": document["id"],
        "name": document["name"],
        "status": document["status"],
        "conclusion": document["conclusion"],
        "head_sha": document["head_sha"],
        "started_at": document["started_at"],
        "completed_at": document["completed_at"],
        "annotations_count": document["output"]["annotations_count"],
        "pull_requests": [
            {"number": pr["number"], "head_sha": pr["head"]["sha"], "base_ref": pr["base"]["ref"]}
            for pr in document["pull_requests"]
        ],
    }
