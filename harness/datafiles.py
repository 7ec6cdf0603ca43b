"""The YAML and JSON files people write, read strictly: contracts, sidecars, schemas, request
files (a schema as a model to ask questions of is :class:`harness.schemas.Document`).

:func:`load_yaml` reads YAML into the JSON data model (repeated keys, tags outside that model,
complex keys, recursive aliases and alias bombs refused); :func:`load_json_file` reads JSON with
the boundary's strict parser. Both read through :mod:`harness.files` (size caps, confinement to
a folder) and raise a :class:`~harness.errors.ContractError` naming the file, line and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.errors import ContractError, RejectedInput, printable_path
from harness.files import MAX_SCHEMA_BYTES, MAX_YAML_BYTES, read_bytes, read_text
from harness.locate import offset_position, position_in_file
from harness.pointer import escape_token
from harness.strict_json import strict_loads

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available


def packaged(name: str) -> bytes:
    """A data file of the harness package (``contract.schema.json``, ...), read through the
    package's own loader as :func:`pkgutil.get_data` reads it (a folder or a zip alike):
    ``importlib.resources`` would import ``zipfile`` and ``tempfile`` into every ``lint``."""
    import os

    # This module's loader and folder: the package's (this module is at its top).
    loader: Any = __spec__.loader if __spec__ is not None else None
    folder = os.path.dirname(__file__)
    if loader is None or not hasattr(loader, "get_data"):
        with open(os.path.join(folder, name), "rb") as file:
            return file.read()
    data: bytes = loader.get_data(os.path.join(folder, name))
    return data


class _StrictLoader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader that refuses repeated mapping keys, as the parse layer does for JSON."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Timestamps stay strings: the freshness layer parses them itself, strictly.
_StrictLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


#: Tags a contract or sidecar may use: JSON's data model. ``!!binary``, ``!!set``, ``!!omap``,
#: ``!!timestamp`` and application tags have no JSON meaning and are refused.
_JSON_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map", "merge")
)
#: Nodes a YAML document may expand to, aliases followed. A hand-written contract has a few
#: hundred; an alias bomb of 1 KB has billions.
MAX_YAML_NODES = 100_000


def _check_nodes(root: yaml.Node, path: Path) -> None:
    """Refuse what the JSON data model cannot hold, before anything is constructed: tags outside
    it, complex (non-scalar) keys, recursive aliases and documents that expand past
    :data:`MAX_YAML_NODES` through aliases.

    Most documents have no alias: one walk checks their tags and keys, in the order the full
    check below takes, and finds no node twice (so nothing recursive, and no expansion). A
    document where a node is reached twice is checked again by the full walk, from the start."""
    seen: set[int] = set()
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            _check_aliased_nodes(root, path)
            return
        seen.add(id(node))
        _check_node(node, path)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                stack.append(key_node)
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    if len(seen) > MAX_YAML_NODES:  # no alias: the file itself is that large
        raise _node_error(path, root, f"the document has more than {MAX_YAML_NODES:,} nodes",
                          "contract.yaml_expansion")


def _check_aliased_nodes(root: yaml.Node, path: Path) -> None:
    """:func:`_check_nodes` for a document in which some node is reached more than once."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_NODES:
                raise _node_error(path, node, f"the document expands to more than {MAX_YAML_NODES:,} nodes "
                                  "through aliases (an alias bomb?)", "contract.yaml_expansion")
            continue
        if key in sizes:
            continue
        if key in open_:
            raise _node_error(path, node, "a YAML alias refers to a node that contains it", "contract.yaml_recursive")
        _check_node(node, path)
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _check_node(node: yaml.Node, path: Path) -> None:
    """One node's tag, and a mapping's keys: what the JSON data model can hold."""
    if node.tag not in _JSON_TAGS:
        raise _node_error(path, node, f"YAML tag {_tag_name(node.tag)} has no JSON meaning "
                          "(allowed: strings, numbers, booleans, null, lists, mappings)",
                          "contract.yaml_tag")
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _node_error(path, key_node, "a mapping key must be a plain string, "
                                  "not a list or mapping (? complex key)", "contract.yaml_key")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _tag_name(tag: str) -> str:
    return "!!" + tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else repr(tag)


def _node_error(path: Path, node: yaml.Node, message: str, code: str) -> ContractError:
    mark = node.start_mark
    return ContractError(message, file=printable_path(path), code=code, line=mark.line + 1, column=mark.column + 1)


def load_yaml(path: Path, *, within: Path | None = None, what: str = "YAML file", limit: int | None = None) -> Any:
    """Parse a YAML file strictly into the JSON data model; errors name the file, line, column.

    The file must be a regular file of at most ``limit`` bytes (default
    :data:`~harness.files.MAX_YAML_BYTES`; a generated document such as an OpenAPI description
    gets more) (inside
    ``within`` when given). Repeated keys, tags outside JSON's data model, complex keys,
    recursive aliases and alias expansion past :data:`MAX_YAML_NODES` are errors."""
    text = read_text(path, limit=MAX_YAML_BYTES if limit is None else limit, within=within, what=what)
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _check_nodes(root, path)
        data = loader.construct_document(root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        detail = f"{context}, {problem}" if context and "found" in problem else problem
        raise ContractError(
            f"invalid YAML: {detail}", file=printable_path(path),
            line=mark.line + 1 if mark is not None else None,
            column=mark.column + 1 if mark is not None else None,
        ) from None
    finally:
        loader.dispose()
    return _json_model(data, path, "")


def _json_model(value: Any, path: Path, where: str) -> Any:
    """YAML -> the JSON data model: mapping keys become strings (``1:`` -> ``"1"``)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise ContractError(
                    f"mapping key {key!r} must be a string (quote it)", file=printable_path(path), pointer=where or "/",
                    locate=position_in_file,
                )
            out[str(key)] = _json_model(item, path, f"{where}/{escape_token(key)}")
        return out
    if isinstance(value, list):
        return [_json_model(item, path, f"{where}/{i}") for i, item in enumerate(value)]
    if isinstance(value, float) and value != value:
        raise ContractError("NaN is not allowed", file=printable_path(path), pointer=where, locate=position_in_file)
    return value


def load_json_file(path: Path, *, within: Path | None = None, what: str = "JSON file") -> Any:
    """Parse a JSON file with the strict parser; errors name the file, line and column."""
    data = read_bytes(path, limit=MAX_SCHEMA_BYTES, within=within, what=what)
    try:
        return strict_loads(data, max_depth=256)
    except RejectedInput as exc:
        line, column = offset_position(data, exc.offset) if exc.offset is not None else (None, None)
        raise ContractError(f"not valid JSON ({exc.code}: {exc.message})", file=printable_path(path),
                            pointer=exc.pointer if line is None else None, locate=position_in_file,
                            line=line, column=column) from None

