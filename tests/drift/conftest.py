"""Drift tests: a real sandbox on loopback, real subprocesses, real MCP servers over stdio."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.contract import discover, load_contract
from harness.drift.check import DriftCheck
from harness.drift.runner import DriftRunner, Plan, plan
from harness.events import Summary

#: Short enough to keep the suite fast, long enough for a loaded CI machine to answer.
HTTP_TIMEOUT_S = 3.0
MCP_TIMEOUT_S = 3.0
MCP_STARTUP_S = 30.0


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Any]:
    """The HTTP sandbox, in a thread, on an ephemeral loopback port; torn down at the end."""
    from harness.sandbox.http import serving

    with serving(port=0) as server:
        yield server


def sandbox_env(server: Any, profile: str) -> dict[str, str]:
    return {
        "HARNESS_SANDBOX_URL": f"{server.url}/_profile/{profile}",
        "HARNESS_SANDBOX_PROFILE": profile,
    }


def shorten_timeouts(contract_file: Path) -> None:
    data = yaml.safe_load(contract_file.read_text())
    for entry in data.get("upstreams", {}).values():
        if "http" in entry:
            entry["http"]["timeout_s"] = HTTP_TIMEOUT_S
        if "mcp" in entry:
            entry["mcp"]["timeout_s"] = MCP_TIMEOUT_S
            entry["mcp"]["startup_timeout_s"] = MCP_STARTUP_S
            entry["mcp"]["args"] = [*entry["mcp"]["args"], "--huge-bytes", "4000000"]
    contract_file.write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.fixture
def project(tmp_path: Path, demo_root: Path) -> Path:
    """A copy of the demo project (contracts, fixtures, recorded baselines) with short timeouts."""
    for part in ("contracts", "fixtures"):
        shutil.copytree(demo_root / part, tmp_path / part)
    for file in (tmp_path / "contracts").glob("*/contract.yaml"):
        shorten_timeouts(file)
    return tmp_path


DriftRun = Callable[..., tuple[dict[str, DriftCheck], Summary, Plan]]


@pytest.fixture
def drift() -> DriftRun:
    """Run drift on a project: returns the checks by id, the summary and the plan."""

    def run(
        root: Path,
        environ: Mapping[str, str],
        *,
        tools: list[str] | None = None,
        upstreams: list[str] | None = None,
        record: bool = False,
    ) -> tuple[dict[str, DriftCheck], Summary, Plan]:
        contracts = [load_contract(d) for d in discover([root])]
        if tools:
            contracts = [c for c in contracts if c.tool in tools]
        drift_plan = plan(contracts, upstreams=upstreams, environ=environ)
        checks, summary = DriftRunner(drift_plan, record=record).run()
        return {c.id: c for c in checks}, summary, drift_plan

    return run


def item_contract(make_contract: Callable[..., Path], upstreams: Mapping[str, Any], *, max_bytes: int = 4096) -> Path:
    """The item_status contract of tests/helpers/contracts.py with a byte cap and these upstreams; the
    project root."""
    from tests.helpers.contracts import DEFAULT_YAML, envelope_schema

    text = DEFAULT_YAML.format(tool="item_status") + yaml.safe_dump(
        {"limits": {"max_bytes": max_bytes}, "upstreams": dict(upstreams)}, sort_keys=False
    )
    return make_contract(yaml_text=text, schemas={1: envelope_schema("item_status")}).parent.parent
