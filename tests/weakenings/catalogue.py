"""The catalogue of weakenings: what a hurried author does to a contract, and who notices.

Each :class:`Weakening` is one realistic edit of a scratch copy of a demo tool (its schemas,
``contract.yaml``, vendor schema or adapter source), with:

- ``check``, ``lint``, ``fuzz``: what each command makes of it, as recorded — ``flagged``,
  ``held`` (nothing noticed) or ``refused`` (exit 2: the weakened contract does not load).
  ``tests/test_weakenings.py`` holds ``check`` to its value (an entry ``check`` should flag but
  does not is an ``xfail(strict=True)``, so the day detection lands the test turns red and the
  value must be updated); ``bench/weakenings.py`` measures all three and marks a value that no
  longer matches.
- ``needs``: for a weakening ``check`` does not flag today, what ``check`` would need to flag it
  (the mutation operator or rule that would see it) — the worklist.
- ``fragile``: for a weakening ``check`` flags today only by accident (an operator aimed at
  something else, a code pinned in a fixture's sidecar that the author may simply update), what
  would catch it on purpose.
- ``invisible``: for an equivalent rewrite, or an edit no fixture can reach, why no
  fixture-based test can see it. Those are documented, not forced: the suite asserts that
  ``check`` still holds on them (a check that flags an equivalent rewrite raises a false alarm).

Every visible weakening must be caught by ``check`` (the command run on every connector
change); ``lint`` and ``fuzz`` are recorded for comparison. Add an entry: see
docs/weakenings.md#adding-a-weakening.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tests.weakenings.scratch import CatalogueError, Scratch, at, make_scratch

Status = Literal["flagged", "held", "refused"]
Apply = Callable[[Scratch], None]

#: The kinds of weakening, by what the author loosened.
KINDS = {
    "open_object": "objects opened (additionalProperties removed or true)",
    "unbounded": "bounds dropped or raised past sense (maxLength, maxItems, maximum)",
    "free_text": "free text in the agent view (pattern dropped, enum replaced by a string)",
    "nullable": "null where a scalar was",
    "not_required": "members not required any more",
    "binding": "bindings removed or pointed elsewhere",
    "freshness": "freshness rules removed or windows widened",
    "adapter": "adapters that pass vendor text through or invent values; vendor schemas loosened",
    "equivalent": "equivalent rewrites and unreachable edits (invisible to any fixture)",
}


@dataclass(frozen=True, slots=True)
class Weakening:
    """One weakening of one demo tool, and what each command makes of it today."""

    id: str  # <tool>/<what>, unique; also the pytest id
    summary: str  # one line
    apply: Apply
    kind: str
    check: Status
    lint: Status
    fuzz: Status
    needs: str = ""  # what check needs to flag it (check == "held", visible)
    invisible: str = ""  # why no fixture-based test can see it
    fragile: str = ""  # check flags it, but only by accident: what the robust detection is
    base: str = "demo"  # the scratch copy it applies to (see BASES)

    @property
    def tool(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def visible(self) -> bool:
        return not self.invisible

    @property
    def must_catch(self) -> tuple[str, ...]:
        """The commands that must flag it: ``check`` for every visible weakening."""
        return ("check",) if self.visible else ()


# -- appliers: small, each refusing to edit what is not there --------------------------------


def in_schema(name: str, pointer: str, edit: Callable[[dict[str, Any]], None]) -> Apply:
    """Apply ``edit`` to the subschema at ``pointer`` of schema ``name``."""

    def apply(scratch: Scratch) -> None:
        with scratch.schema(name) as schema:
            node = at(schema, pointer)
            if not isinstance(node, dict):
                raise CatalogueError(f"{name}.json#{pointer} is not an object")
            edit(node)

    return apply


def _pop(node: dict[str, Any], key: str) -> Any:
    if key not in node:
        raise CatalogueError(f"no {key!r} to remove in {sorted(node)}")
    return node.pop(key)


def drop(name: str, pointer: str, key: str) -> Apply:
    """Remove ``key`` from the subschema at ``pointer``."""
    return in_schema(name, pointer, lambda node: _pop(node, key))


def put(name: str, pointer: str, key: str, value: Any) -> Apply:
    """Set ``key`` (which must exist: a weakening changes a bound, never adds a new one)."""

    def edit(node: dict[str, Any]) -> None:
        _pop(node, key)
        node[key] = value

    return in_schema(name, pointer, edit)


def replace(name: str, pointer: str, value: dict[str, Any]) -> Apply:
    """Replace the subschema at ``pointer`` wholesale."""

    def edit(node: dict[str, Any]) -> None:
        node.clear()
        node.update(value)

    return in_schema(name, pointer, edit)


def unrequire(name: str, pointer: str, member: str) -> Apply:
    """Remove ``member`` from the ``required`` list at ``pointer``."""

    def edit(node: dict[str, Any]) -> None:
        required = node.get("required", [])
        if member not in required:
            raise CatalogueError(f"{member!r} is not in required {required}")
        required.remove(member)

    return in_schema(name, pointer, edit)


def nullable(name: str, pointer: str) -> Apply:
    """Let null in: ``type: T`` -> ``[T, "null"]``, ``enum: [...]`` -> ``[..., null]``."""

    def edit(node: dict[str, Any]) -> None:
        if "enum" in node:
            node["enum"] = [*node["enum"], None]
        elif isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        else:
            raise CatalogueError(f"neither an enum nor one type: {node}")

    return in_schema(name, pointer, edit)


def widen_enum(name: str, pointer: str, *values: str) -> Apply:
    def edit(node: dict[str, Any]) -> None:
        node["enum"] = [*_pop(node, "enum"), *values]

    return in_schema(name, pointer, edit)


def in_contract(edit: Callable[[dict[str, Any]], None]) -> Apply:
    def apply(scratch: Scratch) -> None:
        with scratch.contract() as contract:
            edit(contract)

    return apply


def freshness_window(**window: str) -> Apply:
    """Widen the (one) freshness rule's window: ``max_age=``, ``max_future_skew=``."""

    def edit(contract: dict[str, Any]) -> None:
        (rule,) = contract["freshness"]
        for key, value in window.items():
            _pop(rule, key)
            rule[key] = value

    return in_contract(edit)


