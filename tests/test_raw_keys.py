"""Raw keys for identification (:mod:`lexcodecs.sources.raw_keys`, issue 33): hex lines, an
SQLite column, an LMDB environment and a RocksDB database give back the stored bytes in the
source's order; ``sample`` keeps a uniform sample that is the same every time, holding no more
than the sample in memory; and every refusal is a :class:`SourceError` naming the source and,
for a bad key, its line or row.

Every store is real, written by a real codec; the named pipes are real too, guarded by
:func:`test_sources_special_files.unblocked` should a reader open one after all.
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
import sys
import tracemalloc
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from test_sources_special_files import unblocked

from lexcodecs import get_codec
from lexcodecs.cli import CliError, parse_hex
from lexcodecs.sources import (
    RawKeys,
    SourceError,
    read_raw_hex,
    read_raw_lmdb,
    read_raw_rocksdb,
    read_raw_sqlite,
)
from lexcodecs.sources.raw_keys import hex_line, rocksdb_problem, sample_keys

PIPE = "is a named pipe (FIFO)"
PIPE_RE = re.escape(PIPE)

#: keys written by a real codec, distinct, in no particular order
FDB = get_codec("fdb-tuple").bind("tenant:string, n:int64")
KEYS = [FDB.encode((f"t{i % 5}", (i * 7919) % 1000 - 500)) for i in range(60)]


# -- sampling ---------------------------------------------------------------------------------

def test_every_key_without_a_sample() -> None:
    kept, read = sample_keys(iter(KEYS), None)
    assert (kept, read) == (KEYS, len(KEYS))


def test_a_sample_is_the_same_every_time_and_in_the_source_order() -> None:
    first, read = sample_keys(iter(KEYS), 10)
    again, _ = sample_keys(iter(KEYS), 10)
    assert read == len(KEYS)
    assert first == again
    assert len(first) == 10
    assert len(set(first)) == 10
    assert set(first) <= set(KEYS)
    positions = [KEYS.index(k) for k in first]
    assert positions == sorted(positions)
    assert positions != list(range(10)), "a sample spread through the keys, not the first ones"


def test_another_seed_gives_another_sample() -> None:
    assert sample_keys(KEYS, 10, seed=0)[0] != sample_keys(KEYS, 10, seed=1)[0]


def test_a_sample_larger_than_the_source_keeps_every_key(tmp_path: Path) -> None:
    path = tmp_path / "k.hex"
    path.write_text("".join(k.hex() + "\n" for k in KEYS))
    raw = read_raw_hex(path, sample=len(KEYS))
    assert raw.keys == KEYS
    assert not raw.sampled
    raw = read_raw_hex(path, sample=7)
    assert raw.sampled
    assert (raw.read, len(raw.keys)) == (len(KEYS), 7)
    assert raw.keys == read_raw_hex(path, sample=7).keys


def test_sampling_is_uniform() -> None:
    """Each position is kept about as often as any other, over many seeds."""
    hits = [0] * 20
    for seed in range(2000):
        for key in sample_keys((bytes([i]) for i in range(20)), 5, seed=seed)[0]:
            hits[key[0]] += 1
    expected = 2000 * 5 / 20
    assert all(0.8 * expected < h < 1.2 * expected for h in hits), hits


def test_reading_holds_no_more_than_the_sample(tmp_path: Path) -> None:
    """Memory follows the sample, not the source: the keys are streamed."""
    path = tmp_path / "many.hex"
    with path.open("w") as out:
        for i in range(40_000):
            out.write(f"{i:0128x}\n")

    def peak(sample: int | None) -> int:
        tracemalloc.start()
        try:
            raw = read_raw_hex(path, sample=sample)
            assert raw.read == 40_000
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, whole = peak(10), peak(None)
    assert whole > 2_000_000  # 40,000 keys of 64 bytes, kept
    assert small < whole / 10


@pytest.mark.parametrize("sample", [0, -1, True, 1.5, "3"])
def test_a_bad_sample_is_refused(sample: Any) -> None:
    with pytest.raises(SourceError, match="a sample is a whole number of keys, at least 1"):
        read_raw_hex(["00\n"], sample=sample)


# -- hex lines --------------------------------------------------------------------------------

def test_hex_lines_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "k.hex"
    path.write_text("0261636d6500\n\n  0x02:61 00\n0x\n\r\n02 62 00\r\n")
    raw = read_raw_hex(path)
    assert raw == RawKeys([b"\x02acme\x00", b"\x02a\x00", b"", b"\x02b\x00"], 4,
                          f"hex lines {path}")
    assert not raw.sampled


def test_hex_lines_from_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(k.hex() + "\n" for k in KEYS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    raw = read_raw_hex("-")
    assert raw.keys == KEYS
    assert raw.source == "hex lines (standard input)"


def test_hex_lines_from_an_iterable() -> None:
    assert read_raw_hex(["01\n", b"ff\n"], name="mine").keys == [b"\x01", b"\xff"]
    assert read_raw_hex(iter([]), name="none") == RawKeys([], 0, "hex lines none")


@pytest.mark.parametrize("text", ["00", "0x00ff", "0X00FF", "  de:ad be ef  ", "0x", "a b",
                                  "0x 01", "0x0x", "zz", "abc", "01-02", "0 x01", "\tff\t"])
def test_a_line_reads_as_the_command_line_reads_hex(text: str) -> None:
    """The same rules as ``lexcodecs.cli.parse_hex``, written again below the command line:
    the same key, or a refusal at the same character."""
    try:
        expected: bytes | str = parse_hex(text)
    except CliError as exc:
        expected = str(exc).removeprefix("hex: ").split(";")[0]
    try:
        got: bytes | str | None = hex_line(text, 1, "x")
    except SourceError as exc:
        got = exc.reason.split(";")[0]
    assert got == expected


@pytest.mark.parametrize(("lines", "says"), [
    (["00\n", "\n", "0 1 zz\n"], "hex lines k: line 3: 'z' at character 5 is not a hex digit"),
    (["abc\n"], "hex lines k: line 1: odd number of hex digits (3); every byte takes two"),
    ([b"00\n", b"0\xff\n"], "hex lines k: line 2: byte 0xff at character 2 is not a hex digit"),
    ([b"\xe9\xe9\n"], "hex lines k: line 1: byte 0xe9 at character 1 is not a hex digit"),
    (["0261\n", "é\n"], "hex lines k: line 2: 'é' at character 1 is not a hex digit"),
])
def test_a_bad_hex_line_is_refused_with_its_number(lines: list[Any], says: str) -> None:
    with pytest.raises(SourceError) as info:
        read_raw_hex(lines, name="k")
    assert str(info.value).startswith(says), str(info.value)
    assert info.value.line is not None


def test_a_bad_line_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "k.hex"
    path.write_bytes(b"0102\n\n\nnot hex\n")
    with pytest.raises(SourceError, match=rf"^hex lines {path}: line 4: 'n' at character 1"):
        read_raw_hex(path)


def test_missing_files_directories_and_pipes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="No such file or directory"):
        read_raw_hex(tmp_path / "missing.hex")
    with pytest.raises(SourceError, match="is a directory, not a file"):
        read_raw_hex(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with unblocked(fifo), pytest.raises(SourceError, match=PIPE_RE):
        read_raw_hex(fifo)


# -- SQLite -----------------------------------------------------------------------------------

def sqlite_table(path: Path, keys: list[Any], *, keyed: bool = True) -> Path:
    """A table ``kv`` of *keys*: their primary key (a WITHOUT ROWID table), or a plain column
    that SQLite returns in the order of insertion (*keyed* False)."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE kv (k PRIMARY KEY, v TEXT) WITHOUT ROWID" if keyed else
                   "CREATE TABLE kv (k, v TEXT)")
        db.executemany("INSERT INTO kv VALUES (?, 'x')", [(k,) for k in keys])
        db.commit()
    return path


