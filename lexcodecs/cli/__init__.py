"""The ``lexcodecs`` command: compare codecs, inspect and migrate keys, run the harness.

::

    lexcodecs list [--json]
    lexcodecs encode -c NAME [-s SCHEMA] [-o OPT=VALUE ...] VALUES
    lexcodecs decode -c NAME [-s SCHEMA] [-o OPT=VALUE ...] HEX
    lexcodecs inspect -c NAME [-s SCHEMA] [-o OPT=VALUE ...] HEX [--json]
    lexcodecs compare [-s SCHEMA] [-n N] [--store sqlite|lmdb|rocksdb|memory] [--json | --markdown]
                      [--html FILE] [--records F | --csv F | --sqlite DB (--table T | --query
                      SQL) | --parquet F | --keys-from STORE --keys-codec NAME] [--key COLUMNS]
    lexcodecs migrate --from A --to B -s SCHEMA (--input F [--output F] | --sqlite DB
                      --table T --key-column C | --lmdb PATH | --rocksdb PATH) [--keep-old]
                      [--restart] [--dry-run [--sample N]] [--json]
    lexcodecs identify (FILE | --sqlite DB --table T --key-column K | --lmdb PATH
                       | --rocksdb PATH [--column-family NAME]) [--sample N] [-c NAME ...]
                       [--limit N] [--json]
    lexcodecs conformance [-c NAME ...] [--examples N] [--strict] [--no-shrink] [--json]
    lexcodecs completion bash|zsh|fish
    lexcodecs --version

VALUES is a Python literal tuple or list, read without ``eval``: the syntax tree is walked and
only constants, tuples, lists, a sign on a number, the names in :data:`NAMES` and calls of the
constructors in :data:`CONSTRUCTORS` are accepted. Every refusal, the command line's or a
codec's, is reported as ``lexcodecs: error: <message>`` on stderr with exit status 2; Ctrl-C
stops any command with one line saying what to do next, and exit status 130.

Each subcommand is a pair: ``_add_<command>`` builds its parser and sets ``run``, the function
that does the work and returns the exit status. :data:`SUBCOMMANDS` lists the pairs' builders.

The modules, by job: :mod:`~lexcodecs.cli.arguments` (what every command shares: HEX,
``-o``, the codec arguments, ``CliError``), :mod:`~lexcodecs.cli.values` (VALUES),
:mod:`~lexcodecs.cli.keys` (encode, decode, inspect), :mod:`~lexcodecs.cli.compare` (with
:mod:`~lexcodecs.cli.sources`, its input options),
:mod:`~lexcodecs.cli.migrate`, :mod:`~lexcodecs.cli.identify`, :mod:`~lexcodecs.cli.catalog`
(list, conformance) and
:mod:`~lexcodecs.cli.command` (the parser, :func:`main`, and the completion scripts written
from the parser).
"""

from .arguments import CliError, parse_hex, parse_option
from .arguments import Subparsers as Subparsers
from .catalog import run_conformance as run_conformance
from .catalog import run_list as run_list
from .command import SUBCOMMANDS, build_parser, main
from .compare import run_compare as run_compare
from .keys import run_decode as run_decode
from .keys import run_encode as run_encode
from .keys import run_inspect as run_inspect
from .migrate import batch_size as batch_size
from .migrate import run_migrate as run_migrate
from .values import CONSTRUCTORS, NAMES, Constructor, parse_values
from .values import VALUES_HELP as VALUES_HELP

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
