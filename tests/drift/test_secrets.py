"""No secret reaches any file or output of drift and check, in any spelling.

A real HTTP server on loopback echoes the bearer token it receives back into its answers — as a
member name, JSON-escaped, ``\\u``-escaped, with ``\\/``, URL-encoded, as a Python repr — and
every report, the cases directory, recorded fixtures and the terminal are searched for it.
"""

from __future__ import annotations

import base64
import html
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, quote, quote_plus

import pytest
import yaml

from harness.cli import main
from harness.redaction import Redactor
from harness.reporting.reproductions import withheld

pytestmark = pytest.mark.drift

TOKEN = "ghp_T0k/en+Se\"cr3t'x~42"
MARK = "cr3t"  # in every literal spelling of the token


def spellings(secret: str) -> dict[str, str]:
    return {
        "raw": secret,
        "json": json.dumps(secret)[1:-1],
        "json_slash": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "u_escapes": "".join(f"\\u{unit:04x}" for unit in _utf16(secret)),
        "url": quote(secret, safe=""),
        "url_plus": quote_plus(secret),
        "repr": repr(secret)[1:-1],
        "bytes_repr": repr(secret.encode())[2:-1],
        "html": html.escape(secret),
        "pointer": secret.replace("~", "~0").replace("/", "~1"),
        "b64": base64.b64encode(secret.encode()).decode(),
        "b64url": base64.urlsafe_b64encode(secret.encode()).decode().rstrip("="),
        "basic": base64.b64encode(b"user:" + secret.encode()).decode(),  # the token inside a longer value
        "b64_url_encoded": quote(base64.b64encode(secret.encode()).decode(), safe=""),
        "hex": secret.encode().hex(),
    }


def _utf16(text: str) -> list[int]:
    data = text.encode("utf-16-be")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def leaks(text: str, secret: str = TOKEN) -> list[str]:
    found = [name for name, form in spellings(secret).items() if form in text]
    return found + (["mark"] if MARK in text.lower() else [])


def _member(form: str, token: str) -> str:
    """The token as a JSON member name (JSON text, quotes included), spelled ``form``."""
    if form == "u_escapes":
        return '"' + "".join(f"\\u{ord(c):04x}" for c in token) + '"'
    if form == "json_slash":
        return json.dumps(token).replace("/", "\\/")
    if form == "url":
        return json.dumps(quote(token, safe=""))
    if form == "repr":
        return json.dumps(repr(token))
    if form in ("b64", "b64url", "basic", "hex"):
        return json.dumps(spellings(token)[form])
    return json.dumps(token)


class _Echo(BaseHTTPRequestHandler):
    """``/member/<form>``: the token as a member name; ``/value/<form>``: as a string value;
    ``/base``: the server's own base URL as a value; ``/clean``: no secret, an unexpected member."""

    def log_message(self, *args: Any) -> None:
        pass

    #: The tokens ``/query?token=`` received, decoded as a server decodes them.
    received: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        path, _, query = self.path.partition("?")
        _, kind, *rest = path.split("/")
        form = rest[0] if rest else ""
        if kind == "query":  # the token sent in the query, echoed as a member name
            token = parse_qs(query, keep_blank_values=True).get("token", [""])[0]
            self.received.append(token)
            body = '{"id":"x",' + json.dumps(token) + ":1}"
        elif kind == "member":
            body = '{"id":"x",' + _member(form, token) + ":1}"
        elif kind == "value":
            body = '{"id":"x","echo":' + _member(form, token) + "}"
        elif kind == "base":
            body = json.dumps({"id": "x", "echo": f"http://{self.headers['Host']}"})
        else:
            body = '{"id":"x","other":1}'
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def echo() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def project(root: Path, tool: str, paths: list[str], *, closed: bool = True,
            url: str = "${API}/{kind}/{form}") -> Path:
    """A bare-result contract (``closed``: no member beyond ``id``) whose http upstream sends the
    token as a bearer header to each of ``paths``."""
    directory = root / "contracts" / tool
    (directory / "schemas").mkdir(parents=True)
    schema = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string", "maxLength": 10}},
        "additionalProperties": False if closed else {"type": ["string", "integer"], "maxLength": 200},
    }
    (directory / "schemas" / "v1.json").write_text(json.dumps(schema))
    (directory / "contract.yaml").write_text(
        yaml.safe_dump(
            {
                "tool": tool,
                "version": 1,
                "envelope": None,
                "request": {"schema": {"type": "object"}},
                "agent_view": {"id": "/id"},
                "upstreams": {
                    "api": {
                        "http": {"url": url, "headers": {"Authorization": "Bearer ${TOKEN}"}},
                        "requests": [dict(zip(("kind", "form"), p.split("/"), strict=True)) for p in paths],
                    }
                },
            }
        )
    )
    return root


