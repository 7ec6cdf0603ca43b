"""Sampling (harness.fuzz.generate.sampling): the harness's strategies drawn from a seeded PRNG.

Each strategy kind is checked against what hypothesis itself would draw: values inside the
strategy's constraints, seed 0 giving hypothesis's simplest value, no strategy the harness builds
left to the (slow) fallback; then the runner's use of it: a sampled failure searched again
natively and shrunk, or reported unshrunk when that search finds nothing.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find, reject, settings
from hypothesis import strategies as st

from harness import load_contract
from harness.fuzz.generate import from_schema, sample
from harness.fuzz.generate.sampling import Sampler, Simplest, is_native, native, sample_value, sampled, stream
from harness.fuzz.model import Finding, Observation, PropertyViolation
from harness.fuzz.properties import PropertyRegistry
from harness.fuzz.runner import FuzzOptions, run_property
from harness.fuzz.subject import Subject
from tests.helpers.paths import REPO

DEMO = REPO / "contracts"

#: (strategy, what every value of it must satisfy)
KINDS: list[tuple[str, st.SearchStrategy[Any], Any]] = [
    ("integers", st.integers(3, 9), lambda v: 3 <= v <= 9),
    ("wide integers", st.integers(-(2**70), 2**70), lambda v: -(2**70) <= v <= 2**70),
    ("half-bounded integers", st.integers(min_value=5), lambda v: v >= 5),
    ("floats", st.floats(1.5, 9.0), lambda v: 1.5 <= v <= 9.0),
    ("finite floats", st.floats(allow_nan=False, allow_infinity=False), lambda v: v == v and abs(v) != float("inf")),
    ("booleans", st.booleans(), lambda v: isinstance(v, bool)),
    ("text", st.text("ab", min_size=2, max_size=5), lambda v: 2 <= len(v) <= 5 and set(v) <= {"a", "b"}),
    ("characters", st.characters(min_codepoint=0x400, max_codepoint=0x4FF),
     lambda v: len(v) == 1 and 0x400 <= ord(v) <= 0x4FF),
    ("utf-8 text", st.text(st.characters(codec="utf-8")), lambda v: v.encode("utf-8") is not None),
    ("binary", st.binary(min_size=1, max_size=4), lambda v: 1 <= len(v) <= 4),
    ("lists", st.lists(st.integers(0, 3), min_size=1, max_size=3), lambda v: 1 <= len(v) <= 3),
    ("unique lists", st.lists(st.integers(0, 20), unique=True, min_size=2), lambda v: len(set(v)) == len(v) >= 2),
    ("unique sampled", st.lists(st.sampled_from("abcd"), unique=True, min_size=2),
     lambda v: len(set(v)) == len(v) >= 2 and set(v) <= set("abcd")),
    ("dictionaries", st.dictionaries(st.text(max_size=2), st.none(), min_size=1, max_size=3),
     lambda v: 1 <= len(v) <= 3 and all(x is None for x in v.values())),
    ("fixed dictionaries", st.fixed_dictionaries({"a": st.just(1)}, optional={"b": st.just(2)}),
     lambda v: v["a"] == 1 and set(v) <= {"a", "b"}),
    ("tuples", st.tuples(st.just("x"), st.booleans()), lambda v: v[0] == "x" and isinstance(v[1], bool)),
    ("one_of", st.one_of(st.just(1), st.just("one")), lambda v: v in (1, "one")),
    ("map", st.integers(0, 5).map(lambda x: x * 2), lambda v: v % 2 == 0 and 0 <= v <= 10),
    ("filter", st.integers(0, 50).filter(lambda x: x % 7 == 0), lambda v: v % 7 == 0),
    ("sampled filter", st.sampled_from(range(10)).filter(lambda x: x > 6), lambda v: v in (7, 8, 9)),
    ("flatmap", st.integers(1, 3).flatmap(lambda n: st.lists(st.just(n), min_size=n, max_size=n)),
     lambda v: len(v) == v[0]),
    ("builds", st.builds(lambda a, b: (a, b), st.just(1), b=st.just(2)), lambda v: v == (1, 2)),
    ("recursive", st.recursive(st.none(), lambda inner: st.lists(inner, max_size=2), max_leaves=3),
     lambda v: v is None or isinstance(v, list)),
    ("deferred", st.deferred(lambda: st.just("d")), lambda v: v == "d"),
    ("regex", st.from_regex(r"^[a-f]{2}-\d$", fullmatch=True), lambda v: len(v) == 4 and v[2] == "-"),
]


class Recorder:
    """A fallback that records what the sampler could not draw itself."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, strategy: Any) -> Any:
        self.names.append(type(strategy).__name__)
        return sample(strategy, 1)[0]


