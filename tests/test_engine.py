from __future__ import annotations

import json

from harness import load_contract
from harness.cases import Case, CaseExpectation, cases_for, shard
from harness.codes import Layer
from harness.engine import Engine
from harness.events import RunFinished
from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema, item


def _fixture(tmp_path, tool: str, body: bytes, kind: str = "accepted", name: str = "ok",
             sidecar: str | None = None) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "fixtures" / kind / tool
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_bytes(body)
    if sidecar:
        (folder / f"{name}.case.yaml").write_text(sidecar)


def _run(contract, **kw):  # type: ignore[no-untyped-def]
    collected = cases_for(contract, **kw)
    events = list(Engine().run(collected.cases, collected.notes))
    results = [e.result for e in events if hasattr(e, "result")]
    summary = events[-1].summary
    assert isinstance(events[-1], RunFinished)
    return results, summary


def test_demo_contracts_hold_with_every_case_passing(demo) -> None:  # type: ignore[no-untyped-def]
    for tool in ("review_status", "job_status", "deployment_status"):
        results, summary = _run(demo(tool))
        assert summary.ok, [(r.id, r.problem, r.detail) for r in results if r.status != "passed"]
        assert summary.total > 50


def test_an_open_schema_is_reported_as_a_contract_gap(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    open_data = dict(ENVELOPE_DATA)
    del open_data["additionalProperties"]
    d = make_contract(schemas={1: envelope_schema("item_status", open_data)})
    _fixture(tmp_path, "item_status", item())
    results, summary = _run(load_contract(d), sources=("accepted", "mutation"), operators=["add_extra_property"])
    gap = [r for r in results if r.problem == "contract_gap"]
    assert [r.pointer for r in gap] == ["/data"]
    assert gap[0].status == "finding"
    assert "the schema accepts an unexpected member" in gap[0].detail and "(at /data)" in gap[0].detail
    assert not summary.ok


def test_a_leaky_adapter_is_caught_by_the_canary_rule(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    leaky = (
        "def adapt(doc, request):\n"
        "    data = dict(doc['data'])\n"
        "    extra = [v for k, v in data.items() if k not in ('item_id', 'status')]\n"
        "    data = {'item_id': data['item_id'], 'status': data['status']}\n"
        "    if extra and isinstance(extra[0], str):\n"
        "        data['note'] = extra[0][:20]\n"
        "    return {**doc, 'data': data}\n"
    )
    d = make_contract(
        yaml_text=DEFAULT_YAML.format(tool="item_status") + "adapter: leaky_engine_adapter:adapt\n"
        + "  note: {pointer: /data/note, optional: true}\n".replace("  note", "  note") ,
        files={"leaky_engine_adapter.py": leaky},
    )
    # agent_view gains an optional free-text field: the adapter copies unknown vendor text into it.
    text = (d / "contract.yaml").read_text().replace("adapter: leaky_engine_adapter:adapt\n  note:", "adapter: leaky_engine_adapter:adapt\nx-note:")
    text = text.replace("agent_view:\n", "agent_view:\n  note: {pointer: /data/note, optional: true}\n")
    (d / "contract.yaml").write_text(text)
    _fixture(tmp_path, "item_status", item())
    results, _ = _run(load_contract(d), sources=("mutation",), operators=["add_extra_property"])
    leaks = [r for r in results if r.problem == "canary_leak"]
    assert leaks and leaks[0].pointer == "/data"


def test_a_rejection_by_another_layer_is_a_wrong_layer_failure(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    d = make_contract()
    # A wrong item for the request: binding's job. The sidecar wrongly blames the schema.
    _fixture(tmp_path, "item_status", item().replace(b"it-7", b"it-8"), "rejected", "wrong_item",
             "expect: {layer: schema}\n")
    results, _ = _run(load_contract(d), sources=("rejected",))
    assert (results[0].problem, results[0].layer) == ("wrong_layer", Layer.BINDING)
    assert "rejected by binding (binding.item_id)" in results[0].detail


def test_a_fixture_the_validators_disagree_on_is_a_differential_finding(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"], "note": {"type": "string", "format": "regex"}})
    d = make_contract(schemas={1: envelope_schema("item_status", data)})
    # A Python-only regex construct: invalid for ECMA-262 (jsonschema-rs), valid for python's re.
    _fixture(tmp_path, "item_status", item(note="(?P<n>a)"), "rejected", "py_regex",
             "expect: {layer: schema, code: schema.format}\n")
    results, summary = _run(load_contract(d), sources=("rejected",))
    assert (results[0].status, results[0].problem) == ("finding", "differential")
    assert summary.count("finding") == 1


def test_differential_disagreement_is_reported_with_both_verdicts(make_contract) -> None:  # type: ignore[no-untyped-def]
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"], "note": {"type": "string", "format": "regex"}})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    case = Case("item_status::rejected::pyregex", "item_status", "rejected", contract,
                CaseExpectation(False, (Layer.SCHEMA,)), lambda: item(note="(?P<n>a)"))
    # Expectation met by production, but the reference disagrees: reported as a finding.
    result = Engine().evaluate(case)
    assert (result.status, result.problem) == ("finding", "differential")
    assert "jsonschema-rs) says invalid" in result.detail and "(jsonschema) says valid" in result.detail


def test_shards_partition_the_cases_deterministically(demo) -> None:  # type: ignore[no-untyped-def]
    cases = cases_for(demo("review_status")).cases
    shards = [shard(cases, i, 3) for i in (1, 2, 3)]
    ids = [c.id for s in shards for c in s]
    assert sorted(ids) == sorted(c.id for c in cases) and len(set(ids)) == len(ids)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert [c.id for c in shard(cases, 2, 3)] == [c.id for c in shards[1]]


def test_case_ids_are_unique_and_readable(demo) -> None:  # type: ignore[no-untyped-def]
    cases = cases_for(demo("review_status")).cases
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    assert "review_status::mutation::add_extra_property@/data[approved]" in ids
    assert "review_status::rejected::duplicate_approved" in ids


def test_a_broken_accepted_fixture_is_reported_and_seeds_no_mutations(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    d = make_contract()
    _fixture(tmp_path, "item_status", item(extra=1))
    results, summary = _run(load_contract(d))
    assert [r.problem for r in results] == ["unexpected_rejection"]
    assert summary.notes and "no mutations from it" in summary.notes[0]


def test_passing_results_keep_no_payload(demo) -> None:  # type: ignore[no-untyped-def]
    results, _ = _run(demo("review_status"), sources=("accepted",))
    assert len(results) == 4 and {r.status for r in results} == {"passed"}
    assert [r.payload for r in results] == [None] * 4


def test_a_result_survives_a_json_round_trip_with_the_reported_members(demo) -> None:  # type: ignore[no-untyped-def]
    results, _ = _run(demo("review_status"), sources=("rejected",))
    assert len(results) >= 3
    documents = [r.to_dict() for r in results]
    assert json.loads(json.dumps(documents)) == documents
    first = documents[0]
    assert set(first) >= {"id", "tool", "source", "expected", "actual", "status", "problem", "detail", "duration_s"}
    assert first["source"] == "rejected" and first["actual"]["accepted"] is False
    assert first["expected"]["layer"] == first["actual"]["layer"]


def test_a_case_whose_request_the_contract_refuses_is_one_error_result_never_an_exception(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    case = Case("review_status::accepted::bad_request", "review_status", "accepted", contract,
                CaseExpectation(True), lambda: b"{}", request={"args": {"change_id": 7}, "colour": "red"})
    result = Engine().evaluate(case)
    assert (result.status, result.problem) == ("failed", "error")
    assert result.detail.startswith("InvalidRequest: request has unknown members ['colour']")
    assert result.request == {"args": {"change_id": 7}, "colour": "red"}  # as given: it has no normal form


# ------------------------------------------------- a rejection's reason asked for where it is read


def _results(engine: Engine, cases: list[Case]) -> tuple[list, dict]:  # type: ignore[type-arg]
    events = list(engine.run(cases))
    summary = events[-1].summary
    return [e.result for e in events if hasattr(e, "result")], summary.differential


def test_an_engine_that_leaves_rejections_unexplained_judges_every_case_as_one_that_explains(demo) -> None:  # type: ignore[no-untyped-def]
    # check with no report file: the schema layer's reason is asked for only where a case needs it.
    for tool in ("review_status", "job_status", "deployment_status"):
        cases = cases_for(demo(tool), max_mutants=None).cases
        explained, counts = _results(Engine(), cases)
        quick, quick_counts = _results(Engine(explain=False), cases)
        assert [(r.id, r.status, r.problem, r.layer, r.column) for r in quick] == \
            [(r.id, r.status, r.problem, r.layer, r.column) for r in explained]
        unexplained = [r for r in quick if r.code == "schema.unexplained"]
        assert unexplained, tool  # the schema rejected near misses, and nothing asked why
        for result in unexplained:
            assert result.status == "passed" and result.layer is Layer.SCHEMA
            assert (result.instance_pointer, result.schema_pointer, result.excerpt) == (None, None, "")
            assert not (result.expected.code or result.expected.pointer or result.expected.schema_pointer)
        same = {r.id: {**r.to_dict(), "duration_s": 0} for r in explained}
        excerpts = {r.id: r.excerpt for r in explained}
        for result in quick:  # everything else is what an explaining engine says
            if result.code != "schema.unexplained":
                assert {**result.to_dict(), "duration_s": 0} == same[result.id]
            assert result.excerpt == (excerpts[result.id] if result.status != "passed" else "")
        # Each document compared once either way; rejections left unexplained are compared by
        # the reference's whole verdict instead of on the part the production's error names.
        assert quick_counts["compared"] == counts["compared"]
        assert quick_counts["confirmed"] < counts["confirmed"] and quick_counts["full"] > counts["full"]


def test_a_case_that_asks_for_a_code_or_does_not_hold_is_explained(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    d = make_contract()
    _fixture(tmp_path, "item_status", item(status="nope"), "rejected", "coded",
             "expect: {layer: schema, code: schema.enum}\n")
    _fixture(tmp_path, "item_status", item(status="nope"), "rejected", "pointed",
             "expect: {layer: schema, pointer: /data/status}\n")
    _fixture(tmp_path, "item_status", item(status="nope"), "rejected", "blamed",
             "expect: {layer: binding}\n")
    _fixture(tmp_path, "item_status", item(status="nope"), "rejected", "plain", "expect: {layer: schema}\n")
    cases = cases_for(load_contract(d), sources=("rejected",)).cases
    results = {r.id.rsplit("::", 1)[-1]: r for r in _results(Engine(explain=False), cases)[0]}
    assert (results["coded"].status, results["coded"].code) == ("passed", "schema.enum")
    assert (results["pointed"].status, results["pointed"].instance_pointer) == ("passed", "/data/status")
    # The wrong layer is reported with the reason, as an explaining engine reports it.
    assert (results["blamed"].problem, results["blamed"].code) == ("wrong_layer", "schema.enum")
    assert "rejected by schema (schema.enum)" in results["blamed"].detail
    assert (results["plain"].status, results["plain"].code) == ("passed", "schema.unexplained")


def test_a_disagreement_found_on_an_unexplained_rejection_is_reported_with_its_reason(make_contract) -> None:  # type: ignore[no-untyped-def]
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"], "note": {"type": "string", "format": "regex"}})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    case = Case("item_status::rejected::pyregex", "item_status", "rejected", contract,
                CaseExpectation(False, (Layer.SCHEMA,)), lambda: item(note="(?P<n>a)"))
    result = Engine(explain=False).evaluate(case)
    assert (result.status, result.problem) == ("finding", "differential")
    assert "(jsonschema) says valid" in result.detail
    assert result.code == Engine().evaluate(case).code != "schema.unexplained"
    assert result.instance_pointer is not None


def test_a_large_unexplained_rejection_is_confirmed_on_the_part_its_first_error_names(make_contract) -> None:  # type: ignore[no-untyped-def]
    from harness.differential.check import WALK_AT_MOST

    contract = load_contract(make_contract())
    small, large = item(status="nope"), item(status="nope", note="x" * WALK_AT_MOST)
    cases = [Case(f"item_status::rejected::{name}", "item_status", "rejected", contract,
                  CaseExpectation(False, (Layer.SCHEMA,)), lambda body=body: body)
             for name, body in (("small", small), ("large", large))]
    results, counts = _results(Engine(explain=False), cases)
    assert [r.status for r in results] == ["passed", "passed"]
    assert counts == {"compared": 2, "remembered": 0, "confirmed": 1, "full": 1, "undecided": 0}
