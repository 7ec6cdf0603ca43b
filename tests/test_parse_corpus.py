"""JSONTestSuite ("Parsing JSON is a Minefield") against strict_loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import RejectedInput, strict_loads
from tests.helpers.paths import corpus, corpus_params

pytestmark = pytest.mark.corpus

# RFC 8259 allows these; I-JSON (and this project) refuses duplicate member names.
DUPLICATE_KEYS = {"y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"}


def _ids(path: Path) -> str:
    return path.name


def test_corpus_is_present_and_complete() -> None:
    root = corpus("jsontestsuite") / "test_parsing"
    names = [p.name for p in root.iterdir()]
    assert len(names) == 318
    assert sum(n.startswith("n_") for n in names) == 188


@pytest.mark.parametrize("path", corpus_params("jsontestsuite", "test_parsing/n_*.json"), ids=_ids)
def test_n_files_are_rejected(path: Path) -> None:
    with pytest.raises(RejectedInput):
        strict_loads(path.read_bytes())


@pytest.mark.parametrize("path", corpus_params("jsontestsuite", "test_parsing/y_*.json"), ids=_ids)
def test_y_files_are_accepted_except_duplicate_keys(path: Path) -> None:
    if path.name in DUPLICATE_KEYS:
        with pytest.raises(RejectedInput) as info:
            strict_loads(path.read_bytes())
        assert info.value.code == "parse.duplicate_member"
    else:
        strict_loads(path.read_bytes())


@pytest.mark.parametrize("path", corpus_params("jsontestsuite", "test_parsing/i_*.json"), ids=_ids)
def test_i_files_are_accepted_or_cleanly_rejected(path: Path) -> None:
    try:
        strict_loads(path.read_bytes())
    except RejectedInput as exc:
        assert exc.code.startswith(("parse.", "transport."))