# Sampled here outside a property test, where hypothesis's assume() (the harness's composites
# call it) warns that it is meant for inside one.
_OUTSIDE_A_TEST = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")


@pytest.mark.parametrize("name, strategy, holds", KINDS, ids=[k[0] for k in KINDS])
def test_every_sampled_value_is_one_the_strategy_may_draw(name: str, strategy: Any, holds: Any) -> None:
    fallback = Recorder()
    values = []
    for seed in range(300):
        try:
            values.append(sample_value(stream(seed), strategy, fallback))
        except Exception as exc:  # a reject() is fine (a filter that missed); nothing else is
            assert type(exc).__name__ == "UnsatisfiedAssumption", exc
    assert len(values) > 200
    bad = [v for v in values if not holds(v)]
    assert not bad, bad[:3]
    assert fallback.names == [] or name == "regex", fallback.names  # only hypothesis's regex builder falls back
    assert len({json.dumps(v, default=repr) for v in values}) > 1 or name in ("deferred", "builds")


@pytest.mark.parametrize("name, strategy, holds", KINDS[:18], ids=[k[0] for k in KINDS[:18]])
def test_seed_zero_samples_hypothesiss_simplest_value(name: str, strategy: Any, holds: Any) -> None:
    # No database: every case's condition is the same lambda, so find() would replay another
    # case's saved result (integers(3, 9)'s 3 for the wide integers) instead of shrinking.
    simplest = find(strategy, lambda _: True, settings=settings(database=None))
    got = sample_value(stream(0), strategy, Recorder())
    if name == "floats":  # hypothesis prefers integral floats (2.0); the sampler takes the bound
        assert got == 1.5
    else:
        assert got == simplest


def test_hypothesis_draws_seed_zero_first_so_a_sampled_run_starts_from_the_simplest_document() -> None:
    contract = load_contract(DEMO / "review_status")
    strategy = from_schema(contract.schema(), validator=contract.validator(), compiled=True,
                           base_uri=contract.schema_path(contract.version).resolve().as_uri())
    first, *rest = sample(sampled(strategy), 5)
    native_first = sample(strategy, 1)[0]
    assert first == native_first
    assert all(json.dumps(d, sort_keys=True) != json.dumps(first, sort_keys=True) for d in rest)


def test_sampled_bytes_and_text_carry_the_edges_hypothesis_favours() -> None:
    raw = [sample_value(stream(seed), st.binary(max_size=64), Recorder()) for seed in range(400)]
    assert sum(b"\x00" in b for b in raw) > 20  # NUL bytes, as often as hypothesis's search makes them
    text = [sample_value(stream(seed), st.text(), Recorder()) for seed in range(400)]
    assert sum(any(ord(c) > 255 for c in t) for t in text) > 20  # beyond Latin-1, one draw in five
    assert sum(t == "" for t in text) > 10


@_OUTSIDE_A_TEST
@pytest.mark.parametrize("tool", ["deployment_status", "job_status", "review_status"])
def test_every_strategy_the_fuzz_properties_draw_is_interpreted_without_hypothesis(tool: str) -> None:
    subject = Subject(load_contract(DEMO / tool))
    strategies = [subject.bound_documents(), subject.near_miss_sets(), subject.arbitrary_bytes(),
                  subject.canaried_objects()]
    if subject.has_adapter:
        strategies += [subject.vendor_documents(), subject.canaried_vendor()]
    fallback = Recorder()
    for strategy in strategies:
        for seed in range(1, 40):
            try:
                sample_value(stream(seed), strategy, fallback)
            except Exception as exc:
                assert type(exc).__name__ == "UnsatisfiedAssumption", exc
    assert fallback.names == []


def test_a_subclass_that_draws_its_own_way_is_left_to_hypothesis() -> None:
    from hypothesis.strategies._internal.numbers import IntegersStrategy

    class Odd(IntegersStrategy):
        def do_draw(self, data: Any) -> int:
            return 41

    recorder = Recorder()
    sampler = Sampler(random.Random(1), recorder)
    assert sampler.draw(Odd(0, 100)) == 41
    assert recorder.names == ["Odd"]


def test_inside_native_a_sampled_strategy_is_drawn_by_hypothesis() -> None:
    drawn = []
    strategy = sampled(st.integers(0, 10**6).map(lambda v: (is_native(), v)))
    with native():
        drawn += sample(strategy, 3)
    assert all(flag for flag, _ in drawn)
    assert not is_native()
    assert isinstance(stream(0), Simplest) and not isinstance(stream(0, 1), Simplest)


