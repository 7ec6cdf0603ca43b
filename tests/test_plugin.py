"""The pytest plugin, tested with pytester on real throwaway projects."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

# The inline runs below import harness modules, and pytester forgets every module first imported
# inside a run. When another test in this process imported part of a package first, a later run
# re-imports the rest against the kept part. Import the lazily loaded packages whole, here. (The
# compat rules need no such care: their registry imports its declaring modules itself.)
import harness.fuzz.runner
import harness.reporting.fuzz  # noqa: F401

pytest_plugins = ["pytester"]


@pytest.fixture
def demo_project(pytester: pytest.Pytester, demo_root):  # type: ignore[no-untyped-def]
    for part in ("contracts", "fixtures"):
        shutil.copytree(demo_root / part, pytester.path / part)
    # Only the deployment tool, to keep these runs short (and few examples per fuzz item).
    for tool in ("review_status", "job_status"):
        shutil.rmtree(pytester.path / "contracts" / tool)
        for kind in ("accepted", "rejected", "historical"):
            shutil.rmtree(pytester.path / "fixtures" / kind / tool, ignore_errors=True)
    pytester.makeini("[pytest]\ncontract_harness_fuzz_examples = 10\n")
    return pytester


def _unpublish(project: pytest.Pytester) -> None:
    """These tests edit v2 as a draft would be edited: before it is recorded in schemas.lock."""
    (project.path / "contracts/deployment_status/schemas.lock").unlink()


def test_a_published_version_edited_in_place_is_a_failing_item_and_the_cases_still_run(demo_project) -> None:  # type: ignore[no-untyped-def]
    schema = demo_project.path / "contracts/deployment_status/schemas/v1.json"
    schema.write_text(schema.read_text().replace('"maxLength": 40', '"maxLength": 64'))
    result = demo_project.runpytest("-q", "--no-fuzz", "-k", "versions or accepted")
    result.assert_outcomes(failed=1, passed=2)
    result.stdout.fnmatch_lines(["deployment_status::versions::v1 (version_changed): v1 changed in place: add v3 "
                                 "(a published version never changes; *"])
    assert "Traceback" not in result.stdout.str()


def test_plain_pytest_collects_one_item_per_case_with_readable_ids(demo_project) -> None:  # type: ignore[no-untyped-def]
    result = demo_project.runpytest("--collect-only", "-q")
    lines = result.stdout.lines
    assert "contracts/deployment_status/contract.yaml::accepted::healthy" in lines
    assert "contracts/deployment_status/contract.yaml::mutation::add_extra_property@/[healthy]" in lines
    assert "contracts/deployment_status/contract.yaml::historical::maintenance-banner/state_object" in lines
    assert "contracts/deployment_status/contract.yaml::lint" in lines
    assert "contracts/deployment_status/contract.yaml::compat-v1-v2::policy" in lines
    assert "contracts/deployment_status/contract.yaml::fuzz::rejects_near_misses" in lines
    assert any("90 tests collected" in line for line in lines)


def test_lint_item_fails_with_the_rule_pointer_and_fix(demo_project) -> None:  # type: ignore[no-untyped-def]
    path = demo_project.path / "contracts/deployment_status/contract.yaml"
    text = path.read_text()
    path.write_text(text[: text.index("waivers:")])  # drop the waivers that justify v1 being open
    result = demo_project.runpytest("-q", "-m", "lint")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*open_object*", "*additionalProperties*"])


def test_compat_items_fail_when_the_declared_policy_is_violated(demo_project) -> None:  # type: ignore[no-untyped-def]
    path = demo_project.path / "contracts/deployment_status/contract.yaml"
    path.write_text(path.read_text().replace("policy: writer", "policy: full"))
    result = demo_project.runpytest("-q", "-m", "compat")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*policy full violated*"])


def test_cases_pass_and_the_summary_shows_the_layer_table(demo_project, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "200")  # the whole table (narrower, it folds: tests/test_narrow_terminal.py)
    result = demo_project.runpytest("-q")
    result.assert_outcomes(passed=90)
    result.stdout.fnmatch_lines(["*contract cases by rejecting layer*",
                                 "tool*cases*transport*parse*schema*adapter*binding*freshness*projection*accepted*",
                                 "deployment_status*82*"])


def test_k_selects_by_operator_and_tool(demo_project) -> None:  # type: ignore[no-untyped-def]
    result = demo_project.runpytest("-q", "-k", "deployment_status and duplicate_member")
    result.assert_outcomes(passed=2)


def test_junitxml_has_one_testcase_per_case(demo_project) -> None:  # type: ignore[no-untyped-def]
    result = demo_project.runpytest("-q", "--junitxml=out.xml", "-k", "rejected")
    result.assert_outcomes(passed=4)
    root = ET.parse(demo_project.path / "out.xml").getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 4
    props = {p.get("name"): p.get("value") for p in cases[0].findall("properties/property")}
    assert props["tool"] == "deployment_status" and props["layer"] in {"transport", "parse", "schema", "binding"}


def test_a_failing_case_reports_expected_and_actual_layers(demo_project) -> None:  # type: ignore[no-untyped-def]
    side = demo_project.path / "fixtures/rejected/deployment_status/other_environment.case.yaml"
    side.write_text("expect: {layer: schema}\n")
    result = demo_project.runpytest("-q", "-k", "other_environment")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FAILED deployment_status::rejected::other_environment (wrong_layer)*",
                                 "*expected: schema*", "*actual:   binding.environment*"])


def test_a_failing_case_shows_no_secret_of_the_contracts_upstreams(demo_project, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # As `check` does: the values of the ${ENV} variables the upstreams use never reach the
    # terminal (here a historical shape whose member name is the token, pinned to the wrong layer).
    secret = "sandbox-T0ken-77"
    monkeypatch.setenv("HARNESS_SANDBOX_URL", secret)
    folder = demo_project.path / "fixtures/rejected/deployment_status"
    (folder / "echoed.json").write_text(
        json.dumps({"environment": "staging", "revision": "a83f19c", "state": "healthy", secret: 1}))
    (folder / "echoed.case.yaml").write_text("expect: {layer: binding}\n")
    result = demo_project.runpytest("-q", "-k", "echoed")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "${HARNESS_SANDBOX_URL}" in text and secret not in text


def test_works_under_xdist(demo_project, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "200")
    result = demo_project.runpytest_subprocess("-q", "-n", "2", "-k", "mutation")
    result.assert_outcomes(passed=72)
    result.stdout.fnmatch_lines(["*contract cases by rejecting layer*", "deployment_status*72*"])


SAVED = ".contract-harness/check/reference"


def test_the_reference_verdicts_are_saved_and_taken_as_check_does(demo_project) -> None:  # type: ignore[no-untyped-def]
    first = demo_project.runpytest("-q", "--no-fuzz")
    first.assert_outcomes(passed=86)
    assert "saved by an earlier run" not in first.stdout.str()
    saved = demo_project.path / SAVED / "deployment_status.json"
    body = json.loads(saved.read_text())
    (lists,) = body["verdicts"].values()
    assert lists["valid"] and lists["invalid"]
    quiet = demo_project.runpytest("-q", "--no-fuzz")
    quiet.assert_outcomes(passed=86)
    assert "saved by an earlier run" not in quiet.stdout.str()  # a caching detail: said under -v only
    second = demo_project.runpytest("-v", "--no-fuzz")
    second.assert_outcomes(passed=86)
    (line,) = [line for line in second.stdout.lines if line.startswith("differential: ")]
    counts = line.split()[1:4]
    assert counts[0] == counts[2] and int(counts[0]) > 0 and counts[1] == "of", line
    # `check` takes what pytest saved (one place, one format), and validates nothing afresh.
    done = subprocess.run([sys.executable, "-m", "harness.cli", "check", "--no-progress", "--json", "r.json"],
                          cwd=demo_project.path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    differential = json.loads((demo_project.path / "r.json").read_text())["summary"]["differential"]
    assert differential["saved"] == differential["compared"] > 0 and differential["full"] == 0
    # --no-saved-verdicts: nothing read, nothing written.
    saved.unlink()
    third = demo_project.runpytest("-q", "--no-fuzz", "--no-saved-verdicts")
    third.assert_outcomes(passed=86)
    assert not saved.exists() and "saved by an earlier run" not in third.stdout.str()


def test_xdist_workers_save_every_verdict_between_them(demo_project) -> None:  # type: ignore[no-untyped-def]
    demo_project.runpytest_subprocess("-q", "-n", "2", "--no-fuzz", "-k", "not compat").assert_outcomes(passed=83)
    again = demo_project.runpytest("-v", "--no-fuzz", "-k", "not compat")
    (line,) = [line for line in again.stdout.lines if line.startswith("differential: ")]
    saved, _, compared = line.split()[1:4]
    assert saved == compared and int(saved) > 0, line


def test_contracts_option_collects_from_elsewhere(pytester: pytest.Pytester, demo_root) -> None:  # type: ignore[no-untyped-def]
    result = pytester.runpytest("-q", "--co", "--contracts", str(demo_root / "contracts" / "deployment_status"))
    assert any("90 tests collected" in line for line in result.stdout.lines)


def test_a_broken_contract_is_a_one_line_collection_error(demo_project) -> None:  # type: ignore[no-untyped-def]
    path = demo_project.path / "contracts/deployment_status/contract.yaml"
    path.write_text(path.read_text() + "admin_override: true\n")
    result = demo_project.runpytest("-q")
    result.stdout.fnmatch_lines(["*unknown key*admin_override*"])
    assert result.ret != 0


def test_with_testpaths_naming_only_tests_the_contracts_are_collected_anyway(demo_project) -> None:  # type: ignore[no-untyped-def]
    # (The folder is "unit", not "tests": this process already imported a package named tests.)
    demo_project.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["unit"]\n'
                                   "contract_harness_fuzz_examples = '10'\n")
    demo_project.mkdir("unit").joinpath("test_unit.py").write_text("def test_unit():\n    pass\n")
    (demo_project.path / "tox.ini").unlink()  # makeini's; pyproject.toml holds the settings now
    result = demo_project.runpytest("--co", "-q")
    assert "unit/test_unit.py::test_unit" in result.stdout.lines
    assert "contracts/deployment_status/contract.yaml::accepted::healthy" in result.stdout.lines
    assert any("91 tests collected" in line for line in result.stdout.lines)
    header = demo_project.runpytest("--co").stdout.str()
    assert f"contract-harness: also collecting {demo_project.path / 'contracts'} (outside testpaths; " \
           "--no-contracts or contract_harness_collect_root = false leaves it out)" in header
    quiet = demo_project.runpytest("--co", "-q", "--no-contracts").stdout.lines
    assert any("1 test collected" in line for line in quiet)
    chosen = demo_project.runpytest("--co", "-q", "unit").stdout.lines  # paths given: exactly those
    assert any("1 test collected" in line for line in chosen)
    off = demo_project.runpytest("--co", "-q", "-o", "contract_harness_collect_root=false").stdout.lines
    assert any("1 test collected" in line for line in off)


def _collected(project: pytest.Pytester, *args: str) -> int:
    lines = project.runpytest("--co", "-q", *args).stdout.lines
    (line,) = [line for line in lines if " collected in " in line or line.startswith("no tests collected")]
    return int(line.split()[0]) if line[0].isdigit() else 0


def test_pytest_in_a_fixtures_or_schemas_folder_collects_the_contract_it_belongs_to(
        demo_project, monkeypatch: pytest.MonkeyPatch, demo_root) -> None:  # type: ignore[no-untyped-def]
    # As `check` runs from inside the project: from fixtures/<kind>/<tool>/ or contracts/<tool>/
    # schemas/, that tool's contract; from fixtures/, every contract; from any other folder of the
    # project, what pytest finds there and every contract.
    shutil.copytree(demo_root / "contracts/job_status", demo_project.path / "contracts/job_status")
    for kind in ("accepted", "rejected", "historical"):
        if (demo_root / "fixtures" / kind / "job_status").is_dir():
            shutil.copytree(demo_root / "fixtures" / kind / "job_status",
                            demo_project.path / "fixtures" / kind / "job_status")
    deployment = _collected(demo_project, "contracts/deployment_status")
    everything = _collected(demo_project)
    assert 0 < deployment < everything
    for folder in ("fixtures/accepted/deployment_status", "fixtures/rejected/deployment_status",
                   "contracts/deployment_status/schemas"):
        monkeypatch.chdir(demo_project.path / folder)
        assert _collected(demo_project) == deployment, folder
    monkeypatch.chdir(demo_project.path / "fixtures/accepted/deployment_status")
    header = demo_project.runpytest("--co").stdout.str()
    assert (f"contract-harness: also collecting {demo_project.path / 'contracts/deployment_status'} (the contract "
            "of the fixtures in deployment_status/; --no-contracts or contract_harness_collect_root = false leaves "
            "it out)") in header
    assert _collected(demo_project, "--no-contracts") == 0
    assert _collected(demo_project, "-o", "contract_harness_collect_root=false") == 0
    for folder in ("fixtures", "fixtures/accepted"):
        monkeypatch.chdir(demo_project.path / folder)
        assert _collected(demo_project) == everything, folder
    unit = demo_project.mkdir("unit")
    unit.joinpath("test_unit.py").write_text("def test_unit():\n    pass\n")
    monkeypatch.chdir(unit)
    assert _collected(demo_project) == everything + 1


def test_pytest_run_in_a_fixtures_folder_keeps_its_state_at_the_project_root(demo_project, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    folder = demo_project.path / "fixtures/accepted/deployment_status"
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)  # an in-process CLI run of another test sets it
    (demo_project.path / "tox.ini").unlink()  # no configuration file: pytest's rootdir is the folder itself
    monkeypatch.chdir(folder)
    result = demo_project.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--fuzz-examples", "5")
    result.assert_outcomes(passed=_count_deployment_items(demo_project))
    assert not list(folder.rglob(".contract-harness")), list(folder.rglob("*"))
    state = demo_project.path / ".contract-harness"
    assert (state / "fuzz/replay/deployment_status").is_dir() and (state / "hypothesis").is_dir()
    again = demo_project.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--fuzz-examples", "5")
    assert any(line.startswith("deployment_status: replayed ") for line in again.stdout.lines), again.stdout.lines


def _count_deployment_items(project: pytest.Pytester) -> int:
    return _collected(project, str(project.path / "contracts/deployment_status"))


def test_a_fixture_folder_for_a_tool_without_a_contract_is_a_one_line_collection_error(demo_project) -> None:  # type: ignore[no-untyped-def]
    (demo_project.path / "fixtures/accepted/deployment_statu").mkdir()
    result = demo_project.runpytest("-q", "--co")
    result.stdout.fnmatch_lines(["fixture.unknown_tool: *deployment_statu/: fixtures for tool 'deployment_statu', "
                                 "which has no contract (contracts/deployment_statu/contract.yaml) "
                                 "(did you mean 'deployment_status'?)"])
    assert result.ret != 0 and "Traceback" not in result.stdout.str()


def test_a_layout_problem_fails_every_contract_of_the_project(pytester: pytest.Pytester, demo_root) -> None:  # type: ignore[no-untyped-def]
    # The layout is read once a session (not once per contract), and each contract's collection
    # still fails on its first problem.
    for part in ("contracts", "fixtures"):
        shutil.copytree(demo_root / part, pytester.path / part)
    (pytester.path / "fixtures/accepted/deployment_statu").mkdir()
    result = pytester.runpytest("-q", "--co", "--continue-on-collection-errors")
    errors = [line for line in result.stdout.lines if line.startswith("fixture.unknown_tool: ")]
    assert len(errors) == 3 and len(set(errors)) == 1, result.stdout.lines
    assert [line for line in result.stdout.lines if line.startswith("ERROR ")] == [
        f"ERROR contracts/{tool}/contract.yaml" for tool in ("deployment_status", "job_status", "review_status")]


def test_a_broken_sidecar_is_a_one_line_collection_error(demo_project) -> None:  # type: ignore[no-untyped-def]
    (demo_project.path / "fixtures/rejected/deployment_status/deep_nesting.case.yaml").write_text("expect: [\n")
    result = demo_project.runpytest("-q", "--co")
    errors = [line for line in result.stdout.lines if "deep_nesting.case.yaml" in line]
    assert len(errors) == 1 and errors[0].startswith("contract.invalid: ")
    assert result.ret != 0 and "Traceback" not in result.stdout.str()


def test_the_plugin_leaves_no_hypothesis_folder_in_the_project(demo_project, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    result = demo_project.runpytest_subprocess("-q", "-m", "fuzz or compat")
    result.assert_outcomes(passed=7)
    assert not (demo_project.path / ".hypothesis").exists()
    assert (demo_project.path / ".contract-harness/hypothesis").is_dir()


def test_no_differential_skips_the_reference_validator(demo_project) -> None:  # type: ignore[no-untyped-def]
    # A Python-only regex construct: invalid for jsonschema-rs (ECMA-262), valid for python's re.
    schema = demo_project.path / "contracts/deployment_status/schemas/v2.json"
    schema.write_text(schema.read_text().replace(
        '"state": {', '"note": {"type": "string", "format": "regex", "maxLength": 40},\n    "state": {'))
    _unpublish(demo_project)
    rejected = demo_project.path / "fixtures/rejected/deployment_status"
    (rejected / "py_regex.json").write_text(
        '{"environment": "staging", "revision": "a83f19c", "state": "healthy", "note": "(?P<n>a)"}')
    (rejected / "py_regex.case.yaml").write_text("expect: {layer: schema, code: schema.format}\n")
    result = demo_project.runpytest("-q", "-k", "py_regex")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FINDING deployment_status::rejected::py_regex (differential)*"])
    demo_project.runpytest("-q", "-k", "py_regex", "--no-differential").assert_outcomes(passed=1)
    demo_project.makeini("[pytest]\ncontract_harness_differential = false\n")
    demo_project.runpytest("-q", "-k", "py_regex").assert_outcomes(passed=1)


def test_max_mutants_option_caps_the_items(demo_project) -> None:  # type: ignore[no-untyped-def]
    result = demo_project.runpytest("--co", "-q", "--max-mutants", "5")
    # 10 fixtures + 41 mutants (5 a fixture, and every agent-visible field's operator classes: coverage keeps
    # those whatever the cap) + lint + 3 compat + 4 fuzz
    assert any("59 tests collected" in line for line in result.stdout.lines)


def test_an_ini_setting_applies_and_the_option_overrides_it(demo_project) -> None:  # type: ignore[no-untyped-def]
    demo_project.makeini("[pytest]\ncontract_harness_max_mutants = 5\ncontract_harness_fuzz = false\n")
    result = demo_project.runpytest("--co", "-q")
    assert any("55 tests collected" in line for line in result.stdout.lines)  # 10 + 41 + lint + 3 compat
    result = demo_project.runpytest("--co", "-q", "--max-mutants", "1")
    assert any("51 tests collected" in line for line in result.stdout.lines)  # 10 + 37 + lint + 3 compat


@pytest.mark.parametrize(("ini", "message"), [
    ("contract_harness_max_mutants = many", "contract_harness_max_mutants 'many': not a valid int"),
    ("contract_harness_fuzz_examples = 1.5", "contract_harness_fuzz_examples '1.5': not a valid int"),
    ("contract_harness_fuzz_profile = weekly", "contract_harness_fuzz_profile 'weekly': use one of ci, nightly"),
])
def test_a_bad_ini_value_is_a_one_line_usage_error(demo_project, ini: str, message: str) -> None:  # type: ignore[no-untyped-def]
    demo_project.makeini(f"[pytest]\n{ini}\n")
    result = demo_project.runpytest("-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {message}" in result.stderr.lines, result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_the_plugin_names_the_fuzz_profiles_the_runner_has() -> None:
    from harness.fuzz.runner import PROFILES
    from harness.pytest_options import FUZZ_PROFILES

    assert tuple(PROFILES) == FUZZ_PROFILES


def test_one_fuzz_item_per_applicable_property_and_no_fuzz_turns_them_off(demo_project) -> None:  # type: ignore[no-untyped-def]
    lines = demo_project.runpytest("--co", "-q", "-m", "fuzz").stdout.lines
    fuzz_items = [line for line in lines if "::fuzz::" in line]
    assert fuzz_items == [f"contracts/deployment_status/contract.yaml::fuzz::{name}" for name in
                          ("accepts_valid", "rejects_near_misses", "survives_any_bytes", "keeps_canaries_out")]
    lines = demo_project.runpytest("--co", "-q", "--no-fuzz").stdout.lines
    assert not [line for line in lines if "::fuzz::" in line]
    assert any("86 tests collected" in line for line in lines)


def test_a_failing_fuzz_item_shows_the_shrunk_example_and_how_to_reproduce_it(demo_project) -> None:  # type: ignore[no-untyped-def]
    schema = demo_project.path / "contracts/deployment_status/schemas/v2.json"
    schema.write_text(schema.read_text().replace('"additionalProperties": false', '"additionalProperties": true'))
    _unpublish(demo_project)
    result = demo_project.runpytest("-q", "-k", "fuzz and rejects_near_misses")
    result.assert_outcomes(failed=1)
    # Which near miss the open schema lets through first depends on the operators drawn for the
    # document (an extra member, or an error object next to the data): both are the gap.
    result.stdout.fnmatch_lines([
        "*FINDING deployment_status::fuzz::rejects_near_misses (contract_gap)*",
        "*detail:   the schema accepts a* *",
        "*example:  {*} (* bytes), shrunk (hypothesis tried * after the first failure)",
        "*fixture:  *fixtures/rejected/deployment_status/fuzz-rejects_near_misses-*.json*",
        "*reproduce with: contract-harness fuzz *--tool deployment_status --property rejects_near_misses*",
    ])
    assert list((demo_project.path / ".contract-harness/fuzz/fixtures/rejected/deployment_status").glob("*.case.yaml"))


def test_collecting_fuzz_items_does_not_load_hypothesis(demo_project) -> None:  # type: ignore[no-untyped-def]
    demo_project.makeconftest(
        "import sys\n"
        "def pytest_collection_finish(session):\n"
        "    print('hypothesis loaded:', 'hypothesis' in sys.modules)\n"
    )
    result = demo_project.runpytest_subprocess("--co", "-q")
    result.stdout.fnmatch_lines(["hypothesis loaded: False"])



def test_loading_the_plugin_imports_none_of_the_library() -> None:
    # pytest imports the plugin in every run of every project where the package is installed.
    code = ("import sys, harness.pytest_plugin; "
            "print(sorted(m for m in sys.modules if m.startswith(('harness.', 'jsonschema', 'yaml'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The plugin's options, and the package's version and lazy-export helper: nothing else.
    assert proc.stdout.strip() == "['harness.lazy', 'harness.pytest_options', 'harness.pytest_plugin', 'harness.version']"


@pytest.mark.parametrize("cache", ["written", "not written"])
@pytest.mark.parametrize("asked", [[], ["--contract-plain-imports"], ["-o", "contract_harness_plain_imports=true"]],
                         ids=["by default", "with the option", "with the ini key"])
def test_the_library_loads_unrewritten_only_when_asked_and_the_users_tests_are_rewritten(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, cache: str, asked: list[str]) -> None:
    # pytest rewrites every module of a plugin's distribution; where it cannot cache the result
    # (PYTHONDONTWRITEBYTECODE, as in many CI images) it compiles them all again each run:
    # hypothesis too, then. --contract-plain-imports imports them as python does.
    if cache == "written":
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    else:
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    plain = bool(asked)
    pytester.makepyfile(test_user=f"""
        import sys
        import hypothesis
        import harness.fuzz.runner
        import _pytest.assertion.rewrite as rewrite
        from harness.pytest_plugin import PlainImports

        def rewritten(module):
            return isinstance(module.__spec__.loader, rewrite.AssertionRewritingHook)

        def test_plain():
            assert any(isinstance(finder, PlainImports) for finder in sys.meta_path) is {plain}
            assert {not plain} or not rewritten(harness.fuzz.runner)  # (an editable install is never rewritten)
            assert rewritten(hypothesis) is {not plain or cache == "written"}

        def test_users_asserts_are_still_explained():
            assert [1, 2] == [1, 3]
        """)
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    result = pytester.runpytest_subprocess("-q", "--no-fuzz", *asked)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*At index 1 diff: 2 != 3*"])


def test_a_document_the_reference_could_not_decide_in_time_is_said_in_the_summary(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.differential.bounded as differential
    from tests.helpers.contracts import DEFAULT_YAML, ENVELOPE_DATA, envelope_schema, item

    monkeypatch.setattr(differential, "PATTERN_TIMEOUT_S", 0.01)
    data = dict(ENVELOPE_DATA, properties={**ENVELOPE_DATA["properties"],  # type: ignore[dict-item]
                                           "note": {"type": "string", "pattern": "^(a|aa)+$"}})
    contract = pytester.path / "contracts" / "item_status"
    (contract / "schemas").mkdir(parents=True)
    (contract / "contract.yaml").write_text(DEFAULT_YAML.format(tool="item_status"))
    (contract / "schemas" / "v1.json").write_text(json.dumps(envelope_schema("item_status", data)))
    rejected = pytester.path / "fixtures" / "rejected" / "item_status"
    rejected.mkdir(parents=True)
    (rejected / "slow.json").write_bytes(item(note="a" * 34 + "!"))
    (rejected / "slow.case.yaml").write_text("expect: {layer: schema}\n")
    # (lint fails the contract's pattern as catastrophic: not this test's subject)
    result = pytester.runpytest("-q", "--no-fuzz", "--max-mutants", "0", "--no-saved-verdicts", "-k", "not lint")
    result.assert_outcomes(passed=1, deselected=1)
    assert ("differential: 1 document not compared: the reference validator gave no verdict within its bounds "
            "(0.01 s a pattern search, Python's recursion limit); the production validator's verdict stands") in result.stdout.lines
