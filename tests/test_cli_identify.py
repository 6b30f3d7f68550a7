"""``lexcodecs identify`` (issue 33): keys written by real codecs into a hex file, standard
input, a real SQLite table, LMDB environment and RocksDB database are read back and
identified -- the top candidate's codec and schema, the report, the ``--json`` document, exit
status 0 when a format is known and 1 when not ("no known format", random bytes) -- and every
source it cannot read is one line and exit status 2.

Each identification tries every codec's schemas, a few seconds for all of them: the tests that
are about the report run every codec once; the others name the right codec and a few rivals
with ``-c``.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import lexcodecs.cli.command
from lexcodecs import get_codec
from lexcodecs.cli import main

#: rivals of every store's codec: formats that decode many byte strings
RIVALS = ["-c", "lexkey", "-c", "ordered-binary", "-c", "skv"]


def keys_of(codec: str, schema: str, n: int = 40) -> list[bytes]:
    """*n* distinct keys of *codec*, of a string and an integer field."""
    bound = get_codec(codec).bind(schema)
    return [bound.encode((f"user{i % 6}", (i * 7919) % 100_000 - 50_000)) for i in range(n)]


SKV = keys_of("skv", "tenant:string, n:int64")
FDB = keys_of("fdb-tuple", "tenant:string, n:int64")
ORDEREDCODE = keys_of("orderedcode", "tenant:string, n:int64")
SQLITE4 = keys_of("sqlite4", "tenant:string, n:int64 desc")


def hex_text(keys: list[bytes]) -> str:
    return "".join(k.hex() + "\n" for k in keys)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``skv.hex`` (skv keys, a blank line in between), ``random.hex``, ``empty.hex``,
    ``bad.hex``, ``kv.db`` (fdb-tuple keys in ``kv.k``; ``mixed.k`` holds an INTEGER at row
    3), ``env`` (LMDB, orderedcode keys), ``rocks`` (RocksDB, sqlite4 keys in the column
    family ``meta``), ``dir/`` and ``pipe`` (a FIFO)."""
    tmp = tmp_path_factory.mktemp("identify")
    lines = hex_text(SKV).splitlines(keepends=True)
    (tmp / "skv.hex").write_text("".join(lines[:20]) + "\n" + "".join(lines[20:]))
    rng = random.Random(1)
    (tmp / "random.hex").write_text(hex_text([rng.randbytes(rng.randrange(4, 20))
                                              for _ in range(40)]))
    (tmp / "empty.hex").write_text("\n\n")
    (tmp / "bad.hex").write_text("0102\n\n0x03 04\n05 0g\n")
    with closing(sqlite3.connect(tmp / "kv.db")) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT) WITHOUT ROWID")
        db.executemany("INSERT INTO kv VALUES (?, 'value')", [(k,) for k in FDB])
        db.execute("CREATE TABLE mixed (k, v)")
        db.executemany("INSERT INTO mixed VALUES (?, 1)", [(b"\x01",), (b"\x02",), (3,)])
        db.commit()
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(tmp / "env"), map_size=1 << 24)
    with env.begin(write=True) as txn:
        for k in ORDEREDCODE:
            txn.put(k, b"value")
    env.close()
    rocksdict = pytest.importorskip("rocksdict")
    options = rocksdict.Options(raw_mode=True)
    options.create_if_missing(True)
    options.create_missing_column_families(True)
    rocks = rocksdict.Rdict(str(tmp / "rocks"), options,
                            column_families={"meta": rocksdict.Options(raw_mode=True)})
    meta = rocks.get_column_family("meta")
    for k in SQLITE4:
        meta[k] = b"value"
    rocks.close()
    (tmp / "dir").mkdir()
    os.mkfifo(tmp / "pipe")
    return tmp


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["identify", "--no-progress", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def document(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == ""
    return code, json.loads(out)


def top(data: dict[str, Any]) -> tuple[str, str, str]:
    best = data["candidates"][0]
    return best["codec"], best["schema"], best["confidence"]


# -- the report ---------------------------------------------------------------------------------

def test_a_hex_file_of_skv_keys(capsys: pytest.CaptureFixture[str], stores: Path) -> None:
    """Every codec tried: skv, its schema (names f0, f1), high confidence, and the report."""
    code, out, err = run(capsys, str(stores / "skv.hex"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"read 40 keys from hex lines {stores / 'skv.hex'}"
    assert lines[1] == ""
    assert re.split(r"\s{2,}", lines[2].strip()) == [
        "rank", "codec", "schema", "decoded", "round trip", "order", "confidence"]
    assert re.split(r"\s{2,}", lines[4].strip()) == [
        "1", "skv", "f0:string, f1:int64", "40/40", "yes", "kept", "high"]
    details = out[out.index("\n\nskv f0:string, f1:int64: high confidence\n"):]
    assert "  - 40 of 40 keys decode\n" in details
    assert f"examples:\n  {SKV[0].hex()} -> ('user0', -50000)\n" in details
    assert lines[-1] == ('to migrate them: lexcodecs migrate --from skv -s "f0:string, '
                         'f1:int64" --to CODEC ... (rename f0, f1 to what the fields hold)')


def test_random_bytes_are_no_known_format(capsys: pytest.CaptureFixture[str],
                                          stores: Path) -> None:
    code, out, _ = run(capsys, str(stores / "random.hex"))
    assert code == 1
    lines = out.splitlines()
    assert lines[1] == ("no known format: no codec and schema explain these keys with more "
                        "than low confidence")
    assert lines[3] == "the best candidates, all low confidence:"
    rows = lines[6:out.splitlines().index("", 6)]
    assert rows
    assert all(row.endswith(" low") for row in rows)
    assert "to migrate them" not in out
    code, data = document(capsys, str(stores / "random.hex"), "-c", "lexkey", "-c", "skv")
    assert code == 1
    assert data["known"] is False
    assert {c["confidence"] for c in data["candidates"]} <= {"low"}


def test_the_json_document(capsys: pytest.CaptureFixture[str], stores: Path) -> None:
    code, data = document(capsys, str(stores / "skv.hex"), *RIVALS)
    assert code == 0
    assert list(data) == ["format_version", "keys", "sampled", "known", "candidates"]
    assert (data["format_version"], data["keys"], data["sampled"], data["known"]) == (
        1, 40, False, True)
    assert top(data) == ("skv", "f0:string, f1:int64", "high")
    best = data["candidates"][0]
    assert set(best) >= {"codec", "options", "schema", "decoded", "total", "roundtrip",
                         "ordered", "random_decodes", "loose_decodes", "confidence",
                         "evidence", "examples", "same_bytes_as"}
    assert (best["decoded"], best["total"], best["roundtrip"], best["ordered"]) == (
        40, 40, True, True)
    assert best["examples"][0] == {"hex": SKV[0].hex(), "values": "('user0', -50000)"}
    assert {c["codec"] for c in data["candidates"]} <= {"lexkey", "ordered-binary", "skv"}


def test_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                        stores: Path) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(hex_text(FDB).encode())))
    code, out, _ = run(capsys, "-", "-c", "fdb-tuple", *RIVALS)
    assert code == 0
    assert out.startswith("read 40 keys from hex lines (standard input)\n")
    assert re.search(r"\n +1 +fdb-tuple +f0:string, f1:int64 +40/40 +yes +kept +high\n", out)


@pytest.mark.parametrize(("argv", "codec", "schema", "source"), [
    (["--sqlite", "{tmp}/kv.db", "--table", "kv", "--key-column", "k"], "fdb-tuple",
     "f0:string, f1:int64", "SQLite {tmp}/kv.db, kv.k"),
    (["--lmdb", "{tmp}/env"], "orderedcode", "f0:string, f1:int64", "LMDB {tmp}/env"),
    (["--rocksdb", "{tmp}/rocks", "--column-family", "meta"], "sqlite4",
     "f0:string, f1:int64 desc", "RocksDB {tmp}/rocks, column family meta"),
], ids=["sqlite", "lmdb", "rocksdb"])
def test_keys_in_a_store(capsys: pytest.CaptureFixture[str], stores: Path, argv: list[str],
                         codec: str, schema: str, source: str) -> None:
    argv = [a.replace("{tmp}", str(stores)) for a in argv]
    code, data = document(capsys, *argv, "-c", codec, *RIVALS)
    assert code == 0
    assert (data["keys"], data["sampled"]) == (40, False)
    assert top(data) == (codec, schema, "high")
    _, out, _ = run(capsys, *argv, "-c", codec, *RIVALS)
    assert out.startswith(f"read 40 keys from {source.replace('{tmp}', str(stores))}\n")


def test_a_sample_is_the_same_every_time(capsys: pytest.CaptureFixture[str],
                                         stores: Path) -> None:
    argv = [str(stores / "skv.hex"), "--sample", "12", "-c", "skv", "-c", "lexkey"]
    code, first = document(capsys, *argv)
    _, again = document(capsys, *argv)
    assert code == 0
    assert first == again
    assert (first["keys"], first["sampled"]) == (40, True)
    assert first["candidates"][0]["total"] == 12
    _, out, _ = run(capsys, *argv)
    assert out.splitlines()[0] == (f"read 40 keys from hex lines {stores / 'skv.hex'}; "
                                   "identified on a uniform sample of 12 (seed 0)")


def test_limit_and_codecs(capsys: pytest.CaptureFixture[str], stores: Path) -> None:
    _, data = document(capsys, str(stores / "skv.hex"), "--limit", "1", *RIVALS)
    assert len(data["candidates"]) == 1
    _, data = document(capsys, str(stores / "skv.hex"), "-c", "lexkey")
    assert {c["codec"] for c in data["candidates"]} == {"lexkey"}


# -- refusals -----------------------------------------------------------------------------------

SOURCES = ("say where the keys are: FILE (hex lines, '-' for standard input), --sqlite DB "
           "--table T --key-column K, --lmdb PATH or --rocksdb PATH (exactly one)")


@pytest.mark.parametrize(("argv", "says"), [
    ([], SOURCES),
    (["{tmp}/skv.hex", "--lmdb", "{tmp}/env"], SOURCES + " (not FILE and --lmdb)"),
    (["--sqlite", "{tmp}/kv.db", "--rocksdb", "{tmp}/rocks"],
     SOURCES + " (not --sqlite and --rocksdb)"),
    (["{tmp}/skv.hex", "--table", "kv"], "--table goes with --sqlite"),
    (["--lmdb", "{tmp}/env", "--key-column", "k"], "--key-column goes with --sqlite"),
    (["{tmp}/skv.hex", "--column-family", "meta"], "--column-family goes with --rocksdb"),
    (["--sqlite", "{tmp}/kv.db", "--table", "kv"],
     "--sqlite needs --table T and --key-column K: the column of the keys"),
    (["{tmp}/missing.hex"], "{tmp}/missing.hex: No such file or directory"),
    (["{tmp}/dir"], "{tmp}/dir: is a directory, not a file"),
    (["{tmp}/pipe"], "{tmp}/pipe: is a named pipe (FIFO), not a regular file; for standard "
                     "input, give -"),
    (["{tmp}/empty.hex"], "hex lines {tmp}/empty.hex: no keys to identify"),
    (["{tmp}/bad.hex"], "hex lines {tmp}/bad.hex: line 4: 'g' at character 5 is not a hex "
                        "digit; write each key as 0-9 a-f, optionally with 0x, spaces or colons"),
    (["--sqlite", "{tmp}/missing.db", "--table", "kv", "--key-column", "k"],
     "--sqlite {tmp}/missing.db: no such database file"),
    (["--sqlite", "{tmp}/dir", "--table", "kv", "--key-column", "k"],
     "--sqlite {tmp}/dir: is a directory, not an SQLite database file"),
    (["--sqlite", "{tmp}/pipe", "--table", "kv", "--key-column", "k"],
     "--sqlite {tmp}/pipe: is a named pipe (FIFO), not an SQLite database file"),
    (["--sqlite", "{tmp}/kv.db", "--table", "nope", "--key-column", "k"],
     "SQLite {tmp}/kv.db, nope.k: no table or view named 'nope'"),
    (["--sqlite", "{tmp}/kv.db", "--table", "mixed", "--key-column", "k"],
     "SQLite {tmp}/kv.db, mixed.k: row 3: an INTEGER, not a BLOB key"),
    (["--lmdb", "{tmp}/missing"], "--lmdb {tmp}/missing: no such LMDB environment"),
    (["--lmdb", "{tmp}/pipe"], "--lmdb {tmp}/pipe: is a named pipe (FIFO), not an LMDB "
                               "environment (a directory, or its data file)"),
    (["--rocksdb", "{tmp}/missing"], "--rocksdb {tmp}/missing: no such RocksDB database"),
    (["--rocksdb", "{tmp}/skv.hex"], "--rocksdb {tmp}/skv.hex: is a file, not a RocksDB "
                                     "database (a directory)"),
    (["--rocksdb", "{tmp}/dir"], "RocksDB {tmp}/dir: not a RocksDB database"),
    (["--rocksdb", "{tmp}/rocks", "--column-family", "nope"],
     "RocksDB {tmp}/rocks, column family nope: no column family 'nope' (its families: "
     "default, meta)"),
    (["{tmp}/skv.hex", "-c", "nope"], "unknown codec 'nope'"),
])
def test_a_source_it_cannot_read_is_one_line(capsys: pytest.CaptureFixture[str], stores: Path,
                                             argv: list[str], says: str) -> None:
    code, out, err = run(capsys, *[a.replace("{tmp}", str(stores)) for a in argv])
    assert (code, out) == (2, "")
    assert err.startswith(f"lexcodecs: error: {says.replace('{tmp}', str(stores))}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("argv", [["--sample", "0"], ["--sample", "x"], ["--limit", "0"]])
def test_bad_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str], stores: Path,
                                      argv: list[str]) -> None:
    code, _, err = run(capsys, str(stores / "skv.hex"), *argv)
    assert code == 2
    assert "usage: lexcodecs identify" in err


