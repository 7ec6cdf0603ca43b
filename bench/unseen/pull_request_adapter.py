"""GitHub's pull request -> the ``pull_request`` contract object.

Reads only the members ``schemas/vendor.json`` declares and copies them into a new, closed
object: the repository's owner and name (bound to the request), the pull request's number
(bound to ``pull_number``), its state and merge readiness, its author, the head commit, the
base branch, the size of the change, and ``updated_at`` (the evidence freshness judges).
``mergeable`` stays null while GitHub has not computed it: the contract says so, the adapter
never guesses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__version__ = "1"


def adapt(document: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    repo = document["base"]["repo"]
    return {
        "owner": repo["owner"]["login"],
        "repo": repo["name"],
        "number": document["number"],
        "state": document["state"],
        "draft": document["draft"],
        "merged": document["merged"],
        "mergeable": document["mergeable"],
        "mergeable_state": document["mergeable_state"],
        "author": document["user"]["login"],
        "author_association": document["author_association"],
        "head_sha": document["head"]["sha"],
        "base_ref": document["base"]["ref"],
        "commits": document["commits"],
        "changed_files": document["changed_files"],
        "additions": document["additions"],
        "deletions": document["deletions"],
        "updated_at": document["updated_at"],
    }
