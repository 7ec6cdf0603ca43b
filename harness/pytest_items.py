"""The pytest plugin's collectors and items: what ``contracts/<tool>/contract.yaml`` becomes.

One collector per contract file (:class:`ContractFile`) yields, per case source, the cases
(fixtures and near-miss mutations, :class:`CaseItem`), then one lint item, the compat items of
each consecutive version pair, the drift items (with ``--drift``) and the fuzz items. Every item
is a :class:`ContractItem`: it checks one thing, and when that does not hold, pytest shows the
harness's own text for it (the same as the CLI's), never a traceback into the harness.

The hooks are in :mod:`harness.pytest_plugin`, which imports this module only when
it collects a contract.
"""

from __future__ import annotations

import abc
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.pytest_options import (
    ENGINE,
    FUZZ_GENERATORS,
    FUZZ_PROFILES,
    LAYOUTS,
    STORE_DRIFT,
    boolean,
    setting,
    switch,
)

if TYPE_CHECKING:
    from harness.cases import Case
    from harness.contract import Contract
    from harness.engine import Engine
    from harness.fuzz.runner import FuzzOptions


class NotHeld(Exception):
    """A contract item's check did not hold; the message is what pytest shows for it."""


#: Marks by name, made once: ``add_marker("name")`` makes (and checks) a new one per call, a
#: measurable part of collecting thousands of cases.
_MARKS: dict[str, pytest.MarkDecorator] = {}


def _mark(name: str) -> pytest.MarkDecorator:
    found = _MARKS.get(name)
    if found is None:
        found = _MARKS[name] = getattr(pytest.mark, name)
    return found


