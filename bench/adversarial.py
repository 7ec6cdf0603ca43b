"""Adversarial loops: malformed contract files through the CLI and pytest, random bytes through
the boundary. Counts what must be zero: tracebacks, hangs, multi-line errors, internal errors.

    python bench/adversarial.py [--rounds N] [--seed S] [--pytest-every K] [--fuzz-every K]
                                [--payloads N] [--check]

Contract files: a project made by ``contract-harness init`` (one tool, one accepted and one
rejected fixture) is copied for each round and damaged in one way, picked at random: a value
of ``contract.yaml``, a schema or a sidecar replaced by a hostile one (huge and fractional
numbers, ``P99999999999999D``, pointers with ``²``, catastrophic patterns, ``$ref`` cycles,
YAML tags, aliases and complex keys), bytes flipped, keys misspelt, or a file turned into a
directory, a FIFO, a symlink out of the project, a file with a non-UTF-8 name. Then ``check``,
``lint`` and ``verify`` run in-process (and every K rounds ``fuzz`` and ``pytest``). A run must
exit 0, 1 or 2; exit 2 must print exactly one line; nothing may raise out of the CLI, report an
internal error, or run past its time limit.

Payloads: random bytes, damaged accepted fixtures and hostile JSON documents through every
demo contract's ``Boundary.check`` (and byte streams that fail while being read). Any
exception is counted.

``--check`` exits 1 when a count that must be zero is not. Results go to bench/results/.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# This folder holds harness.py, which must not shadow the package: import the package first.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in (_HERE, "")]
import harness  # noqa: E402, F401

sys.path.append(_HERE)
from _util import save, table  # noqa: E402

TOOL = "ticket_status"
RUN_LIMIT_S = 60

# --------------------------------------------------------------------------- hostile values

HOSTILE_VALUES: list[Any] = [
    10**30, -1, 0, 1e30, 2.5, float("inf"), "", "²", "P99999999999999D", "PT1e5S", "/data/x²",
    "/²/0", "/data/0²", "~", "x" * 3000, None, True, [], {}, [[[[[]]]]], {"": {"": {}}},
    "0001-01-01T00:00:60+01:00", "9999-12-31T23:59:60Z", "^(a+)+$", "((", "\\d+", "#/nope",
    "http://127.0.0.1:9/schema.json", "`rm -rf`|x\n", "\ud800", "../../../../etc/passwd",
]
SCHEMA_SNIPPETS: list[Any] = [
    {"maxLength": 1e30}, {"maxLength": 10**30}, {"minLength": -1}, {"pattern": "(("},
    {"pattern": "^(a|aa)+$"}, {"$ref": "#/nope"}, {"$ref": "#"}, {"$ref": "http://127.0.0.1:9/x.json"},
    {"type": "strin"}, {"format": "date-time"}, {"enum": []}, {"allOf": [{"$ref": "#/$defs/loop"}]},
    {"$dynamicRef": "#x"}, {"items": [True, False]}, {"const": 10**30}, {"multipleOf": 0},
    {"properties": {"²": {"type": "string"}}, "additionalProperties": False},
]
YAML_SNIPPETS = [
    "!!binary aGVsbG8=", "!!set {a: null}", "!!timestamp 2001-12-14", "&a [*a]", "!custom x",
    "{? [a, b]: 1}", "!!python/object:os.system x", "*undefined", ".nan", ".inf", "0x10", "0o17",
    "[" * 200, "'unterminated", "|\n  block", "{a: 1, a: 2}", "1e400", "-.inf",
]
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _replace(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = document
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return document


# --------------------------------------------------------------------------- damages


def damage_yaml_value(rng: random.Random, file: Path) -> str:
    import yaml

    data = yaml.safe_load(file.read_text())
    path = rng.choice(list(_paths(data))[1:])
    if rng.random() < 0.5:
        value = copy.deepcopy(rng.choice(HOSTILE_VALUES))
        _replace(data, path, value)
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        file.write_text(text, encoding="utf-8", errors="surrogatepass")
        return f"{file.name}: {'/'.join(map(str, path))} = {str(value)[:40]!r}"
    _replace(data, path, "HOSTILE_MARKER")
    snippet = rng.choice(YAML_SNIPPETS)
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10**6)
    file.write_text(text.replace("HOSTILE_MARKER", snippet, 1), encoding="utf-8")
    return f"{file.name}: {'/'.join(map(str, path))} = {snippet!r}"


def damage_yaml_key(rng: random.Random, file: Path) -> str:
    lines = file.read_text().splitlines()
    keyed = [i for i, line in enumerate(lines) if ":" in line and not line.lstrip().startswith("#")]
    index = rng.choice(keyed)
    key = lines[index].split(":", 1)[0]
    stripped = key.strip().lstrip("- ")
    if len(stripped) > 2:
        i = rng.randrange(len(stripped) - 1)
        typo = stripped[:i] + stripped[i + 1] + stripped[i] + stripped[i + 2:]
        lines[index] = lines[index].replace(stripped, typo, 1)
    file.write_text("\n".join(lines) + "\n")
    return f"{file.name}: key {stripped!r} misspelt"


def damage_schema(rng: random.Random, file: Path) -> str:
    data = json.loads(file.read_text())
    objects = [p for p in _paths(data) if isinstance(_at(data, p), dict)]
    path = rng.choice(objects)
    snippet = json.loads(json.dumps(rng.choice(SCHEMA_SNIPPETS)))
    if "allOf" in snippet:
        data.setdefault("$defs", {})["loop"] = {"$ref": "#/$defs/loop2"}
        data["$defs"]["loop2"] = {"anyOf": [{"$ref": "#/$defs/loop"}]}
    if rng.random() < 0.3:
        _replace(data, path, copy.deepcopy(rng.choice(HOSTILE_VALUES)))
    else:
        _at(data, path).update(snippet)
    file.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8", errors="surrogatepass")
    return f"{file.name}: {'/'.join(map(str, path))} <- {json.dumps(snippet, default=str)[:60]}"


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


def damage_bytes(rng: random.Random, file: Path) -> str:
    data = bytearray(file.read_bytes())
    for _ in range(rng.randint(1, 4)):
        where = rng.randrange(max(len(data), 1))
        action = rng.choice(("flip", "insert", "delete"))
        if action == "flip" and data:
            data[where] = rng.randrange(256)
        elif action == "insert":
            data[where:where] = bytes([rng.randrange(256)])
        elif data:
            del data[where]
    file.write_bytes(bytes(data))
    return f"{file.name}: bytes damaged"


def damage_file(rng: random.Random, root: Path, files: list[Path]) -> str:
    target = rng.choice(files)
    kind = rng.choice(("directory", "fifo", "symlink_out", "empty", "non_utf8_name", "bomb", "dir_json"))
    if kind == "directory":
        target.unlink()
        target.mkdir()
    elif kind == "fifo":
        target.unlink()
        os.mkfifo(target)
    elif kind == "symlink_out":
        target.unlink()
        target.symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else "/etc/passwd")
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "non_utf8_name":
        folder = root / "fixtures" / "accepted" / TOOL
        shutil.copy(folder / "ok.json", os.path.join(os.fsencode(folder), b"bad-\xff-name.json"))
        return "fixture with a non-UTF-8 name"
    elif kind == "bomb" and target.suffix == ".yaml":
        target.write_text(target.read_text() + "x-bomb:\n" + "".join("  " + line + "\n" for line in BOMB.splitlines()))
    elif kind == "dir_json":
        (root / "fixtures" / "accepted" / TOOL / "x.json").mkdir()
        return "a directory named x.json among the fixtures"
    return f"{target.name}: made {kind}"


# --------------------------------------------------------------------------- running


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _limit(seconds: int) -> Iterator[None]:
    def alarm(*_: object) -> None:
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv: list[str], cwd: Path) -> tuple[str, str]:
    """One in-process CLI run: (outcome, detail). Outcomes: ok, traceback, hang, bad_exit,
    multiline_error, internal."""
    from harness.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with _limit(RUN_LIMIT_S), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except _Hang:
        return "hang", " ".join(argv)
    except BaseException:  # the point is to count them
        return "traceback", traceback.format_exc(limit=-3)
    finally:
        os.chdir(here)
    stderr = err.getvalue()
    if code not in (0, 1, 2):
        return "bad_exit", f"exit {code}: {stderr[-300:]}"
    if "harness.internal" in stderr:
        return "internal", stderr.strip()
    if code == 2 and (stderr.count("\n") != 1 or not stderr.startswith("contract-harness: error: ")):
        return "multiline_error", stderr[-600:]
    return f"exit_{code}", stderr.strip()[:200]


def run_pytest(root: Path) -> tuple[str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-fuzz", "--max-mutants", "4",
         "-x", "contracts"],
        cwd=root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    text = proc.stdout + proc.stderr
    if "Traceback (most recent call last)" in text or "harness/" in text.replace("harness/demo", ""):
        return "traceback", text[-1500:]
    if proc.returncode not in (0, 1, 2):
        return "bad_exit", f"exit {proc.returncode}: {text[-600:]}"
    return f"exit_{proc.returncode}", ""


def make_base(directory: Path) -> Path:
    from harness.cli import main

    base = directory / "base"
    base.mkdir()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.chdir(base):
        assert main(["init", TOOL]) == 0
    return base


def contract_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and ".contract-harness" not in p.parts)


def contract_rounds(rounds: int, seed: int, pytest_every: int, fuzz_every: int,
                    log: Callable[[str], None]) -> dict[str, Any]:
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    problems: list[dict[str, str]] = []
    errors: Counter[str] = Counter()  # exit 2, by error code
    runs = 0
    with tempfile.TemporaryDirectory(prefix="adversarial-") as tmp:
        base = make_base(Path(tmp))
        for index in range(rounds):
            root = Path(tmp) / f"r{index}"
            shutil.copytree(base, root, symlinks=True)
            contract = root / "contracts" / TOOL / "contract.yaml"
            schema = root / "contracts" / TOOL / "schemas" / "v1.json"
            sidecar = root / "fixtures" / "rejected" / TOOL / "extra_member.case.yaml"
            choice = rng.randrange(6)
            if choice < 2:
                what = damage_yaml_value(rng, contract if choice == 0 else sidecar)
            elif choice == 2:
                what = damage_yaml_key(rng, contract)
            elif choice == 3:
                what = damage_schema(rng, schema)
            elif choice == 4:
                what = damage_bytes(rng, rng.choice([contract, schema, sidecar]))
            else:
                what = damage_file(rng, root, contract_files(root))
            commands = [
                ["check", "--no-progress", "--max-mutants", "6", "--json", "report.json", "--markdown", "report.md"],
                ["lint"],
                ["verify", f"contracts/{TOOL}", f"fixtures/accepted/{TOOL}/ok.json"],
            ]
            if fuzz_every and index % fuzz_every == 0:
                commands.append(["fuzz", "--no-progress", "--examples", "3", "--property", "rejects_near_misses"])
            for argv in commands:
                outcome, detail = run_cli(argv, root)
                runs += 1
                counts[outcome] += 1
                if not outcome.startswith("exit_"):
                    problems.append({"damage": what, "command": " ".join(argv), "outcome": outcome, "detail": detail})
                elif outcome == "exit_2":
                    errors[detail.split(": ")[2] if detail.count(": ") >= 2 else detail] += 1
            if pytest_every and index % pytest_every == 0:
                outcome, detail = run_pytest(root)
                runs += 1
                counts[f"pytest_{outcome}"] += 1
                if not outcome.startswith("exit_"):
                    problems.append({"damage": what, "command": "pytest", "outcome": outcome, "detail": detail})
            shutil.rmtree(root, ignore_errors=True)
            if (index + 1) % 25 == 0:
                log(f"  {index + 1}/{rounds} rounds, {runs} runs, problems: {len(problems)}")
    return {"rounds": rounds, "runs": runs, "counts": dict(counts), "error_codes": dict(errors),
            "problems": problems}


# --------------------------------------------------------------------------- payloads


class _Failing:
    """A byte source that fails part-way, as a broken ``response.iter_bytes()`` does."""

    def __init__(self, data: bytes, error: BaseException) -> None:
        self.data, self.error = data, error

    def __iter__(self) -> Iterator[bytes]:
        yield self.data[: len(self.data) // 2]
        raise self.error


def _hostile_document(rng: random.Random, document: Any) -> bytes:
    paths = list(_paths(document))
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        try:
            _replace(document, path, copy.deepcopy(rng.choice([*HOSTILE_VALUES, {"a": 1}, "2026-01-01T00:00:00Z"])))
        except (KeyError, IndexError, TypeError):
            continue
        paths = list(_paths(document))
    return json.dumps(document, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def payload_rounds(count: int, seed: int) -> dict[str, Any]:
    from harness import Boundary, load_contract
    from harness.contract import demo_root
    from harness.corpus import fixtures_for

    rng = random.Random(seed)
    contracts = [load_contract(d) for d in sorted((demo_root() / "contracts").iterdir()) if d.is_dir()]
    seeds = {c.tool: [f.read() for f in fixtures_for(c, ("accepted",))] for c in contracts}
    errors = [OSError("reset"), ValueError("bad chunk"), RuntimeError("decoder"), TimeoutError(), KeyError("x")]
    counts: Counter[str] = Counter()
    problems: list[str] = []
    for index in range(count):
        contract = contracts[index % len(contracts)]
        boundary = Boundary(contract)
        kind = rng.choice(("random", "damaged", "hostile", "stream"))
        source: Any
        if kind == "random":
            source = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        elif kind == "damaged":
            data = bytearray(rng.choice(seeds[contract.tool]))
            for _ in range(rng.randint(1, 5)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            source = bytes(data)
        elif kind == "hostile":
            source = _hostile_document(rng, json.loads(rng.choice(seeds[contract.tool])))
        else:
            source = _Failing(rng.choice(seeds[contract.tool]), rng.choice(errors))
        try:
            verdict = boundary.check(source, now="2026-11-01T12:00:00Z")
            counts["accepted" if verdict.accepted else "rejected"] += 1
        except Exception as exc:  # the point is to count them
            counts["exception"] += 1
            if len(problems) < 20:
                problems.append(f"{contract.tool} {kind}: {type(exc).__name__}: {exc}")
    return {"payloads": count, "counts": dict(counts), "problems": problems}


# --------------------------------------------------------------------------- main


MUST_BE_ZERO = ("traceback", "hang", "bad_exit", "multiline_error", "internal",
                "pytest_traceback", "pytest_bad_exit")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300, help="damaged projects (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--pytest-every", type=int, default=10, metavar="K",
                        help="also run pytest on every K-th damaged project (0: never; default 10)")
    parser.add_argument("--fuzz-every", type=int, default=10, metavar="K",
                        help="also run fuzz on every K-th damaged project (0: never; default 10)")
    parser.add_argument("--payloads", type=int, default=50_000, help="payloads through the boundary (default 50,000)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a count that must be zero is not")
    args = parser.parse_args(argv)
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="adversarial-hypothesis-"))

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    files = contract_rounds(args.rounds, args.seed, args.pytest_every, args.fuzz_every, log) if args.rounds else None
    payloads = payload_rounds(args.payloads, args.seed) if args.payloads else None
    rows = []
    if files:
        rows += [[f"contract files: {name}", f"{count:,}"] for name, count in sorted(files["counts"].items())]
    if payloads:
        rows += [[f"payloads: {name}", f"{count:,}"] for name, count in sorted(payloads["counts"].items())]
    print(table(rows, ["what", "count"]))
    if files and files["error_codes"]:
        print("\nexit 2 by error code: " + ", ".join(f"{code} {n}" for code, n in
                                                   sorted(files["error_codes"].items(), key=lambda i: -i[1])))
    for problem in (files or {}).get("problems", [])[:15]:
        print(f"\n{problem['outcome']}: {problem['command']} after {problem['damage']}\n  {problem['detail'][-800:]}")
    for problem in (payloads or {}).get("problems", []):
        print(f"\nboundary exception: {problem}")
    print(f"\n{time.perf_counter() - started:.0f}s")
    save("adversarial", {"seed": args.seed, "files": files, "payloads": payloads})
    bad = sum((files or {}).get("counts", {}).get(name, 0) for name in MUST_BE_ZERO)
    bad += (payloads or {}).get("counts", {}).get("exception", 0)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
