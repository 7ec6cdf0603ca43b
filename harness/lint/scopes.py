"""What contract-level and waiver-level rules receive."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.contract import Contract, Waiver
from harness.schemas.document import Document


@dataclass(frozen=True, slots=True)
class ContractScope:
    """A contract and its schema documents by label (``v1``, ``v2``, ..., ``vendor``)."""

    contract: Contract
    documents: Mapping[str, Document]

    @property
    def versions(self) -> list[Document]:
        return [d for d in self.documents.values() if d.role == "version"]


@dataclass(frozen=True, slots=True)
class WaiverUse:
    """One waiver of a contract after the run: what it matched and whether it could."""

    waiver: Waiver
    index: int  # position in contract.yaml's ``waivers``
    matched: int  # findings it waived
    known_rule: bool  # its rule id names a registered rule (a check waiver's: a mutation operator)
    rule_ran: bool  # that rule was selected for this run
    labels: tuple[str, ...]  # the schema names this contract has (v1, ..., vendor, contract)
    suggestion: str  # " (did you mean X?)" for an unknown rule id, else ""
