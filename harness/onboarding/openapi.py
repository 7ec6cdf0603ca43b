"""OpenAPI 3.0 / 3.1 descriptions as a source of contracts, one per named operation.

For each operation: the schema of its success response (the lowest ``2xx`` with a JSON body)
becomes ``schemas/v1.json`` in Draft 2020-12, with every local ``$ref`` it reaches copied into
``$defs`` (never fetched: a reference outside the description is an error) and OpenAPI 3.0's
own dialect converted by these rules only:

- ``nullable: true`` adds ``"null"`` to ``type`` (and ``null`` to ``enum``), or, on a schema
  without ``type``, becomes ``anyOf: [<the schema>, {"type": "null"}]`` (annotations stay
  outside);
- ``example: x`` becomes ``examples: [x]`` (3.0 and 3.1);
- boolean ``exclusiveMinimum`` / ``exclusiveMaximum`` become the numeric 2020-12 form.

Everything else, ``x-*`` extensions included, is kept as written. The response's ``example`` /
``examples`` become fixture candidates. Path parameters (and required query parameters) become
the request's args and the upstream's URL template; a path parameter becomes a **binding** when
the response echoes it at the top level in every alternative: under its own name, or, for the
parameter naming the resource (the last path segment), under its suffix (``pull_number`` ->
``/number``, ``check_run_id`` -> ``/id``) when the types agree.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from harness.datafiles import load_yaml
from harness.errors import ContractError, RejectedInput
from harness.files import MAX_SCHEMA_BYTES, read_bytes
from harness.onboarding.draft import Candidate, Skipped, ToolDraft, dump_json, first_line, header
from harness.onboarding.errors import OnboardingError
from harness.onboarding.instances import example_of
from harness.onboarding.names import binding_name, plan_tool_names, upstream_name
from harness.onboarding.view import deref, derive_agent_view, top_level_shapes
from harness.pointer import MISSING, escape_token, resolve, split
from harness.schemas import Document, Node
from harness.schemas import keywords as kw
from harness.schemas.dialects import BRANCHES, DIALECTS, DRAFT_2020_12, SLOTS, Slot
from harness.strict_json import strict_loads

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
OAS_31_DIALECT = "https://spec.openapis.org/oas/3.1/dialect/base"
#: The environment variable an imported upstream reads its base URL from, unless named otherwise.
DEFAULT_BASE_URL_ENV = "API_BASE_URL"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Methods drift sends without an opt-in; other operations get no sample requests.
_SAFE_METHODS = ("get", "head")

# Where subschemas sit, in any dialect a description may be written in (the schema model's
# table: draft-07 ``items: [...]`` and ``additionalItems`` included), and ``contentSchema``.
_SLOTS = {**SLOTS, "contentSchema": Slot.ONE}
#: OpenAPI's own annotations, kept outside the ``anyOf`` a typeless ``nullable`` becomes.
_OAS_ANNOTATIONS = frozenset({"example", "externalDocs", "xml"})
_RESOURCE_SUFFIX = re.compile(r"^.+[_-](id|number|key|slug|name|sha)$")


@dataclass(frozen=True, slots=True)
class Spec:
    """A loaded OpenAPI description."""

    document: Mapping[str, Any]
    version: str  # "3.0" or "3.1"
    source: str
    dialect: str = DRAFT_2020_12


@dataclass(frozen=True, slots=True)
class Operation:
    operation_id: str
    method: str
    path: str
    node: Mapping[str, Any]
    path_item: Mapping[str, Any]


def load_spec(path: Path) -> Spec:
    """Read an OpenAPI 3.0 or 3.1 description (JSON or YAML, parsed strictly)."""
    source = path.name
    if not path.exists() and not path.is_symlink():
        raise OnboardingError(f"OpenAPI description {str(path)!r} does not exist", code="import.spec_unreadable")
    try:
        is_json = path.suffix.lower() == ".json"
        # Capped reads of a regular file (harness.files): a description is generated, so it
        # gets a schema's room, not a hand-written YAML file's.
        document = (
            strict_loads(read_bytes(path, limit=MAX_SCHEMA_BYTES, what="OpenAPI description"), max_depth=512)
            if is_json
            else load_yaml(path, what="OpenAPI description", limit=MAX_SCHEMA_BYTES)
        )
    except RejectedInput as exc:
        raise OnboardingError(f"{source}: not valid JSON ({exc})", code="import.spec_invalid") from None
    except ContractError as exc:
        # A FIFO, a device, a directory or a file past the cap keeps its file.* code.
        code = exc.code if exc.code.startswith("file.") else "import.spec_invalid"
        raise OnboardingError(f"{source}: {exc.detail}", code=code) from None
    except OSError as exc:
        raise OnboardingError(f"{source}: cannot read: {exc.strerror}", code="import.spec_unreadable") from None
    if not isinstance(document, Mapping):
        raise OnboardingError(f"{source}: not an OpenAPI description (not an object)", code="import.spec_invalid")
    if "swagger" in document:
        raise OnboardingError(
            f"{source}: Swagger {document['swagger']} is not supported; convert it to OpenAPI 3 first",
            code="import.openapi_version",
        )
    declared = str(document.get("openapi", ""))
    version = next((v for v in ("3.0", "3.1") if declared == v or declared.startswith(v + ".")), None)
    if version is None:
        raise OnboardingError(
            f"{source}: openapi {declared or '(missing)'!r} is not supported (allowed: 3.0.x, 3.1.x)",
            code="import.openapi_version",
        )
    if not isinstance(document.get("paths", {}), Mapping):
        raise OnboardingError(f"{source}: /paths must be an object", code="import.spec_invalid")
    dialect = DRAFT_2020_12
    declared_dialect = document.get("jsonSchemaDialect")
    if version == "3.1" and isinstance(declared_dialect, str) and declared_dialect.rstrip("#") not in (
        OAS_31_DIALECT, DRAFT_2020_12
    ):
        if declared_dialect.rstrip("#") not in DIALECTS:
            raise OnboardingError(
                f"{source}: jsonSchemaDialect {declared_dialect!r} is not supported "
                f"(allowed: {', '.join(sorted(DIALECTS))})",
                code="import.spec_invalid",
            )
        dialect = declared_dialect
    return Spec(document, version, source, dialect)


def operations(spec: Spec) -> Iterator[Operation]:
    for path, item in (spec.document.get("paths") or {}).items():
        item = _follow(spec, item, f"/paths/{escape_token(path)}")
        if not isinstance(item, Mapping):
            continue
        for method in METHODS:
            node = item.get(method)
            if isinstance(node, Mapping) and isinstance(node.get("operationId"), str):
                yield Operation(node["operationId"], method, path, node, item)


def find_operation(spec: Spec, operation_id: str) -> Operation:
    found = [op for op in operations(spec) if op.operation_id == operation_id]
    if len(found) > 1:
        where = ", ".join(f"{op.method.upper()} {op.path}" for op in found)
        raise OnboardingError(
            f"{spec.source}: operationId {operation_id!r} is used twice ({where})", code="import.spec_invalid"
        )
    if not found:
        known = sorted(op.operation_id for op in operations(spec))
        close = difflib.get_close_matches(operation_id, known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        listing = ", ".join(known[:10]) + (f" and {len(known) - 10} more" if len(known) > 10 else "")
        raise OnboardingError(
            f"{spec.source} has no operation {operation_id!r}{hint} (operations: {listing or 'none'})",
            code="import.operation_not_found",
        )
    return found[0]


# ----------------------------------------------------------------------------- references


def _follow(spec: Spec, node: Any, where: str) -> Any:
    """A non-schema object, with its ``$ref`` chain followed (local references only)."""
    for _ in range(32):
        if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)):
            return node
        node = _target(spec, node["$ref"], where)
    raise OnboardingError(f"{spec.source}: {where}: $ref chain too long", code="import.unresolved_ref")


def _fragment(spec: Spec, ref: str, where: str) -> str:
    if not ref.startswith("#"):
        raise OnboardingError(
            f"{spec.source}: {where}: $ref {ref!r} leaves the description; only local references "
            "are bundled, never fetched",
            code="import.remote_ref",
        )
    return unquote(ref[1:])


def _target(spec: Spec, ref: str, where: str) -> Any:
    pointer = _fragment(spec, ref, where)
    target = resolve(spec.document, pointer) if pointer.startswith("/") or pointer == "" else MISSING
    if target is MISSING:
        raise OnboardingError(f"{spec.source}: {where}: $ref {ref!r} points at nothing", code="import.unresolved_ref")
    return target


class Bundle:
    """Converts schemas of one description into one 2020-12 document with ``$defs``."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.defs: dict[str, Any] = {}
        self._names: dict[str, str] = {}

    def convert(self, node: Any, where: str) -> Any:
        if not isinstance(node, Mapping):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = f"{where}/{escape_token(key)}"
            if key == "$ref" and isinstance(value, str):
                out[key] = self._ref(value, where)
            elif _SLOTS.get(key) is Slot.MAP and isinstance(value, Mapping):
                out[key] = {name: self.convert(sub, f"{here}/{escape_token(name)}") for name, sub in value.items()}
            elif _SLOTS.get(key) in (Slot.LIST, Slot.ITEMS) and isinstance(value, list):
                out[key] = [self.convert(sub, f"{here}/{i}") for i, sub in enumerate(value)]
            elif _SLOTS.get(key) in (Slot.ONE, Slot.ITEMS) and isinstance(value, Mapping):
                out[key] = self.convert(value, here)
            else:
                out[key] = value
        return self._dialect(out)

    def _ref(self, ref: str, where: str) -> str:
        pointer = _fragment(self.spec, ref, where)
        if pointer not in self._names:
            tokens = split(pointer) if pointer.startswith("/") else [pointer]
            is_component = tokens[:2] == ["components", "schemas"] and len(tokens) == 3
            inside = tokens[2:] if tokens[:2] == ["components", "schemas"] else tokens
            base = tokens[2] if is_component else ".".join(inside)
            name, n = base or "root", 2
            while name in self.defs:
                name, n = f"{base}_{n}", n + 1
            self._names[pointer] = name
            self.defs[name] = None  # reserved: recursive schemas refer to themselves
            self.defs[name] = self.convert(_target(self.spec, ref, where), "#" + pointer)
        return "#/$defs/" + quote(escape_token(self._names[pointer]), safe="~!$&'()*+,;=:@-._")

    def _dialect(self, node: dict[str, Any]) -> dict[str, Any]:
        if "example" in node and "examples" not in node:
            node["examples"] = [node.pop("example")]
        if self.spec.version != "3.0":
            return node
        for bound in ("Minimum", "Maximum"):
            flag = node.get(f"exclusive{bound}")
            if isinstance(flag, bool):
                del node[f"exclusive{bound}"]
                if flag and bound.lower() in node:
                    node[f"exclusive{bound}"] = node.pop(bound.lower())
        nullable = node.pop("nullable", None)
        if nullable is not True:
            return node
        declared = node.get("type")
        if declared is not None:
            types = [declared] if isinstance(declared, str) else list(declared)
            node["type"] = types + (["null"] if "null" not in types else [])
            if isinstance(node.get("enum"), list) and None not in node["enum"]:
                node["enum"] = [*node["enum"], None]
            return node
        outer = {k: v for k, v in node.items() if k != "$schema" and (kw.is_annotation(k) or k in _OAS_ANNOTATIONS)}
        inner = {k: v for k, v in node.items() if k not in outer}
        return {**outer, "anyOf": [inner, {"type": "null"}]}

    def document(self, root: Any) -> dict[str, Any]:
        """A standalone schema: ``$schema``, the converted root and the collected ``$defs``."""
        converted = self.convert(root, "response")
        out: dict[str, Any] = {"$schema": self.spec.dialect}
        if isinstance(converted, Mapping):
            given = converted.get("$defs")
            own: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
            clash = sorted(set(own) & set(self.defs))
            if clash:
                raise OnboardingError(
                    f"{self.spec.source}: the response schema's own $defs {', '.join(clash)} clash with "
                    "bundled components of the same name",
                    code="import.spec_unsupported",
                )
            out.update({k: v for k, v in converted.items() if k not in ("$defs", "$schema")})
            defs = {**own, **self.defs}
        else:  # a boolean schema
            out["allOf"] = [converted]
            defs = dict(self.defs)
        if defs:
            out["$defs"] = defs
        return out


