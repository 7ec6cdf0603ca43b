"""The unseen set (bench/unseen, tests/weakenings/unseen.py) is a sound measuring stick: every
contract loads and accepts its fixtures, and every weakening is visible — its witness is
rejected by the sound contract and accepted by the weakened one. What check, lint and fuzz make
of the set is measured by bench/unseen_weakenings.py, not here."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.contract import load_contract
from harness.corpus import fixtures_for, judge
from tests.weakenings.scratch import Scratch
from tests.weakenings.unseen import CATALOGUE, ROOT, TOOLS, UnseenWeakening, baseline_copy, problems, weakened_copy
from tests.weakenings.witness import Witness, judge_witness, own_adapters


@pytest.fixture(scope="module")
def sound_copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Scratch]:
    base = tmp_path_factory.mktemp("unseen-sound")
    return {tool: baseline_copy(tool, base / tool) for tool in TOOLS}


def test_the_unseen_set_is_well_formed() -> None:
    assert problems() == []


def test_the_unseen_set_holds_what_it_claims() -> None:
    adapters = [t for t in TOOLS if load_contract(ROOT / "contracts" / t).adapter]
    assert len(TOOLS) >= 6 and len(adapters) >= 3 and len(TOOLS) - len(adapters) >= 2
    assert max(len(load_contract(ROOT / "contracts" / t).agent_view) for t in TOOLS) >= 10


@pytest.mark.parametrize("tool", TOOLS)
def test_each_sound_contract_accepts_its_fixtures(tool: str) -> None:
    with own_adapters(ROOT):
        contract = load_contract(ROOT / "contracts" / tool)
        accepted = fixtures_for(contract, ("accepted",))
        assert len(accepted) >= 2
        rejected = [f.name for f in accepted if not judge(contract, f).accepted]
    assert rejected == []


@pytest.mark.parametrize("weakening", CATALOGUE, ids=lambda w: w.id)
def test_each_weakening_is_visible_from_its_witness(
    weakening: UnseenWeakening, sound_copies: dict[str, Scratch], tmp_path: Path
) -> None:
    weakened = weakened_copy(weakening, tmp_path / "weakened")
    verdicts = judge_witness(sound_copies[weakening.tool], weakened, weakening.witness)
    assert verdicts.visible, f"{weakening.witness.describe()}: {verdicts.describe()}"


def test_a_witness_the_weakening_does_not_open_is_told_apart(sound_copies: dict[str, Scratch], tmp_path: Path) -> None:
    """The check above can fail: a witness aimed beside the weakening is rejected by both."""
    weakening = next(w for w in CATALOGUE if w.id == "weather/humidity_minimum_dropped")
    weakened = weakened_copy(weakening, tmp_path / "weakened")
    verdicts = judge_witness(sound_copies["weather"], weakened, Witness("chicago", "/humidity", 101))
    assert not verdicts.visible
    assert not verdicts.sound.accepted and not verdicts.weakened.accepted
