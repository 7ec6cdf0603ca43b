"""The differential check with real validators: a production rejection confirmed by the reference
on the subschema the production's first error leads to (``ReferenceValidator.rejects``) is a
rejection the reference's whole-document validation makes too, and a disagreement is still
reported wherever it hides.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness import load_contract
from harness.boundary.validator import validator_for
from harness.cases import Case, CaseExpectation, cases_for
from harness.codes import Layer
from harness.contract import Contract
from harness.differential.reference import ReferenceValidator
from harness.engine import Engine
from harness.errors import RejectedInput
from harness.events import CaseFinished, RunFinished
from harness.strict_json import strict_loads
from tests.helpers.contracts import ENVELOPE_DATA, envelope_schema, item
from tests.helpers.paths import corpus

PROPERTIES: dict[str, Any] = dict(ENVELOPE_DATA["properties"])  # type: ignore[call-overload]

DEMO_TOOLS = ("review_status", "job_status", "deployment_status")


def _documents(contract: Contract) -> Iterator[Any]:
    """Every parsed document among a contract's cases (fixtures and every mutant)."""
    for case in cases_for(contract, max_mutants=None).cases:
        try:
            yield strict_loads(case.build())
        except RejectedInput:
            continue


def _shortcut_and_full(production: Any, reference: ReferenceValidator, document: Any) -> tuple[bool, bool] | None:
    """(the shortcut shows a rejection, the whole reference validation rejects) for a document the
    production validator rejects; None for one it accepts."""
    if production.is_valid(document):
        return None
    return reference.rejects(document, production.first_error(document)), not reference.is_valid(document)


def _assert_a_shown_rejection_is_the_whole_validations(production: Any, reference: ReferenceValidator,
                                                      document: Any) -> None:
    verdicts = _shortcut_and_full(production, reference, document)
    if verdicts is not None:
        shown, full = verdicts
        assert full or not shown


def test_every_rejection_confirmed_on_a_subschema_of_a_demo_schema_is_one_the_whole_validation_makes(
        demo: Callable[[str], Contract]) -> None:
    confirmed = rejected = 0
    for tool in DEMO_TOOLS:
        contract = demo(tool)
        production: Any = contract.validator()
        reference: Any = contract.reference_validator()
        if contract.adapter is not None:
            production, reference = contract.vendor_validator(), contract.vendor_reference_validator()
        assert production is not None and reference is not None
        for document in _documents(contract):
            verdicts = _shortcut_and_full(production, reference, document)
            if verdicts is None:
                continue
            shown, full = verdicts
            rejected += 1
            confirmed += shown
            assert full or not shown, (tool, document)
    # The shortcut is taken on the demo's near misses (not merely never wrong).
    assert rejected > 50 and confirmed > rejected // 2, (confirmed, rejected)


