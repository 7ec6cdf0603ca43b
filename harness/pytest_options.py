"""The pytest plugin's options and ini keys, the one place an option and its ini key are resolved
(:func:`setting`, :func:`switch`), and what the hooks, the items and the scheduling share: the
stash keys and an item's :class:`ItemKey`. The plugin (:mod:`harness.pytest_plugin`), the items
(:mod:`harness.pytest_items`) and the scheduling (:mod:`harness.pytest_schedule`) import this
module, and it imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CONTRACT_FILE = "contract.yaml"
#: The fuzz profiles (harness.fuzz.runner.PROFILES, named here so this module imports nothing).
FUZZ_PROFILES = ("ci", "nightly")
FUZZ_GENERATORS = ("sampled", "native")
#: Per-run state of the items: the engine, the fuzz options (``harness.pytest_items``).
ENGINE = pytest.StashKey[dict[str, Any]]()
#: Each project root's layout check, once a session: its first problem, or None.
LAYOUTS = pytest.StashKey[dict[Path, Any]]()


def add_options(parser: pytest.Parser) -> None:
    """The plugin's command-line options and ini keys."""
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
    group.addoption("--no-saved-verdicts", action="store_true",
                    help="validate every document with the reference afresh: neither read nor write "
                         "the reference's verdicts saved by earlier runs (.contract-harness/check/reference/)")
    parser.addini("contract_harness_saved_verdicts", type="bool", default=True,
                  help="take the reference's verdicts saved by earlier runs (and save this run's)")
    group.addoption("--no-fuzz", action="store_true", help="do not collect the contracts' fuzz items")
    group.addoption("--fuzz-profile", choices=FUZZ_PROFILES, default=None,
                    help="hypothesis profile of the fuzz items (default ci)")
    group.addoption("--fuzz-examples", type=int, default=None, metavar="N",
                    help="examples per fuzz item (overrides the profile)")
    group.addoption("--fuzz-regenerate", action="store_true", default=None,
                    help="generate new fuzz examples even where a property's inputs are unchanged since its "
                         "last green run (the ci profile otherwise replays that run's examples)")
    parser.addini("contract_harness_fuzz_regenerate", type="string", default="",
                  help="always generate fuzz examples (true/false), like --fuzz-regenerate")
    group.addoption("--fuzz-generator", choices=FUZZ_GENERATORS, default=None,
                    help="sampled: each value sampled from one hypothesis seed, a failure searched again "
                         "natively to shrink it (default); native: hypothesis draws every choice")
    parser.addini("contract_harness_fuzz_generator", type="string", default="sampled",
                  help="how the fuzz items draw their examples: sampled or native")
    parser.addini("contract_harness_fuzz", type="bool", default=True,
                  help="collect one fuzz item per contract and property")
    parser.addini("contract_harness_fuzz_profile", type="string", default="ci",
                  help="hypothesis profile of the fuzz items: ci or nightly")
    parser.addini("contract_harness_fuzz_examples", type="string", default="",
                  help="examples per fuzz item (overrides the profile)")
    group.addoption("--contract-scheduling", action="store_true", default=None,
                    help="under -n: give the long contract items (fuzz, compat, drift) out first, each group "
                         "that shares one computation to one worker (pytest-xdist's load scheduling, extended)")
    parser.addini("contract_harness_scheduling", type="bool", default=False,
                  help="under -n, the plugin's own scheduling of the long contract items, like "
                       "--contract-scheduling")
    group.addoption("--contract-plain-imports", action="store_true", default=None,
                    help="import the harness (and, where pytest cannot cache rewritten modules, hypothesis) "
                         "without pytest's assertion rewriting: faster under PYTHONDONTWRITEBYTECODE")
    parser.addini("contract_harness_plain_imports", type="bool", default=False,
                  help="import the harness without assertion rewriting, like --contract-plain-imports")


