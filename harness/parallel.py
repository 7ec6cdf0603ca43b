"""``--jobs N``: a run's contracts in N forked processes, reported in the order of one job.

:func:`forked` runs a task per index in a pool of forked workers and gives the results in order;
``check`` (below) and ``fuzz`` (:func:`harness.fuzz.runner.fuzz`) make one task per contract.

The parent finds the contract directories and checks the project's layout and the options,
then forks N workers. Each task is one contract: a worker loads and checks it (as one job loads
every contract: a bad one is the run's error, met in the contracts' order), makes its cases and
runs them through its own :class:`~harness.engine.Engine` (the same ``Engine.run`` as one job)
and sends back the contract's results, its notes and its differential counts: the contracts are
loaded by the workers, side by side, not by the parent first. The parent yields the results
contract by contract, in the order the contracts were given, as the events of one run: the
reports of ``--jobs 4`` are those of ``--jobs 1`` but for the timings. Only results travel
between processes (a result is a few hundred bytes; a failing case's payload is capped at its
contract's ``max_bytes`` + 1); at most :data:`AHEAD` tasks per worker are given out ahead of the
one being reported, so the parent holds a few contracts' results, however many contracts and
however fast the workers.

Workers are forked (they inherit the parent's imports), by a
``ProcessPoolExecutor``: a worker that dies breaks the pool, and the run ends with
``job.worker_lost`` instead of waiting for a result that will not come (``multiprocessing.Pool``
waits for ever). A worker dies with its parent, however the parent ends (``kill``, ``kill -9``):
:func:`die_with_parent`. Where the platform cannot fork (Windows), a run has one job and says so.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from harness.cases import ToolCoverage
from harness.engine import Engine, version_findings
from harness.errors import HarnessError, UsageError, one_line
from harness.events import CaseFinished, CaseResult, Event, RunFinished, RunStarted, Summary
from harness.internals import process_pool_processes

if TYPE_CHECKING:
    from concurrent.futures import Future

    from harness.contract import Contract

T = TypeVar("T")
#: Where a result's fixture file came from: (the file, the project root), or None.
Source = tuple[Path, Path] | None


@dataclass(frozen=True)
class Options:
    """What every contract's cases are made and run with (``check``'s selection options)."""

    sources: tuple[str, ...]
    max_mutants: int | None
    operators: tuple[str, ...] | None
    differential: bool
    #: Where the reference's verdicts are saved between runs (None: not at all).
    saved_verdicts: Path | None = None
    #: Whether every result carries the schema layer's reason for a rejection (``Engine``'s
    #: ``explain``: a report file shows it for every case).
    explain: bool = True


@dataclass
class Batch:
    """One contract's run, as a worker sends it back."""

    results: list[tuple[CaseResult, Source]] = field(default_factory=list)
    #: Why some cases could not be made (``cases_for``'s notes).
    notes: list[str] = field(default_factory=list)
    #: The contract's check waivers that matched no case.
    waiver_notes: list[str] = field(default_factory=list)
    differential: dict[str, int] | None = None
    #: What the contract's near misses probed (``cases_for``'s coverage).
    coverage: ToolCoverage | None = None


def jobs_option(text: str | None) -> int:
    """``--jobs``: a positive count, or ``auto``: :func:`usable_cpus`; not given (None): ``auto``
    too (the caller then falls back to one job, quietly, where a shard is asked for or the
    platform cannot fork: see :func:`default_fallback`)."""
    if text is None or text == "auto":
        return usable_cpus()
    try:
        count = int(text)
    except ValueError:
        raise UsageError(f"--jobs {text!r} must be a number of processes or 'auto'") from None
    if count < 1:
        raise UsageError(f"--jobs {text!r} must be at least 1")
    return count


def usable_cpus() -> int:
    """The CPUs this process may use: those of its affinity mask, fewer where its cgroup's CPU
    quota allows fewer (a container started with ``docker run --cpus 2`` on a 64-CPU host sees
    64 CPUs and may use 2: 64 workers would share them, each with its own memory)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = cgroup_cpus()
    return max(1, min(cpus, quota) if quota is not None else cpus)


def cgroup_cpus(proc: Path = Path("/proc/self/cgroup"), mount: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The CPUs the CPU quota of this process's cgroup allows, rounded up (``quota / period``;
    the smallest of its own and its ancestors' up to the mount), or None where no quota is set
    or none can be read (not Linux). cgroup v2 reads ``cpu.max``; v1, ``cpu.cfs_quota_us`` and
    ``cpu.cfs_period_us`` of the ``cpu`` controller."""
    try:
        lines = proc.read_text().splitlines()
    except OSError:
        return None
    found: list[int] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, where = parts
        names = controllers.split(",")
        if controllers == "":
            base, read = mount, _v2_quota
        elif "cpu" in names:
            base = next((mount / n for n in (controllers, "cpu") if (mount / n).is_dir()), mount / "cpu")
            read = _v1_quota
        else:
            continue
        folder = base / where.lstrip("/")
        for at in (folder, *folder.parents):
            if at == base.parent:
                break
            cpus = read(at)
            if cpus is not None:
                found.append(cpus)
    return min(found) if found else None