def test_sqlite_blobs_in_the_tables_order(tmp_path: Path) -> None:
    db = sqlite_table(tmp_path / "k.db", KEYS)
    raw = read_raw_sqlite(db, "kv", "k")
    assert raw.keys == sorted(KEYS)  # a WITHOUT ROWID table's order is its key's
    assert raw.source == f"SQLite {db}, kv.k"
    sampled = read_raw_sqlite(db, "kv", "k", sample=5)
    assert (sampled.read, len(sampled.keys)) == (len(KEYS), 5)
    assert sampled.keys == read_raw_sqlite(db, "kv", "k", sample=5).keys


@pytest.mark.parametrize(("value", "kind"), [(7, "an INTEGER"), (2.5, "a REAL"),
                                             ("text", "a TEXT value"), (None, "NULL")])
def test_sqlite_refuses_a_value_that_is_not_a_blob(tmp_path: Path, value: Any,
                                                   kind: str) -> None:
    db = sqlite_table(tmp_path / "k.db", [b"\x01", b"\x02", value], keyed=False)
    with pytest.raises(SourceError) as info:
        read_raw_sqlite(db, "kv", "k")
    assert str(info.value) == f"SQLite {db}, kv.k: row 3: {kind}, not a BLOB key"
    assert (info.value.line, info.value.unit) == (3, "row")


def test_sqlite_refusals(tmp_path: Path) -> None:
    db = sqlite_table(tmp_path / "k.db", KEYS)
    with pytest.raises(SourceError, match="no table or view named 'nope'"):
        read_raw_sqlite(db, "nope", "k")
    with pytest.raises(SourceError, match=r"no column 'key' in kv \(its columns: k, v\)"):
        read_raw_sqlite(db, "kv", "key")
    with pytest.raises(SourceError, match="no such database file"):
        read_raw_sqlite(tmp_path / "missing.db", "kv", "k")
    with pytest.raises(SourceError, match="is a directory, not an SQLite database file"):
        read_raw_sqlite(tmp_path, "kv", "k")
    (tmp_path / "junk.db").write_text("not a database, just text\n" * 10)
    with pytest.raises(SourceError, match="not an SQLite database"):
        read_raw_sqlite(tmp_path / "junk.db", "kv", "k")
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    with unblocked(fifo), pytest.raises(SourceError, match=PIPE_RE):
        read_raw_sqlite(fifo, "kv", "k")