#: A schema whose paths go through every step the walk takes ($ref into an embedded resource with
#: its own base URI, allOf, prefixItems, items past the prefix) and the ones where it stops
#: (anyOf, oneOf, not, if/then, additionalProperties, patternProperties, contains).
RICH_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.invalid/rich/root.json",
    "type": "object",
    "required": ["id", "tags", "pair", "owner"],
    "properties": {
        "id": {"$ref": "parts/id.json"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 4},
        "pair": {"type": "array", "prefixItems": [{"type": "integer", "minimum": 0}, {"enum": ["a", "b"]}],
                 "items": {"type": "boolean"}},
        "owner": {"allOf": [{"$ref": "#/$defs/person"}, {"required": ["team"]}]},
        "choice": {"anyOf": [{"type": "integer", "maximum": 3}, {"type": "string", "pattern": "^x+$"}]},
        "kind": {"oneOf": [{"const": "one"}, {"type": "object", "properties": {"n": {"type": "integer"}},
                                              "required": ["n"]}]},
        "flag": {"not": {"const": True}},
        "when": {"if": {"type": "string"}, "then": {"format": "date-time"}, "else": {"type": "null"}},
        "extra": {"type": "object", "patternProperties": {"^x-": {"type": "string"}},
                  "additionalProperties": False},
        "list": {"type": "array", "contains": {"const": 1}},
    },
    "additionalProperties": False,
    "$defs": {
        "id": {"$id": "parts/id.json", "type": "string", "pattern": "^[a-z]{2}-[0-9]{2}$", "maxLength": 5},
        "person": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1},
                                                    "team": {"$ref": "#/$defs/team"}},
                   "additionalProperties": False},
        "team": {"enum": ["red", "blue"]},
    },
}
RICH_DOCUMENT: dict[str, Any] = {
    "id": "ab-12", "tags": ["x", "yy"], "pair": [1, "a", True, False],
    "owner": {"name": "n", "team": "red"}, "choice": 2, "kind": {"n": 1}, "flag": False,
    "when": "2026-01-01T00:00:00Z", "extra": {"x-a": "v"}, "list": [0, 1],
}
#: The same shapes in draft-07: ``items`` as an array, ``$ref`` overriding its siblings.
DRAFT7_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "pair": {"type": "array", "items": [{"type": "integer"}, {"$ref": "#/definitions/name"}],
                 "additionalItems": {"type": "null"}},
        "names": {"type": "array", "items": {"$ref": "#/definitions/name", "maxLength": 1}},
        "all": {"allOf": [{"$ref": "#/definitions/name"}]},
    },
    "definitions": {"name": {"type": "string", "maxLength": 3}},
}
DRAFT7_DOCUMENT: dict[str, Any] = {"pair": [1, "ab", None], "names": ["abc", "de"], "all": "xyz"}

_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(
    ["", "x", "xx", "one", "red", "ab-12", "abcdefgh", "2026-01-01T00:00:00Z", "not a date", "x-a", "a", "b"])
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["n", "name", "team", "x-b", "y", "0"]), inner, max_size=3), max_leaves=6)