@pytest.mark.parametrize(("module", "argv"), [
    ("lmdb", ["--lmdb", "env"]), ("rocksdict", ["--rocksdb", "rocks"])])
def test_a_store_without_its_package_says_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stores: Path,
        module: str, argv: list[str]) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # its import raises ImportError
    monkeypatch.chdir(stores)
    code, _, err = run(capsys, *argv)
    extra = "lmdb" if module == "lmdb" else "rocksdb"
    assert code == 2
    assert f"pip install 'lexcodecs[{extra}]'" in err


def test_ctrl_c_says_nothing_was_written(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(lexcodecs.cli.command, "_run", interrupted)
    assert main(["identify", "keys.hex"]) == 130
    assert capsys.readouterr().err == (
        "lexcodecs: stopped (Ctrl-C): nothing was written; run the same command again "
        "(--sample N is quicker)\n")


def test_a_key_that_decodes_to_an_unprintable_number(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """sqlite4's number of 5086 digits (tests/test_cli_hostile.py's key)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"22f900ff9902\n")))
    code, _, err = run(capsys, "-", "-c", "sqlite4")
    assert code in (0, 1), err
    assert "internal error" not in err


# -- inspect without -c: what one key looks like ------------------------------------------------


def test_inspect_without_a_codec_explains_the_key_as_it_looks(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The best reading of the key alone, said first (medium at best: one key), then the
    usual table; --json carries it as looks_like."""
    key = get_codec("fdb-tuple").bind("tenant:string, n:int64").encode(("acme", 42)).hex()
    assert main(["inspect", key]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    first, table = out.split("\n", 1)
    assert first.startswith("no -c: the key looks like fdb-tuple f0:string, f1:int64 "
                            "(medium confidence"), first
    assert "string = 'acme'" in table
    assert "int64 = 42" in table
    assert main(["inspect", key, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["looks_like"] == {"codec": "fdb-tuple", "options": document[
        "looks_like"]["options"], "schema": "f0:string, f1:int64", "confidence": "medium"}


@pytest.mark.parametrize(("argv", "message"), [
    (["-s", "a:int64", "0102"], "-s and -o need -c NAME"),
    (["-o", "table=1", "0102"], "-s and -o need -c NAME"),
])
def test_inspect_without_a_codec_refuses_what_needs_one(
        capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["inspect", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"lexcodecs: error: {message}"), err


# -- migrate --from auto ------------------------------------------------------------------------


def _skv_table(path: Path) -> None:
    skv = get_codec("skv").bind("tenant:string, ts:int64 desc")
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE events (key BLOB PRIMARY KEY, payload TEXT)")
        db.executemany("INSERT INTO events VALUES (?, ?)",
                       [(skv.encode((t, n)), "") for t in ("a", "b") for n in range(20)])
        db.commit()


def test_migrate_from_auto_uses_a_high_confidence_reading(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The reading is said on stderr before anything is written; the keys are then migrated
    as that codec and schema (or as -s names the fields)."""
    db = tmp_path / "shop.db"
    _skv_table(db)
    code = main(["migrate", "--from", "auto", "--to", "sqlite4", "--sqlite", str(db),
                 "--table", "events", "--key-column", "key", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err.startswith("--from auto: the keys look like skv f0:string, f1:int64 desc (high "
                          "confidence, from 40 of them)"), err
    assert out.startswith("migrated 40 keys skv -> sqlite4"), out
    sqlite4 = get_codec("sqlite4").bind("f0:string, f1:int64 desc")
    with closing(sqlite3.connect(db)) as conn:
        values = sorted(sqlite4.decode(k) for (k,) in conn.execute("SELECT key FROM events"))
    assert values == sorted((t, n) for t in ("a", "b") for n in range(20))


@pytest.mark.parametrize(("make", "argv", "message"), [
    ("noise", ["--input", "{dir}/keys.hex"], "--from auto: they look most like"),
    (None, ["--input", "-"], "--from auto reads the keys twice"),
    ("table", ["--from-option", "nan=go", "--sqlite", "{dir}/shop.db", "--table", "events",
               "--key-column", "key"], "--from auto finds the codec's options too"),
])
def test_migrate_from_auto_refuses_without_a_confident_reading(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, make: str | None,
        argv: list[str], message: str) -> None:
    if make == "noise":
        rng = random.Random(7)
        (tmp_path / "keys.hex").write_text(
            "".join(rng.randbytes(rng.randrange(4, 24)).hex() + "\n" for _ in range(30)))
    elif make == "table":
        _skv_table(tmp_path / "shop.db")
    code = main(["migrate", "--from", "auto", "--to", "sqlite4",
                 *[a.format(dir=tmp_path) for a in argv]])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"lexcodecs: error: {message}"), err


def test_migrate_without_a_schema_says_what_gives_one(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    (tmp_path / "k.hex").write_text("0161\n")
    assert main(["migrate", "--from", "skv", "--to", "sqlite4", "--input",
                 str(tmp_path / "k.hex")]) == 2
    assert capsys.readouterr().err.startswith(
        "lexcodecs: error: -s SCHEMA is needed: the schema the keys were written with "
        "(--from auto finds")
