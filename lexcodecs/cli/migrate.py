"""``lexcodecs migrate``: transcode stored keys from one format to another.

The work is :mod:`lexcodecs.migrate`; the command builds the :class:`~lexcodecs.migrate.Transcoder`
from ``--from``/``--to`` (with their options) and ``-s``, and runs exactly one of: hex lines
(``--input``, with ``--output`` written to a temporary file and renamed, so it appears whole or
not at all), an SQLite table (``--sqlite --table --key-column``), an LMDB environment
(``--lmdb``) or a RocksDB database (``--rocksdb``, every column family). The report goes to
stdout, or to stderr when stdout carries the new keys.

``--dry-run`` reads the same keys read-only and prints what the run would do
(:mod:`lexcodecs.migrate.dry_run`), writing nothing; its exit status is 1 when the run would
be refused. A store is checked before anything is opened for writing: ``--sqlite`` must name
a writable SQLite database file (a directory, a missing or read-only file, or a file that is
not a database is one line, not a traceback). Progress is one bar per phase (copying, then
verifying; reading for a dry run), each counting keys, with its total, percent and ETA.
``--json`` prints the report or the dry run as every command's documents are written
(:func:`~lexcodecs.cli.arguments.json_text`: ``format_version`` first).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .._console import Progress
from ..codec import Codec
from ..migrate.defaults import BATCH_SIZE
from ..registry import get_codec
from ..schema import KeySchema
from ..sources.paths import path_problem
from .arguments import CliError, Subparsers, _options, _progress_bar, count, json_text

if TYPE_CHECKING:  # imported when the command runs: every other command starts faster
    from ..migrate import DryRun, MigrationReport, Transcoder

__all__ = ["batch_size", "map_size", "run_migrate"]


def _add_migrate(commands: Subparsers) -> None:
    p = commands.add_parser(
        "migrate", help="transcode stored keys from one format to another",
        description="Re-encode the keys of hex lines, an SQLite table, an LMDB environment "
        "or a RocksDB database from one codec to another: copy in batches, verify, then "
        "swap; an interrupted run resumes.")
    p.add_argument("--from", dest="source", required=True, metavar="CODEC",
                   help="registry name of the codec the keys are in now (see: lexcodecs "
                   "list), or 'auto': the codec and schema lexcodecs identify finds with high "
                   "confidence in a sample of the keys, shown before anything is written")
    p.add_argument("--to", dest="target", required=True, metavar="CODEC",
                   help="registry name of the codec to write the keys in")
    p.add_argument("-s", "--schema", metavar="SCHEMA",
                   help="the schema of the keys, e.g. 'tenant:string, ts:int64 desc' "
                   "(required, but with --from auto: the schema it finds)")
    p.add_argument("--from-option", dest="from_options", action="append", metavar="OPT=VALUE",
                   help="an option of the --from codec (repeatable); VALUE is a Python "
                   "literal, else a string")
    p.add_argument("--to-option", dest="to_options", action="append", metavar="OPT=VALUE",
                   help="an option of the --to codec (repeatable), as --from-option")
    p.add_argument("--input", metavar="FILE", help="hex keys, one per line ('-': stdin)")
    p.add_argument("--output", metavar="FILE", help="where the new hex keys go ('-': stdout)")
    p.add_argument("--sqlite", metavar="DB", help="an SQLite database file")
    p.add_argument("--table", metavar="T", help="the table (with --sqlite)")
    p.add_argument("--key-column", metavar="C", help="its key column, the primary key")
    p.add_argument("--lmdb", metavar="PATH", help="an LMDB environment (needs lexcodecs[lmdb])")
    p.add_argument("--rocksdb", metavar="PATH",
                   help="a RocksDB database, every column family (needs lexcodecs[rocksdb])")
    p.add_argument("--batch-size", type=batch_size, default=BATCH_SIZE, metavar="N",
                   help=f"keys per committed batch (default {BATCH_SIZE})")
    p.add_argument("--map-size", type=map_size, default=None, metavar="BYTES",
                   help="with --lmdb: the new environment's first map size (e.g. 64MiB, "
                   "1GiB); it doubles whenever it fills (default: twice the source's use, at "
                   "least 64MiB)")
    p.add_argument("--workers", type=count(0), default=None, metavar="N",
                   help="with --sqlite, --lmdb or --rocksdb: worker processes that share the "
                   "verification (default: one per processor but one, from 200,000 keys)")
    p.add_argument("--keep-old", action="store_true",
                   help="keep the old table/environment (<name>__lexcodecs_old / .lexcodecs-old)")
    p.add_argument("--restart", action="store_true",
                   help="discard an unfinished migration instead of resuming it")
    p.add_argument("--dry-run", action="store_true",
                   help="write nothing: print the plan, the key counts, the key growth, "
                   "collisions and refusals (exit status 1 if the run would be refused)")
    p.add_argument("--sample", type=count(1), default=None, metavar="N",
                   help="with --dry-run: transcode about N keys spread through the store "
                   "(the first N of --input) instead of every key")
    p.add_argument("--json", action="store_true",
                   help="print the report (or the dry run) as JSON, format_version first")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars (drawn only when stderr is a terminal)")
    p.set_defaults(run=run_migrate)


#: ``--from auto``: the codec and schema found in this many keys of the source (a seeded
#: sample), used only at high confidence
AUTO: Final = "auto"
AUTO_SAMPLE: Final = 1000


def _auto_source(args: argparse.Namespace) -> tuple[Codec, KeySchema]:
    """``--from auto``: the first candidate of :func:`lexcodecs.identify` on a sample of the
    source's keys, when its confidence is high (said on stderr before anything is written);
    a CliError otherwise, naming the best reading."""
    from ..identification import identify
    from ..sources.raw_keys import read_raw_hex, read_raw_lmdb, read_raw_rocksdb, read_raw_sqlite
    from ..sources.records import SourceError

    if args.from_options:
        raise CliError("--from auto finds the codec's options too: name the codec to give "
                       "it options")
    if args.input == "-":
        raise CliError("--from auto reads the keys twice: give --input a file, not standard "
                       "input")
    try:
        if args.input is not None:
            raw = read_raw_hex(args.input, sample=AUTO_SAMPLE)
        elif args.sqlite is not None:
            raw = read_raw_sqlite(args.sqlite, args.table, args.key_column, sample=AUTO_SAMPLE)
        elif args.lmdb is not None:
            raw = read_raw_lmdb(args.lmdb, sample=AUTO_SAMPLE)
        else:
            raw = read_raw_rocksdb(args.rocksdb, sample=AUTO_SAMPLE)
    except SourceError as exc:
        raise CliError(f"--from auto: {exc}") from None
    found = identify(raw.keys, limit=1).candidates
    if not found or found[0].confidence != "high":
        seen = (f"they look most like {found[0].codec} {found[0].schema}, with only "
                f"{found[0].confidence} confidence" if found else "no format explains them")
        raise CliError(f"--from auto: {seen} (lexcodecs identify shows the evidence): give "
                       "--from CODEC and -s SCHEMA")
    best = found[0]
    schema = KeySchema.parse(args.schema if args.schema is not None else best.schema)
    print(f"--from auto: the keys look like {best.codec} {best.schema} (high confidence, "
          f"from {len(raw.keys):,} of them); migrating them as {best.codec}, schema {schema}",
          file=sys.stderr)
    return get_codec(best.codec, **best.options), schema


def batch_size(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a batch holds at least one key")
    return value


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 10**6,
          "mib": 1 << 20, "g": 1 << 30, "gb": 10**9, "gib": 1 << 30, "t": 1 << 40,
          "tb": 10**12, "tib": 1 << 40}


def map_size(text: str) -> int:
    """A size in bytes: a number with an optional unit (KiB, MiB, GiB, TiB; KB, MB...)."""
    number = text.strip().rstrip("bBiIkKmMgGtT")
    unit = text.strip()[len(number):].lower()
    try:
        value = int(number) * _UNITS[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"{text}: not a size (e.g. 1073741824, 512MiB, "
                                         "2GiB)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a map holds at least one byte")
    return value


def run_migrate(args: argparse.Namespace) -> int:
    from ..migrate import Transcoder, migrate_lmdb, migrate_rocksdb, migrate_sqlite

    modes = [m for m in ("input", "sqlite", "lmdb", "rocksdb") if getattr(args, m) is not None]
    if args.map_size is not None and args.lmdb is None:
        raise CliError("--map-size goes with --lmdb")
    if len(modes) != 1:
        raise CliError("say where the keys are: --input FILE (hex lines), --sqlite DB, "
                       "--lmdb PATH or --rocksdb PATH (exactly one)")
    if args.sqlite is not None and (not args.table or not args.key_column):
        raise CliError("--sqlite needs --table and --key-column")
    if args.source == AUTO:
        source, schema = _auto_source(args)
    elif args.schema is None:
        raise CliError("-s SCHEMA is needed: the schema the keys were written with "
                       "(--from auto finds the codec and schema when the keys say them)")
    else:
        source, schema = get_codec(args.source, **_options(args.from_options)), \
            KeySchema.parse(args.schema)
    target = get_codec(args.target, **_options(args.to_options))
    transcoder = Transcoder(source, target, schema)
    if args.sample is not None and not args.dry_run:
        raise CliError("--sample goes with --dry-run")
    if args.workers is not None and (args.input is not None or args.dry_run):
        raise CliError("--workers goes with a store migration (--sqlite, --lmdb, --rocksdb)")
    if args.sqlite is not None:
        _check_sqlite(args.sqlite, writing=not args.dry_run)
    if args.lmdb is not None:
        _check_lmdb(args.lmdb)
    if args.rocksdb is not None:
        _check_rocksdb(args.rocksdb)
    if args.dry_run:
        return _dry_run(args, transcoder)
    with _Phases(args) as bars:
        if args.input is not None:
            report = _migrate_lines(args, transcoder, bars.update)
        elif args.sqlite is not None:
            report = migrate_sqlite(args.sqlite, args.table, args.key_column, transcoder,
                                    batch_size=args.batch_size, keep_old=args.keep_old,
                                    restart=args.restart, progress=bars.update,
                                    phase=bars.start, workers=args.workers)
        elif args.rocksdb is not None:
            report = migrate_rocksdb(args.rocksdb, transcoder, batch_size=args.batch_size,
                                     keep_old=args.keep_old, restart=args.restart,
                                     progress=bars.update, phase=bars.start,
                                     workers=args.workers)
        else:
            report = migrate_lmdb(args.lmdb, transcoder, batch_size=args.batch_size,
                                  keep_old=args.keep_old, restart=args.restart,
                                  progress=bars.update, map_size=args.map_size,
                                  phase=bars.start, workers=args.workers)
    text = json_text(report.to_dict()) if args.json else report.summary()
    print(text, file=sys.stderr if args.input is not None and args.output in (None, "-")
          else sys.stdout)
    return 0


class _Phases:
    """One progress bar per phase of a migration: :meth:`start` closes the bar of the phase
    before and opens the next one, with its label and total; :meth:`update` moves it.

    A total is exact but for RocksDB's copy, whose total is RocksDB's estimate of its keys
    (an exact count would cost a scan of every key, a tenth of the migration; the estimate
    is off after deletes and overwrites). So a bar never shows more done than its total (the
    total grows to the count), and a phase that ends, when the next one starts, ends at its
    own count: every bar is left at 100% of what its phase did (unless this run did none of
    it: a resumed copy that had nothing left)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.bar: Progress | None = None
        if args.input is not None:  # a stream has one phase, and no total ahead
            self.bar = _progress_bar(args, "migrating", None)

    def start(self, label: str, total: int) -> None:
        if self.bar is not None and self.bar.total is not None and self.bar.done:
            self.bar.set_total(self.bar.done)  # its phase is done
        self.close()
        self.bar = _progress_bar(self.args, label, total)

    def update(self, done: int) -> None:
        if self.bar is not None:
            if self.bar.total is not None and done > self.bar.total:
                self.bar.set_total(done)
            self.bar.update(done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> _Phases:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_sqlite(path: str, *, writing: bool) -> None:
    """Refuse, in one line, a --sqlite path that is no database a migration can use."""
    where = f"--sqlite {path}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise CliError(f"{where}: no such database file") from None
    except OSError as exc:
        raise CliError(f"{where}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise CliError(f"{where}: is a directory; name the SQLite database file in it")
    reason = path_problem(path, "sqlite")  # a pipe or a device, here or as its journal
    if reason is not None:
        raise CliError(f"{where}: {reason}")
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise CliError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    if head and head != b"SQLite format 3\x00":  # an empty file is an empty database
        raise CliError(f"{where}: not an SQLite database (it does not start with SQLite's "
                       "header)")
    if writing:
        # a migration writes the database, its journal and a lock file next to it; a file
        # nobody may write is refused even for root, who could, since it was made read-only
        # on purpose
        if not os.access(path, os.W_OK) or not info.st_mode & 0o222:
            raise CliError(f"{where}: the file is read-only; a migration rewrites it (make it "
                           "writable, or look first with --dry-run)")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.access(folder, os.W_OK):
            raise CliError(f"{where}: its directory {folder} is read-only; SQLite and the "
                           "migration write files next to the database")


def _check_lmdb(path: str) -> None:
    env = Path(path)
    if not env.exists() and not any(  # not a swap interrupted halfway either
            env.with_name(env.name + suffix).exists()
            for suffix in (".lexcodecs-old", ".lexcodecs-state")):
        raise CliError(f"--lmdb {path}: no such LMDB environment")


def _check_rocksdb(path: str) -> None:
    db = Path(path)
    if not db.exists() and not any(  # not a swap interrupted halfway either
            db.with_name(db.name + suffix).exists()
            for suffix in (".lexcodecs-old", ".lexcodecs-state")):
        raise CliError(f"--rocksdb {path}: no such RocksDB database")


def _dry_run(args: argparse.Namespace, transcoder: Transcoder) -> int:
    from ..migrate import dry_run_lmdb, dry_run_rocksdb, dry_run_sqlite

    with _Phases(args) as bars:
        if args.input is not None:
            result = _dry_run_lines(args, transcoder, bars.update)
        elif args.sqlite is not None:
            result = dry_run_sqlite(args.sqlite, args.table, args.key_column, transcoder,
                                    sample=args.sample, batch_size=args.batch_size,
                                    keep_old=args.keep_old, progress=bars.update,
                                    phase=bars.start)
        else:
            dry_run_store = dry_run_lmdb if args.lmdb is not None else dry_run_rocksdb
            result = dry_run_store(args.lmdb or args.rocksdb, transcoder, sample=args.sample,
                                   batch_size=args.batch_size, keep_old=args.keep_old,
                                   progress=bars.update, phase=bars.start)
    print(json_text(result.to_dict()) if args.json else result.summary())
    return 0 if result.would_succeed else 1


def _dry_run_lines(args: argparse.Namespace, transcoder: Transcoder,
                   progress: Callable[[int], None]) -> DryRun:
    from ..migrate import dry_run_lines

    if args.input == "-":
        return dry_run_lines(transcoder, sys.stdin, sample=args.sample, progress=progress)
    try:
        with open(args.input, encoding="utf-8") as source:
            return dry_run_lines(transcoder, source, sample=args.sample, progress=progress)
    except OSError as exc:
        raise CliError(f"--input {args.input}: {exc.strerror or exc}") from None


def _migrate_lines(args: argparse.Namespace, transcoder: Transcoder,
                   progress: Callable[[int], None] | None) -> MigrationReport:
    from ..migrate import migrate_lines

    with contextlib.ExitStack() as stack:
        try:
            source = sys.stdin if args.input == "-" else stack.enter_context(
                open(args.input, encoding="utf-8"))
        except OSError as exc:
            raise CliError(f"--input {args.input}: {exc.strerror or exc}") from None
        if args.output in (None, "-"):
            return migrate_lines(transcoder, source, sys.stdout, progress=progress)
        tmp = args.output + ".lexcodecs-tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                report = migrate_lines(transcoder, source, out, progress=progress)
            os.replace(tmp, args.output)  # the output appears whole or not at all
        except OSError as exc:
            raise CliError(f"--output {args.output}: {exc.strerror or exc}") from None
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return report
    raise AssertionError("unreachable")
