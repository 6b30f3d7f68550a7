"""``lexcodecs compare``: every codec on one schema, in a real sorted store, and a verdict.

The work is :func:`lexcodecs.compare.compare`; the command reads the schema (or the default),
the records (the user's data through :mod:`lexcodecs.cli.sources`: JSON Lines, CSV, SQLite,
Parquet or keys in a store, the schema proposed from the input's types where it has them;
else generated, ``-n`` of them from ``--seed``), shows a progress bar over the codecs, and
prints the report: the verdict, the
table and what each codec cannot do (a terminal gets colour and its own width; a pipe gets
plain text), or ``--json`` (the data contract, through :func:`~lexcodecs.cli.arguments.json_text`:
``format_version`` first), or ``--markdown`` (for a design document). ``--html FILE`` also
writes the single-file HTML report.

What can be refused is refused before the comparison runs, which can take minutes on a large
input: the HTML path, and the plotting library the HTML report needs. The report is printed
before the HTML file is written, so a write that fails still leaves the report on screen.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import TYPE_CHECKING, Final

from .._console import Progress, show
from ..compare.defaults import DEFAULT_SCHEMA, MIN_LOOPS, REPEATS, STORES, WRAP
from ..registry import available_codecs
from ..schema import KeySchema
from ..sources.paths import special_kind_at
from .arguments import CliError, Subparsers, _progress_bar, count, json_text
from .sources import add_source_arguments, load_records

if TYPE_CHECKING:  # the comparison is imported when one runs (lexcodecs/compare/__init__.py)
    from ..compare import Comparison

__all__ = ["GENERATED", "SAMPLED", "run_compare"]

#: records generated when no input is named and -n is not given
GENERATED: Final = 1000
#: records kept from an input when -n is not given (a uniform sample when it has more)
SAMPLED: Final = 10_000


def _add_compare(commands: Subparsers) -> None:
    p = commands.add_parser(
        "compare", help="compare every codec on one schema and recommend one",
        description="Encode records with every available codec, put the keys in a real "
        "sorted store, read them back in its order and compare with the natural order; "
        "measure sizes, speed and prefix scans; recommend a codec and say what the others "
        "cannot do, field by field, with the nearest workaround.")
    p.add_argument("-s", "--schema", metavar="SCHEMA",
                   help=f"schema text (default: {DEFAULT_SCHEMA!r}, or with an input the "
                   "types it declares)")
    p.add_argument("-n", type=count(0), default=None, metavar="N",
                   help=f"how many records to generate (default {GENERATED:,}); with an "
                   f"input, how many to keep, a uniform sample when it has more (default "
                   f"{SAMPLED:,})")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the generated records, or of the sample of an input")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="compare only these codecs (repeatable; default: all)")
    p.add_argument("--store", choices=STORES, default="sqlite",
                   help="where the keys are sorted (default: sqlite)")
    p.add_argument("--repeats", type=count(0), default=REPEATS, metavar="N",
                   help=f"timed loops over the records per codec, the codecs' loops "
                   f"alternating (default {REPEATS}; 0: no timing); speed ranks codecs only "
                   f"with {MIN_LOOPS} or more")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the report as JSON")
    shape.add_argument("--markdown", action="store_true",
                       help="print the report as markdown, for a design document")
    p.add_argument("--html", metavar="FILE",
                   help="also write the report as one HTML file with charts")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_source_arguments(p)
    p.set_defaults(run=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    if args.html is not None:
        _check_html_target(args.html)
        from ..compare.html import require_charts

        require_charts()  # the plotting library: now, not after the comparison
    schema = KeySchema.parse(args.schema) if args.schema else None
    loaded = load_records(args, schema, SAMPLED if args.n is None else args.n, args.seed)
    records = source = None
    if loaded is not None:
        schema, records, source = loaded.schema, loaded.rows, loaded.source
        if loaded.proposed:
            source += "; key types proposed from the input's declared types"
    from ..compare import compare

    names = args.codecs or available_codecs()
    bar = _Bar(args)
    try:
        report = compare(schema if schema is not None else DEFAULT_SCHEMA, records,
                         n=GENERATED if args.n is None else args.n, codecs=names,
                         store=args.store, seed=args.seed, progress=bar, source=source,
                         repeats=args.repeats)
    finally:
        bar.close()
    _print(report, args)
    if args.html is not None:
        from ..compare.html import write_html

        write_html(report.to_dict(), args.html)
        print(f"HTML report written to {args.html}", file=sys.stderr)
    return 0


class _Bar:
    """The comparison's progress bar, drawn from the moment the comparison tells its total
    (before its first step): drawn earlier, with the number of codecs, its total would grow
    when the rewritten schemas are measured too ("comparing 0/9", then "9/17")."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.bar: Progress | None = None
        self.told = False

    def set_total(self, total: int | None) -> None:
        if not self.told:
            self.told = True
            self.bar = _progress_bar(self.args, "comparing", total)
        elif self.bar is not None:
            self.bar.set_total(total)

    def update(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _print(report: Comparison, args: argparse.Namespace) -> None:
    if args.json:
        print(json_text(report.to_dict()))
    elif args.markdown:
        print(report.to_markdown(), end="")
    elif sys.stdout.isatty():
        show(*report.renderables(min(WRAP, shutil.get_terminal_size().columns - 1)))
    else:  # a pipe or a file: plain text, counterexamples one per line, whatever the width
        print(report.to_text())


def _check_html_target(path: str) -> None:
    """Refuse an HTML path that cannot be written before the comparison, not after it."""
    if os.path.isdir(path):
        raise CliError(f"--html {path}: is a directory; give a file name")
    kind = special_kind_at(path)  # None: a file, or not there yet (the write says why)
    if kind is not None:  # the report replaces the file: never a pipe's or a device's node
        raise CliError(f"--html {path}: is {kind}, not a regular file; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CliError(f"--html {path}: no such directory {parent!r}")

