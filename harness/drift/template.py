"""``${ENV}`` references and ``{placeholder}`` templates in upstream configuration.

An upstream's URL, headers, argv, environment and MCP ``_meta`` are templates:

- ``${NAME}`` is the value of the environment variable ``NAME`` (``${NAME:-fallback}`` when it
  may be unset). Secrets enter a contract only this way; every value read from the
  environment is redacted from every report, log line and error message of the run.
- ``{name}`` is a request argument (``{change_id}``), or ``{request_id}`` / ``{tool}``.
  ``{{`` and ``}}`` are literal braces.

A template is parsed once, in one pass, so a value never becomes syntax: an argument holding
``${TOKEN}`` stays that text, and an environment value holding ``{x}`` is not a placeholder.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ContractError, UsageError
from harness.redaction import MIN_REDACTED_LENGTH, Redactor

if TYPE_CHECKING:
    from harness.contract import Contract

_TOKEN = re.compile(
    r"\$\{(?P<env>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}"
    r"|(?P<open>\{\{)|(?P<close>\}\})"
    r"|\{(?P<field>[A-Za-z_][A-Za-z0-9_]*)\}"
    r"|(?P<stray>\$\{|[{}])"
)
#: Request fields every template may name besides the request's args.
RESERVED_FIELDS = ("request_id", "tool")

Encode = Callable[[str], str]


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template. ``where`` names the file and pointer for error messages."""

    text: str
    parts: tuple[tuple[str, str, str | None], ...]
    where: str

    @classmethod
    def parse(cls, text: str, where: str) -> Template:
        parts: list[tuple[str, str, str | None]] = []
        position = 0
        for match in _TOKEN.finditer(text):
            if match.start() > position:
                parts.append(("lit", text[position : match.start()], None))
            position = match.end()
            if match.group("env"):
                parts.append(("env", match.group("env"), match.group("default")))
            elif match.group("open"):
                parts.append(("lit", "{", None))
            elif match.group("close"):
                parts.append(("lit", "}", None))
            elif match.group("field"):
                parts.append(("field", match.group("field"), None))
            else:
                raise ContractError(
                    f"{text!r}: stray {match.group('stray')!r} at character {match.start()} "
                    "(write ${NAME} for an environment variable, {name} for a request argument, "
                    "{{ and }} for literal braces)",
                    file=where,
                    code="upstream.template",
                )
        if position < len(text):
            parts.append(("lit", text[position:], None))
        return cls(text, tuple(parts), where)

    @property
    def env_names(self) -> tuple[str, ...]:
        return tuple(name for kind, name, _ in self.parts if kind == "env")

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(name for kind, name, _ in self.parts if kind == "field")

    @property
    def uses_env(self) -> bool:
        return any(kind == "env" for kind, _, _ in self.parts)

    def check_fields(self, available: set[str], request_label: str) -> None:
        """Raise when a placeholder names nothing the request provides."""
        for name in self.fields:
            if name not in available:
                raise ContractError(
                    f"placeholder {{{name}}} is not an argument of request {request_label}",
                    file=self.where,
                    allowed=sorted(available),
                    code="upstream.template",
                )

    def render(self, env: Environment, values: Mapping[str, Any], encode: Encode = _identity,
               query: Encode | None = None) -> str:
        """The text with environment values and (encoded) request values filled in. With
        ``query`` (a URL), an environment value placed after the ``?`` that starts the query is
        encoded with it too, so that the server receives exactly the value (a token holding
        ``+``, ``&`` or ``#``); one before it (``${API}``, a base URL) is placed as it is."""
        out: list[str] = []
        for kind, name, default in self.parts:
            if kind == "lit":
                out.append(name)
            elif kind == "env":
                value = env.get(name, default, self.where)
                out.append(query(value) if query is not None and "?" in "".join(out) else value)
            else:
                out.append(encode(_scalar_text(values[name], name, self.where)))
        return "".join(out)

    def display(self, values: Mapping[str, Any], encode: Encode = _identity) -> str:
        """The text for reports: request values filled in, ``${NAME}`` left as written."""
        out = []
        for kind, name, default in self.parts:
            if kind == "lit":
                out.append(name)
            elif kind == "env":
                out.append("${" + name + (f":-{default}" if default is not None else "") + "}")
            else:
                out.append(encode(_scalar_text(values.get(name, "?"), name, self.where)))
        return "".join(out)


