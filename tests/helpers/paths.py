"""Where this checkout and the shared corpora are, and the corpus helpers that skip a test with
its reason where a corpus is absent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
SHARED = Path(os.environ.get("HARNESS_SHARED", REPO.parent / "shared")).resolve()
CORPORA = SHARED / "corpora"


def corpus(name: str) -> Path:
    """Path of a shared corpus; the calling test is skipped, with the reason, where absent."""
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"shared corpus {name!r} not found at {path} (set HARNESS_SHARED to its parent)")
    return path


def corpus_files(name: str, pattern: str) -> list[Path]:
    """The corpus files matching ``pattern``; [] where the corpus is absent."""
    path = CORPORA / name
    return sorted(path.glob(pattern)) if path.is_dir() else []


def absent_corpus(name: str, arity: int = 1) -> list[Any]:
    """For parametrize where the corpus is absent: one skipped case carrying the reason (an
    empty parameter set would vanish as "got empty parameter set" instead)."""
    reason = f"shared corpus {name!r} not found at {CORPORA / name} (set HARNESS_SHARED to its parent)"
    values = (None,) * arity
    return [pytest.param(*values, marks=pytest.mark.skip(reason=reason), id=f"{name}-absent")]


def corpus_params(name: str, pattern: str) -> list[Any]:
    """For parametrize at collection time: the corpus files, or one case that skips with the
    reason where the corpus is absent."""
    return corpus_files(name, pattern) if (CORPORA / name).is_dir() else absent_corpus(name)
