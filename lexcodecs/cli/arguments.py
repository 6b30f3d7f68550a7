"""What every command shares: reading HEX and ``-o OPT=VALUE``, the codec and schema
arguments, one-line error texts, the progress bar, and the ``--json`` documents.

:class:`CliError` is a bad argument: :func:`lexcodecs.cli.main` reports it, like any
:class:`~lexcodecs.errors.LexCodecError`, as ``lexcodecs: error: <message>`` with exit status
2. A key in hex may carry ``0x`` and separate its bytes with spaces or colons; an option value
is a Python literal if it reads as one, else a string.

Every ``--json`` document is an object whose first key is ``format_version``
(:data:`JSON_FORMAT_VERSION`, raised when a key changes meaning or goes), written by
:func:`json_text`; an integer JavaScript cannot hold exactly (beyond 2**53 in magnitude) is
written as a decimal string, so every reader gets the same number.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Sequence
from typing import Any, Final

from .._console import Progress
from ..codec import Codec
from ..errors import LexCodecError
from ..registry import get_codec
from ..schema import KeySchema

__all__ = ["JSON_FORMAT_VERSION", "CliError", "Subparsers", "json_text", "parse_hex",
           "parse_option"]

#: the version of every ``--json`` document's layout (its first key, ``format_version``)
JSON_FORMAT_VERSION: Final = 1

#: the largest integer magnitude a JSON reader that uses doubles holds exactly
_JSON_SAFE_INT: Final = 2**53

#: what a key in hex may not contain, and the separators it may
_HEX_JUNK: Final = re.compile(r"[^0-9a-fA-F\s:]")
_HEX_SEPARATORS: Final = re.compile(r"[\s:]")

Subparsers = Any  # argparse's _SubParsersAction is private


class CliError(ValueError):
    """A bad command-line argument: reported as one line, exit status 2."""

    __module__ = "lexcodecs.cli"  # its public home, as messages and docs name it


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


def count(minimum: int) -> Any:
    """An argparse ``type``: an int of at least *minimum* (a usage error otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text}: must be at least {minimum}")
        return value
    return parse


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


def _options(texts: Sequence[str] | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for text in texts or ():
        name, value = parse_option(text)
        if name in options:
            raise CliError(f"option {name!r} given twice")
        options[name] = value
    return options


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


def _progress_bar(args: argparse.Namespace, label: str, total: int | None
                  ) -> Progress | None:
    if getattr(args, "no_progress", False):
        return None
    return Progress(label, total)


def _codec_arguments(codec_help: str | None = None) -> argparse.ArgumentParser:
    """``-c NAME``, ``-s SCHEMA`` and ``-o OPT=VALUE``; ``-c`` is required unless
    *codec_help* says what its absence means."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-c", "--codec", required=codec_help is None, metavar="NAME",
                        help="registry name of the codec (see: lexcodecs list)"
                        + (f"; {codec_help}" if codec_help else ""))
    common.add_argument("-s", "--schema", metavar="SCHEMA",
                        help="schema text, e.g. 'tenant:string, ts:int64 desc nulls last'")
    common.add_argument("-o", "--option", dest="options", action="append", metavar="OPT=VALUE",
                        help="a codec option (repeatable); VALUE is a Python literal, "
                             "else a string")
    return common


def _json_safe(value: Any) -> Any:
    """*value* with every integer beyond 2**53 in magnitude a decimal string (bools are
    bools), through dicts, lists and tuples."""
    if type(value) is int and abs(value) > _JSON_SAFE_INT:
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def json_text(document: dict[str, Any]) -> str:
    """A ``--json`` document: ``format_version`` first, then *document*'s keys, integers
    beyond 2**53 as strings, indented by 2."""
    return json.dumps({"format_version": JSON_FORMAT_VERSION, **_json_safe(document)},
                      indent=2)
