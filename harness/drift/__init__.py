"""Drift: live upstreams checked against their contracts and against what they sent before.

``plan(contracts)`` configures every upstream (exit 2 on any misconfiguration, before anything
is sent); ``DriftRunner(plan).run()`` returns one :class:`DriftCheck` per sample request and per
advertised MCP schema (a request that may change data is a check with status ``not_called``),
and the summary, every secret the run used redacted. Upstream kinds (``http``, ``command``, ``mcp``) are an
extension point: :class:`UpstreamKind`, registered in a :class:`KindRegistry`. See docs/drift.md.

The names load on first use: the guard and ``check`` use the light modules of this package
(``frame``, ``kinds``, ``template``, ``process``) without the runner and its diff (deepdiff).
"""

from typing import TYPE_CHECKING

from harness.drift.defaults import DEFAULT_CONCURRENCY as DEFAULT_CONCURRENCY
from harness.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.drift.check import DriftCheck, DriftChecked, DriftNotCalled
    from harness.drift.diff import CHANGE_KINDS, Change, Comparison, compare, diff_shapes
    from harness.drift.kinds import KINDS, REASONS, Fetched, KindRegistry, NotCalled, Source, UpstreamKind
    from harness.drift.runner import DriftRunner, Plan, plan
    from harness.drift.shape import Hints, Shape, document_shape, schema_shape

__all__ = [
    "CHANGE_KINDS",
    "KINDS",
    "REASONS",
    "Change",
    "Comparison",
    "DriftCheck",
    "DriftChecked",
    "DriftNotCalled",
    "DriftRunner",
    "Fetched",
    "Hints",
    "KindRegistry",
    "NotCalled",
    "Plan",
    "Shape",
    "Source",
    "UpstreamKind",
    "compare",
    "diff_shapes",
    "document_shape",
    "plan",
    "schema_shape",
]


_EXPORTS = {
    **dict.fromkeys(("DriftCheck", "DriftChecked", "DriftNotCalled"), "harness.drift.check"),
    **dict.fromkeys(("CHANGE_KINDS", "Change", "Comparison", "compare", "diff_shapes"), "harness.drift.diff"),
    **dict.fromkeys(
        ("KINDS", "REASONS", "Fetched", "KindRegistry", "NotCalled", "Source", "UpstreamKind"), "harness.drift.kinds"
    ),
    **dict.fromkeys(("DriftRunner", "Plan", "plan"), "harness.drift.runner"),
    **dict.fromkeys(("Hints", "Shape", "document_shape", "schema_shape"), "harness.drift.shape"),
}


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
