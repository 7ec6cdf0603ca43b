from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Boundary, RejectedInput, strict_loads
from harness.cases import cases_for, mutation_context
from harness.codes import Layer
from harness.corpus import fixtures_for
from harness.mutations import CANARY_PREFIX, REGISTRY, Mutant, OperatorRegistry, sample
from harness.mutations.context import _SPANS_AFTER, MutationContext, dumps, replace_at, value_spans
from harness.pointer import split

MANDATORY = {"add_extra_property", "null_for_object", "duplicate_member", "success_plus_error", "stretch_string"}
DEMO_TOOLS = ("review_status", "job_status", "deployment_status")


def test_the_issue_mandatory_operators_are_registered_as_mandatory() -> None:
    assert set(REGISTRY.mandatory()) == MANDATORY


def test_every_operator_has_metadata_and_a_docstring_summary() -> None:
    for op in REGISTRY:
        assert op.name == op.func.__name__
        assert op.summary and "\n" not in op.summary
        assert isinstance(op.layer, Layer) and op.targets


def test_a_fresh_registry_is_independent_of_the_default_one() -> None:
    registry = OperatorRegistry()

    @registry.register(layer=Layer.SCHEMA, targets="the root")
    def drop_everything(ctx):  # type: ignore[no-untyped-def]
        """The empty object."""
        yield Mutant("drop_everything", "", lambda: b"{}", layers=(Layer.SCHEMA,))

    assert registry.names() == ("drop_everything",)
    assert "drop_everything" not in REGISTRY
    with pytest.raises(ValueError):
        registry.register(layer=Layer.SCHEMA, targets="x")(drop_everything.func)


@pytest.mark.parametrize("tool", DEMO_TOOLS)
def test_every_mandatory_operator_reaches_every_demo_tool(demo, tool: str) -> None:  # type: ignore[no-untyped-def]
    operators = {c.operator for c in cases_for(demo(tool), sources=("mutation",)).cases}
    assert operators >= MANDATORY


def test_extra_property_is_added_at_every_object_level_with_a_canary(demo) -> None:  # type: ignore[no-untyped-def]
    cases = [c for c in cases_for(demo("review_status"), sources=("mutation",), operators=["add_extra_property"]).cases
             if c.fixture == "review_status::accepted::approved"]
    assert {c.pointer for c in cases} == {"", "/data"}
    for case in cases:
        assert case.canary and case.canary.startswith(CANARY_PREFIX)
        assert case.canary.encode() in case.build()


def test_duplicate_member_writes_a_conflicting_repeat_into_the_raw_bytes(demo) -> None:  # type: ignore[no-untyped-def]
    case = next(c for c in cases_for(demo("review_status"), sources=("mutation",), operators=["duplicate_member"]).cases
                if c.pointer == "/data")
    raw = case.build()
    assert raw.count(b'"change_id"') == 2
    with pytest.raises(RejectedInput) as info:
        strict_loads(raw)
    assert (info.value.code, info.value.pointer) == ("parse.duplicate_member", "/data")


def test_stretch_string_goes_one_past_max_length_and_far_past_max_bytes(demo) -> None:  # type: ignore[no-untyped-def]
    contract = demo("review_status")
    cases = [c for c in cases_for(contract, sources=("mutation",), operators=["stretch_string"]).cases
             if c.pointer == "/data/reviewed_by" and c.fixture.endswith("approved")]
    lengths = sorted(len(json.loads(c.build())["data"]["reviewed_by"]) if c.expect.layer is Layer.SCHEMA
                     else len(c.build()) for c in cases)
    assert lengths[0] == 129
    assert lengths[1] > contract.limits.max_bytes


def test_break_binding_picks_a_value_the_schema_still_accepts(demo) -> None:  # type: ignore[no-untyped-def]
    case = next(iter(cases_for(demo("deployment_status"), sources=("mutation",), operators=["break_binding"]).cases))
    assert json.loads(case.build())["environment"] in {"production", "staging"}
    assert case.expect.code == "binding.environment"


def test_adapter_tool_mutations_target_the_vendor_fields_behind_the_contract(demo, demo_root) -> None:  # type: ignore[no-untyped-def]
    contract = demo("job_status")
    fixture = next(f for f in fixtures_for(contract, ("accepted",)) if f.name == "failed_run")
    ctx = mutation_context(contract, fixture, Boundary(contract))
    assert ctx.raw_pointer_for("/data/project_id") == "/run/project/slug"
    assert ctx.raw_pointer_for("/data/observed_at") == "/run/updated_at"


