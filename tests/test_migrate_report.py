"""What ``lexcodecs migrate`` tells its user (issue 32): the hint that ends a refusal of the
first key, the time and rates of a run (a resumed one too), the help of every option, the
progress totals of each phase, and the format version of every ``--json`` document.

Times are never measured here: the report's arithmetic is checked on reports built by hand,
and the stores' runs on real stores (SQLite, LMDB, RocksDB) with a clock of the test's own
put in the place of the stores' (:func:`ticking_clock`: one second per reading), so the
expectations hold whatever the machine's speed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sqlite3
import types
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import lexcodecs.cli.migrate as cli_migrate
import lexcodecs.migrate.directory as directory
import lexcodecs.migrate.lmdb_store as lmdb_store
import lexcodecs.migrate.rocksdb_store as rocksdb_store
import lexcodecs.migrate.sqlite_store as sqlite_store
from lexcodecs import KeySchema, get_codec
from lexcodecs._console import Progress
from lexcodecs.cli import build_parser, main
from lexcodecs.cli.arguments import JSON_FORMAT_VERSION
from lexcodecs.errors import describe_value
from lexcodecs.migrate import (
    MigrationError,
    MigrationReport,
    Transcoder,
    migrate_lmdb,
    migrate_rocksdb,
    migrate_sqlite,
)
from lexcodecs.migrate.report import MIN_TIMED_S

lmdb = pytest.importorskip("lmdb")
rocksdict = pytest.importorskip("rocksdict")

SCHEMA_TEXT = "tenant:string, n:int64"
SCHEMA = KeySchema.parse(SCHEMA_TEXT)
FDB = get_codec("fdb-tuple").bind(SCHEMA)


def fdb_to_skv() -> Transcoder:
    return Transcoder("fdb-tuple", "skv", SCHEMA_TEXT)


def row_values(n: int) -> list[tuple[str, int]]:
    tenants = ["acme", "", "beta", "é", "zz"]
    return [(tenants[i % len(tenants)], i * 7 - n) for i in range(n)]


def make_table(path: Path, values: list[tuple[Any, ...]], bind: Any = FDB) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT)")
        db.executemany("INSERT INTO kv VALUES (?, ?)",
                       [(bind.encode(v), repr(v)) for v in values])
        db.commit()


def make_env(path: Path, values: list[tuple[Any, ...]]) -> None:
    with closing(lmdb.open(str(path), map_size=1 << 24)) as env, env.begin(write=True) as txn:
        for v in values:
            txn.put(FDB.encode(v), repr(v).encode())


def make_rocksdb(path: Path, values: list[tuple[Any, ...]]) -> None:
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True))
    try:
        for v in values:
            db[FDB.encode(v)] = repr(v).encode()
    finally:
        db.close()


class Stop(BaseException):
    """Stops a run from its progress callback, as a kill or Ctrl-C would (its state is
    kept; a BaseException, as KeyboardInterrupt is, so no store takes it for its own)."""


def stop_after(keys: int) -> Callable[[int], None]:
    def progress(done: int) -> None:
        if done >= keys:
            raise Stop
    return progress


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- 1. the hint that ends a refusal of the first key ----------------------------------------

def test_a_value_the_target_refuses_is_blamed_on_the_target(tmp_path: Path) -> None:
    """sqlite4 refuses U+0000 in text: the hint names the target codec, the field and the
    value, and points to the dry run; it no longer questions the source's settings."""
    db = tmp_path / "kv.db"
    make_table(db, [("a\x00b", 1), ("b", 2)])
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "sqlite4", SCHEMA_TEXT))
    message = str(info.value)
    assert message.endswith(
        "; nothing was changed: the source read the key, but the target codec sqlite4 "
        "refused the value 'a\\x00b' of field 0 'tenant'; --dry-run (dry_run_sqlite) finds "
        "every key the target refuses, writing nothing")
    assert "are the source codec" not in message
    with closing(sqlite3.connect(db)) as conn:  # nothing was created
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == [
            "kv", "sqlite_autoindex_kv_1"]


def test_the_value_in_the_hint_is_cut_as_the_error_cuts_it(tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    tenant = "x" * 300 + "\x00"
    make_table(db, [(tenant, 1)])
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "sqlite4", SCHEMA_TEXT))
    hint = str(info.value).split("; nothing was changed: ")[1]
    assert f"refused the value {describe_value(tenant)} of field 0 'tenant';" in hint
    assert "…" in hint
    assert len(hint) < 300