def _scalar_text(value: Any, name: str, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    raise ContractError(
        f"placeholder {{{name}}} needs a string or number, not {type(value).__name__}",
        file=where,
        code="upstream.template",
    )


def fill_env(text: str, env: Environment, where: str) -> str:
    """``text`` with each ``${NAME}`` (``${NAME:-fallback}``) filled in from ``env``, and nothing
    else read as syntax: braces stay as written (a command line given to ``import``)."""
    def value(match: re.Match[str]) -> str:
        if not match.group("env"):
            return match.group(0)
        return env.get(match.group("env"), match.group("default"), where)

    return _TOKEN.sub(value, text)


def template_values(request: Mapping[str, Any]) -> dict[str, Any]:
    """What ``{placeholders}`` may name: the request's args, its request_id and tool."""
    values = dict(request.get("args", {}))
    values["request_id"] = request["request_id"]
    values["tool"] = request["tool"]
    return values


def env_names(node: Any) -> set[str]:
    """The ``${NAME}`` variables named anywhere in a configuration tree (its strings)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            names.update(m.group("env") for m in _TOKEN.finditer(item) if m.group("env"))
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return names


def upstream_redactor(contracts: Iterable[Contract], environ: Mapping[str, str]) -> Redactor:
    """The redactor of what ``check`` writes: the values, where set, of every ``${NAME}`` the
    contracts' upstreams use (a recorded fixture may hold one, from before it was refused)."""
    return _redactor([contract.raw for contract in contracts], environ)


def upstream_redactor_in(directories: Iterable[Path], environ: Mapping[str, str]) -> Redactor:
    """:func:`upstream_redactor` of the contracts in ``directories``, read from their
    ``contract.yaml`` alone (``check --jobs``: the workers load the contracts). One that does not
    read is left out: its worker's load fails, and that is the run's error."""
    from harness.contract.records import CONTRACT_FILE
    from harness.datafiles import load_yaml
    from harness.errors import HarnessError
    from harness.files import MAX_YAML_BYTES, read_bytes

    raws = []
    for directory in directories:
        file = directory / CONTRACT_FILE
        try:
            # YAML spells the key `upstreams` as such or with an escape (a backslash): a file with
            # neither has no upstreams, and needs no parsing.
            text = read_bytes(file, limit=MAX_YAML_BYTES, within=directory, what="contract file")
            if b"upstreams" in text or b"\\" in text:
                raws.append(load_yaml(file, within=directory, what="contract file"))
        except (HarnessError, OSError):
            continue
    return _redactor([raw for raw in raws if isinstance(raw, dict)], environ)


def _redactor(raws: list[Mapping[str, Any]], environ: Mapping[str, str]) -> Redactor:
    names: set[str] = set()
    for raw in raws:
        names |= env_names(raw.get("upstreams", {}))
    return Redactor({name: environ[name] for name in sorted(names) if environ.get(name)})


class Environment:
    """The process environment as upstream templates read it; it remembers what it handed out.

    Every value read from the environment (not a ``:-`` fallback) is a secret: :meth:`redactor`
    replaces each, in any spelling, with its ``${NAME}`` (see :mod:`harness.redaction`).
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = dict(environ)
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()
        self._redactor: tuple[tuple[tuple[str, str], ...], Redactor] | None = None

    def get(self, name: str, default: str | None, where: str) -> str:
        value = self._environ.get(name)
        if value is None or value == "":
            if default is not None:
                return default
            raise UsageError(
                f"environment variable {name} is not set (needed by {where})",
                code="upstream.env_unset",
            )
        with self._lock:
            self._used[name] = value
        return value

    def is_set(self, name: str) -> bool:
        """Whether ``name`` has a non-empty value (what :meth:`get` hands out without a fallback)."""
        return bool(self._environ.get(name))

    def require(self, template: Template) -> None:
        """Raise now, before anything is sent, if a variable the template needs is unset."""
        for kind, name, default in template.parts:
            if kind == "env":
                self.get(name, default, template.where)

    @property
    def secrets(self) -> dict[str, str]:
        with self._lock:
            return {k: v for k, v in self._used.items() if len(v) >= MIN_REDACTED_LENGTH}

    def redactor(self) -> Redactor:
        """The redactor of every value handed out so far (rebuilt when that grows)."""
        key = tuple(sorted(self.secrets.items()))
        cached = self._redactor
        if cached is None or cached[0] != key:
            cached = self._redactor = (key, Redactor(dict(key)))
        return cached[1]

    def redact(self, text: str) -> str:
        return self.redactor().text(text)

    def found_in(self, data: bytes) -> list[str]:
        """Names of secrets ``data`` holds in any spelling (e.g. an upstream echoing a token)."""
        return self.redactor().found_in(data)


@contextmanager
def redacted_logging(env: Environment) -> Iterator[None]:
    """Redact secrets from every log record created while the block runs (httpx, httpcore and
    the MCP SDK log URLs and messages at INFO/DEBUG; a host application may have turned
    those on)."""
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if env.secrets:
            try:
                message = record.getMessage()
            except Exception:
                return record
            redacted = env.redact(message)
            if redacted != message:
                record.msg, record.args = redacted, None
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)
