"""Fixtures on disk and their sidecars.

```
fixtures/accepted/<tool>/<name>.json              must pass every layer
fixtures/rejected/<tool>/<name>.json              must be rejected as its sidecar says
fixtures/historical/<tool>/<label>/<name>.json    earlier upstream shapes, replayed
<name>.case.yaml                                  the sidecar: expect, request, now, ...
```

Payload bytes are read as they are, never decoded or normalised. Accepted fixtures may omit
their sidecar (``expect: accept``); rejected and historical ones must say what is expected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.boundary.validator import SchemaValidator, validator_for
from harness.codes import Layer, layer_of
from harness.contract import schema_error
from harness.datafiles import load_yaml, packaged
from harness.errors import ContractError, printable_path
from harness.files import MAX_SCHEMA_BYTES, read_bytes
from harness.locate import position_in_file
from harness.strict_json import strict_loads

if TYPE_CHECKING:
    from harness.boundary.pipeline import Verdict
    from harness.contract import Contract

KINDS = ("accepted", "rejected", "historical")
SIDECAR_SUFFIX = ".case.yaml"
PAYLOAD_SUFFIX = ".json"


@dataclass(frozen=True, slots=True)
class Expectation:
    """``accept``, or rejection by ``layer`` (and ``code``, pointers, when given)."""

    accept: bool
    layer: Layer | None = None
    code: str | None = None
    pointer: str | None = None
    schema_pointer: str | None = None

    @classmethod
    def from_sidecar(cls, value: Any) -> Expectation:
        if value == "accept":
            return ACCEPT
        code = value.get("code")
        layer = Layer(value["layer"])
        if code is not None and layer_of(code) is not layer:
            raise ValueError(f"code {code} does not belong to layer {layer.value}")
        return cls(False, layer, code, value.get("pointer"), value.get("schema_pointer"))

    @classmethod
    def reject(cls, layer: Layer, code: str | None = None, pointer: str | None = None) -> Expectation:
        return cls(False, layer, code, pointer)

    def matches(self, verdict: Verdict) -> bool:
        if self.accept:
            return verdict.accepted
        if verdict.accepted or verdict.layer is not self.layer:
            return False
        if self.code is not None and verdict.code != self.code:
            return False
        if self.pointer is not None and verdict.instance_pointer != self.pointer:
            return False
        return self.schema_pointer is None or verdict.schema_pointer == self.schema_pointer

    def describe(self) -> str:
        if self.accept:
            return "accept"
        return self.code or (self.layer.value if self.layer else "reject")

    def to_dict(self) -> dict[str, Any]:
        if self.accept:
            return {"accept": True}
        return {
            "accept": False,
            "layer": self.layer.value if self.layer else None,
            "code": self.code,
            "pointer": self.pointer,
        }


ACCEPT = Expectation(True)


@cache
def _sidecar_validator() -> SchemaValidator:
    text = packaged("sidecar.schema.json")
    return validator_for(strict_loads(text))


@dataclass(frozen=True, slots=True)
class Sidecar:
    expect: Expectation | None
    request: Mapping[str, Any] | None
    now: str | None
    description: str
    version: int | None
    upstream: str | None
    expect_by_version: Mapping[int, Expectation]
    raw: Mapping[str, Any]
    shape: str = "upstream"


def load_sidecar(path: Path, *, within: Path | None = None) -> Sidecar:
    data = load_yaml(path, within=within, what="sidecar")
    if data is None:
        data = {}
    validator = _sidecar_validator()
    if not validator.is_valid(data):
        raise schema_error(path, data, validator, validator.schema, code="fixture.invalid_sidecar")
    try:
        expect = Expectation.from_sidecar(data["expect"]) if "expect" in data else None
        by_version = {
            int(k): Expectation.from_sidecar(v) for k, v in data.get("expect_by_version", {}).items()
        }
    except ValueError as exc:
        raise ContractError(str(exc), file=str(path), pointer="/expect", locate=position_in_file,
                            code="fixture.invalid_sidecar") from None
    return Sidecar(
        expect=expect,
        request=data.get("request"),
        now=data.get("now"),
        description=data.get("description", ""),
        version=data.get("version"),
        upstream=data.get("upstream"),
        expect_by_version=by_version,
        raw=data,
        shape=data.get("shape", "upstream"),
    )


@dataclass(frozen=True, slots=True)
class Fixture:
    """One payload file with what is expected of it."""

    tool: str
    kind: str
    name: str
    path: Path
    expect: Expectation
    label: str | None = None
    request: Mapping[str, Any] | None = None
    now: str | None = None
    description: str = ""
    version: int | None = None
    upstream: str | None = None
    expect_by_version: Mapping[int, Expectation] | None = None
    #: ``upstream`` (raw upstream bytes) or ``contract`` (a contract object: see :func:`judge`)
    shape: str = "upstream"
    #: The project root the payload must stay inside (symlinks resolved), when known.
    root: Path | None = None
    #: The contract's ``max_bytes``: :meth:`read` returns at most one byte more.
    max_bytes: int | None = None

    @property
    def id(self) -> str:
        name = f"{self.label}/{self.name}" if self.label else self.name
        return f"{self.tool}::{self.kind}::{name}"

    def read(self) -> bytes:
        """The payload's bytes; of a payload longer than ``max_bytes``, only ``max_bytes + 1``
        (enough for the transport layer to reject it, and never a huge copy)."""
        limit = MAX_SCHEMA_BYTES if self.max_bytes is None else self.max_bytes
        return read_bytes(self.path, limit=limit, within=self.root, what="fixture", truncate=True)

    @property
    def sidecar_path(self) -> Path:
        return sidecar_for(self.path)


def sidecar_for(payload: Path) -> Path:
    return payload.with_name(payload.name[: -len(PAYLOAD_SUFFIX)] + SIDECAR_SUFFIX)


def _fixture(contract: Contract, kind: str, payload: Path, label: str | None) -> Fixture:
    # A directory named x.json, a FIFO, or a symlink out of the project is a configuration
    # error found now, not a case that fails later (reading one byte proves the file usable).
    read_bytes(payload, limit=0, within=contract.root, what="fixture", truncate=True)
    if printable_path(payload) != str(payload):
        raise ContractError("the file name is not UTF-8: rename it (case ids and reports are text)",
                            file=printable_path(payload), code="fixture.invalid_name")
    side_path = sidecar_for(payload)
    sidecar = load_sidecar(side_path, within=contract.root) if os.path.lexists(side_path) else None
    if sidecar is not None:
        checked_sidecar(contract, sidecar, side_path)
    expect = sidecar.expect if sidecar else None
    if expect is None:
        if kind == "accepted":
            expect = ACCEPT
        elif sidecar is None or not sidecar.expect_by_version:
            raise ContractError(
                f"a {kind} fixture needs a sidecar {side_path.name} saying what to expect "
                "(expect: accept, or expect: {layer: ..., code: ...})",
                file=str(payload),
                code="fixture.missing_sidecar",
            )
        else:
            expect = sidecar.expect_by_version.get(contract.version, ACCEPT)
    if kind == "accepted" and not expect.accept:
        raise ContractError(
            "an accepted fixture cannot expect a rejection; move it to fixtures/rejected/",
            file=str(side_path),
            pointer="/expect", locate=position_in_file,
            code="fixture.invalid_sidecar",
        )
    return Fixture(
        tool=contract.tool,
        kind=kind,
        name=payload.name[: -len(PAYLOAD_SUFFIX)],
        path=payload,
        expect=expect,
        label=label,
        request=sidecar.request if sidecar else None,
        now=sidecar.now if sidecar else None,
        description=sidecar.description if sidecar else "",
        version=sidecar.version if sidecar else None,
        upstream=sidecar.upstream if sidecar else None,
        expect_by_version=dict(sidecar.expect_by_version) if sidecar else None,
        shape=sidecar.shape if sidecar else "upstream",
        root=contract.root,
        max_bytes=contract.limits.max_bytes,
    )


def checked_sidecar(contract: Contract, sidecar: Sidecar, path: Path) -> Sidecar:
    """``sidecar`` once its ``version`` names one of the contract's schema versions and its
    ``request`` fits the contract's request shape; otherwise an error naming the sidecar file
    (``fixture.invalid_sidecar``): a fixture judged against another version than it says, or
    that fails with the caller's error on every run, is a mistake in the fixture."""
    from harness.errors import InvalidRequest

    if sidecar.version is not None and sidecar.version not in contract.versions:
        raise ContractError(f"version {sidecar.version}: {contract.tool} has no schema version {sidecar.version}",
                            file=printable_path(path), pointer="/version", allowed=list(contract.versions),
                            code="fixture.invalid_sidecar", locate=position_in_file)
    if sidecar.request is not None:
        try:
            contract.normalise_request(sidecar.request)
        except InvalidRequest as exc:
            raise ContractError(str(exc), file=printable_path(path), pointer="/request",
                                code="fixture.invalid_sidecar", locate=position_in_file) from None
    return sidecar


