"""The ``lexcodecs`` command itself: the parser of every subcommand, and :func:`main`.

Each subcommand is a pair in its own module: ``_add_<command>`` builds its parser and sets
``run``, the function that does the work and returns the exit status. :data:`SUBCOMMANDS`
lists the builders; :func:`main` parses, runs, and turns every refusal (a
:class:`~lexcodecs.cli.CliError` or a :class:`~lexcodecs.errors.LexCodecError`) into
``lexcodecs: error: <message>`` on stderr with exit status 2. Whatever else escapes a command
(a file-system or SQLite error, input that is not UTF-8, a bug) is one line too, with exit
status 1 (2 for bad input): the command never shows a traceback, unless ``LEXCODECS_DEBUG``
is set. Ctrl-C (``KeyboardInterrupt``) anywhere, reading standard input included, ends the
command with one line from :data:`INTERRUPTED` (what state it left and what to do next) and
exit status 130, the shell's code for a run stopped by SIGINT.

``lexcodecs --version`` says the version and which implementation runs
(:func:`implementation`): the compiled codec modules, or the reference Python and why.

``lexcodecs completion`` is :mod:`lexcodecs.cli.completion`'s.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sqlite3
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

from .. import __version__, _impl
from ..errors import LexCodecError
from .arguments import CliError, Subparsers
from .catalog import _add_conformance, _add_list
from .compare import _add_compare
from .completion import _add_completion
from .identify import _add_identify
from .keys import _add_decode, _add_encode, _add_inspect
from .migrate import _add_migrate

__all__ = ["INTERRUPTED", "SUBCOMMANDS", "build_parser", "implementation", "main"]


#: Parser builders, one per subcommand, in the order ``--help`` shows them.
SUBCOMMANDS: Final[tuple[Callable[[Subparsers], None], ...]] = (
    _add_list, _add_encode, _add_decode, _add_inspect, _add_compare, _add_migrate,
    _add_identify, _add_conformance, _add_completion,
)


#: Exit status of a command stopped by Ctrl-C (128 + SIGINT, as the shell reports it).
EXIT_INTERRUPTED: Final = 130

#: What a command stopped by Ctrl-C says, by command: the state it left, and what to do.
#: ``migrate`` is told apart by where its keys are (see :func:`_interrupted`).
INTERRUPTED: Final[dict[str, str]] = {
    "migrate": "nothing is lost: the original is untouched and the batches copied so far are "
               "kept; run the same command again to resume, or add --restart to start over",
    "migrate --input": "nothing was written to --output (it appears whole or not at all); run "
                       "the same command again",
    "migrate --input to stdout": "the keys printed so far are only the first ones; run the "
                                 "same command again",
    "migrate --dry-run": "a dry run writes nothing; run it again (--sample N is quicker)",
    "compare": "nothing was written; run the same command again (a smaller -n is quicker)",
    "conformance": "no verdict was reached; run the same command again (fewer --examples is "
                   "quicker)",
    "identify": "nothing was written; run the same command again (--sample N is quicker)",
}


def implementation() -> tuple[str, str | None]:
    """Which implementation the codecs run: ``("compiled", None)``, or ``("pure Python
    (reference)", reason)`` -- ``LEXCODECS_PURE`` is set, or which compiled modules are
    missing and why (``lexcodecs --version`` prints it)."""
    if os.environ.get(_impl.ENV_PURE):
        return "pure Python (reference)", f"{_impl.ENV_PURE} is set"
    missing = []
    for package in _impl.compiled_packages():
        try:
            importlib.import_module(f"lexcodecs.codecs.{package}._compiled")
        except ImportError as exc:
            missing.append(f"{package} ({exc})")
    if missing:
        return "pure Python (reference)", "compiled modules missing: " + ", ".join(missing)
    return "compiled", None


class _Version(argparse.Action):
    """``--version``: the version, the implementation in use, and Python's version."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and whether the compiled modules are in use")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        kind, reason = implementation()
        print(f"lexcodecs {__version__} ({kind}{': ' + reason if reason else ''}; "
              f"Python {platform.python_version()})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lexcodecs", description="Order-preserving binary key codecs.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     help="what to do (lexcodecs COMMAND --help for more)")
    for add in SUBCOMMANDS:
        add(commands)
    return parser


def _report(exc: Exception) -> None:
    first, *rest = str(exc).splitlines() or [type(exc).__name__]
    print(f"lexcodecs: error: {first}", file=sys.stderr)
    for line in rest:  # a SchemaError's text and caret
        print(line, file=sys.stderr)


def _interrupted(args: argparse.Namespace | None) -> str:
    """The line a command stopped by Ctrl-C prints."""
    command = getattr(args, "command", None)
    if command == "migrate":
        if getattr(args, "dry_run", False):
            command = "migrate --dry-run"
        elif getattr(args, "input", None) is not None:
            to_stdout = getattr(args, "output", None) in (None, "-")
            command = "migrate --input to stdout" if to_stdout else "migrate --input"
    what = INTERRUPTED.get(command or "")
    return "stopped (Ctrl-C)" + (f": {what}" if what else "")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for any refusal, 130 for Ctrl-C)."""
    with warnings.catch_warnings():  # restores Python's display when main returns
        warnings.showwarning = _show_warning
        return _main(argv)


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning as one line, ``lexcodecs: warning: <message>``: where it was raised, and
    the source line Python prints with it, mean nothing to someone running a command."""
    text = str(message).removeprefix("lexcodecs: ")
    if not category.__module__.startswith("lexcodecs"):
        text = f"{category.__name__}: {text}"
    print(f"lexcodecs: warning: {text}", file=sys.stderr if file is None else file)


def _main(argv: list[str] | None) -> int:
    args: argparse.Namespace | None = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version and usage errors
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        return _run(args)
    except KeyboardInterrupt:
        # every store commits whole batches (and rolls back the one in flight), so a stop at
        # any point leaves a state the same command resumes from
        # on a terminal the line starts after the echoed ^C
        start = "\n" if _isatty(sys.stderr) else ""
        print(f"{start}lexcodecs: {_interrupted(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
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


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
