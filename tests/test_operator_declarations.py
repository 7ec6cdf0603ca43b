"""Meta-tests: every operator's declaration is what its mutants do.

An operator declares the layer (and code) that must stop its mutants, or several named variants;
the registry derives each mutant's expectation from that declaration. These tests run every
mutant of every operator, uncapped, over the demo contracts and over contracts written to reach
the variants the demo does not, and check that the boundary stops each one where its operator
says, and that every declared variant is reached by some mutant (a declaration nothing
exercises is untested).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness import Boundary, load_contract
from harness.cases import cases_for, mutation_context
from harness.codes import Layer
from harness.contract import Contract
from harness.corpus import fixtures_for
from harness.engine import Engine
from harness.events import PASSED
from harness.mutations import REGISTRY, DeferredMutant, Mutant, MutationContext, OperatorRegistry, Variant, sample
from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema

DEMO_TOOLS = ("review_status", "job_status", "deployment_status")

#: A declared timestamp the schema asserts as a date-time: the schema layer stops a timestamp
#: without an offset (the demo's only timestamp is behind an adapter).
STAMPED_DATA = {
    **ENVELOPE_DATA,
    "required": [*ENVELOPE_DATA["required"], "observed_at"],
    "properties": {**ENVELOPE_DATA["properties"], "observed_at": {"type": "string", "format": "date-time",
                                                                  "maxLength": 40},
                   # Arrays (one bounded, one only kept unique) and a number pinned by an enum,
                   # which the demo contracts lack: stretch_array's and stretch_number's variants.
                   "tags": {"type": "array", "uniqueItems": True, "items": {"enum": ["a", "b", "c"]}},
                   "scores": {"type": "array", "maxItems": 3, "items": {"type": "integer", "minimum": 0,
                                                                        "maximum": 9}},
                   "priority": {"enum": [1, 2, 3]},
                   # An array the agent sees whose items always hold a member no required names
                   # (minProperties keeps it): remove_member's every_item variant.
                   "checks": {"type": "array", "maxItems": 4, "items": {
                       "type": "object", "required": ["name"], "minProperties": 2, "additionalProperties": False,
                       "properties": {"name": {"enum": ["lint", "test"]}, "ok": {"type": "boolean"}}}}},
}
STAMPED_YAML = DEFAULT_YAML.format(tool="item_status") + """\
  checks: {pointer: /data/checks, optional: true}
freshness:
  - {field: /data/observed_at, max_age: PT15M}
defaults: {now: "2026-11-01T12:00:00Z"}
"""
STAMPED_FIXTURE = {"tool": "item_status", "request_id": "req.J7q94MkP", "outcome": "success",
                   "data": {"item_id": "it-7", "status": "open", "note": "fine", "observed_at": "2026-11-01T11:58:00Z",
                            "tags": ["a", "b"], "scores": [1, 2], "priority": 2,
                            "checks": [{"name": "lint", "ok": True}]}}
#: Behind an adapter, a vendor member a freshness rule's value comes from, required only through
#: dependentRequired (no ``required`` list names it): remove_member's ``judged`` variant, which
#: the schema stops.
FEED_VENDOR = {"type": "object", "required": ["item"], "properties": {"item": {
    "type": "object", "required": ["id", "state"],
    "properties": {"id": {"type": "string", "pattern": "^it-[0-9]{1,6}$", "maxLength": 9},
                   "state": {"enum": ["open", "closed"]},
                   "seen_at": {"type": "string", "format": "date-time", "maxLength": 40}},
    "dependentRequired": {"state": ["seen_at"]}}}}
FEED_DATA = {**STAMPED_DATA, "required": [*ENVELOPE_DATA["required"], "observed_at"],
             "properties": {k: v for k, v in STAMPED_DATA["properties"].items()
                            if k not in ("tags", "scores", "priority", "checks")}}
FEED_ADAPTER = """\
def adapt(document, request):
    item = document["item"]
    return {"tool": "item_feed", "request_id": request["request_id"], "outcome": "success",
            "data": {"item_id": item["id"], "status": item["state"], "observed_at": item["seen_at"]}}
"""
FEED_YAML = DEFAULT_YAML.format(tool="item_feed") + f"""\
freshness:
  - {{field: /data/observed_at, max_age: PT15M}}
