"""``contract-harness verify CONTRACT_DIR PAYLOAD``: one payload through the boundary."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from harness.cli import command_help
from harness.cli._common import existing_file, read_document
from harness.pointer import display

if TYPE_CHECKING:
    from harness.boundary.pipeline import Verdict


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help=command_help("verify"),
        description=(
            "Run one payload through every layer of the boundary. When PAYLOAD is a fixture "
            "(under the project's fixtures/, or with a sidecar <name>.case.yaml), its sidecar's "
            "request and clock, else the contract's defaults.now, are used unless "
            "--request/--now are given; other payloads are judged at the wall clock. "
            "Exit 0 accepted, 1 rejected, 2 usage error."
        ),
    )
    p.add_argument("contract", metavar="CONTRACT_DIR", help="contracts/<tool>/ (or its contract.yaml)")
    p.add_argument("payload", metavar="PAYLOAD", help="raw result bytes; - for stdin")
    p.add_argument("--request", metavar="FILE", help="the outstanding request (JSON or YAML)")
    p.add_argument("--now", metavar="ISO8601", help="the clock for freshness (RFC 3339)")
    p.add_argument("--version", dest="schema_version", type=int, metavar="N",
                   help="judge against schema version N (default: the contract's current)")
    p.add_argument("--shape", choices=("upstream", "contract"), default=None,
                   help="contract: the payload is the contract object a tool's adapter emits, judged without "
                        "the adapter (default: the sidecar's shape, else upstream)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--audit", metavar="FILE", help="append the audit record to FILE (JSON Lines)")
    p.add_argument("--keep-raw", metavar="DIR", help="keep a protected copy of the raw bytes in DIR")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The boundary and the loader load here, not for verify --help.
    from harness.boundary.audit import JsonlAuditSink, RawStore
    from harness.boundary.pipeline import Boundary
    from harness.contract import load_contract
    from harness.corpus import checked_sidecar, load_sidecar, sidecar_for
    from harness.drift.template import upstream_redactor

    contract = load_contract(args.contract)
    request = read_document(args.request, "request") if args.request else None
    now = args.now
    shape = args.shape
    version = args.schema_version
    if args.payload == "-":
        source: Any = sys.stdin.buffer
    else:
        path = existing_file(args.payload, "payload")
        sidecar = sidecar_for(path) if path.name.endswith(".json") else None
        if sidecar is not None and sidecar.exists():
            side = checked_sidecar(contract, load_sidecar(sidecar), sidecar)
            request = request if request is not None else side.request
            shape = shape or side.shape
            version = version if version is not None else side.version
            if now is None:
                now = side.now or contract.default_now
        elif now is None and path.resolve().is_relative_to((contract.root / "fixtures").resolve()):
            now = contract.default_now  # a fixture is judged at the contract's fixture clock
        source = path.open("rb")
    if shape == "contract":
        contract = contract.without_adapter()
    # The one redaction point (harness.redaction) for what verify prints and the audit file it
    # appends to: the values of the ${ENV} variables the contract's upstreams use.
    redactor = upstream_redactor([contract], os.environ)
    audit = JsonlAuditSink(args.audit, redactor=redactor) if args.audit else None
    try:
        boundary = Boundary(
            contract,
            version=version,
            audit=audit,
            raw_store=RawStore(args.keep_raw) if args.keep_raw else None,
        )
        verdict = boundary.check(source, request, now=now)
    finally:
        if audit is not None:
            audit.close()
        if hasattr(source, "close") and source is not sys.stdin.buffer:
            source.close()
    if args.json:
        out = {"tool": contract.tool, "version": boundary.version, **verdict.to_dict()}
        print(json.dumps(redactor.value(out), ensure_ascii=False, indent=2))
    else:
        print(redactor.text(render(verdict, contract.tool, boundary.version)))
    return 0 if verdict.accepted else 1


def render(verdict: Verdict, tool: str, version: int) -> str:
    head = f"{tool} v{version}: "
    if verdict.accepted:
        lines = [head + f"accepted ({verdict.outcome})"]
    else:
        d = verdict.diagnostics[0]
        lines = [
            head + f"rejected at {d.layer.value}: {d.code}",
            f"  pointer:        {display(d.instance_pointer)}",
            f"  schema pointer: {display(d.schema_pointer)}",
            f"  message:        {d.message}",
        ]
        if d.offset is not None:
            lines.append(f"  byte offset:    {d.offset}")
    lines.append(f"agent result: {verdict.agent_json}")
    return "\n".join(lines)
