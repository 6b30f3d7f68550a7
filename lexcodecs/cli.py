"""The ``lexcodecs`` command: compare codecs, inspect and migrate keys, run the harness.

::

    lexcodecs list [--json]
    lexcodecs encode -c NAME [-s SCHEMA] [-o OPT=VALUE ...] VALUES
    lexcodecs decode -c NAME [-s SCHEMA] [-o OPT=VALUE ...] HEX
    lexcodecs inspect -c NAME [-s SCHEMA] [-o OPT=VALUE ...] HEX [--json]
    lexcodecs compare [-s SCHEMA] [--records FILE] [-n N] [--store sqlite|lmdb|memory] [--json]
    lexcodecs migrate --from A --to B -s SCHEMA (--input F [--output F] | --sqlite DB
                      --table T --key-column C | --lmdb PATH) [--keep-old] [--restart]
    lexcodecs conformance [-c NAME ...] [--examples N] [--json]

VALUES is a Python literal tuple or list, read without ``eval``: the syntax tree is walked and
only constants, tuples, lists, a sign on a number, the names in :data:`NAMES` and calls of the
constructors in :data:`CONSTRUCTORS` are accepted. Every refusal, the command line's or a
codec's, is reported as ``lexcodecs: error: <message>`` on stderr with exit status 2.

Each subcommand is a pair: ``_add_<command>`` builds its parser and sets ``run``, the function
that does the work and returns the exit status. :data:`SUBCOMMANDS` lists the pairs' builders.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime as dt
import decimal
import json
import math
import os
import re
import sys
import tempfile
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from . import __version__
from ._progress import ProgressBar
from .codec import Capabilities, Codec
from .compare import DEFAULT_SCHEMA, STORES, compare, records_from_json
from .errors import LexCodecError
from .inspection import inspect_key
from .migrate import MigrationReport, Transcoder, migrate_lines, migrate_lmdb, migrate_sqlite
from .registry import available_codecs, get_codec
from .schema import FIELD_TYPES, KeySchema
from .types import END, INT_TYPES, Float32, Versionstamp

__all__ = [
    "CONSTRUCTORS",
    "NAMES",
    "SUBCOMMANDS",
    "CliError",
    "Constructor",
    "build_parser",
    "main",
    "parse_hex",
    "parse_option",
    "parse_values",
]


class CliError(ValueError):
    """A bad command-line argument: reported as one line, exit status 2."""


def _decimal(text: str) -> decimal.Decimal:
    try:
        return decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(f"not a decimal number: {text!r}") from None


def _aware_datetime(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text)
    if value.utcoffset() is None:
        raise ValueError(f"{text!r} has no UTC offset; add one, such as +00:00")
    return value


@attrs.frozen
class Constructor:
    """A call allowed in VALUES: either fixed positional arguments of the given types, or
    one or more of the given keyword arguments (numbers)."""

    make: Callable[..., Any]
    usage: str
    args: tuple[tuple[type, ...], ...] = ()
    keywords: tuple[str, ...] = ()


_NUMBER: Final = (int, float)

#: The calls VALUES may contain, by name.
CONSTRUCTORS: Final[dict[str, Constructor]] = {
    **{cls.__name__: Constructor(cls, f"{cls.__name__}(<integer>)", ((int,),))
       for cls in INT_TYPES.values()},
    "Float32": Constructor(Float32, "Float32(<number>)", (_NUMBER,)),
    "UUID": Constructor(uuid.UUID, "UUID('<32 hex digits>')", ((str,),)),
    "Decimal": Constructor(_decimal, "Decimal('<number>')", ((str,),)),
    "Versionstamp": Constructor(Versionstamp, "Versionstamp(b'<10 bytes>' or None, <0..65535>)",
                                ((bytes, type(None)), (int,))),
    "datetime": Constructor(_aware_datetime, "datetime('2024-01-01T00:00:00+00:00')",
                            ((str,),)),
    "timedelta": Constructor(dt.timedelta, "timedelta(seconds=<number>, microseconds=<number>)",
                             keywords=("seconds", "microseconds")),
}

#: The bare names VALUES may contain (``None``, ``True`` and ``False`` are constants).
NAMES: Final[dict[str, Any]] = {"END": END, "nan": math.nan, "inf": math.inf}

#: Constant types a key value may have (bool is an int).
_CONSTANTS: Final = (str, bytes, int, float, type(None))

#: How a refused expression is named in messages; others by their AST class.
_NODE_NAMES: Final[dict[type[ast.AST], str]] = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscripting",
    ast.BinOp: "arithmetic",
    ast.BoolOp: "a boolean operator",
    ast.Compare: "a comparison",
    ast.Starred: "unpacking with *",
    ast.Lambda: "a lambda",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.JoinedStr: "an f-string",
    ast.IfExp: "a conditional expression",
    ast.NamedExpr: "an assignment expression",
}

_HEX_JUNK: Final = re.compile(r"[^0-9a-fA-F\s:]")
_HEX_SEPARATORS: Final = re.compile(r"[\s:]")

VALUES_HELP: Final = (
    "VALUES is a Python literal tuple or list, e.g. \"('acme', 42, None)\". Allowed inside: "
    "None, True, False, numbers, 'text', b'bytes', nested tuples and lists, "
    + ", ".join(NAMES) + " (and -inf), and calls of "
    + ", ".join(c.usage for c in CONSTRUCTORS.values()) + "."
)


# -- reading arguments -----------------------------------------------------------------------


class _ValueReader:
    """Turns the syntax tree of VALUES into values, refusing anything not whitelisted."""

    def __init__(self, shift: int) -> None:
        self.shift = shift  # characters stripped before the first line

    def error(self, node: ast.AST, reason: str) -> CliError:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        where = (f"column {col + self.shift + 1}" if line == 1
                 else f"line {line}, column {col + 1}")
        return CliError(f"values, {where}: {reason}")

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, _CONSTANTS):
                return node.value
            raise self.error(node, f"the constant {node.value!r} is not a key value")
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.value(node.operand)
            if type(operand) not in (int, float):
                raise self.error(node, "a sign applies only to a plain number, nan or inf")
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        what = _NODE_NAMES.get(type(node), f"a {type(node).__name__} expression")
        raise self.error(node, f"{what} is not allowed")

    def name(self, node: ast.Name) -> Any:
        if node.id in NAMES:
            return NAMES[node.id]
        if node.id in CONSTRUCTORS:
            raise self.error(node, f"{node.id} must be called: {CONSTRUCTORS[node.id].usage}")
        raise self.error(node, f"unknown name {node.id!r}; allowed names: "
                         + ", ".join(NAMES) + "; constructors: " + ", ".join(CONSTRUCTORS))

    def call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name):
            what = _NODE_NAMES.get(type(node.func), "this expression")
            raise self.error(node.func, f"{what} is not allowed; call a constructor by name: "
                             + ", ".join(CONSTRUCTORS))
        name = node.func.id
        ctor = CONSTRUCTORS.get(name)
        if ctor is None:
            raise self.error(node, f"{name!r} is not an allowed constructor; allowed: "
                             + ", ".join(CONSTRUCTORS))
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            raise self.error(node, f"*args and **kwargs are not allowed; write {ctor.usage}")
        args = [self.value(a) for a in node.args]
        kwargs = {str(k.arg): self.value(k.value) for k in node.keywords}
        if not self.fits(ctor, args, kwargs):
            raise self.error(node, f"bad arguments for {name}; write {ctor.usage}")
        try:
            return ctor.make(*args, **kwargs)
        except (ValueError, ArithmeticError) as exc:  # LexCodecErrors here are ValueErrors
            raise self.error(node, f"{name}: {exc}") from None

    @staticmethod
    def fits(ctor: Constructor, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
        def ok(value: Any, types: tuple[type, ...]) -> bool:
            return isinstance(value, types) and (type(value) is not bool or bool in types)

        if ctor.keywords:
            return (not args and bool(kwargs) and set(kwargs) <= set(ctor.keywords)
                    and all(ok(v, _NUMBER) for v in kwargs.values()))
        return (not kwargs and len(args) == len(ctor.args)
                and all(ok(v, t) for v, t in zip(args, ctor.args, strict=True)))


def parse_values(text: str) -> tuple[Any, ...]:
    """Read VALUES: a Python literal tuple or list, with the whitelisted names and calls.

    >>> parse_values("('acme', Int32(7), -inf)")
    ('acme', Int32(7), -inf)
    """
    source = text.lstrip(" \t")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        where = f" at column {exc.offset + len(text) - len(source)}" \
            if exc.offset and exc.lineno == 1 else ""
        raise CliError(f"values: not a Python literal{where}: {exc.msg}") from None
    except ValueError as exc:  # e.g. a NUL character in the text
        raise CliError(f"values: not a Python literal: {exc}") from None
    values = _ValueReader(len(text) - len(source)).value(tree.body)
    if not isinstance(values, (tuple, list)):
        raise CliError("values must be a tuple or a list; for a single value write "
                       f"({source.strip()},)")
    return tuple(values)


def parse_hex(text: str) -> bytes:
    """Read a key written in hex: optional ``0x``, bytes optionally separated by spaces or
    colons. ``parse_hex("0x02:61 00 01") == b"\\x02a\\x00\\x01"``."""
    body = text.strip()
    start = len(text) - len(text.lstrip())
    if body[:2].lower() == "0x":
        body, start = body[2:], start + 2
    bad = _HEX_JUNK.search(body)
    if bad is not None:
        raise CliError(f"hex: {bad.group()!r} at character {start + bad.start() + 1} is not a "
                       "hex digit; write the key as 0-9 a-f, optionally with 0x, spaces or colons")
    digits = _HEX_SEPARATORS.sub("", body)
    if len(digits) % 2:
        raise CliError(f"hex: odd number of hex digits ({len(digits)}); every byte takes two")
    return bytes.fromhex(digits)


def parse_option(text: str) -> tuple[str, Any]:
    """Read ``OPT=VALUE``; VALUE is a Python literal if it reads as one, else a string."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise CliError(f"option {text!r}: write -o OPTION=VALUE, e.g. -o width=8")
    if name == "name":
        raise CliError("option 'name' is reserved: choose the codec with -c")
    try:
        return name, ast.literal_eval(raw.strip())
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return name, raw


