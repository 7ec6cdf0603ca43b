"""compat against a table of original/update pairs whose answers follow from JSON Schema
semantics (tests/helpers/compat_pairs.py): it decides what is decidable and never cries wolf.

For every pair: the static classification alone already gives every ``safe`` direction as
``safe`` (a named rule decided it) and never calls a breaking direction safe; the full report
gives both verdicts exactly, proves each break with a witness, and reports no classifier
contradiction.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.compat import Budget, Direction, Evidence, Verdict, compare_schemas
from harness.compat.classify import Comparison
from harness.compat.model import worst
from harness.compat.normalise import prepare
from tests.helpers.compat_pairs import BREAKING, PAIRS, SAFE, Pair

BUDGET = Budget(examples=15, samples=4, seconds=120)
IDS = [f"{p.category}: {p.title}" for p in PAIRS]


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_the_static_classification_decides_every_safe_direction_and_calls_no_break_safe(pair: Pair) -> None:
    old, new = prepare(pair.old, label="old"), prepare(pair.new, label="new")
    changes = Comparison(old.tree, new.tree, old=old, new=new).changes()
    for direction, expected in ((Direction.READER, pair.reader), (Direction.WRITER, pair.writer)):
        static = worst(c.verdict(direction) for c in changes)
        if expected == SAFE:
            assert static is Verdict.SAFE, (direction, [(c.rule.name, c.reader, c.writer, c.note) for c in changes])
        else:
            assert static is not Verdict.SAFE, direction


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_the_report_gives_both_verdicts_proves_each_break_and_contradicts_nothing(pair: Pair) -> None:
    report = compare_schemas(pair.old, pair.new, budget=BUDGET)
    assert not report.contradictions, [c.message for c in report.contradictions]
    for direction, expected in ((Direction.READER, pair.reader), (Direction.WRITER, pair.writer)):
        assert report.verdict(direction).value == expected, (direction, [
            (a.change.rule.name, a.reader, a.writer, a.change.note) for a in report.changes])
        if expected == BREAKING:
            assert report.evidence(direction) is Evidence.WITNESS, direction
            witness = next(w for a in report.changes for w in a.witnesses if w.direction is direction)
            assert witness.accepted_by != witness.rejected_by
        elif report.changes:
            assert report.assessment.basis(direction), "a safe verdict names the rules that decided it"


def test_the_table_covers_every_category_of_the_issue_in_both_dialects() -> None:
    categories = {p.category for p in PAIRS}
    assert categories == {"combinators", "conditions", "patterns", "one keyword", "draft-07"}
    dialects = {p.old.get("$schema") for p in PAIRS if isinstance(p.old, dict)}
    assert {"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"} <= dialects
    assert {p.reader for p in PAIRS} == {p.writer for p in PAIRS} == {SAFE, BREAKING}


def test_two_changes_at_one_keyword_hold_a_declared_break_without_a_classifier_bug(
        make_contract: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # An enum value replaced: one value narrowed away, one widened in, both at /enum. The
    # witness for the removed value belongs to the narrowing, not to the widening's safe side.
    data = {"type": "object", "properties": {"state": {"enum": ["open", "closed"]}}, "required": ["state"]}
    changed = {**data, "properties": {"state": {"enum": ["open", "done"]}}}
    yaml_text = "tool: tracker\nversion: 2\nenvelope: null\nagent_view: {state: /state}\ncompat: {policy: none}\n"
    directory = make_contract("tracker", yaml_text=yaml_text,
                              schemas={1: {"$schema": "https://json-schema.org/draft/2020-12/schema", **data},
                                       2: {"$schema": "https://json-schema.org/draft/2020-12/schema", **changed}})
    code = main(["compat", "tracker", "--contracts", str(directory.parent), "--examples", "15", "--samples", "6"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "CLASSIFIER BUG" not in out
    assert "CMP201 enum_narrowed" in out and "CMP202 enum_widened" in out


def test_a_rejection_under_a_plus_sign_property_is_attributed_to_its_change() -> None:
    # jsonschema-rs writes the schema location of a property named "+1" as ".../properties/1".
    from harness.compat.witness import at_location

    assert at_location("/$defs/r/properties/1/maximum", "/$defs/r/properties/+1/maximum")
    assert not at_location("/$defs/r/properties/1/maximum", "/$defs/r/properties/2/maximum")
    old = {"type": "object", "properties": {"+1": {"type": "integer"}}, "required": ["+1"]}
    new = {"type": "object", "properties": {"+1": {"type": "integer", "maximum": 9}}, "required": ["+1"]}
    report = compare_schemas(old, new, budget=BUDGET)
    (assessed,) = report.changes
    assert assessed.change.rule.name == "maximum_tightened" and assessed.reader_evidence is Evidence.WITNESS


def test_a_long_formatted_string_is_built_not_searched() -> None:
    # Random generation never reaches a 257-character URI; the witness is built at the edge.
    old = {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]}
    new = {"type": "object", "properties": {"url": {"type": "string", "format": "uri", "maxLength": 256}},
           "required": ["url"]}
    report = compare_schemas(old, new, budget=BUDGET)
    (assessed,) = report.changes
    (witness,) = assessed.witnesses
    assert len(witness.document["url"]) == 257 and witness.keyword == "maxLength"
    assert report.to_dict()["searches"]["reader"]["built"] >= 1


def test_no_search_runs_when_the_budget_has_no_examples() -> None:
    # What `import --strict` asks for: the static classification only, in no time.
    report = compare_schemas({"type": "string"}, {"type": "string", "maxLength": 3},
                             budget=Budget(examples=0, samples=0))
    (assessed,) = report.changes
    assert (assessed.reader, assessed.reader_evidence, assessed.witnesses) == (Verdict.BREAKING, Evidence.STATIC, ())
    assert all(s["run"] == 0 for s in report.to_dict()["searches"].values())


def test_the_compat_rules_load_in_a_fresh_interpreter_without_importing_their_modules() -> None:
    code = ("import sys; from harness.compat import RULES; n = len(RULES); "
            "print(n, sorted(m for m in sys.modules if m.startswith('harness.compat.rules.')))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    count, modules = done.stdout.split(" ", 1)
    from harness.compat.registry import RULE_MODULES

    assert int(count) >= 68
    assert json.loads(modules.replace("'", '"')) == sorted([*RULE_MODULES, "harness.compat.rules.common"])


def test_each_rule_module_declares_the_ids_of_its_own_group() -> None:
    from harness.compat import RULES

    groups = {"objects": "CMP1", "values": "CMP2", "scalars": "CMP3", "arrays": "CMP4", "composition": "CMP5",
              "unsupported": "CMP90", "fallback": "CMP999"}
    for rule in RULES:
        module = rule.detect.__module__.rsplit(".", 1)[1]
        assert rule.id.startswith(groups[module]), (rule.id, module)
        assert rule.detect.__name__ == rule.name