# ----------------------------------------------------------------------------- responses


def _json_media(content: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    def is_json(media: str) -> bool:
        kind = media.split(";")[0].strip().lower()
        return kind == "application/json" or kind.endswith("+json") or kind == "*/*"

    ordered = sorted(content, key=lambda m: (m.split(";")[0].strip().lower() != "application/json", m))
    for media in ordered:
        if is_json(media) and isinstance(content[media], Mapping):
            return media, content[media]
    return None


def success_response(spec: Spec, op: Operation) -> tuple[str, str, Mapping[str, Any]]:
    """``(status, media type, media object)`` of the success response with a JSON body."""
    responses = op.node.get("responses")
    where = f"{op.operation_id} ({op.method.upper()} {op.path})"
    if not isinstance(responses, Mapping) or not responses:
        raise OnboardingError(f"{spec.source}: {where} declares no responses", code="import.no_success_response")
    codes = sorted((str(c) for c in responses if re.fullmatch(r"2[0-9][0-9]", str(c))), key=int)
    codes += [c for c in map(str, responses) if c.upper() == "2XX"]
    if not codes:
        raise OnboardingError(
            f"{spec.source}: {where} has no 2xx response (it has: {', '.join(map(str, responses))})",
            code="import.no_success_response",
        )
    seen = []
    for status in codes:
        response = _follow(spec, responses[status], f"/paths/{escape_token(op.path)}/{op.method}/responses/{status}")
        content = response.get("content") if isinstance(response, Mapping) else None
        media = _json_media(content) if isinstance(content, Mapping) else None
        if media is not None and "schema" in media[1]:
            return status, media[0], media[1]
        seen.append(f"{status}: {', '.join(content) if isinstance(content, Mapping) and content else 'no body'}")
    raise OnboardingError(
        f"{spec.source}: {where} has no 2xx response with a JSON schema ({'; '.join(seen)})",
        code="import.no_json_schema",
    )


def examples_of(spec: Spec, media: Mapping[str, Any], where: str) -> tuple[list[tuple[str, Any, str]], list[Skipped]]:
    """``(name, value, summary)`` of each example of a media type object."""
    found: list[tuple[str, Any, str]] = []
    skipped: list[Skipped] = []
    if "example" in media:
        found.append(("example", media["example"], ""))
    for name, example in (media.get("examples") or {}).items():
        example = _follow(spec, example, f"{where}/examples/{escape_token(name)}")
        if not isinstance(example, Mapping):
            continue
        if "value" not in example:
            reason = "externalValue is never fetched" if "externalValue" in example else "no value"
            skipped.append(Skipped(str(name), reason))
            continue
        value = example["value"]
        # Written by some generators (GitHub's among them): a reference where a literal belongs.
        if isinstance(value, Mapping) and set(value) == {"$ref"} and str(value["$ref"]).startswith(
            "#/components/examples/"
        ):
            target = _follow(spec, _target(spec, value["$ref"], where), where)
            value = target.get("value") if isinstance(target, Mapping) else value
        summary = first_line(str(example.get("summary") or example.get("description") or ""), 200)
        found.append((str(name), value, summary))
    return found, skipped


# ----------------------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    location: str
    required: bool
    schema: Any
    example: Any = MISSING


def parameters(spec: Spec, op: Operation) -> list[Parameter]:
    merged: dict[tuple[str, str], Parameter] = {}
    for owner, where in ((op.path_item, "path item"), (op.node, "operation")):
        for index, raw in enumerate(owner.get("parameters") or ()):
            node = _follow(spec, raw, f"{op.operation_id} {where} parameters[{index}]")
            if not isinstance(node, Mapping) or not isinstance(node.get("name"), str):
                continue
            example: Any = MISSING
            if "example" in node:
                example = node["example"]
            elif isinstance(node.get("examples"), Mapping) and node["examples"]:
                first = _follow(spec, next(iter(node["examples"].values())), where)
                example = first.get("value", MISSING) if isinstance(first, Mapping) else MISSING
            location = str(node.get("in", ""))
            merged[(node["name"], location)] = Parameter(
                node["name"], location, bool(node.get("required")) or location == "path",
                node.get("schema", {"type": "string"}), example,
            )
    return list(merged.values())


def _type_of(node: Node | None) -> set[str]:
    found = deref(node)
    return set(found.types or ()) if found is not None else set()


def _echo(param: Parameter, param_schema: Node | None, response: Document, last: bool) -> str | None:
    """The top-level property of the response that echoes a path parameter, or None."""
    shapes = top_level_shapes(response)
    if not shapes:
        return None
    candidates = [param.name]
    match = _RESOURCE_SUFFIX.match(param.name)
    if last and match:
        candidates.append(match.group(1))
    for name in candidates:
        if not all(name in s.required for s in shapes):
            continue
        wanted = _type_of(param_schema)
        found = _property_types(response, name)
        if wanted and found and not (wanted & found or ("integer" in wanted and "number" in found)):
            continue
        return name
    return None


def _property_types(response: Document, name: str) -> set[str]:
    """The types every declaration of the top-level property ``name`` names."""
    out: set[str] = set()
    for option in response.reach(response.root, BRANCHES):
        for member in response.kids(option, "properties"):
            if member.key == name:
                out |= _type_of(member)
    return out


def _server_url(spec: Spec) -> tuple[str, str] | None:
    """The description's first absolute server (variables at their defaults) and a name from
    its host: shown to the user, never written into the upstream."""
    for server in spec.document.get("servers") or ():
        if not isinstance(server, Mapping) or not isinstance(server.get("url"), str):
            continue
        url = server["url"]
        for name, variable in (server.get("variables") or {}).items():
            if isinstance(variable, Mapping) and "default" in variable:
                url = url.replace("{" + str(name) + "}", str(variable["default"]))
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc and "{" not in url:
            return url.rstrip("/"), upstream_name(parts.hostname, "api")
    return None


def check_env_name(name: str) -> str:
    """An environment variable name for ``${NAME}``, or a one-line error."""
    if not _ENV_NAME.fullmatch(name):
        raise OnboardingError(
            f"--base-url-env {name!r} is not an environment variable name (letters, digits, _; e.g. TICKETS_API_URL)",
            code="usage.invalid",
        )
    return name


# ----------------------------------------------------------------------------- drafts


def drafts(
    spec: Spec,
    operation_ids: Sequence[str],
    *,
    renames: Mapping[str, str] | None = None,
    imported_at: str,
    base_url_env: str = DEFAULT_BASE_URL_ENV,
) -> list[ToolDraft]:
    """One draft per named operation. Each upstream reads its base URL from ``${base_url_env}``:
    never the description's own server, which is usually production."""
    if not operation_ids:
        raise OnboardingError("name at least one --operation", code="import.operation_not_found")
    check_env_name(base_url_env)
    ops = [find_operation(spec, op_id) for op_id in dict.fromkeys(operation_ids)]
    names = plan_tool_names([op.operation_id for op in ops], renames)
    return [_draft(spec, op, names[op.operation_id], imported_at, base_url_env) for op in ops]


def _draft(spec: Spec, op: Operation, tool: str, imported_at: str, base_url_env: str) -> ToolDraft:
    status, media_type, media = success_response(spec, op)
    schema = Bundle(spec).document(media["schema"])
    notes: list[str] = []
    params = parameters(spec, op)
    args_params = [p for p in params if p.location == "path" or (p.location == "query" and p.required)]
    for p in params:
        if p.required and p.location in ("header", "cookie"):
            notes.append(f"required {p.location} parameter {p.name!r}: set it in the upstream by hand")
    if "requestBody" in op.node:
        notes.append("the operation takes a request body: add it to the upstream by hand")

    request_bundle = Bundle(spec)
    properties = {p.name: request_bundle.convert(p.schema, f"parameter {p.name}") for p in args_params}
    request_schema: dict[str, Any] = {
        "type": "object",
        "required": [p.name for p in args_params],
        "properties": properties,
        "additionalProperties": False,
    }
    if request_bundle.defs:
        request_schema["$defs"] = request_bundle.defs
    request_model = Document(request_schema)
    members = {k.key: k for k in request_model.kids(request_model.root, "properties")}
    defaults: dict[str, Any] = {}
    for p in args_params:
        value = p.example if p.example is not MISSING else example_of(members[p.name])
        if value is MISSING:
            notes.append(f"no example for parameter {p.name!r}: set request.example")
            continue
        defaults[p.name] = value

    last_param = re.fullmatch(r".*/\{([^}/]+)\}/?", op.path)
    response_model = Document(schema)
    bindings = []
    for p in args_params:
        if p.location != "path":
            continue
        echoed = _echo(p, members.get(p.name), response_model,
                       last=last_param is not None and last_param.group(1) == p.name)
        if echoed is not None:
            bindings.append({"name": binding_name(p.name), "result": "/" + escape_token(echoed),
                             "request": "/args/" + escape_token(p.name)})

    where = f"/paths/{escape_token(op.path)}/{op.method}/responses/{status}/content/{escape_token(media_type)}"
    found, skipped = examples_of(spec, media, where)
    candidates = []
    for name, value, summary in found:
        args = dict(defaults)
        for rule in bindings:
            echoed_value = resolve(value, rule["result"]) if isinstance(value, Mapping) else MISSING
            if echoed_value is not MISSING:
                args[split(rule["request"])[-1]] = echoed_value
        text = f"Example {name!r} of {op.operation_id} ({status} {media_type}) in {spec.source}"
        candidates.append(Candidate(name, dump_json(value), args, text + (f": {summary}" if summary else ".")))
    if not found:
        notes.append("the description has no response examples: no fixtures were written")

    server = _server_url(spec)
    base, upstream = "${" + base_url_env + "}", server[1] if server else "api"
    if server is not None:
        notes.append(
            f"the upstream reads its base URL from {base}: set it to a sandbox or staging copy of "
            f"{server[0]} (the description's server, never called as written)"
        )
    else:
        notes.append(f"no absolute server URL in the description: the upstream reads its base URL from {base}")
    safe = op.method in _SAFE_METHODS
    if not safe:
        notes.append(
            f"{op.method.upper()} may change data: the upstream has no requests, so drift reports it as not "
            "called (add requests:, and side_effects: allowed, only if calling it is harmless)"
        )
    query = [p.name for p in args_params if p.location == "query"]
    url = base + op.path + ("?" + "&".join(f"{q}={{{q}}}" for q in query) if query else "")
    example_args = candidates[0].args if candidates else defaults
    contract: dict[str, Any] = {"tool": tool}
    description = first_line(op.node.get("summary")) or first_line(op.node.get("description"))
    if description:
        contract["description"] = description
    contract.update({
        "version": 1,
        "request": {"schema": request_schema, "example": dict(example_args or {})},
        "envelope": None,
    })
    if bindings:
        contract["bindings"] = bindings
    contract["agent_view"] = derive_agent_view(response_model)
    contract["upstreams"] = {
        upstream: {
            "http": {"method": op.method.upper(), "url": url, "timeout_s": 10},
            "requests": [dict(example_args or {})] if safe else [],
        }
    }
    contract["x-imported"] = {
        "from": "openapi", "source": spec.source, "operation": op.operation_id,
        "method": op.method.upper(), "path": op.path, "status": status, "at": imported_at,
    }
    renamed = f" (operationId {op.operation_id!r})" if op.operation_id != tool else ""
    origin = (f"Imported from {spec.source} ({op.method.upper()} {op.path}, {status}) by "
              f"`contract-harness import openapi`{renamed}.")
    return ToolDraft(tool, op.operation_id, contract, schema, header(origin, "response schema"),
                     tuple(candidates), tuple(skipped), tuple(dict.fromkeys(notes)))