def _codec(args: argparse.Namespace) -> Codec:
    options: dict[str, Any] = {}
    for text in args.options or ():
        name, value = parse_option(text)
        if name in options:
            raise CliError(f"option {name!r} given twice")
        options[name] = value
    return get_codec(args.codec, **options)


def _schema(args: argparse.Namespace) -> KeySchema | None:
    return None if args.schema is None else KeySchema.parse(args.schema)


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text if isinstance(exc, LexCodecError) else f"{type(exc).__name__}: {text}"


# -- subcommands -----------------------------------------------------------------------------


def _inspect(name: str) -> tuple[Capabilities, dict[str, Any]] | str:
    """The capabilities and config of codec *name*, or why it failed to load."""
    try:
        codec = get_codec(name)
        return codec.capabilities, codec.config()
    except Exception as exc:  # a broken plugin must not hide the other codecs
        return _one_line(exc)


def run_list(args: argparse.Namespace) -> int:
    names = available_codecs()
    found = {name: _inspect(name) for name in names}
    if args.json:
        print(json.dumps([{"name": name, "error": info} if isinstance(info, str) else
                          {"name": name, "capabilities": info[0].to_dict(), "config": info[1]}
                          for name, info in found.items()], indent=2))
        return 0
    if not names:
        print("no codecs available: install a plugin, or register one with "
              "lexcodecs.register_codec")
        return 0
    width = max(map(len, names))
    for name, info in found.items():
        if isinstance(info, str):
            print(f"{name:<{width}}  error: {info}")
            continue
        types = ", ".join(sorted(info[0].field_types, key=FIELD_TYPES.index))
        print(f"{name:<{width}}  {info[0].summary()}; types: {types}")
    return 0


