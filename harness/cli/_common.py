"""Helpers shared by subcommands: reading request files, resolving contract paths."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from harness.contract import load_json_file, load_yaml
from harness.errors import UsageError
from harness.files import kind_of, shown


def existing_file(path: str, what: str) -> Path:
    """``path`` as given on the command line: an existing regular file (symlinks followed),
    else a one-line :class:`UsageError` saying what it is instead."""
    file = Path(path)
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        raise UsageError(f"{what} file {shown(path)!r} does not exist") from None
    except OSError as exc:
        raise UsageError(f"{what} file {shown(path)!r} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{what} file {shown(path)!r} is {kind_of(mode)}, not a regular file")
    return file


def read_document(path: str, what: str) -> Any:
    """A JSON or YAML file given on the command line, parsed strictly (errors: file:line:column)."""
    file = existing_file(path, what)
    if file.suffix == ".json":
        return load_json_file(file, what=f"{what} file")
    return load_yaml(file, what=f"{what} file")
