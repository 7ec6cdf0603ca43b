"""The schema model: every question about a JSON Schema is answered here.

- :mod:`harness.schemas.dialects`: which dialect a schema declares (:func:`dialect_of`), and one
  vocabulary table per dialect: the keywords it defines, which hold subschemas and how, which
  apply in place, which only annotate, where ``$ref`` overrides its siblings, which formats
  assert, and the ``referencing`` specification that resolves its references;
- :mod:`harness.schemas.document`: :class:`Document`, a schema walked once into
  :class:`Node` s with their pointers; ``$ref``/``$anchor``/``$dynamicRef`` resolved with
  ``referencing`` against the contract's own files (:class:`Reference`, never the network);
  what describes the instance at a pointer (:meth:`Document.declared`,
  :meth:`Document.instance_nodes`, :meth:`Document.governing`); reference cycles;
- :mod:`harness.schemas.resolve`: :func:`expand` inlines references and pins older dialects to
  their 2020-12 form, remembering where every node was written;
- :mod:`harness.schemas.bundle`: self-contained copies of subschemas (the agent view);
- :mod:`harness.schemas.keywords`: the 2020-12 vocabulary as sets, for walkers of expanded trees.

Generating documents from a schema is :mod:`harness.fuzz.generate`, which asks this package.
"""

from typing import TYPE_CHECKING

from harness.lazy import lazy_exports
from harness.schemas.dialects import DIALECTS, DRAFT_2020_12, dialect_of
from harness.schemas.document import Declared, Document, Node, Reference

if TYPE_CHECKING:
    from harness.schemas.resolve import Expanded, Location, Unmodelled, as_schema, expand

__all__ = [
    "DIALECTS",
    "DRAFT_2020_12",
    "Declared",
    "Document",
    "Expanded",
    "Location",
    "Node",
    "Reference",
    "Unmodelled",
    "as_schema",
    "dialect_of",
    "expand",
]

#: Names that load on first use, by module: :func:`expand` and its records (``lint`` and the
#: loader never expand a schema).
_LAZY = dict.fromkeys(("Expanded", "Location", "Unmodelled", "as_schema", "expand"), "harness.schemas.resolve")


__getattr__ = lazy_exports(__name__, _LAZY, globals())