defaults: {{now: "2026-11-01T12:00:00Z"}}
adapter: item_feed_adapter:adapt
vendor_schema: {json.dumps(FEED_VENDOR)}
"""
#: A count whose v2 widened v1's maximum (in steps of two): ``stretch_number``'s ``published``
#: variant probes past v1's maximum, which v2 still refuses (101 is odd).
COUNT_V1 = {**ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"],
                                            "count": {"type": "integer", "minimum": 0, "maximum": 100}}}
COUNT_V2 = {**ENVELOPE_DATA, "properties": {**ENVELOPE_DATA["properties"],
                                            "count": {"type": "integer", "minimum": 0, "maximum": 200,
                                                      "multipleOf": 2}}}
COUNT_YAML = DEFAULT_YAML.format(tool="item_count").replace("version: 1", "version: 2")
#: Variants no loadable contract reaches today: a contract whose schema certainly declares a
#: freshness field must declare it a date-time (``contract.freshness_field``), so only a schema
#: no walker can follow leaves the timestamp to the freshness layer. Covered with a context
#: built by hand (``test_a_timestamp_the_schema_says_nothing_about_is_left_to_freshness``).
UNREACHED = {("malformed_timestamp", "freshness")}


@pytest.fixture
def contracts(demo: Callable[[str], Contract], make_contract: Callable[..., Path], tmp_path: Path) -> list[Contract]:
    stamped = make_contract(yaml_text=STAMPED_YAML, schemas={1: envelope_schema("item_status", STAMPED_DATA)},
                            files={"fixtures/accepted/item_status/stamped.json": json.dumps(STAMPED_FIXTURE)})
    feed = make_contract(tool="item_feed", yaml_text=FEED_YAML, schemas={1: envelope_schema("item_feed", FEED_DATA)},
                         files={"item_feed_adapter.py": FEED_ADAPTER, "fixtures/accepted/item_feed/seen.json": json.dumps(
                             {"item": {"id": "it-7", "state": "open", "seen_at": "2026-11-01T11:58:00Z"}})})
    count = make_contract(tool="item_count", yaml_text=COUNT_YAML,
                          schemas={1: envelope_schema("item_count", COUNT_V1), 2: envelope_schema("item_count", COUNT_V2)},
                          files={"fixtures/accepted/item_count/four.json": json.dumps(
                              {"tool": "item_count", "request_id": "req.J7q94MkP", "outcome": "success",
                               "data": {"item_id": "it-7", "status": "open", "count": 4}})})
    return [*(demo(tool) for tool in DEMO_TOOLS), load_contract(feed), load_contract(count), load_contract(stamped)]


def _contexts(contract: Contract) -> Iterator[MutationContext]:
    boundary = Boundary(contract)
    for fixture in fixtures_for(contract, ("accepted",)):
        yield mutation_context(contract, fixture, boundary)


def test_every_mutant_carries_the_expectation_its_operator_declares(contracts: list[Contract]) -> None:
    checked = 0
    for contract in contracts:
        for ctx in _contexts(contract):
            for op in REGISTRY:
                for mutant in op(ctx):
                    variant = op.variants[mutant.variant]
                    assert mutant.operator == op.name
                    assert mutant.layers == variant.layers_for(contract), mutant.label
                    assert mutant.code == variant.code_for(mutant), mutant.label
                    assert not mutant.absorbable or variant.structural or variant.optional, mutant.label
                    checked += 1
    assert checked > 400


def test_the_boundary_stops_every_mutant_where_its_operator_declares(contracts: list[Contract]) -> None:
    engine = Engine(differential=False)
    held: Counter[str] = Counter()
    for contract in contracts:
        cases = cases_for(contract, sources=("mutation",), max_mutants=None).cases
        assert cases, contract.tool
        for case in cases:
            result = engine.evaluate(case)
            assert (result.status, result.problem) == (PASSED, None), f"{case.id}: {result.detail}"
            assert case.operator is not None
            held[case.operator] += 1
    assert set(held) == set(REGISTRY.names())


def test_every_declared_variant_is_reached_by_some_mutant(contracts: list[Contract]) -> None:
    reached = {(mutant.operator, mutant.variant) for contract in contracts for ctx in _contexts(contract)
               for op in REGISTRY for mutant in op(ctx)}
    declared = {(op.name, name) for op in REGISTRY for name in op.variants}
    assert declared - reached == UNREACHED


def test_a_timestamp_the_schema_says_nothing_about_is_left_to_freshness(contracts: list[Contract]) -> None:
    stamped = contracts[-1]
    ctx = next(_contexts(stamped))
    observed = ctx.schema["oneOf"][0]["properties"]["data"]["properties"]["observed_at"]
    ctx = dataclasses.replace(ctx, schema=json.loads(json.dumps(ctx.schema).replace(
        json.dumps(observed), json.dumps({k: v for k, v in observed.items() if k != "format"}))))
    [mutant] = REGISTRY["malformed_timestamp"](ctx)
    assert (mutant.variant, mutant.layers, mutant.code) == ("freshness", (Layer.FRESHNESS,), None)


def test_labelled_variants_end_the_case_label_and_others_do_not(demo: Callable[[str], Contract]) -> None:
    labels = [c.label for c in cases_for(demo("review_status"), sources=("mutation",), max_mutants=None).cases]
    assert any(label.startswith("stretch_string@/data/") and "~huge[" in label for label in labels)
    assert any("~maxLength+1[" in label for label in labels)
    assert not any(label.startswith("malformed_timestamp") and "~" in label for label in labels)
    assert len(labels) == len(set(labels))


# --------------------------------------------------------------------------- the declaration itself


def _one(ctx: MutationContext) -> Iterator[Mutant]:
    yield Mutant("one", "/data", lambda: b"{}", variant="other")


def test_a_mutant_naming_an_undeclared_variant_is_a_programming_error(demo: Callable[[str], Contract]) -> None:
    registry = OperatorRegistry()
    registry.register(targets="the data", variants={"first": Variant(Layer.SCHEMA)})(_declared("one", _one))
    [ctx] = list(_contexts(demo("deployment_status")))[:1]
    with pytest.raises(ValueError, match="yielded variant 'other', which it does not declare"):
        list(registry["one"](ctx))


def test_only_a_structural_variant_may_be_absorbable(demo: Callable[[str], Contract]) -> None:
    def absorbed(ctx: MutationContext) -> Iterator[Mutant]:
        yield Mutant("absorbed", "", lambda: b"{}", absorbable=True)

    registry = OperatorRegistry()
    registry.register(targets="the root", layer=Layer.PARSE, code="parse.syntax")(_declared("absorbed", absorbed))
    ctx = next(_contexts(demo("deployment_status")))
    with pytest.raises(ValueError, match="only a structural variant may be absorbable"):
        list(registry["absorbed"](ctx))


@pytest.mark.parametrize("declaration", [{}, {"layer": Layer.SCHEMA, "variants": {"a": Variant(Layer.SCHEMA)}},
                                         {"variants": {}}, {"variants": {"": Variant(Layer.SCHEMA)}}])
def test_an_operator_declares_one_expectation_or_named_variants(declaration: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        OperatorRegistry().register(targets="x", **declaration)


def test_a_structural_variant_adds_the_adapter_layer_only_for_tools_with_an_adapter(
        demo: Callable[[str], Contract]) -> None:
    variant = Variant(Layer.SCHEMA, structural=True)
    assert variant.layers_for(demo("review_status")) == (Layer.SCHEMA,)
    assert variant.layers_for(demo("job_status")) == (Layer.SCHEMA, Layer.ADAPTER)
    assert Variant(Layer.BINDING, also=(Layer.SCHEMA,)).layers_for(demo("job_status")) == (Layer.SCHEMA, Layer.BINDING)
    binding = Variant(Layer.BINDING, "binding.{note}")
    assert binding.code_for(Mutant("break_binding", "/x", lambda: b"", note="run_id")) == "binding.run_id"
    assert binding.catalogue_code == "binding.<note>"


def _declared(name: str, func: Callable[[MutationContext], Iterator[Mutant]]) -> Callable[[MutationContext],
                                                                                           Iterator[Mutant]]:
    """``func`` under another name, with a docstring (an operator is named after its function)."""
    func.__name__ = name
    func.__doc__ = "A test operator."
    return func


def test_a_mutant_described_later_is_built_only_when_sampling_keeps_it(demo: Callable[[str], Contract]) -> None:
    built: list[int] = []

    def make(index: int) -> Mutant:
        built.append(index)
        return Mutant("many", f"/{index}", lambda: b"{}")

    def many(ctx: MutationContext) -> Iterator[DeferredMutant]:
        for index in range(10):
            yield DeferredMutant(functools.partial(make, index))

    registry = OperatorRegistry()
    registry.register(targets="ten places", layer=Layer.SCHEMA)(_declared("many", many))
    ctx = next(_contexts(demo("deployment_status")))
    kept = registry.generate(ctx, max_mutants=3)
    # The same choice as among ten built ones (first, middle, last), and only those are built.
    chosen = sample([list(range(10))], 3)
    assert chosen == [0, 4, 9]
    assert [m.pointer for m in kept] == [f"/{i}" for i in chosen] and sorted(built) == chosen
    assert all(m.layers == (Layer.SCHEMA,) for m in kept)
    built.clear()
    assert len(list(registry["many"](ctx))) == 10 and len(built) == 10


def test_a_mutant_built_later_must_be_what_it_was_described_as(demo: Callable[[str], Contract]) -> None:
    def described(ctx: MutationContext) -> Iterator[DeferredMutant]:
        yield DeferredMutant(lambda: Mutant("described", "", lambda: b"{}", variant="second"), variant="first")

    registry = OperatorRegistry()
    registry.register(targets="the root", variants={"first": Variant(Layer.SCHEMA), "second": Variant(Layer.PARSE)})(
        _declared("described", described))
    ctx = next(_contexts(demo("deployment_status")))
    with pytest.raises(ValueError, match=r"built a 'second' mutant .* described as 'first'"):
        registry.generate(ctx)
