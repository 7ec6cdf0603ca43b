"""pytest plugin (entry point ``pytest11``): one test item per contract case.

In a repository with ``contracts/<tool>/contract.yaml``, a plain ``pytest`` (or ``pytest
contracts``) collects, per contract, one item per case — fixtures and near-miss mutations —
with ids like ``contracts/review_status/contract.yaml::mutation::add_extra_property@/data[approved]``.
It is a thin adapter over the same engine as ``contract-harness check``; it works with ``-k``,
``-n`` (pytest-xdist) and ``--junitxml``, and adds a tools x layers table to the summary.
With ``--drift`` (opt-in: it talks to live upstreams) each contract also gets drift items,
one per upstream sample request (and per advertised MCP schema), marked ``drift``, with ids
like ``contracts/review_status/contract.yaml::drift::sandbox[CR-1042]``. A request drift does
not send (no sample requests; one that may change data without ``side_effects: allowed``) is a
skipped item that says why.
Each contract also gets one fuzz item per applicable property
(``contracts/review_status/contract.yaml::fuzz::accepts_valid``, marker ``fuzz``; ``--no-fuzz``
turns them off); hypothesis loads only when one of them runs.

Contracts are collected from the project root (the nearest folder upward holding
``contracts/``) even where ``testpaths`` names only ``tests``: a plain ``pytest`` never
reports "1 passed" over contracts it did not look at. Hypothesis, which the fuzz and compat
items use, keeps its caches in ``.contract-harness/hypothesis`` while they run: no
``.hypothesis/`` is left at the project's root.

This module imports almost nothing at the top, so ``pytest`` stays fast where the plugin is
installed but unused.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.cases import Case
    from harness.contract import Contract
    from harness.drift.check import DriftCheck
    from harness.engine import CaseResult, Engine

CONTRACT_FILE = "contract.yaml"
_ENGINE = pytest.StashKey[dict[str, Any]]()
_DRIFT = pytest.StashKey[dict[tuple[str, str], dict[str, Any]]]()
_ADDED = pytest.StashKey[Path | None]()
_SOURCE_MARKERS = {
    "accepted": "fixtures/accepted", "rejected": "fixtures/rejected",
    "historical": "fixtures/historical", "mutation": "near-miss mutations",
    "lint": "the lint rules on the contract's schemas",
    "compat": "schema version compatibility (every consecutive pair)",
    "fuzz": "the fuzz properties (hypothesis), one item per tool and property",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contract-harness", "tool-result contract harness")
    group.addoption("--contracts", action="append", default=None, metavar="DIR",
                    help="collect contract cases from DIR (a contracts/ folder or a project root)")
    group.addoption("--max-mutants", type=int, default=None, metavar="N",
                    help="cap near-miss mutants per fixture (default 64)")
    group.addoption("--no-contracts", action="store_true",
                    help="do not collect contract cases even where contracts/ exists")
    group.addoption("--drift", action="store_true",
                    help="also collect drift items: send each contract's upstream sample requests "
                         "(opt-in, it talks to live upstreams; marker: drift)")
    parser.addini("contract_harness_contracts", type="paths", default=[],
                  help="contract folders to collect, like --contracts")
    parser.addini("contract_harness_collect_root", type="bool", default=True,
                  help="collect the project's contracts/ even where testpaths leaves it out")
    parser.addini("contract_harness_max_mutants", type="string", default="",
                  help="cap near-miss mutants per fixture")
    group.addoption("--no-differential", action="store_true",
                    help="skip the reference validator (python jsonschema) on each case: faster, "
                         "but disagreements with the production validator go unnoticed")
    parser.addini("contract_harness_differential", type="bool", default=True,
                  help="run the reference validator on each case (differential findings)")
    group.addoption("--no-fuzz", action="store_true", help="do not collect the contracts' fuzz items")
    group.addoption("--fuzz-profile", choices=("ci", "nightly"), default=None,
                    help="hypothesis profile of the fuzz items (default ci)")
    group.addoption("--fuzz-examples", type=int, default=None, metavar="N",
                    help="examples per fuzz item (overrides the profile)")
    parser.addini("contract_harness_fuzz", type="bool", default=True,
                  help="collect one fuzz item per contract and property")
    parser.addini("contract_harness_fuzz_profile", type="string", default="ci",
                  help="hypothesis profile of the fuzz items: ci or nightly")
    parser.addini("contract_harness_fuzz_examples", type="string", default="",
                  help="examples per fuzz item (overrides the profile)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract_case: a case of the tool-result contract harness")
    for source, what in _SOURCE_MARKERS.items():
        config.addinivalue_line("markers", f"{source}: contract cases from {what}")
    config.addinivalue_line("markers", "drift: drift checks against live upstreams (collected with --drift)")
    extra = [Path(p) for p in (config.getoption("--contracts") or [])]
    extra += [Path(p) for p in config.getini("contract_harness_contracts")]
    for path in extra:
        if not path.exists():
            raise pytest.UsageError(f"--contracts {path}: no such directory")
        if str(path) not in config.args:
            config.args.append(str(path))
    config.stash[_ADDED] = _collect_project_contracts(config)
    config.stash[_ENGINE] = {}
    config.stash[_DRIFT] = {}
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(LayerTable(), "contract-harness-layer-table")


def _collect_project_contracts(config: pytest.Config) -> Path | None:
    """Where ``testpaths`` chose what to collect (no paths given) and left the project's
    ``contracts/`` out, add it: the contracts are what this plugin is for."""
    if (config.args_source is not pytest.Config.ArgsSource.TESTPATHS or config.getoption("--no-contracts")
            or not config.getini("contract_harness_collect_root")):
        return None
    from harness.project import CONTRACTS, find_root

    root = find_root(config.rootpath)
    if root is None:
        return None
    contracts = (root / CONTRACTS).resolve()
    for arg in config.args:
        path = (config.invocation_params.dir / arg.split("::")[0]).resolve()
        if path == contracts or path in contracts.parents:
            return None
    config.args.append(str(contracts))
    return contracts


def pytest_report_header(config: pytest.Config) -> str | None:
    added = config.stash.get(_ADDED, None)
    if added is None:
        return None
    return (f"contract-harness: also collecting {added} (outside testpaths; "
            "--no-contracts or contract_harness_collect_root = false leaves it out)")


@contextmanager
def _hypothesis_home(config: pytest.Config) -> Iterator[None]:
    """Hypothesis's caches in ``.contract-harness/hypothesis`` for the duration of one of our
    items, unless the user chose a place (``HYPOTHESIS_STORAGE_DIRECTORY``): no ``.hypothesis/``
    at the project's root, and the user's own hypothesis tests keep theirs."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    import hypothesis.configuration as hypothesis_configuration

    # The module-level override hypothesis keeps (None unless someone set it), restored after.
    previous = vars(hypothesis_configuration).get("__hypothesis_home_directory")
    hypothesis_configuration.set_hypothesis_home_dir(config.rootpath / ".contract-harness" / "hypothesis")
    try:
        yield
    finally:
        hypothesis_configuration.set_hypothesis_home_dir(previous)


