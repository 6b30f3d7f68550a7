"""What a user of the command line and of the REPL meets (issue 16): Ctrl-C, bad store paths,
a failed migration that must not block the next one, ``migrate --dry-run``, ``--version``,
progress per phase, the inspection table, "did you mean", short reprs and ``help()``.

Most cases run ``main([...])`` in-process (cheap); the Ctrl-C ones send a real SIGINT to a
real ``python -m lexcodecs`` (those of ``migrate`` are in tests/test_migrate_kill.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import pydoc
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import lexcodecs
import lexcodecs.cli.command
import lexcodecs.cli.migrate
from lexcodecs import (
    FIELD_TYPES,
    Codec,
    DecodeError,
    EncodeError,
    Field,
    KeySchema,
    SchemaError,
    UnknownCodecError,
    available_codecs,
    default_registry,
    get_codec,
)
from lexcodecs._console import Progress
from lexcodecs.cli import main
from lexcodecs.inspection import inspect_key
from lexcodecs.migrate import (
    STATE_TABLE,
    DryRun,
    MigrationReport,
    Transcoder,
    dry_run_lmdb,
    dry_run_sqlite,
    migrate_lmdb,
    migrate_sqlite,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "tenant:string, n:int64"
FDB = get_codec("fdb-tuple").bind(SCHEMA)
SKV = get_codec("skv").bind(SCHEMA)
MIGRATE = ["migrate", "--from", "fdb-tuple", "--to", "skv", "-s", SCHEMA, "--no-progress"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    """The single line of a refusal, checked to be one line with no traceback."""
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    assert err.startswith("lexcodecs: error: "), err
    return err


def values(n: int) -> list[tuple[str, int]]:
    return [(["acme", "", "b\x00c", "zz"][i % 4], i * 7 - n) for i in range(n)]


def make_table(path: Path, rows: list[tuple[Any, ...]], codec: Any = FDB) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v INTEGER)")
        db.executemany("INSERT INTO kv VALUES (?, ?)",
                       [(codec.encode(r), i) for i, r in enumerate(rows)])
        db.commit()


def objects(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as db:
        return sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master"))


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under *folder* and a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def sqlite_migrate_args(path: Path, *extra: str) -> list[str]:
    return [*MIGRATE, "--sqlite", str(path), "--table", "kv", "--key-column", "k", *extra]


# -- Ctrl-C ------------------------------------------------------------------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="watches the process through /proc")


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*argv: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("LEXCODECS_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", "lexcodecs", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_sigint_default)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt_when(proc: subprocess.Popen[str], reached: Callable[[], bool]) -> str:
    """SIGINT *proc* once *reached*; its standard error, after it exits 130 (checked)."""
    try:
        while not reached():  # no clock: a busy machine reaches it later, never fails
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    return err


@needs_proc
def test_ctrl_c_during_compare_says_nothing_was_written() -> None:
    """A compare that would run for a minute, stopped once it is well past its imports."""
    proc = _start("compare", "-n", "1000000", "-c", "skv", "--no-progress")
    err = _interrupt_when(proc, lambda: _cpu_seconds(proc.pid) > 1.2)
    assert err.startswith("lexcodecs: stopped (Ctrl-C): nothing was written"), err


@needs_proc
def test_ctrl_c_while_reading_standard_input() -> None:
    proc = _start("compare", "--records", "-", "-s", "a:int64", "--no-progress")

    def waiting_for_input() -> bool:
        wchan = Path(f"/proc/{proc.pid}/wchan").read_text()
        return "pipe_read" in wchan or (wchan in ("", "0") and _cpu_seconds(proc.pid) > 0.6)

    err = _interrupt_when(proc, waiting_for_input)
    assert err.startswith("lexcodecs: stopped (Ctrl-C): nothing was written"), err


@pytest.mark.parametrize(("argv", "says"), [
    (["conformance", "-c", "skv"], "no verdict was reached"),
    (["compare"], "nothing was written"),
    ([*MIGRATE, "--sqlite", "x.db", "--table", "kv", "--key-column", "k"],
     "nothing is lost: the original is untouched and the batches copied so far are kept; run "
     "the same command again to resume, or add --restart to start over"),
    ([*MIGRATE, "--lmdb", "env"], "run the same command again to resume"),
    ([*MIGRATE, "--input", "in.txt", "--output", "out.txt"], "nothing was written to --output"),
    ([*MIGRATE, "--input", "-"], "the keys printed so far are only the first ones"),
    ([*MIGRATE, "--sqlite", "x.db", "--table", "kv", "--key-column", "k", "--dry-run"],
     "a dry run writes nothing"),
    (["encode", "-c", "skv", "(1,)"], None),
])
def test_ctrl_c_says_what_to_do_per_command(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                            says: str | None) -> None:
    def interrupted(args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(lexcodecs.cli.command, "_run", interrupted)
    code, out, err = run(capsys, *argv)
    assert (code, out) == (130, "")
    assert err.count("\n") == 1
    assert err.startswith("lexcodecs: stopped (Ctrl-C)")
    if says is not None:
        assert says in err
    else:
        assert err == "lexcodecs: stopped (Ctrl-C)\n"


# -- bad store paths, bad numbers --------------------------------------------------------------


def test_sqlite_paths_that_are_not_databases(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "junk.db").write_text("not a database at all, just text\n")
    make_table(tmp_path / "ro.db", values(5))
    (tmp_path / "ro.db").chmod(0o444)
    cases = {"dir": "is a directory", "missing.db": "no such database file",
             "junk.db": "not an SQLite database", "ro.db": "the file is read-only"}
    try:
        for name, says in cases.items():
            code, out, err = run(capsys, *sqlite_migrate_args(tmp_path / name))
            assert (code, out) == (2, "")
            assert f"--sqlite {tmp_path / name}: {says}" in one_line_error(err)
        assert objects(tmp_path / "ro.db") == ["kv", "sqlite_autoindex_kv_1"]
        # looking is not writing: a dry run reads a read-only database
        code, out, err = run(capsys, *sqlite_migrate_args(tmp_path / "ro.db", "--dry-run"))
        assert (code, err) == (0, "")
        assert "keys: 5 in the store" in out
    finally:
        (tmp_path / "ro.db").chmod(0o644)


def test_compare_refuses_a_negative_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "compare", "-n", "-5")
    assert (code, out) == (2, "")
    assert "-5: must be at least 0" in err
    assert "Traceback" not in err


# -- a failed migration does not block the next one --------------------------------------------


def test_wrong_source_codec_leaves_nothing_then_the_right_one_runs(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, values(40))
    before = objects(db)
    wrong = [a if a != "fdb-tuple" else "sqlite4" for a in sqlite_migrate_args(db)]
    code, _, err = run(capsys, *wrong)
    assert code == 2
    assert "the first key of 'kv'" in one_line_error(err)
    assert "nothing was changed" in err
    assert objects(db) == before  # no state table, no new table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.db"]  # no lock file either
    code, out, err = run(capsys, *sqlite_migrate_args(db))  # no --restart needed
    assert (code, err) == (0, "")
    assert "migrated 40 keys" in out


def test_a_run_refused_mid_copy_does_not_block_one_with_other_settings(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """skv refuses NaN, which fdb-tuple sorts after every number: the copy stops late, keeps
    its batches (the same command resumes once the data is fixed), and a run with another
    target discards them instead of being refused."""
    schema = "x:float64"
    fdb = get_codec("fdb-tuple").bind(schema)
    db = tmp_path / "kv.db"
    make_table(db, [(float(i),) for i in range(50)] + [(math.nan,)], codec=fdb)
    argv = ["migrate", "--from", "fdb-tuple", "-s", schema, "--no-progress", "--sqlite", str(db),
            "--table", "kv", "--key-column", "k", "--batch-size", "10"]
    code, _, err = run(capsys, *argv, "--to", "skv")
    assert code == 2
    assert "NaN is not encodable" in one_line_error(err)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute(f"SELECT copied FROM {STATE_TABLE}").fetchone()[0] == 50
    code, out, err = run(capsys, *argv, "--to", "orderly")
    assert (code, err) == (0, "")
    assert "migrated 51 keys" in out
    assert "discarded the copy of an earlier run with other settings, which was refused" in out
    assert objects(db) == ["kv", "sqlite_autoindex_kv_1"]
    orderly = get_codec("orderly").bind(schema)
    with closing(sqlite3.connect(db)) as conn:
        got = [orderly.decode(k) for (k,) in conn.execute("SELECT k FROM kv ORDER BY k")]
    assert got[:50] == [(float(i),) for i in range(50)]
    assert math.isnan(got[50][0])


def test_a_killed_run_with_other_settings_is_still_refused(tmp_path: Path) -> None:
    """Only a refused run is discarded: a killed one may be wanted, so it still blocks."""
    db = tmp_path / "kv.db"
    make_table(db, values(100))

    def stop(done: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "skv", SCHEMA), batch_size=10,
                       progress=stop)
    with pytest.raises(lexcodecs.migrate.MigrationError, match="other settings"):
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "orderly", SCHEMA))
    assert migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "skv", SCHEMA)).resumed


def test_lmdb_wrong_source_codec_then_the_right_one_runs(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    lmdb = pytest.importorskip("lmdb")
    path = tmp_path / "env"
    with closing(lmdb.open(str(path), map_size=1 << 22)) as env, env.begin(write=True) as txn:
        for i, v in enumerate(values(30)):
            txn.put(FDB.encode(v), b"%d" % i)
    argv = [*MIGRATE, "--lmdb", str(path)]
    code, _, err = run(capsys, *[a if a != "fdb-tuple" else "sqlite4" for a in argv])
    assert code == 2
    one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env"]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert "migrated 30 keys" in out


# -- migrate --dry-run -------------------------------------------------------------------------


def test_dry_run_sqlite_reports_and_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    rows = values(300)
    make_table(db, rows)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, *sqlite_migrate_args(db, "--dry-run"))
    assert (code, err) == (0, "")
    assert snapshot(tmp_path) == before
    old = sum(len(FDB.encode(r)) for r in rows)
    new = sum(len(SKV.encode(r)) for r in rows)
    assert out.startswith(f"dry run: fdb-tuple -> skv, schema {SCHEMA}, sqlite table kv")
    for text in ["plan: copy the 300 rows of 'kv' into a new table 'kv__lexcodecs_new'",
                 "plan: verify", "plan: swap in one transaction: 'kv' is dropped",
                 "keys: 300 in the store, every one read", "collisions: none",
                 "refusals: none", "verdict: the migration would go through"]:
        assert text in out, text
    assert re.search(rf"total \(300 keys\)\s+{old:,}\s+{new:,}\s+[+-]", out), out
    assert re.search(rf"per key\s+{old / 300:,.2f}\s+{new / 300:,.2f}", out), out

    code, out, err = run(capsys, *sqlite_migrate_args(db, "--dry-run", "--json"))
    assert code == 0
    report = json.loads(out)
    assert (report["total"], report["keys"], report["transcoded"]) == (300, 300, 300)
    assert (report["bytes_before"], report["bytes_after"]) == (old, new)
    assert report["growth"]["change_per_key"] == round((new - old) / 300, 2)
    assert (report["collisions"], report["refused"]) == (0, 0)
    assert report["would_succeed"] is True
    assert report["written"] is False
    assert snapshot(tmp_path) == before


def test_dry_run_counts_refusals_and_exits_1(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, values(20))
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO kv VALUES (?, 99)", (b"\x02t\x00\x15",))  # int code, no byte
        conn.execute("INSERT INTO kv VALUES ('text', 98)")
        conn.commit()
    before = snapshot(tmp_path)
    code, out, _ = run(capsys, *sqlite_migrate_args(db, "--dry-run"))
    assert code == 1
    assert snapshot(tmp_path) == before
    assert "refusals: 2 key(s) would be refused" in out
    assert "'text': not a BLOB" in out
    assert "02 74 00 15: fdb-tuple" in out
    assert "keys: 22 in the store" in out
    assert "verdict: the migration would be refused" in out


def test_dry_run_finds_collisions(tmp_path: Path) -> None:
    """Without the value check, lexkey writes ("a\\x00b", "c") and ("a", "b\\x00c") alike."""
    schema = "a:string, b:string"
    db = tmp_path / "kv.db"
    make_table(db, [("a", "a"), ("a\x00b", "c"), ("a", "b\x00c"), ("b", "x")],
               codec=get_codec("fdb-tuple").bind(schema))
    result = dry_run_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "lexkey", schema,
                                                      check=False))
    assert (result.collisions, result.refused, result.would_succeed) == (1, 0, False)
    (example,) = result.collision_examples
    fdb = get_codec("fdb-tuple").bind(schema)
    assert {example["old"], example["other_old"]} == {
        fdb.encode(("a\x00b", "c")).hex(" "), fdb.encode(("a", "b\x00c")).hex(" ")}
    assert example["new"] == get_codec("lexkey").encode(("a", "b\x00c"), schema).hex(" ")
    assert "collisions: 1 old key(s) would become the new key of another one" in \
        result.summary()
    assert repr(result).endswith("4 keys read, would be refused>")


def test_dry_run_sample_reads_keys_spread_through_the_store(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, values(300))
    code, out, _ = run(capsys, *sqlite_migrate_args(db, "--dry-run", "--sample", "10",
                                                      "--json"))
    report = json.loads(out)
    assert (code, report["keys"], report["step"], report["sampled"]) == (0, 10, 30, True)
    code, out, _ = run(capsys, *sqlite_migrate_args(db, "--dry-run", "--sample", "10"))
    assert "10 of the 300 in the store read (every 30th in key order)" in out
    code, _, err = run(capsys, *sqlite_migrate_args(db, "--sample", "10"))
    assert code == 2
    assert "--sample goes with --dry-run" in one_line_error(err)


def test_dry_run_tells_what_the_run_would_do_with_a_recorded_migration(
        tmp_path: Path) -> None:
    db = tmp_path / "kv.db"
    make_table(db, values(100))

    def stop(done: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        migrate_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "skv", SCHEMA), batch_size=10,
                       progress=stop)
    same = dry_run_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "skv", SCHEMA))
    assert "with these settings: the real run resumes it" in same.notes[0]
    other = dry_run_sqlite(db, "kv", "k", Transcoder("fdb-tuple", "orderly", SCHEMA))
    assert "with other settings: the real run refuses unless --restart" in other.notes[0]


def test_dry_run_lmdb_writes_nothing(tmp_path: Path) -> None:
    lmdb = pytest.importorskip("lmdb")
    path = tmp_path / "env"
    rows = values(50)
    with closing(lmdb.open(str(path), map_size=1 << 22)) as env, env.begin(write=True) as txn:
        for i, v in enumerate(rows):
            txn.put(FDB.encode(v), b"%d" % i)
    before = snapshot(tmp_path)
    result = dry_run_lmdb(path, Transcoder("fdb-tuple", "skv", SCHEMA), keep_old=True)
    assert snapshot(tmp_path) == before  # not even a lock file
    assert (result.total, result.keys, result.would_succeed) == (50, 50, True)
    assert result.bytes_after == sum(len(SKV.encode(r)) for r in rows)
    assert "the original is kept as" in result.plan[-1]


def test_dry_run_of_hex_lines_writes_no_output(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    keys = tmp_path / "in.txt"
    keys.write_text("".join(FDB.encode(v).hex() + "\n" for v in values(12)) + "\nzz\n")
    code, out, err = run(capsys, *MIGRATE, "--input", str(keys), "--output",
                         str(tmp_path / "out.txt"), "--dry-run")
    assert (code, err) == (1, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]
    assert "keys: 13 read" in out
    assert "line 14: not hex: 'zz'" in out


# -- --version ---------------------------------------------------------------------------------


def test_version_says_compiled_or_pure_and_why(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXCODECS_PURE", raising=False)
    code, out, _ = run(capsys, "--version")
    kind, reason = lexcodecs.cli.command.implementation()
    assert code == 0
    assert out.startswith(f"lexcodecs {lexcodecs.__version__} ({kind}")
    if kind == "compiled":
        assert reason is None
        assert out.startswith(f"lexcodecs {lexcodecs.__version__} (compiled; Python ")
    monkeypatch.setitem(sys.modules, "lexcodecs.codecs.skv._compiled", None)  # not importable
    _, out, _ = run(capsys, "--version")
    assert "(pure Python (reference): compiled modules missing: skv (" in out
    monkeypatch.setenv("LEXCODECS_PURE", "1")
    _, out, _ = run(capsys, "--version")
    assert "(pure Python (reference): LEXCODECS_PURE is set;" in out


# -- progress ----------------------------------------------------------------------------------


def test_store_migrations_report_each_phase_with_its_total(tmp_path: Path) -> None:
    lmdb = pytest.importorskip("lmdb")
    rows = values(250)
    db = tmp_path / "kv.db"
    make_table(db, rows)
    env_path = tmp_path / "env"
    with closing(lmdb.open(str(env_path), map_size=1 << 22)) as env, \
            env.begin(write=True) as txn:
        for i, v in enumerate(rows):
            txn.put(FDB.encode(v), b"%d" % i)
    for migrate in (lambda **kw: migrate_sqlite(db, "kv", "k", **kw),
                    lambda **kw: migrate_lmdb(env_path, **kw)):
        seen: list[tuple[str, int | None, list[int]]] = []

        def phase(label: str, total: int, seen: list[Any] = seen) -> None:
            seen.append((label, total, []))

        def progress(done: int, seen: list[Any] = seen) -> None:
            seen[-1][2].append(done)

        migrate(transcoder=Transcoder("fdb-tuple", "skv", SCHEMA), batch_size=40, phase=phase,
                progress=progress)
        assert [(label, total) for label, total, _ in seen] == [("copying", 250),
                                                              ("verifying", 250)]
        for _, total, done in seen:
            assert done == sorted(done)
            assert done[-1] == total


def test_cli_draws_a_bar_per_phase(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    drawn = io.StringIO()
    bars: list[Progress] = []

    def bar(args: Any, label: str, total: int | None) -> Progress:
        bars.append(Progress(label, total, stream=drawn, enabled=True))
        return bars[-1]

    monkeypatch.setattr(lexcodecs.cli.migrate, "_progress_bar", bar)
    db = tmp_path / "kv.db"
    make_table(db, values(120))
    code, _, _ = run(capsys, *sqlite_migrate_args(db, "--batch-size", "50"))
    assert code == 0
    assert [(b.label, b.total, b.done) for b in bars] == [("copying", 120, 120),
                                                          ("verifying", 120, 120)]
    text = drawn.getvalue()
    for word in ("copying", "verifying", "100%", "eta"):
        assert word in text, word


# -- the inspection table ----------------------------------------------------------------------


def test_inspection_table_keeps_every_part(impl: str) -> None:
    codec = get_codec("skv")
    schema = "t:string, n:int64 desc, f:bool nulls last"
    key = codec.encode(("a\x00b", -5, None), schema)
    found = inspect_key(codec, key, schema)
    text = found.render()
    lines = text.splitlines()
    assert lines[0] == f"skv key {key.hex(' ')} ({len(key)} bytes), schema {schema}"
    assert re.split(r"\s{2,}", lines[1]) == ["bytes", "hex", "role", "meaning"]
    for f in found.fields:
        assert re.search(rf"^\[{f.start}:{f.end}\]\s+field {f.index} '{f.name}'\s+{f.kind} = ",
                         text, re.M)
        for p in f.parts:
            cells = [f"[{p.start}:{p.end}]", key[p.start:p.end].hex(" ") or "(none)", p.role,
                     p.text]
            assert any(re.split(r"\s{2,}", line) == cells for line in lines), cells
    narrow = found.render(width=50)
    assert max(len(line) for line in narrow.splitlines()) <= 50
    assert repr(found) == f"<Inspection skv key {key[:8].hex(' ')} … ({len(key)} bytes), " \
                          "3 fields>"


# -- did you mean ------------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "meant"), [("FDB-TUPLE", "fdb-tuple"), ("Fdb_Tuple",
                         "fdb-tuple"), ("SKV", "skv"), ("Lexkey Legacy", "lexkey-legacy")])
def test_codec_name_slips_get_did_you_mean(capsys: pytest.CaptureFixture[str], typed: str,
                                           meant: str) -> None:
    with pytest.raises(UnknownCodecError) as info:
        get_codec(typed)
    assert info.value.close_matches == (meant,)
    code, _, err = run(capsys, "encode", "-c", typed, "(1,)")
    assert code == 2
    assert f"unknown codec {typed!r}; did you mean {meant!r}?" in one_line_error(err)


def test_a_missing_comma_in_a_schema_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "encode", "-c", "skv", "-s", "a:int64 b:string", "(1, 'x')")
    assert code == 2
    first, text, caret = err.splitlines()
    assert first.startswith("lexcodecs: error: 'b' starts another field: missing a comma "
                            "before 'b'?")
    assert (text, caret) == ("  a:int64 b:string", "          ^")


def test_parse_documents_the_grammar() -> None:
    doc = KeySchema.parse.__doc__ or ""
    for word in (*FIELD_TYPES, "asc", "desc", "nulls", "first", "last", 'OPTION "=" VALUE',
                 "true", "double-quoted"):
        assert word in doc, word


# -- the REPL ----------------------------------------------------------------------------------


def _integer_field(codec: Codec) -> str:
    """An int64 field, or ``int`` for a codec without int64 (ordered-binary's JS numbers)."""
    return "n:int64" if "int64" in codec.capabilities.field_types else "n:int"


def test_short_reprs_of_public_objects() -> None:
    schema = KeySchema.parse("id:bytes length=16, ts:int64 desc nulls first, s:string")
    assert repr(schema) == ("KeySchema.parse('id:bytes length=16, ts:int64 desc nulls first, "
                            "s:string')")
    assert eval(repr(schema), {"KeySchema": KeySchema}) == schema
    assert repr(schema[1]) == "Field('ts', 'int64', descending=True, nulls='first')"
    assert eval(repr(schema[0]), {"Field": Field}) == schema[0]
    for name in available_codecs():
        codec = get_codec(name)
        assert re.fullmatch(r"<\w+ '[\w-]+'[^<>]*>", repr(codec)), repr(codec)
        n = _integer_field(codec)
        bound = codec.bind(n) if name not in ("lexkey", "lexkey-legacy") else \
            codec.bind(f"{n}, s:string")
        assert len(repr(bound)) < 80, repr(bound)
        assert str(bound.schema) in repr(bound)
    error = EncodeError("out of range", codec="skv", field=1, field_name="ts", value=70000)
    assert repr(error) == "EncodeError(\"skv: field 1 'ts': 70000: out of range\")"
    assert repr(DecodeError("unknown type code", codec="skv", offset=3)) == \
        "DecodeError('skv: at byte 3: unknown type code')"
    with pytest.raises(SchemaError) as info:
        KeySchema.parse("a:int64 b:string")
    assert repr(info.value).startswith("SchemaError(\"'b' starts another field")
    assert "\n" not in repr(info.value)
    assert repr(default_registry).startswith("<Registry of ")
    assert repr(MigrationReport("fdb-tuple", "skv", SCHEMA, "hex lines", keys=3)) == \
        "<MigrationReport fdb-tuple -> skv (hex lines): 3 keys, 0 order changes>"
    assert repr(DryRun("fdb-tuple", "skv", SCHEMA, "hex lines")) == \
        "<DryRun fdb-tuple -> skv (hex lines): 0 keys read, would go through>"


#: names from attrs and typing that pydoc shows on classes built with them (not ours)
_MACHINERY = {"_cache_wrapper", "_frozen_delattrs", "_frozen_setattrs",
              "_no_init_or_replace_init", "_proto_hook"}
_PRIVATE = re.compile(r"(?<![\w.])_[A-Za-z]\w*")


def test_help_shows_the_public_contract() -> None:
    text = pydoc.render_doc(lexcodecs, renderer=pydoc.plaintext)
    sections = dict(re.findall(r"^([A-Z][A-Z ]+)\n((?:(?: {4}.*)?\n)*)", text, re.M))
    # every function and datum listed is in __all__, and the description tells the modules
    listed = {name for name in re.findall(r"^    (\w+)(?: = |\()",
                                          sections["FUNCTIONS"] + sections["DATA"], re.M)
              if not name.startswith("__")}  # pydoc shows every dunder, __all__ included
    assert "get_codec" in listed
    assert listed <= set(lexcodecs.__all__), listed
    private_modules = {m for m in sections["PACKAGE CONTENTS"].split() if m.startswith("_")}
    assert private_modules - {"__main__"}  # help() lists every file of the package
    description = " ".join(sections["DESCRIPTION"].split())
    assert "Modules whose names start with ``_`` (listed by ``help()`` among the package " \
        "contents, as it lists every file) are private." in description
    for name in ("codec", "schema", "errors", "registry", "migrate", "inspection", "compare"):
        assert f":mod:`lexcodecs.{name}`" in description, name
    assert set(_PRIVATE.findall(text)) <= _MACHINERY | private_modules
    for name in available_codecs():
        codec = get_codec(name)
        for shown in (codec, codec.bind(f"{_integer_field(codec)}, s:string")):
            assert not set(_PRIVATE.findall(pydoc.render_doc(shown, renderer=pydoc.plaintext))
                           ) - _MACHINERY, (name, shown)
