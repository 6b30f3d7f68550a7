"""End-to-end tests of ``lexcodecs compare``, ``inspect`` and ``conformance``, and of how every
command refuses bad input: each runs the command's ``main()`` in a temporary directory, with
standard output and error captured (not a terminal), as a script or a CI job sees them; the
README's main job and the progress bar's terminal test run the real ``python -m lexcodecs``
in a subprocess.

tests/test_cli.py covers ``list``, ``encode``, ``decode`` and VALUES through ``main()``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lexcodecs import KeySchema, LexCodecError, SchemaError, available_codecs, get_codec
from lexcodecs.cli import main
from lexcodecs.compare import DEFAULT_SCHEMA, compare
from lexcodecs.registry import BUILTIN_CODECS

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
ERROR = "lexcodecs: error: "
SCHEMA = "name:string, n:int64"


def lexcodecs(cwd: Path, *argv: str, stdin: str | None = None
              ) -> subprocess.CompletedProcess[str]:
    """The command's ``main()`` in this process, in *cwd*, with *stdin* as standard input and
    standard output and error captured (neither a terminal, as in a script). A subprocess per
    call cost 0.35 s of interpreter start and imports, about 30 s of the suite;
    :func:`real_process` runs the real ``python -m lexcodecs`` where that is the point."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_cwd = sys.stdin, os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        os.chdir(saved_cwd)
        sys.stdin = saved_stdin
    return subprocess.CompletedProcess(["lexcodecs", *argv], code, out.getvalue(),
                                       err.getvalue())


def real_process(cwd: Path, *argv: str, stdin: str | None = None
                 ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lexcodecs", *argv], cwd=cwd, env=ENV,
                          input=stdin, capture_output=True, text=True, check=False)


def ok(cwd: Path, *argv: str, stdin: str | None = None) -> str:
    """Run a command that must succeed: exit 0, nothing on stderr (no progress bar)."""
    done = lexcodecs(cwd, *argv, stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def refused(cwd: Path, *argv: str, stdin: str | None = None) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one error line on stderr."""
    done = lexcodecs(cwd, *argv, stdin=stdin)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.startswith(ERROR), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr.rstrip("\n")


def expressible(name: str, schema: str) -> bool:
    try:
        get_codec(name).bind(schema)
    except LexCodecError:
        return False
    return True


def table_rows(text: str) -> dict[str, list[str]]:
    """The rows of a comparison table by codec: the lines between the header rule (rich draws
    it with box characters) and the first blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("---", "─"))) + 1
    rows = {}
    for line in lines[start:]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = cells[1:]
    return rows


# -- compare ---------------------------------------------------------------------------------


def test_compare_without_arguments(tmp_path: Path) -> None:
    """The README's main job: every codec on the default schema, 1000 records, SQLite, run
    as the real command (``python -m lexcodecs``, standard error a pipe)."""
    done = real_process(tmp_path, "compare")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    out = done.stdout
    lines = out.splitlines()
    assert lines[0] == (f"schema: {KeySchema.parse(DEFAULT_SCHEMA)}    records: 1000    "
                        "store: sqlite")
    rows = table_rows(out)
    assert list(rows) == list(available_codecs())
    cannot = {n for n in available_codecs() if not expressible(n, DEFAULT_SCHEMA)}
    assert cannot, "every codec expresses the default schema: this test needs one that doesn't"
    for name, cells in rows.items():  # ok: no, or yes / DIFF (pairs out of order)
        assert (cells[0] == "no") == (name in cannot), (name, cells)
        assert cells[0] in ("no", "yes", "DIFF"), (name, cells)
    said = {line.split(":", 1)[0] for line in lines if ": cannot express the schema: " in line}
    assert said == cannot
    for name in cannot:
        line = next(line for line in lines if line.startswith(f"{name}: cannot express"))
        assert len(line) > len(f"{name}: cannot express the schema: "), "no reason given"


