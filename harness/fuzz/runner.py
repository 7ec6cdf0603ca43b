"""Run the fuzz properties with hypothesis: profiles, shrinking, reproduction, events.

``fuzz(contracts, options)`` runs every applicable property of every contract and yields
events (it never prints): :class:`FuzzStarted`, then :class:`PropertyStarted` and
:class:`PropertyFinished` per tool and property, then :class:`FuzzFinished` with the
:class:`FuzzReport`. A failing property is shrunk by hypothesis to a minimal example; its
:class:`Outcome` carries the finding, a ``reproduce`` command (``contract-harness fuzz ...``,
with ``--seed S`` when the run was random), the hypothesis blob that replays exactly that
example (``--blob``), and the path of the fixture written for it. A given seed replaces the
example database (hypothesis keeps none for seeded runs); the nightly profile without one draws
a fresh seed per property and keeps failures in the database, replayed first next time.
"""

from __future__ import annotations

import gc
import re
import time
from collections import Counter
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import HypothesisException, Unsatisfiable, UnsatisfiedAssumption

from harness.cases import ACCEPT, CaseExpectation
from harness.contract import Contract
from harness.engine import excerpt
from harness.errors import UsageError
from harness.events import (
    FAILED,
    PASSED,
    CaseFinished,
    CaseResult,
    CaseStarted,
    Event,
    RunFinished,
    RunStarted,
    Summary,
    ToolSummary,
)
from harness.fuzz.fixtures import write_fixture
from harness.fuzz.generate.constants import exclude_own_modules
from harness.fuzz.generate.sampling import BATCH, SEEDS, native, sample_value, stream
from harness.fuzz.generate.start import prime_global_random
from harness.fuzz.model import Finding, PropertyViolation
from harness.fuzz.properties import PROPERTIES, Property, PropertyRegistry
from harness.fuzz.replay import (
    GENERATED,
    REPLAY_DIR,
    REPLAYED,
    ReplayStore,
    Unrecordable,
    decode,
    encode,
    inputs_of,
    kept,
)
from harness.fuzz.subject import Subject
from harness.internals import hypothesis_generated_seed
from harness.project import state_dir

#: How a run draws its values (:attr:`FuzzOptions.generator`).
SAMPLED, NATIVE = "sampled", "native"
_BLOB = re.compile(r"@reproduce_failure\('([^']+)', b'([^']*)'\)")
DEFAULT_DATABASE = Path(".contract-harness/fuzz/examples")


@dataclass(frozen=True, slots=True)
class Profile:
    """How hard to search: examples per property and tool, randomness, example database."""

    name: str
    max_examples: int
    derandomize: bool
    database: bool
    summary: str
    #: Whether a property whose inputs are unchanged since its last green run replays that
    #: run's examples (harness.fuzz.replay) instead of generating.
    replay: bool = False


PROFILES: dict[str, Profile] = {
    "ci": Profile("ci", 100, True, False,
                  "derandomized: the same 100 examples per property and tool on every run; no example database; "
                  "a property whose inputs are unchanged since its last green run replays that run's examples",
                  replay=True),
    "nightly": Profile("nightly", 2000, False, True,
                       "random (a failure prints its seed): 2,000 examples per property and tool; the "
                       "example database replays earlier failures first"),
}


@dataclass(frozen=True, slots=True)
class FuzzOptions:
    """What to run and how. ``examples`` overrides the profile's count."""

    profile: Profile = PROFILES["ci"]
    examples: int | None = None
    seed: int | None = None
    properties: tuple[str, ...] | None = None
    blob: str | None = None
    fixtures_dir: Path | None = None
    database_dir: Path = DEFAULT_DATABASE
    registry: PropertyRegistry = PROPERTIES
    #: Where green runs are saved for replay (None: never replay nor save).
    replay_dir: Path | None = None
    #: Generate even where the saved run could be replayed (and save the new one).
    regenerate: bool = False
    #: ``sampled``: every drawn value sampled from one hypothesis seed (harness.fuzz.generate.sampling),
    #: a failure searched again natively to shrink it; ``native``: hypothesis draws every choice.
    generator: str = SAMPLED

    @property
    def max_examples(self) -> int:
        return self.examples if self.examples is not None else self.profile.max_examples

    def replay_store(self) -> ReplayStore | None:
        """The saved runs this run may replay and saves (None: it always generates, saving
        nothing: no replay folder, a nightly profile, a seed or a blob)."""
        if self.replay_dir is None or not self.profile.replay or self.seed is not None or self.blob is not None:
            return None
        return ReplayStore(self.replay_dir)

    def why_generated(self) -> str:
        """Why this run generates whatever was saved."""
        if self.blob is not None:
            return "--blob"
        if self.seed is not None:
            return "--seed"
        if not self.profile.replay:
            return f"{self.profile.name} profile always generates"
        if self.regenerate:
            return "regeneration forced"
        return "replay off"


