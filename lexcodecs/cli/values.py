"""VALUES: the key values of ``lexcodecs encode``, a Python literal read without ``eval``.

Theory of operation: the text is parsed with :func:`ast.parse` and the syntax tree is walked
(:class:`_ValueReader`); only constants, tuples, lists, a sign on a number, the names in
:data:`NAMES` and calls of the constructors in :data:`CONSTRUCTORS` are accepted. Anything
else is refused as a :class:`~lexcodecs.cli.CliError` naming what it is and where (the
column in the text as given).
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import math
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from ..types import END, INT_TYPES, Float32, Versionstamp
from .arguments import CliError

__all__ = ["CONSTRUCTORS", "NAMES", "VALUES_HELP", "Constructor", "parse_values"]


@attrs.frozen
class Constructor:
    """A call allowed in VALUES: either fixed positional arguments of the given types, or
    one or more of the given keyword arguments (numbers)."""

    make: Callable[..., Any]
    usage: str
    args: tuple[tuple[type, ...], ...] = ()
    keywords: tuple[str, ...] = ()


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

VALUES_HELP: Final = (
    "VALUES is a Python literal tuple or list, e.g. \"('acme', 42, None)\". Allowed inside: "
    "None, True, False, numbers, 'text', b'bytes', nested tuples and lists, "
    + ", ".join(NAMES) + " (and -inf), and calls of "
    + ", ".join(c.usage for c in CONSTRUCTORS.values()) + "."
)


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
