"""``check --jobs N``: the contracts' cases made and run in N processes, reported in order.

The parent loads and checks every contract first (a bad one is an error before any case runs,
as with one job), then forks N workers that inherit them. Each task is one contract: a worker
makes its cases and runs them through its own :class:`~harness.engine.Engine` (the same
``Engine.run`` as one job) and sends back the contract's results, its notes and its differential
counts. The parent yields the results contract by contract, in the order the contracts were
given, as the events of one run: the reports of ``--jobs 4`` are those of ``--jobs 1`` but for
the timings. Only results travel between processes (a result is a few hundred bytes; a failing
case's payload is capped at its contract's ``max_bytes`` + 1); the parent holds the results of
the contracts finished ahead of the one being reported, no more.

Workers are forked (they inherit the loaded contracts; nothing is loaded twice): where the
platform cannot fork (Windows), a run has one job and says so.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.engine import CaseFinished, CaseResult, Engine, Event, RunFinished, RunStarted, Summary
from harness.errors import HarnessError, UsageError, one_line

if TYPE_CHECKING:
    from harness.contract import Contract

#: Where a result's fixture file came from: (the file, the project root), or None.
Source = tuple[Path, Path] | None


@dataclass(frozen=True)
class Options:
    """What every contract's cases are made and run with (``check``'s selection options)."""

    sources: tuple[str, ...]
    max_mutants: int | None
    operators: tuple[str, ...] | None
    differential: bool


@dataclass
class Batch:
    """One contract's run, as a worker sends it back."""

    results: list[tuple[CaseResult, Source]] = field(default_factory=list)
    #: Why some cases could not be made (``cases_for``'s notes).
    notes: list[str] = field(default_factory=list)
    #: The contract's check waivers that matched no case.
    waiver_notes: list[str] = field(default_factory=list)
    differential: dict[str, int] | None = None
    #: The one-line error that stopped the contract's run, with the worker's traceback.
    error: tuple[str, str] | None = None


def jobs_option(text: str) -> int:
    """``--jobs``: a positive count, or ``auto`` (the CPUs this process may use)."""
    if text == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    try:
        count = int(text)
    except ValueError:
        raise UsageError(f"--jobs {text!r} must be a number of processes or 'auto'") from None
    if count < 1:
        raise UsageError(f"--jobs {text!r} must be at least 1")
    return count


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


# The forked workers' view: set in the parent just before the pool is made, inherited by fork.
_CONTRACTS: Sequence[Contract] = ()
_OPTIONS: Options | None = None


def _run_contract(index: int) -> Batch:
    """In a worker: the cases of ``_CONTRACTS[index]``, made and run."""
    from harness.cases import cases_for

    assert _OPTIONS is not None
    contract, options, batch = _CONTRACTS[index], _OPTIONS, Batch()
    try:
        collected = cases_for(contract, sources=options.sources, max_mutants=options.max_mutants,
                              operators=options.operators)
        batch.notes = collected.notes
        sources = {case.id: (case.path, contract.root) for case in collected.cases if case.path is not None}
        engine = Engine(differential=options.differential)
        for event in engine.run(collected.cases, tools=[contract.tool]):
            if isinstance(event, CaseFinished):
                batch.results.append((event.result, sources.get(event.result.id)))
            elif isinstance(event, RunFinished):
                batch.waiver_notes = event.summary.notes
                batch.differential = event.summary.differential
    except Exception as exc:  # sent back whole: the parent raises it as the run's error
        batch.error = (one_line(exc), traceback.format_exc())
    return batch


def _ignore_interrupts() -> None:
    """A worker leaves Ctrl-C to the parent, which stops the pool (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class JobError(HarnessError):
    """A worker's error, raised in the parent with the worker's one line (``code: message``)."""

    def __init__(self, line: str) -> None:
        code, _, message = line.partition(": ")
        super().__init__(message, code=code)


class _WorkerTraceback(Exception):
    """The worker's traceback, as the cause of its :class:`JobError` (what --debug shows)."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0])


def run(contracts: Sequence[Contract], options: Options, jobs: int,
        on_result: Callable[[CaseResult, Source], None] = lambda result, source: None) -> Iterator[Event]:
    """The events of one run over ``contracts`` with ``jobs`` worker processes: ``RunStarted``,
    each case's ``CaseFinished`` in the contracts' order (``on_result`` called just before each),
    ``RunFinished`` with the summary (notes in one job's order: the cases' notes, then the waivers')."""
    global _CONTRACTS, _OPTIONS
    started = time.perf_counter()
    summary, notes, waiver_notes = Summary(), [], []
    counts: dict[str, int] | None = {} if options.differential else None
    _CONTRACTS, _OPTIONS = contracts, options
    context = multiprocessing.get_context("fork")
    try:
        # The workers fork here, before the first event: a reporter's thread (the progress bar)
        # starts after, and is never copied into a worker mid-lock.
        with context.Pool(min(jobs, len(contracts)), initializer=_ignore_interrupts) as pool:
            yield RunStarted(None, tuple(sorted({c.tool for c in contracts})))
            index = 0
            for batch in pool.imap(_run_contract, range(len(contracts))):
                if batch.error is not None:
                    line, trace = batch.error
                    raise JobError(line) from _WorkerTraceback(trace)
                for result, source in batch.results:
                    summary.add(result)
                    on_result(result, source)
                    yield CaseFinished(index, result)
                    index += 1
                notes += batch.notes
                waiver_notes += batch.waiver_notes
                if counts is not None and batch.differential:
                    for key, value in batch.differential.items():
                        counts[key] = counts.get(key, 0) + value
    finally:
        _CONTRACTS, _OPTIONS = (), None
    summary.notes = notes + waiver_notes
    summary.differential = counts
    summary.duration_s = time.perf_counter() - started
    yield RunFinished(summary)

