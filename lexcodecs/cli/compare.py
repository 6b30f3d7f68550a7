"""``lexcodecs compare``: every codec on one schema, in a real sorted store.

The work is :func:`lexcodecs.compare.compare`; the command reads the schema (or the default),
the records (JSON Lines from a file or standard input; else generated, ``-n`` of them from
``--seed``), shows a progress bar per codec, and prints the report as a table or JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..compare import DEFAULT_SCHEMA, STORES, compare, records_from_json
from ..registry import available_codecs
from ..schema import KeySchema
from .arguments import CliError, Subparsers, _progress_bar, count

__all__ = ["run_compare"]


def _add_compare(commands: Subparsers) -> None:
    p = commands.add_parser(
        "compare", help="compare every codec on one schema: order, collisions, size, speed",
        description="Encode records with every available codec, put the keys in a real "
        "sorted store, read them back in its order and compare with the natural order.")
    p.add_argument("-s", "--schema", metavar="SCHEMA",
                   help=f"schema text (default: {DEFAULT_SCHEMA!r})")
    p.add_argument("--records", metavar="FILE", help="JSON Lines, one array of values per "
                   "record ('-': standard input); typed values as in docs/cli.md")
    p.add_argument("-n", type=count(0), default=1000, metavar="N",
                   help="how many records to generate (default 1000)")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="compare only these codecs (repeatable; default: all)")
    p.add_argument("--store", choices=STORES, default="sqlite",
                   help="where the keys are sorted (default: sqlite)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated records")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_compare)


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