def fixtures_for(contract: Contract, kinds: tuple[str, ...] = KINDS) -> list[Fixture]:
    """Every fixture of a contract, in a stable order (kind, label, name)."""
    found: list[Fixture] = []
    for kind in kinds:
        base = contract.fixtures_dir(kind)
        if not base.is_dir():
            continue
        if kind == "historical":
            for folder in sorted(p for p in base.iterdir() if p.is_dir()):
                found.extend(
                    _fixture(contract, kind, f, folder.name)
                    for f in sorted(folder.glob("*" + PAYLOAD_SUFFIX))
                )
        else:
            found.extend(_fixture(contract, kind, f, None) for f in sorted(base.glob("*.json")))
        _orphans(base)
    return found


def expectation_for(fixture: Fixture, version: int, current: int) -> Expectation | None:
    """What a fixture expects of schema ``version``: its ``expect_by_version`` entry, else its
    ``expect`` for the contract's current version, else nothing."""
    if fixture.expect_by_version and version in fixture.expect_by_version:
        return fixture.expect_by_version[version]
    return fixture.expect if version == current else None


def judge(contract: Contract, fixture: Fixture, version: int | None = None) -> Verdict:
    """Run a fixture through the boundary of schema ``version`` (default: the current one) with
    its sidecar's request and clock. A ``shape: contract`` payload of a tool with an adapter is
    judged as the contract object it is: without the adapter (and its vendor schema)."""
    from harness.boundary.pipeline import Boundary

    target = contract.without_adapter() if fixture.shape == "contract" else contract
    boundary = Boundary(target, version=version)
    return boundary.check(fixture.read(), fixture.request, now=fixture.now or contract.default_now)


def _orphans(base: Path) -> None:
    for side in base.rglob("*" + SIDECAR_SUFFIX):
        payload = side.with_name(side.name[: -len(SIDECAR_SUFFIX)] + PAYLOAD_SUFFIX)
        if not payload.exists():
            raise ContractError(
                f"sidecar without a payload (expected {payload.name})",
                file=str(side),
                code="fixture.orphan_sidecar",
            )
