"""A project of invented, tight contracts over the real-tools corpus (written with the corpus's
own payloads, never the demo's).

- ``pull_request``: GitHub ``pulls.get`` behind an adapter. The payload repeats values the
  adapter reads elsewhere (``created_at == updated_at == closed_at == merged_at``; the
  author's login is the repository owner's): near misses must be aimed at what the adapter
  reads. Bound by value: the request's ``pull_number`` is the result's ``number``.
- ``commit_status``: GitHub ``repos.get-combined-status-for-ref`` behind an adapter; the
  agent view maps an array of objects (``statuses``); the request's ``ref`` is the result's
  ``sha``.
- ``check_run``: GitHub ``checks.get`` behind an adapter; ``conclusion`` is nullable by design
  (``oneOf [enum, null]``), ``name`` is pinned by a pattern a well-formed canary would match.
- ``weather``: the MCP ``get-structured-content`` tool, bare results with numeric bounds.
- ``relations``: the MCP memory server's ``read_graph``, bare results whose agent view maps
  arrays of objects with pinned strings.

Each is sound: ``check`` must hold on it with no waiver (tests/test_near_miss_generality.py).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from harness.lock import LOCK_FILE, digest

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SHA = {"type": "string", "pattern": "^[0-9a-f]{40}$"}
LOGIN = {"type": "string", "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$"}
STAMP = {"type": "string", "format": "date-time", "maxLength": 32}
OWNER_REPO = {
    "owner": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,39}$"},
    "repo": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"},
}


def closed(properties: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(properties) if required is None else required,
            "properties": properties, "additionalProperties": False, **more}


def opened(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A vendor object: what the adapter reads, open to the rest."""
    return {"type": "object", "required": list(properties) if required is None else required,
            "properties": properties}


# ------------------------------------------------------------------ pull_request (pulls.get)

PULL_ADAPTER = '''\
"""GitHub pulls.get -> the pull_request contract object."""

__version__ = "1.0.0"

_STATES = {"open": "open", "closed": "closed"}


def adapt(document, request):
    state = _STATES[document["state"]]
    return {
        "number": document["number"],
        "state": state,
        "draft": document["draft"],
        "merged": document["merged"],
        "head_sha": document["head"]["sha"],
        "base_ref": document["base"]["ref"],
        "author": document["user"]["login"],
        "commits": document["commits"],
        "changed_files": document["changed_files"],
        "updated_at": document["updated_at"],
    }
'''

PULL_VENDOR = {
    "$schema": DRAFT, **opened({
        "number": {"type": "integer", "minimum": 1},
        "state": {"enum": ["open", "closed"]},
        "draft": {"type": "boolean"},
        "merged": {"type": "boolean"},
        "head": opened({"sha": SHA}),
        "base": opened({"ref": {"type": "string", "pattern": "^[A-Za-z0-9._/-]{1,100}$"}}),
        "user": opened({"login": LOGIN}),
        "commits": {"type": "integer", "minimum": 0, "maximum": 10000},
        "changed_files": {"type": "integer", "minimum": 0, "maximum": 3000},
        "updated_at": STAMP,
    }),
}

PULL_V1 = {
    "$schema": DRAFT, **closed({
        "number": {"type": "integer", "minimum": 1, "maximum": 10000000},
        "state": {"enum": ["open", "closed"]},
        "draft": {"type": "boolean"},
        "merged": {"type": "boolean"},
        "head_sha": SHA,
        "base_ref": {"type": "string", "pattern": "^[A-Za-z0-9._/-]{1,100}$"},
        "author": LOGIN,
        "commits": {"type": "integer", "minimum": 0, "maximum": 10000},
        "changed_files": {"type": "integer", "minimum": 0, "maximum": 3000},
        "updated_at": STAMP,
    }),
}

PULL_CONTRACT = {
    "tool": "pull_request",
    "description": "A pull request's state, head commit and size, as evidence for a merge decision.",
    "version": 1,
    "limits": {"max_bytes": 65536, "max_depth": 12},
    "request": {
        "schema": closed({**OWNER_REPO, "pull_number": {"type": "integer", "minimum": 1}}),
        "example": {"owner": "octocat", "repo": "Hello-World", "pull_number": 1347},
    },
    "envelope": None,
    "bindings": [{"name": "pull_number", "result": "/number", "request": "/args/pull_number"}],
    "freshness": [{"field": "/updated_at", "max_age": "PT1H", "max_future_skew": "PT1M"}],
    "agent_view": {name: f"/{name}" for name in PULL_V1["properties"]},
    "adapter": "pull_request_adapter:adapt",
    "vendor_schema": "schemas/vendor.json",
    "defaults": {"now": "2011-01-26T19:30:00Z"},
}

# ------------------------------------------------ commit_status (repos.get-combined-status)