def _fake(n: int, name: str) -> list[Mutant]:
    return [Mutant(name, f"/{i}", lambda: b"") for i in range(n)]


def test_sampling_is_deterministic_capped_and_keeps_every_operator() -> None:
    groups = [_fake(1000, "a"), _fake(3, "b"), _fake(50, "c")]
    picked = sample(groups, 20)
    assert len(picked) == 20
    assert {m.operator for m in picked} == {"a", "b", "c"}
    assert picked == sample(groups, 20)
    pointers_a = [m.pointer for m in picked if m.operator == "a"]
    assert pointers_a[0] == "/0" and pointers_a[-1] == "/999"  # spread over the whole document


def test_max_mutants_bounds_a_huge_payload(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness import load_contract
    from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema

    data = {"type": "object", "properties": {"items": {"type": "array", "maxItems": 5000, "items": ENVELOPE_DATA}},
            "required": ["items"], "additionalProperties": False}
    yaml_text = ("tool: item_list\nversion: 1\nagent_view: {items: /data/items}\n")
    d = make_contract("item_list", yaml_text=yaml_text, schemas={1: envelope_schema("item_list", data)})
    items = [{"item_id": f"it-{i}", "status": "open"} for i in range(3000)]
    doc = {"tool": "item_list", "request_id": "req.J7q94MkP", "outcome": "success", "data": {"items": items}}
    (tmp_path / "fixtures/accepted/item_list").mkdir(parents=True)
    (tmp_path / "fixtures/accepted/item_list/big.json").write_text(json.dumps(doc))
    cases = cases_for(load_contract(d), sources=("mutation",), max_mutants=40).cases
    assert len(cases) == 40
    assert len({c.operator for c in cases}) >= 15
    tight = cases_for(load_contract(d), sources=("mutation",), max_mutants=5)
    # A tight cap keeps the mandatory operators, and trims no (field, operator class) pair the
    # agent sees: the uncapped run probes no pair the capped one leaves out.
    assert {c.operator for c in tight.cases} >= MANDATORY
    every = cases_for(load_contract(d), sources=("mutation",), max_mutants=None)
    assert tight.coverage is not None and every.coverage is not None
    assert tight.coverage.pairs == every.coverage.pairs > 5
    assert len(tight.cases) == tight.coverage.added + 5 < len(every.cases)


def test_wrong_type_picks_a_type_the_schema_does_not_allow(make_contract) -> None:  # type: ignore[no-untyped-def]
    """A null in a field typed [string, null] must not become a (valid) canary string."""
    from harness.cases import cases_for
    from harness.engine import Engine
    from harness.events import PASSED

    data = {"type": "object", "required": ["item_id", "status", "note"],
            "properties": {"item_id": {"type": "string", "pattern": "^it-[0-9]{1,6}$", "maxLength": 9},
                           "status": {"enum": ["open", "closed"]},
                           "note": {"type": ["string", "null"], "maxLength": 20},
                           "flag": {"type": ["string", "integer", "boolean", "null"]}},
            "additionalProperties": False}
    from tests.helpers.contracts import envelope_schema, item

    directory = make_contract(schemas={1: envelope_schema("item_status", data)},
                              files={"fixtures/accepted/item_status/ok.json": item(note=None, flag=None)})
    from harness import load_contract

    cases = [c for c in cases_for(load_contract(directory), sources=("accepted", "mutation"), operators=["wrong_type"]).cases
             if c.source == "mutation"]
    by_pointer = {c.pointer: c for c in cases}
    assert by_pointer["/data/note"].mutated == "12345"
    assert "/data/flag" not in by_pointer  # every scalar type is allowed there
    assert by_pointer["/data/item_id"].mutated == "12345"
    engine = Engine()
    assert {engine.evaluate(c).status for c in cases} == {PASSED}


def test_success_plus_error_is_no_finding_when_the_vendor_schema_has_no_error_convention(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness import load_contract
    from harness.engine import Engine

    # The vendor sends {"item": {...}} and no error member at all; the adapter reads item only.
    vendor = {"type": "object", "required": ["item"], "properties": {"item": {
        "type": "object", "required": ["id", "state"],
        "properties": {"id": {"type": "string", "maxLength": 9}, "state": {"enum": ["open", "closed"]}}}}}
    (tmp_path / "vendor_items_adapter.py").write_text(
        "def adapt(document, request):\n"
        "    item = document['item']\n"
        "    return {'tool': 'item_status', 'request_id': request['request_id'], 'outcome': 'success',\n"
        "            'data': {'item_id': item['id'], 'status': item['state']}}\n")
    from tests.helpers.contracts import DEFAULT_YAML

    yaml_text = (DEFAULT_YAML.format(tool="item_status") + "adapter: vendor_items_adapter:adapt\n"
                 + f"vendor_schema: {json.dumps(vendor)}\n")
    directory = make_contract(yaml_text=yaml_text, files={
        "fixtures/accepted/item_status/open.json": json.dumps({"item": {"id": "it-7", "state": "open"}})})
    contract = load_contract(directory)
    # The one near miss of the vendor document (its twin on the adapter's output is judged by v1).
    [case] = [c for c in cases_for(contract, sources=("mutation",), operators=["success_plus_error"]).cases
              if c.contract.adapter is not None]
    assert case.expect.absorbable
    result = Engine().evaluate(case)
    assert (result.status, result.detail) == ("passed", "absorbed by the adapter; nothing reached the agent")


def test_a_vendor_string_the_adapter_copies_into_a_mapped_field_is_a_leak(make_contract, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The agent view maps note from the contract object; the adapter fills it from the vendor's
    remark, which the vendor schema does not declare: vendor text reaches the agent."""
    from harness import load_contract
    from harness.engine import Engine
    from harness.events import FAILED
    from tests.helpers.contracts import DEFAULT_YAML

    vendor = {"type": "object", "required": ["item"], "properties": {"item": {
        "type": "object", "required": ["id", "state"],
        "properties": {"id": {"type": "string", "pattern": "^it-[0-9]{1,6}$", "maxLength": 9},
                       "state": {"enum": ["open", "closed"]}}}}}
    (tmp_path / "remark_adapter.py").write_text(
        "def adapt(document, request):\n"
        "    item = document['item']\n"
        "    return {'tool': 'item_status', 'request_id': request['request_id'], 'outcome': 'success',\n"
        "            'data': {'item_id': item['id'], 'status': item['state'], 'note': item.get('remark', '')}}\n")
    yaml_text = (DEFAULT_YAML.format(tool="item_status") + "  note: {pointer: /data/note, optional: true}\n"
                 + "adapter: remark_adapter:adapt\n" + f"vendor_schema: {json.dumps(vendor)}\n")
    directory = make_contract(yaml_text=yaml_text, files={"fixtures/accepted/item_status/open.json": json.dumps(
        {"item": {"id": "it-7", "state": "open", "remark": "ship it now"}})})
    [case] = cases_for(load_contract(directory), sources=("accepted",)).cases
    result = Engine().evaluate(case)
    assert (result.status, result.problem) == (FAILED, "canary_leak")
    assert "'ship it now'" in result.detail and "does not declare" in result.detail


@pytest.mark.parametrize(("limits", "size"), [("", 64 * 1024), ("limits: {max_bytes: 2048}\n", None)])
def test_a_string_without_a_bound_gets_an_oversized_near_miss_below_max_bytes(
        make_contract, limits: str, size: int | None) -> None:  # type: ignore[no-untyped-def]
    """64 KiB, or the largest string that fits under max_bytes: the transport lets it through,
    so only the schema can refuse it, and a schema that does not is a contract gap."""
    from harness import load_contract
    from harness.engine import Engine
    from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema

    data = {**ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"], "note": {"type": "string"}}}
    fixture = {"tool": "item_status", "request_id": "req.J7q94MkP", "outcome": "success",
               "data": {"item_id": "it-7", "status": "open", "note": 'say "hi"'}}
    directory = make_contract(yaml_text=DEFAULT_YAML.format(tool="item_status") + limits,
                              schemas={1: envelope_schema("item_status", data)},
                              files={"fixtures/accepted/item_status/open.json": json.dumps(fixture)})
    contract = load_contract(directory)
    [case] = [c for c in cases_for(contract, sources=("mutation",), operators=["stretch_string"]).cases
              if c.label.startswith("stretch_string@/data/note~oversized")]
    payload = case.build()
    note = json.loads(payload)["data"]["note"]
    assert len(payload) <= contract.limits.max_bytes
    assert len(note) == size if size else len(note) > 1500
    result = Engine().evaluate(case)
    assert (result.status, result.problem) == ("finding", "contract_gap")


def test_an_expectation_filled_in_keeps_every_other_field_of_the_mutant(demo) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    contract = demo("deployment_status")
    fixture = next(iter(fixtures_for(contract, ("accepted",))))
    ctx = mutation_context(contract, fixture, Boundary(contract))
    operator = REGISTRY["stretch_string"]
    filled = {"layers", "code", "absorbable"}
    bare = Mutant("stretch_string", "/x", lambda: b"{}", original="o", mutated="m", layers=(Layer.PARSE,),
                  code="c", absorbable=True, canary="hx-canary-0", note="n", variant="huge")
    made = operator.expected(bare, ctx)
    for f in dataclasses.fields(Mutant):  # a field added to Mutant must be carried over too
        if f.name not in filled:
            assert getattr(made, f.name) == getattr(bare, f.name), f.name
    assert made.layers == (Layer.TRANSPORT,) and made.code == "transport.max_bytes" and made.absorbable


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
_DOCUMENTS = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(document=_DOCUMENTS, value=_DOCUMENTS, data=st.data())
def test_a_value_replaced_in_place_is_exactly_the_document_written_again(document, value, data) -> None:  # type: ignore[no-untyped-def]
    # MutationContext.replaced splices the new value's text into the document's: byte for byte
    # what writing the changed document whole gives, at every pointer (and at one it adds).
    mapped = value_spans(document)
    assert mapped is not None and mapped[0] == dumps(document).decode()
    pointers = sorted(mapped[1])
    pointer = data.draw(st.sampled_from(pointers))
    ctx = MutationContext(contract=None, version=1, fixture_id="f", raw=b"", document=document,  # type: ignore[arg-type]
                          result=document, schema=None, now=None, request={})  # type: ignore[arg-type]
    for _ in range(_SPANS_AFTER):  # the first few are written whole; then the map is made
        assert ctx.replaced(pointer, value) == dumps(replace_at(document, split(pointer), value))
    assert ctx._spans == mapped
    if isinstance(document, dict):
        added = "/" + data.draw(st.text(max_size=4)).replace("~", "~0").replace("/", "~1")
        assert ctx.replaced(added, value) == dumps(replace_at(document, split(added), value))


def test_a_document_the_map_does_not_hold_is_written_whole() -> None:
    assert value_spans({1: "a"}) is None  # a key json.dumps writes otherwise than the map would
    wide = {f"k{i}": i for i in range(5000)}
    assert value_spans(wide) is None
    ctx = MutationContext(contract=None, version=1, fixture_id="f", raw=b"", document=wide,  # type: ignore[arg-type]
                          result=wide, schema=None, now=None, request={})  # type: ignore[arg-type]
    for _ in range(_SPANS_AFTER):
        assert ctx.replaced("/k3", "x") == dumps({**wide, "k3": "x"})
    assert ctx._spans is None


@settings(max_examples=300, deadline=None)
@given(seed=st.text(max_size=6), length=st.integers(0, 40), data=st.data())
def test_a_stretched_string_is_exactly_the_document_written_again(seed, length, data) -> None:  # type: ignore[no-untyped-def]
    # stretch_string writes a seed that needs no escape as its own JSON text, unscanned: the
    # bytes are those the encoder writes, for every seed (quotes, backslashes, control
    # characters and non-ASCII text among them), before and after the value map is made.
    from harness.mutations.values import _replaced_by_stretched, _stretched

    document = {"a": seed, "b": [1, {"c": seed}]}
    pointer = data.draw(st.sampled_from(["/a", "/b/1/c"]))
    ctx = MutationContext(contract=None, version=1, fixture_id="f", raw=b"", document=document,  # type: ignore[arg-type]
                          result=document, schema=None, now=None, request={})  # type: ignore[arg-type]
    expected = dumps(replace_at(document, split(pointer), _stretched(seed, length)))
    for _ in range(_SPANS_AFTER + 1):
        assert _replaced_by_stretched(ctx, pointer, seed, length) == expected
