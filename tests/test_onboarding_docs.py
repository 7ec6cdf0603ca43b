"""docs/onboarding.md documents every error code onboarding raises."""

from __future__ import annotations

import re

from tests.helpers.paths import REPO


def test_every_onboarding_error_code_is_in_the_docs_table() -> None:
    source = "\n".join(p.read_text() for p in sorted((REPO / "harness/onboarding").glob("*.py")))
    raised = set(re.findall(r'code="((?:init|import)\.[a-z_]+)"', source))
    raised |= {f"{what}.{reason}" for what in ("init", "import")
               for reason in re.findall(r'code=f"\{what\}\.([a-z_]+)"', source)}
    doc = (REPO / "docs/onboarding.md").read_text()
    assert raised, "no codes found: the pattern no longer matches the source"
    missing = sorted(code for code in raised if f"`{code}`" not in doc)
    assert not missing, f"undocumented error codes: {missing}"
