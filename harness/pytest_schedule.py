"""pytest-xdist scheduling for the contract items, opt-in (``--contract-scheduling``): xdist's
``load`` scheduling, except that the long items go out first, one unit at a time to each worker,
and the items sharing one computation go to one worker together.

Some of a contract's items share work that the first of them does and the others reuse, in the
process that runs them (:mod:`harness.pytest_items`):

- the three items of a compat pair (``compat-v1-v2::policy``, ``classifier``, ``replay``) share
  one comparison, with its witness searches (hypothesis);
- the items of one drift upstream (``drift::<upstream>[...]``) share one run of that upstream
  (one session, one call per sample request): split between workers, the upstream was called
  twice;
- the fuzz items of one contract (``fuzz::<property>``) share its generators, whose build is a
  large part of a property's time in the ``ci`` profile (100 examples).

Such a group is one **unit**, given to one worker whole, in collection order (the first item
computes, the others reuse). The long items are the units and, in the ``nightly`` profile, each
fuzz item alone (2,000 examples a property: seconds each; the generators' build is a small part
of that, and single items balance better than whole contracts). xdist's ``load`` hands out runs
of consecutive items in collection order, so a long item collected late could start when the
other worker had nothing left (on the demo's nightly run one worker idled the last 3 s of 30 s
while the other ran ``review_status``'s ``rejects_near_misses``). Here the long units go first,
heaviest first (:func:`weight`: ``rejects_near_misses``, the property that runs every mutation
operator on each example, counts three; a fuzz unit counts its items), each worker holding at
most one at a time, and the short items (the cases, lint) wait for the end, where ``load``'s own
logic gives them out and they even out the workers — all but one at a time behind each unit: an
xdist worker runs an item only once it holds the next.

Used where ``-n`` runs with xdist's default ``--dist load``; any other ``--dist`` the user asks
for is xdist's own. Units are known from each item's :class:`~harness.pytest_options.ItemKey`,
read back from the node ids the controller receives (it collects nothing itself). (xdist's
``xdist_group`` marks would carry a unit in the item, but xdist 3.8 writes it into the id
through an attribute pytest 9.2 no longer reads.) It extends xdist's ``LoadScheduling``, whose
internals have no public equivalent, reached through :func:`harness.internals.xdist_load_scheduling`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from harness.internals import xdist_load_scheduling
from harness.pytest_options import ItemKey

LoadScheduling = xdist_load_scheduling()


def unit_of(key: ItemKey | None, *, fuzz_by_contract: bool) -> str | None:
    """The unit an item belongs to (its items run in one worker, long ones first), or None for a
    short item: a compat pair, a drift upstream, a contract's fuzz items where
    ``fuzz_by_contract``, else each fuzz item alone."""
    if key is None:
        return None
    if key.kind == "fuzz" and key.name:
        return f"{key.file}::fuzz" if fuzz_by_contract else key.nodeid
    if key.kind in ("compat", "drift") and key.unit:
        return f"{key.file}::{key.kind}::{key.unit}"
    return None


#: How much longer than a plain fuzz item an item of this property runs (see the module's text).
_PROPERTY_WEIGHT = {"rejects_near_misses": 3}


def weight(unit: Sequence[ItemKey]) -> int:
    """A long unit's weight, for giving out the heaviest first: a fuzz item counts one, three for
    ``rejects_near_misses``; a compat pair or a drift upstream (one computation) one. A guess from
    the demo's durations, not a measurement: nothing is timed before it runs."""
    fuzz = [key.name for key in unit if key.kind == "fuzz"]
    return sum(_PROPERTY_WEIGHT.get(name, 1) for name in fuzz) if fuzz else 1


def plan(collection: Sequence[str], *, fuzz_by_contract: bool) -> tuple[list[tuple[int, ...]], list[int]]:
    """The long units (each a tuple of indices in collection order), heaviest first (ties in
    collection order), and the short items' indices in collection order."""
    keys: dict[int, ItemKey] = {}
    units: dict[str, list[int]] = {}
    short: list[int] = []
    for index, nodeid in enumerate(collection):
        key = ItemKey.from_nodeid(nodeid)
        unit = unit_of(key, fuzz_by_contract=fuzz_by_contract)
        if key is None or unit is None:
            short.append(index)
        else:
            keys[index] = key
            units.setdefault(unit, []).append(index)
    ordered = sorted(units.values(), key=lambda unit: (-weight([keys[i] for i in unit]), unit[0]))
    return [tuple(unit) for unit in ordered], short


class ContractScheduling(LoadScheduling):  # type: ignore[misc,valid-type]
    """``--dist load`` for the short items; the long units (:func:`plan`) first, one at a time
    per worker."""

    def __init__(self, config: Any, log: Any = None, *, fuzz_by_contract: bool = True) -> None:
        super().__init__(config, log)
        self.fuzz_by_contract = fuzz_by_contract
        #: The long units not yet given out, heaviest first.
        self.units: deque[tuple[int, ...]] = deque()
        self._long: set[int] = set()
        self.collection: list[str] | None = None
        self.maxschedchunk: int | None = config.getoption("maxschedchunk")

    @property
    def tests_finished(self) -> bool:
        return not self.units and bool(super().tests_finished)

    @property
    def has_pending(self) -> bool:
        return bool(self.units) or bool(super().has_pending)

    def schedule(self) -> None:
        assert self.collection_is_completed
        if self.collection is not None:  # a node added later: as load does
            for node in self.nodes:
                self.check_schedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = next(iter(self.node2collection.values()))
        if not self.collection:
            return
        units, short = plan(self.collection, fuzz_by_contract=self.fuzz_by_contract)
        self.units = deque(units)
        self._long = {index for unit in units for index in unit}
        self.pending[:] = short
        if self.maxschedchunk is None:
            self.maxschedchunk = len(self.collection)
        # Each worker a long unit; a worker left without one, a share of the short items (as
        # load's first batch).
        chunk = max(min(len(short) // max(len(self.nodes), 1) // 4, self.maxschedchunk), 2)
        for node in self.nodes:
            if self.units:
                self._send(node, list(self.units.popleft()))
            else:
                self._send_tests(node, chunk)
            self._keep_going(node)

    def check_schedule(self, node: Any, duration: float = 0) -> None:
        if node.shutting_down:
            return
        if not self.units:  # the short items, as load gives them out
            if self.pending:
                super().check_schedule(node, duration)
            else:
                node.shutdown()  # it runs what it holds; nothing more will come
            return
        # Long units left: one to a worker holding none; the short items wait for the end, where
        # they even out the workers.
        if not any(index in self._long for index in self.node2pending[node]):
            self._send(node, list(self.units.popleft()))
        self._keep_going(node)

    def _keep_going(self, node: Any) -> None:
        """An xdist worker runs an item only once it holds the next one (it keeps one back, to
        know what to tear down): a worker holding fewer than two items gets one more — a short
        item, else the next long unit, else the end of its run."""
        while len(self.node2pending[node]) < 2 and not node.shutting_down:
            if self.pending:
                self._send_tests(node, 1)
            elif self.units:
                self._send(node, list(self.units.popleft()))
            else:
                node.shutdown()

    def _send(self, node: Any, indices: list[int]) -> None:
        self.node2pending[node].extend(indices)
        node.send_runtest_some(indices)


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