def _max_mutants(config: pytest.Config) -> int | None:
    value = config.getoption("--max-mutants")
    if value is None and config.getini("contract_harness_max_mutants"):
        value = config.getini("contract_harness_max_mutants")
    return None if value is None else int(value)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name != CONTRACT_FILE or file_path.parent.parent.name != "contracts":
        return None
    if parent.config.getoption("--no-contracts"):
        return None
    return ContractFile.from_parent(parent, path=file_path)


class ContractFile(pytest.File):
    """``contracts/<tool>/contract.yaml``: one collector per case source below it."""

    def collect(self) -> Any:
        from harness import lock
        from harness.cases import DEFAULT_MAX_MUTANTS, cases_for
        from harness.contract import load_contract
        from harness.errors import one_line
        from harness.project import check_layout

        max_mutants = _max_mutants(self.config)
        try:
            contract = load_contract(self.path.parent)
            check_layout([contract.root])
            lock.verify(contract)
            collected = cases_for(
                contract, max_mutants=DEFAULT_MAX_MUTANTS if max_mutants is None else max_mutants
            )
        except Exception as exc:
            # The same one line as the CLI's, for a contract, a schema, a fixture, a sidecar, the
            # layout or the lock (``--debug``-style tracebacks: pytest's own ``--full-trace``).
            if self.config.getoption("fulltrace"):
                raise
            raise self.CollectError(one_line(exc)) from None
        by_source: dict[str, list[Case]] = {}
        for case in collected.cases:
            by_source.setdefault(case.source, []).append(case)
        for source, cases in by_source.items():
            yield CaseGroup.from_parent(self, name=source, cases=cases)
        yield LintItem.from_parent(self, name="lint", contract=contract)
        # Version pairs without importing harness.compat (heavy): it loads when a pair runs.
        for old, new in itertools.pairwise(contract.versions):
            yield CompatPair.from_parent(self, name=f"compat-v{old}-v{new}", contract=contract,
                                         old=old, new=new)
        if self.config.getoption("--drift") and contract.upstreams:
            yield DriftGroup.from_parent(self, name="drift", contract=contract)
        if _fuzz_enabled(self.config):
            yield FuzzGroup.from_parent(self, name="fuzz", contract=contract)


