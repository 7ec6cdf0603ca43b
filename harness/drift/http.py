"""The ``http`` upstream kind: one request per sample, read as a stream within the byte cap.

```yaml
upstreams:
  sandbox:
    http:
      method: GET
      url: "${REVIEW_API}/reviews/{change_id}"
      headers: {Authorization: "Bearer ${REVIEW_TOKEN}", X-Request-Id: "{request_id}"}
      timeout_s: 5            # the whole exchange, redirects included
      connect_timeout_s: 2
      read_timeout_s: 5       # between two reads
      content_type: application/json
    requests: [{change_id: CR-1042}]
```

Only ``GET`` is sent unless the upstream sets ``side_effects: allowed`` (any other method is
reported as not called); ``${ENV}`` values in headers are checked before anything is sent.
The body is read with ``aiter_raw`` and never more than ``max_bytes + 1`` bytes of it are kept
(gzip and deflate are inflated with a bounded output), so a 1 GB body costs what the cap
allows. Redirects are followed only to the same host (an upgrade from http to https allowed).
Statuses: 2xx carries the result; 404 and 410 are ``transport.not_found``; any other status is
``transport.unavailable``. A 2xx labelled with another media type is refused before parsing
(``transport.content_type``).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import anyio
import httpx

from harness.codes import (
    TRANSPORT_CONTENT_TYPE,
    TRANSPORT_INVALID_REQUEST,
    TRANSPORT_NOT_FOUND,
    TRANSPORT_READ_ERROR,
    TRANSPORT_UNAVAILABLE,
)
from harness.drift.kinds import SAFE_HTTP_METHODS, Config, Failure, Fetched, NotCalled, Refusal
from harness.drift.template import Environment, Template, template_values
from harness.version import __version__

if TYPE_CHECKING:
    from harness.contract import Contract, Upstream

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_CONTENT_TYPE = "application/json"
DEFAULT_NOT_FOUND = (404, 410)
DEFAULT_MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
#: Statuses refusing the request itself (malformed, unprocessable): it would fail again as sent.
_REQUEST_ERRORS = (400, 422)
#: Header names whose values are credentials: they must come from ${ENV}.
_SECRET_HEADER = re.compile(r"(?i)^(authorization|proxy-authorization|cookie)$|token|secret|passw|api[-_]?key|auth")
_SECRET_QUERY = re.compile(r"(?i)[?&](access_token|token|api_?key|apikey|key|secret|password|sig|signature)=([^&#]*)")
#: What an HTTP header value may hold (visible ASCII, space, tab): anything else is refused
#: before sending, because HTTP libraries quote the whole value in their error.
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")


def _quote_segment(value: str) -> str:
    return quote(value, safe="")


class HttpKind:
    name = "http"

    def configure(self, contract: Contract, upstream: Upstream, env: Environment) -> HttpSource:
        cfg = Config(contract, upstream)
        url = cfg.template("url")
        _check_url_secrets(cfg, url)
        method = str(cfg.data.get("method", "GET")).upper()
        headers = tuple(
            (name, cfg.template(f"headers/{name}", text)) for name, text in cfg.data.get("headers", {}).items()
        )
        for name, template in headers:
            if _SECRET_HEADER.search(name) and not template.uses_env:
                raise cfg.error(
                    f"headers/{name}",
                    (
                        f"header {name!r} carries a credential, so its value must come from "
                        "${ENV} (a secret written in contract.yaml is in every clone and log)"
                    ),
                    code="upstream.literal_secret",
                )
            if any(c in template.text for c in "\r\n"):
                raise cfg.error(f"headers/{name}", "a header value cannot contain a line break")
            _check_header_env(cfg, name, template, env)
        timeout = cfg.number("timeout_s", DEFAULT_TIMEOUT_S)
        body = _json_templates(cfg, cfg.data.get("json"), "json") if "json" in cfg.data else None
        source = HttpSource(
            name=upstream.name,
            method=method,
            url=url,
            headers=headers,
            json_body=body,
            timeout_s=timeout,
            connect_timeout_s=cfg.number("connect_timeout_s", min(timeout, 5.0)),
            read_timeout_s=cfg.number("read_timeout_s", timeout),
            content_type=cfg.data.get("content_type", DEFAULT_CONTENT_TYPE),
            not_found=frozenset(cfg.data.get("not_found_status", DEFAULT_NOT_FOUND)),
            max_redirects=int(cfg.data.get("max_redirects", DEFAULT_MAX_REDIRECTS)),
            max_bytes=contract.limits.max_bytes,
            requests=max(1, len(upstream.requests)),
            env=env,
            side_effects_allowed=upstream.side_effects_allowed,
        )
        for template in source.request_templates():
            env.require(template)
        source.check_url(cfg)
        return source


def _check_header_env(cfg: Config, name: str, template: Template, env: Environment) -> None:
    """Each ``${ENV}`` value in a header must be sendable as one: never echoed in the error."""
    for kind, variable, default in template.parts:
        if kind != "env":
            continue
        value = env.get(variable, default, template.where)
        if any(c in value for c in "\r\n\0"):
            problem = "holds a line break or NUL"
        elif not value.isascii():
            problem = "holds non-ASCII characters"
        elif not _HEADER_VALUE.fullmatch(value):
            problem = "holds control characters"
        else:
            continue
        raise cfg.error(
            f"headers/{name}",
            f"the value of ${{{variable}}} {problem}, which an HTTP header cannot carry (is the variable set to "
            "the right value?)",
            code="upstream.env_invalid",
        )


def _check_url_secrets(cfg: Config, url: Template) -> None:
    literal = "".join(text for kind, text, _ in url.parts if kind == "lit")
    if re.search(r"://[^/@]*:[^/@]*@", literal):
        raise cfg.error("url", "a password in the URL must come from ${ENV}", code="upstream.literal_secret")
    for match in _SECRET_QUERY.finditer(url.text):
        if not match.group(2).startswith("${"):
            raise cfg.error(
                "url",
                (f"query parameter {match.group(1)!r} carries a credential, so its value must come from ${{ENV}}"),
                code="upstream.literal_secret",
            )


def _json_templates(cfg: Config, node: Any, where: str) -> Any:
    if isinstance(node, str):
        return cfg.template(where, node)
    if isinstance(node, dict):
        return {k: _json_templates(cfg, v, f"{where}/{k}") for k, v in node.items()}
    if isinstance(node, list):
        return [_json_templates(cfg, v, f"{where}/{i}") for i, v in enumerate(node)]
    return node


def _render_json(node: Any, env: Environment, values: Mapping[str, Any]) -> Any:
    if isinstance(node, Template):
        if len(node.parts) == 1 and node.parts[0][0] == "field":
            return values[node.parts[0][1]]  # "{attempt}" keeps the argument's own JSON type
        return node.render(env, values)
    if isinstance(node, dict):
        return {k: _render_json(v, env, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_render_json(v, env, values) for v in node]
    return node


def _json_fields(node: Any) -> list[Template]:
    if isinstance(node, Template):
        return [node]
    if isinstance(node, dict):
        return [t for v in node.values() for t in _json_fields(v)]
    if isinstance(node, list):
        return [t for v in node for t in _json_fields(v)]
    return []


@dataclass(frozen=True, slots=True)
class HttpSource:
    name: str
    method: str
    url: Template
    headers: tuple[tuple[str, Template], ...]
    json_body: Any
    timeout_s: float
    connect_timeout_s: float
    read_timeout_s: float
    content_type: str | None
    not_found: frozenset[int]
    max_redirects: int
    max_bytes: int
    requests: int
    env: Environment
    side_effects_allowed: bool = False
    kind: str = "http"

    @property
    def budget_s(self) -> float:
        return self.requests * self.timeout_s + 1.0

    def request_templates(self) -> list[Template]:
        return [self.url, *(t for _, t in self.headers), *_json_fields(self.json_body)]

    def check_url(self, cfg: Config) -> None:
        sample = {name: "x" for name in self.url.fields}
        try:
            url = httpx.URL(self.url.render(self.env, sample, _quote_segment, query=_quote_segment))
        except (httpx.InvalidURL, ValueError) as exc:
            raise cfg.error("url", f"not a URL once filled in: {type(exc).__name__}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise cfg.error(
                "url",
                (
                    f"needs an http:// or https:// URL with a host, got scheme {url.scheme or '(none)'!r} "
                    "once filled in (is the ${ENV} base URL set to a full URL?)"
                ),
            )

    def describe(self, request: Mapping[str, Any]) -> str:
        return f"{self.method} {self.url.display(template_values(request), _quote_segment)}"

    @asynccontextmanager
    async def session(self) -> AsyncIterator[HttpSession]:
        timeout = httpx.Timeout(
            connect=self.connect_timeout_s,
            read=self.read_timeout_s,
            write=self.read_timeout_s,
            pool=self.connect_timeout_s,
        )
        async with httpx.AsyncClient(
            timeout=timeout,
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": f"contract-harness/{__version__} (drift)"},
        ) as client:
            yield HttpSession(self, client)


class HttpSession:
    def __init__(self, source: HttpSource, client: httpx.AsyncClient) -> None:
        self.source = source
        self.client = client

    async def advertised_schema(self) -> None:
        return None

    async def fetch(self, request: Mapping[str, Any]) -> Fetched:
        source = self.source
        if source.method not in SAFE_HTTP_METHODS and not source.side_effects_allowed:
            return Fetched(
                not_called=NotCalled(
                    "side_effects",
                    f"{source.method} may change data: drift sends only GET unless the upstream "
                    "sets side_effects: allowed",
                )
            )
        values = template_values(request)
        url = httpx.URL(source.url.render(source.env, values, _quote_segment, query=_quote_segment))
        headers = {"Accept": source.content_type or "*/*", "Accept-Encoding": "identity"}
        headers.update({name: t.render(source.env, values) for name, t in source.headers})
        for name, value in headers.items():
            if not _HEADER_VALUE.fullmatch(value):
                return Fetched(
                    failure=Failure(
                        TRANSPORT_UNAVAILABLE,
                        "error",
                        f"header {name!r} holds a character HTTP does not allow once its placeholders are filled in",
                    )
                )
        body = _render_json(source.json_body, source.env, values) if source.json_body is not None else None
        method = source.method
        try:
            with anyio.fail_after(source.timeout_s):
                for _ in range(source.max_redirects + 1):
                    outcome = await self._exchange(method, url, headers, body)
                    if not isinstance(outcome, httpx.URL):
                        return outcome
                    if not _same_host(url, outcome):
                        return Fetched(
                            failure=Failure(
                                TRANSPORT_UNAVAILABLE,
                                "redirect",
                                f"redirect to another host refused ({url.host} -> {outcome.host})",
                            )
                        )
                    url = outcome
                    if method not in ("GET", "DELETE"):
                        method, body = "GET", None
                return Fetched(
                    failure=Failure(
                        TRANSPORT_UNAVAILABLE,
                        "redirect",
                        f"more than {source.max_redirects} redirects",
                    )
                )
        except TimeoutError:
            return Fetched(
                failure=Failure(
                    TRANSPORT_UNAVAILABLE,
                    "timeout",
                    f"no complete answer within timeout_s={source.timeout_s:g}",
                )
            )

    async def _exchange(self, method: str, url: httpx.URL, headers: dict[str, str], body: Any) -> Fetched | httpx.URL:
        source = self.source
        try:
            async with self.client.stream(method, url, headers=headers, json=body) as response:
                status = response.status_code
                info = {"status": status, "content_type": response.headers.get("content-type")}
                if status in _REDIRECTS and "location" in response.headers:
                    try:
                        return url.join(response.headers["location"])
                    except httpx.InvalidURL:
                        return Fetched(
                            failure=Failure(TRANSPORT_UNAVAILABLE, "redirect", "a redirect to an invalid URL"),
                            info=info,
                        )
                if status in source.not_found:
                    return Fetched(
                        failure=Failure(TRANSPORT_NOT_FOUND, "not_found", f"HTTP {status}"),
                        info=info,
                    )
                if status in _REQUEST_ERRORS:
                    return Fetched(
                        failure=Failure(
                            TRANSPORT_INVALID_REQUEST,
                            "invalid_request",
                            f"HTTP {status}: the request itself was refused",
                        ),
                        info=info,
                    )
                if not 200 <= status < 300:
                    return Fetched(
                        failure=Failure(TRANSPORT_UNAVAILABLE, "http_status", f"HTTP {status}"),
                        info=info,
                    )
                refusal = _refuse_media(response, source.content_type)
                if refusal is not None:
                    return Fetched(refusal=refusal, info=info)
                return await _read_body(response, source.max_bytes + 1, info, source.env)
        except httpx.TimeoutException as exc:
            return Fetched(
                failure=Failure(
                    TRANSPORT_UNAVAILABLE,
                    "timeout",
                    f"{type(exc).__name__} (connect or read timeout)",
                )
            )
        except httpx.ConnectError as exc:
            return Fetched(failure=Failure(TRANSPORT_UNAVAILABLE, "refused", _describe_error(exc, source.env)))
        except (httpx.TransportError, OSError) as exc:
            return Fetched(failure=Failure(TRANSPORT_UNAVAILABLE, "reset", _describe_error(exc, source.env)))


def _describe_error(exc: BaseException, env: Environment) -> str:
    cause = exc.__cause__ or exc.__context__
    detail = f"{type(exc).__name__}"
    if isinstance(cause, OSError) and cause.strerror:
        detail += f" ({cause.strerror})"
    elif str(exc):
        # Redacted before it is cut short: a cut could leave part of a secret no redactor knows.
        detail += f" ({env.redact(str(exc)).splitlines()[0][:120]})"
    return detail


def _same_host(old: httpx.URL, new: httpx.URL) -> bool:
    if new.host != old.host:
        return False
    if old.scheme == new.scheme:
        return new.port == old.port
    return old.scheme == "http" and new.scheme == "https"  # an upgrade, never a downgrade


def _media(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def media_matches(actual: str | None, expected: str) -> bool:
    """``application/json`` also admits ``application/<vendor>+json``."""
    got, want = _media(actual), _media(expected)
    if got == want:
        return True
    return want == "application/json" and got.startswith("application/") and got.endswith("+json")


def _refuse_media(response: httpx.Response, expected: str | None) -> Refusal | None:
    if expected is not None and not media_matches(response.headers.get("content-type"), expected):
        shown = response.headers.get("content-type") or "(none)"
        return Refusal(TRANSPORT_CONTENT_TYPE, f"Content-Type {shown[:80]!r} is not {expected}")
    encoding = _media(response.headers.get("content-encoding"))
    if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
        return Refusal(TRANSPORT_CONTENT_TYPE, f"Content-Encoding {encoding[:40]!r} is not supported")
    return None


class _Inflater:
    """gzip/deflate with a bounded output: a small compressed chunk never becomes a big buffer."""

    def __init__(self, encoding: str) -> None:
        self.deflate = encoding == "deflate"
        wbits = zlib.MAX_WBITS if self.deflate else 16 + zlib.MAX_WBITS
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes, room: int) -> bytes:
        try:
            out = self._inflate.decompress(data, room)
        except zlib.error:
            if not (self.deflate and not self._started):
                raise
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no zlib header
            out = self._inflate.decompress(data, room)
        self._started = True
        return out


async def _read_body(response: httpx.Response, limit: int, info: dict[str, Any], env: Environment) -> Fetched:
    """At most ``limit`` bytes of the (decoded) body; the rest is never read."""
    encoding = _media(response.headers.get("content-encoding"))
    inflater = _Inflater(encoding) if encoding in ("gzip", "x-gzip", "deflate") else None
    parts: list[bytes] = []
    total = 0
    try:
        async for chunk in response.aiter_raw():
            data = inflater.feed(chunk, limit - total) if inflater else chunk[: limit - total]
            parts.append(data)
            total += len(data)
            if total >= limit:
                break
    except httpx.TimeoutException:
        return Fetched(
            failure=Failure(TRANSPORT_READ_ERROR, "timeout", "the body stopped arriving (read timeout)"),
            info=info,
        )
    except (httpx.TransportError, OSError) as exc:
        return Fetched(
            failure=Failure(TRANSPORT_READ_ERROR, "reset", f"the body broke off: {_describe_error(exc, env)}"),
            info=info,
        )
    except zlib.error:
        return Fetched(
            failure=Failure(TRANSPORT_READ_ERROR, "corrupt", f"the {encoding} body is corrupt"),
            info=info,
        )
    info["bytes_read"] = total
    return Fetched(body=b"".join(parts), info=info)
