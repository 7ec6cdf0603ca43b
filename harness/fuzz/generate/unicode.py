"""hypothesis's table of the characters UTF-8 encodes, written where it has none yet.

Every string strategy here (and hypothesis-jsonschema's) asks for ``codec="utf-8"``. The first
time a process does, hypothesis encodes each of the 1,114,112 code points to find the ones that
encode — about 3.5 s on a 2-core CI machine — and caches the answer under its storage folder
(``.hypothesis/unicode_data/<unicode version>/codec-v2-utf-8.json.gz``). A fresh clone in CI
has no such folder, so every CI run (every xdist worker at once) paid those seconds before its
first example. The answer is a fact of UTF-8: every code point but the surrogates
(U+D800-U+DFFF), and each of them decodes back to itself. :func:`ensure_utf8_table` writes that
table in hypothesis's own format, atomically, when it is missing; hypothesis then reads it as it
reads its own (``tests/test_fuzz_sampling.py`` compares the table with an encode of every code
point, as hypothesis computes it). Anything unexpected (an unwritable folder, a format hypothesis no longer reads) only
leaves hypothesis to compute the table itself, as before.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import sys
import tempfile

from harness.internals import hypothesis_charmap_file

#: Code points UTF-8 encodes, as hypothesis stores them, and those that do not round-trip.
UTF8_TABLE = [[[0, 0xD7FF], [0xE000, sys.maxunicode]], []]
_done = False


def ensure_utf8_table() -> None:
    """Write hypothesis's UTF-8 table into its storage folder unless it is there (once per
    process)."""
    global _done
    if _done:
        return
    _done = True
    with contextlib.suppress(Exception):
        from hypothesis.configuration import storage_directory

        path = hypothesis_charmap_file("codec-v2-utf-8")
        if path.exists():
            return
        # hypothesis's own folder (with the .gitignore it writes into a new one)
        storage_directory(*path.parent.relative_to(storage_directory().path).parts).create_if_missing()
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".codec-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=1) as out:
                out.write(json.dumps(UTF8_TABLE).encode())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
