"""The fuzz properties: they hold on the demo tools, and each one catches what it is for,
with a shrunk example, a fixture and a way to replay it."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import RejectedInput, load_contract, strict_loads
from harness.boundary import pipeline
from harness.contract import Contract
from harness.corpus import fixtures_for
from harness.engine import Engine
from harness.fuzz import PROFILES, PROPERTIES, FuzzOptions, Outcome, fuzz
from harness.fuzz.runner import FuzzFinished
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema

TOOLS = ("review_status", "job_status", "deployment_status")


def run(contract: Contract, prop: str, tmp_path: Path, examples: int = 60, **options: Any) -> Outcome:
    events = list(fuzz([contract], FuzzOptions(examples=examples, properties=(prop,),
                                                fixtures_dir=tmp_path / "out", **options)))
    finished = events[-1]
    assert isinstance(finished, FuzzFinished)
    (outcome,) = finished.report.outcomes
    return outcome


def item_yaml(extra: str = "", *, root: str = "/data", envelope: bool = True,
              request: str = "{type: object, properties: {item_id: {type: string}}}", example: str = "it-7") -> str:
    """contract.yaml of a throwaway item_status tool bound on item_id; ``extra`` follows its
    agent_view (more view fields, indented, or more top-level keys)."""
    return ("tool: item_status\nversion: 1\n" + ("" if envelope else "envelope: null\n")
            + f"request:\n  schema: {request}\n  example: {{item_id: {example}}}\n"
            + f"bindings:\n  - {{name: item_id, result: {root}/item_id, request: /args/item_id}}\n"
            + f"agent_view:\n  item_id: {root}/item_id\n  status: {root}/status\n" + extra)


def _applicable() -> list[tuple[str, str]]:
    """(tool, property) for every property that applies to the demo tool (adapter_maps_cleanly
    only to the tool with an adapter)."""
    from harness.contract import demo_root

    pairs = []
    for tool in TOOLS:
        contract = load_contract(demo_root() / "contracts" / tool)
        pairs += [(tool, prop.name) for prop in PROPERTIES.applicable(contract)]
    return pairs


@pytest.mark.parametrize(("tool", "prop"), _applicable())
def test_every_property_holds_on_the_demo_tools(demo, tool: str, prop: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = demo(tool)
    assert PROPERTIES[prop].applies(contract)
    outcome = run(contract, prop, tmp_path, examples=25)
    assert outcome.ok, outcome.detail
    assert outcome.examples == 25 and outcome.fixture is None


# --------------------------------------------------------------------------- an open schema


def open_data() -> dict[str, Any]:
    data = dict(ENVELOPE_DATA)
    del data["additionalProperties"]
    return data


def test_an_open_schema_is_a_contract_gap_with_a_shrunk_example_and_a_fixture(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", open_data())}))
    outcome = run(contract, "rejects_near_misses", tmp_path)
    assert (outcome.status, outcome.problem) == ("finding", "contract_gap")
    finding = outcome.finding
    assert finding is not None and (finding.operator, finding.pointer) == ("add_extra_property", "/data")
    shrunk = json.loads(finding.payload)
    assert set(shrunk["data"]) == {"item_id", "status", "debug"}  # minimal: the optional note is gone
    assert shrunk["data"]["debug"].startswith("hx-canary-")
    assert "the schema accepts an unexpected member" in outcome.detail
    assert outcome.reproduce is not None and "--property rejects_near_misses" in outcome.reproduce

    # The fixture is ready to commit: copied into the project, `check` fails on it.
    assert outcome.fixture is not None
    written = Path(outcome.fixture)
    sidecar = yaml.safe_load(written.with_name(written.name.replace(".json", ".case.yaml")).read_text())
    assert sidecar["expect"] == {"layer": "schema"} and sidecar["request"]["args"] == {"item_id": shrunk["data"]["item_id"]}
    shutil.copytree(tmp_path / "out" / "fixtures", contract.root / "fixtures", dirs_exist_ok=True)
    (fixture,) = [f for f in fixtures_for(contract) if f.name.startswith("fuzz-")]
    from harness.cases import cases_for

    case = next(c for c in cases_for(contract, sources=("rejected",)).cases if c.fixture == fixture.id)
    result = Engine().evaluate(case)
    assert (result.status, result.problem) == ("failed", "missed")


def test_the_blob_replays_exactly_the_shrunk_example(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", open_data())}))
    first = run(contract, "rejects_near_misses", tmp_path)
    assert first.blob
    # Found by sampling, shrunk by hypothesis's own search: the blob is that search's, and the
    # reproduction says so.
    assert first.generator == "native" and first.reproduce is not None and "--generator native" in first.reproduce
    again = run(contract, "rejects_near_misses", tmp_path, blob=first.blob, generator=first.generator)
    assert again.finding is not None and first.finding is not None
    assert again.finding.payload == first.finding.payload and again.examples == 0


def test_the_nightly_profile_prints_its_seed_and_keeps_failures_in_its_database(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", open_data())}))
    database = tmp_path / "examples"
    outcome = run(contract, "rejects_near_misses", tmp_path, examples=40, profile=PROFILES["nightly"],
                  database_dir=database)
    assert outcome.status == "finding"
    assert outcome.reproduce is not None and "--profile nightly --examples 40 --seed " in outcome.reproduce
    assert any(database.rglob("*")), "the failure was saved to the example database"
    again = run(contract, "rejects_near_misses", tmp_path, examples=40, profile=PROFILES["nightly"],
                database_dir=database)
    assert again.status == "finding" and again.examples == 0  # replayed first from the database


# --------------------------------------------------------------------------- adapters


ADAPTER_CONTRACT = item_yaml("""\
adapter: MODULE:adapt
vendor_schema:
  type: object
  required: [item]
  properties:
    item:
      type: object
      required: [id, state]
      properties:
        id: {type: string, maxLength: 9}
        state: {type: string, maxLength: 10}
