"""``lexcodecs list`` and ``lexcodecs conformance``: which codecs there are, what each
supports, and whether each keeps its promises.

``list`` loads every registered codec; one that fails to load is listed with its error rather
than hiding the others. ``list --json`` is one object, ``{"format_version": 1, "codecs":
[...]}`` (:func:`~lexcodecs.cli.arguments.json_text`): each codec's ``int_range`` bounds are
exact, integers beyond 2**53 written as decimal strings, ``null`` when unbounded.
``conformance`` runs the harness matrix (:mod:`lexcodecs.testing.matrix`, which needs
hypothesis) with hypothesis's caches in a temporary directory: it tests every claim each codec
declares, says which ones it could not test, and exits 1 when a claim fails (with
``--strict``, also when one went untested).
"""

from __future__ import annotations

import argparse
import tempfile
from typing import Any

from ..codec import Capabilities
from ..registry import available_codecs, get_codec
from ..schema import FIELD_TYPES
from .arguments import CliError, Subparsers, _one_line, _progress_bar, count, json_text

__all__ = ["run_conformance", "run_list"]


def _add_list(commands: Subparsers) -> None:
    p = commands.add_parser("list", help="list the available codecs and what they support")
    p.add_argument("--json", action="store_true",
                   help="print a JSON object: format_version, and codecs, a list of "
                        "{name, capabilities, config} (or {name, error})")
    p.set_defaults(run=run_list)


def run_list(args: argparse.Namespace) -> int:
    names = available_codecs()
    found = {name: _inspect(name) for name in names}
    if args.json:
        print(json_text({"codecs": [
            {"name": name, "error": info} if isinstance(info, str) else
            {"name": name, "capabilities": info[0].to_dict(), "config": info[1]}
            for name, info in found.items()]}))
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


def _inspect(name: str) -> tuple[Capabilities, dict[str, Any]] | str:
    """The capabilities and config of codec *name*, or why it failed to load."""
    try:
        codec = get_codec(name)
        return codec.capabilities, codec.config()
    except Exception as exc:  # a broken plugin must not hide the other codecs
        return _one_line(exc)


def _add_conformance(commands: Subparsers) -> None:
    p = commands.add_parser("conformance", help="run the conformance harness on codecs")
    p.add_argument("-c", "--codec", dest="codecs", action="append", metavar="NAME",
                   help="check only these codecs (repeatable; default: all)")
    p.add_argument("--examples", type=count(1), default=10, metavar="N",
                   help="hypothesis examples per property and schema (default 10)")
    p.add_argument("--no-shrink", action="store_true",
                   help="report failures as found, without shrinking them to a small "
                        "counterexample (faster on a broken codec)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a declared claim went untested, too")
    p.add_argument("--json", action="store_true",
                   help="print the matrix as a JSON object (format_version first)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_conformance)


def run_conformance(args: argparse.Namespace) -> int:
    try:
        from hypothesis.configuration import set_hypothesis_home_dir

        from ..testing.matrix import run_matrix
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
            matrix = run_matrix(names, examples=args.examples, shrink=not args.no_shrink,
                                progress=bar)
        finally:
            set_hypothesis_home_dir(None)
            if bar:
                bar.close()
    print(json_text(matrix.to_dict()) if args.json else matrix.render())
    if not matrix.ok:
        return 1
    return 1 if args.strict and not matrix.complete else 0
