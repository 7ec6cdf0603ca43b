"""The records of a fuzz run: what one example showed, why a property failed, what it found.

Light on purpose (no hypothesis import): the pytest plugin reads the property catalogue
without loading the generators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from harness.codes import Layer
from harness.corpus import Expectation

if TYPE_CHECKING:
    from harness.boundary.pipeline import Verdict
    from harness.cases import CaseExpectation

ACCEPTED = "accepted"


@dataclass(frozen=True, slots=True)
class Observation:
    """What one example did: the layer that decided each boundary verdict it produced
    (``accepted`` when none rejected), and labels counted per property (the operators it
    exercised, how its bytes were made, the adapter's answer)."""

    columns: tuple[str, ...]
    labels: tuple[str, ...] = ()

    @classmethod
    def of(cls, verdict: Verdict, label: str = "") -> Observation:
        return cls((verdict.layer.value if verdict.layer else ACCEPTED,), (label,) if label else ())


@dataclass(frozen=True, slots=True)
class Finding:
    """Why one example broke a property, with everything needed to replay it.

    ``fixture`` is what the written-out regression fixture must expect (``accept``, or the
    rejection the property demands); ``kind`` is where it goes (``accepted``/``rejected``);
    ``shape`` is ``contract`` for contract objects of a tool with an adapter.
    """

    problem: str
    detail: str
    payload: bytes = field(repr=False)
    request: Mapping[str, Any]
    now: datetime
    expected: CaseExpectation
    fixture: Expectation
    status: str = "failed"
    layer: Layer | None = None
    code: str | None = None
    instance_pointer: str | None = None
    schema_pointer: str | None = None
    message: str | None = None
    operator: str | None = None
    pointer: str | None = None
    original: str = ""
    mutated: str = ""
    shape: str = "upstream"
    #: What the property wanted and what happened, for people, where the verdicts alone would read
    #: the same (an adapter that crashed is reported as ``adapter.error``, as a clean refusal is).
    expected_text: str | None = None
    actual_text: str | None = None

    @property
    def kind(self) -> str:
        return "accepted" if self.fixture.accept else "rejected"

    @property
    def actual(self) -> str:
        return self.code or ("raised" if self.problem == "raised" else ACCEPTED)

    def with_verdict(self, verdict: Verdict) -> Finding:
        from dataclasses import replace

        return replace(self, layer=verdict.layer, code=verdict.code,
                       instance_pointer=verdict.instance_pointer,
                       schema_pointer=verdict.schema_pointer, message=verdict.message)


class PropertyViolation(Exception):
    """Raised inside a property test: hypothesis shrinks it, the runner reports the finding."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(f"{finding.problem}: {finding.detail}")
        self.finding = finding

    @classmethod
    def of(cls, finding: Finding) -> PropertyViolation:
        """A violation whose class names its problem and operator: hypothesis tells failures
        apart by exception class, so it shrinks each kind on its own instead of letting a
        shrink wander from one operator's failure to another's."""
        key = "_".join(part for part in (finding.problem, finding.operator) if part)
        if key not in _KINDS:
            _KINDS[key] = type(f"PropertyViolation_{key}", (cls,), {})
        return _KINDS[key](finding)


_KINDS: dict[str, type[PropertyViolation]] = {}
