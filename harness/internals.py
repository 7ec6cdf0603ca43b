"""The one place the harness reaches into other libraries' private parts.

Each reach-in is a function here: no other module of the package imports a private module of
another library or reads a private attribute of its objects. Where a public hook exists the
harness uses it instead; what is left has none. Each library's parts are imported when first
asked for (a command that never fuzzes never imports hypothesis).

:data:`CHECKED` names the version of each library these were read against;
``tests/test_internals.py`` fails when an installed version differs, so a new release is read
before it is trusted.
"""

from __future__ import annotations

from typing import Any

#: Distribution -> the version whose private parts this module was checked against.
CHECKED = {
    "jsonschema": "4.26.0",
}


# --------------------------------------------------------------------------- python-jsonschema
# The differential's walks evaluate a subschema with the validator object python-jsonschema's
# own evaluation makes for it, and its bounded class makes them as the library does: the library
# has no public way to reach a validator's keyword list or its ``referencing`` resolver.


def jsonschema_applicable(validator: Any) -> list[tuple[Any, str, Any]]:
    """The keywords ``iter_errors`` applies for a validator: (keyword function, name, value)."""
    return validator._validators  # type: ignore[no-any-return]


def jsonschema_resolver(validator: Any) -> Any:
    """The ``referencing`` resolver a validator resolves ``$ref`` with (base URI, dynamic scope)."""
    return validator._resolver


def jsonschema_init_fields(cls: Any) -> list[tuple[str, str]]:
    """A validator class's constructor fields as ``evolve`` copies them: (attribute, argument)."""
    import attrs

    return [(field.name, field.alias) for field in attrs.fields(cls) if field.init]
