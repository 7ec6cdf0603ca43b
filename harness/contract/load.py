"""Load and check ``contracts/<tool>/contract.yaml`` and its versioned schemas into records.

A contract directory holds ``contract.yaml`` (checked by the meta-schema shipped in this
package) and ``schemas/v<N>.json`` for every supported version. Fixtures live beside the
``contracts/`` folder, under ``fixtures/{accepted,rejected,historical}/<tool>/``; the folder
holding both is the contract's *project root*.

A contract that loads is one the boundary can run: every supported version, the agent view,
the vendor and request schemas are compiled here, so a broken schema is a load-time error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import timedelta
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

import harness.contract.schema_checks as schema_checks
import harness.lock as lock
from harness.boundary import compiled
from harness.boundary.validator import SchemaValidator, validator_for
from harness.codes import AgentCode
from harness.contract.records import (
    CONTRACT_FILE,
    DEFAULT_REQUEST_ID,
    SCHEMAS_DIR,
    BindingRule,
    Contract,
    ErrorPolicy,
    FreshnessRule,
    Limits,
    Upstream,
    ViewField,
    Waiver,
)
from harness.datafiles import load_json_file, load_yaml, packaged
from harness.errors import ContractError, did_you_mean, excerpt
from harness.locate import position_in_file
from harness.pointer import escape_token, resolve, split
from harness.strict_json import strict_loads
from harness.timeutil import parse_duration, parse_rfc3339

_VERSION_FILE = re.compile(r"^v([1-9][0-9]*)\.json$")


def load_schema_resources(directory: Path) -> list[tuple[str, Any]]:
    """Every schema file in ``<directory>/schemas/``, by file URI and by ``$id``."""
    found: list[tuple[str, Any]] = []
    folder = directory / SCHEMAS_DIR
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        content = load_json_file(file, within=directory, what="schema file")
        found.append((file.resolve().as_uri(), content))
        if isinstance(content, dict) and isinstance(content.get("$id"), str):
            found.append((content["$id"].rstrip("#"), content))
    return found


_META: SchemaValidator | None = None


def meta_schema() -> Any:
    """The JSON Schema every contract.yaml must satisfy."""
    text = packaged("contract.schema.json")
    return strict_loads(text)


def _meta_validator() -> SchemaValidator:
    global _META
    if _META is None:
        _META = validator_for(meta_schema())
    return _META


def _meta_error(file: Path, data: Any) -> ContractError:
    return schema_error(file, data, _meta_validator(), meta_schema())


def schema_error(
    file: Path, data: Any, validator: SchemaValidator, schema: Any, code: str | None = None
) -> ContractError:
    """The first way ``data`` (read from ``file``) fails a schema of ours (the contract or
    sidecar meta-schema), for people: an unknown key named at its own position with a
    did-you-mean, an enum with its allowed values, masked values shown as written."""
    violations = validator.violations(data)
    violation = violations[0]
    if violation.keyword == "required":
        # A required key missing beside an unknown one is usually that key misspelt: name the typo.
        violation = next((v for v in violations if v.keyword == "additionalProperties"
                          and v.instance_pointer == violation.instance_pointer), violation)
    pointer = violation.instance_pointer
    allowed: list[str] | None = None
    message = violation.message
    if violation.keyword == "additionalProperties":
        schema_node = _schema_at(schema, violation.schema_pointer)
        known = sorted(schema_node.get("properties", {})) if isinstance(schema_node, dict) else []
        allowed = known or None
        node = _value_at(data, pointer)
        unknown = sorted(k for k in node if k not in known) if isinstance(node, dict) else []
        if unknown:
            # Point at the key itself, so the position is the line the typo is on.
            pointer = f"{pointer}/{escape_token(unknown[0])}"
            message = f"unknown key {unknown[0]!r}{did_you_mean(unknown[0], known)}"
        else:
            message = message.replace("Additional properties are not allowed", "unknown key")
    elif violation.keyword == "enum":
        schema_node = _schema_at(schema, violation.schema_pointer)
        if isinstance(schema_node, dict):
            values = [str(v) for v in schema_node.get("enum", [])]
            allowed = values if len(values) > 1 else None  # one value: the message names it
    elif violation.keyword == "pattern":
        # A regular expression says little to a person; the schema's description says more.
        schema_node = _schema_at(schema, violation.schema_pointer)
        if isinstance(schema_node, dict) and isinstance(schema_node.get("description"), str):
            message = f"<value> is not valid here (expected: {schema_node['description'].rstrip('.')})"
    elif violation.keyword in ("oneOf", "false"):
        # Which alternative was meant is for people to say: a node may spell it out.
        said = _error_message(schema, violation.schema_pointer)
        message = said if said is not None else message
    message = message.replace("<value>", excerpt(_value_at(data, pointer)))
    return ContractError(message, file=str(file), pointer=pointer, locate=position_in_file, allowed=allowed, code=code)


def _error_message(schema: Any, schema_pointer: str) -> str | None:
    """The ``errorMessage`` (as ajv-errors spells it) of the nearest schema object holding the
    failed keyword."""
    tokens = split(schema_pointer)
    while tokens:
        tokens = tokens[:-1]
        node = resolve(schema, tokens, None)
        if isinstance(node, dict) and isinstance(node.get("errorMessage"), str):
            return str(node["errorMessage"])
    return None


def _value_at(data: Any, pointer: str) -> Any:
    return resolve(data, pointer, None)


def _schema_at(schema: Any, schema_pointer: str) -> Any:
    """The schema object holding the keyword at ``schema_pointer``."""
    return resolve(schema, split(schema_pointer)[:-1], None)


def load_contract(path: str | Path) -> Contract:
    """Load a contract from its directory (or its ``contract.yaml``) and check it.

    Raises :class:`ContractError` naming the file, the pointer and what is allowed.
    """
    path = Path(path)
    file = path / CONTRACT_FILE if path.is_dir() else path
    if not file.exists():
        raise ContractError(
            f"no {CONTRACT_FILE} here (expected contracts/<tool>/{CONTRACT_FILE})",
            file=str(path),
            code="contract.missing",
        )
    data = load_yaml(file, within=file.parent, what="contract file")
    if not isinstance(data, dict):
        raise ContractError("must be a mapping of contract keys", file=str(file))
    if not _meta_validator().is_valid(data):
        raise _meta_error(file, data)
    return _build(file, data)


def _build(file: Path, data: dict[str, Any]) -> Contract:
    directory = file.parent
    tool = data["tool"]
    version = data["version"]
    if directory.name != tool:
        raise ContractError(
            f"tool {tool!r} must live in a directory of the same name, not {directory.name!r}",
            file=str(file),
            pointer="/tool", locate=position_in_file,
        )
    schemas: dict[int, Any] = {}
    folder = directory / SCHEMAS_DIR
    for candidate in sorted(folder.iterdir()) if folder.is_dir() else []:
        match = _VERSION_FILE.match(candidate.name)
        if match:
            schemas[int(match.group(1))] = load_json_file(candidate, within=directory, what="schema file")
    if version not in schemas:
        raise ContractError(
            f"version {version} has no schema file {SCHEMAS_DIR}/v{version}.json",
            file=str(file),
            pointer="/version", locate=position_in_file,
            allowed=sorted(schemas) or None,
            code="contract.missing",
        )

    limits = Limits(**data.get("limits", {}))
    request = data.get("request", {})
    errors = data.get("errors", {})
    defaults = data.get("defaults", {})
    vendor = data.get("vendor_schema")
    if isinstance(vendor, str):
        # Confined to the contract's folder: `vendor_schema: ../../../etc/passwd` is an error.
        vendor = load_json_file(directory / vendor, within=directory, what="vendor_schema file")
    default_now = None
    if "now" in defaults:
        default_now = parse_rfc3339(defaults["now"])
        if default_now is None:
            raise ContractError(
                "not an RFC 3339 date-time with an offset", file=str(file), pointer="/defaults/now",
                locate=position_in_file,
            )
    view = []
    for name, spec in data["agent_view"].items():
        if isinstance(spec, str):
            view.append(ViewField.of(name, spec))
        else:
            view.append(ViewField.of(name, spec["pointer"], bool(spec.get("optional", False))))

    upstreams = []
    for name, spec in data.get("upstreams", {}).items():
        kinds = [k for k in ("http", "command", "mcp") if k in spec]
        if len(kinds) != 1:
            raise ContractError(
                "an upstream needs exactly one of http, command, mcp",
                file=str(file),
                pointer=f"/upstreams/{name}", locate=position_in_file,
                allowed=("http", "command", "mcp"),
            )
        upstreams.append(
            Upstream(
                name,
                kinds[0],
                MappingProxyType(dict(spec[kinds[0]])),
                tuple(MappingProxyType(dict(r)) for r in spec.get("requests", [])),
                spec.get("side_effects") == "allowed",
            )
        )

    # In the order each may raise: the first error of a contract stays the first reported.
    bindings = tuple(BindingRule.of(**b) for b in data.get("bindings", []))
    freshness = tuple(
        FreshnessRule(
            field=f["field"],
            max_age=_duration(file, f"/freshness/{i}/max_age", f["max_age"]),
            max_future_skew=_duration(file, f"/freshness/{i}/max_future_skew", f.get("max_future_skew", "PT30S")),
            max_age_text=f["max_age"],
            max_future_skew_text=f.get("max_future_skew", "PT30S"),
        )
        for i, f in enumerate(data.get("freshness", []))
    )
    policy = ErrorPolicy(
        retryable=frozenset(errors.get("retryable", [AgentCode.UPSTREAM_UNAVAILABLE.value])),
        freshness_retryable=errors.get("freshness_retryable", True),
        codes=tuple(errors.get("codes", [])),
    )
    # The schema files are read once, and each version's model built once: the envelope is
    # checked against the models, and the contract keeps them (Contract.document).
    resources = load_schema_resources(directory)
    documents = schema_checks.schema_documents(file, schemas, resources)
    envelope = schema_checks.envelope_for(file, data, documents)
    contract = Contract(
        tool=tool,
        version=version,
        schemas=MappingProxyType(schemas),
        path=file,
        description=data.get("description", ""),
        limits=limits,
        request_schema=request.get("schema", True),
        request_example=MappingProxyType(dict(request.get("example", {}))),
        request_id=request.get("request_id", DEFAULT_REQUEST_ID),
        bindings=bindings,
        freshness=freshness,
        agent_view=tuple(view),
        errors=policy,
        envelope=envelope,
        adapter=data.get("adapter"),
        vendor_schema=vendor,
        default_now=default_now,
        upstreams=tuple(upstreams),
        waivers=tuple(Waiver(**{"rule": "", **w}) for w in data.get("waivers", [])),
        resources=tuple(resources),
        raw=MappingProxyType(data),
        compiler=COMPILER,
    )
    for v, document in documents.items():
        contract.memo(("document", v), partial(_same, document))
    # Compile every supported version now, so a broken schema is a load-time error.
    for v in contract.versions:
        compiled.schema_validator(contract, v)
        compiled.view_validator(contract, v)
    compiled.vendor_validator(contract)
    compiled.request_validator(contract)
    schema_checks.check(contract)
    return contract


def load_checked(directory: Path, locks: bool = True) -> Contract:
    """The contract in ``directory``, loaded; with ``locks``, a published schema version changed
    in place (``schemas.lock``) is an error."""
    contract = load_contract(directory)
    if locks:
        lock.verify(contract)
    return contract


class BoundaryCompiler:
    """A contract's compiled forms, made by the boundary and the differential (a
    :class:`harness.contract.records.Compiler`): what each loaded contract's conveniences
    (``contract.validator()``, ...) return."""

    schema_validator = staticmethod(compiled.schema_validator)
    view_schema = staticmethod(compiled.view_schema)
    view_validator = staticmethod(compiled.view_validator)
    vendor_validator = staticmethod(compiled.vendor_validator)
    request_validator = staticmethod(compiled.request_validator)

    @staticmethod
    def reference_validator(contract: Contract, version: int | None) -> Any:
        from harness.differential.reference import reference_validator  # python-jsonschema: when asked

        return reference_validator(contract, version)

    @staticmethod
    def vendor_reference_validator(contract: Contract) -> Any:
        from harness.differential.reference import vendor_reference_validator

        return vendor_reference_validator(contract)

    @staticmethod
    def adapter_function(contract: Contract) -> Any:
        from harness.boundary.adapter import adapter_function

        return adapter_function(contract)

    @staticmethod
    def adapter_version(contract: Contract) -> str | None:
        from harness.boundary.adapter import adapter_version

        return adapter_version(contract)

    @staticmethod
    def normalise_request(contract: Contract, request: Mapping[str, Any] | None) -> Mapping[str, Any]:
        from harness.boundary.request import normalise_request

        return normalise_request(contract, request)


COMPILER = BoundaryCompiler()


def _same(value: Any) -> Any:
    return value


def _duration(file: Path, pointer: str, text: str) -> timedelta:
    try:
        return parse_duration(text)
    except (ValueError, OverflowError) as exc:
        raise ContractError(str(exc), file=str(file), pointer=pointer, locate=position_in_file) from None


def discover(paths: list[Path]) -> list[Path]:
    """Contract directories under the given paths: a contract dir, ``contracts/`` or a root."""
    found: list[Path] = []
    for path in paths:
        if os.path.lexists(path / CONTRACT_FILE):  # not a regular file: its load says what it is
            found.append(path)
            continue
        base = path / "contracts" if (path / "contracts").is_dir() else path
        if not base.is_dir():
            raise ContractError("not a directory", file=str(path), code="contract.missing")
        found.extend(sorted(p.parent for p in base.glob(f"*/{CONTRACT_FILE}")))
    return found


def demo_root() -> Path:
    """The embedded demo project (contracts and fixtures of the three demo tools)."""
    from harness.project import demo_root as located

    return located()
