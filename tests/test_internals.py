"""The one adapter that reaches into other libraries' private parts (harness/internals.py): each
library's installed version is the one it was read against, so a new release fails here until
its private parts are read again and ``CHECKED`` says so."""

from __future__ import annotations

import ast
import asyncio
import random
import sys
from importlib.metadata import version

import anyio
import pytest
from hypothesis import strategies as st

from harness import internals
from tests.helpers.paths import REPO


@pytest.mark.parametrize("distribution", sorted(internals.CHECKED))
def test_the_installed_version_is_the_one_the_adapter_was_checked_against(distribution: str) -> None:
    assert version(distribution) == internals.CHECKED[distribution], (
        f"{distribution} {version(distribution)} is installed; harness/internals.py was read against "
        f"{internals.CHECKED[distribution]}: read its private parts again, then update CHECKED")


def test_the_running_python_is_one_whose_private_modules_the_adapter_was_checked_against() -> None:
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


def test_hypothesis_s_scalar_draws_come_from_the_random_they_are_given() -> None:
    first, second = internals.hypothesis_scalar_draws(random.Random(7)), internals.hypothesis_scalar_draws(random.Random(7))
    drawn = [first.integer(0, 1000) for _ in range(50)]
    assert drawn == [second.integer(0, 1000) for _ in range(50)]
    assert all(0 <= n <= 1000 for n in drawn) and len(set(drawn)) > 10
    unbounded = {"min_value": None, "max_value": None, "weights": None, "shrink_towards": 0}
    constants = [first.constant("integer", unbounded) for _ in range(1000)]
    assert all(c is None or isinstance(c, int) for c in constants)
    assert 0 < sum(c is not None for c in constants) < 200  # now and then (5%)
    drawn_float = first.provider.draw_float(min_value=0.0, max_value=1.0, allow_nan=False,
                                            smallest_nonzero_magnitude=sys.float_info.min)
    assert 0.0 <= drawn_float <= 1.0


def test_a_sampled_from_strategy_s_maps_and_filters_are_read_in_order() -> None:
    kinds = [kind for kind, _, _ in internals.hypothesis_sampled_transforms(st.sampled_from([1, 2]).map(str).filter(bool))]
    assert kinds == ["map", "filter"]
    assert not internals.hypothesis_sampled_transforms(st.sampled_from([1, 2]))


def test_anyio_s_process_wraps_asyncio_s_streams_and_subprocess_transport() -> None:
    async def main() -> None:
        echo = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"]
        async with await anyio.open_process(echo) as process:
            assert isinstance(internals.anyio_asyncio_stream(process.stdin), asyncio.StreamWriter)
            assert isinstance(internals.anyio_asyncio_stream(process.stdout), asyncio.StreamReader)
            assert isinstance(internals.anyio_subprocess_transport(process), asyncio.SubprocessTransport)
            assert internals.anyio_asyncio_stream(object()) is None
            assert process.stdin is not None
            await process.stdin.aclose()

    anyio.run(main)


def test_the_python_jsonschema_reach_ins_make_the_validators_its_evaluation_makes() -> None:
    import jsonschema

    schema = {"properties": {"name": {"$ref": "#/$defs/name"}}, "$defs": {"name": {"type": "string"}}}
    validator = jsonschema.Draft202012Validator(schema)
    assert [name for _, name, _ in internals.jsonschema_applicable(validator)] == ["properties"]
    resolved = internals.jsonschema_resolver(validator).lookup("#/$defs/name")
    target = internals.jsonschema_evolve(validator, resolved.contents, resolved.resolver)
    assert target.schema == {"type": "string"} and internals.jsonschema_resolver(target) is resolved.resolver
    assert not target.is_valid(1) and target.is_valid("ada")
    fields = dict(internals.jsonschema_init_fields(jsonschema.Draft202012Validator))
    assert {"schema", "format_checker", "_resolver"} <= set(fields)


def test_no_module_but_the_adapter_imports_a_private_module_of_another_library() -> None:
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


#: Names with a leading underscore that are public API: ``os._exit``, a named tuple's methods.
PUBLIC_UNDERSCORED = frozenset({"_exit", "_fields", "_replace", "_asdict", "_make"})


def _own_attributes(trees: dict[str, ast.Module]) -> set[str]:
    """The underscored attributes the package gives its own objects: its classes' members and
    slots, and what a method sets on ``self`` or ``cls``."""
    own: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                        own.add(member.name)
                    elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                        own.add(member.target.id)
                    elif isinstance(member, ast.Assign):
                        for target in member.targets:
                            if isinstance(target, ast.Name):
                                own.add(target.id)
                        if any(isinstance(target, ast.Name) and target.id == "__slots__" for target in member.targets):
                            own.update(c.value for c in ast.walk(member.value)
                                       if isinstance(c, ast.Constant) and isinstance(c.value, str))
            elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                own.add(node.attr)
    return own


def test_no_module_but_the_adapter_reads_a_private_attribute_of_another_library_s_object() -> None:
    # An underscored attribute read on anything but self or cls (``x._y``, ``getattr(x, "_y")``)
    # that no class of the package defines is another library's. (One spelled like an
    # attribute of ours would pass unseen: the scan knows names, not types.)
    trees = {str(path.relative_to(REPO)): ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted((REPO / "harness").rglob("*.py"))}
    own = _own_attributes(trees) | PUBLIC_UNDERSCORED
    found = []
    for name, tree in trees.items():
        if name == "harness/internals.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                subject, attribute = node.value, node.attr
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "hasattr", "setattr", "delattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                subject, attribute = node.args[0], node.args[1].value
            else:
                continue
            if (attribute.startswith("_") and not attribute.endswith("__") and attribute not in own
                    and not (isinstance(subject, ast.Name) and subject.id in ("self", "cls"))):
                found.append(f"{name}:{node.lineno}: {ast.unparse(subject)}.{attribute}")
    assert found == []
