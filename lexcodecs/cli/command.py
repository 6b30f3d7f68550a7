"""The ``lexcodecs`` command itself: the parser of every subcommand, and :func:`main`.

Each subcommand is a pair in its own module: ``_add_<command>`` builds its parser and sets
``run``, the function that does the work and returns the exit status. :data:`SUBCOMMANDS`
lists the builders; :func:`main` parses, runs, and turns every refusal (a
:class:`~lexcodecs.cli.CliError` or a :class:`~lexcodecs.errors.LexCodecError`) into
``lexcodecs: error: <message>`` on stderr with exit status 2. Whatever else escapes a command
(a file-system or SQLite error, input that is not UTF-8, a bug) is one line too, with exit
status 1 (2 for bad input): the command never shows a traceback, unless ``LEXCODECS_DEBUG``
is set.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable
from typing import Final

from .. import __version__
from ..errors import LexCodecError
from .arguments import CliError, Subparsers
from .catalog import _add_conformance, _add_list
from .compare import _add_compare
from .keys import _add_decode, _add_encode, _add_inspect
from .migrate import _add_migrate

__all__ = ["SUBCOMMANDS", "build_parser", "main"]


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
    # what bad input or a bad environment raises below the commands: one line, no traceback
    except UnicodeDecodeError as exc:
        _report(CliError(f"input is not UTF-8 text: byte {exc.object[exc.start:exc.start + 1]!r}"
                         f" at offset {exc.start}"))
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _report(CliError(f"{where}{exc.strerror or exc}"))
        return 1
    except sqlite3.Error as exc:
        _report(CliError(f"SQLite: {exc}"))
        return 1
    except RecursionError:
        _report(CliError("input nested too deeply"))
        return 2
    except MemoryError:
        _report(CliError("out of memory (is the input too large?)"))
        return 1
    except Exception as exc:  # a bug: still one line, and a way to see more
        if os.environ.get("LEXCODECS_DEBUG"):
            raise
        _report(CliError(f"internal error: {type(exc).__name__}: {_short(exc)} "
                         "(set LEXCODECS_DEBUG=1 for the traceback, and please report it)"))
        return 1


def _short(exc: BaseException) -> str:
    """The first line of *exc*'s message, cut to a sane length."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 200 else first[:199] + "…"