# -- LMDB -------------------------------------------------------------------------------------

def lmdb_env(path: Path, keys: list[bytes]) -> Path:
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(path), map_size=1 << 24)
    try:
        with env.begin(write=True) as txn:
            for k in keys:
                txn.put(k, b"value")
    finally:
        env.close()
    return path


def test_lmdb_keys_in_lmdbs_order(tmp_path: Path) -> None:
    env = lmdb_env(tmp_path / "env", KEYS)
    before = sorted(os.listdir(env))
    raw = read_raw_lmdb(env)
    assert raw.keys == sorted(KEYS)
    assert raw.source == f"LMDB {env}"
    assert read_raw_lmdb(env / "data.mdb").keys == sorted(KEYS)  # the data file itself
    assert read_raw_lmdb(env, sample=9).keys == read_raw_lmdb(env, sample=9).keys
    assert sorted(os.listdir(env)) == before  # read without a lock file


def test_lmdb_refusals(tmp_path: Path) -> None:
    pytest.importorskip("lmdb")
    with pytest.raises(SourceError, match="no such LMDB environment"):
        read_raw_lmdb(tmp_path / "missing")
    (tmp_path / "file").write_text("not lmdb")
    with pytest.raises(SourceError, match="not an LMDB environment"):
        read_raw_lmdb(tmp_path / "file")
    (tmp_path / "env").mkdir()
    fifo = tmp_path / "env" / "data.mdb"
    os.mkfifo(fifo)
    with unblocked(fifo), pytest.raises(SourceError, match=f"its data.mdb {PIPE_RE}"):
        read_raw_lmdb(tmp_path / "env")


def test_lmdb_without_its_package_says_what_to_install(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lmdb", None)  # import lmdb raises ImportError
    with pytest.raises(SourceError, match=r"pip install 'lexcodecs\[lmdb\]'"):
        read_raw_lmdb(tmp_path)


# -- RocksDB ----------------------------------------------------------------------------------

@pytest.fixture
def rocks(tmp_path: Path) -> Path:
    """A RocksDB database: KEYS in the column family ``meta``, two other keys in the default
    one; without the settings file rocksdict writes, as another program leaves a database."""
    rocksdict = pytest.importorskip("rocksdict")
    path = tmp_path / "db"
    options = rocksdict.Options(raw_mode=True)
    options.create_if_missing(True)
    options.create_missing_column_families(True)
    db = rocksdict.Rdict(str(path), options,
                         column_families={"meta": rocksdict.Options(raw_mode=True)})
    meta = db.get_column_family("meta")
    for k in KEYS:
        meta[k] = b"value"
    db[b"\x01"] = db[b"\x02"] = b"value"
    db.close()
    (path / "rocksdict-config.json").unlink(missing_ok=True)
    return path


def test_rocksdb_keys_of_a_column_family(rocks: Path) -> None:
    before = sorted(os.listdir(rocks))
    assert read_raw_rocksdb(rocks).keys == [b"\x01", b"\x02"]
    raw = read_raw_rocksdb(rocks, column_family="meta")
    assert raw.keys == sorted(KEYS)
    assert raw.source == f"RocksDB {rocks}, column family meta"
    sampled = read_raw_rocksdb(rocks, column_family="meta", sample=8)
    assert sampled.sampled
    assert sampled.keys == read_raw_rocksdb(rocks, column_family="meta", sample=8).keys
    assert sorted(os.listdir(rocks)) == before  # rocksdict's settings file is not left behind


def test_rocksdb_refusals(rocks: Path, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"no column family 'nope' \(its families: default, "
                                          r"meta\)"):
        read_raw_rocksdb(rocks, column_family="nope")
    with pytest.raises(SourceError, match="no such RocksDB database"):
        read_raw_rocksdb(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(SourceError, match="is a file, not a RocksDB database"):
        read_raw_rocksdb(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="not a RocksDB database"):
        read_raw_rocksdb(tmp_path / "empty")
    assert os.listdir(tmp_path / "empty") == []
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert rocksdb_problem(fifo) == f"{PIPE}, not a RocksDB database (a directory)"
    os.rename(rocks / "CURRENT", tmp_path / "CURRENT")
    os.mkfifo(rocks / "CURRENT")
    with unblocked(rocks / "CURRENT"), pytest.raises(SourceError, match=f"its CURRENT {PIPE_RE}"):
        read_raw_rocksdb(rocks)


def test_rocksdb_without_its_package_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rocksdict", None)
    with pytest.raises(SourceError, match=r"pip install 'lexcodecs\[rocksdb\]'"):
        read_raw_rocksdb(tmp_path)