# --------------------------------------------------------------------------- the runner


def _run(func: Any, examples: int) -> Any:
    """``func`` registered alone as a property, run on the demo's ``deployment_status``."""
    registry = PropertyRegistry()
    registry.register(draws="integers")(func)
    subject = Subject(load_contract(DEMO / "deployment_status"))
    return run_property(subject, registry[func.__name__], FuzzOptions(examples=examples, registry=registry))


def _violation(value: int) -> PropertyViolation:
    from datetime import datetime, timezone

    from harness.cases import ACCEPT
    from harness.corpus import Expectation

    return PropertyViolation.of(Finding("unexpected_rejection", f"rejected {value}", str(value).encode(), {},
                                        datetime(2026, 1, 1, tzinfo=timezone.utc), ACCEPT, Expectation(True)))


def test_a_sampled_failure_is_searched_again_natively_and_shrunk(tmp_path: Path) -> None:
    def big_values_fail(subject: Subject, draw: Any) -> Observation:
        """Fails on any value from 1,000 up."""
        value = draw(st.integers(0, 10**9))
        if value >= 1000:
            raise _violation(value)
        return Observation(("accepted",), ("small",))

    outcome = _run(big_values_fail, 50)
    assert outcome.problem == "unexpected_rejection" and outcome.generator == "native"
    assert outcome.finding is not None and outcome.finding.payload == b"1000"  # shrunk by hypothesis
    assert outcome.reproduce is not None and outcome.reproduce.endswith("--generator native")


def test_a_failure_only_sampling_finds_is_reported_unshrunk(tmp_path: Path) -> None:
    def fails_when_sampled(subject: Subject, draw: Any) -> Observation:
        """Fails on large values, but only when they were sampled."""
        value = draw(st.integers(0, 10**9))
        if value >= 1000 and not is_native():
            raise _violation(value)
        return Observation(("accepted",), ("small",))

    outcome = _run(fails_when_sampled, 50)
    assert outcome.problem == "unexpected_rejection" and outcome.generator == "sampled"
    assert "not shrunk" in outcome.detail
    assert outcome.reproduce is not None and "--generator" not in outcome.reproduce


def test_a_property_no_sampled_example_satisfies_is_run_natively(tmp_path: Path) -> None:
    def native_only(subject: Subject, draw: Any) -> Observation:
        """Holds, but rejects every sampled example."""
        draw(st.integers(0, 10**6))
        if not is_native():
            reject()
        return Observation(("accepted",), ("native",))

    outcome = _run(native_only, 20)
    assert (outcome.status, outcome.generator, outcome.examples) == ("passed", "native", 20)


def test_the_sampled_generator_checks_as_many_examples_as_asked_in_batches() -> None:
    seen: list[int] = []

    def counts(subject: Subject, draw: Any) -> Observation:
        """Holds."""
        seen.append(draw(st.integers(0, 10**9)))
        return Observation(("accepted",), ("x",))

    outcome = _run(counts, 37)
    assert outcome.examples == 37 == len(seen)
    assert seen[0] == 0 and len(set(seen)) > 30  # the simplest first, then distinct values


# --------------------------------------------------------------------------- hypothesis's UTF-8 table


def test_the_utf8_table_written_for_hypothesis_is_the_one_it_computes(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from harness.fuzz.generate import unicode

    monkeypatch.setattr(unicode, "_done", False)
    monkeypatch.setattr("hypothesis.internal.charmap.charmap_file",
                        lambda name="charmap": tmp_path / "unicode_data" / f"{name}.json.gz")
    monkeypatch.setattr("hypothesis.configuration.storage_directory",
                        lambda *names, intent_to_write=True: _Folder(tmp_path, names))
    unicode.ensure_utf8_table()
    stored = json.loads(gzip.decompress((tmp_path / "unicode_data" / "codec-v2-utf-8.json.gz").read_bytes()))
    encodable = [[0, 0]]
    for code in range(1, sys.maxunicode + 1):  # what hypothesis finds by encoding each code point
        try:
            chr(code).encode("utf-8")
        except UnicodeEncodeError:
            continue
        if encodable[-1][1] == code - 1:
            encodable[-1][1] = code
        else:
            encodable.append([code, code])
    assert stored == [encodable, []]


class _Folder:
    def __init__(self, root: Path, names: tuple[str, ...]) -> None:
        self.path = root.joinpath(*names)

    def create_if_missing(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