class CaseGroup(pytest.Collector):
    def __init__(self, *, cases: list[Case], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cases = cases

    def collect(self) -> Any:
        for case in self.cases:
            yield CaseItem.from_parent(self, name=case.label, case=case)


class CaseNotHeld(Exception):
    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.detail)
        self.result = result


def _engine(config: pytest.Config) -> Engine:
    from harness.engine import Engine

    store = config.stash[_ENGINE]
    if "engine" not in store:
        differential = not config.getoption("--no-differential") and config.getini("contract_harness_differential")
        store["engine"] = Engine(differential=bool(differential))
    return store["engine"]  # type: ignore[no-any-return]


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.add_marker("contract_case")
        self.add_marker(case.source)
        self.extra_keyword_matches.update({case.tool, case.source, case.operator or ""} - {""})

    def runtest(self) -> None:
        result = _engine(self.config).evaluate(self.case)
        self.user_properties.extend(
            [
                ("contract_harness", "1"),
                ("tool", result.tool),
                ("source", result.source),
                ("expected", result.expected.describe()),
                ("layer", result.column),
                ("code", result.code or ""),
                ("status", result.status),
            ]
        )
        if result.status != "passed":
            raise CaseNotHeld(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseNotHeld):
            from harness.reporting.terminal import problem_text

            return problem_text(excinfo.value.result).strip()
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.case.id


class LintItem(pytest.Item):
    """The contract's schemas against the lint rules (waivers in contract.yaml apply)."""

    def __init__(self, *, contract: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        self.add_marker("lint")

    def runtest(self) -> None:
        from harness.lint import lint_contract

        report = lint_contract(self.contract)
        if not report.ok:
            raise LintFailed(report)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, LintFailed):
            from harness.lint.reporters import render_text

            return render_text(excinfo.value.report, root=self.contract.root).strip()
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.contract.tool}::lint"


class LintFailed(Exception):
    def __init__(self, report: Any) -> None:
        super().__init__(f"{len(report.findings)} lint findings")
        self.report = report


class CompatPair(pytest.Collector):
    """One consecutive version pair: the policy, the classifier, the replayed fixtures.

    The comparison runs once, when the first of its items runs, and is shared by the others.
    """

    CHECKS = ("policy", "classifier", "replay")

    def __init__(self, *, contract: Any, old: int, new: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract, self.old, self.new = contract, old, new
        self._report: Any = None

    def report(self) -> Any:
        if self._report is None:
            with _hypothesis_home(self.config):  # hypothesis-jsonschema writes caches on import
                from harness.compat.api import compare

                self._report = compare(self.contract, self.old, self.new)
        return self._report

    def collect(self) -> Any:
        for check in self.CHECKS:
            yield CompatItem.from_parent(self, name=check)


class CompatItem(pytest.Item):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker("compat")

    def runtest(self) -> None:
        assert isinstance(self.parent, CompatPair)
        report = self.parent.report()
        checks = [c for c in report.checks
                  if c.name == self.name or (self.name == "replay" and c.name.startswith("replay::"))]
        failed = [c for c in checks if not c.ok]
        if failed:
            raise CompatFailed("\n".join(f"{c.name}: {c.detail}" for c in failed))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CompatFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        assert isinstance(self.parent, CompatPair)
        return self.path, None, f"{self.parent.contract.tool}::{self.parent.name}::{self.name}"


class CompatFailed(Exception):
    pass


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
                yield DriftItem.from_parent(self, name=f"{target.upstream.name}[{label}]",
                                            contract=self.contract, upstream=target.upstream.name)


class DriftNotHeld(Exception):
    def __init__(self, check: DriftCheck) -> None:
        super().__init__(check.detail())
        self.check = check


class DriftItem(pytest.Item):
    """One drift check. The first item of an upstream runs the whole upstream (one session, one
    server process) and the rest read its results."""

    def __init__(self, *, contract: Contract, upstream: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        self.upstream = upstream
        self.add_marker("drift")
        self.extra_keyword_matches.update({contract.tool, upstream})

    def _checks(self) -> dict[str, Any]:
        from harness.drift.runner import DriftRunner, plan

        store = self.config.stash[_DRIFT]
        key = (str(self.contract.path), self.upstream)
        if key not in store:
            checks, _ = DriftRunner(plan([self.contract], upstreams=[self.upstream])).run()
            store[key] = {c.id: c for c in checks}
        return store[key]

    def runtest(self) -> None:
        check = self._checks()[f"{self.contract.tool}::drift::{self.name}"]
        self.user_properties.extend([
            ("tool", check.tool), ("upstream", check.upstream), ("source", "drift"),
            ("drift_status", check.status), ("code", check.verdict.code or "" if check.verdict else ""),
            ("changes", str(len(check.changes))),
        ])
        if check.status == "not_called":  # deliberately not sent: a skip with the reason, never a failure
            pytest.skip(check.detail())
        if check.status != "held":
            raise DriftNotHeld(check)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DriftNotHeld):
            from harness.reporting.drift import check_text

            return check_text(excinfo.value.check).strip()
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.contract.tool}::drift::{self.name}"


