"""The one adapter that reaches into other libraries' private parts (harness/internals.py): each
library's installed version is the one it was read against, so a new release fails here until
its private parts are read again and ``CHECKED`` says so."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from harness import internals


@pytest.mark.parametrize("distribution", sorted(internals.CHECKED))
def test_the_installed_version_is_the_one_the_adapter_was_checked_against(distribution: str) -> None:
    assert version(distribution) == internals.CHECKED[distribution], (
        f"{distribution} {version(distribution)} is installed; harness/internals.py was read against "
        f"{internals.CHECKED[distribution]}: read its private parts again, then update CHECKED")


def test_the_running_python_is_one_whose_private_modules_the_adapter_was_checked_against() -> None:
    import sys

    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert running in internals.CHECKED_PYTHON, (
        f"Python {running}: harness/internals.py read re's parser and the process pool on "
        f"{internals.CHECKED_PYTHON}: read them again, then update CHECKED_PYTHON")


def test_each_reach_in_finds_what_it_names_in_the_installed_versions() -> None:
    strategies = internals.hypothesis_strategies()
    assert strategies.core.CompositeStrategy and strategies.HypothesisProvider
    canonical = internals.hypothesis_jsonschema_canonical()
    assert canonical.canonicalish({"type": "integer", "minimum": 1}) == {"type": "integer", "minimum": 1}
    assert canonical.FALSEY == {"not": {}}
    assert internals.hypothesis_local_module_check() is not None
    assert internals.hypothesis_library_folders()
    import hypothesis.configuration as configuration

    configuration.set_hypothesis_home_dir("/somewhere")
    try:
        assert str(internals.hypothesis_home_override()) == "/somewhere"
    finally:
        configuration.set_hypothesis_home_dir(None)
    assert internals.hypothesis_home_override() is None
    limits, context = internals.hypothesis_given_state()
    assert limits is not None and context[0] is True
    constants, parser = internals.regex_parser()
    assert parser.parse("a+")[0][0] is constants.MAX_REPEAT


def test_no_module_but_the_adapter_imports_a_private_module_of_another_library() -> None:
    import ast

    from tests.helpers.paths import REPO

    def private(dotted: str) -> bool:
        return not dotted.startswith("__future__") and any(
            part.startswith("_") or part == "internal" for part in dotted.split("."))

    found = []
    for path in sorted((REPO / "harness").rglob("*.py")):
        if path.name == "internals.py" and path.parent.name == "harness":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [f"{path.relative_to(REPO)}:{node.lineno}: {name}" for name in names
                      if not name.startswith("harness") and private(name)]
    assert found == []