def _places(value: Any, where: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield where
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _places(inner, (*where, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _places(inner, (*where, index))


def _replaced(value: Any, where: tuple[Any, ...], new: Any) -> Any:
    if not where:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[where[0]] = _replaced(value[where[0]], where[1:], new)
    return copy


def _mutated(base: Any) -> st.SearchStrategy[Any]:
    """``base`` with one to three of its values replaced (or members added) by arbitrary JSON."""
    places = list(_places(base))

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        document = base
        for _ in range(draw(st.integers(1, 3))):
            where = draw(st.sampled_from(places))
            try:
                target = document
                for step in where[:-1]:
                    target = target[step]
            except (KeyError, IndexError, TypeError):
                continue
            if where and isinstance(target, dict) and draw(st.booleans()):
                where = (*where[:-1], draw(st.sampled_from(["zz", "x-q", "kind", "choice"])))
                if not isinstance(target, dict):
                    continue
            try:
                document = _replaced(document, where, draw(_VALUES))
            except (KeyError, IndexError, TypeError):
                continue
        return document

    return build()


_RICH = (validator_for(RICH_SCHEMA), ReferenceValidator(RICH_SCHEMA))
_DRAFT7 = (validator_for(DRAFT7_SCHEMA), ReferenceValidator(DRAFT7_SCHEMA))


@settings(max_examples=300, deadline=None)
@given(document=_mutated(RICH_DOCUMENT))
def test_a_rejection_shown_on_a_subschema_is_the_whole_validations_verdict_through_every_kind_of_step(
        document: Any) -> None:
    _assert_a_shown_rejection_is_the_whole_validations(*_RICH, document)


@settings(max_examples=150, deadline=None)
@given(document=_mutated(DRAFT7_DOCUMENT))
def test_a_rejection_shown_on_a_subschema_of_a_draft_07_schema_is_the_whole_validations_verdict(
        document: Any) -> None:
    _assert_a_shown_rejection_is_the_whole_validations(*_DRAFT7, document)


def test_the_walk_reaches_members_items_references_and_branches_of_the_rich_schema() -> None:
    production, reference = _RICH
    near_misses = [
        {"id": "ab-1x"}, {"tags": ["x", "toolong"]}, {"pair": [-1, "a"]}, {"pair": [1, "c"]},
        {"pair": [1, "a", True, 5]}, {"owner": {"name": "n", "team": "green"}}, {"choice": 7},
        {"kind": {"n": "1"}}, {"extra": {"x-a": 1}},
    ]
    for change in near_misses:
        document = {**RICH_DOCUMENT, **change}
        assert _shortcut_and_full(production, reference, document) == (True, True), change


# ----------------------------------------------------------------- disagreements are still found


def _engine_check(contract: Contract, payload: bytes) -> tuple[Any, dict[str, int]]:
    case = Case("item_status::rejected::x", "item_status", "rejected", contract,
                CaseExpectation(False, (Layer.SCHEMA,)), lambda: payload)
    events = list(Engine().run([case]))
    result = next(e.result for e in events if isinstance(e, CaseFinished))
    summary = next(e.summary for e in events if isinstance(e, RunFinished))
    assert summary.differential is not None
    return result, summary.differential


def test_a_disagreement_inside_one_branch_of_a_oneof_is_reported_though_the_other_branch_agrees(
        make_contract: Callable[..., Path]) -> None:
    # Python-only regex syntax: jsonschema-rs (ECMA-262) says the note is no regex, python's re
    # reads it. Production: no branch of the envelope's oneOf holds; reference: the success branch
    # holds, so the walk's branch-by-branch confirmation fails and the whole document is compared.
    data = dict(ENVELOPE_DATA, properties={**PROPERTIES, "note": {"type": "string", "format": "regex"}})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    result, counts = _engine_check(contract, item(note="(?P<n>a)"))
    assert (result.status, result.problem) == ("finding", "differential")
    assert "(jsonschema) says valid" in result.detail
    assert counts == {"compared": 1, "remembered": 0, "confirmed": 0, "full": 1, "undecided": 0}


def test_a_pattern_the_validators_read_differently_behind_refs_allof_and_items_is_a_finding(
        make_contract: Callable[..., Path]) -> None:
    # ECMA-262's \d is ASCII; python's matches any Unicode digit: production rejects, the reference
    # accepts, at the end of a path through $ref, allOf and items.
    data = dict(ENVELOPE_DATA, properties={
        **PROPERTIES,
        "codes": {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/code"}]}},
    })
    schema = envelope_schema("item_status", data)
    schema["$defs"] = {"code": {"type": "string", "pattern": "^\\d+$"}}
    contract = load_contract(make_contract(schemas={1: schema}))
    result, counts = _engine_check(contract, item(codes=["12", "\u0661\u0662"]))
    assert (result.status, result.problem) == ("finding", "differential"), result.detail
    assert counts["full"] == 1 and counts["confirmed"] == 0
    # The same place with a value both reject: confirmed on the subschema, nothing reported.
    result, counts = _engine_check(contract, item(codes=["12", "x"]))
    assert (result.status, result.problem) == ("passed", None), result.detail
    assert counts == {"compared": 1, "remembered": 0, "confirmed": 1, "full": 0, "undecided": 0}


def test_a_reference_with_another_format_checker_disagrees_where_the_walk_ends(
        make_contract: Callable[..., Path]) -> None:
    # A reference that asserts no format at all (python-jsonschema's validators take the format
    # checker as an argument): production rejects a malformed date-time; this reference accepts.
    import jsonschema

    data = dict(ENVELOPE_DATA, properties={**PROPERTIES,
                                           "note": {"type": "string", "format": "date-time"}})
    schema = envelope_schema("item_status", data)
    contract = load_contract(make_contract(schemas={1: schema}))
    lax = ReferenceValidator(schema)
    lax._validator = lax._validator.evolve(format_checker=jsonschema.FormatChecker(formats=()))
    document = json.loads(item(note="yesterday"))
    production = contract.validator()
    assert not production.is_valid(document)
    assert not lax.rejects(document, production.first_error(document))
    assert lax.is_valid(document)  # the whole validation then disagrees: a finding
    strict = contract.reference_validator()
    assert strict.rejects(document, production.first_error(document))


def test_a_pattern_search_past_the_bound_is_counted_undecided_and_said(
        make_contract: Callable[..., Path], monkeypatch: Any, capsys: Any) -> None:
    """A document the reference gives no verdict on in time is not compared: the JSON report
    counts it, the terminal says so, and the case keeps the production's verdict."""
    import harness.differential.bounded as bounded
    from harness.cli import main

    monkeypatch.setattr(bounded, "PATTERN_TIMEOUT_S", 0.01)
    data = dict(ENVELOPE_DATA, properties={**PROPERTIES, "note": {"type": "string", "pattern": "^(a|aa)+$"}})
    schema = envelope_schema("item_status", data)
    assert "$schema" in schema  # the file's root names its dialect (see test_files_and_errors)
    slow = item(note="a" * 34 + "!")
    directory = make_contract(schemas={1: schema}, files={
        "fixtures/rejected/item_status/slow.json": slow,
        "fixtures/rejected/item_status/slow.case.yaml": "expect: {layer: schema}\n",
    })
    result, counts = _engine_check(load_contract(directory), slow)
    assert (result.status, result.problem) == ("passed", None), result.detail
    assert counts == {"compared": 1, "remembered": 0, "confirmed": 0, "full": 1, "undecided": 1}
    project = directory.parent.parent
    monkeypatch.chdir(project)
    code = main(["check", "--no-progress", "--max-mutants", "0", "--no-saved-verdicts", "--json", "r.json"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert json.loads((project / "r.json").read_text())["summary"]["differential"]["undecided"] == 1
    assert ("differential: 1 document not compared: the reference validator gave no verdict within its bounds "
            "(0.01 s a pattern search, Python's recursion limit); the production validator's verdict stands") in out


def test_a_value_the_reference_cannot_check_within_the_recursion_limit_is_undecided_not_an_error(
        make_contract: Callable[..., Path]) -> None:
    """python-jsonschema checks ``format: regex`` with ``re.compile``, which recurses once per
    nested group: 3,000 ``(`` exceed Python's limit. The production rejects the value; the case
    holds, and the document is counted as not compared (it was an ``error`` case before)."""
    data = dict(ENVELOPE_DATA, properties={**PROPERTIES, "note": {"type": "string", "format": "regex"}})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    result, counts = _engine_check(contract, item(note="(" * 3000))
    assert (result.status, result.problem) == ("passed", None), result.detail
    assert counts == {"compared": 1, "remembered": 0, "confirmed": 0, "full": 1, "undecided": 1}


def test_a_regex_value_python_warns_about_prints_no_warning(make_contract: Callable[..., Path]) -> None:
    """``re.compile("[[a]")`` warns (FutureWarning, nested set) from python-jsonschema's format
    check: about the upstream's value, not the user's code; ``check`` prints none of it."""
    import subprocess
    import sys

    data = dict(ENVELOPE_DATA, properties={**PROPERTIES, "note": {"type": "string", "format": "regex"}})
    directory = make_contract(schemas={1: envelope_schema("item_status", data)}, files={
        "fixtures/accepted/item_status/nested_set.json": item(note="[[a]"),
    })
    done = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--no-progress", "--source", "accepted",
                           "--no-saved-verdicts"], cwd=directory.parent.parent, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr and "all 1 cases held" in done.stdout, done.stdout + done.stderr


def test_the_json_report_counts_comparisons_by_kind(tmp_path: Path, demo_root: Path) -> None:
    import subprocess
    import sys

    report = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--demo", "--no-progress",
                           "--tool", "review_status", "--json", str(report)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    counts = json.loads(report.read_text())["summary"]["differential"]
    assert counts["compared"] == counts["confirmed"] + counts["full"] and counts["saved"] == 0
    assert counts["confirmed"] > 0 and counts["full"] > 0
    done = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--demo", "--no-progress",
                           "--tool", "review_status", "--no-differential", "--json", str(report)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "differential" not in json.loads(report.read_text())["summary"]


# ------------------------------------------- the reference's whole verdict, walked and remembered


def _library(reference: ReferenceValidator, document: Any) -> bool:
    """python-jsonschema's own verdict, without the walk."""
    return bool(reference._validator.is_valid(document))


@settings(max_examples=300, deadline=None)
@given(document=_mutated(RICH_DOCUMENT))
def test_the_walked_verdict_is_the_librarys_through_every_kind_of_step(document: Any) -> None:
    # One reference for every example: what it remembered of earlier documents is used.
    _, reference = _RICH
    assert reference.is_valid(document) == _library(reference, document)


@settings(max_examples=150, deadline=None)
@given(document=_mutated(DRAFT7_DOCUMENT))
def test_the_walked_verdict_is_the_librarys_on_a_draft_07_schema(document: Any) -> None:
    _, reference = _DRAFT7
    assert reference.is_valid(document) == _library(reference, document)


def test_the_walked_verdict_is_the_librarys_on_every_document_of_the_demo(demo: Callable[[str], Contract]) -> None:
    documents = 0
    for tool in DEMO_TOOLS:
        contract = demo(tool)
        reference = contract.vendor_reference_validator() if contract.adapter else contract.reference_validator()
        assert reference is not None
        verdicts = set()
        for document in _documents(contract):
            documents += 1
            walked = reference.is_valid(document)
            assert walked == _library(reference, document), (tool, document)
            verdicts.add(walked)
        assert verdicts == {True, False}, tool
    assert documents > 100


def test_the_walks_follow_keywords_the_dialect_table_groups_as_the_walks_step_into_them() -> None:
    from harness.differential import steps
    from harness.schemas import dialects

    def following(*hows: int) -> set[str]:
        return {keyword for keyword, how in steps.FOLLOWED.items() if how in hows}

    assert following(steps.ALL_OF, steps.REF, steps.ANY_OF, steps.ONE_OF) <= dialects.IN_PLACE
    assert following(steps.ANY_OF, steps.ONE_OF) == set(dialects.UNIONS)
    assert following(steps.PROPERTIES) <= dialects.MEMBERS
    assert following(steps.PREFIX_ITEMS, steps.ITEMS) <= dialects.ITEMS
    assert not following(steps.CALLED) and len(steps.BY_FUNCTION) == len(steps.FOLLOWED) + 1
    assert all(dialects.slot("2020-12", keyword) is not None or keyword in dialects.REF_KEYWORDS
               for keyword in steps.FOLLOWED)


def test_the_walked_verdict_is_the_librarys_on_the_official_suite() -> None:
    """Every test of Draft 2020-12 (required, optional, optional/format), each document validated
    twice (the second time from what the first remembered): the walk's verdict is python-
    jsonschema's. The walk gives way to the library only where it must."""
    import harness.differential.whole as whole

    suite = corpus("json-schema-test-suite")
    remotes = [("http://localhost:1234/" + path.relative_to(suite / "remotes").as_posix(),
                json.loads(path.read_text(encoding="utf-8"))) for path in sorted((suite / "remotes").rglob("*.json"))]
    draft = suite / "tests" / "draft2020-12"
    files = [*sorted(draft.glob("*.json")), *sorted((draft / "optional").glob("*.json")),
             *sorted((draft / "optional" / "format").glob("*.json"))]
    walked, gave_way, wrong = 0, [], []
    for file in files:
        for group in json.loads(file.read_text(encoding="utf-8")):
            reference = ReferenceValidator(group["schema"], remotes)
            for test in group["tests"]:
                where = f"{file.name}: {group['description']}: {test['description']}"
                try:
                    expected: Any = _library(reference, test["data"])
                except Exception as exc:  # (the library's own failure is the verdict to match)
                    expected = type(exc)
                try:
                    steps = reference._walks()
                    if type(steps.root[0]) is not type(reference._validator):
                        raise whole._Unwalkable
                    verdicts = [whole.valid(steps, steps.root, (), test["data"], True) for _ in range(2)]
                except Exception:
                    gave_way.append(where)
                    continue
                walked += 1
                if verdicts != [expected] * 2:
                    wrong.append(where)
                # And as the differential check asks for it (with the library where the walk gives way).
                if expected in (True, False):
                    assert reference.is_valid(test["data"]) == expected, where
    assert not wrong, wrong
    assert walked > 2200, walked
    # A $ref into draft-07 (another validator class) and ECMA-262's \c, which python's re cannot
    # compile (the library raises there too).
    assert len(gave_way) <= 5 and all("cross-draft" in w or "ecmascript-regex" in w for w in gave_way), gave_way


def _one_change(document: Any, limit: int) -> Iterator[Any]:
    """``document`` with one value replaced by another of each JSON type, at up to ``limit`` places."""
    for where in list(_places(document))[1:limit]:
        for value in (None, True, 0, 1.5, "", "x" * 300, [], {}):
            yield _replaced(document, where, value)


def test_the_walked_verdict_is_the_librarys_on_the_real_tool_schemas_and_their_near_misses() -> None:
    real = corpus("real-tools")
    verdicts = {True: 0, False: 0}
    for schema_file in sorted(real.glob("*/*/schema.json")):
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        reference = ReferenceValidator(schema)
        for example in sorted((schema_file.parent / "examples").glob("*.json")):
            base = json.loads(example.read_text(encoding="utf-8"))
            for document in (base, *_one_change(base, 40)):
                walked = reference.is_valid(document)
                assert walked == _library(reference, document), (example, document)
                verdicts[walked] += 1
    assert verdicts[True] > 300 and verdicts[False] > 3000, verdicts


def test_a_part_of_a_document_seen_before_is_not_evaluated_again() -> None:
    import harness.differential.whole as whole

    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "properties": {"owner": {"type": "object", "properties": {"name": {"type": "string"},
                                                                        "team": {"enum": ["red", "blue"]}}},
                             "n": {"type": "integer"}, "flag": {"type": "boolean"}}}
    reference = ReferenceValidator(schema)
    owner = {"name": "ada", "team": "red"}

    def remembered() -> list[tuple[Any, ...]]:
        assert reference._steps is not None
        paths = {node[2]: path for path, node in reference._steps._known.items()}
        return sorted(paths[key[0]] for key in whole._KNOWN if key[0] in paths)

    assert reference.is_valid({"owner": owner, "n": 1})
    first = remembered()
    assert (("properties", "owner", "properties", "name")) in first
    assert reference.is_valid({"owner": dict(owner), "n": 2})
    # Only the new member's verdict is added: the owner (and its members) came from memory.
    assert len(remembered()) == len(first) + 1
    # 1, true and "1" are three parts: a verdict on one is not taken for another.
    assert not reference.is_valid({"owner": owner, "n": True})
    assert not reference.is_valid({"owner": owner, "n": "1"})
    assert not reference.is_valid({"owner": owner, "flag": 1})
    assert reference.is_valid({"owner": owner, "flag": True})


def test_an_unexplained_rejection_the_whole_verdict_cannot_give_is_shown_on_its_part(
        make_contract: Callable[..., Path], monkeypatch: Any) -> None:
    """check with no report file compares an unexplained rejection by the reference's whole
    verdict; where that meets a pattern search past its bound before the failing member, the
    rejection is shown on the part the production's first error names instead, as when the
    reason is asked for: compared, not undecided."""
    import harness.differential.bounded as bounded

    monkeypatch.setattr(bounded, "PATTERN_TIMEOUT_S", 0.01)
    rest = {name: value for name, value in PROPERTIES.items() if name != "note"}
    data = dict(ENVELOPE_DATA, properties={"note": {"type": "string", "pattern": "^(a|aa)+$"}, **rest})
    contract = load_contract(make_contract(schemas={1: envelope_schema("item_status", data)}))
    payload = item(note="a" * 34 + "!", status="nope")
    case = Case("item_status::rejected::x", "item_status", "rejected", contract,
                CaseExpectation(False, (Layer.SCHEMA,)), lambda: payload)
    events = list(Engine(explain=False).run([case]))
    result = next(e.result for e in events if isinstance(e, CaseFinished))
    counts = next(e.summary for e in events if isinstance(e, RunFinished)).differential
    assert (result.status, result.code) == ("passed", "schema.unexplained"), result.detail
    assert counts == {"compared": 1, "remembered": 0, "confirmed": 1, "full": 0, "undecided": 0}
