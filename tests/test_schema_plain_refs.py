"""The schema model resolves ``$ref`` in a plain set of schemas (no anchor, no identifier but
root ``$id`` s) by URI and JSON pointer itself, without ``referencing``: these tests compare
its answers with ``referencing``'s on the same documents (the model forced to ask
``referencing`` by declaring nothing plain), over the demo contracts, the real-tool schemas, the
JSON-Schema-Test-Suite's schemas and generated schemas full of local references, good and bad.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from harness.contract import load_schema_resources
from harness.errors import ContractError
from harness.schemas import Document, Node
from harness.schemas import document as model
from tests.helpers.paths import corpus_params

REPO = Path(__file__).resolve().parent.parent


def _answers(document: Document) -> list[tuple[Any, ...]]:
    """Every node of the document and of the documents its references reach, with its base and
    where each of its references leads."""
    out: list[tuple[Any, ...]] = []
    todo, seen = [document], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for node in current.nodes:
            refs = current.references(node)
            out.append((node.location, node.base, tuple(
                (r.keyword, r.value, r.uri, r.status, None if r.target is None else r.target.location) for r in refs)))
            todo.extend(r.target.document for r in refs if r.target is not None)
    return out


def _both(schema: Any, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> tuple[Document, list[Any], list[Any]]:
    """The model's answers as it gives them, and as ``referencing`` gives them."""
    document = Document(schema, **kwargs)
    fast = _answers(document)
    with monkeypatch.context() as patched:
        patched.setattr(model, "plain", lambda *args, **kw: False)
        slow = Document(schema, **kwargs)
        assert not slow._resources.plain
        through_referencing = _answers(slow)
    return document, fast, through_referencing


