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
import difflib
import importlib
import json
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
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
from harness.files import MAX_SCHEMA_BYTES, MAX_YAML_BYTES, read_bytes, read_text, shown
from harness.locate import offset_position
from harness.pointer import escape_token, resolve, split
from harness.schemas import Document
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


#: Tags a contract or sidecar may use: JSON's data model. ``!!binary``, ``!!set``, ``!!omap``,
#: ``!!timestamp`` and application tags have no JSON meaning and are refused.
_JSON_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map", "merge")
)
#: Nodes a YAML document may expand to, aliases followed. A hand-written contract has a few
#: hundred; an alias bomb of 1 KB has billions.
MAX_YAML_NODES = 100_000


def _check_nodes(root: yaml.Node, path: Path) -> None:
    """Refuse what the JSON data model cannot hold, before anything is constructed: tags outside
    it, complex (non-scalar) keys, recursive aliases and documents that expand past
    :data:`MAX_YAML_NODES` through aliases."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_NODES:
                raise _node_error(path, node, f"the document expands to more than {MAX_YAML_NODES:,} nodes "
                                  "through aliases (an alias bomb?)", "contract.yaml_expansion")
            continue
        if key in sizes:
            continue
        if key in open_:
            raise _node_error(path, node, "a YAML alias refers to a node that contains it", "contract.yaml_recursive")
        if node.tag not in _JSON_TAGS:
            raise _node_error(path, node, f"YAML tag {_tag_name(node.tag)} has no JSON meaning "
                              "(allowed: strings, numbers, booleans, null, lists, mappings)",
                              "contract.yaml_tag")
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise _node_error(path, key_node, "a mapping key must be a plain string, "
                                      "not a list or mapping (? complex key)", "contract.yaml_key")
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _tag_name(tag: str) -> str:
    return "!!" + tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else repr(tag)


def _node_error(path: Path, node: yaml.Node, message: str, code: str) -> ContractError:
    mark = node.start_mark
    return ContractError(message, file=shown(path), code=code, line=mark.line + 1, column=mark.column + 1)


def load_yaml(path: Path, *, within: Path | None = None, what: str = "YAML file") -> Any:
    """Parse a YAML file strictly into the JSON data model; errors name the file, line, column.

    The file must be a regular file of at most :data:`~harness.files.MAX_YAML_BYTES` (inside
    ``within`` when given). Repeated keys, tags outside JSON's data model, complex keys,
    recursive aliases and alias expansion past :data:`MAX_YAML_NODES` are errors."""
    text = read_text(path, limit=MAX_YAML_BYTES, within=within, what=what)
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _check_nodes(root, path)
        data = loader.construct_document(root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        detail = f"{context}, {problem}" if context and "found" in problem else problem
        raise ContractError(
            f"invalid YAML: {detail}", file=shown(path),
            line=mark.line + 1 if mark is not None else None,
            column=mark.column + 1 if mark is not None else None,
        ) from None
    finally:
        loader.dispose()
    return _json_model(data, path, "")


def _json_model(value: Any, path: Path, where: str) -> Any:
    """YAML -> the JSON data model: mapping keys become strings (``1:`` -> ``"1"``)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise ContractError(
                    f"mapping key {key!r} must be a string (quote it)", file=shown(path), pointer=where or "/"
                )
            out[str(key)] = _json_model(item, path, f"{where}/{escape_token(key)}")
        return out
    if isinstance(value, list):
        return [_json_model(item, path, f"{where}/{i}") for i, item in enumerate(value)]
    if isinstance(value, float) and value != value:
        raise ContractError("NaN is not allowed", file=shown(path), pointer=where)
    return value


