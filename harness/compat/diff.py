"""Where two canonical trees differ: deepdiff over aligned trees, cut at keyword level.

Composition members (``allOf``/``anyOf``/``oneOf``) are matched before diffing — equal members
first, then members with the same discriminator (the ``const`` of a property, the ``type``),
then by similarity — and re-keyed ``"<old index>:<new index>"`` (``"2:-"`` for a member only
the old version has), so that inserting a branch is one added member rather than every later
branch changed. deepdiff then reports each difference; each is cut back to the schema node and
keyword it belongs to: a :class:`Site`. Rules (:mod:`harness.compat.rules`) decide what a site
means.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff

from harness.compat.normalise import json_key
from harness.pointer import MISSING, escape_token, is_index
from harness.schemas import keywords as kw

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Site:
    """A keyword of a schema node that differs between the versions.

    ``path`` is the node's aligned path; ``member`` names the property, pattern or branch when
    the difference is a whole member of a keyword added, removed or replaced.
    """

    path: Path
    keyword: str
    member: str | None = None


def pointer_of(path: Path, side: str) -> str | None:
    """The JSON pointer of an aligned path in the ``old`` or ``new`` tree (None: not there)."""
    tokens: list[str] = []
    i = 0
    while i < len(path):
        token = path[i]
        tokens.append(token)
        if token in kw.MEMBERED and i + 1 < len(path):
            member = path[i + 1]
            if token in kw.BRANCHES and ":" in member:
                old, new = member.split(":", 1)
                member = old if side == "old" else new
                if member == "-":
                    return None
            tokens.append(member)
            i += 2
        else:
            i += 1
    return "".join("/" + escape_token(t) for t in tokens)


def node_at(tree: Any, path: Path) -> Any:
    """The node of an aligned tree at an aligned path (MISSING when absent)."""
    node = tree
    for token in path:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and is_index(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node


# --------------------------------------------------------------------------- alignment


def _signature(branch: Any) -> str | None:
    """What tells a branch apart: its type and the const values of its properties."""
    if not isinstance(branch, dict):
        return None
    parts = []
    for name, sub in sorted((branch.get("properties") or {}).items()):
        if isinstance(sub, dict) and "const" in sub:
            parts.append(f"{name}={json_key(sub['const'])}")
        elif isinstance(sub, dict) and isinstance(sub.get("enum"), list) and len(sub["enum"]) == 1:
            parts.append(f"{name}={json_key(sub['enum'][0])}")
    if not parts and "type" not in branch:
        return None
    return json_key([branch.get("type"), parts])


def _distance(a: Any, b: Any) -> float:
    if json_key(a) == json_key(b):
        return 0.0
    result = DeepDiff(a, b, get_deep_distance=True, ignore_numeric_type_changes=True)
    return float(result.get("deep_distance", 1.0))


def pair_members(old: list[Any], new: list[Any]) -> list[tuple[int | None, int | None]]:
    """Match composition members of two versions (unmatched ones pair with None)."""
    pairs: list[tuple[int | None, int | None]] = []
    left, right = list(range(len(old))), list(range(len(new)))

    def take(i: int, j: int) -> None:
        pairs.append((i, j))
        left.remove(i)
        right.remove(j)

    for i in list(left):
        match = next((j for j in right if json_key(old[i]) == json_key(new[j])), None)
        if match is not None:
            take(i, match)
    for i in list(left):
        sig = _signature(old[i])
        if sig is None:
            continue
        candidates = [j for j in right if _signature(new[j]) == sig]
        same_old = [k for k in left if _signature(old[k]) == sig]
        if len(candidates) == 1 and len(same_old) == 1:
            take(i, candidates[0])
    if len(left) == len(right):
        for i, j in zip(list(left), list(right), strict=True):
            take(i, j)
    else:
        scored = sorted((_distance(old[i], new[j]), i, j) for i in left for j in right)
        for score, i, j in scored:
            if i in left and j in right and score < 0.6:
                take(i, j)
    pairs += [(i, None) for i in left] + [(None, j) for j in right]
    return sorted(pairs, key=lambda p: (p[0] if p[0] is not None else 1 << 30, p[1] or 0))


def align(old: Any, new: Any) -> tuple[Any, Any]:
    """Copies of two canonical trees with composition members keyed by their pairing."""
    # Not keywords.walk: two trees are walked in step, a member of one paired with one of the other.
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return old, new
    out_old: dict[str, Any] = {}
    out_new: dict[str, Any] = {}
    for key in dict.fromkeys([*old, *new]):
        if key not in new:
            out_old[key] = old[key]
            continue
        if key not in old:
            out_new[key] = new[key]
            continue
        a, b = old[key], new[key]
        if key in kw.BRANCHES and isinstance(a, list) and isinstance(b, list):
            out_old[key], out_new[key] = {}, {}
            for i, j in pair_members(a, b):
                name = f"{'-' if i is None else i}:{'-' if j is None else j}"
                if i is not None and j is not None:
                    out_old[key][name], out_new[key][name] = align(a[i], b[j])
                elif i is not None:
                    out_old[key][name] = a[i]
                else:
                    out_new[key][name] = b[j]  # type: ignore[index]
        elif key in kw.SUBSCHEMA:
            out_old[key], out_new[key] = align(a, b)
        elif key in kw.MAP and isinstance(a, dict) and isinstance(b, dict):
            out_old[key], out_new[key] = {}, {}
            for name in dict.fromkeys([*a, *b]):
                if name in a and name in b:
                    out_old[key][name], out_new[key][name] = align(a[name], b[name])
                elif name in a:
                    out_old[key][name] = a[name]
                else:
                    out_new[key][name] = b[name]
        elif key == "prefixItems" and isinstance(a, list) and isinstance(b, list):
            pairs = [align(x, y) for x, y in zip(a, b, strict=False)]
            out_old[key] = [p[0] for p in pairs] + a[len(pairs):]
            out_new[key] = [p[1] for p in pairs] + b[len(pairs):]
        else:
            out_old[key], out_new[key] = a, b
    return out_old, out_new


# --------------------------------------------------------------------------- sites


def _locate(path: list[Any]) -> Site:
    tokens = [str(t) for t in path]
    node: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if i + 1 == len(tokens):
            return Site(tuple(node), token)
        if token in kw.SUBSCHEMA:
            node.append(token)
            i += 1
        elif token in kw.MEMBERED:
            if i + 2 == len(tokens):
                return Site(tuple(node), token, tokens[i + 1])
            node += [token, tokens[i + 1]]
            i += 2
        else:
            return Site(tuple(node), token)
    return Site(tuple(node), "")  # the whole node (true/false/object) was replaced


def sites(old: Any, new: Any) -> Iterator[Site]:
    """Every keyword site where two aligned trees differ, each once, outermost first."""
    result = DeepDiff(
        old, new, view="tree", ignore_numeric_type_changes=True, threshold_to_diff_deeper=0,
        verbose_level=2,
    )
    found: dict[Site, None] = {}
    for levels in result.values():
        for level in levels:
            found.setdefault(_locate(level.path(output_format="list")), None)
    yield from sorted(found, key=lambda s: (len(s.path), s.path, s.keyword, s.member or ""))
