"""Drift: live upstreams checked against their contracts and against what they sent before.

``plan(contracts)`` configures every upstream (exit 2 on any misconfiguration, before anything
is sent); ``DriftRunner(plan).run()`` returns one :class:`DriftCheck` per sample request and per
advertised MCP schema, and the summary. Upstream kinds (``http``, ``command``, ``mcp``) are an
extension point: :class:`UpstreamKind`, registered in a :class:`KindRegistry`. See docs/drift.md.
"""

from harness.drift.check import DriftCheck, DriftChecked
from harness.drift.diff import CHANGE_KINDS, Change, diff_shapes
from harness.drift.kinds import KINDS, REASONS, Fetched, KindRegistry, Source, UpstreamKind
from harness.drift.runner import DriftRunner, Plan, plan
from harness.drift.shape import Hints, Shape, document_shape, schema_shape

__all__ = [
    "CHANGE_KINDS",
    "KINDS",
    "REASONS",
    "Change",
    "DriftCheck",
    "DriftChecked",
    "DriftRunner",
    "Fetched",
    "Hints",
    "KindRegistry",
    "Plan",
    "Shape",
    "Source",
    "UpstreamKind",
    "diff_shapes",
    "document_shape",
    "plan",
    "schema_shape",
]
