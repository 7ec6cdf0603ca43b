"""pytest plugin (entry point ``pytest11``): the hooks. A plain ``pytest`` in a project collects
each contract's cases, lint, compat, fuzz and (``--drift``) drift items, with ids like
``contracts/review_status/contract.yaml::mutation::add_extra_property@/data[approved]``, through
the same engine as ``contract-harness check`` (docs/harness.md, "pytest"): from the project
root even where ``testpaths`` leaves ``contracts/`` out, saying what it collected and from where.

It imports almost nothing at the top, so ``pytest`` stays fast where the plugin is installed but
unused: the options are :mod:`harness.pytest_options`, the collectors and items
:mod:`harness.pytest_items` (imported when a contract is collected), the opt-in xdist
scheduling :mod:`harness.pytest_schedule`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.pytest_options import (
    CONTRACT_FILE,
    ENGINE,
    LAYOUTS,
    add_options,
    fuzz_settings,
    opted_in,
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
    """With ``--contract-plain-imports``, a finder ahead of pytest's assertion rewriting: the
    library, and hypothesis where pytest cannot cache rewritten code (``sys.dont_write_bytecode``),
    imported as ``python`` imports them, not compiled again on every run (docs/benchmarks.md).
    A file outside their folders (a user's package of the same name) is left to pytest."""

    def __init__(self) -> None:
        self.packages: dict[str, tuple[str, ...]] = {}  # top-level package -> its folders

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        folders = self.packages.get(name.partition(".")[0])
        if not folders:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        return spec if (getattr(spec, "origin", None) or "").startswith(folders) else None

    def install(self) -> None:
        """First in ``sys.meta_path``, once however many sessions a process configures."""
        import importlib.util
        import os
        import sys

        packages: dict[str, tuple[str, ...]] = {"harness": (os.path.dirname(__file__),)}
        found = importlib.util.find_spec("hypothesis") if sys.dont_write_bytecode else None
        if found is not None and found.submodule_search_locations:
            packages["hypothesis"] = tuple(found.submodule_search_locations)
        self.packages = {name: tuple(os.path.join(f, "") for f in folders) for name, folders in packages.items()}
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        sys.meta_path.insert(0, self)


_PLAIN_IMPORTS = PlainImports()


def pytest_configure(config: pytest.Config) -> None:
    if opted_in(config, "--contract-plain-imports", "contract_harness_plain_imports"):
        _PLAIN_IMPORTS.install()
    config.addinivalue_line("markers", "contract_case: a case of the tool-result contract harness")
    for source, what in _SOURCE_MARKERS.items():
        config.addinivalue_line("markers", f"{source}: contract cases from {what}")
    config.addinivalue_line("markers", "drift: drift checks against live upstreams (collected with --drift)")
    for path in [*map(Path, config.getoption("--contracts") or []), *config.getini("contract_harness_contracts")]:
        if not path.exists():
            raise pytest.UsageError(f"--contracts {path}: no such directory")
        if str(path) not in config.args:
            config.args.append(str(path))
    # Every setting's ini value checked now: a bad one is one usage line before anything runs.
    setting(config, "--max-mutants", "contract_harness_max_mutants", int)
    fuzz_settings(config)
    config.stash[_ADDED] = _added_contracts(config)
    config.stash[ENGINE], config.stash[LAYOUTS] = {}, {}
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(LayerTable(), "contract-harness-layer-table")


def _added_contracts(config: pytest.Config) -> tuple[Path, str] | None:
    """The project's contracts this plugin adds to what pytest collects, and why; None: none.
    Where ``testpaths`` chose what to collect and left the project's ``contracts/`` out, it; where
    pytest ran without paths, what :func:`~harness.project.contracts_around` its folder says."""
    if config.getoption("--no-contracts") or not config.getini("contract_harness_collect_root"):
        return None
    from harness.project import CONTRACTS, contracts_around, find_root

    added: tuple[Path, str] | None = None
    if config.args_source is pytest.Config.ArgsSource.TESTPATHS:
        root = find_root(config.rootpath)
        if root is None:
            return None
        contracts = (root / CONTRACTS).resolve()
        for arg in config.args:
            path = (config.invocation_params.dir / arg.split("::")[0]).resolve()
            if path == contracts or path in contracts.parents:
                return None
        added = contracts, "outside testpaths"
    elif config.args_source is pytest.Config.ArgsSource.INVOCATION_DIR:
        added = contracts_around(config.invocation_params.dir)
    if added is not None:
        config.args.append(str(added[0]))
    return added


def pytest_report_collectionfinish(config: pytest.Config, start_path: Path, items: list[pytest.Item]) -> list[str]:
    """What the plugin collected, and from where (a run given other paths: where the project's
    contracts are). An xdist controller collects nothing itself: its header says it instead."""
    ours = [contract for item in items if (contract := getattr(item, "contract", None)) is not None]
    contracts = {contract.tool: contract.directory for contract in ours}
    if contracts:
        from harness.project import relative_folder

        folders = sorted({relative_folder(d.parent, start_path) for d in contracts.values()})
        count = len(ours)
        added = config.stash.get(_ADDED, None)
        return [f"contract-harness: {count} items of {len(contracts)} contract{'s' if len(contracts) != 1 else ''} "
                f"({', '.join(sorted(contracts))}) from {', '.join(folders)}{f' ({added[1]})' if added else ''}"]
    if (hasattr(config, "workerinput") or config.getoption("--no-contracts") or config.option.verbose < 0
            or not config.getini("contract_harness_collect_root") or config.pluginmanager.has_plugin("dsession")):
        return []
    from harness.project import CONTRACTS, find_root, relative_folder

    root = find_root(config.invocation_params.dir)
    if root is None:
        return []
    where = relative_folder(root / CONTRACTS, start_path)
    return [f"contract-harness: no contract collected from the paths given; the project's contracts are in "
            f"{where} (`pytest` with no path, or `pytest {where}`, collects them)"]


def pytest_report_header(config: pytest.Config) -> str | None:
    added = config.stash.get(_ADDED, None)
    if added is None:
        return None
    return (f"contract-harness: also collecting {added[0]} ({added[1]}; "
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
        from harness.pytest_schedule import spread

        items[:] = spread(items, lambda item: getattr(item, "marker", None) == "fuzz")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--contract-scheduling``, under ``-n`` with xdist's default ``--dist load``: the
    items that share one computation go to one worker together, the long ones first
    (:mod:`harness.pytest_schedule`). Without it, with any other ``--dist``, or with an xdist
    other than 3.x (whose load scheduler's internals it extends), scheduling is xdist's own."""
    from importlib.metadata import version

    if not opted_in(config, "--contract-scheduling", "contract_harness_scheduling") \
            or config.getvalue("dist") != "load" or version("pytest-xdist").split(".")[0] != "3":
        return None
    from harness.pytest_schedule import ContractScheduling

    profile = setting(config, "--fuzz-profile", "contract_harness_fuzz_profile", str) or "ci"
    return ContractScheduling(config, log, fuzz_by_contract=profile == "ci")


class LayerTable:
    """Collects the contract items' results (also from xdist workers) into the harness's summary,
    and prints its tools x layers table (:meth:`harness.events.Summary.table`) after pytest's."""

    def __init__(self) -> None:
        self.summary: Any = None  # made at the first case: a project without contracts loads no library
        self.fuzz: list[dict[str, Any]] = []
        #: Documents the differential check compared; of them, with a saved verdict, and undecided.
        self.verdicts = {"compared": 0, "saved": 0, "undecided": 0}
        self.state_warnings: dict[str, None] = {}  # about the saved state, each once

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        props: dict[str, Any] = dict(report.user_properties)
        self.state_warnings.update(dict.fromkeys(str(props.get("state_warning", "")).splitlines()))
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
        write = terminalreporter.write_line
        for warning in self.state_warnings:
            write(f"contract-harness: warning: {warning}")
        if self.fuzz:
            from harness.fuzz.replay import summary_lines

            terminalreporter.write_sep("=", "contract fuzz: replayed and generated")
            for line in summary_lines([(p["tool"], p["property"], p["fuzz_mode"], p["fuzz_why"], int(p["examples"]))
                                       for p in self.fuzz]):
                write(line)
            for warning in sorted({w for p in self.fuzz for w in str(p.get("fuzz_warning", "")).splitlines()}):
                write(warning)
        if self.summary is None:
            return
        from harness.events import saved_line, table_lines, undecided_line

        terminalreporter.write_sep("=", "contract cases by rejecting layer")
        header, rows = self.summary.table()
        for line in table_lines(header, rows, terminalreporter.config.get_terminal_writer().fullwidth):
            write(line)
        if self.verdicts["saved"] and terminalreporter.config.option.verbose > 0:
            write(saved_line(self.verdicts))
        if self.verdicts["undecided"]:
            write(undecided_line(self.verdicts))
