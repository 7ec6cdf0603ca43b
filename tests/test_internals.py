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
