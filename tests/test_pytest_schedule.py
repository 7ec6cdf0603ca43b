"""Under ``pytest -n`` (xdist's default ``--dist load``) with ``--contract-scheduling``, the plugin's
scheduling: long units first, one at a time per worker; the items sharing one computation given
to one worker together. Without the option, xdist schedules.

The runs are real pytest sessions with real xdist workers, in subprocesses (pytester)."""

from __future__ import annotations

import re
import shutil
from collections import defaultdict

import pytest

from harness.pytest_options import ItemKey
from harness.pytest_schedule import plan, unit_of

pytest_plugins = ["pytester"]

FILE = "contracts/deployment_status/contract.yaml"


def _unit(nodeid: str, *, fuzz_by_contract: bool = True) -> str | None:
    return unit_of(ItemKey.from_nodeid(nodeid), fuzz_by_contract=fuzz_by_contract)


def test_a_compat_pair_a_drift_upstream_and_in_ci_a_contracts_fuzz_items_are_each_one_unit() -> None:
    assert _unit(f"{FILE}::compat-v1-v2::policy") == _unit(f"{FILE}::compat-v1-v2::replay", fuzz_by_contract=False)
    assert _unit(f"{FILE}::compat-v1-v2::policy") != _unit(f"{FILE}::compat-v2-v3::policy")
    assert _unit(f"{FILE}::drift::sandbox[staging]") == _unit(f"{FILE}::drift::sandbox[outputSchema]")
    assert _unit(f"{FILE}::drift::sandbox[staging]") != _unit(f"{FILE}::drift::live[staging]")
    assert _unit(f"{FILE}::fuzz::accepts_valid") == _unit(f"{FILE}::fuzz::rejects_near_misses")
    assert _unit(f"{FILE}::fuzz::accepts_valid", fuzz_by_contract=False) == f"{FILE}::fuzz::accepts_valid"  # alone
    assert None not in {_unit(f"{FILE}::compat-v1-v2::policy"), _unit(f"{FILE}::drift::sandbox[staging]"),
                        _unit(f"{FILE}::fuzz::accepts_valid")}
    for alone in (f"{FILE}::mutation::wrong_type@/state[healthy]", f"{FILE}::lint", f"{FILE}::accepted::healthy",
                  "tests/test_x.py::test_compat-v1-v2::policy", "contract.yaml.bak::fuzz::x",
                  f"{FILE}::drift::sandbox", f"{FILE}::versions-2"):
        assert _unit(alone) is None, alone


def test_every_collected_item_carries_the_key_its_node_id_is_read_back_as(  # type: ignore[no-untyped-def]
        two_tools, monkeypatch: pytest.MonkeyPatch) -> None:
    # The xdist controller knows items by their ids alone: what the scheduling reads from an id
    # is the key the item was made from. (Collecting drift items sends nothing.)
    monkeypatch.setenv("HARNESS_SANDBOX_URL", "http://127.0.0.1:9")
    items, _ = two_tools.inline_genitems("--drift", "-p", "no:randomly")
    contract_items = [item for item in items if hasattr(item, "key")]
    assert len(contract_items) == len(items) > 100
    assert {item.key.kind for item in contract_items} >= {"accepted", "mutation", "lint", "compat", "drift", "fuzz"}
    for item in contract_items:
        assert item.key.nodeid == item.nodeid
        assert ItemKey.from_nodeid(item.nodeid) == item.key, item.nodeid


def test_the_plan_gives_out_the_heaviest_units_first_and_keeps_the_short_items_in_order() -> None:
    other = "contracts/job_status/contract.yaml"
    collection = [f"{FILE}::accepted::a", f"{FILE}::lint", f"{FILE}::compat-v1-v2::policy",
                  f"{FILE}::compat-v1-v2::classifier", f"{FILE}::fuzz::accepts_valid",
                  f"{FILE}::fuzz::rejects_near_misses", f"{other}::accepted::b", f"{other}::fuzz::accepts_valid",
                  "tests/test_mine.py::test_it"]
    units, short = plan(collection, fuzz_by_contract=True)
    assert units == [(4, 5), (2, 3), (7,)]  # weights 4 (1 + 3), 1 (one comparison), 1: ties in order
    assert short == [0, 1, 6, 8]
    units, short = plan(collection, fuzz_by_contract=False)
    assert units == [(5,), (2, 3), (4,), (7,)]  # nightly: each fuzz item alone
    assert short == [0, 1, 6, 8]


