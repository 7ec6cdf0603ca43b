"""Names a package loads on first use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str], scope: dict[str, Any]) -> Callable[[str], Any]:
    """A package's ``__getattr__``: each name of ``exports`` (name -> the module defining it)
    imported on first use and kept in the package's ``scope``, so importing the package costs
    nothing until a name is needed. Every package of the harness that loads names lazily uses it."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        scope[name] = value
        return value

    return __getattr__