STATUS_ADAPTER = '''\
"""GitHub repos.get-combined-status-for-ref -> the commit_status contract object."""

__version__ = "1.0.0"

_STATES = ("success", "pending", "failure", "error")


def _state(value):
    if value not in _STATES:
        raise ValueError("state")
    return value


def adapt(document, request):
    return {
        "sha": document["sha"],
        "state": _state(document["state"]),
        "total_count": document["total_count"],
        "statuses": [
            {"context": s["context"], "state": _state(s["state"]), "updated_at": s["updated_at"]}
            for s in document["statuses"]
        ],
    }
'''

CONTEXT = {"type": "string", "pattern": "^[a-z0-9][a-z0-9._/-]{0,99}$"}
STATUS_STATE = {"enum": ["success", "pending", "failure", "error"]}

STATUS_VENDOR = {
    "$schema": DRAFT, **opened({
        "sha": SHA,
        "state": STATUS_STATE,
        "total_count": {"type": "integer", "minimum": 0, "maximum": 1000},
        "statuses": {"type": "array", "maxItems": 100,
                     "items": opened({"context": CONTEXT, "state": STATUS_STATE, "updated_at": STAMP})},
    }),
}

STATUS_V1 = {
    "$schema": DRAFT, **closed({
        "sha": SHA,
        "state": STATUS_STATE,
        "total_count": {"type": "integer", "minimum": 0, "maximum": 1000},
        "statuses": {"type": "array", "maxItems": 100,
                     "items": closed({"context": CONTEXT, "state": STATUS_STATE, "updated_at": STAMP})},
    }),
}

