"""``lexcodecs encode``, ``decode`` and ``inspect``: one key at a time, with one codec.

Each takes the codec's arguments (``-c NAME [-s SCHEMA] [-o OPT=VALUE ...]``); ``encode``
reads VALUES (:mod:`lexcodecs.cli.values`) and prints the key in hex, ``decode`` reads HEX and
prints the values' ``repr``, ``inspect`` prints every byte of a key explained
(:func:`lexcodecs.inspection.inspect_key`) as a table, or the breakdown as a JSON object
(:func:`~lexcodecs.cli.arguments.json_text`: ``format_version`` first). Without ``-c``,
``inspect`` first says what the key looks like: the best reading :func:`lexcodecs.identify`
finds for it alone (never better than medium confidence: one key is little evidence), which
it then explains.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TYPE_CHECKING

from ..errors import describe_value
from ..inspection import inspect_key
from ..registry import get_codec
from ..schema import KeySchema
from .arguments import CliError, Subparsers, _codec, _codec_arguments, _schema, json_text, parse_hex
from .values import VALUES_HELP, parse_values

if TYPE_CHECKING:
    from ..identification import Candidate

__all__ = ["run_decode", "run_encode", "run_inspect"]


def _add_encode(commands: Subparsers) -> None:
    p = commands.add_parser("encode", parents=[_codec_arguments()], epilog=VALUES_HELP,
                            help="encode values, print the key in hex")
    p.add_argument("values", metavar="VALUES", help="a tuple or list literal, e.g. \"('a', 1)\"")
    p.set_defaults(run=run_encode)


def run_encode(args: argparse.Namespace) -> int:
    codec, schema = _codec(args), _schema(args)
    print(codec.encode(parse_values(args.values), schema).hex())
    return 0


def _add_decode(commands: Subparsers) -> None:
    p = commands.add_parser("decode", parents=[_codec_arguments()],
                            help="decode a hex key, print the values")
    p.add_argument("hex", metavar="HEX", help="the key in hex; 0x, spaces and colons allowed")
    p.set_defaults(run=run_decode)


def run_decode(args: argparse.Namespace) -> int:
    codec, schema = _codec(args), _schema(args)
    values = codec.decode(parse_hex(args.hex), schema)
    try:
        text = repr(values)
    except ValueError:  # an int beyond Python's limit on int -> str conversion
        raise CliError(
            "the key decodes to a number too large to print in decimal "
            f"({describe_value(values)}); see it with: lexcodecs inspect") from None
    print(text)
    return 0


def _add_inspect(commands: Subparsers) -> None:
    p = commands.add_parser("inspect", parents=[_codec_arguments(
        "without it, the key is explained as the codec and schema it looks like "
        "(lexcodecs identify on one key)")], help="explain every byte of a key")
    p.add_argument("hex", metavar="HEX", help="the key in hex; 0x, spaces and colons allowed")
    p.add_argument("--json", action="store_true",
                   help="print the breakdown as a JSON object (format_version first)")
    p.set_defaults(run=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    key = parse_hex(args.hex)
    looks: Candidate | None = None
    schema: KeySchema | None
    if args.codec is None:
        looks = _looks_like(args, key)
        codec, schema = get_codec(looks.codec, **looks.options), KeySchema.parse(looks.schema)
    else:
        codec, schema = _codec(args), _schema(args)
    result = inspect_key(codec, key, schema)
    if args.json:
        document = result.to_dict()
        if looks is not None:
            document["looks_like"] = {"codec": looks.codec, "options": looks.options,
                                      "schema": looks.schema,
                                      "confidence": looks.confidence}
        print(json_text(document))
        return 0
    if looks is not None:
        same = looks.same_bytes_as
        more = f" and {len(same) - 2} more" if len(same) > 2 else ""
        also = f"; the same bytes as {', '.join(same[:2])}{more}" if same else ""
        print(f"no -c: the key looks like {looks.codec} {looks.schema} ({looks.confidence} "
              f"confidence{also}; lexcodecs identify on more keys tells more)")
    # on a terminal the table wraps its long cells to the window; in a pipe, nothing wraps
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    print(result.render(width))
    return 0


def _looks_like(args: argparse.Namespace, key: bytes) -> Candidate:
    """The best reading of *key* alone, or a CliError when there is none (or when -s or -o,
    which need a codec, are given)."""
    from ..identification import identify  # the search: loaded only when it runs

    if args.schema is not None or args.options:
        raise CliError("-s and -o need -c NAME: the codec they belong to")
    found = identify([key], limit=1)
    if not found.known:
        raise CliError("no known format explains this key (lexcodecs identify may, given "
                       "more keys): name its codec with -c NAME")
    return found.candidates[0]
