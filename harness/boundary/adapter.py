"""Layer 4, ``adapter`` (optional): map a broad vendor document to the closed contract object.

The adapter is ``module:function`` in ``contract.yaml`` and is called as
``function(document, request)``. It is where vendor churn is absorbed: it selects the fields
the contract needs and builds a *new* object. Whatever it returns must validate against the
contract schema (``adapter.output_invalid``); whatever it raises is ``adapter.error`` — with
the exception's class name only, since its text may quote the vendor, and ``sys.exit()``
included; a call that runs past ``limits.adapter_timeout_s`` is ``adapter.timeout``.

The adapter is imported once per contract (:func:`adapter_function`), from the project root.
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from harness.boundary.base import Evaluation, Rejection
from harness.boundary.compiled import schema_validator
from harness.codes import ADAPTER_ERROR, ADAPTER_OUTPUT_INVALID, ADAPTER_TIMEOUT
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
    except (Exception, SystemExit) as exc:  # sys.exit() at import ends nothing but this contract
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


class AdapterTimeout(BaseException):
    """Raised inside an adapter that ran past its time (a ``BaseException``: the adapter's own
    ``except Exception`` does not swallow it)."""


def _out_of_time(signum: int, frame: Any) -> None:
    raise AdapterTimeout


def call_bounded(function: Callable[..., Any], seconds: float, *args: Any) -> Any:
    """``function(*args)``, stopped with :class:`AdapterTimeout` once ``seconds`` have passed.

    A real-time interval timer interrupts the call (a loop in Python code; not one inside a C
    extension that never returns to the interpreter), in the main thread only, and only where
    nothing else uses the timer (no other ``SIGALRM`` handler, no pending timer: fuzzing's time
    budget, pytest-timeout): elsewhere the call is not bounded here."""
    if (not _TIMER or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN)
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
        return function(*args)
    previous = signal.signal(signal.SIGALRM, _out_of_time)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return function(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


_TIMER = hasattr(signal, "setitimer")


def check(ev: Evaluation) -> Rejection | None:
    """Run the adapter and hold its output to the contract schema."""
    function = adapter_function(ev.contract)
    if function is None:
        return None
    seconds = ev.contract.limits.adapter_timeout_s
    try:
        output = call_bounded(function, seconds, ev.document, MappingProxyType(dict(ev.request)))
    except AdapterTimeout:
        return Rejection(ADAPTER_TIMEOUT, f"adapter did not return within adapter_timeout_s={seconds:g}")
    except (Exception, SystemExit) as exc:  # sys.exit() in an adapter is its failure, not the run's end
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