@pytest.fixture
def two_tools(pytester: pytest.Pytester, demo_root):  # type: ignore[no-untyped-def]
    """The demo's deployment and review tools, few fuzz examples."""
    for part in ("contracts", "fixtures"):
        shutil.copytree(demo_root / part, pytester.path / part)
    shutil.rmtree(pytester.path / "contracts" / "job_status")
    for kind in ("accepted", "rejected", "historical"):
        shutil.rmtree(pytester.path / "fixtures" / kind / "job_status", ignore_errors=True)
    pytester.makeini("[pytest]\ncontract_harness_fuzz_examples = 5\n")
    return pytester


_RAN = re.compile(r"^\[(gw\d+)\] .*?(PASSED|FAILED|ERROR|SKIPPED) (\S+)")


def _workers(result: pytest.RunResult) -> dict[str, str]:
    """Each item's worker, from ``-v`` output."""
    ran = {}
    for line in result.stdout.lines:
        found = _RAN.match(line)
        if found:
            assert found[3] not in ran, f"{found[3]} ran twice"
            ran[found[3]] = found[1]
    return ran


def _by_group(ran: dict[str, str], marker: str) -> dict[str, set[str]]:
    groups: dict[str, set[str]] = defaultdict(set)
    for nodeid, worker in ran.items():
        if marker in nodeid:
            groups[nodeid.split(marker)[0]].add(worker)
    return groups


def test_under_xdist_every_item_runs_once_and_shared_work_stays_in_one_worker(two_tools) -> None:  # type: ignore[no-untyped-def]
    result = two_tools.runpytest_subprocess("-n", "2", "-v", "-p", "no:randomly", "--contract-scheduling",
                                            timeout=300)
    ran = _workers(result)
    collected = two_tools.runpytest_subprocess("--co", "-q").stdout.lines
    assert len(ran) == sum(1 for line in collected if "::" in line) > 100
    assert set(ran.values()) == {"gw0", "gw1"}
    assert all(status == "PASSED" for status in re.findall(r"(PASSED|FAILED|ERROR)", result.stdout.str()))
    pairs = _by_group(ran, "::compat-v1-v2::")
    fuzz = _by_group(ran, "::fuzz::")
    assert pairs and all(len(workers) == 1 for workers in pairs.values()), pairs
    assert len(fuzz) == 2 and all(len(workers) == 1 for workers in fuzz.values()), fuzz  # ci: by contract


@pytest.mark.parametrize("selection", [["-k", "fuzz"], ["-k", "compat"], ["-k", "fuzz or compat"]],
                         ids=["fuzz only", "compat only", "no short items"])
@pytest.mark.parametrize("profile", ["ci", "nightly"])
def test_a_run_of_long_units_only_ends(two_tools, selection: list[str], profile: str) -> None:  # type: ignore[no-untyped-def]
    # An xdist worker runs an item only once it holds the next: with no short item to follow a
    # unit, the scheduler must send the next unit or the end, not leave the worker waiting.
    result = two_tools.runpytest_subprocess("-n", "2", "-v", "--contract-scheduling", "--fuzz-profile", profile,
                                            *selection, timeout=300)
    ran = _workers(result)
    assert ran and result.ret == 0, result.stdout.str()[-2000:]
    assert all(any(word in nodeid for word in ("fuzz", "compat")) for nodeid in ran)


def test_the_plugin_schedules_only_when_asked_and_only_the_default_dist_mode(two_tools) -> None:  # type: ignore[no-untyped-def]
    from harness.pytest_plugin import pytest_xdist_make_scheduler
    from harness.pytest_schedule import ContractScheduling

    def config(*args: str) -> pytest.Config:
        # What xdist's cmdline_main makes of -n 2 (parseconfigure does not run it): two popen
        # nodes, and --dist load unless another mode is asked for.
        made = two_tools.parseconfigure(*args)
        made.option.tx = ["popen", "popen"]
        if made.option.dist == "no":
            made.option.dist = "load"
        return made

    assert pytest_xdist_make_scheduler(config("-n", "2"), None) is None  # xdist's own, by default
    found = pytest_xdist_make_scheduler(config("-n", "2", "--contract-scheduling"), None)
    assert isinstance(found, ContractScheduling) and found.fuzz_by_contract
    nightly = pytest_xdist_make_scheduler(config("-n", "2", "--contract-scheduling", "--fuzz-profile", "nightly"), None)
    assert isinstance(nightly, ContractScheduling) and not nightly.fuzz_by_contract
    two_tools.makeini("[pytest]\ncontract_harness_fuzz_examples = 5\ncontract_harness_scheduling = true\n")
    assert isinstance(pytest_xdist_make_scheduler(config("-n", "2"), None), ContractScheduling)
    for dist in ("loadfile", "loadscope", "loadgroup", "worksteal", "each"):
        assert pytest_xdist_make_scheduler(config("-n", "2", "--dist", dist), None) is None
