"""Helpers shared by subcommands: reading request files, resolving contract paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.boundary.parse import strict_loads
from harness.contract import load_yaml
from harness.errors import RejectedInput, UsageError


def read_document(path: str, what: str) -> Any:
    """A JSON or YAML file given on the command line, parsed strictly."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{what} file {path!r} does not exist")
    if file.suffix == ".json":
        try:
            return strict_loads(file.read_bytes())
        except RejectedInput as exc:
            raise UsageError(f"{what} file {path!r} is not valid JSON: {exc}") from None
    return load_yaml(file)
