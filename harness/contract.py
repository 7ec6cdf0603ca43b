"""Load and check ``contracts/<tool>/contract.yaml`` and its versioned schemas.

A contract directory holds ``contract.yaml`` (checked by the meta-schema shipped in this
package) and ``schemas/v<N>.json`` for every supported version. Fixtures live beside the
``contracts/`` folder, under ``fixtures/{accepted,rejected,historical}/<tool>/``; the folder
holding both is the contract's *project root*.

Everything loaded is immutable: :class:`Contract` and its parts are frozen records, mappings
are read-only views. Compiled validators are cached on the contract.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar
from urllib.parse import urljoin

import yaml

from harness import consistency
from harness.boundary.parse import strict_loads
from harness.boundary.projection import derive_view_schema
from harness.boundary.schema import SchemaValidator, validator_for
from harness.boundary.transport import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from harness.codes import AgentCode
from harness.errors import ContractError, InvalidRequest, RejectedInput
from harness.pointer import resolve, split
from harness.timeutil import parse_duration, parse_rfc3339

_T = TypeVar("_T")
CONTRACT_FILE = "contract.yaml"
SCHEMAS_DIR = "schemas"
DEFAULT_REQUEST_ID = "req.J7q94MkP"
_VERSION_FILE = re.compile(r"^v([1-9][0-9]*)\.json$")


# --------------------------------------------------------------------------- YAML


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available


class _StrictLoader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader that refuses repeated mapping keys, as the parse layer does for JSON."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Timestamps stay strings: the freshness layer parses them itself, strictly.
_StrictLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(path: Path) -> Any:
    """Parse a YAML file strictly (duplicate keys refused); errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContractError("file not found", file=str(path), code="contract.missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ContractError(f"cannot read: {exc}", file=str(path)) from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ContractError(f"{where}invalid YAML: {problem}", file=str(path)) from None
    return _json_model(data, path, "")


def _json_model(value: Any, path: Path, where: str) -> Any:
    """YAML -> the JSON data model: mapping keys become strings (``1:`` -> ``"1"``)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise ContractError(
                    f"mapping key {key!r} must be a string", file=str(path), pointer=where or "/"
                )
            out[str(key)] = _json_model(item, path, f"{where}/{key}")
        return out
    if isinstance(value, list):
        return [_json_model(item, path, f"{where}/{i}") for i, item in enumerate(value)]
    if isinstance(value, float) and value != value:
        raise ContractError("NaN is not allowed", file=str(path), pointer=where)
    return value


def load_json_file(path: Path) -> Any:
    """Parse a JSON file with the strict parser; errors name the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ContractError("file not found", file=str(path), code="contract.missing") from None
    except OSError as exc:
        raise ContractError(f"cannot read: {exc}", file=str(path)) from None
    try:
        return strict_loads(data, max_depth=256)
    except RejectedInput as exc:
        raise ContractError(f"not valid JSON ({exc})", file=str(path)) from None


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH


@dataclass(frozen=True, slots=True)
class BindingRule:
    """``result`` pointer (in the contract object) must equal ``request`` pointer."""

    name: str
    result: str
    request: str
    result_tokens: tuple[str, ...] = ()
    request_tokens: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, result: str, request: str) -> BindingRule:
        return cls(name, result, request, tuple(split(result)), tuple(split(request)))


@dataclass(frozen=True, slots=True)
class FreshnessRule:
    field: str
    max_age: timedelta
    max_future_skew: timedelta = timedelta(seconds=30)
    max_age_text: str = ""
    max_future_skew_text: str = "PT30S"

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(split(self.field))


@dataclass(frozen=True, slots=True)
class ViewField:
    name: str
    pointer: str
    optional: bool = False
    tokens: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, pointer: str, optional: bool = False) -> ViewField:
        return cls(name, pointer, optional, tuple(split(pointer)))


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    retryable: frozenset[str] = frozenset({AgentCode.UPSTREAM_UNAVAILABLE.value})
    freshness_retryable: bool = True
    codes: tuple[str, ...] = ()

    @property
    def allowed(self) -> frozenset[str]:
        """Every failure code an agent may see from this tool."""
        return frozenset(c.value for c in AgentCode) | frozenset(self.codes)


@dataclass(frozen=True, slots=True)
class Envelope:
    """Member names of the result envelope (DESIGN.md section 1)."""

    tool: str = "tool"
    request_id: str = "request_id"
    outcome: str = "outcome"
    success: str = "success"
    failure: str = "failure"
    error_code: str = "/error/code"


