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
``contracts/``) even where ``testpaths`` names only ``tests``, and wherever a plain ``pytest``
runs inside the project: it never reports "1 passed" over contracts it did not look at, and
says what it collected and from where. Hypothesis, which the fuzz and compat
items use, keeps its caches in ``.contract-harness/hypothesis`` while they run: no
``.hypothesis/`` is left at the project's root.

This module keeps the hooks; the options and the one place an option and its ini key are
resolved are :mod:`harness.pytest_options`; the collectors and items are in
:mod:`harness.pytest_items`, imported when a contract is collected. It imports almost nothing at
the top, so ``pytest`` stays fast where the plugin is installed but unused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.pytest_options import (
    CONTRACT_FILE,
    ENGINE,
    FUZZ_GENERATORS,
    FUZZ_PROFILES,
    LAYOUTS,
    STORE_DRIFT,
    add_options,
    boolean,
    scheduling,
    setting,
)

_ADDED = pytest.StashKey[tuple[Path, str] | None]()
_SOURCE_MARKERS = {
    "accepted": "fixtures/accepted", "rejected": "fixtures/rejected",
    "historical": "fixtures/historical", "mutation": "near-miss mutations",
    "lint": "the lint rules on the contract's schemas",
    "compat": "schema version compatibility (every consecutive pair)",
    "fuzz": "the fuzz properties (hypothesis), one item per tool and property",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


class PlainImports:
    """A finder ahead of pytest's assertion rewriting: the library's own modules are imported as a
    plain ``python`` imports them, and so are hypothesis's where pytest cannot cache them.

    pytest rewrites the asserts of every module of a distribution that ships a ``pytest11``
    plugin (this package's, and hypothesis's ``_hypothesis_pytestplugin``) and caches the
    rewritten code beside the source. Where it cannot write that cache (``sys.dont_write_bytecode``:
    ``PYTHONDONTWRITEBYTECODE``, set in many CI images) it parses and compiles each such module
    on every run, in every xdist worker: on 2 cores, the 2-tool project ``init`` makes took 4.0-6.3 s
    instead of 2.2 s, ``--no-fuzz`` 2.4 s instead of 1.1 s (docs/benchmarks.md). The library holds
    no test whose asserts pytest should explain (its ``__init__`` says PYTEST_DONT_REWRITE, so a
    nested pytest session in the same process does not warn that it cannot rewrite it). Hypothesis
    is left to pytest where the cache can be written: a nested in-process session
    (``pytester.runpytest``) would otherwise warn that it cannot rewrite it. The user's own test
    modules and conftests are rewritten as before. A name this finder cannot place (an editable
    install's own finder) is left to the finders after it."""

    def __init__(self) -> None:
        #: Top-level package name -> the folders its files are in (only files there are taken:
        #: a user's own package of the same name is left to pytest).
        self.packages: dict[str, tuple[str, ...]] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        folders = self.packages.get(name.partition(".")[0])
        if not folders:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        origin = getattr(spec, "origin", None) or ""
        return spec if origin.startswith(folders) else None


_PLAIN_IMPORTS = PlainImports()


def _import_plainly() -> None:
    """:class:`PlainImports` first in ``sys.meta_path`` (once, however many sessions a process
    configures: pytester's in-process runs)."""
    import importlib.util
    import os
    import sys

    packages: dict[str, tuple[str, ...]] = {"harness": (os.path.dirname(__file__),)}  # this folder: the package
    if sys.dont_write_bytecode:
        found = importlib.util.find_spec("hypothesis")  # its location only: nothing is imported
        if found is not None and found.submodule_search_locations:
            packages["hypothesis"] = tuple(found.submodule_search_locations)
    _PLAIN_IMPORTS.packages = {name: tuple(os.path.join(folder, "") for folder in folders)
                               for name, folders in packages.items()}
    if _PLAIN_IMPORTS in sys.meta_path:
        sys.meta_path.remove(_PLAIN_IMPORTS)
    sys.meta_path.insert(0, _PLAIN_IMPORTS)


def pytest_configure(config: pytest.Config) -> None:
    _import_plainly()
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
    # Every setting's ini value checked now: a bad one is one usage line before anything runs.
    setting(config, "--max-mutants", "contract_harness_max_mutants", int)
    setting(config, "--fuzz-examples", "contract_harness_fuzz_examples", int)
    setting(config, "--fuzz-profile", "contract_harness_fuzz_profile", str, choices=FUZZ_PROFILES)
    setting(config, "--fuzz-regenerate", "contract_harness_fuzz_regenerate", boolean)
    setting(config, "--fuzz-generator", "contract_harness_fuzz_generator", str, choices=FUZZ_GENERATORS)
    config.stash[_ADDED] = _collect_project_contracts(config)
    config.stash[ENGINE] = {}
    config.stash[STORE_DRIFT] = {}
    config.stash[LAYOUTS] = {}
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(LayerTable(), "contract-harness-layer-table")


def _collect_project_contracts(config: pytest.Config) -> tuple[Path, str] | None:
    """The project's contracts this plugin adds to what pytest collects, and why; None: none.

    - Where ``testpaths`` chose what to collect (no paths given) and left the project's
      ``contracts/`` out, add it: the contracts are what this plugin is for.
    - Where pytest was run, without paths, from a folder inside the project's ``fixtures/`` or
      inside one contract's folder (``contracts/<tool>/schemas/``), where no ``contract.yaml``
      lies below, add the contract that folder belongs to (``fixtures/accepted/<tool>/...``:
      that tool's; ``fixtures/`` or ``fixtures/accepted/``: all of them), as ``check`` runs from
      there; from any other folder of the project (``tests/``), every contract besides what
      pytest finds there."""
    if config.getoption("--no-contracts") or not config.getini("contract_harness_collect_root"):
        return None
    from harness.project import CONTRACTS, find_root

    if config.args_source is pytest.Config.ArgsSource.TESTPATHS:
        root = find_root(config.rootpath)
        if root is None:
            return None
        contracts = (root / CONTRACTS).resolve()
        for arg in config.args:
            path = (config.invocation_params.dir / arg.split("::")[0]).resolve()
            if path == contracts or path in contracts.parents:
                return None
        config.args.append(str(contracts))
        return contracts, "outside testpaths"
    if config.args_source is pytest.Config.ArgsSource.INVOCATION_DIR:
        return _contracts_of_the_folder(config)
    return None


def _relative(path: Path, start: Path) -> str:
    """``path`` as seen from ``start`` when below it (``contracts/``), else as it is."""
    try:
        return f"{path.relative_to(start)}/" if path != start else "./"
    except ValueError:
        return f"{path}/"


def _contracts_of_the_folder(config: pytest.Config) -> tuple[Path, str] | None:
    from harness.project import CONTRACTS, FIXTURE_KINDS, FIXTURES, find_root

    here = config.invocation_params.dir.resolve()
    root = find_root(here)
    if root is None:
        return None
    contracts, fixtures = (root / CONTRACTS).resolve(), (root / FIXTURES).resolve()
    if here == fixtures or fixtures in here.parents:
        parts = here.relative_to(fixtures).parts
        tool = contracts / parts[1] if len(parts) >= 2 and parts[0] in FIXTURE_KINDS else None
        added, why = ((tool, f"the contract of the fixtures in {here.name}/") if tool is not None and tool.is_dir()
                      else (contracts, "the contracts of the fixtures folder pytest ran in"))
    elif contracts in here.parents and len(here.relative_to(contracts).parts) >= 2:
        added = contracts / here.relative_to(contracts).parts[0]
        why = f"the contract {here.name}/ belongs to"
    elif here == contracts or here in contracts.parents:
        return None  # pytest finds them below where it runs
    else:  # tests/, docs/, any folder of the project: its contracts, as `check` runs them from there
        added, why = contracts, f"the project around {_relative(here, root)}"
    if not added.is_dir():
        return None
    config.args.append(str(added))
    return added, why


def pytest_report_collectionfinish(config: pytest.Config, start_path: Path, items: list[pytest.Item]) -> list[str]:
    """What the plugin collected, and from where (a run given other paths: where the project's
    contracts are). An xdist controller collects nothing itself: its header says it instead."""
    contracts: dict[str, Path] = {}
    for test in items:
        contract = getattr(test, "contract", None)
        if contract is not None:
            contracts.setdefault(contract.tool, contract.directory)
    if not contracts:
        if (hasattr(config, "workerinput") or config.getoption("--no-contracts") or config.option.verbose < 0
                or not config.getini("contract_harness_collect_root")):
            return []
        from harness.project import CONTRACTS, find_root

        root = find_root(config.invocation_params.dir)
        if root is None or config.pluginmanager.has_plugin("dsession"):
            return []
        return [f"contract-harness: no contract collected from the paths given; the project's contracts are in "
                f"{_relative(root / CONTRACTS, start_path)} (`pytest` with no path, or `pytest "
                f"{_relative(root / CONTRACTS, start_path)}`, collects them)"]
    folders = sorted({_relative(d.parent, start_path) for d in contracts.values()})
    count = sum(getattr(test, "contract", None) is not None for test in items)
    added = config.stash.get(_ADDED, None)
    why = f" ({added[1]})" if added is not None else ""
    return [f"contract-harness: {count} items of {len(contracts)} contract{'s' if len(contracts) != 1 else ''} "
            f"({', '.join(sorted(contracts))}) from {', '.join(folders)}{why}"]


def pytest_report_header(config: pytest.Config) -> str | None:
    added = config.stash.get(_ADDED, None)
    if added is None:
        return None
    path, why = added
    return (f"contract-harness: also collecting {path} ({why}; "
            "--no-contracts or contract_harness_collect_root = false leaves it out)")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Save the reference's verdicts this process obtained (each xdist worker its own)."""
    store = session.config.stash.get(ENGINE, {})
    if "engine" in store:
        store["engine"].differentials.finish()
        import sys

        for warning in store.get("warnings", ()):  # met while saving, after the last item
            print(f"contract-harness: warning: {warning}", file=sys.stderr)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name != CONTRACT_FILE or file_path.parent.parent.name != "contracts":
        return None
    if parent.config.getoption("--no-contracts"):
        return None
    from harness.pytest_items import ContractFile

    return ContractFile.from_parent(parent, path=file_path)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, spread the fuzz items evenly among the others (every worker collects
    the same order): xdist hands out runs of consecutive items, and the fuzz items, the long
    ones, are collected last per contract, so one worker could get a tool's all while the other
    ran out of work."""
    if hasattr(config, "workerinput"):
        items[:] = spread(items, lambda item: getattr(item, "marker", None) == "fuzz")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--contract-scheduling``, under ``-n`` with xdist's default ``--dist load``: the
    items that share one computation (a compat pair's, a drift upstream's, in the ci profile a
    contract's fuzz items) go to one worker together, and the long ones go out first, the short
    ones last (:mod:`harness.pytest_schedule`). Without it, with any other ``--dist``, or with an
    xdist other than 3.x, scheduling is xdist's own."""
    if not scheduling(config) or config.getvalue("dist") != "load" or not _tested_xdist():
        return None
    from harness.pytest_schedule import ContractScheduling

    profile = setting(config, "--fuzz-profile", "contract_harness_fuzz_profile", str) or "ci"
    return ContractScheduling(config, log, fuzz_by_contract=profile == "ci")


def _tested_xdist() -> bool:
    """Whether the installed pytest-xdist is a version whose load scheduler's internals the
    plugin's scheduling is tested with (3.x, the ``xdist`` extra's range); another is left to
    schedule alone."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = int(version("pytest-xdist").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return False
    return major == 3


def spread(items: list[Any], long: Callable[[Any], bool]) -> list[Any]:
    """``items`` with those ``long`` says are long placed at even intervals among the others
    (each group in its own order)."""
    heavy = [item for item in items if long(item)]
    light = [item for item in items if not long(item)]
    if not heavy or not light:
        return items
    out: list[Any] = []
    step = len(light) / len(heavy)
    taken = 0
    for k, item in enumerate(heavy):
        until = round(k * step)
        out.extend(light[taken:until])
        taken = until
        out.append(item)
    out.extend(light[taken:])
    return out


class LayerTable:
    """Collects the contract items' results (also from xdist workers) into the harness's summary,
    and prints its tools x layers table (:meth:`harness.engine.Summary.table`) after pytest's."""

    def __init__(self) -> None:
        #: The cases counted as their reports arrive (nothing kept per case); made at the first,
        #: so a project without contracts imports nothing of the library.
        self.summary: Any = None
        self.fuzz: list[dict[str, Any]] = []
        #: The documents the differential check compared, those of them it compared with the
        #: reference's verdict saved by an earlier run, and those the reference gave no verdict on.
        self.verdicts = {"compared": 0, "saved": 0, "undecided": 0}
        #: Warnings about the saved state (a saved file not taken), each once.
        self.state_warnings: dict[str, None] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            props: dict[str, Any] = dict(report.user_properties)
            for warning in str(props.get("state_warning", "")).splitlines():
                self.state_warnings[warning] = None
            if props.get("contract_harness") == "1":
                if self.summary is None:
                    from harness.events import Summary

                    self.summary = Summary()
                self.summary.count_case(str(props["tool"]), str(props["layer"]), str(props["status"]))
                if "reference_verdict" in props:
                    self.verdicts["compared"] += 1
                    self.verdicts["saved"] += props["reference_verdict"] == "saved"
                    self.verdicts["undecided"] += props["reference_verdict"] == "undecided"
            elif "fuzz_mode" in props:
                self.fuzz.append(props)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for warning in self.state_warnings:
            terminalreporter.write_line(f"contract-harness: warning: {warning}")
        if self.fuzz:
            from harness.fuzz.replay import summary_lines

            terminalreporter.write_sep("=", "contract fuzz: replayed and generated")
            fuzzed = [(p["tool"], p["property"], p["fuzz_mode"], p["fuzz_why"], int(p["examples"])) for p in self.fuzz]
            for line in summary_lines(fuzzed):
                terminalreporter.write_line(line)
            for warning in sorted({w for p in self.fuzz for w in str(p.get("fuzz_warning", "")).splitlines()}):
                terminalreporter.write_line(warning)
        if self.summary is None:
            return
        header, rows = self.summary.table()
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        terminalreporter.write_sep("=", "contract cases by rejecting layer")
        width = terminalreporter.config.get_terminal_writer().fullwidth
        if sum(widths) + 2 * (len(widths) - 1) > width:
            from harness.events import fold  # a narrow terminal: a block per tool, its name whole

            for line in fold(header, rows, width):
                terminalreporter.write_line(line)
        else:
            for row in [header, *rows]:
                terminalreporter.write_line("  ".join(
                    cell.ljust(w) if i == 0 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(row, widths, strict=True))
                ))
        if self.verdicts["saved"] and terminalreporter.config.option.verbose > 0:
            from harness.events import saved_line

            terminalreporter.write_line(saved_line(self.verdicts))
        if self.verdicts["undecided"]:
            from harness.events import undecided_line

            terminalreporter.write_line(undecided_line(self.verdicts))
