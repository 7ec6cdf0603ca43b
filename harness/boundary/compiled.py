"""The validators the boundary compiles from a contract's records, each built once and kept on
the contract (:meth:`~harness.contract.Contract.memo`, thread-safe).

Every supported schema version (production validator, ``jsonschema-rs``), the agent view derived
from it, the vendor schema, the request schema. ``$ref`` resolves against the contract's own
schema files only; a schema that does not compile, or a ``$ref`` cycle that never moves into
the document, is a :class:`~harness.errors.ContractError` naming the file and pointer.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from harness.boundary.validator import SchemaValidator, validator_for
from harness.errors import ContractError
from harness.locate import position_in_file
from harness.schemas.bundle import Bundle
from harness.schemas.dialects import BRANCHES

if TYPE_CHECKING:
    from harness.contract.records import Contract
    from harness.schemas import Document


def schema_validator(contract: Contract, version: int | None = None) -> SchemaValidator:
    """The production validator of a schema version (default: the current one)."""
    version = contract.version if version is None else version
    return contract.memo(("schema", version), lambda: _compile(contract, version))


def view_schema(contract: Contract, version: int | None = None) -> dict[str, Any]:
    """The closed schema of the agent-facing ``data`` object, derived from a version."""
    version = contract.version if version is None else version
    return contract.memo(("view", version), lambda: derive_view_schema(contract, version))


def derive_view_schema(contract: Contract, version: int | None = None) -> dict[str, Any]:
    """The closed schema every agent ``data`` object of this contract must satisfy.

    Each field's schema is a self-contained copy (:class:`~harness.schemas.bundle.Bundle`) of
    the subschemas the schema model finds at the field's pointer (through ``properties``,
    items, references and ``allOf``/``oneOf``/``anyOf``): one, or ``anyOf`` the several, or
    ``true`` where the schema says nothing."""
    document = contract.document(version)
    bundle = Bundle(document)
    properties = {f.name: bundle.any_of(document.instance_nodes(f.tokens, through=BRANCHES))
                  for f in contract.agent_view}
    view: dict[str, Any] = {}
    schema = document.schema
    if isinstance(schema, Mapping) and "$schema" in schema:
        view["$schema"] = schema["$schema"]
    view.update(
        {
            "type": "object",
            "required": [f.name for f in contract.agent_view if not f.optional],
            "properties": properties,
            "additionalProperties": False,
        }
    )
    view.update(bundle.defs)
    return view


def view_validator(contract: Contract, version: int | None = None) -> SchemaValidator:
    version = contract.version if version is None else version
    return contract.memo(("view-validator", version), lambda: _compile_view(contract, version))


def vendor_validator(contract: Contract) -> SchemaValidator | None:
    """The validator of ``vendor_schema`` (what the schema layer checks for an adapter tool)."""
    if contract.vendor_schema is None:
        return None
    return contract.memo(("vendor",), lambda: _compile_vendor(contract))


def request_validator(contract: Contract) -> SchemaValidator:
    """The validator of ``request.schema`` (a request's ``args``)."""
    return contract.memo(("request",), lambda: _compile_request(contract))


def _compile(contract: Contract, version: int) -> SchemaValidator:
    file = contract.schema_path(version)
    schema = contract.schema(version)
    base = file.resolve().as_uri()
    try:
        validator = validator_for(schema, resources=contract.schema_resources(), base_uri=base)
    except ContractError as exc:
        _refuse_dangling(contract.document(version), file, exc.code)
        raise ContractError(exc.detail, file=str(file), pointer=exc.pointer, locate=position_in_file,
                            allowed=exc.allowed, code=exc.code) from None
    _refuse_ref_cycles(contract.document(version), file)
    return validator


def _compile_view(contract: Contract, version: int) -> SchemaValidator:
    # The view copies subschemas (and $defs) of the version's schema, so its relative
    # $refs must resolve as the version's do: give it a sibling URI of that file / $id.
    schema = contract.schema(version)
    base = contract.schema_path(version).resolve().as_uri()
    if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
        base = schema["$id"]
    try:
        return validator_for(
            view_schema(contract, version),
            resources=contract.schema_resources(),
            base_uri=urljoin(base, f"agent-view-v{version}.json"),
        )
    except ContractError as exc:
        raise ContractError(
            f"the agent view derived from v{version} does not compile: {exc.detail}",
            file=str(contract.path), pointer="/agent_view", locate=position_in_file, code=exc.code,
        ) from None


def _compile_vendor(contract: Contract) -> SchemaValidator:
    named = contract.raw.get("vendor_schema")
    base = contract.path.resolve().as_uri()
    try:
        validator = validator_for(contract.vendor_schema, resources=contract.schema_resources(), base_uri=base)
    except ContractError as exc:
        document = contract.vendor_document()
        if document is not None:
            in_file = contract.directory / named if isinstance(named, str) else contract.path
            _refuse_dangling(document, in_file, exc.code, "" if isinstance(named, str) else "/vendor_schema")
        if isinstance(named, str):  # a file beside the contract: the pointer is in that file
            raise ContractError(exc.detail, file=str(contract.directory / named), pointer=exc.pointer,
                                locate=position_in_file,
                                code=exc.code) from None
        raise ContractError(exc.detail, file=str(contract.path), pointer="/vendor_schema" + (exc.pointer or ""),
                            locate=position_in_file,
                            code=exc.code) from None
    file = contract.directory / named if isinstance(named, str) else contract.path
    prefix = "" if isinstance(named, str) else "/vendor_schema"
    document = contract.vendor_document()
    assert document is not None
    _refuse_ref_cycles(document, file, prefix)
    return validator


def _compile_request(contract: Contract) -> SchemaValidator:
    try:
        return validator_for(contract.request_schema)
    except ContractError as exc:
        raise ContractError(exc.detail, file=str(contract.path), pointer="/request/schema" + (exc.pointer or ""),
                            locate=position_in_file,
                            code=exc.code) from None


def _refuse_dangling(document: Document, file: Path, code: str, prefix: str = "") -> None:
    """A schema the validator refused because a reference names nothing: say which one, where,
    and the anchor or definition meant (the validator's own message names neither)."""
    for node in document.nodes:
        for ref in document.references(node):
            if ref.status != "dangling":
                continue
            hint = document.meant(ref)
            raise ContractError(
                f"{ref.keyword} {ref.value!r} names nothing in this schema{hint}",
                file=str(file), pointer=f"{prefix}{node.pointer}/{ref.keyword}", locate=position_in_file, code=code,
            )


def _refuse_ref_cycles(document: Document, file: Path, prefix: str = "") -> None:
    """A ``$ref`` cycle that never moves into the document is a load error: the production
    validator would accept anything under it, the reference validator never finish."""
    cycle = document.in_place_cycle()
    if cycle is None:
        return
    chain = " -> ".join(n.pointer or "/" if n.document is document else n.location for n in cycle)
    raise ContractError(
        f"$ref cycle that never moves into the document: {chain} (a value would be checked "
        "against itself for ever; put a properties/items step in the loop or break it)",
        file=str(file), pointer=prefix + cycle[0].pointer if cycle[0].document is document else None,
        locate=position_in_file,
        code="contract.ref_cycle",
    )
