"""Frozen records built at the cost of a mutable one.

``dataclasses`` writes a frozen class's ``__init__`` as one ``object.__setattr__`` call per field
(the class's own ``__setattr__`` refuses every assignment): 3-5 µs for a record of twenty-odd
fields. The per-case path of ``check`` makes about ten records a case (the case, its mutant,
the verdict, its diagnostic, the result...), so that alone was several percent of a run.

:func:`fast_frozen` gives a frozen, slotted dataclass a ``__new__`` that fills a mutable twin of
the class (the same slots, no ``__setattr__`` of its own: plain stores) and then makes the object
an instance of the class itself. What comes out is the same as before — the same type, fields,
equality, hash, ``repr`` and pickling, and frozen from then on — made about four times as fast.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

_T = TypeVar("_T")
_RESERVED = frozenset({"_cls", "_self", "_new", "_twin", "_target"})


def fast_frozen(cls: type[_T]) -> type[_T]:
    """Give ``cls`` (a ``@dataclass(frozen=True, slots=True)`` deriving from ``object``) the fast
    constructor described in the module. Fields with a ``default_factory``, ``init=False``
    fields and ``__post_init__`` are not supported (a ``TypeError`` says so at import).

    Such a class takes no subclasses (its ``__new__`` builds instances of itself alone)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__ or cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: fast_frozen needs a frozen, slotted dataclass deriving from object")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: fast_frozen does not run __post_init__")
    signature, defaults = [], {}
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    for f in fields:
        if f.name in _RESERVED or f.name.startswith("_default_"):
            raise TypeError(f"{cls.__name__}.{f.name}: a name fast_frozen's constructor uses itself")
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: fast_frozen supports plain fields and defaults only")
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
    lines = [
        f"def __new__(_cls, {', '.join(signature)}):",
        "    _self = _new(_twin)",
        *(f"    _self.{f.name} = {f.name}" for f in fields),
        "    _self.__class__ = _target",
        "    return _self",
    ]
    twin = type(f"{cls.__name__}Building", (), {"__slots__": cls.__dict__["__slots__"]})
    scope: dict[str, Any] = {"_target": cls, "_twin": twin, "_new": object.__new__, **defaults}
    exec("\n".join(lines), scope)  # the source is made above from field names alone
    new = scope["__new__"]
    new.__qualname__ = f"{cls.__qualname__}.__new__"
    target: Any = cls  # typed loosely: its constructor and pickling are replaced below
    target.__new__ = new
    # ``__new__`` did the work: the class's ``__init__`` is ``object``'s, which takes the
    # arguments and does nothing (it refuses them only when ``__new__`` is ``object``'s too).
    target.__init__ = object.__init__
    target.__init_subclass__ = classmethod(_no_subclass)
    if "__reduce__" not in cls.__dict__:
        # Pickled and copied as the class called with its fields' values (the default way would
        # call ``__new__`` with no arguments).
        names = tuple(f.name for f in fields)
        target.__reduce__ = lambda self: (type(self), tuple(getattr(self, name) for name in names))
    return cls


def _no_subclass(cls: Any, /, **_: Any) -> None:
    raise TypeError(f"{cls.__name__}: a fast_frozen record takes no subclasses")