def test_values_the_target_cannot_hold_are_blamed_on_the_target(tmp_path: Path) -> None:
    """sqlite4 writes -0.0 as 0.0: the check refuses the values (no single field), and the
    hint still names the target."""
    schema = "tenant:string, score:float64"
    db = tmp_path / "kv.db"
    make_table(db, [("a", -0.0)], get_codec("fdb-tuple").bind(schema))
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "sqlite4", schema))
    message = str(info.value)
    assert "sqlite4: the target cannot hold these values" in message
    assert message.endswith("nothing was changed: the source read the key, but the target "
                            "codec sqlite4 refused the values it decodes to; --dry-run "
                            "(dry_run_sqlite) finds every key the target refuses, writing "
                            "nothing")


def test_a_key_the_source_cannot_read_keeps_the_source_hint(tmp_path: Path) -> None:
    """(A guard: this hint was right before issue 32 and stays.)"""
    db = tmp_path / "kv.db"
    make_table(db, [("a", 1)])
    with pytest.raises(MigrationError) as info:
        migrate_sqlite(db, "kv", "k", Transcoder("skv", "sqlite4", SCHEMA_TEXT))
    message = str(info.value)
    assert message.endswith("nothing was changed (are the source codec, its options and the "
                            "schema those the keys were written with?)")
    assert "--dry-run" not in message


def test_the_cli_says_the_target_refused_in_one_line(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, [("a\x00b", 1)])
    code, out, err = run(capsys, "migrate", "--from", "fdb-tuple", "--to", "sqlite4", "-s",
                         SCHEMA_TEXT, "--sqlite", str(db), "--table", "kv", "--key-column",
                         "k", "--no-progress")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert err.startswith("lexcodecs: error: the first key of 'kv', ")
    assert "the target codec sqlite4 refused the value 'a\\x00b' of field 0 'tenant'" in err
    assert "--dry-run" in err


# -- 2. the time and rates of a run ------------------------------------------------------------

def test_a_resumed_report_rates_this_runs_keys() -> None:
    """The issue's RocksDB run: 200,000 keys, 120,000 copied by the interrupted run. The
    copy's rate counts the 80,000 this run copied; verify and swap walk every key; a swap
    under 10 ms has no rate; there is no rate of the whole run; the parts add up."""
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "rocksdb db", keys=200_000,
                             seconds=1.22, resumed=True, copied_earlier=120_000,
                             copy_s=0.29, verify_s=0.8, swap_s=0.0009)
    d = report.to_dict()
    assert d["keys_per_s"] == {"copy": round(80_000 / 0.29, 1), "verify": 250_000.0}
    assert d["other_s"] == pytest.approx(1.22 - 0.29 - 0.8 - 0.0009)
    assert d["copied_earlier"] == 120_000
    assert report.summary().splitlines()[:2] == [
        "migrated 200,000 keys fdb-tuple -> skv (rocksdb db) in 1.22 s, resumed: 120,000 of "
        "them copied by an earlier run",
        "time: copy 0.29 s (275,862 keys/s) + verify 0.80 s (250,000 keys/s) + swap 0.00 s "
        "+ other 0.13 s = 1.22 s"]


def test_a_whole_run_has_a_rate_of_its_own() -> None:
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "sqlite table kv",
                             keys=200_000, seconds=2.0, copy_s=1.0, verify_s=0.5, swap_s=0.25)
    d = report.to_dict()
    assert d["keys_per_s"] == {"total": 100_000.0, "copy": 200_000.0, "verify": 400_000.0,
                               "swap": 800_000.0}
    assert d["other_s"] == 0.25
    assert report.summary().splitlines()[:2] == [
        "migrated 200,000 keys fdb-tuple -> skv (sqlite table kv) in 2.00 s (100,000 keys/s)",
        "time: copy 1.00 s (200,000 keys/s) + verify 0.50 s (400,000 keys/s) + swap 0.25 s "
        "(800,000 keys/s) + other 0.25 s = 2.00 s"]


@pytest.mark.parametrize(("phase_s", "rated"), [
    (MIN_TIMED_S, {"total", "copy", "verify", "swap"}),
    (MIN_TIMED_S * 0.99, {"total"}),  # the phases are too short, not the whole run
    (MIN_TIMED_S / 3.5, set()),
    (0.0, set())])