""")

ADAPTER_HEAD = """\
def adapt(document, request):
    item = document["item"]
    if item["state"] not in ("open", "closed"):
        raise ValueError("unknown state")
    data = {"item_id": item["id"], "status": item["state"]}
"""


def adapter_project(make_contract, module: str, body: str) -> Contract:  # type: ignore[no-untyped-def]
    source = ADAPTER_HEAD + textwrap.indent(textwrap.dedent(body), "    ") + (
        "    return {'tool': 'item_status', 'request_id': request['request_id'], 'outcome': 'success', 'data': data}\n")
    vendor = {"item": {"id": "it-7", "state": "open", "message": "Item is open", "url": "https://x.invalid/it-7"}}
    directory = make_contract(
        yaml_text=ADAPTER_CONTRACT.replace("MODULE", module),
        files={f"{module}.py": source, "fixtures/accepted/item_status/open.json": json.dumps(vendor)},
    )
    return load_contract(directory)


def test_a_leaky_adapter_is_caught_with_a_shrunk_vendor_document(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = adapter_project(make_contract, "fuzz_leaky_adapter", """\
        if "message" in item:
            data["note"] = item["message"]  # vendor text into the contract object
    """)
    outcome = run(contract, "adapter_maps_cleanly", tmp_path)
    assert (outcome.status, outcome.problem) == ("failed", "vendor_leak")
    assert outcome.detail == "the value of the vendor-only member /item/message reached the adapter's output"
    assert outcome.finding is not None
    shrunk = json.loads(outcome.finding.payload)
    assert set(shrunk["item"]) == {"id", "state", "message"} and shrunk["item"]["state"] in ("open", "closed")


def test_an_adapter_that_crashes_on_a_document_its_vendor_schema_accepts_is_caught(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = adapter_project(make_contract, "fuzz_crashing_adapter", """\
        data["note"] = item["url"][:20]  # url is not required by the vendor schema
    """)
    outcome = run(contract, "adapter_maps_cleanly", tmp_path)
    assert (outcome.status, outcome.problem) == ("failed", "adapter_crash")
    assert "the adapter raised KeyError on a document its vendor_schema accepts" in outcome.detail
    assert outcome.fixture is not None
    sidecar = yaml.safe_load(Path(outcome.fixture.replace(".json", ".case.yaml")).read_text())
    assert sidecar["expect"] == {"layer": "adapter", "code": "adapter.error"}


def test_a_careful_adapter_holds(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    contract = adapter_project(make_contract, "fuzz_careful_adapter", "pass\n")
    outcome = run(contract, "adapter_maps_cleanly", tmp_path)
    assert outcome.ok, outcome.detail
    assert outcome.labels.get("mapped", 0) > 0 and outcome.labels.get("refused (ValueError)", 0) > 0


# --------------------------------------------------------------------------- the other properties


def test_a_timestamp_the_schema_lets_go_missing_breaks_acceptance(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"],
                                           "updated_at": {"type": "string", "format": "date-time", "maxLength": 35}})
    yaml_text = item_yaml("freshness:\n  - {field: /data/updated_at, max_age: PT15M}\n")
    contract = load_contract(make_contract(yaml_text=yaml_text, schemas={1: envelope_schema("item_status", data)}))
    outcome = run(contract, "accepts_valid", tmp_path)
    assert (outcome.problem, outcome.finding and outcome.finding.code) == ("unexpected_rejection", "freshness.missing")
    assert outcome.finding is not None
    assert "updated_at" not in json.loads(outcome.finding.payload)["data"]
    assert outcome.fixture is not None and "/fixtures/accepted/item_status/" in outcome.fixture


def test_a_boundary_that_raises_on_some_bytes_is_caught(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def fragile(ev: Any) -> None:  # a transport layer that trips over NUL bytes
        if isinstance(ev.source, bytes) and b"\x00" in ev.source:
            raise IndexError("a NUL byte")
        return None

    monkeypatch.setattr(pipeline, "LAYERS", ((pipeline.LAYERS[0][0], fragile), *pipeline.LAYERS))
    outcome = run(demo("deployment_status"), "survives_any_bytes", tmp_path)
    assert outcome.problem == "raised"
    assert outcome.detail == "the boundary raised IndexError: a NUL byte instead of returning a verdict"
    assert outcome.finding is not None and b"\x00" in outcome.finding.payload
    assert len(outcome.finding.payload) < 100 and outcome.shrinks > 0
    assert outcome.fixture is not None
    sidecar = yaml.safe_load(Path(outcome.fixture.replace(".json", ".case.yaml")).read_text())
    with pytest.raises(RejectedInput) as parsed:  # the expectation is what the strict parser says
        strict_loads(outcome.finding.payload)
    assert sidecar["expect"] == {"layer": parsed.value.layer.value, "code": parsed.value.code}
    assert "inferred from the strict parser" in sidecar["description"]


def test_an_open_object_in_the_agent_view_leaks_canaries(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = dict(ENVELOPE_DATA, required=["item_id", "status", "details"],
                properties={**ENVELOPE_DATA["properties"], "details": {"type": "object", "maxProperties": 4}})
    yaml_text = item_yaml("  details: /data/details\n")
    contract = load_contract(make_contract(yaml_text=yaml_text, schemas={1: envelope_schema("item_status", data)}))
    # About one example in twenty leaks (an accepted success whose details got a canary), with
    # either generator: 150 examples miss it with odds under 1 in 1,000 (60 missed it 1 in 20).
    outcome = run(contract, "keeps_canaries_out", tmp_path, examples=150)
    assert outcome.problem == "canary_leak"
    assert outcome.detail.startswith("the canary injected at /data/details/")
    assert outcome.finding is not None and outcome.finding.layer is None  # accepted: it reached the agent


def test_a_document_that_can_never_be_bound_means_no_examples(make_contract, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    yaml_text = item_yaml(root="", envelope=False, request="{type: object, properties: {item_id: {enum: [zz]}}}",
                          example="zz")
    bare = {"$schema": "https://json-schema.org/draft/2020-12/schema", **ENVELOPE_DATA}
    contract = load_contract(make_contract(yaml_text=yaml_text, schemas={1: bare}))
    outcome = run(contract, "accepts_valid", tmp_path, examples=10)
    assert (outcome.status, outcome.problem) == ("failed", "no_examples")
    assert "could not be bound" in outcome.detail


@pytest.mark.slow
def test_the_nightly_profile_holds_on_the_demo_tools(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    options = FuzzOptions(profile=PROFILES["nightly"], database_dir=tmp_path / "examples",
                          fixtures_dir=tmp_path / "out")
    finished = list(fuzz([demo(tool) for tool in TOOLS], options))[-1]
    assert isinstance(finished, FuzzFinished)
    report = finished.report
    assert report.ok, [(o.id, o.detail, o.reproduce, o.blob) for o in report.outcomes if not o.ok]
    assert all(o.examples == 2000 for o in report.outcomes)


def test_generating_collects_garbage_less_often_and_restores_the_thresholds_after_a_pass_and_a_finding(  # type: ignore[no-untyped-def]
        demo, make_contract, tmp_path: Path) -> None:
    import gc

    from harness.fuzz.runner import YOUNG_COLLECTION_THRESHOLD

    before = gc.get_threshold()
    seen: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(gc.get_threshold()[0])

    gc.callbacks.append(record)
    try:
        passed = run(demo("review_status"), "accepts_valid", tmp_path, examples=30)
        assert gc.get_threshold() == before
        gap = load_contract(make_contract(schemas={1: envelope_schema("item_status", open_data())}))
        found = run(gap, "rejects_near_misses", tmp_path)
    finally:
        gc.callbacks.remove(record)
    assert passed.ok and found.status == "finding"
    assert gc.get_threshold() == before
    assert YOUNG_COLLECTION_THRESHOLD in seen  # collections while generating ran at the raised threshold
