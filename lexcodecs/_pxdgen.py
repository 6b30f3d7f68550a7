"""Each format's table for Cython, generated at build time: ``format.py`` -> ``_format.pxd``.

(And each table shared below the codecs: ``lexcodecs/centimal.py`` ->
``lexcodecs/_centimal_format.pxd``, ``lexcodecs/pieces.py`` -> ``lexcodecs/_pieces_format.pxd``.)

Theory of operation: a format's constants are written once, in its ``format.py``. The compiled
code cimports them from ``_format.pxd`` beside it (``from ._format cimport NULL_ as H_NULL``),
which ``setup.py`` writes from ``format.py`` before Cython runs; ``python3 -m
lexcodecs._pxdgen`` writes them for a build by hand (``cythonize -i``). Nothing checks two
copies against each other, because there is one.

``format.py`` is read as text (:mod:`ast`), never imported: a build has only setuptools and
Cython, and a format module imports the package. Every module-level assignment of an integer
-- a literal, or arithmetic over literals and the integers assigned before it, to one name or
to a tuple of names (from a tuple, or ``range(n)``: codes numbered from 0) -- becomes a
constant of the same name: a ``cdef enum`` member where it fits a C ``int`` (Cython then knows
its value: a ``switch`` over such constants is a C ``switch``), else a ``const long long``
(``unsigned`` when it needs 64 bits) defined by a C macro. Anything else (bytes, tables,
classes) stays Python's. A name Cython reserves (``NULL``) gets a trailing underscore. A file
is rewritten only when its text changes, so an unchanged format recompiles nothing.

This module uses the standard library alone: ``setup.py`` loads it by its path.
"""

from __future__ import annotations

import ast
import operator
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

__all__ = ["SHARED", "constants", "pxd_text", "tables", "write_all"]

#: the arithmetic a constant may use
_BINARY: Final[dict[type, Callable[[int, int], int]]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_UNARY: Final[dict[type, Callable[[int], int]]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}
#: names Cython reserves: the constant is generated with a trailing underscore
RESERVED: Final = frozenset({"NULL"})
#: a C int's range (an enum member's)
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
#: the tables shared below the codecs (``lexcodecs/<name>.py``): SQLite4's base-100 number,
#: HBase's too; the columnar kernel's writer kinds and flags
SHARED: Final = ("centimal", "pieces")
#: the header of every generated file
HEADER: Final = ("# Generated from the table beside it by lexcodecs/_pxdgen.py at build time:\n"
                 "# do not edit, do not commit. The format's integer constants, for its\n"
                 "# compiled code.\n")


class _NotAnInt(Exception):
    pass


def _value(node: ast.expr, known: dict[str, int]) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id in known:
        return known[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, known), _value(node.right, known)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and right > 256:
            raise _NotAnInt  # a constant, not a computation
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, known))
    raise _NotAnInt


def _assignments(tree: ast.Module) -> Iterator[tuple[list[str], ast.expr]]:
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.value is not None:
            yield [stmt.target.id], stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                yield [target.id], stmt.value
            elif isinstance(target, ast.Tuple) and \
                    all(isinstance(e, ast.Name) for e in target.elts):
                names = [e.id for e in target.elts if isinstance(e, ast.Name)]
                values = _elements(stmt.value, len(names))
                for name, value in zip(names, values):
                    yield [name], value


def _elements(value: ast.expr, n: int) -> list[ast.expr]:
    """The *n* values a tuple assignment unpacks: a tuple of *n*, or ``range(n)`` (codes
    numbered from 0); else none."""
    if isinstance(value, ast.Tuple) and len(value.elts) == n:
        return list(value.elts)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id == "range" and len(value.args) == 1 and not value.keywords and \
            isinstance(value.args[0], ast.Constant) and value.args[0].value == n:
        return [ast.Constant(i) for i in range(n)]
    return []


def constants(source: str) -> dict[str, int]:
    """The integer constants of a ``format.py`` text, in order (a name assigned twice keeps
    its last value)."""
    known: dict[str, int] = {}
    for names, value in _assignments(ast.parse(source)):
        try:
            number = _value(value, known)
        except (_NotAnInt, ArithmeticError, ValueError):
            continue
        for name in names:
            if not name.startswith("_") and type(number) is int:
                known[name] = number
    return known


def pxd_text(package: str, values: dict[str, int]) -> str:
    """The ``_format.pxd`` of the format package *package* (its name, for the C macros). A
    constant beyond 64 bits has no C type: it stays Python's."""
    values = {n: v for n, v in values.items() if -(2**63) <= v <= 2**64 - 1}
    small = {n: v for n, v in values.items() if _INT_MIN <= v <= _INT_MAX}
    large = {n: v for n, v in values.items() if n not in small}
    lines = [HEADER]
    if small:
        lines.append("cdef enum:")
        lines += [f"    {n + '_' if n in RESERVED else n} = {v}" for n, v in small.items()]
    if large:
        prefix = f"LEXCODECS_{package.upper()}_"
        lines.append("")
        lines.append("cdef extern from *:")
        lines.append('    """')
        for n, v in large.items():
            literal = f"{v}ULL" if v > 2**63 - 1 else f"({v + 1}LL - 1)" if v < -(2**63) + 1 \
                else f"{v}LL"
            lines.append(f"    #define {prefix}{n} {literal}")
        lines.append('    """')
        for n, v in large.items():
            kind = "unsigned long long" if v > 2**63 - 1 else "long long"
            lines.append(f'    const {kind} {n + "_" if n in RESERVED else n} "{prefix}{n}"')
    return "\n".join(lines) + "\n"


def tables(root: Path) -> list[tuple[str, Path, Path]]:
    """Each table under *root* (the repository) as (name, source, generated ``.pxd``): every
    codec's ``format.py`` -> ``_format.pxd`` beside it, and the layouts shared below the codecs
    (:data:`SHARED`) -> ``lexcodecs/_<name>_format.pxd``."""
    package = root / "lexcodecs"
    found = [(source.parent.name, source, source.with_name("_format.pxd"))
             for source in sorted((package / "codecs").glob("*/format.py"))]
    shared = [(name, package / f"{name}.py", package / f"_{name}_format.pxd")
              for name in SHARED]
    return found + [row for row in shared if row[1].exists()]


def write_all(root: Path) -> list[Path]:
    """Write the ``_format.pxd`` of every format package under *root* (the repository) whose
    text changed; returns the files written."""
    written = []
    for name, source, target in tables(root):
        text = pxd_text(name, constants(source.read_text(encoding="utf-8")))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(target)
    return written


if __name__ == "__main__":
    here = Path(__file__).resolve().parent.parent
    for path in write_all(here):
        print(f"wrote {path.relative_to(here)}", file=sys.stderr)
