"""One registry type for every catalogue: mutation operators, lint rules, compat rules, fuzz
properties and drift kinds.

A catalogue's members are declared by decorated functions in the modules that define them. A
:class:`Registry` names those modules and imports them itself (:meth:`Registry.load`) before
anything reads it, so no caller has to pre-import a module for a registry not to be empty, and
tests build fresh registries with no modules and add what they need::

    OPERATORS: Registry[Operator] = Registry("operator", modules=("harness.mutations.values",))

    def operator(**metadata):                  # the catalogue's own decorator
        def register(func):
            return OPERATORS.add(Operator(func.__name__, func, **metadata))
        return register

Every read (``get``, ``names``, iteration, ``select``) loads first; ``add`` does not, so the
declaring modules can add while they are being imported.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from harness.errors import UsageError, closest

T = TypeVar("T")

#: Member names: snake_case words, or an upper-case rule id such as ``CMP101``.
_NAME = re.compile(r"^(?:[a-z][a-z0-9_]*|[A-Z]+[0-9]+)$")


def _name_attribute(item: object) -> str:
    name = getattr(item, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"{item!r} has no str 'name'; give the Registry a key function")
    return name


class Registry(Generic[T]):
    """An ordered, named set of ``T``, filled by the modules it names.

    ``kind`` is the singular noun used in messages (``"lint rule"``); ``key`` gives a member's
    name (its ``name`` attribute by default); ``modules`` are imported by :meth:`load`;
    ``listing`` is the command that shows every name, quoted in unknown-name errors (without
    one, the error lists the names themselves); ``unknown_code`` is the error code of an
    unknown name (a catalogue keeps the code its users already see).
    """

    def __init__(
        self,
        kind: str,
        *,
        key: Callable[[T], str] = _name_attribute,
        modules: Iterable[str] = (),
        listing: str | None = None,
        unknown_code: str = "usage.unknown_name",
    ) -> None:
        self.kind = kind
        self._key = key
        self._modules = tuple(modules)
        self._listing = listing
        self.unknown_code = unknown_code
        self._items: dict[str, T] = {}
        self._loaded = not self._modules
        self._lock = threading.RLock()

    # -- filling ------------------------------------------------------------------------------

    def add(self, item: T) -> T:
        """Register ``item`` under its name and return it (so a decorator can return it).

        A second member with the same name, or a name that is not snake_case or an upper-case
        id, is a programming error (``ValueError``), raised at import time.
        """
        name = self._key(item)
        if not _NAME.match(name):
            raise ValueError(f"{self.kind} name {name!r} must be snake_case (or an id like CMP101)")
        with self._lock:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = item
        return item

    def load(self) -> Registry[T]:
        """Import the declaring modules once (each adds its members); return the registry."""
        if self._loaded:
            return self
        with self._lock:
            if not self._loaded:
                for module in self._modules:
                    importlib.import_module(module)
                self._loaded = True
        return self

    # -- reading ------------------------------------------------------------------------------

    def get(self, name: str) -> T:
        """The member called ``name``; an unknown name is a ``UsageError`` (``unknown_code``) with a
        did-you-mean."""
        self.load()
        try:
            return self._items[name]
        except KeyError:
            raise UsageError(self._unknown(name), code=self.unknown_code) from None

    def __getitem__(self, name: str) -> T:
        self.load()
        return self._items[name]

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._items

    def __iter__(self) -> Iterator[T]:
        self.load()
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def names(self) -> tuple[str, ...]:
        """Every member's name, in registration order."""
        self.load()
        return tuple(self._items)

    def select(
        self,
        select: Iterable[str] | None = None,
        ignore: Iterable[str] | None = None,
        *,
        select_option: str = "--select",
        ignore_option: str = "--ignore",
    ) -> tuple[T, ...]:
        """All members, or those named in ``select``, minus those named in ``ignore``.

        Names are stripped and blanks dropped (so ``"a, b"`` split on commas works); an unknown
        name is a ``UsageError`` (``unknown_code``) naming the option and the nearest name.
        """
        self.load()
        chosen = self._names_in(select, select_option) if select is not None else set(self._items)
        dropped = self._names_in(ignore, ignore_option) if ignore is not None else set()
        return tuple(item for name, item in self._items.items() if name in chosen and name not in dropped)

    def suggest(self, name: str) -> str:
        """`` (did you mean X?)`` for a near miss, else the empty string."""
        self.load()
        close = closest(name, self._items)
        return f" (did you mean {close}?)" if close else ""

    def _names_in(self, names: Iterable[str], option: str) -> set[str]:
        wanted = {n.strip() for n in names if n.strip()}
        for name in sorted(wanted):
            if name not in self._items:
                raise UsageError(self._unknown(name, option), code=self.unknown_code)
        return wanted

    def _unknown(self, name: str, option: str | None = None) -> str:
        where = f" in {option}" if option else ""
        known = f"{self._listing} shows them all" if self._listing else f"known: {', '.join(self._items)}"
        listing = f" ({known})"
        return f"unknown {self.kind} {name!r}{where}{self.suggest(name)}{listing}"

    def __repr__(self) -> str:
        state = f"{len(self._items)} loaded" if self._loaded else f"{len(self._modules)} modules to load"
        return f"<Registry of {self.kind}: {state}>"
