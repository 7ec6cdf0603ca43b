from __future__ import annotations

from harness import docgen


def test_reference_pages_are_generated_from_the_registries() -> None:
    assert docgen.main(["--check"]) == 0, "docs/reference is stale: run python -m harness.docgen"


def test_every_code_appears_in_the_codes_page() -> None:
    from harness.codes import CATALOGUE

    page = docgen.codes_page()
    assert all(f"`{code}`" in page for code in CATALOGUE)
