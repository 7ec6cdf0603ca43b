"""The ``command`` upstream kind: a program whose standard output is the tool result.

```yaml
upstreams:
  cli:
    command:
      argv: [review-cli, status, --change, "{change_id}", --json]
      env: {REVIEW_TOKEN: "${REVIEW_TOKEN}"}
      timeout_s: 5
      not_found_exit_codes: [3]
    requests: [{change_id: CR-1042}]
```

No shell is involved: each argv element is one argument, placeholders filled in. Standard
output is read within the byte cap (past ``max_bytes + 1`` bytes the program is stopped and
the body is refused as too long); standard error is kept, its tail only, for the operator's
report. Exit 0 carries the result; an exit status listed in ``not_found_exit_codes`` is
``transport.not_found``; any other status, or death by a signal, is ``transport.tool_error``.
A run past ``timeout_s`` is stopped with its whole process group.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from harness.codes import TRANSPORT_NOT_FOUND, TRANSPORT_TOOL_ERROR, TRANSPORT_UNAVAILABLE
from harness.drift import process as proc
from harness.drift.kinds import Config, Failure, Fetched
from harness.drift.template import Environment, Template, template_values

if TYPE_CHECKING:
    from harness.contract import Contract, Upstream

DEFAULT_TIMEOUT_S = 10.0


class CommandKind:
    name = "command"

    def configure(self, contract: Contract, upstream: Upstream, env: Environment) -> CommandSource:
        cfg = Config(contract, upstream)
        argv = tuple(cfg.template(f"argv/{i}", text) for i, text in enumerate(cfg.data["argv"]))
        if argv[0].fields:
            raise cfg.error(
                "argv/0",
                "the program itself cannot be a request placeholder",
                code="upstream.template",
            )
        extra = tuple((name, cfg.template(f"env/{name}", text)) for name, text in cfg.data.get("env", {}).items())
        source = CommandSource(
            name=upstream.name,
            program=proc.resolve_program(argv[0].render(env, {}), contract.root, cfg.where("argv/0")),
            argv=argv,
            env_extra=extra,
            cwd=(contract.root / cfg.data["cwd"]).resolve() if "cwd" in cfg.data else contract.root.resolve(),
            timeout_s=cfg.number("timeout_s", DEFAULT_TIMEOUT_S),
            not_found=frozenset(cfg.data.get("not_found_exit_codes", ())),
            max_bytes=contract.limits.max_bytes,
            requests=max(1, len(upstream.requests)),
            env=env,
        )
        for template in source.request_templates():
            env.require(template)
        return source


@dataclass(frozen=True, slots=True)
class CommandSource:
    name: str
    program: str
    argv: tuple[Template, ...]
    env_extra: tuple[tuple[str, Template], ...]
    cwd: Path
    timeout_s: float
    not_found: frozenset[int]
    max_bytes: int
    requests: int
    env: Environment
    kind: str = "command"

    @property
    def budget_s(self) -> float:
        return self.requests * (self.timeout_s + 2.0)

    def request_templates(self) -> list[Template]:
        return [*self.argv, *(t for _, t in self.env_extra)]

    def describe(self, request: Mapping[str, Any]) -> str:
        values = template_values(request)
        return " ".join(t.display(values) for t in self.argv)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[CommandSession]:
        yield CommandSession(self)


class CommandSession:
    def __init__(self, source: CommandSource) -> None:
        self.source = source

    async def advertised_schema(self) -> None:
        return None

    async def fetch(self, request: Mapping[str, Any]) -> Fetched:
        source = self.source
        values = template_values(request)
        argv = [source.program, *(t.render(source.env, values) for t in source.argv[1:])]
        env = proc.child_environment({n: t.render(source.env, values) for n, t in source.env_extra})
        try:
            process = await proc.start(argv, env, source.cwd)
        except OSError as exc:
            return Fetched(
                failure=Failure(
                    TRANSPORT_UNAVAILABLE,
                    "spawn",
                    f"cannot start {Path(source.program).name}: {exc.strerror or exc}",
                )
            )
        stderr = proc.StderrTail()
        limit = source.max_bytes + 1
        parts: list[bytes] = []
        total = 0
        try:
            if process.stdin is not None:
                await process.stdin.aclose()
            with anyio.fail_after(source.timeout_s):
                async with anyio.create_task_group() as group:
                    group.start_soon(stderr.drain, process)
                    total = await _read_stdout(process, parts, limit)
                    if total < limit:
                        await proc.wait_exit(process, source.timeout_s)
                        with anyio.move_on_after(0.5):  # the last of stderr, unless a child holds it
                            await stderr.done.wait()
                    group.cancel_scope.cancel()  # past the cap: enough to prove the output too long
        except TimeoutError:
            return Fetched(
                failure=Failure(
                    TRANSPORT_UNAVAILABLE,
                    "timeout",
                    f"still running after timeout_s={source.timeout_s:g}",
                ),
                stderr=stderr.text(),
            )
        finally:
            await proc.kill(process)
        body = b"".join(parts)
        status = process.returncode
        info = {"exit_status": status, "bytes_read": total}
        if total >= limit:
            return Fetched(body=body, info=info, stderr=stderr.text())
        if status == 0:
            return Fetched(body=body, info=info, stderr=stderr.text())
        if status is not None and status in source.not_found:
            return Fetched(
                failure=Failure(TRANSPORT_NOT_FOUND, "not_found", f"exit status {status}"),
                info=info,
                stderr=stderr.text(),
            )
        what = f"killed by signal {-status}" if status is not None and status < 0 else f"exit status {status}"
        return Fetched(
            failure=Failure(TRANSPORT_TOOL_ERROR, "exit_status", what),
            info=info,
            stderr=stderr.text(),
        )


async def _read_stdout(process: Any, parts: list[bytes], limit: int) -> int:
    total = 0
    try:
        while total < limit:
            chunk = await process.stdout.receive(min(1 << 16, limit - total))
            parts.append(chunk)
            total += len(chunk)
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    return total
