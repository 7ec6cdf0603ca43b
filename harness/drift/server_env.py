"""The environment an ``mcp`` upstream's server is started with, wherever it is started: drift,
``import mcp`` and the guard all ask here, so a variable an upstream's ``env:`` names and the
environment lacks stops each of them the same way (``upstream.env_missing``, exit 2).

A light module: the guard checks its contracts' variables without loading the ``mcp`` SDK.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.contract import Contract, Upstream
from harness.drift import process as proc
from harness.drift.kinds import Config
from harness.drift.template import Environment, Template
from harness.errors import UsageError


def only_environment(cfg: Config, key: str, template: Template) -> None:
    """Refuse a ``{field}`` in a value set once per server (``upstream.template``)."""
    if template.fields:
        raise cfg.error(
            key,
            (
                f"{{{template.fields[0]}}}: the server is started (or its session opened) once for every sample "
                "request, so its command, args, env, url and headers take ${ENV} only (send per-request values as "
                "arguments or in meta:)"
            ),
            code="upstream.template",
        )


def server_environment_templates(cfg: Config, env: Environment) -> tuple[tuple[str, Template], ...]:
    """The upstream's ``env:`` entries, parsed; raises ``upstream.env_missing`` (a usage error:
    exit 2) for a ``${NAME}`` the server needs that is not set."""
    out = []
    for name, text in cfg.data.get("env", {}).items():
        key = f"env/{name}"
        template = cfg.template(key, text)
        only_environment(cfg, key, template)
        for kind, variable, default in template.parts:
            if kind == "env" and default is None and not env.is_set(variable):
                raise UsageError(
                    f"the server's environment variable {variable} is not set (the upstream starts its server "
                    f"with it: {cfg.where(key)})",
                    code="upstream.env_missing",
                )
        env.require(template)
        out.append((name, template))
    return tuple(out)


def server_environment(contract: Contract, upstream: Upstream, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment an ``mcp`` upstream's stdio server is started with, in drift and by
    every other caller that starts it (the guard): the few variables every program gets
    (:data:`harness.drift.process.INHERITED`) and the upstream's ``env:`` entries, filled in from
    ``environ``. A variable an entry names that ``environ`` lacks raises
    :class:`~harness.errors.UsageError` ``upstream.env_missing``."""
    env = Environment(environ)
    entries = server_environment_templates(Config(contract, upstream), env)
    return proc.child_environment({name: t.render(env, {}) for name, t in entries}, environ)
