"""``check --jobs N`` and ``fuzz --jobs N``: the contracts run in N forked processes, the reports
those of one job.

Each run is the real CLI in a subprocess of its own (a forked pool inside pytest's own process,
or inside an xdist worker with its threads, is not what a user runs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.parallel import can_fork, usable_cpus

pytestmark = pytest.mark.skipif(not can_fork(), reason="--jobs forks its workers; this platform cannot fork")

#: What differs between two runs of the same cases: timings and the report's own timestamp.
TIMINGS = {"duration_s", "generated_at"}


def _check(cwd: Path, *args: str, command: str = "check") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", command, "--no-progress", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _project(root: Path, *tools: str) -> Path:
    root.mkdir()
    for tool in tools:
        assert main(["init", tool, "--into", str(root)]) == 0
        (root / "contracts" / tool / "schemas.lock").unlink()  # v1 a draft the tests edit (no git here)
    return root


@pytest.mark.parametrize(("selection", "tools"), [
    ([], 3),  # the demo: three contracts, split among the workers
    (["--tool", "job_status", "--tool", "review_status", "--source", "accepted", "--source", "mutation",
      "--operator", "wrong_type", "--operator", "remove_member", "--max-mutants", "5"], 2),
], ids=["all", "selected"])
def test_jobs_report_exactly_what_one_job_reports(tmp_path: Path, selection: list[str], tools: int) -> None:
    reports = {}
    for jobs in ("1", "2"):
        report = tmp_path / f"report-{jobs}.json"
        junit = tmp_path / f"report-{jobs}.xml"
        cwd = tmp_path / f"run-{jobs}"  # each its own state folder: neither takes the other's saved verdicts
        cwd.mkdir()
        done = _check(cwd, "--demo", *selection, "--jobs", jobs, "--json", str(report), "--junit", str(junit),
                      "--cases-dir", str(tmp_path / f"cases-{jobs}"))
        assert done.returncode == 0, done.stderr
        reports[jobs] = json.loads(report.read_text())
        assert done.stdout.strip().splitlines()[-1].startswith(f"all {reports[jobs]['summary']['total']} cases held")
    one, two = reports["1"], reports["2"]
    assert len({c["tool"] for c in one["cases"]}) == tools
    assert _untimed(two) == _untimed(one)  # same cases, same order, same verdicts, notes and counts
    assert one["summary"]["differential"]["compared"] > 0


def test_a_failing_case_run_by_a_worker_is_reported_and_reproducible(tmp_path: Path) -> None:
    project = _project(tmp_path / "repo", "order_status", "ticket_lookup")
    fixture = project / "fixtures" / "accepted" / "order_status" / "ok.json"
    document = json.loads(fixture.read_text())
    document["surprise"] = True  # the closed envelope refuses it: the accepted fixture fails
    fixture.write_text(json.dumps(document))
    found = {}
    for jobs in ("1", "2"):
        cases = tmp_path / f"cases-{jobs}"
        done = _check(project / "contracts", "--jobs", jobs, "--cases-dir", str(cases))
        assert done.returncode == 1, done.stderr
        assert "order_status::accepted::ok" in done.stdout
        assert "schema.additionalProperties" in done.stdout
        found[jobs] = sorted(p.relative_to(cases).as_posix() for p in cases.rglob("*.json"))
    assert found["2"] == found["1"] and found["1"]  # the reproduction written, by the same name
    [payload] = [p for p in found["2"] if not p.endswith(".request.json")]
    assert json.loads((tmp_path / "cases-2" / payload).read_bytes())["surprise"] is True


def test_a_worker_error_is_the_runs_one_line_error(tmp_path: Path) -> None:
    project = _project(tmp_path / "repo", "order_status", "ticket_lookup")
    sidecar = project / "fixtures" / "accepted" / "ticket_lookup" / "ok.case.yaml"
    sidecar.write_text("expect: {accept: true}\nexpect: {accept: false}\n")  # a duplicate key
    one, two = _check(project, "--jobs", "1"), _check(project, "--jobs", "2")
    assert two.returncode == one.returncode == 2
    [line] = two.stderr.strip().splitlines()
    assert line == one.stderr.strip().splitlines()[-1]
    assert line.startswith("contract-harness: error: ") and "ok.case.yaml" in line
    assert "Traceback" not in two.stderr


@pytest.mark.parametrize("selection", [[], ["--tool", "order_status", "--tool", "ticket_lookup"]],
                         ids=["all", "the bad one left out"])
def test_a_contract_a_worker_cannot_load_is_the_runs_error_as_in_one_job(tmp_path: Path,
                                                                        selection: list[str]) -> None:
    # The workers load the contracts; one job loads every one first, also those --tool leaves out.
    project = _project(tmp_path / "repo", "order_status", "ticket_lookup", "zone_list")
    contract = project / "contracts" / "zone_list" / "contract.yaml"
    contract.write_text(contract.read_text().replace("version: 1", "versoin: 1"))
    report = project / "report.json"
    one, two = (_check(project, "--jobs", jobs, "--json", str(report), *selection) for jobs in ("1", "2"))
    assert two.returncode == one.returncode == 2
    [line] = two.stderr.strip().splitlines()
    assert line == one.stderr.strip().splitlines()[-1]
    assert line.startswith("contract-harness: error: contract.invalid: contracts/zone_list/contract.yaml:")
    assert "unknown key 'versoin' (did you mean 'version'?)" in line
    assert not report.exists() and two.stdout == ""


@pytest.mark.parametrize(("command", "args", "message"), [
    ("check", ["--jobs", "0"], "--jobs '0' must be at least 1"),
    ("check", ["--jobs", "many"], "--jobs 'many' must be a number of processes or 'auto'"),
    ("check", ["--jobs", "2", "--shard", "1/2"], "--jobs 2 and --shard 1/2: a shard runs in one process"),
    ("fuzz", ["--jobs", "-3"], "--jobs '-3' must be at least 1"),
])
def test_a_bad_jobs_option_is_a_usage_error(tmp_path: Path, command: str, args: list[str], message: str) -> None:
    done = _check(tmp_path, "--demo", *args, command=command)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_auto_runs_one_job_per_cpu(tmp_path: Path) -> None:
    done = _check(tmp_path, "--demo", "--jobs", "auto", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["failed"] == 0


#: Run in a child: the CLI's ``main`` with the argv given, then whether a process pool was made.
_POOLED = ("import contextlib, io, json, sys\nfrom harness.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()):\n    code = main(json.loads(sys.argv[1]))\n"
           "print(json.dumps([code, 'concurrent.futures.process' in sys.modules]))")


def _pooled(cwd: Path, command: str, *args: str) -> tuple[int, bool]:
    argv = [command, "--no-progress", *args]
    done = subprocess.run([sys.executable, "-c", _POOLED, json.dumps(argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.stdout.strip(), done.stderr
    code, pooled = json.loads(done.stdout.strip().splitlines()[-1])
    return code, pooled


def test_without_jobs_check_and_fuzz_use_every_cpu_and_report_what_one_job_does(tmp_path: Path) -> None:
    cpus = usable_cpus()
    reports = {}
    for name, jobs in (("default", []), ("one", ["--jobs", "1"])):
        cwd = tmp_path / name
        cwd.mkdir()
        report = cwd / "report.json"
        assert _pooled(cwd, "check", "--demo", "--json", str(report), *jobs) == (0, bool(jobs) is False and cpus > 1)
        reports[name] = _untimed(json.loads(report.read_text()))
    assert reports["default"] == reports["one"]
    code, pooled = _pooled(tmp_path / "default", "fuzz", "--demo", "--profile", "ci", "--examples", "5")
    assert (code, pooled) == (0, cpus > 1)


def test_without_jobs_a_shard_or_a_single_contract_runs_in_one_job_quietly(tmp_path: Path) -> None:
    assert _pooled(tmp_path, "check", "--demo", "--shard", "1/2") == (0, False)
    done = _check(tmp_path, "--demo", "--shard", "2/2")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    project = _project(tmp_path / "repo", "order_status")
    assert _pooled(project, "check") == (0, False)  # one contract: nothing to share out
    assert _pooled(project, "fuzz", "--examples", "5") == (0, False)


# --------------------------------------------------------------------------- fuzz


def test_fuzz_jobs_draw_and_report_exactly_what_one_job_does(tmp_path: Path) -> None:
    """Each tool's properties run together in one worker, in order (a subject's strategies keep
    state from one property to the next): the same examples, outcomes and statistics."""
    reports = {}
    for jobs in ("1", "2"):
        where = tmp_path / f"run-{jobs}"  # each its own .contract-harness/ (no replay between them)
        where.mkdir()
        done = _check(where, "--demo", "--jobs", jobs, "--json", "r.json", command="fuzz")
        assert done.returncode == 0, done.stderr
        reports[jobs] = json.loads((where / "r.json").read_text())
    one, two = reports["1"], reports["2"]
    assert len(one["fuzz"]["tools"]) == 3 and one["summary"]["total"] == 13
    assert _untimed(two) == _untimed(one)


def test_a_fuzz_finding_in_a_worker_is_shrunk_written_and_reported(tmp_path: Path) -> None:
    project = _project(tmp_path / "repo", "order_status", "ticket_lookup")
    schema = project / "contracts" / "order_status" / "schemas" / "v1.json"
    document = json.loads(schema.read_text())
    document["$defs"]["data"]["additionalProperties"] = True  # open: a near miss gets through
    schema.write_text(json.dumps(document))
    found = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        done = _check(project, "--jobs", jobs, "--regenerate", "--fixtures-out", str(out), "--json",
                      str(tmp_path / f"r-{jobs}.json"), command="fuzz")
        assert done.returncode == 1, done.stderr
        assert "order_status::fuzz::rejects_near_misses" in done.stdout and "contract-harness fuzz" in done.stdout
        found[jobs] = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
        report = json.loads((tmp_path / f"r-{jobs}.json").read_text())
        for tool in report["fuzz"]["tools"].values():
            for outcome in tool["properties"].values():
                outcome["fixture"] = outcome["fixture"] and Path(outcome["fixture"]).name
        for case in report["cases"]:
            case["fixture"] = case["fixture"] and Path(case["fixture"]).name
        found[f"report-{jobs}"] = _untimed(report)
    assert found["1"] == found["2"] and found["1"]  # the shrunk example's fixture, by the same name
    assert found["report-1"] == found["report-2"]


def test_a_worker_that_dies_ends_the_run_with_an_error_not_a_hang(tmp_path: Path) -> None:
    """A connector's adapter that takes its process down (a crash in native code, the OOM
    killer): the run stops with one line naming what happened, instead of waiting for ever."""
    project = _project(tmp_path / "repo", "order_status", "ticket_lookup")
    (project / "crashing.py").write_text(
        "import multiprocessing, os, signal\n\n\n"
        "def adapt(document, request):\n"
        "    if multiprocessing.parent_process() is not None:  # only in a --jobs worker\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return document\n")
    contract = project / "contracts" / "order_status" / "contract.yaml"
    contract.write_text(contract.read_text() + "adapter: crashing:adapt\n")
    alone = _check(project, "--jobs", "1")
    assert "job.worker_lost" not in alone.stderr and "Traceback" not in alone.stderr
    done = _check(project, "--jobs", "2")  # the helper's timeout fails the test if it hangs
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("contract-harness: error: job.worker_lost: a worker process ended before it sent")


def test_a_result_pickles_whole_as_the_workers_send_it(tmp_path: Path) -> None:
    import dataclasses
    import pickle

    from harness.cases import CaseExpectation
    from harness.codes import Layer
    from harness.events import CaseResult

    expected = CaseExpectation(False, (Layer.SCHEMA, Layer.BINDING), "schema.type", "/a", "/properties/a", True)
    values = {f.name: f"{f.name}-value" for f in dataclasses.fields(CaseResult)}
    values.update(expected=expected, layer=Layer.SCHEMA, version=3, request={"args": {"id": 1}}, duration_s=0.5,
                  payload=b"\x00raw", now=None)
    result = CaseResult(**values)
    back = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    # Every field, whatever fields are added later, comes back (payload included: it is not compared).
    assert all(getattr(back, f.name) == getattr(result, f.name) for f in dataclasses.fields(CaseResult))
    assert back.expected == expected and type(back.expected) is CaseExpectation


# --------------------------------------------------------------------------- auto: the CPUs usable


def _cgroups(tmp_path: Path, membership: str, files: dict[str, str]) -> int | None:
    """``cgroup_cpus`` on a cgroup tree of our own: ``membership`` as /proc/self/cgroup reads,
    ``files`` (path under the mount -> content) as the kernel shows them."""
    from harness.parallel import cgroup_cpus

    mount = tmp_path / "cgroup"
    for name, text in files.items():
        (mount / name).parent.mkdir(parents=True, exist_ok=True)
        (mount / name).write_text(text)
    (tmp_path / "proc-cgroup").write_text(membership)
    return cgroup_cpus(tmp_path / "proc-cgroup", mount)


@pytest.mark.parametrize(("membership", "files", "cpus"), [
    # cgroup v2: `docker run --cpus 2`, 1.5 CPUs (rounded up), no quota.
    ("0::/\n", {"cpu.max": "200000 100000\n"}, 2),
    ("0::/\n", {"cpu.max": "150000 100000\n"}, 2),
    ("0::/\n", {"cpu.max": "max 100000\n"}, None),
    # v2, a nested cgroup: the tightest quota on the way up to the mount holds.
    ("0::/ci/job\n", {"ci/cpu.max": "100000 100000\n", "ci/job/cpu.max": "400000 100000\n"}, 1),
    # cgroup v1 (the cpu controller, alone or with cpuacct), with and without a quota.
    ("4:memory:/x\n2:cpu,cpuacct:/\n", {"cpu,cpuacct/cpu.cfs_quota_us": "300000\n",
                                         "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 3),
    ("1:cpu:/\n", {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    # The cgroup named is the host's (no cgroup namespace): not under the mount; its root holds.
    ("0::/system.slice/docker-1.scope\n", {"cpu.max": "100000 100000\n"}, 1),
    # Nothing readable, or nonsense: no quota known.
    ("0::/\n", {}, None),
    ("0::/\n", {"cpu.max": "lots\n"}, None),
    ("garbage\n", {"cpu.max": "100000 100000\n"}, None),
])
def test_auto_takes_the_cgroup_cpu_quota_into_account(tmp_path: Path, membership: str, files: dict[str, str],
                                                      cpus: int | None) -> None:
    assert _cgroups(tmp_path, membership, files) == cpus


def test_auto_is_at_most_the_affinity_and_at_least_one(tmp_path: Path) -> None:
    import os

    from harness.parallel import cgroup_cpus, jobs_option, usable_cpus

    assert cgroup_cpus(tmp_path / "no-such-file") is None
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = cgroup_cpus()
    assert jobs_option("auto") == usable_cpus() == max(1, min(affinity, quota or affinity))
