"""Malformed input to every ``lexcodecs`` subcommand (issue 15, item 3): the command says
what was wrong on one line and exits 1 or 2; it never prints a traceback.

Each case runs ``main()`` in this process, with its own standard input and working directory;
one case per subcommand also runs the real command in a subprocess (``python -m lexcodecs``), as
a user would, so the interpreter's own entry point is held to the same rule. (A subprocess per
case cost about 0.45 s each, 40 s of the suite, and tested the same code.)
"""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

import pytest

from lexcodecs.cli import SUBCOMMANDS, main

ROOT = Path(__file__).resolve().parent.parent

HUGE_INT = "1" + "0" * 5000
HUGE_HEX = "22" + "f9" * 3 + "ff" * 3  # an sqlite4 number header with a large exponent

#: (argv, stdin); "{tmp}" is replaced by a scratch directory holding:
#: ``dir/`` (a directory), ``junk.txt`` (not hex, not JSON), ``bin.dat`` (invalid UTF-8),
#: ``ro.db`` (a read-only SQLite database with a table ``t``)
CASES: list[tuple[list[str], str | None]] = [
    # list
    (["list", "--bogus"], None),
    (["list", "extra"], None),
    # encode
    (["encode"], None),
    (["encode", "-c", "nope", "(1,)"], None),
    (["encode", "-c", "sqlite4", "(1,"], None),
    (["encode", "-c", "sqlite4", "__import__('os')"], None),
    (["encode", "-c", "sqlite4", "(" * 5000 + ")" * 5000], None),
    (["encode", "-c", "sqlite4", "[" * 200 + "]" * 200], None),
    (["encode", "-c", "sqlite4", f"({HUGE_INT},)"], None),
    (["encode", "-c", "sqlite4", f"({HUGE_INT}0000,)"], None),
    (["encode", "-c", "sqlite4", "-s", "a:int64", f"({HUGE_INT},)"], None),
    (["encode", "-c", "orderly", "-s", "a:decimal", f"({HUGE_INT},)"], None),
    (["encode", "-c", "orderly", "-s", "a:decimal", "(Decimal('1e999999999999'),)"], None),
    (["encode", "-c", "lexkey", "-s", "a:int8", "(1000,)"], None),
    (["encode", "-c", "fdb-tuple", f"({HUGE_INT},)"], None),
    (["encode", "-c", "skv", "-s", "a:int64", "('x',)"], None),
    (["encode", "-c", "skv", "-s", "a:", "(1,)"], None),
    (["encode", "-c", "FDB-TUPLE", "(1,)"], None),
    (["encode", "-c", "skv", "-s", "a:int64 b:string", "(1, 'x')"], None),
    (["encode", "-c", "sqlite4", "-s", "a:int64 bogus=1", "(1,)"], None),
    (["encode", "-c", "sqlite4", "-o", "nonsense", "(1,)"], None),
    (["encode", "-c", "sqlite4", "-o", "bogus=1", "(1,)"], None),
    (["encode", "-c", "sqlite4", "(float('nan'),)"], None),
    (["encode", "-c", "sqlite4", "('\\ud800',)"], None),
    (["encode", "-c", "sqlite4", "(Decimal('x'),)"], None),
    (["encode", "-c", "lexkey", "(datetime('nope'),)"], None),
    (["encode", "-c", "sqlite4", "1" * 100_000], None),
    (["encode", "-c", "sqlite4", "-" * 100_000 + "1"], None),
    # decode
    (["decode", "-c", "sqlite4", "22f900ff9902"], None),
    (["decode", "-c", "sqlite4", HUGE_HEX], None),
    (["decode", "-c", "sqlite4", "zz"], None),
    (["decode", "-c", "sqlite4", "abc"], None),
    (["decode", "-c", "sqlite4", "-s", "a:int64", "22f900ff9902"], None),
    (["decode", "-c", "orderly", "ff"], None),
    (["decode", "-c", "lexkey", "-s", "a:int64", "00"], None),
    (["decode", "-c", "fdb-tuple", "05" * 3000 + "00" * 3000], None),
    (["decode", "-c", "skv", "ff" * 1000], None),
    (["decode", "-c", "sqlite4", "-s", "a:bogus", "00"], None),
    (["decode", "-c", "nope", "00"], None),
    # inspect
    (["inspect", "-c", "sqlite4", "-s", "a:int64", "22f900ff9902"], None),
    (["inspect", "-c", "fdb-tuple", "05" * 3000 + "00" * 3000], None),
    (["inspect", "-c", "sqlite4", "0xgg"], None),
    (["inspect", "-c", "nope", "00"], None),
    # compare
    (["compare", "-s", "a:"], None),
    (["compare", "--records", "{tmp}/missing.jsonl"], None),
    (["compare", "--records", "{tmp}/dir"], None),
    (["compare", "--records", "{tmp}/junk.txt"], None),
    (["compare", "--records", "{tmp}/bin.dat"], None),
    (["compare", "--records", "-"], "[1, 2\n"),
    (["compare", "--records", "-", "-s", "a:int64"], f"[{HUGE_INT}]\n"),
    (["compare", "--records", "-", "-s", "a:int64"], "[1, 2, 3]\n"),
    (["compare", "--records", "-", "-s", "a:int64"], "{}\n"),
    (["compare", "-n", "-5"], None),
    (["compare", "-n", "x"], None),
    (["compare", "-c", "nope", "-n", "3"], None),
    (["compare", "--store", "nowhere"], None),
    # migrate
    (["migrate"], None),
    (["migrate", "--from", "nope", "--to", "sqlite4", "-s", "a:int64", "--input", "-"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:", "--input", "-"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "{tmp}/missing.txt"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "{tmp}/dir"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "{tmp}/junk.txt"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "{tmp}/bin.dat"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-"], "zz\n"),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-"], "22f900ff9902\n"),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--output", "{tmp}/dir"], "1502\n"),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--output", "{tmp}/nodir/out.txt"], "1502\n"),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/missing.db", "--table", "t", "--key-column", "k"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/dir", "--table", "t", "--key-column", "k"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/junk.txt", "--table", "t", "--key-column", "k"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/junk.txt"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/ro.db", "--table", "t", "--key-column", "k"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/dir", "--table", "t", "--key-column", "k", "--dry-run"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--sqlite", "{tmp}/ro.db", "--table", "nope", "--key-column", "k", "--dry-run"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--dry-run", "--sample", "0"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--lmdb", "{tmp}/missing"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--lmdb", "{tmp}/junk.txt"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--batch-size", "0"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--batch-size", "x"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--from-option", "bogus=1", "--input", "-"], ""),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--lmdb", "{tmp}/missing", "--workers", "-1"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--lmdb", "{tmp}/missing", "--workers", "many"], None),
    (["migrate", "--from", "sqlite4", "--to", "orderly", "-s", "a:int64",
      "--input", "-", "--workers", "1"], ""),
    # identify
    (["identify"], None),
    (["identify", "{tmp}/missing.hex"], None),
    (["identify", "{tmp}/dir"], None),
    (["identify", "{tmp}/junk.txt"], None),
    (["identify", "{tmp}/bin.dat"], None),
    (["identify", "-"], "zz\n"),
    (["identify", "-"], "abc\n"),
    (["identify", "-"], "\n\n"),
    (["identify", "-", "--lmdb", "{tmp}/dir"], ""),
    (["identify", "-", "--table", "t"], ""),
    (["identify", "-", "--sample", "0"], ""),
    (["identify", "-", "--sample", "many"], ""),
    (["identify", "-", "--limit", "-1"], ""),
    (["identify", "-", "-c", "nope"], "00\n"),
    (["identify", "--sqlite", "{tmp}/missing.db", "--table", "t", "--key-column", "k"], None),
    (["identify", "--sqlite", "{tmp}/dir", "--table", "t", "--key-column", "k"], None),
    (["identify", "--sqlite", "{tmp}/junk.txt", "--table", "t", "--key-column", "k"], None),
    (["identify", "--sqlite", "{tmp}/ro.db", "--table", "nope", "--key-column", "k"], None),
    (["identify", "--sqlite", "{tmp}/ro.db", "--table", "t", "--key-column", "nope"], None),
    (["identify", "--sqlite", "{tmp}/ro.db", "--table", "t", "--key-column", "k"], None),
    (["identify", "--sqlite", "{tmp}/ro.db"], None),
    (["identify", "--lmdb", "{tmp}/missing"], None),
    (["identify", "--lmdb", "{tmp}/junk.txt"], None),
    (["identify", "--rocksdb", "{tmp}/missing"], None),
    (["identify", "--rocksdb", "{tmp}/dir"], None),
    (["identify", "--rocksdb", "{tmp}/junk.txt"], None),
    # conformance
    (["conformance", "-c", "nope"], None),
    (["conformance", "--examples", "x"], None),
    (["conformance", "-c", "sqlite4", "--examples", "-1", "--no-progress"], None),
    # completion
    (["completion"], None),
    (["completion", "tcsh"], None),
    (["completion", "bash", "zsh"], None),
    # no subcommand, unknown subcommand
    ([], None),
    (["frobnicate"], None),
]