def project_options(start: str | Path | None, *, profile: str | None = None, fixtures_dir: Path | None = None,
                    **options: Any) -> FuzzOptions:
    """The options of a run whose state is kept in the project around ``start`` (the working
    directory's when None), in ``.contract-harness/fuzz/``: failures written as fixtures (unless
    ``fixtures_dir`` says where), the example database, the saved runs to replay. ``profile`` is
    named (``ci`` when None); every other option as :class:`FuzzOptions` takes it, None for its
    default. ``fuzz`` and the pytest plugin's fuzz items both run with these."""
    given = {name: value for name, value in options.items() if value is not None}
    return FuzzOptions(profile=PROFILES[profile or "ci"], fixtures_dir=fixtures_dir or state_dir("fuzz", start=start),
                       database_dir=state_dir("fuzz", "examples", start=start),
                       replay_dir=state_dir(*REPLAY_DIR, start=start), **given)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One property on one tool: held, failed, or a finding about the contract."""

    tool: str
    prop: str
    version: int
    contract_dir: str
    status: str
    examples: int
    shrinks: int
    columns: Mapping[str, int]
    labels: Mapping[str, int]
    detail: str
    duration_s: float
    problem: str | None = None
    finding: Finding | None = None
    reproduce: str | None = None
    blob: str | None = None
    fixture: str | None = None
    #: ``generated``, or ``replayed`` (the saved examples of the last green run), and why.
    mode: str = GENERATED
    why: str = ""
    #: A saved run that could not be read or written (a line each; the property generated).
    warning: str | None = None
    #: How the examples were drawn (``sampled`` or ``native``; a failure's blob replays only so).
    generator: str = SAMPLED

    @property
    def id(self) -> str:
        return f"{self.tool}::fuzz::{self.prop}"

    @property
    def ok(self) -> bool:
        return self.status == PASSED

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.id,
            "status": self.status,
            "problem": self.problem,
            "examples": self.examples,
            "shrinks": self.shrinks,
            "by_layer": dict(self.columns),
            "labels": dict(sorted(self.labels.items())),
            "detail": self.detail,
            "blob": self.blob,
            "fixture": self.fixture,
            "duration_s": round(self.duration_s, 3),
            "mode": self.mode,
            "why": self.why,
            "generator": self.generator,
        }

    def case_result(self) -> CaseResult:
        """The outcome as a case of the harness's reports (JSON, JUnit, Markdown)."""
        f = self.finding
        expected = f.expected if f else (ACCEPT if self.prop == "accepts_valid" else CaseExpectation(False, ()))
        payload = f.payload if f else None
        return CaseResult(
            id=self.id, tool=self.tool, source="fuzz", status=self.status, problem=self.problem,
            expected=expected, layer=f.layer if f else None, code=f.code if f else None,
            instance_pointer=f.instance_pointer if f else None,
            schema_pointer=f.schema_pointer if f else None, message=f.message if f else None,
            detail=self.detail, operator=f.operator if f else None, pointer=f.pointer if f else None,
            original=f.original if f else "", mutated=f.mutated if f else "", fixture=self.fixture,
            version=self.version, contract_dir=self.contract_dir,
            now=f.now.isoformat() if f else None, request=dict(f.request) if f else None,
            duration_s=self.duration_s, payload=payload, reproduce=self.reproduce, excerpt=excerpt(payload),
        )