def run_encode(args: argparse.Namespace) -> int:
    codec, schema = _codec(args), _schema(args)
    print(codec.encode(parse_values(args.values), schema).hex())
    return 0


def run_decode(args: argparse.Namespace) -> int:
    codec, schema = _codec(args), _schema(args)
    print(repr(codec.decode(parse_hex(args.hex), schema)))
    return 0


def _progress_bar(args: argparse.Namespace, label: str, total: int | None
                  ) -> ProgressBar | None:
    if getattr(args, "no_progress", False):
        return None
    return ProgressBar(label, total)


def run_compare(args: argparse.Namespace) -> int:
    schema = KeySchema.parse(args.schema) if args.schema else KeySchema.parse(DEFAULT_SCHEMA)
    records = None
    if args.records is not None:
        records = _read_records(args.records, schema)
    names = args.codecs or available_codecs()
    bar = _progress_bar(args, "comparing", len(names))
    try:
        report = compare(schema, records, n=args.n, codecs=names, store=args.store,
                         seed=args.seed, progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.table())
    return 0


def _read_records(path: str, schema: KeySchema) -> list[tuple[Any, ...]]:
    try:
        with (sys.stdin if path == "-" else open(path, encoding="utf-8")) as f:
            return records_from_json(f, schema)
    except OSError as exc:
        raise CliError(f"--records {path}: {exc.strerror or exc}") from None


