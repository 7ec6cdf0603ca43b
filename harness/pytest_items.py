"""The pytest plugin's collectors and items: one collector per ``contract.yaml``
(:class:`ContractFile`) yields the cases by source, a lint item, each version pair's compat
items, the drift items (``--drift``) and the fuzz items. Each item is a :class:`ContractItem`
named from its :class:`~harness.pytest_options.ItemKey`; one that does not hold shows the
harness's own text (the CLI's), never a traceback into the harness.
"""

from __future__ import annotations

import abc
import itertools
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.pytest_options import ENGINE, LAYOUTS, ItemKey, fuzz_settings, setting, switch

if TYPE_CHECKING:
    from harness.cases import Case
    from harness.contract import Contract
    from harness.engine import Engine


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


def _child(parent: pytest.Collector, cls: Any, key: ItemKey, **kwargs: Any) -> Any:
    """``cls`` below ``parent``, named as ``key`` names it at that depth."""
    return cls.from_parent(parent, name=key.names()[len(parent.nodeid.split("::")) - 1], key=key, **kwargs)


class ContractItem(pytest.Item):
    """One check of one contract, marked ``marker`` and selectable with ``-k`` by ``keywords``.

    A subclass implements :meth:`check`: it returns the text that says why the check did not
    hold, or None (it may also ``pytest.skip``), and records what it found in
    ``user_properties`` (JUnit XML, the layer table).
    """

    marker = "contract_case"

    def __init__(self, *, contract: Contract, key: ItemKey, label: str | None = None, keywords: tuple[str, ...] = (),
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract, self.key, self.label = contract, key, label or key.label(contract.tool)
        self.add_marker(_mark(self.marker))
        self.extra_keyword_matches.update({contract.tool, *keywords} - {""})

    @abc.abstractmethod
    def check(self) -> str | None:
        """Why the check did not hold, or None."""

    def runtest(self) -> None:
        try:
            failure = self.check()
        finally:
            # The saved state's warnings this item met, for the summary (from an xdist worker too).
            from harness.project import state_warnings

            pending = self.config.stash[ENGINE].get("warnings", [])
            said = [*state_warnings(), *pending]
            pending.clear()
            if said:
                self.user_properties.append(("state_warning", "\n".join(said)))
        if failure is not None:
            raise NotHeld(failure.strip())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, NotHeld):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.label

    def hypothesis_home(self) -> AbstractContextManager[None]:
        """Hypothesis's caches in the project's state while this runs (hypothesis-jsonschema
        writes caches on import): :func:`harness.project.hypothesis_home`."""
        from harness.project import hypothesis_home

        return hypothesis_home(self.config.rootpath)


class ContractFile(pytest.File):
    """``contracts/<tool>/contract.yaml``: one collector per case source below it."""

    def collect(self) -> Any:
        import harness.lock as lock
        from harness.cases import DEFAULT_MAX_MUTANTS, cases_for
        from harness.contract import load_contract
        from harness.errors import one_line
        from harness.project import check_layout

        max_mutants = setting(self.config, "--max-mutants", "contract_harness_max_mutants", int)
        try:
            contract = load_contract(self.path.parent)
            check_layout([contract.root], self.config.stash[LAYOUTS])  # once a session
            changed = list(lock.changes(contract))
            collected = cases_for(contract, max_mutants=DEFAULT_MAX_MUTANTS if max_mutants is None else max_mutants)
        except Exception as exc:
            # The same one line as the CLI's, for a contract, a schema, a fixture, a sidecar, the
            # layout or the lock (``--debug``-style tracebacks: pytest's own ``--full-trace``).
            if self.config.getoption("fulltrace"):
                raise
            raise self.CollectError(one_line(exc)) from None
        file = self.nodeid
        for change in changed:  # a finding of this contract, as `check` reports it; its cases still run
            version = change.file.stem
            yield _child(self, VersionItem, ItemKey(file, "versions", name=version), contract=contract,
                         line=change.message)
        by_source: dict[str, list[Case]] = {}
        for case in collected.cases:
            by_source.setdefault(case.source, []).append(case)
        for source, cases in by_source.items():
            yield CaseGroup.from_parent(self, name=source, cases=cases)
        yield _child(self, LintItem, ItemKey(file, "lint"), contract=contract)
        # Version pairs without importing harness.compat (heavy): it loads when a pair runs.
        for old, new in itertools.pairwise(contract.versions):
            yield CompatPair.from_parent(self, name=f"compat-v{old}-v{new}", contract=contract, old=old, new=new)
        if self.config.getoption("--drift"):
            if contract.upstreams:
                yield DriftGroup.from_parent(self, name="drift", contract=contract)
            else:  # asked for, and nothing to send: one skipped item says so
                yield _child(self, NoUpstreams, ItemKey(file, "drift"), contract=contract)
        if switch(self.config, "--no-fuzz", "contract_harness_fuzz"):
            yield FuzzGroup.from_parent(self, name="fuzz", contract=contract)