@dataclass
class FuzzReport:
    """Every outcome of a run, with the generator statistics of each tool."""

    profile: Profile
    max_examples: int
    seed: int | None
    outcomes: list[Outcome] = field(default_factory=list)
    generators: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_applicable: dict[str, list[str]] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    def summary(self) -> Summary:
        """The run as the harness's summary: per tool, the *examples* by deciding layer and the
        properties by status."""
        summary = Summary(notes=list(self.notes), duration_s=self.duration_s)
        for outcome in self.outcomes:
            tool = summary.tools.setdefault(outcome.tool, ToolSummary(outcome.tool))
            tool.columns.update(outcome.columns)
            tool.statuses[outcome.status] += 1
        return summary

    def to_dict(self) -> dict[str, Any]:
        tools: dict[str, Any] = {}
        for name in sorted({o.tool for o in self.outcomes} | set(self.not_applicable)):
            tools[name] = {
                "version": self.versions.get(name),
                "generator": self.generators.get(name, {}),
                "properties": {o.prop: o.to_dict() for o in self.outcomes if o.tool == name},
                "not_applicable": self.not_applicable.get(name, []),
            }
        return {
            "profile": self.profile.name,
            "derandomized": self.profile.derandomize and self.seed is None,
            "database": self.profile.database,
            "max_examples": self.max_examples,
            "seed": self.seed,
            "hypothesis_version": hypothesis.__version__,
            "tools": tools,
        }


# ------------------------------------------------------------------------ events
#
# The engine's event family (harness.engine), each carrying what fuzz adds: reporters that know
# nothing of fuzz see a run of cases, one per property and tool.


@dataclass(frozen=True, slots=True)
class FuzzStarted(RunStarted):
    profile: Profile


@dataclass(frozen=True, slots=True)
class PropertyStarted(CaseStarted):
    prop: str


@dataclass(frozen=True, slots=True)
class PropertyFinished(CaseFinished):
    """A property checked on a tool: ``result`` is the outcome as a case."""

    outcome: Outcome


@dataclass(frozen=True, slots=True)
class FuzzFinished(RunFinished):
    """The run: ``summary`` is ``report.summary()``."""

    report: FuzzReport


#: A fuzz run's events (the engine's family).
FuzzEvent = Event


# ------------------------------------------------------------------------ running


#: Examples checked per hypothesis example by the ``sampled`` generator (each from its own
#: stream of the example's seed).
SAMPLED_BATCH = BATCH
#: How many times the examples asked for the native search of a failure sampling found may run.
NATIVE_SEARCH = 4