def test_a_time_too_short_to_measure_gets_no_rate(phase_s: float, rated: set[str]) -> None:
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "lmdb env", keys=3,
                             seconds=3 * phase_s, copy_s=phase_s, verify_s=phase_s,
                             swap_s=phase_s)
    assert set(report.to_dict()["keys_per_s"]) == rated
    assert report.summary().count("keys/s") == len(rated)


def test_a_phase_without_keys_gets_no_rate() -> None:
    """A resumed run that had nothing left to copy: no copy rate of 0 keys/s."""
    report = MigrationReport("fdb-tuple", "skv", SCHEMA_TEXT, "sqlite table kv", keys=500,
                             seconds=1.0, resumed=True, copied_earlier=500, copy_s=0.5,
                             verify_s=0.25)
    assert report.to_dict()["keys_per_s"] == {"verify": 2000.0}


def test_the_shown_times_add_up_to_the_shown_total() -> None:
    """Rounded each on its own, the parts of 0.606 s (0.294 + 0.304 + 0.004 + 0.004) would
    show 0.29 + 0.30 + 0.00 + 0.00 = 0.59 against a total shown as 0.61: the shown parts
    are rounded so that they add up to the shown total, each within 0.01 of its value."""
    for copy_s, verify_s, swap_s, seconds in [(0.296, 0.307, 0.004, 0.611),
                                              (0.294, 0.304, 0.004, 0.606),
                                              (0.005, 0.005, 0.005, 0.015),
                                              (1.0, 0.0, 0.0, 1.0)]:
        report = MigrationReport("a", "b", "n:int64", "lmdb env", keys=10, seconds=seconds,
                                 copy_s=copy_s, verify_s=verify_s, swap_s=swap_s)
        line = report.summary().splitlines()[1]
        shown = [float(x) for x in re.findall(r"(\d+\.\d\d) s", line)]
        *parts, total = shown
        assert total == float(f"{seconds:.2f}")
        assert round(sum(parts), 2) == total, line
        exact = [t for t in (copy_s, verify_s, swap_s) if t > 0] + [report.other_seconds()]
        assert all(abs(a - b) <= 0.01 + 1e-9 for a, b in zip(parts, exact)), line


def test_a_stream_has_no_time_line() -> None:
    report = MigrationReport("a", "b", "n:int64", "hex lines", keys=10, seconds=0.5)
    lines = report.summary().splitlines()
    assert lines[0] == "migrated 10 keys a -> b (hex lines) in 0.50 s (20 keys/s)"
    assert not lines[1].startswith("time:")
    assert report.to_dict()["other_s"] == 0.5