def load_json_file(path: Path, *, within: Path | None = None, what: str = "JSON file") -> Any:
    """Parse a JSON file with the strict parser; errors name the file, line and column."""
    data = read_bytes(path, limit=MAX_SCHEMA_BYTES, within=within, what=what)
    try:
        return strict_loads(data, max_depth=256)
    except RejectedInput as exc:
        line, column = offset_position(data, exc.offset) if exc.offset is not None else (None, None)
        raise ContractError(f"not valid JSON ({exc.code}: {exc.message})", file=shown(path),
                            pointer=exc.pointer if line is None else None,
                            line=line, column=column) from None


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
    """A live source for drift checks. ``kind`` is ``http``, ``command`` or ``mcp``.

    ``side_effects_allowed`` (``side_effects: allowed``) lets drift send requests that may
    change data: an HTTP method other than GET, an MCP tool not annotated read-only."""

    name: str
    kind: str
    config: Mapping[str, Any]
    requests: tuple[Mapping[str, Any], ...]
    side_effects_allowed: bool = False


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

    def document(self, version: int | None = None) -> Document:
        """The schema model of a version (its references resolved among the contract's own
        schema files; cached)."""
        version = self.version if version is None else version
        return self._cached(("document", version), lambda: Document(
            self.schema(version), file=self.schema_path(version), resources=self.schema_resources()))

    def vendor_document(self) -> Document | None:
        """The schema model of ``vendor_schema`` (cached); None without one."""
        if self.vendor_schema is None:
            return None
        named = self.raw.get("vendor_schema")
        file = self.directory / named if isinstance(named, str) else self.path
        return self._cached(("vendor-document",), lambda: Document(
            self.vendor_schema, file=file, base_uri=self.path.resolve().as_uri(),
            resources=self.schema_resources()))

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
        base = file.resolve().as_uri()
        try:
            validator = validator_for(schema, resources=self.schema_resources(), base_uri=base)
        except ContractError as exc:
            raise ContractError(exc.detail, file=str(file), pointer=exc.pointer,
                                allowed=exc.allowed, code=exc.code) from None
        _refuse_ref_cycles(self.document(version), file)
        return validator

    def _compile_vendor(self) -> SchemaValidator:
        named = self.raw.get("vendor_schema")
        base = self.path.resolve().as_uri()
        try:
            validator = validator_for(self.vendor_schema, resources=self.schema_resources(), base_uri=base)
        except ContractError as exc:
            if isinstance(named, str):  # a file beside the contract: the pointer is in that file
                raise ContractError(exc.detail, file=str(self.directory / named), pointer=exc.pointer,
                                    code=exc.code) from None
            raise ContractError(exc.detail, file=str(self.path), pointer="/vendor_schema" + (exc.pointer or ""),
                                code=exc.code) from None
        file = self.directory / named if isinstance(named, str) else self.path
        prefix = "" if isinstance(named, str) else "/vendor_schema"
        document = self.vendor_document()
        assert document is not None
        _refuse_ref_cycles(document, file, prefix)
        return validator

    def _import_adapter(self) -> Callable[..., Any]:
        module_name, _, func_name = (self.adapter or "").partition(":")
        root = str(self.root.resolve())
        if root not in sys.path:
            sys.path.insert(0, root)
        try:
            module = importlib.import_module(module_name)
            func = getattr(module, func_name)
        except Exception as exc:
            raise ContractError(
                f"adapter {self.adapter!r} cannot be imported: {_one_line(exc)}",
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
        return self._cached(("request",), self._compile_request)

    def _compile_request(self) -> SchemaValidator:
        try:
            return validator_for(self.request_schema)
        except ContractError as exc:
            raise ContractError(exc.detail, file=str(self.path), pointer="/request/schema" + (exc.pointer or ""),
                                code=exc.code) from None

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
        content = load_json_file(file, within=directory, what="schema file")
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


def _one_line(exc: BaseException) -> str:
    """An exception from code we do not own, as one line: its type and first line; for a syntax
    error, where it is."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{type(exc).__name__} in {exc.filename}:{exc.lineno}: {exc.msg}"
    first = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` for a near miss among ``choices``, else the empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _meta_error(file: Path, data: Any) -> ContractError:
    return schema_error(file, data, _meta_validator(), meta_schema())


def schema_error(
    file: Path, data: Any, validator: SchemaValidator, schema: Any, code: str | None = None
) -> ContractError:
    """The first way ``data`` (read from ``file``) fails a schema of ours (the contract or
    sidecar meta-schema), for people: an unknown key named at its own position with a
    did-you-mean, an enum with its allowed values, masked values shown as written."""
    violation = validator.violations(data)[0]
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
    message = message.replace("<value>", _shown(_value_at(data, pointer)))
    return ContractError(message, file=str(file), pointer=pointer, allowed=allowed, code=code)


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
            pointer="/tool",
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
        # Confined to the contract's folder: `vendor_schema: ../../../etc/passwd` is an error.
        vendor = load_json_file(directory / vendor, within=directory, what="vendor_schema file")
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
                spec.get("side_effects") == "allowed",
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
                max_age=_duration(file, f"/freshness/{i}/max_age", f["max_age"]),
                max_future_skew=_duration(file, f"/freshness/{i}/max_future_skew", f.get("max_future_skew", "PT30S")),
                max_age_text=f["max_age"],
                max_future_skew_text=f.get("max_future_skew", "PT30S"),
            )
            for i, f in enumerate(data.get("freshness", []))
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
        code="contract.ref_cycle",
    )


def _duration(file: Path, pointer: str, text: str) -> timedelta:
    try:
        return parse_duration(text)
    except (ValueError, OverflowError) as exc:
        raise ContractError(str(exc), file=str(file), pointer=pointer) from None


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