def without_binding(name: str) -> Apply:
    def edit(contract: dict[str, Any]) -> None:
        kept = [b for b in contract["bindings"] if b["name"] != name]
        if len(kept) == len(contract["bindings"]):
            raise CatalogueError(f"no binding named {name!r}")
        contract["bindings"] = kept

    return in_contract(edit)


def rebind(name: str, **pointers: str) -> Apply:
    """Point binding ``name`` elsewhere: ``result=`` and/or ``request=``."""

    def edit(contract: dict[str, Any]) -> None:
        (binding,) = [b for b in contract["bindings"] if b["name"] == name]
        for side, pointer in pointers.items():
            _pop(binding, side)
            binding[side] = pointer

    return in_contract(edit)


def in_adapter(old: str, new: str) -> Apply:
    return lambda scratch: scratch.replace_in_adapter(old, new)


def together(*steps: Apply) -> Apply:
    """Several edits that only make sense together (a schema and the adapter that fills it)."""

    def apply(scratch: Scratch) -> None:
        for step in steps:
            step(scratch)

    return apply


def _one_of_to_any_of(name: str) -> Apply:
    def edit(node: dict[str, Any]) -> None:
        node["anyOf"] = _pop(node, "oneOf")

    return in_schema(name, "", edit)


# -- bases: the scratch copies weakenings apply to --------------------------------------------


def _with_labels(scratch: Scratch) -> None:
    """review_status with a bounded array in the agent view (the demo contracts hold no array,
    so ``maxItems`` needs a base that has one; the base itself checks clean)."""
    labels = {"type": "array", "maxItems": 4, "items": {"enum": ["security", "docs", "breaking", "infra"]}}
    with scratch.schema("v1") as schema:
        at(schema, "/$defs/reviewStatus/properties")["labels"] = labels
    with scratch.contract() as contract:
        contract["agent_view"]["labels"] = {"pointer": "/data/labels", "optional": True}
    scratch.add_fixture("accepted", "approved_with_labels", {
        "tool": "review_status", "request_id": "req.J7q94MkP", "outcome": "success",
        "data": {"change_id": "CR-1042", "decision": "approved", "reviewed_by": "alice",
                 "labels": ["security", "infra"]},
    }, {"description": "An approval with two labels.", "expect": "accept"})