@pytest.fixture
def ticking_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stores' clock replaced by one that moves one second each time it is read: every
    interval a run measures is whole seconds, at least one."""
    now = [0.0]

    def monotonic() -> float:
        now[0] += 1.0
        return now[0]

    clock = types.SimpleNamespace(monotonic=monotonic)
    for module in (sqlite_store, lmdb_store, rocksdb_store, directory):
        monkeypatch.setattr(module, "time", clock)


def assert_times_add_up(report: MigrationReport) -> None:
    """This run's phases and the rest add up to its seconds, the text says the same as the
    JSON, and the rates count the keys each phase handled in this run."""
    d = report.to_dict()
    phases = d["copy_s"] + d["verify_s"] + d["swap_s"]
    assert phases <= d["seconds"]
    assert phases + d["other_s"] == d["seconds"]
    copied = d["keys"] - d["copied_earlier"]
    expected = {"copy": (copied, d["copy_s"]), "verify": (d["keys"], d["verify_s"]),
                "swap": (d["keys"], d["swap_s"]),
                "total": (0 if d["copied_earlier"] else d["keys"], d["seconds"])}
    assert d["keys_per_s"] == {name: round(n / s, 1) for name, (n, s) in expected.items()
                               if n and s >= MIN_TIMED_S}
    line = report.summary().splitlines()[1]
    for name, rate in d["keys_per_s"].items():
        if name != "total":
            assert f"{name} {d[f'{name}_s']:.2f} s ({rate:,.0f} keys/s)" in line
    assert line.endswith(f"+ other {d['other_s']:.2f} s = {d['seconds']:.2f} s")


def resumed_sqlite(tmp_path: Path) -> MigrationReport:
    db = tmp_path / "kv.db"
    make_table(db, row_values(400))
    with pytest.raises(Stop):
        migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, progress=stop_after(300))
    return migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, workers=0)


def resumed_lmdb(tmp_path: Path) -> MigrationReport:
    path = tmp_path / "env"
    make_env(path, row_values(400))
    with pytest.raises(Stop):
        migrate_lmdb(path, fdb_to_skv(), batch_size=100, progress=stop_after(300), workers=0)
    return migrate_lmdb(path, fdb_to_skv(), batch_size=100, workers=0)


def resumed_rocksdb(tmp_path: Path) -> MigrationReport:
    path = tmp_path / "db"
    make_rocksdb(path, row_values(400))
    with pytest.raises(Stop):
        migrate_rocksdb(path, fdb_to_skv(), batch_size=100, progress=stop_after(300),
                        workers=0)
    return migrate_rocksdb(path, fdb_to_skv(), batch_size=100, workers=0)


@pytest.mark.parametrize("resumed", [resumed_sqlite, resumed_lmdb, resumed_rocksdb],
                         ids=["sqlite", "lmdb", "rocksdb"])
def test_a_resumed_store_migration_rates_this_runs_keys(
        tmp_path: Path, ticking_clock: None,
        resumed: Callable[[Path], MigrationReport]) -> None:
    report = resumed(tmp_path)
    assert report.resumed
    assert (report.keys, report.copied_earlier) == (400, 300)
    assert min(report.copy_s, report.verify_s, report.swap_s) > 0
    assert "total" not in report.to_dict()["keys_per_s"]
    assert_times_add_up(report)
    assert report.summary().splitlines()[0].endswith(
        ", resumed: 300 of them copied by an earlier run")


def test_a_run_that_only_finishes_a_swap_times_only_the_swap(
        tmp_path: Path, ticking_clock: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run stopped between the swap's two renames is finished by the next: that run copied
    and verified nothing, and its report says so (the interrupted run's times are not
    added to a total that does not hold them)."""
    path = tmp_path / "env"
    make_env(path, row_values(200))
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".lexcodecs-new"):
            raise Stop
        real_replace(src, dst)

    with monkeypatch.context() as m:
        m.setattr(os, "replace", replace)
        with pytest.raises(Stop):
            migrate_lmdb(path, fdb_to_skv(), batch_size=50, workers=0)
    report = migrate_lmdb(path, fdb_to_skv(), batch_size=50, workers=0)
    assert report.resumed
    assert (report.copy_s, report.verify_s) == (0.0, 0.0)
    assert report.swap_s > 0
    assert report.copied_earlier == report.keys == 200
    assert set(report.to_dict()["keys_per_s"]) == {"swap"}
    assert_times_add_up(report)


def test_a_fresh_store_migration_rates_every_key(tmp_path: Path, ticking_clock: None) -> None:
    db = tmp_path / "kv.db"
    make_table(db, row_values(300))
    report = migrate_sqlite(db, "kv", "k", fdb_to_skv(), batch_size=100, workers=0)
    assert (report.resumed, report.copied_earlier) == (False, 0)
    assert set(report.to_dict()["keys_per_s"]) == {"total", "copy", "verify", "swap"}
    assert_times_add_up(report)


# -- 3. the help of every option ------------------------------------------------------------

def migrate_parser() -> argparse.ArgumentParser:
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = commands.choices["migrate"]
    return parser


def test_every_option_of_migrate_has_help() -> None:
    parser = migrate_parser()
    missing = [a.option_strings for a in parser._actions
               if not a.help or a.help == argparse.SUPPRESS]
    assert missing == []
    assert parser.description is not None
    for store in ("SQLite", "LMDB", "RocksDB"):
        assert store in parser.description
    text = parser.format_help()
    for option in ("--from", "--to", "--schema", "--from-option", "--to-option", "--rocksdb"):
        assert option in text


# -- 4. the progress totals of each phase -------------------------------------------------