def run_inspect(args: argparse.Namespace) -> int:
    codec, schema = _codec(args), _schema(args)
    result = inspect_key(codec, parse_hex(args.hex), schema)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.render())
    return 0


def _options(texts: Sequence[str] | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for text in texts or ():
        name, value = parse_option(text)
        if name in options:
            raise CliError(f"option {name!r} given twice")
        options[name] = value
    return options


def run_migrate(args: argparse.Namespace) -> int:
    source = get_codec(args.source, **_options(args.from_options))
    target = get_codec(args.target, **_options(args.to_options))
    transcoder = Transcoder(source, target, KeySchema.parse(args.schema))
    modes = [m for m in ("input", "sqlite", "lmdb") if getattr(args, m) is not None]
    if len(modes) != 1:
        raise CliError("say where the keys are: --input FILE (hex lines), --sqlite DB, or "
                       "--lmdb PATH (exactly one)")
    bar = _progress_bar(args, "migrating", None)
    progress = bar.update if bar else None
    try:
        if args.input is not None:
            report = _migrate_lines(args, transcoder, progress)
        elif args.sqlite is not None:
            if not args.table or not args.key_column:
                raise CliError("--sqlite needs --table and --key-column")
            if not os.path.exists(args.sqlite):
                raise CliError(f"--sqlite {args.sqlite}: no such database file")
            report = migrate_sqlite(args.sqlite, args.table, args.key_column, transcoder,
                                    batch_size=args.batch_size, keep_old=args.keep_old,
                                    restart=args.restart, progress=progress)
        else:
            if not os.path.exists(args.lmdb):
                raise CliError(f"--lmdb {args.lmdb}: no such LMDB environment")
            report = migrate_lmdb(args.lmdb, transcoder, batch_size=args.batch_size,
                                  keep_old=args.keep_old, restart=args.restart,
                                  progress=progress)
    finally:
        if bar:
            bar.close()
    text = json.dumps(report.to_dict(), indent=2) if args.json else report.summary()
    print(text, file=sys.stderr if args.input is not None and args.output in (None, "-")
          else sys.stdout)
    return 0


def _migrate_lines(args: argparse.Namespace, transcoder: Transcoder,
                   progress: Callable[[int], None] | None) -> MigrationReport:
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


def run_conformance(args: argparse.Namespace) -> int:
    try:
        from hypothesis.configuration import set_hypothesis_home_dir

        from .testing.matrix import run_matrix
    except ImportError as exc:
        raise CliError(f"lexcodecs conformance needs hypothesis ({exc}): "
                       "pip install 'lexcodecs[harness]'") from None
    names = args.codecs or available_codecs()
    for name in names:
        get_codec(name)  # an unknown name is refused before anything runs
    bar = _progress_bar(args, "checking", None)
    # hypothesis keeps caches in ./.hypothesis; a command must not leave them behind
    with tempfile.TemporaryDirectory(prefix="lexcodecs-hypothesis-") as home:
        set_hypothesis_home_dir(home)
        try:
            matrix = run_matrix(names, examples=args.examples,
                                progress=bar.update if bar else None)
        finally:
            set_hypothesis_home_dir(None)
            if bar:
                bar.close()
    print(json.dumps(matrix.to_dict(), indent=2) if args.json else matrix.render())
    return 0 if matrix.ok else 1


Subparsers = Any  # argparse's _SubParsersAction is private


def _codec_arguments() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-c", "--codec", required=True, metavar="NAME",
                        help="registry name of the codec (see: lexcodecs list)")
    common.add_argument("-s", "--schema", metavar="SCHEMA",
                        help="schema text, e.g. 'tenant:string, ts:int64 desc nulls last'")
    common.add_argument("-o", "--option", dest="options", action="append", metavar="OPT=VALUE",
                        help="a codec option (repeatable); VALUE is a Python literal, "
                             "else a string")
    return common


def _add_list(commands: Subparsers) -> None:
    p = commands.add_parser("list", help="list the available codecs and what they support")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of {name, capabilities, config}")
    p.set_defaults(run=run_list)


def _add_encode(commands: Subparsers) -> None:
    p = commands.add_parser("encode", parents=[_codec_arguments()], epilog=VALUES_HELP,
                            help="encode values, print the key in hex")
    p.add_argument("values", metavar="VALUES", help="a tuple or list literal, e.g. \"('a', 1)\"")
    p.set_defaults(run=run_encode)