def test_compare_json_has_one_result_per_codec(tmp_path: Path) -> None:
    data = json.loads(ok(tmp_path, "compare", "--json", "-n", "60"))
    assert (data["schema"], data["records"], data["store"]) == (
        str(KeySchema.parse(DEFAULT_SCHEMA)), 60, "sqlite")
    assert [r["codec"] for r in data["results"]] == list(available_codecs())
    for r in data["results"]:
        assert r["expressible"] == expressible(r["codec"], DEFAULT_SCHEMA)
        assert r["store"] == "sqlite"
        if r["expressible"]:
            assert r["records"] + r["refused"] == 60
            assert r["order_unexplained"] == 0, r["order_example"]
        else:
            assert r["reason"]


def test_compare_schema_n_and_codecs(tmp_path: Path) -> None:
    out = ok(tmp_path, "compare", "-s", SCHEMA, "-n", "150", "-c", "skv", "-c", "sqlite4")
    assert out.splitlines()[0] == f"schema: {SCHEMA}    records: 150    store: sqlite"
    assert list(table_rows(out)) == ["skv", "sqlite4"]
    for other in set(available_codecs()) - {"skv", "sqlite4"}:
        assert other not in out.replace("sqlite4", "")
    data = json.loads(ok(tmp_path, "compare", "-s", SCHEMA, "-n", "150", "-c", "skv",
                         "-c", "sqlite4", "--json", "--seed", "3"))
    # the same records as the library makes for that seed
    expected = compare(SCHEMA, n=150, seed=3, codecs=["skv", "sqlite4"], store="sqlite")
    assert [(r["codec"], r["records"], r["refused"], r["order_pairs_wrong"])
            for r in data["results"]] == [
        (r.codec, r.records, r.refused, r.order_pairs_wrong) for r in expected.results]
    assert data["results"][1]["refused"] > 0  # sqlite4 refuses U+0000 in text


RECORDS = "\n".join([
    '["a", {"bytes": "00ff"}, {"float": "nan"}, 1]',
    '["", {"bytes": ""}, {"float": "-0.0"}, null]',
    "",
    '[null, null, 2, -9223372036854775808]',
    '["b", {"bytes": "61"}, 1.5, 9223372036854775807]',
]) + "\n"
RECORDS_SCHEMA = "name:string, blob:bytes, score:float64, n:int64"


def test_compare_records_file(tmp_path: Path) -> None:
    (tmp_path / "records.jsonl").write_text(RECORDS, encoding="utf-8")
    data = json.loads(ok(tmp_path, "compare", "-s", RECORDS_SCHEMA, "--records",
                         "records.jsonl", "-c", "skv", "-c", "fdb-tuple", "--json"))
    assert data["records"] == 4
    skv, fdb = data["results"]
    # the NaN reached the codecs as a float: skv refuses it, fdb-tuple orders it
    assert (skv["records"], skv["refused"]) == (3, 1)
    assert skv["refused_example"].startswith("('a', b'\\x00\\xff', nan, 1): skv: ")
    assert (fdb["records"], fdb["refused"]) == (4, 0)
    for r in (skv, fdb):
        assert (r["order_pairs_wrong"], r["collisions"], r["round_trip_failures"]) == (0, 0, 0)
    # -n is ignored with --records; standard input works too
    out = ok(tmp_path, "compare", "-s", RECORDS_SCHEMA, "--records", "-", "-n", "7",
             "-c", "fdb-tuple", stdin=RECORDS)
    assert out.splitlines()[0] == f"schema: {RECORDS_SCHEMA}    records: 4    store: sqlite"
    assert table_rows(out)["fdb-tuple"][:2] == ["yes", "0"]


@pytest.mark.parametrize("store", ["memory", "lmdb"])
def test_compare_stores(tmp_path: Path, store: str) -> None:
    data = json.loads(ok(tmp_path, "compare", "-n", "200", "--json", "--store", store))
    assert data["store"] == store
    assert {r["store"] for r in data["results"]} == {store}
    # the same order as SQLite's, for every codec
    baseline = compare(n=200, store="sqlite")
    fields = ("codec", "expressible", "records", "refused", "order_pairs_wrong",
              "order_explained", "order_unexplained", "order_example", "collisions")
    assert [[r[f] for f in fields] for r in data["results"]] == [
        [getattr(r, f) for f in fields] for r in baseline.results]