#: odd but valid input: the command may succeed, but it prints no traceback either
SURVIVE: list[tuple[list[str], str | None]] = [
    (["decode", "-c", "fdb-tuple", "1d" + "ff" * 256], None),
    (["inspect", "-c", "sqlite4", "22f900ff9902"], None),
    (["inspect", "-c", "sqlite4", "--json", "22f900ff9902"], None),
    (["inspect", "-c", "orderly", "-s", "a:int64", "0x"], None),
    (["compare", "--records", "-", "-s", "a:int64", "--no-progress"], '["x"]\n'),
    (["compare", "-n", "0", "-c", "sqlite4", "--no-progress"], None),
    (["identify", "-", "-c", "skv", "--no-progress"], "0x\n"),
    (["identify", "-", "-c", "sqlite4", "--no-progress"], "22f9f9f9ffffff\n"),
]


def test_every_subcommand_is_covered() -> None:
    names = {argv[0] for argv, _ in CASES if argv}
    assert {add.__name__.removeprefix("_add_") for add in SUBCOMMANDS} <= names


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("hostile")
    (tmp / "dir").mkdir()
    (tmp / "junk.txt").write_text("this is not hex\n{not json\n")
    (tmp / "bin.dat").write_bytes(b"\xff\xfe\x00garbage\x80")
    with closing(sqlite3.connect(tmp / "ro.db")) as db:
        db.execute("CREATE TABLE t (k BLOB PRIMARY KEY)")
        db.commit()
    (tmp / "ro.db").chmod(0o444)
    return tmp


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


