"""The official JSON-Schema-Test-Suite (Draft 2020-12) against ``validator_for``.

Required tests and ``optional/format`` must pass 100%. Formats assert everywhere (the
project's setting), except in the required ``format.json``, whose subject is precisely that
format is *only an annotation by default*; it runs with assertion off.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness import validator_for
from tests.helpers.paths import CORPORA, absent_corpus, corpus

pytestmark = pytest.mark.corpus

SUITE = CORPORA / "json-schema-test-suite"
DRAFT = SUITE / "tests" / "draft2020-12"
REMOTE = "http://localhost:1234/"


def _groups() -> list[Any]:
    if not DRAFT.is_dir():
        return absent_corpus("json-schema-test-suite", arity=2)
    files = sorted(DRAFT.glob("*.json")) + sorted((DRAFT / "optional" / "format").glob("*.json"))
    params = []
    for file in files:
        rel = file.relative_to(DRAFT).as_posix()
        for index, group in enumerate(json.loads(file.read_text(encoding="utf-8"))):
            params.append(pytest.param(rel, group, id=f"{rel}::{index}::{group['description'][:50]}"))
    return params


def _remote(uri: str) -> Any:
    """Serve the suite's remotes from disk, as the suite expects (no network)."""
    if not uri.startswith(REMOTE):
        raise LookupError(uri)
    return json.loads((SUITE / "remotes" / uri[len(REMOTE):]).read_text(encoding="utf-8"))


def test_suite_is_present() -> None:
    root = corpus("json-schema-test-suite")
    assert (root / "tests" / "draft2020-12" / "optional" / "format").is_dir()


@pytest.mark.parametrize(("file", "group"), _groups())
def test_group(file: str, group: dict[str, Any]) -> None:
    validator = validator_for(
        group["schema"], assert_formats=file != "format.json", retriever=_remote
    )
    wrong = [
        t["description"] for t in group["tests"] if validator.is_valid(t["data"]) != t["valid"]
    ]
    assert not wrong, f"{len(wrong)} of {len(group['tests'])} tests disagree: {wrong}"
    # The detailed path must agree with the fast path.
    for t in group["tests"]:
        assert (validator.first_violation(t["data"]) is None) == t["valid"]


def test_suite_sweep_counts_every_case() -> None:
    """One sweep over every case, so the conformance number is a single assertion."""
    corpus("json-schema-test-suite")
    groups = [p.values for p in _groups()]
    total = agreed = 0
    for file, group in groups:
        validator = validator_for(
            group["schema"], assert_formats=file != "format.json", retriever=_remote
        )
        for t in group["tests"]:
            total += 1
            agreed += validator.is_valid(t["data"]) == t["valid"]
    assert total > 1500
    assert agreed == total, f"{total - agreed} of {total} cases disagree"