def _add_decode(commands: Subparsers) -> None:
    p = commands.add_parser("decode", parents=[_codec_arguments()],
                            help="decode a hex key, print the values")
    p.add_argument("hex", metavar="HEX", help="the key in hex; 0x, spaces and colons allowed")
    p.set_defaults(run=run_decode)


def _add_compare(commands: Subparsers) -> None:
    p = commands.add_parser(
        "compare", help="compare every codec on one schema: order, collisions, size, speed",
        description="Encode records with every available codec, put the keys in a real "
        "sorted store, read them back in its order and compare with the natural order.")
    p.add_argument("-s", "--schema", metavar="SCHEMA",
                   help=f"schema text (default: {DEFAULT_SCHEMA!r})")
    p.add_argument("--records", metavar="FILE", help="JSON Lines, one array of values per "
                   "record ('-': standard input); typed values as in docs/cli.md")
    p.add_argument("-n", type=int, default=1000, metavar="N",
                   help="how many records to generate (default 1000)")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="compare only these codecs (repeatable; default: all)")
    p.add_argument("--store", choices=STORES, default="sqlite",
                   help="where the keys are sorted (default: sqlite)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated records")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_compare)


def _add_inspect(commands: Subparsers) -> None:
    p = commands.add_parser("inspect", parents=[_codec_arguments()],
                            help="explain every byte of a key")
    p.add_argument("hex", metavar="HEX", help="the key in hex; 0x, spaces and colons allowed")
    p.add_argument("--json", action="store_true", help="print the breakdown as JSON")
    p.set_defaults(run=run_inspect)


def _add_migrate(commands: Subparsers) -> None:
    p = commands.add_parser(
        "migrate", help="transcode stored keys from one format to another",
        description="Hex lines, an SQLite table or an LMDB environment: copy in batches, "
        "verify, then swap; an interrupted run resumes.")
    p.add_argument("--from", dest="source", required=True, metavar="CODEC")
    p.add_argument("--to", dest="target", required=True, metavar="CODEC")
    p.add_argument("-s", "--schema", required=True, metavar="SCHEMA")
    p.add_argument("--from-option", dest="from_options", action="append", metavar="OPT=VALUE")
    p.add_argument("--to-option", dest="to_options", action="append", metavar="OPT=VALUE")
    p.add_argument("--input", metavar="FILE", help="hex keys, one per line ('-': stdin)")
    p.add_argument("--output", metavar="FILE", help="where the new hex keys go ('-': stdout)")
    p.add_argument("--sqlite", metavar="DB", help="an SQLite database file")
    p.add_argument("--table", metavar="T", help="the table (with --sqlite)")
    p.add_argument("--key-column", metavar="C", help="its key column, the primary key")
    p.add_argument("--lmdb", metavar="PATH", help="an LMDB environment (needs lexcodecs[lmdb])")
    p.add_argument("--batch-size", type=batch_size, default=10_000, metavar="N",
                   help="keys per committed batch (default 10000)")
    p.add_argument("--keep-old", action="store_true",
                   help="keep the old table/environment (<name>__lexcodecs_old / .lexcodecs-old)")
    p.add_argument("--restart", action="store_true",
                   help="discard an unfinished migration instead of resuming it")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_migrate)


def batch_size(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a batch holds at least one key")
    return value


def _add_conformance(commands: Subparsers) -> None:
    p = commands.add_parser("conformance", help="run the conformance harness on codecs")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="check only these codecs (repeatable; default: all)")
    p.add_argument("--examples", type=int, default=30, metavar="N",
                   help="hypothesis examples per property (default 30)")
    p.add_argument("--json", action="store_true", help="print the matrix as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_conformance)


#: Parser builders, one per subcommand, in the order ``--help`` shows them.
SUBCOMMANDS: Final[tuple[Callable[[Subparsers], None], ...]] = (
    _add_list, _add_encode, _add_decode, _add_inspect, _add_compare, _add_migrate,
    _add_conformance,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lexcodecs", description="Order-preserving binary key codecs.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(commands)
    return parser


def _report(exc: Exception) -> None:
    first, *rest = str(exc).splitlines() or [type(exc).__name__]
    print(f"lexcodecs: error: {first}", file=sys.stderr)
    for line in rest:  # a SchemaError's text and caret
        print(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for any refusal)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except (LexCodecError, CliError) as exc:
        _report(exc)
        return 2
    except BrokenPipeError:  # `lexcodecs compare | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
