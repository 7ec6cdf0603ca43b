"""``fast_frozen``: a frozen record made by a fast constructor is the record the dataclass makes."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from harness.boundary.pipeline import Diagnostic, Verdict, VerdictEvidence
from harness.cases import Case, CaseExpectation
from harness.codes import Layer
from harness.events import CaseResult
from harness.frozen import fast_frozen
from harness.mutations.registry import DeferredMutant, Mutant


def _record(name: str) -> Any:
    """One record declaration, as a frozen, slotted dataclass named ``name`` (of this module)."""

    @dataclass(frozen=True, slots=True)
    class Record:
        name: str
        size: int = 3
        tags: tuple[str, ...] = ()
        hidden: Any = field(default=None, repr=False, compare=False)

    Record.__name__ = Record.__qualname__ = name
    return Record


Slow = _record("Slow")
Fast = fast_frozen(_record("Fast"))


def _fields(record: Any) -> dict[str, Any]:
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


@pytest.mark.parametrize("args, kwargs", [(("a",), {}), (("a", 5), {}), ((), {"name": "b", "tags": ("x",)}),
                                          (("c", 1, ("y",), object()), {})])
def test_a_fast_record_holds_what_the_dataclass_constructor_would(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    fast, slow = Fast(*args, **kwargs), Slow(*args, **kwargs)
    assert type(fast) is Fast
    assert _fields(fast) == _fields(slow)
    assert repr(fast) == repr(slow).replace("Slow(", "Fast(")
    assert fast == Fast(*args, **kwargs) and hash(fast) == hash(Fast(*args, **kwargs))
    assert fast != Fast("other")


def test_a_fast_record_is_frozen_and_has_no_instance_dict() -> None:
    record = Fast("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del record.size
    assert not hasattr(record, "__dict__")


def test_a_fast_record_refuses_arguments_as_the_dataclass_does() -> None:
    with pytest.raises(TypeError):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Fast("a", 1, (), None, "one too many")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Fast("a", colour="red")  # type: ignore[call-arg]


def test_a_fast_record_pickles_copies_and_is_replaced_as_itself() -> None:
    record = Fast("a", 2, ("t",))
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.copy(record) == record and copy.deepcopy(record) == record
    changed = dataclasses.replace(record, size=9)
    assert type(changed) is Fast and changed.size == 9 and changed.name == "a"


def test_what_fast_frozen_cannot_build_is_refused_when_the_class_is_declared() -> None:
    with pytest.raises(TypeError, match="frozen, slotted dataclass"):
        @fast_frozen
        @dataclass(slots=True)
        class Mutable:
            name: str
    with pytest.raises(TypeError, match="plain fields"):
        @fast_frozen
        @dataclass(frozen=True, slots=True)
        class Factory:
            items: list[str] = field(default_factory=list)
    with pytest.raises(TypeError, match="__post_init__"):
        @fast_frozen
        @dataclass(frozen=True, slots=True)
        class Checked:
            name: str

            def __post_init__(self) -> None:
                pass
    with pytest.raises(TypeError, match="no subclasses"):
        class Child(Fast):
            pass


@pytest.mark.parametrize("cls", [CaseResult, Case, CaseExpectation, Mutant, DeferredMutant, Verdict, Diagnostic,
                                 VerdictEvidence])
def test_the_per_case_records_are_built_fast_and_stay_frozen(cls: type) -> None:
    assert cls.__new__ is not object.__new__  # type: ignore[comparison-overlap]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_a_case_expectation_pickles_to_an_equal_one() -> None:
    expectation = CaseExpectation(False, (Layer.SCHEMA,), "schema.type", "/data", None, True)
    assert pickle.loads(pickle.dumps(expectation)) == expectation


def test_the_records_the_per_case_path_builds_by_position_keep_their_field_order() -> None:
    # Engine.evaluate and mutation_cases build these positionally (keywords cost more): a field
    # added, removed or moved must be met there too.
    assert [f.name for f in dataclasses.fields(CaseResult)] == [
        "id", "tool", "source", "status", "problem", "expected", "layer", "code", "instance_pointer",
        "schema_pointer", "message", "detail", "operator", "pointer", "original", "mutated", "fixture", "version",
        "contract_dir", "now", "request", "duration_s", "payload", "reproduce", "excerpt", "shape", "fix"]
    assert [f.name for f in dataclasses.fields(Case)] == [
        "id", "tool", "source", "contract", "expect", "build", "request", "now", "version", "operator", "pointer",
        "original", "mutated", "canary", "fixture", "path", "description", "shape", "examined", "fix"]
