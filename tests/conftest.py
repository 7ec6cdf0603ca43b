"""Shared test fixtures: the shared corpora, the demo project, and throwaway contracts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HARNESS_SHARED", REPO.parent / "shared")).resolve()
CORPORA = SHARED / "corpora"


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


def corpus(name: str) -> Path:
    """Path of a shared corpus; the calling test is skipped, with the reason, where absent."""
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"shared corpus {name!r} not found at {path} (set HARNESS_SHARED to its parent)")
    return path


def corpus_files(name: str, pattern: str) -> list[Path]:
    """The corpus files matching ``pattern``; [] where the corpus is absent."""
    path = CORPORA / name
    return sorted(path.glob(pattern)) if path.is_dir() else []


def absent_corpus(name: str, arity: int = 1) -> list[Any]:
    """For parametrize where the corpus is absent: one skipped case carrying the reason (an
    empty parameter set would vanish as "got empty parameter set" instead)."""
    reason = f"shared corpus {name!r} not found at {CORPORA / name} (set HARNESS_SHARED to its parent)"
    values = (None,) * arity
    return [pytest.param(*values, marks=pytest.mark.skip(reason=reason), id=f"{name}-absent")]


def corpus_params(name: str, pattern: str) -> list[Any]:
    """For parametrize at collection time: the corpus files, or one case that skips with the
    reason where the corpus is absent."""
    return corpus_files(name, pattern) if (CORPORA / name).is_dir() else absent_corpus(name)


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


ENVELOPE_DATA = {
    "type": "object",
    "required": ["item_id", "status"],
    "properties": {
        "item_id": {"type": "string", "pattern": "^it-[0-9]{1,6}$", "maxLength": 9},
        "status": {"enum": ["open", "closed"]},
        "note": {"type": "string", "maxLength": 20},
    },
    "additionalProperties": False,
}


def envelope_schema(tool: str, data_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    rid = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.]{7,63}$", "maxLength": 64}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "oneOf": [
            {
                "type": "object",
                "required": ["tool", "request_id", "outcome", "data"],
                "properties": {
                    "tool": {"const": tool},
                    "request_id": rid,
                    "outcome": {"const": "success"},
                    "data": data_schema or ENVELOPE_DATA,
                },
                "additionalProperties": False,
            },
            {
                "type": "object",
                "required": ["tool", "request_id", "outcome", "error"],
                "properties": {
                    "tool": {"const": tool},
                    "request_id": rid,
                    "outcome": {"const": "failure"},
                    "error": {
                        "type": "object",
                        "required": ["code", "retryable"],
                        "properties": {
                            "code": {"enum": ["NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE"]},
                            "retryable": {"type": "boolean"},
                        },
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
        ],
    }


DEFAULT_YAML = """\
tool: {tool}
version: 1
request:
  schema: {{type: object, properties: {{item_id: {{type: string}}}}}}
  example: {{item_id: it-7}}
bindings:
  - {{name: item_id, result: /data/item_id, request: /args/item_id}}
agent_view:
  item_id: /data/item_id
  status: /data/status
"""


@pytest.fixture
def make_contract(tmp_path: Path) -> Callable[..., Path]:
    """Write a throwaway project: contracts/<tool>/contract.yaml + schemas/v<N>.json."""

    def make(
        tool: str = "item_status",
        yaml_text: str | None = None,
        schemas: dict[int, Any] | None = None,
        files: dict[str, str | bytes] | None = None,
    ) -> Path:
        directory = tmp_path / "contracts" / tool
        (directory / "schemas").mkdir(parents=True, exist_ok=True)
        text = DEFAULT_YAML.format(tool=tool) if yaml_text is None else textwrap.dedent(yaml_text)
        (directory / "contract.yaml").write_text(text)
        for version, schema in (schemas or {1: envelope_schema(tool)}).items():
            (directory / "schemas" / f"v{version}.json").write_text(json.dumps(schema, indent=1))
        for rel, content in (files or {}).items():
            target = tmp_path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        return directory

    return make


def item(tool: str = "item_status", **data: Any) -> bytes:
    body = {"item_id": "it-7", "status": "open", **data}
    return json.dumps(
        {"tool": tool, "request_id": "req.J7q94MkP", "outcome": "success", "data": body}
    ).encode()


def run_cli(cwd: Path, *argv: str, timeout: float = 300, **env: str) -> tuple[int, str, str]:
    """``contract-harness ARGV`` — or ``pytest`` when ARGV starts with it — in a subprocess in
    ``cwd``: exit code, stdout, stderr. ``env``: variables added to this process's environment
    (hypothesis's storage and PYTEST_ADDOPTS are left out: the run chooses its own)."""
    if argv[0] == "pytest":
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv[1:]]
    else:
        command = [sys.executable, "-m", "harness.cli", *argv]
    environ = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_STORAGE_DIRECTORY", "PYTEST_ADDOPTS")}
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**environ, **env})
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def init_project(tmp_path: Path) -> Path:
    """A project as ``contract-harness init weather_lookup`` makes it."""
    root = tmp_path / "project"
    root.mkdir()
    code, out, err = run_cli(root, "init", "weather_lookup")
    assert code == 0, out + err
    return root