def _fuzz_enabled(config: pytest.Config) -> bool:
    return not config.getoption("--no-fuzz") and bool(config.getini("contract_harness_fuzz"))


def _fuzz_options(config: pytest.Config) -> Any:
    from harness.fuzz.runner import PROFILES, FuzzOptions

    profile = config.getoption("--fuzz-profile") or config.getini("contract_harness_fuzz_profile") or "ci"
    if profile not in PROFILES:
        raise pytest.UsageError(f"contract_harness_fuzz_profile {profile!r}: use one of {', '.join(PROFILES)}")
    examples = config.getoption("--fuzz-examples")
    if examples is None and config.getini("contract_harness_fuzz_examples"):
        examples = int(config.getini("contract_harness_fuzz_examples"))
    root = config.rootpath / ".contract-harness" / "fuzz"
    return FuzzOptions(profile=PROFILES[profile], examples=examples, fixtures_dir=root,
                       database_dir=root / "examples")


class FuzzGroup(pytest.Collector):
    """The fuzz properties of one contract; their generators are built once, when the first
    item runs, and shared by the others."""

    def __init__(self, *, contract: Any, **kwargs: Any) -> None:
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
            yield FuzzItem.from_parent(self, name=prop.name)


class FuzzItem(pytest.Item):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker("fuzz")
        assert isinstance(self.parent, FuzzGroup)
        self.extra_keyword_matches.update({self.parent.contract.tool, "fuzz"})

    def runtest(self) -> None:
        assert isinstance(self.parent, FuzzGroup)
        with _hypothesis_home(self.config):  # hypothesis-jsonschema writes caches on import
            from harness.fuzz.properties import PROPERTIES
            from harness.fuzz.runner import run_property

            store = self.config.stash[_ENGINE]
            if "fuzz-options" not in store:
                store["fuzz-options"] = _fuzz_options(self.config)
            outcome = run_property(self.parent.subject(), PROPERTIES[self.name], store["fuzz-options"])
        self.user_properties.extend([("tool", outcome.tool), ("property", outcome.prop),
                                     ("examples", str(outcome.examples)), ("status", outcome.status)])
        if not outcome.ok:
            raise FuzzFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, FuzzFailed):
            from harness.reporting.fuzz import outcome_text

            return outcome_text(excinfo.value.outcome)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        assert isinstance(self.parent, FuzzGroup)
        return self.path, None, f"{self.parent.contract.tool}::fuzz::{self.name}"


class FuzzFailed(Exception):
    def __init__(self, outcome: Any) -> None:
        super().__init__(outcome.detail)
        self.outcome = outcome


class LayerTable:
    """Collects the contract items' results (also from xdist workers) for the summary table."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            props = dict(report.user_properties)
            if props.get("contract_harness") == "1":
                self.results.append(props)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.results:
            return
        from collections import Counter

        from harness.engine import Summary

        columns = Summary.columns()
        tools: dict[str, Counter[str]] = {}
        for props in self.results:
            counts = tools.setdefault(props["tool"], Counter())
            counts[props["layer"]] += 1
            counts["cases"] += 1
            counts[props["status"]] += 1
        header = ["tool", "cases", *columns, "failed", "findings"]
        rows = [[name, str(c["cases"]), *(str(c[col]) for col in columns), str(c["failed"]),
                 str(c["finding"])] for name, c in sorted(tools.items())]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        terminalreporter.write_sep("=", "contract cases by rejecting layer")
        for row in [header, *rows]:
            terminalreporter.write_line("  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ))
