"""What the properties of one tool share: its contract, boundaries, strategies and counters.

Strategies are built on first use and kept, so every property of a tool draws from the same
compiled generators, and the generator statistics of the tool add up across its properties.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis import strategies as st

import harness.fuzz.canaries as canaries
import harness.fuzz.strategies as fs
import harness.fuzz.vendor as vendor
from harness.boundary.pipeline import Boundary
from harness.cases import DEFAULT_MAX_MUTANTS
from harness.contract import Contract
from harness.engine import Engine
from harness.fuzz.generate import GenerationStats
from harness.mutations import REGISTRY, OperatorRegistry

if TYPE_CHECKING:
    from harness.fuzz.canaries import Injected
    from harness.fuzz.strategies import Bound, Bytes, NearMisses


_T = TypeVar("_T")


class Subject:
    """One tool under fuzzing (its current schema version unless ``version`` says otherwise)."""

    def __init__(
        self,
        contract: Contract,
        *,
        version: int | None = None,
        now: datetime | None = None,
        registry: OperatorRegistry = REGISTRY,
    ) -> None:
        self.contract = contract
        self.version = contract.version if version is None else version
        self.now = now or contract.default_now or fs.DEFAULT_NOW
        self.registry = registry
        #: Contract objects are judged without the adapter (for tools without one: the same).
        self.objects_contract = contract.without_adapter()
        self.boundary = Boundary(contract, version=self.version)
        self.objects = (self.boundary if self.objects_contract is contract
                        else Boundary(self.objects_contract, version=self.version))
        self.engine = Engine(differential=False)
        self.stats = GenerationStats()
        self.vendor_stats = GenerationStats() if contract.vendor_schema is not None else None
        self.tally: dict[str, int] = {}
        self._strategies: dict[str, st.SearchStrategy[Any]] = {}
        self.view_pointers = frozenset(f.pointer for f in contract.agent_view)
        self.names = canaries.schema_names(contract.document(self.version), contract.vendor_document())
        self.known_values, self.known_members = vendor.known_values(contract)
        self._accepted: tuple[Any, ...] | None = None

    @property
    def tool(self) -> str:
        return self.contract.tool

    @property
    def accepted_objects(self) -> tuple[Any, ...]:
        """The accepted fixtures' contract objects (read on first use)."""
        if self._accepted is None:
            self._accepted = vendor.accepted_objects(self.contract)
        return self._accepted

    @property
    def has_adapter(self) -> bool:
        return self.contract.adapter is not None and self.contract.vendor_schema is not None

    def default_request(self) -> dict[str, Any]:
        return self.contract.default_request()

    def _cached(self, name: str, build: Callable[[], st.SearchStrategy[_T]]) -> st.SearchStrategy[_T]:
        # Deferred: a strategy is built (schemas lowered and compiled) on its first draw, so a
        # property that replays saved examples (harness.fuzz.replay) never builds one.
        if name not in self._strategies:
            self._strategies[name] = st.deferred(build)
        return self._strategies[name]

    # ------------------------------------------------------------------ strategies
    def documents(self) -> st.SearchStrategy[Any]:
        """Contract objects valid under the schema."""
        return self._cached("documents", lambda: fs.from_contract(
            self.objects_contract, self.version, stats=self.stats))

    def bound_documents(self) -> st.SearchStrategy[Bound]:
        return self._cached("bound", lambda: fs.bound_documents(
            self.objects_contract, self.version, now=self.now, documents=self.documents(), tally=self.tally))

    def near_miss_sets(self) -> st.SearchStrategy[NearMisses]:
        """Bound documents, each with the mutants of
        :data:`~harness.fuzz.strategies.NEAR_MISS_OPERATORS` drawn operators."""
        return self._cached("near-sets", lambda: fs.near_miss_sets(
            self.objects_contract, self.version, registry=self.registry, bound=self.bound_documents(),
            per_document=fs.NEAR_MISS_OPERATORS, corpus=self.accepted_objects))

    def near_misses_of(self, source: Bound, operators: Sequence[str] | None = None) -> NearMisses:
        """The mutants of one bound document by ``operators`` (as :meth:`near_miss_sets` drew
        them), or every operator's."""
        cap = DEFAULT_MAX_MUTANTS if operators is None else fs.NEAR_MISSES_PER_DOCUMENT
        return fs.near_miss_set(fs.Mutating(self.objects_contract, self.version, self.registry, None, cap,
                                            self.accepted_objects),
                                source, operators)

    def vendor_documents(self) -> st.SearchStrategy[Bound]:
        """Vendor documents (seeded with the accepted fixtures' values), bound to the default
        request where the adapter maps them."""
        def build() -> st.SearchStrategy[Bound]:
            validator = self.contract.vendor_validator()
            assert validator is not None
            documents = vendor.seeded_with(fs.vendor_documents(self.contract, stats=self.vendor_stats),
                                       self.known_values, validator)
            return vendor.bound_vendor_documents(self.contract, self.version, now=self.now,
                                             documents=documents, tally=self.tally)
        return self._cached("vendor", build)

    def raw_documents(self) -> st.SearchStrategy[Any]:
        """What the tool's upstream sends: vendor documents for an adapter tool, else bound
        contract objects."""
        source = self.vendor_documents() if self.has_adapter else self.bound_documents()
        return source.map(lambda bound: bound.document)

    def arbitrary_bytes(self) -> st.SearchStrategy[Bytes]:
        return self._cached("bytes", lambda: fs.arbitrary_bytes(
            self.raw_documents(), max_depth=self.contract.limits.max_depth))

    def canaried_objects(self) -> st.SearchStrategy[tuple[Bound, Injected]]:
        """Bound contract objects with canaries in extra members and in string values outside
        the agent view."""
        how = canaries.Injection(f"{self.tool}::objects", self.names, self.view_pointers, replace_values=True,
                                 schema=self.contract.document(self.version),
                                 members=None if self.has_adapter else self.known_members)
        return self._cached("canaried-objects", lambda: canaries.bound_with_canaries(self.bound_documents(), how))

    def canaried_vendor(self, *, min_size: int = 1) -> st.SearchStrategy[Injected]:
        """Vendor documents with canaries in extra members at any level."""
        how = canaries.Injection(f"{self.tool}::vendor", self.names, min_size=min_size,
                                 schema=self.contract.vendor_document(), members=self.known_members)
        return self._cached(f"canaried-vendor-{min_size}", lambda: canaries.with_canaries(self.raw_documents(), how))

    # ------------------------------------------------------------------ statistics
    def generator_stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"documents": self.stats.to_dict()}
        if self.vendor_stats is not None:
            out["vendor"] = self.vendor_stats.to_dict()
        out["unfit"] = self.tally.get("unfit", 0)
        if self.vendor_stats is not None:
            out["vendor_bound"] = self.tally.get("vendor_bound", 0)
        return out
