"""The one registry type: filling, explicit loading, lookup and selection with did-you-mean."""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.registry import Registry


@dataclass(frozen=True)
class Item:
    name: str
    doc: str = ""


def _registry(*names: str) -> Registry[Item]:
    registry: Registry[Item] = Registry("widget", listing="widgets --list")
    for name in names:
        registry.add(Item(name))
    return registry


def test_members_keep_registration_order_and_add_returns_the_item() -> None:
    registry: Registry[Item] = Registry("widget")
    first = Item("zeta")
    assert registry.add(first) is first
    registry.add(Item("alpha"))
    assert registry.names() == ("zeta", "alpha")
    assert [i.name for i in registry] == ["zeta", "alpha"]
    assert len(registry) == 2
    assert "alpha" in registry and "beta" not in registry
    assert registry.get("zeta") is first


def test_a_second_member_with_the_same_name_is_refused() -> None:
    registry = _registry("alpha")
    with pytest.raises(ValueError, match="widget 'alpha' is already registered"):
        registry.add(Item("alpha"))


@pytest.mark.parametrize("name", ["Alpha", "two words", "", "1st", "kebab-case"])
def test_names_must_be_snake_case_or_an_upper_case_id(name: str) -> None:
    with pytest.raises(ValueError, match="must be snake_case"):
        _registry(name)


def test_upper_case_ids_are_names_too() -> None:
    assert _registry("CMP101").names() == ("CMP101",)


def test_an_unknown_name_is_a_usage_error_with_the_nearest_name_and_the_listing() -> None:
    registry = _registry("extra_property", "wrong_type")
    with pytest.raises(UsageError) as raised:
        registry.get("extra_propery")
    assert str(raised.value) == ("unknown widget 'extra_propery' (did you mean extra_property?) "
                                 "(widgets --list shows them all)")
    assert raised.value.code == "usage.unknown_name"
    with pytest.raises(KeyError):
        registry["extra_propery"]


def test_select_keeps_registration_order_and_drops_ignored_names() -> None:
    registry = _registry("a_one", "b_two", "c_three")
    assert [i.name for i in registry.select()] == ["a_one", "b_two", "c_three"]
    assert [i.name for i in registry.select(["c_three", " a_one ", ""])] == ["a_one", "c_three"]
    assert [i.name for i in registry.select(ignore=["b_two"])] == ["a_one", "c_three"]
    assert registry.select(["a_one"], ["a_one"]) == ()


def test_select_names_the_option_that_held_the_unknown_name() -> None:
    registry = _registry("a_one", "b_two")
    with pytest.raises(UsageError, match=r"unknown widget 'b_tow' in --skip \(did you mean b_two\?\)"):
        registry.select(ignore=["b_tow"], ignore_option="--skip")
    with pytest.raises(UsageError, match=r"unknown widget 'zzz' in --select \(widgets"):
        registry.select(["zzz"])


def test_the_declaring_modules_are_imported_before_the_first_read(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "regdemo"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from harness.registry import Registry

        @dataclass(frozen=True)
        class Item:
            name: str

        ITEMS = Registry("widget", modules=("regdemo.first", "regdemo.second"))
        imported = []
    """))
    for module, names in (("first", ["one", "two"]), ("second", ["three"])):
        body = "".join(f"ITEMS.add(Item({n!r}))\n" for n in names)
        (package / f"{module}.py").write_text(
            f"from regdemo import ITEMS, Item, imported\nimported.append({module!r})\n{body}")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import regdemo  # type: ignore[import-not-found]

        assert regdemo.imported == []
        assert "2 modules to load" in repr(regdemo.ITEMS)
        assert regdemo.ITEMS.names() == ("one", "two", "three")
        assert regdemo.imported == ["first", "second"]
        regdemo.ITEMS.load()
        assert regdemo.imported == ["first", "second"]
    finally:
        for name in [m for m in sys.modules if m == "regdemo" or m.startswith("regdemo.")]:
            del sys.modules[name]


def test_a_key_function_names_members_without_a_name_attribute() -> None:
    registry: Registry[tuple[str, int]] = Registry("pair", key=lambda pair: pair[0])
    registry.add(("first_pair", 1))
    assert registry.get("first_pair") == ("first_pair", 1)
    nameless: Registry[object] = Registry("thing")
    with pytest.raises(TypeError, match="no str 'name'"):
        nameless.add(object())


def test_without_a_listing_command_an_unknown_name_lists_the_known_ones_with_the_catalogue_code() -> None:
    registry: Registry[Item] = Registry("operator", unknown_code="usage.invalid")
    for name in ("wrong_type", "enum_outside"):
        registry.add(Item(name))
    with pytest.raises(UsageError) as raised:
        registry.select(["wrong_typ"], select_option="--operator")
    assert str(raised.value) == ("unknown operator 'wrong_typ' in --operator (did you mean wrong_type?) "
                                 "(known: wrong_type, enum_outside)")
    assert raised.value.code == "usage.invalid"


@pytest.mark.parametrize(("catalogue", "modules"), [
    ("harness.mutations.registry:REGISTRY", "harness.mutations.structure"),
    ("harness.lint.registry:RULES", "harness.lint.rules.closure"),
])
def test_a_package_catalogue_is_full_on_first_read_with_nothing_imported_beforehand(catalogue: str,
                                                                                     modules: str) -> None:
    import subprocess

    module, _, name = catalogue.partition(":")
    code = (f"import sys\nfrom {module} import {name}\nassert {modules!r} not in sys.modules\n"
            f"print(len({name}.names()))\nassert {modules!r} in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10