def everything_written(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Every file under ``root`` but the contracts, and the terminal output."""
    captured = capsys.readouterr()
    out = {"stdout": captured.out, "stderr": captured.err}
    for path in root.rglob("*"):
        if path.is_file() and "contracts" not in path.parts:
            out[str(path.relative_to(root))] = path.read_bytes().decode("utf-8", "replace")
    return out


def drift_with_every_output(root: Path, monkeypatch: pytest.MonkeyPatch, echo: str, *extra: str,
                            token: str = TOKEN) -> int:
    monkeypatch.setenv("API", echo)
    monkeypatch.setenv("TOKEN", token)
    monkeypatch.chdir(root)
    return main(
        [
            "drift", "--json", "out/r.json", "--junit", "out/r.xml", "--markdown", "out/r.md",
            "--html", "out/r.html", "--cases-dir", "out/cases", *extra,
        ]
    )


MEMBER_FORMS = ["raw", "json_slash", "u_escapes", "url", "repr", "b64", "b64url", "basic", "hex"]


def test_a_token_the_upstream_uses_as_a_member_name_reaches_no_report_case_file_or_terminal(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "closed", [f"member/{f}" for f in MEMBER_FORMS] + ["clean/-"])
    assert drift_with_every_output(root, monkeypatch, echo, "--record") == 1
    written = everything_written(root, capsys)
    assert {where: leaks(text) for where, text in written.items() if leaks(text)} == {}
    report = json.loads(written["out/r.json"])
    checks = {c["id"]: c for c in report["drift"]["checks"]}
    assert {c["status"] for cid, c in checks.items() if "member" in cid} == {"rejected"}
    raw = checks["closed::drift::api[raw/member]"]
    assert raw["status"] == "rejected" and "('${TOKEN}' was unexpected)" in raw["verdict"]["message"]
    # Rejected payloads holding the token are not written to the cases directory; the others are.
    cases = sorted(p.name for p in (root / "out/cases/closed").glob("*.json") if not p.name.endswith(".request.json"))
    assert len(cases) == 1 and "clean" in cases[0]
    assert "payload not written to the cases directory: it holds the value of ${TOKEN}" in written["stdout"]
    for case in report["cases"]:
        if "clean" not in case["id"]:
            assert "payload not written to the cases directory: it holds the value of ${TOKEN}" in case["detail"]
            assert case["reproduce"] is None


@pytest.mark.parametrize("token", [TOKEN, "a&b=c#d e%41+f/g?h"])
def test_a_token_in_the_url_query_is_sent_exactly_and_its_echo_reaches_no_report(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], token: str
) -> None:
    root = project(tmp_path, "closed", ["query/-"], url="${API}/{kind}?token=${TOKEN}&form={form}")
    _Echo.received.clear()
    assert drift_with_every_output(root, monkeypatch, echo, token=token) == 1
    assert _Echo.received == [token]  # percent-encoded on the way: the server read the value itself
    written = everything_written(root, capsys)
    assert {where: leaks(text, token) for where, text in written.items() if leaks(text, token)} == {}
    (check,) = json.loads(written["out/r.json"])["drift"]["checks"]
    assert check["status"] == "rejected" and "'${TOKEN}' was unexpected" in check["verdict"]["message"]


@pytest.mark.parametrize("form", ["u_escapes", "json_slash"])
def test_record_refuses_a_body_with_the_token_in_any_spelling_and_says_so_in_the_terminal(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    root = project(tmp_path, "open", [f"value/{form}"], closed=False)
    drift_with_every_output(root, monkeypatch, echo, "--record")
    written = everything_written(root, capsys)
    assert not (root / "fixtures").exists()
    assert "was not recorded: the body contains the value of ${TOKEN}" in written["stdout"]
    assert {where: leaks(text) for where, text in written.items() if leaks(text)} == {}


def test_record_refuses_a_body_echoing_a_non_secret_env_value_and_says_so_in_the_terminal(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "open", ["base/-"], closed=False)
    drift_with_every_output(root, monkeypatch, echo, "--record")
    stdout = capsys.readouterr().out
    assert not (root / "fixtures").exists()
    assert "open: a new shape from upstream api (-/base) was not recorded: the body contains the value of ${API}" in stdout
    assert echo not in stdout


def test_plain_drift_offers_record_only_for_a_response_record_would_make_a_baseline_of(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "open", ["value/raw", "clean/-", "member/raw"], closed=False)
    drift_with_every_output(root, monkeypatch, echo)
    checks = {c["id"]: c for c in json.loads((root / "out/r.json").read_text())["drift"]["checks"]}
    capsys.readouterr()
    echoed, clean, rejected = (checks[f"open::drift::api[{label}]"]["notes"] for label in ("raw/value", "-/clean",
                                                                                          "raw/member"))
    assert echoed == ["no baseline yet: fixtures/historical/open/ holds no accepted shape (drift --record will not "
                      "record this response: it holds the value of ${TOKEN})"]
    assert clean == ["no baseline yet: fixtures/historical/open/ holds no accepted shape (run drift --record)"]
    assert "run drift --record" not in " ".join(rejected)


@pytest.mark.parametrize(
    ("token", "problem"),
    [("ghp_line\nbreak-s3cret", "holds a line break or NUL"), ("ghp_nön-ascii-s3cret", "holds non-ASCII characters")],
    ids=["newline", "non_ascii"],
)
def test_a_token_no_header_can_carry_is_one_line_exit_2_never_echoed(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    token: str, problem: str,
) -> None:
    root = project(tmp_path, "closed", ["clean/-"])
    monkeypatch.setenv("API", echo)
    monkeypatch.setenv("TOKEN", token)
    monkeypatch.chdir(root)
    assert main(["drift"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert f"upstream.env_invalid: contracts/closed/contract.yaml:12:9: /upstreams/api/http/headers/Authorization: the value of ${{TOKEN}} {problem}" in captured.err
    assert "s3cret" not in captured.err


def test_a_header_placeholder_no_header_can_carry_fails_that_request_without_a_traceback(
    tmp_path: Path, echo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "closed", ["clean/-"])
    contract = root / "contracts/closed/contract.yaml"
    data = yaml.safe_load(contract.read_text())
    data["upstreams"]["api"]["http"]["headers"]["X-Path"] = "{form}"
    data["upstreams"]["api"]["requests"] = [{"kind": "clean", "form": "-\r\nX-Evil: 1"}]
    contract.write_text(yaml.safe_dump(data))
    assert drift_with_every_output(root, monkeypatch, echo) == 1
    report = json.loads((root / "out/r.json").read_text())
    (check,) = report["drift"]["checks"]
    assert (check["status"], check["reason"]) == ("failed", "error")
    assert "header 'X-Path' holds a character HTTP does not allow" in check["verdict"]["message"]
    assert "Traceback" not in capsys.readouterr().err


# --------------------------------------------------------------------------- check


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_redacts_the_values_of_its_upstreams_env_and_keeps_such_payloads_out_of_the_cases_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    root = project(tmp_path, "closed", ["clean/-"])
    if jobs != "1":  # a second contract, so the workers load and run them (one runs in one job)
        other = root / "contracts/other"
        shutil.copytree(root / "contracts/closed", other)
        (other / "contract.yaml").write_text((other / "contract.yaml").read_text().replace("tool: closed", "tool: other"))
    sample = root / "fixtures/historical/closed/old"
    sample.mkdir(parents=True)
    (sample / "leaky.json").write_text('{"id":"x",' + json.dumps(TOKEN) + ":1}")  # recorded before the fix
    (sample / "leaky.case.yaml").write_text("expect: accept\n")
    monkeypatch.setenv("TOKEN", TOKEN)
    monkeypatch.chdir(root)
    code = main(["check", "--no-progress", "--json", "out/r.json", "--junit", "out/r.xml", "--markdown", "out/r.md",
                 "--html", "out/r.html", "--cases-dir", "out/cases", "--jobs", jobs])
    assert code == 1
    written = everything_written(root, capsys)
    assert {where: leaks(text) for where, text in written.items() if where != "fixtures/historical/closed/old/leaky.json" and leaks(text)} == {}
    assert not list((root / "out/cases").rglob("*leaky*"))
    case = next(c for c in json.loads(written["out/r.json"])["cases"] if c["id"].endswith("leaky"))
    assert "('${TOKEN}' was unexpected)" in case["actual"]["message"]


def test_a_fixture_symlinked_outside_the_project_is_never_copied_into_the_cases_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"id":"x","OUTSIDE_CONTENT_41":1}')
    root = project(tmp_path / "repo", "closed", ["clean/-"])
    folder = root / "fixtures/accepted/closed"
    folder.mkdir(parents=True)
    (folder / "linked.json").symlink_to(outside)
    (folder / "linked.case.yaml").write_text("expect: accept\n")
    monkeypatch.chdir(root)
    code = main(["check", "--no-progress", "--json", "out/r.json", "--cases-dir", "out/cases"])
    assert code in (1, 2)  # a failing case, or (where reads refuse symlinks) a configuration error
    copied = [p for p in (root / "out/cases").rglob("*") if p.is_file() and b"OUTSIDE_CONTENT_41" in p.read_bytes()]
    assert copied == []
    if code == 1:
        (case,) = json.loads((root / "out/r.json").read_text())["cases"]
        assert case["reproduce"] is None and "leads outside the project" in case["detail"]
    capsys.readouterr()


def test_withheld_names_why_a_payload_stays_out_of_the_cases_dir(tmp_path: Path) -> None:
    redactor = Redactor({"TOKEN": TOKEN})
    assert withheld(b'{"a":1}', redactor) is None
    escaped = ('{"a":"' + "".join(f"\\u{ord(c):04x}" for c in TOKEN) + '"}').encode()
    assert withheld(escaped, redactor) == "it holds the value of ${TOKEN}"
    inside = tmp_path / "repo" / "f.json"
    inside.parent.mkdir()
    inside.write_text("{}")
    link = tmp_path / "repo" / "link.json"
    link.symlink_to(tmp_path / "outside.json")
    assert withheld(b"{}", redactor, (inside, tmp_path / "repo")) is None
    assert withheld(b"{}", redactor, (link, tmp_path / "repo")) == f"its fixture {link} leads outside the project"


# --------------------------------------------------------------------------- the redactor


def _redacted(secret: str, form: str, name: str) -> str:
    """What a spelling of ``secret`` becomes: ``${NAME}``; in a longer base64 value, what came
    before it stays, up to and with the character it shares with the secret (at most 4 bits)."""
    before = -(-8 * len(b"user:") // 6) if form == "basic" else 0
    return spellings(secret)[form][:before] + "${" + name + "}"


@pytest.mark.parametrize("form", list(spellings(TOKEN)))
def test_every_spelling_of_a_secret_is_redacted(form: str) -> None:
    text = f"before {spellings(TOKEN)[form]} after"
    assert Redactor({"TOKEN": TOKEN}).text(text) == f"before {_redacted(TOKEN, form, 'TOKEN')} after"


@pytest.mark.parametrize("secret", ["tök€n-😀-value", "line\nbreak\tand\\slash/"])
def test_non_ascii_and_control_characters_are_redacted_in_every_spelling(secret: str) -> None:
    redactor = Redactor({"S": secret})
    for form, text in spellings(secret).items():
        assert redactor.text(f"<{text}>") == f"<{_redacted(secret, form, 'S')}>", form
        assert redactor.found_in(f"<{text}>".encode()) == ["S"], form


def test_short_values_are_not_secrets_and_the_longest_secret_wins() -> None:
    redactor = Redactor({"FLAG": "on", "PREFIX": "abcd", "TOKEN": "abcd1234"})
    assert redactor.text("flag on, token abcd1234, prefix abcd") == "flag on, token ${TOKEN}, prefix ${PREFIX}"
    assert redactor.found_in(b"abcd1234") == ["PREFIX", "TOKEN"]


def test_records_are_redacted_everywhere_but_in_the_harness_s_own_vocabulary() -> None:
    from harness.drift.check import DriftCheck
    from harness.drift.diff import Change

    check = DriftCheck(
        id="t::drift::api[x]", tool="t", upstream="api", kind="http", subject="response", target="GET /x",
        status="drifted", version=1, contract_dir="c", changes=(Change("field_added", "/" + TOKEN, "absent", "integer"),),
        notes=(f"saw {TOKEN}",), info={TOKEN: TOKEN}, stderr=repr(TOKEN.encode()),
    )
    redacted = Redactor({"TOKEN": TOKEN, "PROFILE": "drifted"}).value(check)
    assert redacted.status == "drifted"  # an env value equal to a status never rewrites it
    assert redacted.changes[0].path == "/${TOKEN}" and redacted.notes == ("saw ${TOKEN}",)
    assert redacted.info == {"${TOKEN}": "${TOKEN}"} and redacted.stderr == "b'${TOKEN}'"