class ContractItem(pytest.Item):
    """One check of one contract, marked ``marker`` and selectable with ``-k`` by ``keywords``.

    A subclass implements :meth:`check`: it returns the text that says why the check did not
    hold, or None (it may also ``pytest.skip``), and records what it found in
    ``user_properties`` (JUnit XML, the layer table).
    """

    marker = "contract_case"

    def __init__(self, *, contract: Contract, label: str, keywords: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        self.label = label
        self.add_marker(_mark(self.marker))
        self.extra_keyword_matches.update({contract.tool, *keywords} - {""})

    @abc.abstractmethod
    def check(self) -> str | None:
        """Why the check did not hold, or None."""

    def runtest(self) -> None:
        try:
            failure = self.check()
        finally:
            self._state_warnings()
        if failure is not None:
            raise NotHeld(failure.strip())

    def _state_warnings(self) -> None:
        """The warnings about the saved state this item met, for the summary (from an xdist
        worker too): a saved file not taken, a state folder not followed."""
        from harness.project import state_warnings

        pending = self.config.stash[ENGINE].get("warnings", [])
        said = [*state_warnings(), *pending]
        pending.clear()
        if said:
            self.user_properties.append(("state_warning", "\n".join(said)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, NotHeld):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.label


@contextmanager
def hypothesis_home(config: pytest.Config) -> Iterator[None]:
    """Hypothesis's caches in ``.contract-harness/hypothesis`` for the duration of one of our
    items, unless the user chose a place (``HYPOTHESIS_STORAGE_DIRECTORY``): no ``.hypothesis/``
    at the project's root, and the user's own hypothesis tests keep theirs."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    import hypothesis.configuration as hypothesis_configuration

    from harness.project import state_dir

    # The module-level override hypothesis keeps (None unless someone set it), restored after.
    previous = vars(hypothesis_configuration).get("__hypothesis_home_directory")
    # The project's, as the CLI's: pytest run in fixtures/accepted/<tool>/ has its rootdir there.
    hypothesis_configuration.set_hypothesis_home_dir(state_dir("hypothesis", start=config.rootpath))
    try:
        yield
    finally:
        hypothesis_configuration.set_hypothesis_home_dir(previous)


# --------------------------------------------------------------------------- the contract file


def layout_checked(config: pytest.Config, root: Path) -> None:
    """:func:`~harness.project.check_layout` on ``root`` once a session (it reads every fixture
    folder of the project): each contract's collection raises the same first problem, or
    nothing, as a fresh check would, without a 100-tool project reading its fixtures 100 times."""
    from harness.project import check_layout

    found = config.stash[LAYOUTS]
    key = root.resolve()
    if key not in found:
        try:
            check_layout([root])
        except Exception as exc:
            found[key] = exc
        else:
            found[key] = None
    problem = found[key]
    if problem is not None:
        raise problem


class ContractFile(pytest.File):
    """``contracts/<tool>/contract.yaml``: one collector per case source below it."""

    def collect(self) -> Any:
        import harness.lock as lock
        from harness.cases import DEFAULT_MAX_MUTANTS, cases_for
        from harness.contract import load_contract
        from harness.errors import one_line

        max_mutants = setting(self.config, "--max-mutants", "contract_harness_max_mutants", int)
        try:
            contract = load_contract(self.path.parent)
            layout_checked(self.config, contract.root)
            changed = list(lock.changes(contract))
            collected = cases_for(contract, max_mutants=DEFAULT_MAX_MUTANTS if max_mutants is None else max_mutants)
        except Exception as exc:
            # The same one line as the CLI's, for a contract, a schema, a fixture, a sidecar, the
            # layout or the lock (``--debug``-style tracebacks: pytest's own ``--full-trace``).
            if self.config.getoption("fulltrace"):
                raise
            raise self.CollectError(one_line(exc)) from None
        for problem in changed:  # a finding of this contract, as `check` reports it; its cases still run
            version = problem.file.stem
            yield VersionItem.from_parent(self, name=f"versions-{version}", contract=contract,
                                          label=f"{contract.tool}::versions::{version}", line=problem.message)
        by_source: dict[str, list[Case]] = {}
        for case in collected.cases:
            by_source.setdefault(case.source, []).append(case)
        for source, cases in by_source.items():
            yield CaseGroup.from_parent(self, name=source, cases=cases)
        yield LintItem.from_parent(self, name="lint", contract=contract, label=f"{contract.tool}::lint")
        # Version pairs without importing harness.compat (heavy): it loads when a pair runs.
        for old, new in itertools.pairwise(contract.versions):
            yield CompatPair.from_parent(self, name=f"compat-v{old}-v{new}", contract=contract, old=old, new=new)
        if self.config.getoption("--drift"):
            if contract.upstreams:
                yield DriftGroup.from_parent(self, name="drift", contract=contract)
            else:  # asked for, and nothing to send: one skipped item says so
                yield NoUpstreams.from_parent(self, name="drift", contract=contract, label=f"{contract.tool}::drift")
        if switch(self.config, "--no-fuzz", "contract_harness_fuzz"):
            yield FuzzGroup.from_parent(self, name="fuzz", contract=contract)


# --------------------------------------------------------------------------- cases


class CaseGroup(pytest.Collector):
    def __init__(self, *, cases: list[Case], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cases = cases

    def collect(self) -> Any:
        for case in self.cases:
            yield CaseItem.from_parent(self, name=case.label, case=case)


def engine(config: pytest.Config) -> Engine:
    """The run's engine (one per process: its boundaries are reused across items)."""
    from harness.engine import Engine

    store = config.stash[ENGINE]
    if "engine" not in store:
        differential = switch(config, "--no-differential", "contract_harness_differential")
        saved = None
        if differential and switch(config, "--no-saved-verdicts", "contract_harness_saved_verdicts"):
            from harness.project import state_dir
            from harness.reference_verdicts import VERDICTS_DIR, ReferenceVerdicts

            # Where `check` keeps them: either takes the verdicts the other saved. A warning about
            # them goes with the item that met it (from an xdist worker too) to the summary.
            pending: list[str] = store.setdefault("warnings", [])
            saved = ReferenceVerdicts(state_dir(*VERDICTS_DIR, start=config.rootpath), warn=pending.append)
        store["engine"] = Engine(differential=differential, saved=saved)
    return store["engine"]  # type: ignore[no-any-return]


class CaseItem(ContractItem):
    """A fixture or a near-miss mutant, through the engine."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(contract=case.contract, label=case.id, keywords=(case.source, case.operator or ""),
                         **kwargs)
        self.case = case
        self.add_marker(_mark(case.source))

    def check(self) -> str | None:
        from harness.reporting.terminal import problem_text

        run = engine(self.config)
        compared, reused, undecided = run.differentials.compared, run.differentials.reused, run.differentials.undecided
        result = run.evaluate(self.case)
        self.user_properties.extend([
            ("contract_harness", "1"), ("tool", result.tool), ("source", result.source),
            ("expected", result.expected.describe()), ("layer", result.column), ("code", result.code or ""),
            ("status", result.status),
        ])
        if run.differentials.compared > compared:  # the document went to the differential check
            kind = "saved" if run.differentials.reused > reused else \
                "undecided" if run.differentials.undecided > undecided else "validated"
            self.user_properties.append(("reference_verdict", kind))
        if result.status == "passed":
            return None
        # The one redaction point, as for `check`: the values of the ${ENV} variables the
        # contract's upstreams use never reach the terminal (a historical shape may hold one).
        from harness.drift.template import upstream_redactor

        return upstream_redactor([self.contract], os.environ).text(problem_text(result))


# --------------------------------------------------------------------------- lint


class LintItem(ContractItem):
    """The contract's schemas against the lint rules (waivers in contract.yaml apply)."""

    marker = "lint"

    def check(self) -> str | None:
        from harness.lint import lint_contract
        from harness.lint.reporters import render_text

        report = lint_contract(self.contract)
        return None if report.ok else render_text(report, root=self.contract.root)


# --------------------------------------------------------------------------- compat


class CompatPair(pytest.Collector):
    """One consecutive version pair: the policy, the classifier, the replayed fixtures.

    The comparison runs once, when the first of its items runs, and is shared by the others.
    """

    CHECKS = ("policy", "classifier", "replay")

    def __init__(self, *, contract: Contract, old: int, new: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract, self.old, self.new = contract, old, new
        self._report: Any = None

    def report(self) -> Any:
        if self._report is None:
            with hypothesis_home(self.config):  # hypothesis-jsonschema writes caches on import
                from harness.compat.api import compare

                self._report = compare(self.contract, self.old, self.new)
        return self._report

    def collect(self) -> Any:
        for check in self.CHECKS:
            yield CompatItem.from_parent(self, name=check, contract=self.contract,
                                         label=f"{self.contract.tool}::{self.name}::{check}")


class CompatItem(ContractItem):
    marker = "compat"

    def check(self) -> str | None:
        assert isinstance(self.parent, CompatPair)
        checks = [c for c in self.parent.report().checks
                  if c.name == self.name or (self.name == "replay" and c.name.startswith("replay::"))]
        failed = [c for c in checks if not c.ok]
        return "\n".join(f"{c.name}: {c.detail}" for c in failed) if failed else None


# --------------------------------------------------------------------------- drift


class DriftGroup(pytest.Collector):
    """The drift items of one contract: each upstream's advertised schema and sample requests."""

    def __init__(self, *, contract: Contract, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract

    def collect(self) -> Any:
        from harness.drift.runner import plan
        from harness.errors import HarnessError

        try:
            drift_plan = plan([self.contract])
        except HarnessError as exc:
            raise self.CollectError(f"{exc.code}: {exc}") from None
        for target in drift_plan.targets:
            # An upstream without sample requests is never called: one item says so (skipped).
            names = (["outputSchema"] if target.upstream.kind == "mcp" else []) + (
                list(target.labels) or ["no requests"]
            )
            for label in names:
                name = f"{target.upstream.name}[{label}]"
                yield DriftItem.from_parent(self, name=name, contract=self.contract, upstream=target.upstream.name,
                                            label=f"{self.contract.tool}::drift::{name}")


class DriftItem(ContractItem):
    """One drift check. The first item of an upstream runs the whole upstream (one session, one
    server process) and the rest read its results."""

    marker = "drift"

    def __init__(self, *, upstream: str, **kwargs: Any) -> None:
        super().__init__(keywords=(upstream,), **kwargs)
        self.upstream = upstream

    def _checks(self) -> dict[str, Any]:
        from harness.drift.runner import DriftRunner, plan

        store = self.config.stash[STORE_DRIFT]
        key = (str(self.contract.path), self.upstream)
        if key not in store:
            checks, _ = DriftRunner(plan([self.contract], upstreams=[self.upstream])).run()
            store[key] = {c.id: c for c in checks}
        return store[key]

    def check(self) -> str | None:
        from harness.reporting.drift import check_text

        check = self._checks()[self.label]
        self.user_properties.extend([
            ("tool", check.tool), ("upstream", check.upstream), ("source", "drift"),
            ("drift_status", check.status), ("code", check.verdict.code or "" if check.verdict else ""),
            ("changes", str(len(check.changes))),
        ])
        if check.status == "not_called":  # deliberately not sent: a skip with the reason, never a failure
            pytest.skip(check.detail())
        return None if check.status == "held" else check_text(check)


class VersionItem(ContractItem):
    """A published schema version changed in place (schemas.lock): a failing item."""

    marker = "contract_case"

    def __init__(self, *, line: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line

    def check(self) -> str | None:
        return f"{self.label} (version_changed): {self.line}"


class NoUpstreams(ContractItem):
    """``--drift`` on a contract that declares no upstreams: skipped, with the reason (a mark: the
    skip is reported at the contract's file)."""

    marker = "drift"

    def __init__(self, **kwargs: Any) -> None:
        from harness.drift.runner import NO_UPSTREAMS  # the same words as `contract-harness drift`

        super().__init__(**kwargs)
        self.add_marker(pytest.mark.skip(reason=f"{self.contract.tool}: {NO_UPSTREAMS}"))

    def check(self) -> str | None:  # pragma: no cover - skipped by its mark
        return None

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, self.label  # a skip by mark is reported at a line: the file's first


# --------------------------------------------------------------------------- fuzz


def fuzz_options(config: pytest.Config) -> FuzzOptions:
    """The fuzz items' options (profile, examples, where failures and the example database go)."""
    from harness.fuzz.replay import REPLAY_DIR
    from harness.fuzz.runner import PROFILES, FuzzOptions
    from harness.project import state_dir

    profile = setting(config, "--fuzz-profile", "contract_harness_fuzz_profile", str, choices=FUZZ_PROFILES)
    examples = setting(config, "--fuzz-examples", "contract_harness_fuzz_examples", int)
    regenerate = setting(config, "--fuzz-regenerate", "contract_harness_fuzz_regenerate", boolean)
    generator = setting(config, "--fuzz-generator", "contract_harness_fuzz_generator", str,
                        choices=FUZZ_GENERATORS)
    root = state_dir("fuzz", start=config.rootpath)  # the project's, wherever pytest's rootdir is
    return FuzzOptions(profile=PROFILES[profile or "ci"], examples=examples, fixtures_dir=root,
                       database_dir=root / "examples", replay_dir=state_dir(*REPLAY_DIR, start=config.rootpath),
                       regenerate=bool(regenerate), generator=generator or "sampled")


class FuzzGroup(pytest.Collector):
    """The fuzz properties of one contract; their generators are built once, when the first
    item runs, and shared by the others."""

    def __init__(self, *, contract: Contract, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        self._subject: Any = None

    def subject(self) -> Any:
        if self._subject is None:
            from harness.fuzz.subject import Subject

            self._subject = Subject(self.contract)
        return self._subject

    def collect(self) -> Any:
        from harness.fuzz.properties import PROPERTIES  # no hypothesis: the catalogue only

        for prop in PROPERTIES.applicable(self.contract):
            yield FuzzItem.from_parent(self, name=prop.name, contract=self.contract,
                                       label=f"{self.contract.tool}::fuzz::{prop.name}", keywords=("fuzz",))


class FuzzItem(ContractItem):
    marker = "fuzz"

    def check(self) -> str | None:
        assert isinstance(self.parent, FuzzGroup)
        with hypothesis_home(self.config):  # hypothesis-jsonschema writes caches on import
            from harness.fuzz.properties import PROPERTIES
            from harness.fuzz.runner import run_property
            from harness.reporting.fuzz import outcome_text

            store = self.config.stash[ENGINE]
            if "fuzz-options" not in store:
                store["fuzz-options"] = fuzz_options(self.config)
            outcome = run_property(self.parent.subject(), PROPERTIES[self.name], store["fuzz-options"])
        self.user_properties.extend([("tool", outcome.tool), ("property", outcome.prop),
                                     ("examples", str(outcome.examples)), ("status", outcome.status),
                                     ("fuzz_mode", outcome.mode), ("fuzz_why", outcome.why),
                                     ("fuzz_warning", outcome.warning or "")])
        return None if outcome.ok else outcome_text(outcome)
