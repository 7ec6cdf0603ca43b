"""The weakening suite: ``check`` — the command run on every connector change — must
flag every realistic weakening of a demo contract that a fixture-based test can see.

One test per weakening of tests/weakenings/catalogue.py, each running ``contract-harness check``
on a scratch copy of the tool with the weakening applied. Those ``check`` does not flag today are
``xfail(strict=True)`` with what is missing: the day detection lands they XPASS and fail, and the
catalogue entry's ``check=`` must say ``flagged``. ``lint`` and ``fuzz`` are compared by
``python bench/weakenings.py`` (too slow for every run). docs/weakenings.md explains the suite.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.weakenings.catalogue import (
    BASES,
    BY_ID,
    CATALOGUE,
    KINDS,
    Weakening,
    baseline_copy,
    problems,
    weakened_copy,
)
from tests.weakenings.runner import run
from tests.weakenings.scratch import REPO, make_scratch


class NotFlagged(AssertionError):
    """check held on a weakening it must flag (the only failure an xfail here expects)."""


def _param(weakening: Weakening) -> object:
    marks = []
    if weakening.check != "flagged":
        # raises=NotFlagged: a copy that does not load, or a runner error, still fails for real.
        marks.append(pytest.mark.xfail(strict=True, raises=NotFlagged, reason=f"check needs: {weakening.needs}"))
    return pytest.param(weakening, id=weakening.id, marks=marks)


VISIBLE = [_param(w) for w in CATALOGUE if w.visible]
INVISIBLE = [pytest.param(w, id=w.id) for w in CATALOGUE if not w.visible]
BASES_USED = sorted({(w.tool, w.base) for w in CATALOGUE})


def test_the_catalogue_is_well_formed_and_covers_every_kind_of_weakening() -> None:
    assert problems() == []
    assert {w.kind for w in CATALOGUE} == set(KINDS)
    assert {w.tool for w in CATALOGUE} == {p.name for p in (REPO / "contracts").iterdir() if p.is_dir()}


@pytest.mark.parametrize(("tool", "base"), BASES_USED, ids=[f"{t}-{b}" for t, b in BASES_USED])
def test_the_unweakened_scratch_copy_checks_clean(tool: str, base: str, tmp_path: Path) -> None:
    """The zero of the instrument: without a weakening nothing fails, so whatever fails on a
    weakened copy is the weakening's doing."""
    outcome = run("check", baseline_copy(tool, base, tmp_path / "copy"))
    assert outcome.status == "held", outcome.describe()


@pytest.fixture(scope="module")
def baseline_files(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], dict[str, bytes]]:
    cache: dict[tuple[str, str], dict[str, bytes]] = {}

    def files(tool: str, base: str) -> dict[str, bytes]:
        if (tool, base) not in cache:
            cache[tool, base] = baseline_copy(tool, base, tmp_path_factory.mktemp("baseline") / "copy").files()
        return cache[tool, base]

    return files


@pytest.mark.parametrize("weakening", [pytest.param(w, id=w.id) for w in CATALOGUE])
def test_each_weakening_changes_its_copy(weakening: Weakening, tmp_path: Path,
                                         baseline_files: Callable[[str, str], dict[str, bytes]]) -> None:
    """No entry measures an unweakened copy (the appliers also refuse to edit what is absent)."""
    before = baseline_files(weakening.tool, weakening.base)
    after = weakened_copy(weakening, tmp_path / "after").files()
    assert before.keys() == after.keys()
    assert [name for name in before if before[name] != after[name]]


def test_the_forked_runner_answers_as_python_dash_m_harness_does(tmp_path: Path) -> None:
    """The suite forks its runs from a server that imported the harness once; a new interpreter
    running ``python -m harness`` gives the same answer, case for case."""
    scratch = weakened_copy(BY_ID["review_status/open_data"], tmp_path / "copy")
    forked, executed = run("check", scratch), run("check", scratch, mode="exec")
    assert forked.flagged and (forked.status, forked.evidence) == (executed.status, executed.evidence)


@pytest.mark.parametrize("weakening", VISIBLE)
def test_check_flags_the_weakening(weakening: Weakening, tmp_path: Path) -> None:
    outcome = run("check", weakened_copy(weakening, tmp_path / "copy"))
    assert outcome.status in ("flagged", "held"), f"{weakening.id}: {outcome.describe()}"
    if not outcome.flagged:
        raise NotFlagged(f"check held on {weakening.id} ({weakening.summary}); it needs {weakening.needs}")


@pytest.mark.parametrize("weakening", INVISIBLE)
def test_check_holds_on_a_rewrite_no_fixture_can_see(weakening: Weakening, tmp_path: Path) -> None:
    """Documented, not forced: a check that flags an equivalent rewrite raises a false alarm (or
    the rewrite was not equivalent: then it belongs among the visible ones)."""
    outcome = run("check", weakened_copy(weakening, tmp_path / "copy"))
    assert outcome.status == "held", f"{weakening.id} ({weakening.invisible}): {outcome.describe()}"


def test_with_the_lock_kept_an_in_place_weakening_is_a_finding_whatever_the_cases_see(tmp_path: Path) -> None:
    """Why scratch copies drop schemas.lock: with it, every weakening of a published version is
    a finding of its own (exit 1), whatever the contract checks would have seen."""
    scratch = make_scratch("review_status", tmp_path / "copy")
    (scratch.directory / "schemas.lock").write_bytes((REPO / "contracts/review_status/schemas.lock").read_bytes())
    BY_ID["review_status/one_of_to_any_of"].apply(scratch)  # even a rewrite no fixture can see
    outcome = run("check", scratch)
    assert outcome.status == "flagged", outcome.describe()
    assert [e for e in outcome.evidence if e.startswith("review_status::versions::v1")], outcome.evidence


def test_every_base_is_used() -> None:
    assert {base for _, base in BASES_USED} == set(BASES)