def setting(config: pytest.Config, option: str, ini: str, convert: Callable[[str], Any] = str, *,
            choices: tuple[str, ...] | None = None) -> Any:
    """A setting's value: the command-line ``option`` when given, else the ``ini`` key when set in
    the project's configuration (converted; a bad value is a one-line usage error), else None.
    A number below the option's :data:`MINIMUM` is a usage error too, however it was given."""
    value = config.getoption(option)
    given = f"{option} {value}"
    if value is None:
        text = config.getini(ini)
        if text in ("", None):
            return None
        try:
            value = convert(text)
        except ValueError:
            raise pytest.UsageError(f"{ini} {text!r}: not a valid {getattr(convert, '__name__', 'value')}") from None
        if choices is not None and value not in choices:
            raise pytest.UsageError(f"{ini} {text!r}: use one of {', '.join(choices)}")
        given = f"{ini} {text!r}"
    least = MINIMUM.get(option)
    if least is not None and value < least:
        raise pytest.UsageError(f"{given}: must be at least {least}")
    return value


#: The least value of the numeric settings (on the command line or in the ini file).
MINIMUM = {"--max-mutants": 0, "--fuzz-examples": 1}


def boolean(text: str) -> bool:
    """An ini key's true/false (also yes/no, on/off, 1/0); anything else is a ValueError."""
    value = {"true": True, "yes": True, "on": True, "1": True,
             "false": False, "no": False, "off": False, "0": False}.get(text.strip().lower())
    if value is None:
        raise ValueError(text)
    return value


def switch(config: pytest.Config, off: str, ini: str) -> bool:
    """A feature on by default: off with the ``off`` flag, or with ``ini = false``."""
    return not config.getoption(off) and bool(config.getini(ini))


def opted_in(config: pytest.Config, option: str, ini: str) -> bool:
    """A feature off by default: on with the ``option`` flag, or with ``ini = true``."""
    return bool(config.getoption(option) or config.getini(ini))


def fuzz_settings(config: pytest.Config) -> dict[str, Any]:
    """The fuzz items' settings, each from its option or ini key (a bad one is a usage error)."""
    return {
        "examples": setting(config, "--fuzz-examples", "contract_harness_fuzz_examples", int),
        "profile": setting(config, "--fuzz-profile", "contract_harness_fuzz_profile", str, choices=FUZZ_PROFILES),
        "regenerate": setting(config, "--fuzz-regenerate", "contract_harness_fuzz_regenerate", boolean),
        "generator": setting(config, "--fuzz-generator", "contract_harness_fuzz_generator", str,
                             choices=FUZZ_GENERATORS),
    }


@dataclass(frozen=True, slots=True)
class ItemKey:
    """Which check of which contract an item is: its contract file as the node id writes it, its
    kind (a case source, ``lint``, ``versions``, ``compat``, ``drift``, ``fuzz``), the unit whose
    items share one computation (a compat pair's ``v1-v2``, a drift upstream; "" otherwise), and
    its own name. The collectors name items from it (:meth:`names`), the scheduling groups by it.

    An xdist controller collects nothing: it knows the items by their node ids alone, which is
    all a worker sends it. :meth:`from_nodeid` reads a key back from the names :meth:`names`
    wrote (``tests/test_pytest_schedule.py`` holds the two to each other on a collected project).
    """

    file: str
    kind: str
    unit: str = ""
    name: str = ""

    def names(self) -> tuple[str, ...]:
        """The node names below the contract file's collector."""
        if self.kind == "compat":
            return f"compat-{self.unit}", self.name
        if self.kind == "drift":
            return ("drift", f"{self.unit}[{self.name}]") if self.unit else ("drift",)
        if self.kind == "versions":
            return (f"versions-{self.name}",)
        return (self.kind, self.name) if self.name else (self.kind,)

    @property
    def nodeid(self) -> str:
        return "::".join((self.file, *self.names()))

    def label(self, tool: str) -> str:
        """How reports name the check: ``<tool>::<kind>::<name>``."""
        return "::".join((tool, "versions", self.name) if self.kind == "versions" else (tool, *self.names()))

    @classmethod
    def from_nodeid(cls, nodeid: str) -> ItemKey | None:
        """The key of a contract item's node id (None: not a contract item)."""
        file, *names = nodeid.split("::", 2)
        if file.rpartition("/")[2] != CONTRACT_FILE or not names:
            return None
        kind, name = names[0], names[1] if len(names) > 1 else ""
        if kind.startswith("compat-") and name:
            return cls(file, "compat", kind.removeprefix("compat-"), name)
        if kind == "drift" and name.endswith("]") and "[" in name:
            upstream, _, label = name[:-1].partition("[")
            return cls(file, "drift", upstream, label)
        if kind.startswith("versions-") and not name:
            return cls(file, "versions", name=kind.removeprefix("versions-"))
        return cls(file, kind, name=name)
