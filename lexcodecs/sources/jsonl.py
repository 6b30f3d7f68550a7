"""JSON Lines records: one JSON array per line, a value per field of the key schema.

Theory of operation: plain JSON covers strings, numbers, booleans and NULL; the other values
are objects with one key, ``{type: value}`` (:data:`_TYPED`): ``{"bytes": "00ff"}``,
``{"decimal": "1.50"}``, ``{"uuid": "..."}``, ``{"float": "nan"}``, ``{"timestamp":
"2024-01-01T00:00:00+00:00"}``, ``{"duration_us": 5}``. Each kind has one checked converter,
so a value of the wrong kind or out of range is a :class:`JsonRecordError` naming its field,
never an exception of its own (``OverflowError``, ``AttributeError``, ``RecursionError``);
numbers follow the field (5 in a float64 field is 5.0, in a decimal field ``Decimal(5)``, read
from the number's own text). :func:`json_record` reads one line;
:func:`records_from_json` a list of them (``lexcodecs.compare``'s input), and
:func:`lexcodecs.sources.read_jsonl` a file, with its line numbers and sampling.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import re
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..errors import LexCodecError, describe_value
from ..schema import KeySchema
from ..types import Float32

__all__ = ["JsonRecordError", "json_record", "records_from_json"]


class JsonRecordError(ValueError):
    """A line of JSON Lines that is not a record of the schema: ``field`` is the index of the
    value at fault (``None``: the line as a whole)."""

    def __init__(self, reason: str, field: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field


def _show(value: Any) -> str:
    return describe_value(value, 40)


def _refuse(kind: str, inner: Any, wanted: str) -> ValueError:
    return ValueError(f'{{"{kind}": {_show(inner)}}}: {wanted}, not '
                      f"{_JSON_KINDS.get(type(inner), type(inner).__name__)}")


#: what JSON calls the values it parses to
_JSON_KINDS: Final[dict[type, str]] = {
    bool: "a boolean", int: "a number", float: "a number", decimal.Decimal: "a number",
    str: "a string", list: "an array", dict: "an object", type(None): "null"}


def _to_float(value: int | float | decimal.Decimal) -> float:
    """*value* as a double, rounded as IEEE 754 rounds: beyond the range it is ±inf (as
    ``1e400`` in JSON and ``Float32`` of a too large int are)."""
    try:
        return float(value)
    except OverflowError:  # an int beyond the doubles
        return math.inf if value > 0 else -math.inf


def _typed_bytes(inner: Any) -> bytes:
    if not isinstance(inner, str):
        raise _refuse("bytes", inner, "expected hex digits in a string")
    try:
        return bytes.fromhex(inner)
    except ValueError as exc:
        raise ValueError(f'{{"bytes": {_show(inner)}}}: {exc}') from None


def _typed_decimal(inner: Any) -> decimal.Decimal:
    if isinstance(inner, bool) or not isinstance(inner, (str, int, float, decimal.Decimal)):
        raise _refuse("decimal", inner, "expected a number or a string of one")
    if isinstance(inner, decimal.Decimal):
        return inner
    try:
        return decimal.Decimal(inner)
    except (decimal.InvalidOperation, ValueError):
        raise ValueError(f'{{"decimal": {_show(inner)}}}: not a decimal number') from None


def _typed_uuid(inner: Any) -> uuid.UUID:
    if not isinstance(inner, str):
        raise _refuse("uuid", inner, "expected a UUID in a string")
    try:
        return uuid.UUID(inner)
    except ValueError:
        raise ValueError(f'{{"uuid": {_show(inner)}}}: not a UUID (32 hex digits, dashes '
                         "optional)") from None


def _typed_float(inner: Any) -> float:
    if isinstance(inner, str):
        try:
            return float(inner)
        except ValueError:
            raise ValueError(f'{{"float": {_show(inner)}}}: could not convert string to '
                             'float (write "nan", "inf", "-inf", "-0.0" or a number)') from None
    if isinstance(inner, bool) or not isinstance(inner, (int, float, decimal.Decimal)):
        raise _refuse("float", inner, "expected a number or a string of one")
    return _to_float(inner)


def _typed_timestamp(inner: Any) -> dt.datetime:
    if not isinstance(inner, str):
        raise _refuse("timestamp", inner, "expected ISO 8601 text")
    try:
        return dt.datetime.fromisoformat(inner)
    except ValueError:
        raise ValueError(f'{{"timestamp": {_show(inner)}}}: not an ISO 8601 timestamp') \
            from None


def _typed_duration(inner: Any) -> dt.timedelta:
    micros: int | None = None
    if isinstance(inner, int) and not isinstance(inner, bool):
        micros = inner
    elif isinstance(inner, (float, decimal.Decimal)) and not isinstance(inner, bool):
        if math.isfinite(inner) and inner == int(inner):
            micros = int(inner)
    elif isinstance(inner, str) and _WHOLE.match(inner):
        try:
            micros = int(inner)
        except ValueError:  # beyond Python's 4300-digit conversion limit
            micros = None
    if micros is None:
        raise ValueError(f'{{"duration_us": {_show(inner)}}}: expected a whole number of '
                         "microseconds")
    try:
        return dt.timedelta(microseconds=micros)
    except OverflowError:
        raise ValueError(f'{{"duration_us": {_show(inner)}}}: beyond the range of a '
                         "duration (±999999999 days)") from None


_WHOLE: Final = re.compile(r"\s*[+-]?[0-9]+\s*\Z")

#: typed JSON values of a records file: {"bytes": hex}, {"decimal": "1.50"}, ...; each
#: raises ValueError, naming the value, for an inner value it does not take
_TYPED: Final[dict[str, Callable[[Any], Any]]] = {
    "bytes": _typed_bytes,
    "decimal": _typed_decimal,
    "uuid": _typed_uuid,
    "float": _typed_float,  # "nan", "-inf", "-0.0" and friends
    "timestamp": _typed_timestamp,
    "duration_us": _typed_duration,
}


def _json_value(raw: Any, field_type: str) -> Any:
    """One value of a records line as the field takes it (``ValueError`` if it cannot be)."""
    if isinstance(raw, dict):
        if len(raw) != 1 or next(iter(raw)) not in _TYPED:
            raise ValueError(f"a typed value is one of {sorted(_TYPED)} as {{type: value}}, "
                             f"got {_show(raw)}")
        (kind, inner), = raw.items()
        value = _TYPED[kind](inner)
    else:
        value = raw
    # numbers follow the field: 5 in a float64 field is 5.0, in a decimal field Decimal(5)
    # (json_record parses a decimal field's numbers as decimal.Decimal, from their text)
    if field_type in ("float64", "float32") and type(value) is int:
        value = _to_float(value)
    if field_type == "float32" and isinstance(value, float):
        value = Float32(value)
    if field_type == "decimal" and isinstance(value, (int, float)) and type(value) is not bool:
        value = decimal.Decimal(value) if type(value) is int else decimal.Decimal(str(value))
    return value


def json_record(line: str, schema: KeySchema) -> tuple[Any, ...]:
    """The record of one line of JSON Lines (not blank), or :class:`JsonRecordError`: the
    line is not a JSON array of one value per field, or a value is not what its field
    takes (then ``field`` says which). Never another exception, whatever the line holds."""
    width = len(schema)
    try:
        row = json.loads(line)
        exact = json.loads(line, parse_float=decimal.Decimal) if any(
            f.type == "decimal" for f in schema.fields) else row
    except RecursionError:
        raise JsonRecordError("JSON nested too deeply (arrays or objects inside each other, "
                              "past what Python's parser takes)") from None
    except ValueError as exc:  # not JSON; an integer past Python's 4300 digits
        raise JsonRecordError(str(exc)) from None
    if not isinstance(row, list) or len(row) != width:
        raise JsonRecordError(f"expected a JSON array of {width} values")
    values = []
    for i, (v, f) in enumerate(zip(row, schema.fields)):
        if f.type == "decimal":
            v = exact[i]
        try:
            values.append(None if v is None else _json_value(v, f.type))
        except (ValueError, ArithmeticError, TypeError, LexCodecError) as exc:
            raise JsonRecordError(str(exc), field=i) from None
        except RecursionError:
            raise JsonRecordError("a value nested too deeply", field=i) from None
    return tuple(values)


def records_from_json(lines: Iterable[str], schema: KeySchema | str) -> list[tuple[Any, ...]]:
    """Records from JSON Lines: one array per line, a value per field (``null`` is NULL).

    Plain JSON covers strings, numbers, booleans and NULL; other values are objects with one
    key: ``{"bytes": "00ff"}``, ``{"decimal": "1.50"}``, ``{"uuid": "..."}``, ``{"float":
    "nan"}``, ``{"timestamp": "2024-01-01T00:00:00+00:00"}``, ``{"duration_us": 5}``. A line
    that is not such a record is a :class:`~lexcodecs.errors.LexCodecError` naming the line
    and the column (``records line 3: column 'n' (int64): ...``).

    >>> records_from_json(['["a", 1, {"bytes": "00ff"}]'], "s:string, n:int64, b:bytes")
    [('a', 1, b'\\x00\\xff')]
    """
    schema = KeySchema.coerce(schema)
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json_record(line, schema))
        except JsonRecordError as exc:
            raise LexCodecError(f"records line {number}: {_placed(exc, schema)}") from None
    return out


def _placed(exc: JsonRecordError, schema: KeySchema) -> str:
    """The reason of *exc*, after the column it is about."""
    if exc.field is None:
        return exc.reason
    f = schema.fields[exc.field]
    return f"column {f.name!r} ({f.type}): {exc.reason}"