def _ratio(quota: str, period: str) -> int | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return max(1, -(-q // p)) if q > 0 and p > 0 else None


def _v2_quota(folder: Path) -> int | None:
    try:
        fields = (folder / "cpu.max").read_text().split()
    except OSError:
        return None
    return _ratio(fields[0], fields[1]) if len(fields) == 2 and fields[0] != "max" else None


def _v1_quota(folder: Path) -> int | None:
    try:
        quota = (folder / "cpu.cfs_quota_us").read_text().strip()
        period = (folder / "cpu.cfs_period_us").read_text().strip()
    except OSError:
        return None
    return _ratio(quota, period)


def default_fallback(text: str | None, jobs: int, *, shard: bool = False) -> int:
    """The jobs a run has: ``jobs`` as :func:`jobs_option` read ``text``, or one where ``--jobs``
    was not given (``text`` None) and a shard is run or the platform cannot fork — a default
    that cannot apply is not the user's choice, so nothing is said. Given explicitly, ``--jobs``
    stays as given (its conflicts are the caller's usage errors and notes)."""
    if text is None and jobs > 1 and (shard or not can_fork()):
        return 1
    return jobs


def can_fork() -> bool:
    """Whether workers can be forked here (``multiprocessing``'s ``fork`` start method exists
    where ``os.fork`` does; asked without importing it: a run of one job needs no process
    machinery)."""
    return hasattr(os, "fork")


def _worker_start(parent: int, watch: tuple[int, int] | None) -> None:
    """In a worker, first: Ctrl-C is left to the parent, which stops the pool (no traceback per
    worker), and the worker dies with its parent however the parent ends (``kill``, ``kill -9``,
    a crash), instead of waiting for ever for a task no one will give it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent, watch)


#: ``prctl``'s option that sends the calling process a signal when its parent ends (Linux).
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, watch: tuple[int, int] | None = None) -> None:
    """End this (forked) process when ``parent`` ends. On Linux the kernel sends it SIGKILL
    (``prctl(PR_SET_PDEATHSIG)``); elsewhere, given ``watch`` (a pipe the parent made: read end,
    write end), this process closes its copy of the write end and a thread waits on the read end,
    which reads end-of-file once the parent, the only holder of a write end left, is gone. A
    parent already gone when this runs is seen at once (the process has another parent)."""
    import sys

    if sys.platform == "linux":
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            watch = None
    if watch is not None:
        import threading

        read_end, write_end = watch
        os.close(write_end)

        def wait() -> None:
            while os.read(read_end, 1):  # nothing is ever written: b"" when the parent is gone
                pass
            os._exit(1)

        threading.Thread(target=wait, name="parent-watch", daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


class JobError(HarnessError):
    """A worker's error, raised in the parent with the worker's one line (``code: message``)."""

    def __init__(self, line: str) -> None:
        code, _, message = line.partition(": ")
        super().__init__(message, code=code)


class _WorkerTraceback(Exception):
    """The worker's traceback, as the cause of its :class:`JobError` (what --debug shows)."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0])


# The task the forked workers run: set in the parent just before the pool is made, inherited
# by fork (a closure over the loaded contracts: nothing is pickled on the way in but an index).
_TASK: Callable[[int], Any] | None = None
#: Tasks given out per worker ahead of the one whose result the parent waits for.
AHEAD = 2


def _call(index: int) -> tuple[bool, Any]:
    """In a worker: the task's result for ``index``, or its error's line and traceback."""
    assert _TASK is not None
    try:
        return True, _TASK(index)
    except Exception as exc:  # sent back whole: the parent raises it as the run's error
        return False, (one_line(exc), traceback.format_exc())


@contextmanager
def forked(task: Callable[[int], T], count: int, jobs: int) -> Iterator[Iterator[T]]:
    """``task(i)`` for each ``i`` of ``range(count)``, run by ``jobs`` forked workers and given in
    order of ``i``. The workers fork on entry (before the caller starts a thread of its own, such
    as a progress bar's); a task's error is raised as :class:`JobError` where its result would
    come, and so is a worker that dies (killed, out of memory) instead of a run that waits for
    ever. On a normal exit the workers are shut down; on an error or an interrupt, stopped."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _TASK
    _TASK = task
    workers = max(1, min(jobs, count))
    # Where no kernel signal ends a worker with its parent, a pipe the workers watch: the parent
    # never writes to it, and the system closes the parent's end when the parent ends, however.
    watch = None if sys.platform == "linux" else os.pipe()
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_start, initargs=(os.getpid(), watch))
    waiting: deque[Future[tuple[bool, Any]]] = deque()
    given = 0

    def give() -> None:
        # At most AHEAD tasks per worker given out: a parent slower than its workers holds that
        # many tasks' results, not the run's.
        nonlocal given
        while given < count and len(waiting) < AHEAD * workers:
            waiting.append(pool.submit(_call, given))
            given += 1

    def results() -> Iterator[T]:
        while waiting:
            try:
                ok, value = waiting.popleft().result()
            except BrokenProcessPool:
                raise JobError("job.worker_lost: a worker process ended before it sent its result (killed, or out "
                               "of memory?); run with --jobs 1 to see the contract that does it") from None
            give()
            if not ok:
                line, trace = value
                raise JobError(line) from _WorkerTraceback(trace)
            yield value

    finished = False
    try:
        give()  # the first submission forks every worker
        yield results()
        finished = True
    finally:
        _TASK = None
        if not finished:
            for process in process_pool_processes(pool):  # stop, not wait for, the tasks
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        for fd in watch or ():
            os.close(fd)


# ---------------------------------------------------------------------------- check


def _run_contract(contract: Contract, options: Options) -> Batch:
    """In a worker: the cases of one contract, made and run."""
    from harness.cases import cases_for
    from harness.differential.verdicts import ReferenceVerdicts

    batch = Batch()
    decided = version_findings(contract)  # first, as one job reports them
    collected = cases_for(contract, sources=options.sources, max_mutants=options.max_mutants,
                          operators=options.operators)
    batch.notes, batch.coverage = collected.notes, collected.coverage
    sources = {case.id: (case.path, contract.root) for case in collected.cases if case.path is not None}
    saved = ReferenceVerdicts(options.saved_verdicts) if options.saved_verdicts else None
    engine = Engine(differential=options.differential, saved=saved, explain=options.explain)
    for event in engine.run([*decided, *collected.cases], tools=[contract.tool]):
        if isinstance(event, CaseFinished):
            batch.results.append((event.result, sources.get(event.result.id)))
        elif isinstance(event, RunFinished):
            batch.waiver_notes = event.summary.notes
            batch.differential = event.summary.differential
    return batch


def _load_and_run(directory: Path, selected: bool, options: Options) -> Batch:
    """In a worker: the contract in ``directory`` loaded and checked (as one job loads every
    contract, also one ``--tool`` leaves out), and its cases run when it is ``selected``."""
    from harness.contract.load import load_checked

    contract = load_checked(directory, locks=False)  # a version changed in place: a finding of the run
    return _run_contract(contract, options) if selected else Batch()


def _shared_by_fork(options: Options) -> None:
    """Import, before the workers fork, what every worker would otherwise import for itself (the
    mutation operators; python-jsonschema and its format checkers for the differential check):
    once in the parent, inherited by each worker, instead of once per worker (measured on 2 cores,
    100 contracts, ``--jobs 2``: the workers' CPU 6.3-6.6 s -> 5.2-5.9 s; docs/benchmarks.md)."""
    from harness.mutations import REGISTRY

    REGISTRY.load()
    if options.differential:
        import harness.differential.reference  # noqa: F401


def run(directories: Sequence[Path], selected: set[str], options: Options, jobs: int,
        on_result: Callable[[CaseResult, Source], None] = lambda result, source: None) -> Iterator[Event]:
    """``check``'s events over the contracts in ``directories`` (those whose tool is in
    ``selected`` run) with ``jobs`` workers, one contract per task, each loaded by its worker:
    ``RunStarted`` (once the workers are forked), each case's ``CaseFinished`` in the contracts'
    order (``on_result`` called just before each), ``RunFinished`` with the summary (notes in one
    job's order: the cases' notes, then the waivers'). A contract that does not load is the run's
    error where its results would come: in the contracts' order, as one job meets it first."""
    started = time.perf_counter()
    _shared_by_fork(options)
    summary, notes, waiver_notes = Summary(), [], []
    counts: dict[str, int] | None = {} if options.differential else None
    tools = [d.name for d in directories]
    with forked(lambda i: _load_and_run(directories[i], tools[i] in selected, options), len(directories),
                jobs) as batches:
        yield RunStarted(None, tuple(sorted(set(tools) & selected)))
        index = 0
        for batch in batches:
            for result, source in batch.results:
                summary.add(result)
                on_result(result, source)
                yield CaseFinished(index, result)
                index += 1
            notes += batch.notes
            waiver_notes += batch.waiver_notes
            if batch.coverage is not None:
                summary.coverage.append(batch.coverage)
            if counts is not None and batch.differential:
                for key, value in batch.differential.items():
                    counts[key] = counts.get(key, 0) + value
    summary.notes = notes + waiver_notes
    summary.differential = counts
    summary.duration_s = time.perf_counter() - started
    yield RunFinished(summary)