@dataclass(frozen=True, slots=True)
class Upstream:
    """A live source for drift checks. ``kind`` is ``http``, ``command`` or ``mcp``."""

    name: str
    kind: str
    config: Mapping[str, Any]
    requests: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Waiver:
    rule: str
    pointer: str
    reason: str
    schema: str | None = None


@dataclass(frozen=True)
class Contract:
    """One tool's contract, loaded from disk. Immutable; validators compile on first use."""

    tool: str
    version: int
    schemas: Mapping[int, Any]
    path: Path
    description: str = ""
    limits: Limits = Limits()
    request_schema: Any = True
    request_example: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    request_id: str = DEFAULT_REQUEST_ID
    bindings: tuple[BindingRule, ...] = ()
    freshness: tuple[FreshnessRule, ...] = ()
    agent_view: tuple[ViewField, ...] = ()
    errors: ErrorPolicy = ErrorPolicy()
    envelope: Envelope | None = Envelope()
    adapter: str | None = None
    vendor_schema: Any = None
    default_now: datetime | None = None
    upstreams: tuple[Upstream, ...] = ()
    waivers: tuple[Waiver, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False, hash=False)
    _lock: Any = field(
        default_factory=threading.RLock, repr=False, compare=False, hash=False
    )

    # ------------------------------------------------------------------ locations
    @property
    def directory(self) -> Path:
        """``contracts/<tool>/``."""
        return self.path.parent

    @property
    def root(self) -> Path:
        """The project root: the folder holding ``contracts/`` and ``fixtures/``."""
        return self.directory.parent.parent

    def schema_path(self, version: int | None = None) -> Path:
        return self.directory / SCHEMAS_DIR / f"v{version or self.version}.json"

    def fixtures_dir(self, kind: str) -> Path:
        """``fixtures/<kind>/<tool>/`` for kind in accepted, rejected, historical."""
        return self.root / "fixtures" / kind / self.tool

    @property
    def versions(self) -> tuple[int, ...]:
        return tuple(sorted(self.schemas))

    # ------------------------------------------------------------------ schemas
    def schema(self, version: int | None = None) -> Any:
        version = self.version if version is None else version
        if version not in self.schemas:
            raise ContractError(
                f"no schema for version {version}",
                file=str(self.path),
                allowed=self.versions,
                code="contract.unknown_version",
            )
        return self.schemas[version]

    def validator(self, version: int | None = None) -> SchemaValidator:
        """The compiled production validator for a version (cached)."""
        version = self.version if version is None else version
        return self._cached(("schema", version), lambda: self._compile(version))

    def view_schema(self, version: int | None = None) -> dict[str, Any]:
        """The closed schema of the agent-facing ``data`` object (derived, cached)."""
        version = self.version if version is None else version
        return self._cached(("view", version), lambda: derive_view_schema(self, version))

    def view_validator(self, version: int | None = None) -> SchemaValidator:
        version = self.version if version is None else version
        return self._cached(("view-validator", version), lambda: self._compile_view(version))

    def _compile_view(self, version: int) -> SchemaValidator:
        # The view copies subschemas (and $defs) of the version's schema, so its relative
        # $refs must resolve as the version's do: give it a sibling URI of that file / $id.
        schema = self.schema(version)
        base = self.schema_path(version).resolve().as_uri()
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            base = schema["$id"]
        try:
            return validator_for(
                self.view_schema(version),
                resources=self.schema_resources(),
                base_uri=urljoin(base, f"agent-view-v{version}.json"),
            )
        except ContractError as exc:
            raise ContractError(
                f"the agent view derived from v{version} does not compile: {exc.detail}",
                file=str(self.path), pointer="/agent_view", code=exc.code,
            ) from None

    def vendor_validator(self) -> SchemaValidator | None:
        if self.vendor_schema is None:
            return None
        return self._cached(("vendor",), lambda: self._compile_vendor())

    def reference_validator(self, version: int | None = None) -> Any:
        """The python-jsonschema validator for a version (differential checks; cached)."""
        from harness.differential import ReferenceValidator

        version = self.version if version is None else version
        file = self.schema_path(version)
        return self._cached(
            ("reference", version),
            lambda: ReferenceValidator(
                self.schema(version), self.schema_resources(), file.resolve().as_uri()
            ),
        )

    def vendor_reference_validator(self) -> Any:
        from harness.differential import ReferenceValidator

        if self.vendor_schema is None:
            return None
        return self._cached(
            ("vendor-reference",),
            lambda: ReferenceValidator(
                self.vendor_schema, self.schema_resources(), self.path.resolve().as_uri()
            ),
        )

    def adapter_function(self) -> Callable[..., Any] | None:
        if self.adapter is None:
            return None
        return self._cached(("adapter",), self._import_adapter)

    def _cached(self, key: Any, build: Callable[[], _T]) -> _T:
        try:
            return self._cache[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        with self._lock:
            if key not in self._cache:
                self._cache[key] = build()
            return self._cache[key]  # type: ignore[no-any-return]

    def schema_resources(self) -> list[tuple[str, Any]]:
        """Every schema file of the contract, by file URI and by ``$id``: what ``$ref`` may reach."""
        return self._cached(("resources",), self._load_resources)

    def _load_resources(self) -> list[tuple[str, Any]]:
        return load_schema_resources(self.directory)

    def _compile(self, version: int) -> SchemaValidator:
        file = self.schema_path(version)
        schema = self.schema(version)
        try:
            return validator_for(
                schema, resources=self.schema_resources(), base_uri=file.resolve().as_uri()
            )
        except ContractError as exc:
            raise ContractError(exc.detail, file=str(file), pointer=exc.pointer,
                                allowed=exc.allowed, code=exc.code) from None

    def _compile_vendor(self) -> SchemaValidator:
        try:
            return validator_for(
                self.vendor_schema,
                resources=self.schema_resources(),
                base_uri=self.path.resolve().as_uri(),
            )
        except ContractError as exc:
            raise ContractError(exc.detail, file=str(self.path), pointer="/vendor_schema",
                                code=exc.code) from None

    def _import_adapter(self) -> Callable[..., Any]:
        module_name, _, func_name = (self.adapter or "").partition(":")
        root = str(self.root.resolve())
        if root not in sys.path:
            sys.path.insert(0, root)
        try:
            module = importlib.import_module(module_name)
            func = getattr(module, func_name)
        except (ImportError, AttributeError) as exc:
            raise ContractError(
                f"adapter {self.adapter!r} cannot be imported: {exc}",
                file=str(self.path),
                pointer="/adapter",
                code="contract.adapter_import",
            ) from None
        if not callable(func):
            raise ContractError(
                f"adapter {self.adapter!r} is not callable",
                file=str(self.path),
                pointer="/adapter",
                code="contract.adapter_import",
            )
        return func  # type: ignore[no-any-return]

    def without_adapter(self) -> Contract:
        """This contract judging contract objects directly: no adapter, no vendor schema.

        For payloads that already are contract objects (historical contract-shaped fixtures of
        a tool with an adapter). Built once and cached.
        """
        if self.adapter is None:
            return self
        return self._cached(
            ("without-adapter",),
            lambda: dataclasses.replace(
                self, adapter=None, vendor_schema=None, _cache={}, _lock=threading.RLock()
            ),
        )

    @property
    def adapter_version(self) -> str | None:
        func = self.adapter_function()
        if func is None:
            return None
        version = getattr(func, "version", None) or getattr(
            sys.modules.get(func.__module__), "__version__", None
        )
        return str(version) if version is not None else None

    # ------------------------------------------------------------------ requests
    def default_request(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "request_id": self.request_id,
            "args": json.loads(json.dumps(dict(self.request_example))),
        }

    def request_validator(self) -> SchemaValidator:
        return self._cached(("request",), lambda: validator_for(self.request_schema))

    def normalise_request(self, request: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """Fill a partial request from the defaults and check it; raise InvalidRequest.

        The result is read-only; the default request is built once.
        """
        if request is None:
            return self._cached(("default-request",), lambda: MappingProxyType(self.default_request()))
        if not isinstance(request, Mapping):
            raise InvalidRequest(f"a request must be an object, not {type(request).__name__}")
        unknown = set(request) - {"tool", "request_id", "args"}
        if unknown:
            raise InvalidRequest(
                f"request has unknown members {sorted(unknown)} (allowed: tool, request_id, args)"
            )
        full = {
            "tool": request.get("tool", self.tool),
            "request_id": request.get("request_id", self.request_id),
            "args": request.get("args", dict(self.request_example)),
        }
        if full["tool"] != self.tool:
            raise InvalidRequest(f"request is for tool {full['tool']!r}, contract is {self.tool!r}")
        if not isinstance(full["request_id"], str) or not full["request_id"]:
            raise InvalidRequest("request_id must be a non-empty string")
        if not isinstance(full["args"], Mapping):
            raise InvalidRequest("request args must be an object")
        try:
            violation = self.request_validator().first_violation(full["args"])
        except ValueError as exc:
            raise InvalidRequest(f"request args are not JSON data: {exc}") from None
        if violation is not None:
            raise InvalidRequest(
                f"request args do not fit the contract's request schema: "
                f"{violation.message} at {violation.instance_pointer or '/'}"
            )
        return MappingProxyType(full)


# --------------------------------------------------------------------------- loading


def load_schema_resources(directory: Path) -> list[tuple[str, Any]]:
    """Every schema file in ``<directory>/schemas/``, by file URI and by ``$id``."""
    found: list[tuple[str, Any]] = []
    folder = directory / SCHEMAS_DIR
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        content = load_json_file(file)
        found.append((file.resolve().as_uri(), content))
        if isinstance(content, dict) and isinstance(content.get("$id"), str):
            found.append((content["$id"].rstrip("#"), content))
    return found

_META: SchemaValidator | None = None


def meta_schema() -> Any:
    """The JSON Schema every contract.yaml must satisfy."""
    text = resources.files("harness").joinpath("contract.schema.json").read_bytes()
    return strict_loads(text)


def _meta_validator() -> SchemaValidator:
    global _META
    if _META is None:
        _META = validator_for(meta_schema())
    return _META


def _meta_error(file: Path, data: Any) -> ContractError:
    violation = _meta_validator().violations(data)[0]
    pointer = violation.instance_pointer
    allowed: list[str] | None = None
    message = violation.message
    if violation.keyword == "additionalProperties":
        schema_node = _schema_at(meta_schema(), violation.schema_pointer)
        if isinstance(schema_node, dict):
            allowed = sorted(schema_node.get("properties", {}))
        message = message.replace("Additional properties are not allowed", "unknown key")
    elif violation.keyword == "enum":
        schema_node = _schema_at(meta_schema(), violation.schema_pointer)
        if isinstance(schema_node, dict):
            allowed = [str(v) for v in schema_node.get("enum", [])]
    message = message.replace("<value>", _shown(_value_at(data, pointer)))
    return ContractError(message, file=str(file), pointer=pointer, allowed=allowed)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


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
    data = load_yaml(file)
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
            pointer="/tool",
        )
    schemas: dict[int, Any] = {}
    folder = directory / SCHEMAS_DIR
    for candidate in sorted(folder.iterdir()) if folder.is_dir() else []:
        match = _VERSION_FILE.match(candidate.name)
        if match:
            schemas[int(match.group(1))] = load_json_file(candidate)
    if version not in schemas:
        raise ContractError(
            f"version {version} has no schema file {SCHEMAS_DIR}/v{version}.json",
            file=str(file),
            pointer="/version",
            allowed=sorted(schemas) or None,
            code="contract.missing",
        )

    limits = Limits(**data.get("limits", {}))
    request = data.get("request", {})
    errors = data.get("errors", {})
    defaults = data.get("defaults", {})
    vendor = data.get("vendor_schema")
    if isinstance(vendor, str):
        vendor = load_json_file(directory / vendor)
    default_now = None
    if "now" in defaults:
        default_now = parse_rfc3339(defaults["now"])
        if default_now is None:
            raise ContractError(
                "not an RFC 3339 date-time with an offset", file=str(file), pointer="/defaults/now"
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
                pointer=f"/upstreams/{name}",
                allowed=("http", "command", "mcp"),
            )
        upstreams.append(
            Upstream(
                name,
                kinds[0],
                MappingProxyType(dict(spec[kinds[0]])),
                tuple(MappingProxyType(dict(r)) for r in spec.get("requests", [])),
            )
        )

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
        bindings=tuple(BindingRule.of(**b) for b in data.get("bindings", [])),
        freshness=tuple(
            FreshnessRule(
                field=f["field"],
                max_age=parse_duration(f["max_age"]),
                max_future_skew=parse_duration(f.get("max_future_skew", "PT30S")),
                max_age_text=f["max_age"],
                max_future_skew_text=f.get("max_future_skew", "PT30S"),
            )
            for f in data.get("freshness", [])
        ),
        agent_view=tuple(view),
        errors=ErrorPolicy(
            retryable=frozenset(errors.get("retryable", [AgentCode.UPSTREAM_UNAVAILABLE.value])),
            freshness_retryable=errors.get("freshness_retryable", True),
            codes=tuple(errors.get("codes", [])),
        ),
        envelope=consistency.envelope_for(file, data, schemas),
        adapter=data.get("adapter"),
        vendor_schema=vendor,
        default_now=default_now,
        upstreams=tuple(upstreams),
        waivers=tuple(Waiver(**w) for w in data.get("waivers", [])),
        raw=MappingProxyType(data),
    )
    # Compile every supported version now, so a broken schema is a load-time error.
    for v in contract.versions:
        contract.validator(v)
        contract.view_validator(v)
    contract.vendor_validator()
    contract.request_validator()
    consistency.check(contract)
    return contract


def discover(paths: list[Path]) -> list[Path]:
    """Contract directories under the given paths: a contract dir, ``contracts/`` or a root."""
    found: list[Path] = []
    for path in paths:
        if (path / CONTRACT_FILE).is_file():
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
