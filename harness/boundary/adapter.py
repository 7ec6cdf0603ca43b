"""Layer 4, ``adapter`` (optional): map a broad vendor document to the closed contract object.

The adapter is ``module:function`` in ``contract.yaml`` and is called as
``function(document, request)``. It is where vendor churn is absorbed: it selects the fields
the contract needs and builds a *new* object. Whatever it returns must validate against the
contract schema (``adapter.output_invalid``); whatever it raises is ``adapter.error`` — with
the exception's class name only, since its text may quote the vendor.

The adapter is imported once per contract (:func:`adapter_function`), from the project root.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from harness.boundary.base import Evaluation, Rejection
from harness.boundary.compiled import schema_validator
from harness.codes import ADAPTER_ERROR, ADAPTER_OUTPUT_INVALID
from harness.errors import ContractError
from harness.locate import position_in_file

if TYPE_CHECKING:
    from harness.contract.records import Contract


def adapter_function(contract: Contract) -> Callable[..., Any] | None:
    """The callable ``adapter: module:function`` names, imported once; None without one."""
    if contract.adapter is None:
        return None
    return contract.memo(("adapter",), lambda: _import_adapter(contract))


def adapter_version(contract: Contract) -> str | None:
    """The adapter's ``version`` attribute, else its module's ``__version__`` (for audit records)."""
    func = adapter_function(contract)
    if func is None:
        return None
    version = getattr(func, "version", None) or getattr(sys.modules.get(func.__module__), "__version__", None)
    return str(version) if version is not None else None


def _import_adapter(contract: Contract) -> Callable[..., Any]:
    module_name, _, func_name = (contract.adapter or "").partition(":")
    # The adapter is the project's code, beside contracts/: its module (and whatever it imports,
    # then or when called) resolves from the project root, as pytest's rootdir does for tests.
    root = str(contract.root.resolve())
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        module = importlib.import_module(module_name)
        func = getattr(module, func_name)
    except Exception as exc:
        raise ContractError(
            f"adapter {contract.adapter!r} cannot be imported: {_one_line(exc)}",
            file=str(contract.path), pointer="/adapter", locate=position_in_file, code="contract.adapter_import",
        ) from None
    if not callable(func):
        raise ContractError(f"adapter {contract.adapter!r} is not callable", file=str(contract.path),
                            pointer="/adapter", locate=position_in_file, code="contract.adapter_import")
    return func  # type: ignore[no-any-return]


def _one_line(exc: BaseException) -> str:
    """An exception from code we do not own, as one line: its type and first line; for a syntax
    error, where it is."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{type(exc).__name__} in {exc.filename}:{exc.lineno}: {exc.msg}"
    first = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def check(ev: Evaluation) -> Rejection | None:
    """Run the adapter and hold its output to the contract schema."""
    function = adapter_function(ev.contract)
    if function is None:
        return None
    try:
        output = function(ev.document, MappingProxyType(dict(ev.request)))
    except Exception as exc:
        return Rejection(ADAPTER_ERROR, f"adapter raised {type(exc).__name__}")
    validator = schema_validator(ev.contract, ev.version)
    try:
        valid = validator.is_valid(output)
        violations = [] if valid else validator.violations(output)
    except (TypeError, ValueError, OverflowError) as exc:
        return Rejection(
            ADAPTER_OUTPUT_INVALID, f"adapter returned something that is not JSON data ({exc})"
        )
    if violations:
        first = violations[0]
        return Rejection(
            ADAPTER_OUTPUT_INVALID,
            f"adapter output fails schema.{first.keyword}: {first.message}",
            instance_pointer=first.instance_pointer,
            schema_pointer=first.schema_pointer,
        )
    ev.set_result(output)
    return None