BASES: dict[str, Callable[[Scratch], None]] = {
    "demo": lambda scratch: None,
    "labels": _with_labels,
}

# -- the catalogue ------------------------------------------------------------------------------

R, D, J = "review_status", "deployment_status", "job_status"
REVIEW = "/$defs/reviewStatus"
JOB = "/$defs/jobStatus"
RUN = "/properties/run"

FRAGILE_EMPTY = ("caught only by empty_identifier, because no minLength is left (with minLength: 1 it passes); "
                 "the envelope's request_id is not in the agent view, so text_outside_pin does not reach it, and "
                 "a request_id outside its pattern is a binding mismatch only when it differs")

CATALOGUE: tuple[Weakening, ...] = (
    # review_status: an envelope result, no adapter --------------------------------------------
    Weakening(f"{R}/open_success_envelope", "the success envelope accepts extra members",
              drop("v1", "/oneOf/0", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/open_failure_envelope", "the failure envelope accepts extra members",
              drop("v1", "/oneOf/1", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/open_error_object", "the failure's error object accepts extra members",
              drop("v1", "/oneOf/1/properties/error", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/open_data", "the data object accepts extra members (additionalProperties removed)",
              drop("v1", REVIEW, "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/data_additional_properties_true", "the data object says additionalProperties: true",
              put("v1", REVIEW, "additionalProperties", True), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/reviewed_by_max_length_dropped", "reviewed_by loses its maxLength: any length up to max_bytes",
              drop("v1", f"{REVIEW}/properties/reviewed_by", "maxLength"), "unbounded",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/reviewed_by_max_length_past_max_bytes",
              "reviewed_by's maxLength raised to 1,000,000, past max_bytes (8 KiB): a bound in name only",
              put("v1", f"{REVIEW}/properties/reviewed_by", "maxLength", 1_000_000), "unbounded",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/change_id_pattern_dropped", "change_id loses its pattern: any 13 characters",
              drop("v1", f"{REVIEW}/properties/change_id", "pattern"), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/change_id_pattern_to_min_length",
              "change_id's pattern replaced by minLength: 1 (any non-empty 13 characters)",
              together(drop("v1", f"{REVIEW}/properties/change_id", "pattern"),
                       in_schema("v1", f"{REVIEW}/properties/change_id", lambda n: n.update(minLength=1))),
              "free_text", check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/request_id_pattern_dropped", "the envelope's request_id loses its pattern",
              drop("v1", "/$defs/requestId", "pattern"), "free_text",
              check="flagged", lint="flagged", fuzz="flagged", fragile=FRAGILE_EMPTY),
    Weakening(f"{R}/decision_enum_to_string", "decision: enum replaced by {type: string, maxLength: 32}",
              replace("v1", f"{REVIEW}/properties/decision", {"type": "string", "maxLength": 32}), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{R}/decision_nullable", "decision's enum admits null",
              nullable("v1", f"{REVIEW}/properties/decision"), "nullable",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{R}/reviewed_by_nullable", 'reviewed_by: type ["string", "null"]',
              nullable("v1", f"{REVIEW}/properties/reviewed_by"), "nullable",
              check="flagged", lint="held", fuzz="held"),
    Weakening(f"{R}/change_id_nullable", 'change_id: type ["string", "null"] (the binding still compares it)',
              nullable("v1", f"{REVIEW}/properties/change_id"), "nullable",
              check="flagged", lint="held", fuzz="held"),
    Weakening(f"{R}/reviewed_by_not_required", "reviewed_by removed from required (the agent view still reads it)",
              unrequire("v1", REVIEW, "reviewed_by"), "not_required",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{R}/decision_not_required", "decision removed from required (the agent view still reads it)",
              unrequire("v1", REVIEW, "decision"), "not_required",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{R}/data_not_required", "the success envelope no longer requires data",
              unrequire("v1", "/oneOf/0", "data"), "not_required",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{R}/binding_removed", "the change_id binding removed: an answer about another change passes",
              without_binding("change_id"), "binding",
              check="flagged", lint="flagged", fuzz="held"),
    Weakening(f"{R}/binding_pointed_elsewhere", "the change_id binding compares reviewed_by with the change asked for",
              rebind("change_id", result="/data/reviewed_by"), "binding",
              check="flagged", lint="flagged", fuzz="held"),
    Weakening(f"{R}/labels_max_items_dropped", "labels (an agent-visible array) loses its maxItems",
              drop("v1", f"{REVIEW}/properties/labels", "maxItems"), "unbounded",
              check="flagged", lint="flagged", fuzz="flagged", base="labels"),
    Weakening(f"{R}/one_of_to_any_of", "the envelope's oneOf rewritten as anyOf",
              _one_of_to_any_of("v1"), "equivalent",
              check="held", lint="held", fuzz="held",
              invisible="the branches are disjoint (outcome is const success in one, const failure in the other): "
                        "anyOf accepts exactly what oneOf accepts"),
    Weakening(f"{R}/change_id_max_length_dropped", "change_id loses its maxLength",
              drop("v1", f"{REVIEW}/properties/change_id", "maxLength"), "equivalent",
              check="held", lint="flagged", fuzz="held",
              invisible="the pattern ^CR-[0-9]{1,10}$ already bounds it to 13 characters: the same strings pass"),
    Weakening(f"{R}/decision_enum_widened", "decision's enum gains a plausible value (approved_with_exceptions)",
              widen_enum("v1", f"{REVIEW}/properties/decision", "approved_with_exceptions"), "equivalent",
              check="held", lint="held", fuzz="held",
              invisible="the field stays pinned to a finite set the author chose; no fixture can tell a legitimate "
                        "new state from a wrong one (compat between versions sees the widening)"),
    # deployment_status: a bare result, two versions ------------------------------------------
    Weakening(f"{D}/open_root", "v2 accepts extra members again (additionalProperties removed)",
              drop("v2", "", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/root_additional_properties_true", "v2 says additionalProperties: true",
              put("v2", "", "additionalProperties", True), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/revision_pattern_dropped", "revision loses its pattern: any 40 characters",
              drop("v2", "/properties/revision", "pattern"), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/state_enum_to_string", "state: enum replaced by {type: string, maxLength: 32}",
              replace("v2", "/properties/state", {"type": "string", "maxLength": 32}), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/environment_enum_to_string",
              "environment: enum replaced by {type: string, maxLength: 32} (the binding still compares it)",
              replace("v2", "/properties/environment", {"type": "string", "maxLength": 32}), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/state_nullable", "state's enum admits null",
              nullable("v2", "/properties/state"), "nullable",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{D}/state_not_required", "state removed from required (the agent view still reads it)",
              unrequire("v2", "", "state"), "not_required",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{D}/binding_removed", "the environment binding removed: production's state answers staging",
              without_binding("environment"), "binding",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{D}/revision_max_length_dropped", "revision loses its maxLength",
              drop("v2", "/properties/revision", "maxLength"), "equivalent",
              check="held", lint="flagged", fuzz="held",
              invisible="the pattern ^[0-9a-f]{7,40}$ already bounds it to 40 characters: the same strings pass"),
    Weakening(f"{D}/state_enum_widened", "state's enum gains a plausible value (unknown)",
              widen_enum("v2", "/properties/state", "unknown"), "equivalent",
              check="held", lint="held", fuzz="held",
              invisible="the field stays pinned to a finite set the author chose; no fixture can tell a legitimate "
                        "new state from a wrong one (compat between versions sees the widening)"),
    # job_status: a vendor document, an adapter, the contract object behind it ---------------
    Weakening(f"{J}/contract_data_opened", "the contract object (v2 data, what the adapter emits) opened",
              drop("v2", JOB, "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_success_envelope_opened", "v2's success envelope (adapter output) opened",
              drop("v2", "/oneOf/0", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_failure_envelope_opened", "v2's failure envelope (adapter output) opened",
              drop("v2", "/oneOf/1", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_error_opened", "v2's error object (adapter output) opened",
              drop("v2", "/oneOf/1/properties/error", "additionalProperties"), "open_object",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_state_enum_to_string", "v2 state: enum replaced by {type: string, maxLength: 32}",
              replace("v2", f"{JOB}/properties/state", {"type": "string", "maxLength": 32}), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_project_id_pattern_dropped",
              "v2 project_id loses its pattern (the adapter copies the vendor's slug; the binding still compares it)",
              drop("v2", f"{JOB}/properties/project_id", "pattern"), "free_text",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/contract_observed_at_nullable", 'v2 observed_at: type ["string", "null"]',
              nullable("v2", f"{JOB}/properties/observed_at"), "nullable",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{J}/contract_attempt_maximum_dropped", "v2 attempt loses its maximum",
              drop("v2", f"{JOB}/properties/attempt", "maximum"), "unbounded",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/vendor_status_max_length_dropped", "the vendor schema's run.status loses its maxLength",
              drop("vendor", f"{RUN}/properties/status", "maxLength"), "unbounded",
              check="flagged", lint="flagged", fuzz="held"),
    Weakening(f"{J}/vendor_timestamp_not_required", "the vendor schema stops requiring run.updated_at",
              unrequire("vendor", RUN, "updated_at"), "adapter",
              check="flagged", lint="held", fuzz="flagged"),
    Weakening(f"{J}/adapter_invents_timestamp",
              "the vendor schema stops requiring updated_at and the adapter fills in the wall clock",
              together(unrequire("vendor", RUN, "updated_at"),
                       in_adapter("from typing import Any\n",
                                  "from datetime import datetime, timezone\nfrom typing import Any\n"),
                       in_adapter('"observed_at": run["updated_at"],',
                                  '"observed_at": run.get("updated_at") or datetime.now(timezone.utc).isoformat(),')),
              "adapter", check="flagged", lint="held", fuzz="held"),
    Weakening(f"{J}/adapter_passes_status_through", "the adapter passes an unknown vendor status through unmapped",
              in_adapter('    state = _STATES.get(run["status"])\n    if state is None:\n'
                         '        raise UnknownVendorValue("run status")\n',
                         '    state = _STATES.get(run["status"], run["status"])\n'),
              "adapter", check="flagged", lint="held", fuzz="held"),
    Weakening(f"{J}/adapter_guesses_status", "the adapter maps an unknown vendor status to running",
              in_adapter('    state = _STATES.get(run["status"])\n    if state is None:\n'
                         '        raise UnknownVendorValue("run status")\n',
                         '    state = _STATES.get(run["status"], "running")\n'),
              "adapter", check="flagged", lint="held", fuzz="held"),
    Weakening(f"{J}/adapter_guesses_error_code",
              "the adapter maps an unknown vendor error type to UPSTREAM_UNAVAILABLE (retryable) instead of refusing",
              in_adapter('        code = _ERRORS.get(document["error"]["type"])\n        if code is None:\n'
                         '            raise UnknownVendorValue("error type")\n',
                         '        code = _ERRORS.get(document["error"]["type"], "UPSTREAM_UNAVAILABLE")\n'),
              "adapter", check="flagged", lint="held", fuzz="held"),
    Weakening(f"{J}/adapter_copies_vendor_message",
              "v2 gains cause (string, maxLength 200) in the agent view; the adapter copies run.message there",
              # Named so that no vendor string is a substring of the name: the leak rule also reads
              # the agent result's member names, and "failure_cause" holds the vendor's "failure".
              together(in_schema("v2", f"{JOB}/properties",
                                 lambda p: p.update(cause={"type": "string", "maxLength": 200})),
                       in_contract(lambda c: c["agent_view"].update(
                           cause={"pointer": "/data/cause", "optional": True})),
                       in_adapter('"observed_at": run["updated_at"],',
                                  '"observed_at": run["updated_at"],\n'
                                  '            "cause": run.get("message", ""),')),
              "adapter", check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/freshness_removed", "the freshness rule on observed_at removed",
              in_contract(lambda c: c.pop("freshness")), "freshness",
              check="flagged", lint="held", fuzz="held"),
    Weakening(f"{J}/max_age_a_year", "max_age widened from PT15M to P365D",
              freshness_window(max_age="P365D"), "freshness",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/max_future_skew_a_month", "max_future_skew widened from PT30S to P30D",
              freshness_window(max_future_skew="P30D"), "freshness",
              check="flagged", lint="flagged", fuzz="flagged"),
    Weakening(f"{J}/project_binding_removed", "the project_id binding removed: another project's run passes",
              without_binding("project_id"), "binding",
              check="flagged", lint="flagged", fuzz="held"),
    Weakening(f"{J}/run_binding_removed", "the run_id binding removed: another run of the project passes",
              without_binding("run_id"), "binding",
              check="flagged", lint="flagged", fuzz="held"),
    Weakening(f"{J}/adapter_invents_timestamp_behind_schema",
              "the adapter falls back to the wall clock when updated_at is missing (the vendor schema still requires it)",
              together(in_adapter("from typing import Any\n",
                                  "from datetime import datetime, timezone\nfrom typing import Any\n"),
                       in_adapter('"observed_at": run["updated_at"],',
                                  '"observed_at": run.get("updated_at") or datetime.now(timezone.utc).isoformat(),')),
              "equivalent", check="held", lint="held", fuzz="held",
              invisible="unreachable: the vendor schema rejects a run without updated_at before the adapter runs "
                        "(the same edit with the requirement dropped is adapter_invents_timestamp)"),
)

BY_ID = {w.id: w for w in CATALOGUE}


def entry_problems(ids: list[str]) -> list[str]:
    """What is wrong with a catalogue's ids: each unique, and ``<tool>/<snake_case>``."""
    found: list[str] = []
    seen: set[str] = set()
    for id_ in ids:
        if id_ in seen:
            found.append(f"{id_}: duplicate id")
        seen.add(id_)
        if not re.fullmatch(r"[a-z_]+/[a-z0-9_]+", id_):
            found.append(f"{id_}: id must be <tool>/<snake_case>")
    return found


def problems(catalogue: tuple[Weakening, ...] = CATALOGUE) -> list[str]:
    """What is wrong with the catalogue itself (empty when it is well formed)."""
    found = entry_problems([w.id for w in catalogue])
    for w in catalogue:
        if w.kind not in KINDS:
            found.append(f"{w.id}: unknown kind {w.kind!r} (known: {', '.join(KINDS)})")
        if w.base not in BASES:
            found.append(f"{w.id}: unknown base {w.base!r}")
        if not w.summary or "\n" in w.summary:
            found.append(f"{w.id}: summary must be one line")
        if w.invisible and (w.check != "held" or w.kind != "equivalent"):
            found.append(f"{w.id}: an invisible weakening is of kind equivalent and check holds on it")
        if w.visible and w.kind == "equivalent":
            found.append(f"{w.id}: kind equivalent needs the invisible reason")
        if w.visible and w.check != "flagged" and not w.needs:
            found.append(f"{w.id}: check does not flag it today: say what check needs (needs=)")
        if w.check == "flagged" and w.needs:
            found.append(f"{w.id}: check flags it: drop needs= (or say fragile= why only by accident)")
        if w.fragile and w.check != "flagged":
            found.append(f"{w.id}: fragile= is for a weakening check flags by accident")
    return found


def baseline_copy(tool: str, base: str, destination: Path) -> Scratch:
    """The unweakened scratch copy a weakening of ``tool`` on ``base`` starts from."""
    scratch = make_scratch(tool, destination)
    BASES[base](scratch)
    return scratch


def weakened_copy(weakening: Weakening, destination: Path) -> Scratch:
    """A scratch copy of the weakening's tool, on its base, with the weakening applied."""
    scratch = baseline_copy(weakening.tool, weakening.base, destination)
    weakening.apply(scratch)
    return scratch