Run = Callable[[list[str], str | None], "Result"]


def _argv(argv: list[str], scratch: Path) -> list[str]:
    return [a.replace("{tmp}", str(scratch)) for a in argv]


def _no_traceback(result: Result) -> Result:
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "internal error" not in result.stderr, result.stderr[-3000:]
    return result


@pytest.fixture
def run(scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> Run:
    """``main(argv)`` here, in *scratch*, with *stdin* as standard input; an exception that
    escapes ``main`` fails the test as a traceback would."""
    monkeypatch.chdir(scratch)
    monkeypatch.delenv("LEXCODECS_DEBUG", raising=False)

    def run(argv: list[str], stdin: str | None) -> Result:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(
            io.BytesIO((stdin or "").encode()), encoding="utf-8"))
        code = main(_argv(argv, scratch))
        out, err = capsys.readouterr()
        return _no_traceback(Result(code, out, err))

    return run


def _run_process(argv: list[str], stdin: str | None, scratch: Path) -> Result:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HYPOTHESIS_PROFILE="ci")
    env.pop("LEXCODECS_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-m", "lexcodecs", *_argv(argv, scratch)],
        input=stdin if stdin is not None else "", capture_output=True, text=True,
        errors="replace", cwd=scratch, env=env)
    return _no_traceback(Result(done.returncode, done.stdout, done.stderr))


def _refused(result: Result) -> None:
    assert result.returncode in (1, 2), (result.returncode, result.stdout[-500:],
                                         result.stderr[-500:])
    assert result.stderr.strip(), "a refusal must say what was wrong"
    assert len(result.stderr) < 5000, result.stderr[:500]


@pytest.mark.parametrize(("argv", "stdin"), CASES,
                         ids=[" ".join(a)[:60] or "(none)" for a, _ in CASES])
def test_malformed_input_gives_no_traceback(argv: list[str], stdin: str | None, run: Run
                                            ) -> None:
    _refused(run(argv, stdin))


#: the first case of each subcommand, and no subcommand at all
IN_A_PROCESS = list({argv[0] if argv else "": (argv, stdin) for argv, stdin in reversed(CASES)}
                    .values())


@pytest.mark.parametrize(("argv", "stdin"), IN_A_PROCESS,
                         ids=[" ".join(a)[:60] or "(none)" for a, _ in IN_A_PROCESS])
def test_malformed_input_to_the_real_command(argv: list[str], stdin: str | None,
                                            scratch: Path) -> None:
    _refused(_run_process(argv, stdin, scratch))


@pytest.mark.parametrize(("argv", "stdin"), SURVIVE,
                         ids=[" ".join(a)[:60] for a, _ in SURVIVE])
def test_odd_valid_input_gives_no_traceback(argv: list[str], stdin: str | None, run: Run
                                            ) -> None:
    assert run(argv, stdin).returncode in (0, 1, 2)


def test_decode_of_an_unprintable_number_is_one_line(scratch: Path) -> None:
    """The key from the issue: a valid sqlite4 number of 5086 digits, beyond Python's
    int -> str limit. In a subprocess: the limit is the interpreter's own setting."""
    result = _run_process(["decode", "-c", "sqlite4", "22f900ff9902"], None, scratch)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("lexcodecs: error:")
    assert "bits" in result.stderr