def _run_on_a_tty(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run with standard error a terminal; the exit status, stdout and what the terminal got."""
    main, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "lexcodecs", *argv], cwd=cwd, env=ENV,
                                stdout=subprocess.PIPE, stderr=secondary)
    finally:
        os.close(secondary)
    seen = b""
    while True:  # until the child closes the terminal: no clock, a busy machine only waits
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(), out, seen.decode(errors="replace")


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    argv = ("compare", "-n", "20", "-s", SCHEMA, "-c", "skv", "-c", "fdb-tuple")
    code, out, terminal = _run_on_a_tty(tmp_path, *argv)
    assert code == 0
    # rich's bar: the label, done/total, percent, and an ETA column
    assert "comparing" in terminal
    assert "2/2" in terminal
    assert "100%" in terminal
    assert "eta" in terminal
    assert list(table_rows(out)) == ["skv", "fdb-tuple"]
    code, out, terminal = _run_on_a_tty(tmp_path, *argv, "--no-progress")
    assert (code, terminal) == (0, "")
    # a pipe is not a terminal: no bar, without being told (ok() checks stderr is empty)
    assert list(table_rows(ok(tmp_path, *argv))) == ["skv", "fdb-tuple"]


# -- inspect ---------------------------------------------------------------------------------

#: schemas to inspect with, most fields first; each codec uses the first it can express
INSPECT_SCHEMAS = ("a:string, b:int64, c:bytes", "a:string, b:int64", "a:bytes, b:int64",
                   "a:string", "a:int64")
SAMPLE = {"string": "ab", "int64": -5, "bytes": b"\x00x"}


def _inspect_case(name: str) -> tuple[str, bytes, KeySchema]:
    codec = get_codec(name)
    for text in INSPECT_SCHEMAS:
        if expressible(name, text):
            schema = KeySchema.parse(text)
            values = [SAMPLE[f.type] for f in schema.fields]
            key = codec.encode(values, schema)
            if len(values) == 3:  # a NULL between two values, where the field has one
                with contextlib.suppress(LexCodecError):  # (none: HBase's fixed int64)
                    key = codec.encode([values[0], None, values[2]], schema)
                    values[1] = None
            try:
                codec.decode(key, schema)
            except LexCodecError:  # LexKey: one variable-length field at most
                continue
            return text, key, schema
    pytest.skip(f"{name} expresses none of {INSPECT_SCHEMAS}")


def _check_rendering(out: str, key: bytes, names: list[str | None]) -> None:
    lines = out.splitlines()
    assert key.hex(" ") in lines[0], "the key's bytes are not shown"
    # a field's row in the table: its span, no hex, "field N 'name'", its value
    field_lines = [line for line in lines if re.match(r"\[\d+:\d+\]\s+field \d", line)]
    assert len(field_lines) == len(names), out
    for i, (line, name) in enumerate(zip(field_lines, names)):
        head = f"field {i}" + (f" {name!r}" if name else "")
        assert re.split(r"\s{2,}", line)[1] == head, (line, head)


@pytest.mark.parametrize("name", sorted(BUILTIN_CODECS))
def test_inspect_every_codec(tmp_path: Path, name: str) -> None:
    text, key, schema = _inspect_case(name)
    names: list[str | None] = [f.name for f in schema.fields]
    out = ok(tmp_path, "inspect", "-c", name, "-s", text, key.hex())
    assert out.splitlines()[0].startswith(name)
    _check_rendering(out, key, names)
    data = json.loads(ok(tmp_path, "inspect", "-c", name, "-s", text, "0x" + key.hex(":"),
                         "--json"))
    assert next(iter(data.items())) == ("format_version", 1)
    assert (data["codec"], data["key"]) == (name, key.hex())
    assert [f["index"] for f in data["fields"]] == list(range(len(schema)))
    assert [f["name"] for f in data["fields"]] == names
    for f in data["fields"]:
        assert 0 <= f["start"] <= f["end"] <= len(key)
        for part in f["parts"]:
            assert 0 <= part["start"] <= part["end"] <= len(key)


@pytest.mark.parametrize("name", [n for n in sorted(BUILTIN_CODECS)
                                  if get_codec(n).capabilities.decoding == "self-describing"])
def test_inspect_without_a_schema(tmp_path: Path, name: str) -> None:
    _, key, schema = _inspect_case(name)
    out = ok(tmp_path, "inspect", "-c", name, key.hex(" "))
    _check_rendering(out, key, [None] * len(schema))
    data = json.loads(ok(tmp_path, "inspect", "--json", "-c", name, key.hex()))
    assert data["schema"] is None
    assert len(data["fields"]) == len(schema)


# -- conformance -----------------------------------------------------------------------------


def test_conformance(tmp_path: Path) -> None:
    # the CLI's wiring and rendering, on the two codecs with the fewest cells (each codec's
    # properties run at full strength in its own conformance tests). ordered-binary's reader
    # is lossy in declared ways: every loss must be explained by an anomaly, not a FAIL
    out = ok(tmp_path, "conformance", "-c", "ordered-binary", "--examples", "2")
    lines = out.splitlines()
    assert lines[0].startswith("properties: ")
    assert "ordered-binary" in lines
    assert lines[-1] == "every codec keeps every claim it makes"
    assert "FAIL" not in "\n".join(lines[2:])  # lines[1] is the legend
    data = json.loads(ok(tmp_path, "conformance", "-c", "orderedcode", "--examples", "2",
                         "--json"))
    assert next(iter(data.items())) == ("format_version", 1)
    assert data["ok"] is True
    assert list(data["cells"]) == ["orderedcode"]
    assert data["errors"] == {}
    cells = [v for by_schema in data["cells"]["orderedcode"].values() for v in by_schema.values()]
    assert cells
    assert "ok" in cells
    assert all(v == "ok" or v.startswith("skip") for v in cells)
    assert not list(tmp_path.iterdir()), "conformance left files (.hypothesis?) behind"


def test_conformance_unknown_codec(tmp_path: Path) -> None:
    err = refused(tmp_path, "conformance", "-c", "skv", "-c", "skw")
    assert err.startswith(ERROR + "unknown codec 'skw'; did you mean 'skv'?")


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "wrong", "meant"), [
    (("compare", "-c", "skv", "-c", "sqlit4", "-n", "5"), "sqlit4", "sqlite4"),
    (("inspect", "-c", "fdb-tupel", "00"), "fdb-tupel", "fdb-tuple"),
    (("decode", "-c", "orderli", "-s", "a:string", "00"), "orderli", "orderly"),
])
def test_unknown_codec(tmp_path: Path, argv: tuple[str, ...], wrong: str, meant: str) -> None:
    err = refused(tmp_path, *argv)
    # the closest name first (``orderli``: 'orderly', then 'orderedcode')
    assert err.startswith(f"{ERROR}unknown codec {wrong!r}; did you mean {meant!r}")


@pytest.mark.parametrize("argv", [
    ("compare", "-s", "{schema}", "-n", "5"),
    ("inspect", "-c", "skv", "-s", "{schema}", "00"),
    ("migrate", "--from", "skv", "--to", "sqlite4", "-s", "{schema}", "--input", "keys.txt"),
])
@pytest.mark.parametrize("schema", ["a:strng", "a:string,", "a:string desc desc"])
def test_bad_schema_text(tmp_path: Path, argv: tuple[str, ...], schema: str) -> None:
    with pytest.raises(SchemaError) as info:
        KeySchema.parse(schema)
    first, *rest = str(info.value).splitlines()
    (tmp_path / "keys.txt").write_text("00\n", encoding="utf-8")
    done = lexcodecs(tmp_path, *(a.format(schema=schema) for a in argv))
    assert (done.returncode, done.stdout) == (2, "")
    # one error line, then the schema error's own lines (the text and a caret)
    assert done.stderr.splitlines() == [ERROR + first, *rest]
    assert "^" in done.stderr


@pytest.mark.parametrize(("command", "text", "message"), [
    ("inspect", "0261620", "hex: odd number of hex digits (7)"),
    ("inspect", "02zz", "hex: 'z' at character 3 is not a hex digit"),
    ("decode", "0x02 6", "hex: odd number of hex digits (3)"),
    ("decode", "02-61", "hex: '-' at character 3 is not a hex digit"),
])
def test_bad_hex(tmp_path: Path, command: str, text: str, message: str) -> None:
    err = refused(tmp_path, command, "-c", "skv", "-s", SCHEMA, text)
    assert err.startswith(ERROR + message)


@pytest.mark.parametrize(("command", "name"), [
    ("decode", "skv"), ("inspect", "skv"), ("decode", "orderly"), ("inspect", "orderly"),
    ("decode", "sqlite4"), ("inspect", "sqlite4"),
])
def test_key_of_another_format(tmp_path: Path, command: str, name: str) -> None:
    fdb_key = get_codec("fdb-tuple").encode(("ab", -5), SCHEMA)
    with pytest.raises(LexCodecError):  # the library refuses it too
        get_codec(name).decode(fdb_key, SCHEMA)
    err = refused(tmp_path, command, "-c", name, "-s", SCHEMA, fdb_key.hex())
    assert err.startswith(f"{ERROR}{name}: ")


@pytest.mark.parametrize(("lines", "where", "why"), [
    (['["a", 1]', '["b"]'], 2, "expected a JSON array of 2 values"),
    (['["a", 1]', "", '{"name": "c", "n": 3}'], 3, "expected a JSON array of 2 values"),
    (['"a"'], 1, "expected a JSON array of 2 values"),
    (['["a", 1, 2]'], 1, "expected a JSON array of 2 values"),
    (['["a", {"bytes": "zz"}]'], 1, ""),
    (["not json"], 1, ""),
])
def test_bad_records_file(tmp_path: Path, lines: list[str], where: int, why: str) -> None:
    (tmp_path / "records.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = refused(tmp_path, "compare", "-s", SCHEMA, "--records", "records.jsonl")
    assert err.startswith(f"{ERROR}records line {where}: {why}")


def test_missing_records_file(tmp_path: Path) -> None:
    err = refused(tmp_path, "compare", "--records", "nowhere.jsonl")
    assert err == f"{ERROR}--records nowhere.jsonl: No such file or directory"


def test_unknown_store(tmp_path: Path) -> None:
    done = lexcodecs(tmp_path, "compare", "--store", "nope")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: lexcodecs compare")
    assert done.stderr.splitlines()[-1] == (
        "lexcodecs compare: error: argument --store: invalid choice: 'nope' "
        "(choose from 'sqlite', 'lmdb', 'rocksdb', 'memory')")


@pytest.mark.parametrize("extra", [(), ("--input", "a.txt", "--sqlite", "b.db")])
def test_migrate_needs_exactly_one_location(tmp_path: Path, extra: tuple[str, ...]) -> None:
    err = refused(tmp_path, "migrate", "--from", "skv", "--to", "sqlite4", "-s", SCHEMA, *extra)
    assert err == (f"{ERROR}say where the keys are: --input FILE (hex lines), --sqlite DB, "
                   "--lmdb PATH or --rocksdb PATH (exactly one)")


def test_errors_never_leave_output_files(tmp_path: Path) -> None:
    refused(tmp_path, "compare", "-c", "nope")
    refused(tmp_path, "inspect", "-c", "skv", "zz")
    assert not list(tmp_path.iterdir())