def settings_for(options: FuzzOptions, tool: str, prop: str, *, generator: str = NATIVE,
                 replay_only: bool = False) -> settings:
    """hypothesis's settings for one property: with the ``sampled`` generator, a hypothesis
    example per :data:`SAMPLED_BATCH` examples, no shrinking (a failure is searched again
    natively, and that search shrinks) and no example database (it keeps native searches'
    choices, which a sampled search would read differently); with ``replay_only``, only the
    database's saved examples are run (and a failure among them shrunk)."""
    profile = options.profile
    database = None
    sampling = generator == SAMPLED
    if profile.database and options.blob is None and not sampling:
        database = DirectoryBasedExampleDatabase(str(options.database_dir / tool / prop))
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([] if sampling else [Phase.shrink])
    if replay_only:
        phases = [Phase.reuse, Phase.shrink]
    return settings(
        max_examples=-(-options.max_examples // SAMPLED_BATCH) if sampling else options.max_examples,
        derandomize=profile.derandomize,
        database=database,
        deadline=None,
        verbosity=Verbosity.quiet,
        print_blob=True,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=phases,
    )


def reproduce_command(outcome: Outcome, options: FuzzOptions, seed: int | None) -> str:
    import shlex

    argv = ["contract-harness", "fuzz", outcome.contract_dir, "--tool", outcome.tool,
            "--property", outcome.prop, "--profile", options.profile.name]
    if options.examples is not None:
        argv += ["--examples", str(options.examples)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if outcome.generator != SAMPLED:
        argv += ["--generator", outcome.generator]
    return shlex.join(argv)


def _blob(exc: BaseException) -> str | None:
    for note in getattr(exc, "__notes__", ()):
        match = _BLOB.search(note)
        if match:
            return match.group(2)
    return None


def _settings_key(options: FuzzOptions, subject: Subject, prop: Property) -> str:
    return f"{options.profile.name}/{options.max_examples}/v{subject.version}/{prop.name}"


#: Allocations between two collections of the youngest generation while hypothesis generates
#: (CPython's default is 700).
YOUNG_COLLECTION_THRESHOLD = 10_000


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect garbage less often while hypothesis generates, then restore the thresholds.

    A generated property allocates ~60,000 short-lived hypothesis objects per 100 examples;
    at CPython's default threshold that made ~1,050 young and 10 full collections in a cold
    demo ``pytest`` (each full one scanning every imported module's objects), ~1.0-1.4 s of
    it by gc callbacks' timing. At 10,000: ~75 young and 3 full ones, ~0.4 s less. Nothing
    is kept longer than one generated run's allocations.
    """
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_COLLECTION_THRESHOLD), *older)
    try:
        yield
    finally:
        gc.set_threshold(young, *older)


def run_property(subject: Subject, prop: Property, options: FuzzOptions) -> Outcome:
    """Check one property on one tool: replay its last green run's examples when its inputs are
    unchanged (:mod:`harness.fuzz.replay`), else generate; shrink a failure and write its
    fixture. A green generated run is saved for the next one."""
    exclude_own_modules()  # the examples drawn do not depend on what this process ran before
    prime_global_random()
    store = options.replay_store()
    if store is None:
        return replace(_generate(subject, prop, options, record=False)[0], why=options.why_generated())
    inputs = inputs_of(subject.contract, _settings_key(options, subject, prop))
    warning = None
    if options.regenerate:
        why = "regeneration forced"
    else:
        decision = store.decide(subject.tool, prop.name, inputs, options.max_examples)
        why, warning = decision.why, decision.warning
        if decision.examples is not None:
            replayed = replay_property(subject, prop, decision.examples, why)
            if replayed is not None:
                return replayed
            why = "a saved example no longer replays or holds"
    outcome, recorded = _generate(subject, prop, options, record=True)
    if outcome.ok and recorded:
        saved = store.save(subject.tool, prop.name, inputs, recorded[:options.max_examples],
                           min(outcome.examples, options.max_examples))
        warning = warning or saved  # a saved run not taken is said once, not again as not saved
    else:
        store.forget(subject.tool, prop.name)
    return replace(outcome, why=why, warning=warning)


def replay_property(subject: Subject, prop: Property, examples: Sequence[Any], why: str) -> Outcome | None:
    """The property on saved examples (each the values it drew, in order), or None when one
    does not replay or does not hold: the caller then generates, and shrinks a failure."""
    columns: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    started = time.perf_counter()
    for example in examples:
        try:
            values = iter([decode(subject, value) for value in example])

            def draw(_strategy: Any, values: Iterator[Any] = values) -> Any:
                return next(values)

            observation = prop(subject, draw)
        except Exception:  # a violation, or a saved value that no longer fits: generate
            return None
        columns.update(observation.columns)
        labels.update(observation.labels)
    return Outcome(subject.tool, prop.name, subject.version, str(subject.contract.directory), status=PASSED,
                   examples=len(examples), shrinks=0, columns=dict(columns), labels=dict(labels),
                   detail=f"held on {len(examples)} replayed examples", duration_s=time.perf_counter() - started,
                   mode=REPLAYED, why=why)


def _generate(subject: Subject, prop: Property, options: FuzzOptions, *, record: bool
              ) -> tuple[Outcome, list[Any] | None]:
    """Generate with hypothesis. With ``record``, also every passing example's drawn values,
    encoded for replay (None when one cannot be).

    With the ``sampled`` generator a failure is searched for again with hypothesis's own
    generation, which shrinks: its failure is reported when it finds one, else the sampled one
    (unshrunk, said so in its detail). A sampled search that could make no example, or that
    hypothesis refused, is run again natively, and that run is the outcome."""
    started = time.perf_counter()
    generator = options.generator
    saved = options.database_dir / subject.tool / prop.name
    if (generator == SAMPLED and options.profile.database and options.blob is None and saved.is_dir()
            and any(saved.iterdir())):
        # Earlier failures first, as hypothesis replays them: the saved examples are a native
        # search's, so a native search that only replays them (and shrinks a failure).
        earlier, _, seed = _search(subject, prop, options, record=False, generator=NATIVE, replay_only=True)
        if earlier.status != PASSED:
            return _finished(subject, prop, options, replace(earlier, duration_s=time.perf_counter() - started),
                             seed), None
    outcome, recorded, seed = _search(subject, prop, options, record=record, generator=generator)
    if outcome.status != PASSED and generator == SAMPLED and options.blob is None:
        # A failure sampling found: the native search, which shrinks, may look NATIVE_SEARCH times
        # as long for it (it stops at the first failure); a run sampling could not make is run as asked.
        search = replace(options, examples=options.max_examples * NATIVE_SEARCH) if outcome.finding else options
        again, again_recorded, again_seed = _search(subject, prop, search, record=record, generator=NATIVE)
        if outcome.finding is None or again.status != PASSED:
            outcome, recorded, seed = again, again_recorded, again_seed
        else:
            outcome = replace(outcome, detail=f"{outcome.detail} (found by sampling; hypothesis's own search "
                                              "did not find it again, so the example is not shrunk)")
    return _finished(subject, prop, options, replace(outcome, duration_s=time.perf_counter() - started), seed), recorded


def _finished(subject: Subject, prop: Property, options: FuzzOptions, outcome: Outcome, seed: int | None) -> Outcome:
    """A failed outcome with its reproduce command and its fixture written (as given when it held)."""
    if outcome.status == PASSED:
        return outcome
    outcome = replace(outcome, reproduce=reproduce_command(outcome, options, seed))
    if outcome.finding is not None and options.fixtures_dir is not None:
        try:
            path = write_fixture(outcome.finding, subject.tool, prop.name, options.fixtures_dir)
        except OSError as exc:  # the finding stands; only its fixture is missing (and not claimed)
            return replace(outcome, detail=f"{outcome.detail} (fixture not written: {exc})")
        outcome = replace(outcome, fixture=str(path))
    return outcome


def _search(subject: Subject, prop: Property, options: FuzzOptions, *, record: bool, generator: str,
            replay_only: bool = False) -> tuple[Outcome, list[Any] | None, int | None]:
    """One hypothesis search with ``generator``: the outcome, the recorded examples (with
    ``record``, when green) and the seed that replays a random search."""
    seed = options.seed
    columns: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    state = {"examples": 0, "shrinks": 0, "failing": False}
    keep: dict[str, Any] | None = {"ok": True, "examples": []} if record else None
    sampling = generator == SAMPLED

    def check(source: Any) -> None:
        """The property on one example, its values drawn by ``source``."""
        drawn: list[Any] = []

        def draw(strategy: Any) -> Any:
            value = source(strategy)
            drawn.append(value)
            return value

        try:
            observation = prop(subject, draw if keep is not None else source)
        except PropertyViolation:
            state["failing"] = True
            raise
        if not state["failing"]:
            state["examples"] += 1
            columns.update(observation.columns)
            labels.update(observation.labels)
            if keep is not None and keep["ok"]:
                try:
                    keep["examples"].append(([encode(value) for value in drawn], observation))
                except Unrecordable:
                    keep["ok"] = False

    # hypothesis derives a derandomized run's seed from this function's source: editing its
    # body changes which examples a ci run draws (and so which example a failure shrinks to).
    def test(data: Any) -> None:
        if state["failing"]:
            state["shrinks"] += 1
        if not sampling:
            check(data.draw)
            return
        # One seed per hypothesis example, and SAMPLED_BATCH examples sampled from it: what
        # hypothesis costs per example (~1-2 ms of its own) is paid once per batch.
        seed, ran = data.draw(SEEDS), 0
        for index in range(SAMPLED_BATCH):
            if state["examples"] >= options.max_examples and not state["failing"]:
                break
            rng = stream(seed, index)
            try:
                check(lambda strategy, rng=rng: sample_value(rng, strategy, data.draw))
            except UnsatisfiedAssumption:
                continue  # this example only: the batch goes on
            ran += 1
        if not ran:
            reject()

    given_test = given(st.data())(test)
    wrapped = settings_for(options, subject.tool, prop.name, generator=generator, replay_only=replay_only)(given_test)
    if seed is not None:
        wrapped = hypothesis.seed(seed)(wrapped)  # (hypothesis then keeps no example database)
    if options.blob is not None:
        wrapped = hypothesis.reproduce_failure(hypothesis.__version__, options.blob.encode())(wrapped)
    started = time.perf_counter()
    finding: Finding | None = None
    blob = None
    try:
        with _fewer_collections(), (nullcontext() if sampling else native()):
            wrapped()
        status, problem = PASSED, None
        detail = f"held on {state['examples']} examples"
    except PropertyViolation as exc:
        finding, blob = exc.finding, _blob(exc)
        status, problem, detail = finding.status, finding.problem, finding.detail
    except Unsatisfiable:
        stats = subject.stats
        status, problem = FAILED, "no_examples"
        detail = (f"no example could be generated ({stats.discarded} of {stats.generated} generated "
                  f"documents discarded as invalid, {subject.tally.get('unfit', 0)} could not be bound)")
    except HypothesisException as exc:
        if options.blob is not None:
            raise UsageError(f"--blob {options.blob!r} does not replay here: {str(exc).splitlines()[0]}") from None
        status, problem = FAILED, "error"
        detail = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    outcome = Outcome(subject.tool, prop.name, subject.version, str(subject.contract.directory),
                      status=status, examples=state["examples"], shrinks=state["shrinks"],
                      columns=dict(columns), labels=dict(labels), detail=detail,
                      duration_s=time.perf_counter() - started, problem=problem, finding=finding, blob=blob,
                      generator=generator)
    if status != PASSED and seed is None and not options.profile.derandomize:
        # The seed hypothesis drew for this run (private, pinned version): replays its search.
        seed = hypothesis_generated_seed(given_test)
    recorded = kept(keep["examples"]) if keep is not None and keep["ok"] and status == PASSED else None
    return outcome, recorded, seed


def _selected(options: FuzzOptions) -> list[Property]:
    return list(options.registry.select(options.properties, select_option="--property"))


def fuzz(contracts: Iterable[Contract], options: FuzzOptions = FuzzOptions(), *, jobs: int = 1
         ) -> Iterator[FuzzEvent]:
    """Run the selected properties on every contract, yielding events. With ``jobs`` > 1 the
    tools are fuzzed in that many forked workers (:mod:`harness.parallel`), one tool per task, and
    reported in the order of one job: the same examples, outcomes and statistics."""
    contracts = list(contracts)
    selected = _selected(options)
    report = FuzzReport(options.profile, options.max_examples, options.seed)
    plan: list[tuple[Contract, list[Property]]] = []
    for contract in contracts:
        applicable = [p for p in selected if p.applies(contract)]
        skipped = [p.name for p in selected if not p.applies(contract)]
        if skipped:
            report.not_applicable[contract.tool] = skipped
        plan.append((contract, applicable))
    total = sum(len(props) for _, props in plan)
    started = time.perf_counter()
    tools = tuple(sorted(c.tool for c in contracts))
    if jobs > 1 and sum(1 for _, props in plan if props) > 1:
        yield from _fuzz_forked(plan, options, jobs, report, FuzzStarted(total, tools, options.profile))
    else:
        yield FuzzStarted(total, tools, options.profile)
        index = 0
        for contract, props in plan:
            if not props:
                continue
            subject = Subject(contract)
            # Each property runs when its PropertyStarted has been reported (the progress bar).
            outcomes = (run_property(subject, prop, options) for prop in props)
            index = yield from _reported(report, contract, props, outcomes, index)
            _contract_done(report, contract, subject.generator_stats())
    report.duration_s = time.perf_counter() - started
    yield FuzzFinished(report.summary(), report)


def _reported(report: FuzzReport, contract: Contract, props: list[Property], outcomes: Iterator[Outcome],
              index: int) -> Generator[FuzzEvent, None, int]:
    """One tool's properties as events, each outcome taken from ``outcomes`` between its
    ``PropertyStarted`` and its ``PropertyFinished``; returns the next event index."""
    report.versions[contract.tool] = contract.version
    for prop in props:
        yield PropertyStarted(index, f"{contract.tool}::fuzz::{prop.name}", contract.tool, prop.name)
        outcome = next(outcomes)
        report.outcomes.append(outcome)
        yield PropertyFinished(index, outcome.case_result(), outcome)
        index += 1
    return index


def _contract_done(report: FuzzReport, contract: Contract, stats: dict[str, Any]) -> None:
    report.generators[contract.tool] = stats
    if contract.adapter is not None and contract.vendor_schema is None:
        report.notes.append(f"{contract.tool}: declare vendor_schema to fuzz its adapter (adapter_maps_cleanly)")


def _fuzz_contract(contract: Contract, props: list[Property], options: FuzzOptions
                   ) -> tuple[list[Outcome], dict[str, Any]]:
    """In a worker: every property of one tool, in order, on one subject (as one job runs them:
    a subject's strategies keep state from one property to the next, so the examples drawn are
    one job's only when a tool's properties run together, in this order)."""
    subject = Subject(contract)
    return [run_property(subject, prop, options) for prop in props], subject.generator_stats()


def _fuzz_forked(plan: list[tuple[Contract, list[Property]]], options: FuzzOptions, jobs: int,
                 report: FuzzReport, started: FuzzStarted) -> Iterator[FuzzEvent]:
    """The properties' events, each tool's run by a forked worker, in the order of one job."""
    from harness.parallel import forked

    tasks = [(contract, props) for contract, props in plan if props]
    with forked(lambda i: _fuzz_contract(*tasks[i], options), len(tasks), jobs) as results:
        yield started
        index = 0
        for (contract, props), (outcomes, stats) in zip(tasks, results, strict=True):
            index = yield from _reported(report, contract, props, iter(outcomes), index)
            _contract_done(report, contract, stats)