STATUS_CONTRACT = {
    "tool": "commit_status",
    "description": "The combined CI status of a commit, each context's state.",
    "version": 1,
    "limits": {"max_bytes": 65536, "max_depth": 12},
    "request": {
        "schema": closed({**OWNER_REPO, "ref": SHA}),
        "example": {"owner": "octocat", "repo": "Hello-World", "ref": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
    },
    "envelope": None,
    "bindings": [{"name": "ref", "result": "/sha", "request": "/args/ref"}],
    "agent_view": {"sha": "/sha", "state": "/state", "total_count": "/total_count", "statuses": "/statuses"},
    "adapter": "commit_status_adapter:adapt",
    "vendor_schema": "schemas/vendor.json",
}

# ------------------------------------------------------------------------ check_run (checks.get)

CHECK_ADAPTER = '''\
"""GitHub checks.get -> the check_run contract object."""

__version__ = "1.0.0"


def adapt(document, request):
    return {
        "id": document["id"],
        "name": document["name"],
        "head_sha": document["head_sha"],
        "status": document["status"],
        "conclusion": document["conclusion"],
        "annotations": document["output"]["annotations_count"],
        "completed_at": document["completed_at"],
    }
'''

CHECK_STATUS = {"enum": ["queued", "in_progress", "completed"]}
CONCLUSION = {"oneOf": [
    {"enum": ["success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required"]},
    {"type": "null"},
]}
CHECK_NAME = {"type": "string", "pattern": "^[a-z0-9_-]{1,64}$"}
COMPLETED = {"oneOf": [STAMP, {"type": "null"}]}

CHECK_VENDOR = {
    "$schema": DRAFT, **opened({
        "id": {"type": "integer", "minimum": 1, "maximum": 100000000000},
        "name": CHECK_NAME,
        "head_sha": SHA,
        "status": CHECK_STATUS,
        "conclusion": CONCLUSION,
        "output": opened({"annotations_count": {"type": "integer", "minimum": 0, "maximum": 50000}}),
        "completed_at": COMPLETED,
    }),
}

CHECK_V1 = {
    "$schema": DRAFT, **closed({
        "id": {"type": "integer", "minimum": 1, "maximum": 100000000000},
        "name": CHECK_NAME,
        "head_sha": SHA,
        "status": CHECK_STATUS,
        "conclusion": CONCLUSION,
        "annotations": {"type": "integer", "minimum": 0, "maximum": 50000},
        "completed_at": COMPLETED,
    }),
}

CHECK_CONTRACT = {
    "tool": "check_run",
    "description": "One check run: its name, status and conclusion.",
    "version": 1,
    "limits": {"max_bytes": 16384, "max_depth": 10},
    "request": {
        "schema": closed({**OWNER_REPO, "check_run_id": {"type": "integer", "minimum": 1}}),
        "example": {"owner": "github", "repo": "hello-world", "check_run_id": 4},
    },
    "envelope": None,
    "bindings": [{"name": "check_run_id", "result": "/id", "request": "/args/check_run_id"}],
    "agent_view": {name: f"/{name}" for name in CHECK_V1["properties"]},
    "adapter": "check_run_adapter:adapt",
    "vendor_schema": "schemas/vendor.json",
}

# --------------------------------------------------------------- weather (MCP, bare results)

WEATHER_V1 = {
    "$schema": DRAFT, **closed({
        "temperature": {"type": "number", "minimum": -90, "maximum": 140},
        "conditions": {"enum": ["Sunny / Clear", "Cloudy", "Light rain / drizzle", "Snow"]},
        "humidity": {"type": "number", "minimum": 0, "maximum": 100},
    }),
}

WEATHER_CONTRACT = {
    "tool": "weather",
    "description": "Current weather in a city.",
    "version": 1,
    "limits": {"max_bytes": 1024, "max_depth": 4},
    "request": {
        "schema": closed({"location": {"enum": ["New York", "Chicago", "Los Angeles"]}}),
        "example": {"location": "Chicago"},
    },
    "envelope": None,
    "agent_view": {"temperature": "/temperature", "conditions": "/conditions", "humidity": "/humidity"},
}

# -------------------------------------------------- relations (MCP memory read_graph, bare)

NAME = {"type": "string", "pattern": "^[A-Z][A-Za-z0-9_]{0,63}$"}
WORD = {"type": "string", "pattern": "^[a-z][a-z_]{0,31}$"}

RELATIONS_V1 = {
    "$schema": DRAFT, **closed({
        "entities": {"type": "array", "maxItems": 50, "items": closed({
            "name": NAME,
            "entityType": WORD,
            "observations": {"type": "array", "maxItems": 20,
                             "items": {"type": "string", "pattern": "^[A-Za-z0-9 ,.'-]{1,200}$"}},
        })},
        "relations": {"type": "array", "maxItems": 100,
                      "items": closed({"from": NAME, "to": NAME, "relationType": WORD})},
    }),
}

RELATIONS_CONTRACT = {
    "tool": "relations",
    "description": "The knowledge graph's entities and relations.",
    "version": 1,
    "limits": {"max_bytes": 32768, "max_depth": 8},
    "request": {"schema": closed({}), "example": {}},
    "envelope": None,
    "agent_view": {"entities": "/entities", "relations": "/relations"},
}

#: tool -> (contract, schemas by name, adapter source or None, corpus examples (source, case)).
TOOLS: dict[str, tuple[dict[str, Any], dict[str, Any], str | None, list[tuple[str, str]]]] = {
    "pull_request": (PULL_CONTRACT, {"v1": PULL_V1, "vendor": PULL_VENDOR}, PULL_ADAPTER,
                     [("github-rest-api/pulls.get", "default")]),
    "commit_status": (STATUS_CONTRACT, {"v1": STATUS_V1, "vendor": STATUS_VENDOR}, STATUS_ADAPTER,
                      [("github-rest-api/repos.get-combined-status-for-ref", "default")]),
    "check_run": (CHECK_CONTRACT, {"v1": CHECK_V1, "vendor": CHECK_VENDOR}, CHECK_ADAPTER,
                  [("github-rest-api/checks.get", "default")]),
    "weather": (WEATHER_CONTRACT, {"v1": WEATHER_V1}, None,
                [("mcp-server-everything/get-structured-content", c) for c in ("chicago", "los_angeles", "new_york")]),
    "relations": (RELATIONS_CONTRACT, {"v1": RELATIONS_V1}, None, [("mcp-server-memory/read_graph", "full_graph")]),
}


def _request(corpus: Path, source: str, case: str) -> dict[str, Any] | None:
    path = corpus / source / "requests" / f"{case}.json"
    if not path.is_file():
        return None
    found = json.loads(path.read_text(encoding="utf-8"))
    if "pathParams" in found:
        return {k: int(v) if k.endswith(("_number", "_id")) else v for k, v in found["pathParams"].items()
                if k in ("owner", "repo", "ref", "pull_number", "check_run_id")}
    return dict(found.get("params", {}).get("arguments", {}))


def build(root: Path, corpus: Path, tools: tuple[str, ...] = tuple(TOOLS)) -> Path:
    """Write the project into ``root`` (created) from ``corpus`` (the real-tools folder)."""
    for tool in tools:
        contract, schemas, adapter, examples = copy.deepcopy(TOOLS[tool])
        directory = root / "contracts" / tool
        (directory / "schemas").mkdir(parents=True, exist_ok=True)
        (directory / "contract.yaml").write_text(yaml.safe_dump(contract, sort_keys=False, width=120), encoding="utf-8")
        for name, schema in schemas.items():
            (directory / "schemas" / f"{name}.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        # Published: a weakening arrives as a new version, judged against this one.
        (directory / LOCK_FILE).write_text(f"v1 {digest(schemas['v1'])}\n", encoding="utf-8")
        if adapter is not None:
            (root / f"{tool}_adapter.py").write_text(adapter, encoding="utf-8")
        folder = root / "fixtures" / "accepted" / tool
        folder.mkdir(parents=True, exist_ok=True)
        for source, case in examples:
            shutil.copyfile(corpus / source / "examples" / f"{case}.json", folder / f"{case}.json")
            sidecar: dict[str, Any] = {"expect": "accept"}
            request = _request(corpus, source, case)
            if request:
                sidecar["request"] = {"args": request}
            (folder / f"{case}.case.yaml").write_text(yaml.safe_dump(sidecar, sort_keys=False), encoding="utf-8")
    return root