def watch_phases() -> tuple[dict[str, Any], list[tuple[str, int, list[int]]]]:
    seen: list[tuple[str, int, list[int]]] = []

    def phase(label: str, total: int) -> None:
        seen.append((label, total, []))

    def progress(done: int) -> None:
        seen[-1][2].append(done)

    return {"phase": phase, "progress": progress}, seen


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("store", ["sqlite", "lmdb", "rocksdb"])
def test_each_phase_counts_keys_up_to_its_total(tmp_path: Path, store: str,
                                                workers: int) -> None:
    """The verify phase counts the keys it verifies (not an old and a new entry each), in
    this process and in a worker."""
    rows = 250
    callbacks, seen = watch_phases()
    if store == "sqlite":
        make_table(tmp_path / "kv.db", row_values(rows))
        migrate_sqlite(tmp_path / "kv.db", "kv", "k", fdb_to_skv(), batch_size=40,
                       workers=workers, **callbacks)
    elif store == "lmdb":
        make_env(tmp_path / "env", row_values(rows))
        migrate_lmdb(tmp_path / "env", fdb_to_skv(), batch_size=40, workers=workers,
                     **callbacks)
    else:
        make_rocksdb(tmp_path / "db", row_values(rows))
        migrate_rocksdb(tmp_path / "db", fdb_to_skv(), batch_size=40, workers=workers,
                        **callbacks)
    totals = dict((label, total) for label, total, _ in seen)
    assert [label for label, _, _ in seen] == ["copying", "verifying"]
    assert totals["verifying"] == rows
    if store != "rocksdb":  # RocksDB's copy total is its estimate of the keys
        assert totals["copying"] == rows
    for label, total, done in seen:
        assert done == sorted(done)
        if (store, label) != ("rocksdb", "copying"):
            assert done[-1] == total, label


def test_the_cli_bar_of_a_rocksdb_copy_ends_at_its_count(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """RocksDB's copy total is its estimate of the keys, which deletes throw off (here 100
    for 200 keys): the bar's total follows the count, and the bar ends at 200/200."""
    path = tmp_path / "db"
    make_rocksdb(path, row_values(300))
    db = rocksdict.Rdict(str(path), rocksdict.Options(raw_mode=True))
    try:
        for v in row_values(300)[::3]:
            del db[FDB.encode(v)]
    finally:
        db.close()
    bars: list[Progress] = []

    def bar(args: Any, label: str, total: int | None) -> Progress:
        bars.append(Progress(label, total, stream=io.StringIO(), enabled=True))
        return bars[-1]

    monkeypatch.setattr(cli_migrate, "_progress_bar", bar)
    code, _, _ = run(capsys, "migrate", "--from", "fdb-tuple", "--to", "skv", "-s",
                     SCHEMA_TEXT, "--rocksdb", str(path), "--batch-size", "50")
    assert code == 0
    assert [(b.label, b.total, b.done) for b in bars] == [("copying", 200, 200),
                                                          ("verifying", 200, 200)]


# -- 5. the format version of every --json document --------------------------------------

def store_args(db: Path, *more: str) -> list[str]:
    return ["migrate", "--from", "fdb-tuple", "--to", "skv", "-s", SCHEMA_TEXT, "--sqlite",
            str(db), "--table", "kv", "--key-column", "k", "--no-progress", *more]


def assert_versioned(text: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(text)
    assert next(iter(document)) == "format_version"
    assert document["format_version"] == JSON_FORMAT_VERSION == 1
    return document


def test_the_report_json_has_a_format_version(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, row_values(50))
    code, out, _ = run(capsys, *store_args(db, "--json"))
    assert code == 0
    report = assert_versioned(out)
    assert report["keys"] == 50
    assert report["copy_s"] + report["verify_s"] + report["swap_s"] + report[
        "other_s"] == pytest.approx(report["seconds"])


def test_the_dry_run_json_has_a_format_version(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, row_values(50))
    code, out, _ = run(capsys, *store_args(db, "--dry-run", "--json"))
    assert code == 0
    result = assert_versioned(out)
    assert (result["would_succeed"], result["written"]) == (True, False)


def test_the_report_of_hex_lines_has_a_format_version(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    (tmp_path / "in.hex").write_text(FDB.encode(("a", 1)).hex() + "\n", encoding="utf-8")
    code, out, err = run(capsys, "migrate", "--from", "fdb-tuple", "--to", "skv", "-s",
                         SCHEMA_TEXT, "--input", str(tmp_path / "in.hex"), "--json",
                         "--no-progress")
    assert code == 0
    assert len(out.splitlines()) == 1  # the new key; the report went to stderr
    assert assert_versioned(err)["keys"] == 1