class CaseGroup(pytest.Collector):
    def __init__(self, *, cases: list[Case], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cases = cases

    def collect(self) -> Any:
        file = self.parent.nodeid if self.parent is not None else ""
        for case in self.cases:
            yield _child(self, CaseItem, ItemKey(file, case.source, name=case.label), case=case)


def engine(config: pytest.Config) -> Engine:
    """The run's engine (one per process: its boundaries are reused across items)."""
    from harness.engine import Engine

    store = config.stash[ENGINE]
    if "engine" not in store:
        differential = switch(config, "--no-differential", "contract_harness_differential")
        saved = None
        if differential and switch(config, "--no-saved-verdicts", "contract_harness_saved_verdicts"):
            from harness.differential.verdicts import VERDICTS_DIR, ReferenceVerdicts
            from harness.project import state_dir

            # Where `check` keeps them; a warning goes with the item that met it to the summary.
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
        from harness.drift.template import upstream_redactor
        from harness.reporting.terminal import problem_text

        run = engine(self.config)
        counts = run.differentials
        compared, reused, undecided = counts.compared, counts.reused, counts.undecided
        result = run.evaluate(self.case)
        self.user_properties.extend([
            ("contract_harness", "1"), ("tool", result.tool), ("source", result.source),
            ("expected", result.expected.describe()), ("layer", result.column), ("code", result.code or ""),
            ("status", result.status),
        ])
        if counts.compared > compared:  # the document went to the differential check
            kind = "saved" if counts.reused > reused else "undecided" if counts.undecided > undecided else "validated"
            self.user_properties.append(("reference_verdict", kind))
        # The one redaction point, as for `check`: the values of the ${ENV} variables the
        # contract's upstreams use never reach the terminal (a historical shape may hold one).
        return None if result.status == "passed" else \
            upstream_redactor([self.contract], os.environ).text(problem_text(result))


class LintItem(ContractItem):
    """The contract's schemas against the lint rules (waivers in contract.yaml apply)."""

    marker = "lint"

    def check(self) -> str | None:
        from harness.lint import lint_contract
        from harness.lint.reporters import render_text

        report = lint_contract(self.contract)
        return None if report.ok else render_text(report, root=self.contract.root)


class VersionItem(ContractItem):
    """A published schema version changed in place (schemas.lock): a failing item."""

    def __init__(self, *, line: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line

    def check(self) -> str | None:
        return f"{self.label} (version_changed): {self.line}"


class _Group(pytest.Collector):
    """The items of one contract that share work, done once when the first of them runs."""

    def __init__(self, *, contract: Contract, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        self.done: dict[str, Any] = {}

    def shared(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self.done:
            self.done[name] = make()
        return self.done[name]

    def key(self, kind: str, unit: str = "", name: str = "") -> ItemKey:
        return ItemKey(self.parent.nodeid if self.parent is not None else "", kind, unit, name)


class CompatPair(_Group):
    """One consecutive version pair: the policy, the classifier, the replayed fixtures, sharing
    one comparison."""

    def __init__(self, *, old: int, new: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.old, self.new = old, new

    def collect(self) -> Any:
        for check in ("policy", "classifier", "replay"):
            key = self.key("compat", f"v{self.old}-v{self.new}", check)
            yield _child(self, CompatItem, key, contract=self.contract)


class CompatItem(ContractItem):
    marker = "compat"

    def check(self) -> str | None:
        pair = self.parent
        assert isinstance(pair, CompatPair)
        with self.hypothesis_home():
            from harness.compat.api import compare

            report = pair.shared("report", lambda: compare(self.contract, pair.old, pair.new))
        failed = [c for c in report.checks if not c.ok and (
            c.name == self.name or (self.name == "replay" and c.name.startswith("replay::")))]
        return "\n".join(f"{c.name}: {c.detail}" for c in failed) if failed else None


class DriftGroup(_Group):
    """The drift items of one contract: each upstream's advertised schema and sample requests."""

    def collect(self) -> Any:
        from harness.drift.runner import plan
        from harness.errors import HarnessError

        try:
            drift_plan = plan([self.contract])
        except HarnessError as exc:
            raise self.CollectError(f"{exc.code}: {exc}") from None
        for target in drift_plan.targets:
            # An upstream without sample requests is never called: one item says so (skipped).
            upstream = target.upstream.name
            for label in (["outputSchema"] if target.upstream.kind == "mcp" else []) + (
                    list(target.labels) or ["no requests"]):
                yield _child(self, DriftItem, self.key("drift", upstream, label), contract=self.contract,
                             keywords=(upstream,))


class DriftItem(ContractItem):
    """One drift check. The first item of an upstream runs the whole upstream (one session, one
    server process) and the rest read its results."""

    marker = "drift"

    def check(self) -> str | None:
        from harness.drift.runner import DriftRunner, plan
        from harness.reporting.drift import check_text

        assert isinstance(self.parent, DriftGroup)
        upstream = self.key.unit
        checks = self.parent.shared(upstream, lambda: {
            c.id: c for c in DriftRunner(plan([self.contract], upstreams=[upstream])).run()[0]})
        check = checks[self.label]
        self.user_properties.extend([
            ("tool", check.tool), ("upstream", check.upstream), ("source", "drift"),
            ("drift_status", check.status), ("code", check.verdict.code or "" if check.verdict else ""),
            ("changes", str(len(check.changes))),
        ])
        if check.status == "not_called":  # deliberately not sent: a skip with the reason, never a failure
            pytest.skip(check.detail())
        return None if check.status == "held" else check_text(check)


class NoUpstreams(ContractItem):
    """``--drift`` on a contract that declares no upstreams: skipped, with the reason (a mark: the
    skip is reported at the contract's file, its first line)."""

    marker = "drift"

    def __init__(self, **kwargs: Any) -> None:
        from harness.drift.runner import NO_UPSTREAMS  # the same words as `contract-harness drift`

        super().__init__(**kwargs)
        self.add_marker(pytest.mark.skip(reason=f"{self.contract.tool}: {NO_UPSTREAMS}"))

    def check(self) -> str | None:  # pragma: no cover - skipped by its mark
        return None

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, self.label


class FuzzGroup(_Group):
    """The fuzz properties of one contract, sharing their generators (built when the first runs)."""

    def collect(self) -> Any:
        from harness.fuzz.properties import PROPERTIES  # no hypothesis: the catalogue only

        for prop in PROPERTIES.applicable(self.contract):
            yield _child(self, FuzzItem, self.key("fuzz", name=prop.name), contract=self.contract, keywords=("fuzz",))


class FuzzItem(ContractItem):
    marker = "fuzz"

    def check(self) -> str | None:
        with self.hypothesis_home():
            from harness.fuzz.properties import PROPERTIES
            from harness.fuzz.runner import project_options, run_property
            from harness.fuzz.subject import Subject
            from harness.reporting.fuzz import outcome_text

            store = self.config.stash[ENGINE]
            if "fuzz-options" not in store:  # the project's, wherever pytest's rootdir is
                store["fuzz-options"] = project_options(self.config.rootpath, **fuzz_settings(self.config))
            assert isinstance(self.parent, FuzzGroup)
            subject = self.parent.shared("subject", lambda: Subject(self.contract))
            outcome = run_property(subject, PROPERTIES[self.name], store["fuzz-options"])
        self.user_properties.extend([("tool", outcome.tool), ("property", outcome.prop),
                                     ("examples", str(outcome.examples)), ("status", outcome.status),
                                     ("fuzz_mode", outcome.mode), ("fuzz_why", outcome.why),
                                     ("fuzz_warning", outcome.warning or "")])
        return None if outcome.ok else outcome_text(outcome)
