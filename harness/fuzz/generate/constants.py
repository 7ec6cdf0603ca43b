"""hypothesis's "local constants", without this package's own.

hypothesis mixes into what it draws the constants it finds in the source of *local* modules —
the user's code, as opposed to the standard library and site-packages — so that a string or a
number the code under test compares with turns up in its inputs: in a contract project, the
constants of an adapter module, say. It finds them anew whenever the process has imported a
module it has not looked at yet. The harness is no user's code, but a checkout or an editable
install of it (``pip install -e``) is "local" by hypothesis's rule, and it imports its modules
lazily: the first property a process ran drew from fewer constants than the ones after it, so
the derandomized examples of a property depended on what the process had run before (``fuzz
--tool X`` drew other examples than a whole run, and the ``reproduce with`` command could draw
other examples than the failing run). :func:`exclude_own_modules` tells hypothesis this
package's files are not local; the user's modules still are. A hypothesis without this
mechanism (or with it renamed) is left as it is.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from harness.internals import hypothesis_library_folders, hypothesis_local_module_check

#: This package's folder (``harness/``), with a trailing separator.
PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_done = False


def exclude_own_modules() -> None:
    """Make hypothesis's local-constants scan skip this package's modules (once per process)."""
    global _done
    if _done:
        return
    _done = True
    found = hypothesis_local_module_check()
    if found is None:  # pragma: no cover - a hypothesis without local constants
        return
    local, replace = found
    replace(_not_ours(local))


def _not_ours(local: Callable[[str], bool]) -> Callable[[str], bool]:
    located = _locator()

    @functools.lru_cache(4096)
    def is_local_module_file(path: str) -> bool:
        if os.path.abspath(path).startswith(PACKAGE):
            return False
        # hypothesis's rule needs the module to be LOCAL by ModuleLocation.from_path, which
        # resolves the whole path (a stat per component; ~40 µs for each of the ~200 standard
        # library modules a process has imported, on the first property it runs): ask the
        # cheaper twin below first, and hypothesis for the few local ones.
        return (located is None or located(path)) and local(path)

    return is_local_module_file


def _locator() -> Callable[[str], bool] | None:
    """Whether a module file is LOCAL by ``hypothesis.internal.scrutineer.ModuleLocation.
    from_path`` (neither below a site-packages folder nor below a standard library folder, the
    path resolved), computed with each folder resolved once: a file that is no symlink resolves
    to its resolved folder and its name. None where hypothesis has no such classification."""
    outside = hypothesis_library_folders()
    if outside is None:  # pragma: no cover - renamed in a later hypothesis
        return None

    @functools.lru_cache(1024)
    def folder(path: str) -> str:
        return os.path.realpath(path)

    def located(path: str) -> bool:
        absolute = os.path.abspath(path)
        head, name = os.path.split(absolute)
        try:
            resolved = os.path.realpath(absolute) if os.path.islink(absolute) else os.path.join(folder(head), name)
        except (OSError, ValueError):
            return True  # hypothesis decides
        return not any(resolved == base or resolved.startswith(base.rstrip(os.sep) + os.sep) for base in outside)

    return located