def _either(schema: Any, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> tuple[Any, Any, Any]:
    """As :func:`_both`; a schema neither way can read (a root ``$id`` that is no URI, or one in
    a resource a reference reaches, met when that reference is followed: ``contract.invalid_schema``)
    raises the same error both ways."""
    try:
        return _both(schema, monkeypatch, **kwargs)
    except (ValueError, ContractError) as fast_error:
        with monkeypatch.context() as patched:
            patched.setattr(model, "plain", lambda *args, **kw: False)
            with pytest.raises(type(fast_error)) as slow_error:
                _answers(Document(schema, **kwargs))
        return None, str(fast_error), str(slow_error.value)


def _named(file: Any) -> str | None:
    return f"{file.parent.name}/{file.name}" if isinstance(file, Path) else None


def _demo_schemas() -> Iterator[Any]:
    for folder in sorted((REPO / "contracts").iterdir()):
        for file in sorted((folder / "schemas").glob("*.json")):
            yield pytest.param(folder, file, id=f"{folder.name}/{file.name}")


@pytest.mark.parametrize(("folder", "file"), list(_demo_schemas()))
def test_a_demo_schema_resolves_alike_without_referencing(folder: Path, file: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    schema = json.loads(file.read_text(encoding="utf-8"))
    document, fast, slow = _both(schema, monkeypatch, file=file, resources=load_schema_resources(folder))
    assert document._resources.plain  # the demo's schemas take the path without referencing
    assert fast == slow
    assert any(refs for _, _, refs in fast) or "$ref" not in file.read_text(encoding="utf-8")


@pytest.mark.corpus
@pytest.mark.parametrize("file", corpus_params("real-tools", "*/*/*schema*.json"), ids=_named)
def test_a_real_tool_schema_resolves_alike_without_referencing(file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = json.loads(file.read_text(encoding="utf-8"))
    document, fast, slow = _both(schema, monkeypatch, file=file)
    assert fast == slow
    if file.name == "schema.json":  # a result schema as a tool publishes it: pointers and a root $id only
        assert document._resources.plain


@pytest.mark.corpus
@pytest.mark.parametrize("file", corpus_params("json-schema-test-suite", "tests/*/*.json"), ids=_named)
def test_every_schema_of_a_suite_file_resolves_alike_without_referencing(
        file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for group in json.loads(file.read_text(encoding="utf-8")):
        _, fast, slow = _both(group["schema"], monkeypatch, file=file)
        assert fast == slow, group["description"]


# --------------------------------------------------------------------------- generated schemas

_NAMES = st.sampled_from(["a", "b", "a/b", "t~x", "%25", "é", "0", "01", "-1", ""])
_KEYWORDS = st.sampled_from(["properties", "$defs", "definitions", "items", "prefixItems", "allOf", "anyOf", "not",
                             "additionalProperties", "dependencies", "dependentSchemas", "if", "then"])


def _pointer_text(tokens: list[str]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


_REFS = st.one_of(
    st.lists(st.one_of(_NAMES, _KEYWORDS), max_size=4).map(lambda ts: "#" + _pointer_text(ts)),
    st.sampled_from(["#", "", "#/", "#anchor", "#/$defs/a/b", "#/items/01", "#/allOf/-1", "#/%24defs/a",
                     "#/$defs/a%2Fb", "#/$defs/t~0x", "#/$defs/t~1x", "other.json#/a", "v1.json", "v1.json#/$defs/a",
                     "https://example.invalid/s.json#/$defs/a", "https://example.invalid/s.json", "urn:x#/a",
                     "#/$defs/a/not", "#/properties/a/items/0"]),
)


def _schemas(depth: int) -> st.SearchStrategy[Any]:
    leaf = st.one_of(st.booleans(), st.fixed_dictionaries({}, optional={"type": st.sampled_from(["string", "object"]),
                                                                        "$ref": _REFS}))
    if depth == 0:
        return leaf
    sub = _schemas(depth - 1)
    member = st.one_of(
        st.tuples(st.sampled_from(["properties", "$defs", "definitions", "dependentSchemas", "patternProperties"]),
                  st.dictionaries(_NAMES, sub, max_size=3)),
        st.tuples(st.sampled_from(["allOf", "anyOf", "oneOf", "prefixItems", "items"]), st.lists(sub, max_size=3)),
        st.tuples(st.sampled_from(["not", "items", "additionalProperties", "if", "then", "contentSchema"]), sub),
        st.tuples(st.just("dependencies"), st.dictionaries(_NAMES, st.one_of(sub, st.lists(_NAMES, max_size=2)),
                                                           max_size=2)),
        st.tuples(st.just("$ref"), _REFS),
        st.tuples(st.sampled_from(["$anchor", "$id"]), st.sampled_from(["anchor", "x.json", "#frag", "http://[x"])),
    )
    return st.one_of(leaf, st.lists(member, max_size=4).map(dict))


_ROOTS = st.tuples(
    _schemas(3),
    st.sampled_from([None, "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#",
                     "http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema"]),
    st.sampled_from([None, "https://example.invalid/s.json", "https://example.invalid/s.json#", "s.json", "#x"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=_ROOTS, other=_schemas(2))
# A resource a reference reaches whose $id is no URI: an error when the reference is followed.
@example(root=({"type": "string", "$ref": "v1.json"}, None, None), other={"$id": "http://[x"})
def test_generated_schemas_resolve_alike_with_and_without_referencing(
        root: tuple[Any, str | None, str | None], other: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    schema, dialect, identifier = root
    if isinstance(schema, dict):
        schema = {**schema, **({"$schema": dialect} if dialect else {}), **({"$id": identifier} if identifier else {})}
    folder = tmp_path_factory.getbasetemp()
    resources = [((folder / "v1.json").as_uri(), other), ("https://example.invalid/s.json", {"$defs": {"a": {}}})]
    with pytest.MonkeyPatch.context() as monkeypatch:
        document, fast, slow = _either(schema, monkeypatch, file=folder / "v2.json", resources=resources)
    event(f"plain: {document is not None and document._resources.plain}")
    assert fast == slow


def test_a_set_with_an_anchor_or_a_nested_identifier_is_resolved_by_referencing() -> None:
    anchored = Document({"$defs": {"a": {"$anchor": "here"}}, "$ref": "#here"})
    nested = Document({"$defs": {"a": {"$id": "a.json", "type": "string"}}, "$ref": "a.json"})
    pointers = Document({"$id": "https://example.invalid/r.json", "$defs": {"a": {}}, "allOf": [{"$ref": "#/$defs/a"}]})
    assert not anchored._resources.plain and not nested._resources.plain and pointers._resources.plain
    for document in (anchored, nested, pointers.by_pointer["/allOf/0"].document):
        node = document.by_pointer["/allOf/0"] if document is pointers else document.root
        target = document.target(node)
        assert isinstance(target, Node) and target.pointer == "/$defs/a"


def test_a_dangling_pointer_and_a_remote_resource_are_told_apart_without_referencing() -> None:
    document = Document({"$defs": {"a": {}}, "allOf": [{"$ref": "#/$defs/b"}, {"$ref": "other.json#/x"},
                                                       {"$ref": "#/$defs/a"}]})
    assert document._resources.plain
    statuses = [document.reference(kid).status for kid in document.kids(document.root, "allOf")]  # type: ignore[union-attr]
    assert statuses == ["dangling", "remote", "local"]


def test_a_root_read_under_another_uri_is_one_document_with_its_copy_among_the_resources(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # As a contract's vendor schema is read: with contract.yaml's URI, its file (by file URI
    # and by $id) among the resources. The copy is the root itself, not a second document
    # claiming the same $id (which of the two a registry held depended on its crawl order).
    def vendor() -> dict[str, Any]:
        return {"$id": "https://example.invalid/vendor.json", "$defs": {"a": {"type": "string"}},
                "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "vendor.json#/$defs/a"}}}

    copy = vendor()
    resources = [("file:///p/contracts/t/schemas/vendor.json", copy), ("https://example.invalid/vendor.json", copy)]
    document, fast, slow = _both(vendor(), monkeypatch, file="/p/contracts/t/contract.yaml", resources=resources)
    assert document._resources.plain and fast == slow
    x, y = (document.reference(document.by_pointer[f"/properties/{name}"]) for name in "xy")
    assert x is not None and y is not None
    assert (x.status, y.status) == ("local", "local")
    assert x.target is y.target is document.by_pointer["/$defs/a"]


def test_the_demo_lints_without_referencing() -> None:
    import subprocess
    import sys

    code = ("import contextlib, io, sys\nfrom harness.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['lint', {str(REPO / 'contracts')!r}]) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('referencing', 'attr', 'attrs')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
