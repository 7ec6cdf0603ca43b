"""Everything is written atomically: all folders or none, nothing existing touched."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness.onboarding import OnboardingError, init_tool
from harness.onboarding.apply import write_drafts
from harness.onboarding.draft import Candidate, ToolDraft
from harness.onboarding.project import STAGING_PREFIX
from harness.onboarding.scaffold import contract, schema


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_failure_while_moving_folders_into_place_undoes_the_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.rename
    calls: list[Any] = []

    def failing_second_move(source: Any, target: Any) -> None:
        calls.append((source, target))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(source, target)

    monkeypatch.setattr(os, "rename", failing_second_move)
    with pytest.raises(OSError):
        init_tool("probe", tmp_path)
    monkeypatch.setattr(os, "rename", real)
    assert files(tmp_path) == []


def test_a_draft_that_fails_late_leaves_no_staging_folder_and_no_contract(tmp_path: Path) -> None:
    good = ToolDraft("good", "good", contract("good"), schema("good"))
    accepted_negative = Candidate("ok", b"{}", None, "not actually rejected", negative=True)
    broken = ToolDraft("bad", "bad", {**contract("bad"), "envelope": None, "agent_view": {"r": ""}, "bindings": [], "freshness": []},
                       True, candidates=(accepted_negative,))
    with pytest.raises(OnboardingError) as caught:
        write_drafts(tmp_path, [good, broken])
    assert caught.value.code == "import.internal"
    assert files(tmp_path) == []


def test_staging_happens_inside_the_project_and_is_removed(tmp_path: Path) -> None:
    init_tool("probe", tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(STAGING_PREFIX)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["contracts", "fixtures"]


def test_an_existing_fixture_folder_of_the_tool_blocks_the_whole_run(tmp_path: Path) -> None:
    (tmp_path / "fixtures/historical/probe/old").mkdir(parents=True)
    with pytest.raises(OnboardingError) as caught:
        init_tool("probe", tmp_path)
    assert caught.value.code == "init.exists"
    assert files(tmp_path) == ["fixtures", "fixtures/historical", "fixtures/historical/probe", "fixtures/historical/probe/old"]
