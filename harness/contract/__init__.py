"""Contracts: what one is (:mod:`~harness.contract.records`) and how one is read from disk and
checked (:mod:`~harness.contract.load`).

Each name below loads on first use, so the boundary can import the records without loading the
loader (which compiles schemas through the boundary: the records are the only part of a contract
the boundary depends on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.contract.load import (
        demo_root,
        discover,
        load_checked,
        load_contract,
        load_schema_resources,
        meta_schema,
        schema_error,
    )
    from harness.contract.records import (
        CONTRACT_FILE,
        DEFAULT_MAX_BYTES,
        DEFAULT_REQUEST_ID,
        SCHEMAS_DIR,
        BindingRule,
        Contract,
        Envelope,
        ErrorPolicy,
        FreshnessRule,
        Limits,
        Upstream,
        ViewField,
        Waiver,
    )

_WHERE = {
    **dict.fromkeys(("CONTRACT_FILE", "DEFAULT_MAX_BYTES", "DEFAULT_REQUEST_ID", "SCHEMAS_DIR",
                     "BindingRule", "Contract", "Envelope", "ErrorPolicy", "FreshnessRule", "Limits", "Upstream",
                     "ViewField", "Waiver"), "harness.contract.records"),
    **dict.fromkeys(("demo_root", "discover", "load_checked", "load_contract",
                     "load_schema_resources", "meta_schema", "schema_error"), "harness.contract.load"),
}

__all__ = [
    "CONTRACT_FILE",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_REQUEST_ID",
    "SCHEMAS_DIR",
    "BindingRule",
    "Contract",
    "Envelope",
    "ErrorPolicy",
    "FreshnessRule",
    "Limits",
    "Upstream",
    "ViewField",
    "Waiver",
    "demo_root",
    "discover",
    "load_checked",
    "load_contract",
    "load_schema_resources",
    "meta_schema",
    "schema_error",
]


__getattr__ = lazy_exports(__name__, _WHERE, globals())
