"""Benchmark: the full boundary against the naive way and the unsafe floor, in one run.

    python bench/boundary.py [--quick]

(a) full boundary: ``Boundary.check`` — every layer, audit record, fresh agent object;
(b) naive: ``json.loads`` + ``jsonschema.Draft202012Validator(..., format_checker=...).validate``;
(c) floor: the fastest parser available (orjson if installed, else json) +
    ``jsonschema_rs.is_valid``, no other checks.

Payloads: the review_status envelope (demo fixture) and a 1,000-record run list. Prints
results per second and the ratios a/b (target >= 5) and a/c (aim >= 1/3).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import save, table, throughput  # noqa: E402

from harness import Boundary, load_contract  # noqa: E402
from harness.contract import demo_root  # noqa: E402

try:
    import orjson

    FAST_NAME, fast_loads = "orjson", orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    FAST_NAME, fast_loads = "json", json.loads

RUN_LIST_YAML = """\
tool: run_list
version: 1
request:
  schema: {type: object, required: [project_id], properties: {project_id: {type: string}}}
  example: {project_id: bluebird}
bindings:
  - {name: project_id, result: /data/project_id, request: /args/project_id}
agent_view:
  project_id: /data/project_id
  runs: /data/runs
"""


def run_list_schema() -> dict[str, Any]:
    run = {
        "type": "object",
        "required": ["run_id", "state", "attempt", "observed_at"],
        "properties": {
            "run_id": {"type": "string", "pattern": "^run_[A-Za-z0-9]{12,48}$", "maxLength": 52},
            "state": {"enum": ["failed", "running", "succeeded", "cancelled"]},
            "attempt": {"type": "integer", "minimum": 1, "maximum": 1000},
            "observed_at": {"type": "string", "format": "date-time", "maxLength": 35},
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["tool", "request_id", "outcome", "data"],
        "properties": {
            "tool": {"const": "run_list"},
            "request_id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.]{7,63}$"},
            "outcome": {"const": "success"},
            "data": {
                "type": "object",
                "required": ["project_id", "runs"],
                "properties": {
                    "project_id": {"type": "string", "maxLength": 63},
                    "runs": {"type": "array", "maxItems": 1000, "items": run},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }


def run_list_payload(n: int = 1000) -> bytes:
    states = ["failed", "running", "succeeded", "cancelled"]
    runs = [
        {"run_id": f"run_{i:012d}abc", "state": states[i % 4], "attempt": 1 + i % 5,
         "observed_at": f"2026-11-01T11:{i % 60:02d}:00Z"}
        for i in range(n)
    ]
    doc = {"tool": "run_list", "request_id": "req.J7q94MkP", "outcome": "success",
           "data": {"project_id": "bluebird", "runs": runs}}
    return json.dumps(doc).encode()


def measure(name: str, contract_dir: Path, raw: bytes, quick: bool) -> dict[str, Any]:
    contract = load_contract(contract_dir)
    schema = contract.schema()
    boundary = Boundary(contract)
    assert boundary.check(raw).accepted, f"{name}: the benchmark payload must be accepted"
    naive = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    naive.validate(json.loads(raw))
    floor = jsonschema_rs.validator_for(schema, validate_formats=True)
    assert floor.is_valid(fast_loads(raw))
    min_time = 0.1 if quick else 0.4
    a = throughput(lambda: boundary.check(raw), min_time=min_time)
    b = throughput(lambda: naive.validate(json.loads(raw)), min_time=min_time)
    c = throughput(lambda: floor.is_valid(fast_loads(raw)), min_time=min_time)
    return {"payload": name, "bytes": len(raw), "boundary_per_s": a, "naive_per_s": b,
            "floor_per_s": c, "a_over_b": a / b, "a_over_c": a / c}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter rounds (noisier)")
    args = parser.parse_args(argv)
    root = demo_root()
    results = [
        measure(
            "review_status envelope",
            root / "contracts" / "review_status",
            (root / "fixtures/accepted/review_status/approved.json").read_bytes(),
            args.quick,
        )
    ]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "contracts" / "run_list"
        (directory / "schemas").mkdir(parents=True)
        (directory / "contract.yaml").write_text(RUN_LIST_YAML)
        (directory / "schemas" / "v1.json").write_text(json.dumps(run_list_schema()))
        results.append(measure("1,000-record run list", directory, run_list_payload(), args.quick))
    rows = [
        [r["payload"], f"{r['bytes']:,}", f"{r['boundary_per_s']:,.0f}", f"{r['naive_per_s']:,.0f}",
         f"{r['floor_per_s']:,.0f}", f"{r['a_over_b']:.1f}x", f"{r['a_over_c']:.2f}x"]
        for r in results
    ]
    print(f"floor parser: {FAST_NAME}")
    print(table(rows, ["payload", "bytes", "(a) boundary/s", "(b) naive/s", "(c) floor/s", "a/b", "a/c"]))
    print("targets: a/b >= 5.0x; a/c >= 0.33x (within 3x of the floor)")
    print(f"saved {save('boundary', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
