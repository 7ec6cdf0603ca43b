"""What the package imports is what it declares, and the formats both validators assert are pinned.

A module imported directly but installed only as another package's dependency works until that
package drops it; a validator upgrade that stops asserting a format turns a rejection into an
acceptance without a word. Both fail here instead.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from typing import Any

import pytest

from harness.boundary.validator import validator_for
from harness.differential.reference import ReferenceValidator
from tests.helpers.paths import REPO

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"

#: One value each format rejects. The keys are every format of the 2020-12 format vocabulary.
INVALID = {
    "date-time": "2026-11-01T12:00:00",  # no offset
    "date": "2026-13-01",
    "time": "25:00:00Z",
    "duration": "PT",
    "email": "not an email",
    "idn-email": "not an email",
    "hostname": "a..b",
    "idn-hostname": "a..b",
    "ipv4": "256.1.1.1",
    "ipv6": "1:::2",
    "uri": "not a uri",
    "uri-reference": "http://a b",
    "iri": "not an iri",
    "iri-reference": "http://a b",
    "uuid": "not-a-uuid",
    "uri-template": "{unclosed",
    "json-pointer": "no-slash",
    "relative-json-pointer": "/abs",
    "regex": "(",
}
#: Formats the production validator (jsonschema-rs) asserts: all of them.
PRODUCTION_FORMATS = frozenset(INVALID)
#: Formats the reference validator (python-jsonschema with the packages pyproject names) asserts
#: under 2020-12. iri and iri-reference need rfc3987-syntax, left out on purpose (pyproject says
#: why): the reference gives no verdict there, and a disagreement on them is the reference's gap.
REFERENCE_FORMATS = PRODUCTION_FORMATS - {"iri", "iri-reference"}
#: Draft-07 has no duration or uuid.
REFERENCE_FORMATS_DRAFT_07 = REFERENCE_FORMATS - {"duration", "uuid"}


def _schema(dialect: str, name: str) -> dict[str, Any]:
    return {"$schema": dialect, "type": "string", "format": name}


@pytest.mark.parametrize("name", sorted(PRODUCTION_FORMATS))
def test_the_production_validator_asserts_the_format(name: str) -> None:
    validator = validator_for(_schema(DRAFT_2020_12, name))
    assert not validator.is_valid(INVALID[name])
    assert validator.violations(INVALID[name])[0].keyword == "format"


@pytest.mark.parametrize("name", sorted(REFERENCE_FORMATS))
def test_the_reference_validator_asserts_the_format(name: str) -> None:
    assert not ReferenceValidator(_schema(DRAFT_2020_12, name)).is_valid(INVALID[name])


def test_the_reference_format_checkers_are_exactly_the_pinned_ones() -> None:
    import jsonschema

    checkers = {
        DRAFT_2020_12: set(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers),
        DRAFT_07: set(jsonschema.Draft7Validator.FORMAT_CHECKER.checkers),
    }
    assert checkers[DRAFT_2020_12] == REFERENCE_FORMATS
    assert checkers[DRAFT_07] == REFERENCE_FORMATS_DRAFT_07
    for name in sorted(PRODUCTION_FORMATS - REFERENCE_FORMATS):  # the reference's known gap: no verdict
        assert ReferenceValidator(_schema(DRAFT_2020_12, name)).is_valid(INVALID[name])


# --------------------------------------------------------------------------- declared imports


def _imported_distributions() -> dict[str, set[str]]:
    """Third-party distributions the package imports, each with the modules importing it."""
    provides = importlib.metadata.packages_distributions()
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "harness").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "harness" or top in sys.stdlib_module_names:
                    continue
                for distribution in provides.get(top, [f"<no distribution provides {top}>"]):
                    found.setdefault(_normal(distribution), set()).add(str(path.relative_to(REPO)))
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_third_party_module_the_package_imports_is_a_declared_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    def names(specs: list[str]) -> set[str]:
        return {_normal(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in specs}

    declared = names(project["dependencies"])
    optional = names(project["optional-dependencies"]["xdist"])
    imported = _imported_distributions()
    assert {"jsonschema-rs", "jsonschema", "referencing", "anyio", "pyyaml"} <= set(imported)
    undeclared = {name: sorted(where)[:3] for name, where in imported.items() if name not in declared | optional}
    assert undeclared == {}
    # The optional one is imported by the adapter alone, inside the function the plugin's opt-in
    # scheduling calls (loaded only from xdist's hook).
    assert {name: sorted(where) for name, where in imported.items() if name in optional} == {
        "pytest-xdist": ["harness/internals.py"]}
