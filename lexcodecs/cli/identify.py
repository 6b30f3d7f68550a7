"""``lexcodecs identify``: which codec and schema wrote some stored keys.

The keys come from exactly one source, read as raw bytes by :mod:`lexcodecs.sources.raw_keys`:
hex lines (``FILE``, ``-`` for standard input), an SQLite table's BLOB column (``--sqlite DB
--table T --key-column K``), an LMDB environment's main database (``--lmdb PATH``) or a column
family of a RocksDB database (``--rocksdb PATH [--column-family NAME]``); ``--sample N`` keeps
a uniform sample of N (a fixed seed: the same N gives the same keys). The work is
:func:`lexcodecs.identification.identify`, over every codec or those given with ``-c``.

The report says how many keys were read, then the candidates as a table (or "no known
format", with the best low-confidence candidates listed as such), then the first candidate's
evidence, a few keys it decodes, the readings that give the same bytes, and, when its
confidence is high, the ``lexcodecs migrate`` flags that read such keys. ``--json`` prints
``{"keys", "sampled", "known", "candidates"}`` (:func:`~lexcodecs.cli.arguments.json_text`:
``format_version`` first). The exit status is 0 when a format is known, 1 when not: a script
can tell without reading the report.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import shutil
import sys
from typing import TYPE_CHECKING, Any, Final

from .._console import table, to_text
from ..registry import get_codec
from ..schema import KeySchema
from ..sources.paths import path_problem, special_kind_at
from ..sources.raw_keys import (
    SEED,
    RawKeys,
    read_raw_hex,
    read_raw_lmdb,
    read_raw_rocksdb,
    read_raw_sqlite,
    rocksdb_problem,
)
from .arguments import CliError, Subparsers, _progress_bar, count, json_text
from .sources import _progress

if TYPE_CHECKING:  # imported when the command runs: every other command starts faster
    from ..identification import Candidate, Identification

__all__ = ["run_identify"]

#: candidates shown when --limit is not given (the engine's own default)
LIMIT: Final = 10
#: examples' hex and values are cut to this many characters: a report line stays readable
_SHOWN: Final = 100
#: the sources, by their ``args`` attribute, as the usage names them
_SOURCES: Final[dict[str, str]] = {"file": "FILE", "sqlite": "--sqlite", "lmdb": "--lmdb",
                                   "rocksdb": "--rocksdb"}
#: the options that only qualify a source: which one each goes with
_QUALIFIERS: Final[dict[str, tuple[str, str]]] = {
    "table": ("--table", "sqlite"), "key_column": ("--key-column", "sqlite"),
    "column_family": ("--column-family", "rocksdb"),
}
#: a wide page in a pipe: nothing wraps (on a terminal, the window's width)
_UNWRAPPED: Final = 1 << 20


def _add_identify(commands: Subparsers) -> None:
    p = commands.add_parser(
        "identify", help="say which codec and schema wrote some keys",
        description="Read stored keys (hex lines, an SQLite column, LMDB or RocksDB) and say "
        "which codec and schema explain them, how sure that is, and why. Exit status 0 when "
        "a format is known, 1 when not.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="hex keys, one per line ('-': standard input; blank lines skipped)")
    p.add_argument("--sqlite", metavar="DB", help="an SQLite database file (read-only), with "
                   "--table and --key-column")
    p.add_argument("--table", metavar="T", help="with --sqlite: the table holding the keys")
    p.add_argument("--key-column", metavar="K", help="with --sqlite: the column of BLOB keys")
    p.add_argument("--lmdb", metavar="PATH", help="an LMDB environment, its main database "
                   "(needs lexcodecs[lmdb])")
    p.add_argument("--rocksdb", metavar="PATH", help="a RocksDB database, read-only (needs "
                   "lexcodecs[rocksdb])")
    p.add_argument("--column-family", metavar="NAME", help="with --rocksdb: the column "
                   "family (default: the default one)")
    p.add_argument("--sample", type=count(1), default=None, metavar="N",
                   help="identify a uniform sample of N keys (fixed seed: the same N gives "
                   "the same keys) instead of every key; quicker on a large store")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="try only this codec (repeatable; default: every available codec)")
    p.add_argument("--limit", type=count(1), default=LIMIT, metavar="N",
                   help=f"show at most N candidates (default {LIMIT})")
    p.add_argument("--json", action="store_true",
                   help="print {keys, sampled, known, candidates} as JSON, format_version "
                   "first")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (drawn only when stderr is a terminal)")
    p.set_defaults(run=run_identify)


def run_identify(args: argparse.Namespace) -> int:
    kind = _source(args)
    codecs = args.codecs
    for name in codecs or ():
        get_codec(name)  # an unknown name is refused before any key is read
    raw = _read(args, kind)
    if not raw.keys:
        raise CliError(f"{raw.source}: no keys to identify")
    bar = _progress_bar(args, "identifying", None)
    try:
        from ..identification import identify

        result = identify(raw.keys, codecs=codecs, limit=args.limit)
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json_text({"keys": raw.read, "sampled": raw.sampled, "known": result.known,
                         "candidates": result.to_dict()["candidates"]}))
    else:
        # on a terminal the table fits the window, wrapping its long cells; in a pipe, no
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else _UNWRAPPED
        print(render(raw, result, width))
    return 0 if result.known else 1


# -- the source ---------------------------------------------------------------------------------

def _source(args: argparse.Namespace) -> str:
    """The one source *args* name (its ``args`` attribute), every option checked to go
    with it and every path checked before anything opens it."""
    given = [name for name in _SOURCES if getattr(args, name, None) is not None]
    if len(given) != 1:
        said = f" (not {' and '.join(_SOURCES[g] for g in given)})" if given else ""
        raise CliError("say where the keys are: FILE (hex lines, '-' for standard input), "
                       "--sqlite DB --table T --key-column K, --lmdb PATH or --rocksdb PATH "
                       f"(exactly one){said}")
    kind = given[0]
    for name, (option, goes_with) in _QUALIFIERS.items():
        if getattr(args, name, None) is not None and kind != goes_with:
            raise CliError(f"{option} goes with {_SOURCES[goes_with]}")
    if kind == "sqlite" and (not args.table or not args.key_column):
        raise CliError("--sqlite needs --table T and --key-column K: the column of the keys")
    # a named pipe, a socket or a device is refused before anything opens it (reading one
    # may wait for ever), with the option that names it
    if kind == "file" and args.file != "-":
        reason = path_problem(args.file, "file")
        if reason is not None:
            hint = "; for standard input, give -" if special_kind_at(args.file) else ""
            raise CliError(f"{args.file}: {reason}{hint}")
    elif kind == "sqlite":
        reason = path_problem(args.sqlite, "sqlite")
        if reason is not None:
            raise CliError(f"--sqlite {args.sqlite}: {reason}")
    elif kind == "lmdb":
        reason = path_problem(args.lmdb, "lmdb")
        if reason is not None:
            raise CliError(f"--lmdb {args.lmdb}: {reason}")
    elif kind == "rocksdb":
        reason = rocksdb_problem(args.rocksdb)
        if reason is not None:
            raise CliError(f"--rocksdb {args.rocksdb}: {reason}")
    return kind


def _read(args: argparse.Namespace, kind: str) -> RawKeys:
    bar = _progress_bar(args, "reading", None)
    progress = _progress(bar)
    try:
        if kind == "file":
            return read_raw_hex(args.file, sample=args.sample, progress=progress)
        if kind == "sqlite":
            return read_raw_sqlite(args.sqlite, args.table, args.key_column,
                                   sample=args.sample, progress=progress)
        if kind == "lmdb":
            return read_raw_lmdb(args.lmdb, sample=args.sample, progress=progress)
        return read_raw_rocksdb(args.rocksdb, column_family=args.column_family,
                                sample=args.sample, progress=progress)
    finally:
        if bar is not None:
            bar.close()


# -- the report ---------------------------------------------------------------------------------

def render(raw: RawKeys, result: Identification, width: int = _UNWRAPPED) -> str:
    """The report as text, *width* columns (see the module's text)."""
    parts: list[Any] = [_read_line(raw)]
    candidates = result.candidates
    if not result.known:
        parts.append("no known format: no codec and schema explain these keys with more than "
                     "low confidence" + ("" if candidates else " (none decodes them)"))
    if candidates:
        parts.append("")
        if not result.known:  # listed as what they are: none is to be relied on
            low = all(c.confidence == "low" for c in candidates)
            parts.append("the best candidates" + (", all low confidence:" if low else ":"))
        parts += [_table(candidates), "", _details(candidates[0])]
    return to_text(*parts, width=width)


def _read_line(raw: RawKeys) -> str:
    line = f"read {raw.read:,} key{'' if raw.read == 1 else 's'} from {raw.source}"
    if raw.sampled:
        line += f"; identified on a uniform sample of {len(raw.keys):,} (seed {SEED})"
    return line


def _table(candidates: tuple[Candidate, ...]) -> Any:
    options = [_changed_options(c) for c in candidates]
    with_options = any(options)
    columns = ["rank", "codec", *(["options"] if with_options else []), "schema", "decoded",
               "round trip", "order", "confidence"]
    rows = []
    for rank, (c, changed) in enumerate(zip(candidates, options), 1):
        shown = ", ".join(f"{k}={v!r}" for k, v in changed.items()) or "-"
        rows.append([rank, c.codec, *([shown] if with_options else []), c.schema,
                     f"{c.decoded:,}/{c.total:,}", "yes" if c.roundtrip else "no",
                     "kept" if c.ordered else "not kept", c.confidence])
    justify: list[Any] = ["right", "left", *(["left"] if with_options else []), "left",
                          "right", "left", "left", "left"]
    return table(columns, rows, justify=justify)


def _details(best: Candidate) -> str:
    """The first candidate's evidence, examples, same-bytes readings and next step."""
    lines = [f"{best.label}: {best.confidence} confidence"]
    lines += [f"  - {line}" for line in best.evidence]
    if best.examples:
        lines.append("examples:")
        lines += [f"  {_cut(hex_)} -> {_cut(values)}" for hex_, values in best.examples]
    # the evidence names them already when the engine says so: not twice
    if best.same_bytes_as and not any(all(s in line for s in best.same_bytes_as)
                                      for line in best.evidence):
        lines.append("the same bytes, read as the same values: "
                     + ", ".join(best.same_bytes_as))
    if best.confidence == "high":
        fields = ", ".join(f.name for f in KeySchema.parse(best.schema).fields)
        flags = " ".join(f"--from-option {shlex.quote(_option(k, v))}"
                         for k, v in _changed_options(best).items())
        lines.append(f"to migrate them: lexcodecs migrate --from {best.codec} "
                     + (f"{flags} " if flags else "")
                     + f"-s \"{best.schema}\" --to CODEC ... (rename {fields} to what the "
                     "fields hold)")
    elif best.confidence == "medium":  # no migrate flags: a migration on a guess loses data
        lines.append("medium confidence: the evidence above says what holds it back; check "
                     "it before relying on this reading")
    return "\n".join(lines)


def _changed_options(c: Candidate) -> dict[str, Any]:
    """The candidate's codec options that differ from the codec's defaults."""
    try:
        defaults = dict(get_codec(c.codec).config())
    except Exception:  # a codec that loaded once and fails now: show every option
        defaults = {}
    missing = object()
    return {k: v for k, v in c.options.items() if defaults.get(k, missing) != v}


def _option(name: str, value: Any) -> str:
    """``OPT=VALUE`` as ``--from-option`` reads it back: a string that reads as a literal
    of another type is written as its repr."""
    if isinstance(value, str):
        try:
            ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return f"{name}={value}"
    return f"{name}={value!r}"


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"
