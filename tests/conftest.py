"""The suite's fixtures and hooks: slow tests opt-in, the hypothesis profile, the demo project and
throwaway contracts. Helpers that are not fixtures live in tests/helpers/ (tests/README.md)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.helpers.cli import run_cli
from tests.helpers.contracts import write_contract

#: The suite's hypothesis profile: the same examples on every run and machine (a failure found
#: once is found again), no example database to carry state between runs, no deadline (a shared
#: CI machine is slow at times, and a timing is a benchmark's to measure). ``dev`` draws fresh
#: examples each run, for looking further; choose one with ``--hypothesis-profile`` or
#: ``HYPOTHESIS_PROFILE``. A test's own ``@settings`` overrides what it names.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (the nightly fuzz profile, long runs)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow") or os.environ.get("HARNESS_RUN_SLOW"):
        return
    # Deselected rather than skipped: they are not failing or missing anything, only opt-in
    # (the nightly fuzz profile; CI runs it nightly). The count shows in pytest's summary line.
    slow = [test for test in items if "slow" in test.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [test for test in items if "slow" not in test.keywords]


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("--run-slow") or os.environ.get("HARNESS_RUN_SLOW"):
        return None
    return "tests marked slow are deselected: run them with --run-slow (or HARNESS_RUN_SLOW=1)"


@pytest.fixture(scope="session", autouse=True)
def state_key_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The key saved state is sealed with (harness.state) made in a folder of the test session,
    not in the user's home: every run of the suite, and every subprocess it starts, shares it."""
    home = tmp_path_factory.mktemp("xdg-state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(home))
        patch.delenv("CONTRACT_HARNESS_STATE_KEY", raising=False)
        yield home


@pytest.fixture(scope="session")
def demo_root() -> Path:
    from harness.contract import demo_root as root

    return root()


@pytest.fixture(scope="session")
def demo(demo_root: Path) -> Callable[[str], Any]:
    from harness import load_contract

    cache: dict[str, Any] = {}

    def get(tool: str) -> Any:
        if tool not in cache:
            cache[tool] = load_contract(demo_root / "contracts" / tool)
        return cache[tool]

    return get


@pytest.fixture
def make_contract(tmp_path: Path) -> Callable[..., Path]:
    """Write a throwaway project in ``tmp_path``: contracts/<tool>/contract.yaml + schemas/v<N>.json
    (:func:`tests.helpers.contracts.write_contract`)."""

    def make(
        tool: str = "item_status",
        yaml_text: str | None = None,
        schemas: dict[int, Any] | None = None,
        files: dict[str, str | bytes] | None = None,
    ) -> Path:
        return write_contract(tmp_path, tool, yaml_text, schemas, files)

    return make


@pytest.fixture
def init_project(tmp_path: Path) -> Path:
    """A project as ``contract-harness init weather_lookup`` makes it."""
    root = tmp_path / "project"
    root.mkdir()
    code, out, err = run_cli(root, "init", "weather_lookup")
    assert code == 0, out + err
    return root
