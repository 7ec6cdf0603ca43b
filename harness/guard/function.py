"""Guarded tool functions: a plain Python tool's output through the boundary of its contract.

Agent frameworks call Python functions as tools and hand what they return to the model. A
function that returns bytes or JSON text (what an HTTP client or a subprocess gives it) is
wrapped so that the model gets the agent result instead::

    @guard_tool("contracts/review_status")
    def review_status(change_id: str) -> bytes:
        return httpx.get(f"{API}/reviews/{change_id}").content

    review_status(change_id="CR-1042")        # the agent result, as JSON text
    review_status.check(change_id="CR-1042")  # the Verdict (agent_result, audit, diagnostics)

The call's arguments (as named by the function's signature; defaults not filled in) are the
request's ``args``, checked against the contract's request schema first: arguments that do
not fit raise :class:`~harness.errors.InvalidRequest` (the caller's mistake, not the
upstream's). Each call gets a request id of the guard's own; ``pass_request_id`` names a
keyword parameter that receives it, for results that must echo it. A function that raises
yields the failure envelope (``TOOL_ERROR``: the tool reported a failure, retryable only where
the contract lists it); its exception goes to the
``harness.guard`` logger, never to the model. Coroutine functions are wrapped as coroutine
functions.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from harness.boundary.audit import AuditSink, RawStore
from harness.boundary.pipeline import Boundary, Clock, Verdict
from harness.codes import TRANSPORT_TOOL_ERROR
from harness.contract import Contract, load_contract
from harness.errors import UsageError
from harness.guard.policy import new_request_id

logger = logging.getLogger("harness.guard")

Raw = bytes | bytearray | memoryview | str
F = TypeVar("F", bound=Callable[..., Any])


class _Guarded(Generic[F]):
    def __init__(self, func: F, boundary: Boundary, pass_request_id: str | None) -> None:
        self.func = func
        self.boundary = boundary
        self.pass_request_id = pass_request_id
        self.signature = inspect.signature(func)
        if pass_request_id is not None and pass_request_id not in self.signature.parameters:
            raise UsageError(f"{func.__qualname__} has no parameter {pass_request_id!r} to receive the request id")
        # Name, docstring and __wrapped__ (so inspect.signature shows the tool's own parameters):
        # frameworks build the tool's schema from them.
        functools.update_wrapper(self, func)  # type: ignore[arg-type]

    @property
    def contract(self) -> Contract:
        return self.boundary.contract

    def _request(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Mapping[str, Any], dict[str, Any]]:
        """The boundary's request, and the keyword arguments the function is called with."""
        bound = self.signature.bind_partial(*args, **kwargs)
        arguments: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            kind = self.signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                arguments.update(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                if value:
                    raise UsageError(f"{self.func.__qualname__}: *{name} values have no name in a request's args")
            elif name != self.pass_request_id:
                arguments[name] = value
        request_id = new_request_id()
        request = self.contract.normalise_request(
            {"tool": self.contract.tool, "request_id": request_id, "args": arguments}
        )
        if self.pass_request_id is not None:
            kwargs = {**kwargs, self.pass_request_id: request_id}
        return request, kwargs

    def _judge(self, output: Any, request: Mapping[str, Any]) -> Verdict:
        if isinstance(output, str):
            raw = output.encode("utf-8", "surrogatepass")  # a lone surrogate stays visible to the parse layer
        elif isinstance(output, bytes | bytearray | memoryview):
            raw = bytes(output)
        else:
            raise UsageError(
                f"{self.func.__qualname__} returned {type(output).__name__}: a guarded tool function returns "
                "bytes or JSON text"
            )
        return self.boundary.check(raw, request)

    def _failed(self, exc: Exception, request: Mapping[str, Any]) -> Verdict:
        logger.warning("guarded tool %s raised", self.func.__qualname__, exc_info=exc)
        return self.boundary.upstream_failure(
            TRANSPORT_TOOL_ERROR, f"the tool function raised {type(exc).__name__}", request
        )


class GuardedFunction(_Guarded[Callable[..., Raw]]):
    """A tool function behind its contract: calling it returns the agent result as JSON text."""

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return self.check(*args, **kwargs).agent_json

    def check(self, *args: Any, **kwargs: Any) -> Verdict:
        """Call the function and return the whole verdict."""
        request, kwargs = self._request(args, kwargs)
        try:
            output = self.func(*args, **kwargs)
        except Exception as exc:
            return self._failed(exc, request)
        return self._judge(output, request)


class AsyncGuardedFunction(_Guarded[Callable[..., Awaitable[Raw]]]):
    """A coroutine tool function behind its contract."""

    async def __call__(self, *args: Any, **kwargs: Any) -> str:
        return (await self.check(*args, **kwargs)).agent_json

    async def check(self, *args: Any, **kwargs: Any) -> Verdict:
        request, kwargs = self._request(args, kwargs)
        try:
            output = await self.func(*args, **kwargs)
        except Exception as exc:
            return self._failed(exc, request)
        return self._judge(output, request)


class _Decorator:
    def __init__(self, boundary: Boundary, pass_request_id: str | None) -> None:
        self.boundary = boundary
        self.pass_request_id = pass_request_id

    @overload
    def __call__(self, func: Callable[..., Awaitable[Raw]]) -> AsyncGuardedFunction: ...

    @overload
    def __call__(self, func: Callable[..., Raw]) -> GuardedFunction: ...

    def __call__(self, func: Callable[..., Any]) -> GuardedFunction | AsyncGuardedFunction:
        if inspect.iscoroutinefunction(func):
            return AsyncGuardedFunction(func, self.boundary, self.pass_request_id)
        return GuardedFunction(func, self.boundary, self.pass_request_id)


def guard_tool(
    contract: Contract | str | Path,
    *,
    clock: Clock | None = None,
    audit: AuditSink | None = None,
    raw_store: RawStore | None = None,
    pass_request_id: str | None = None,
) -> _Decorator:
    """Put the contract (a :class:`Contract`, or its directory) in front of a tool function.

    ``clock``, ``audit`` and ``raw_store`` are the :class:`~harness.Boundary`'s; the contract
    loads (and its adapter imports) now, so misconfiguration fails at decoration time.
    """
    loaded = contract if isinstance(contract, Contract) else load_contract(contract)
    boundary = Boundary(loaded, clock=clock, audit=audit, raw_store=raw_store, upstream="function")
    return _Decorator(boundary, pass_request_id)
