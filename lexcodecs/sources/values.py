"""Reading one value of a field type: from text (CSV, SQLite TEXT) or from a Python value.

Theory of operation: every input gives a key column's values either as text (a CSV cell, a
TEXT value in an SQLite column) or as Python values (SQLite INTEGER/REAL/BLOB, Parquet, keys
decoded by a codec). A *reader* turns one such value into the value the codecs take for the
field type -- ``int`` for the integer types, ``Float32`` for float32, an aware ``datetime``
for timestamp, and so on -- or raises :class:`ValueError` with the reason, which the caller
places (source, line or row, column). NULL (``None``) never reaches a reader.

Nothing is guessed silently: a value is read only in the forms listed in :data:`TEXT_FORMS`,
an integer out of its type's range is refused, not wrapped, and a float in an integer field
is taken only when it is a whole number. Two roundings are deliberate and documented: float32
rounds to the nearest binary32 value (as a database column of that type does), and instants
and durations finer than a microsecond are floored to the microsecond (the field types hold
microseconds, and flooring keeps the order).

:func:`guess_type` proposes a field type from sample values, for inputs that carry no types
(CSV, untyped SQLite columns, keys of a self-describing format).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..errors import describe_value
from ..types import INT_TYPES, Float32

__all__ = ["TEXT_FORMS", "guess_type", "text_reader", "value_reader"]

#: How each field type is written as text (CSV cells, SQLite TEXT values); what errors and
#: docs/your-data.md say is expected. An empty CSV cell is NULL in every column.
TEXT_FORMS: Final[dict[str, str]] = {
    "string": "the text itself",
    "bytes": "hex digits, optionally after 0x or \\x (00ff, 0x00ff, \\x00ff)",
    "bool": "true/false, t/f, yes/no, y/n or 1/0 (any case)",
    **{t: f"a whole number in {c.min}..{c.max}" for t, c in INT_TYPES.items()},
    "int": "a whole number of any size",
    "float64": "a decimal or exponent number, nan, inf or -inf",
    "float32": "a decimal or exponent number, nan, inf or -inf (rounded to binary32)",
    "decimal": "a decimal or exponent number, NaN, Infinity or -Infinity",
    "uuid": "32 hex digits, with or without dashes and braces",
    "timestamp": "ISO 8601 (2024-01-31T12:00:00.5+01:00, 2024-01-31 12:00, 2024-01-31); "
                 "without an offset it is UTC",
    "duration": "ISO 8601 (P2DT3H4M5.5S, PT0.000001S, -PT1H) or [-]H:MM:SS[.ffffff]",
    "tuple": "not readable from text (use JSON Lines)",
}

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_INT_TEXT: Final = re.compile(r"[+-]?[0-9]+\Z")
_HEX_TEXT: Final = re.compile(r"(?:0[xX]|\\x)?([0-9a-fA-F]*)\Z")
_TRUE: Final = frozenset({"true", "t", "yes", "y", "1"})
_FALSE: Final = frozenset({"false", "f", "no", "n", "0"})
_ISO_DURATION: Final = re.compile(
    r"(?P<sign>[-+]?)P(?:(?P<weeks>\d{1,18})W)?(?:(?P<days>\d{1,18})D)?"
    r"(?:T(?:(?P<hours>\d{1,18})H)?(?:(?P<minutes>\d{1,18})M)?"
    r"(?:(?P<seconds>\d{1,18})(?:[.,](?P<frac>\d+))?S)?)?"
    r"\Z", re.IGNORECASE)
_CLOCK_DURATION: Final = re.compile(
    r"(?P<sign>[-+]?)(?P<hours>\d{1,18}):(?P<minutes>[0-5]\d):(?P<seconds>[0-5]\d)"
    r"(?:\.(?P<frac>\d+))?\Z")
_UUID_TEXT: Final = re.compile(r"\{?[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}\}?\Z")

Reader = Callable[[Any], Any]

#: the most digits of a whole number read (Python's own limit on int <-> str conversion)
_MAX_DIGITS: Final = 4300


def _show(value: Any) -> str:
    return describe_value(value, 40)


def _expected(field_type: str) -> str:
    return f"expected {TEXT_FORMS[field_type]}"


# -- from text ------------------------------------------------------------------------------


def _text_string(text: str) -> str:
    return text


def _text_bytes(text: str) -> bytes:
    match = _HEX_TEXT.match(text.strip())
    if match is None:
        raise ValueError(f"{_show(text)} is not hex; {_expected('bytes')}")
    digits = match.group(1)
    if len(digits) % 2:
        raise ValueError(f"{_show(text)} has an odd number of hex digits; every byte takes two")
    return bytes.fromhex(digits)


def _text_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(f"{_show(text)} is not a boolean; {_expected('bool')}")


def _whole(text: str, field_type: str) -> int:
    body = text.strip()
    if not _INT_TEXT.match(body):
        raise ValueError(f"{_show(text)} is not a whole number; {_expected(field_type)}")
    try:
        return int(body)
    except ValueError:  # beyond Python's 4300-digit conversion limit
        raise ValueError(f"a whole number of {len(body)} digits is too long to read") from None


def _checked_int(value: int, field_type: str) -> int:
    cls = INT_TYPES.get(field_type)
    if cls is not None and not cls.min <= value <= cls.max:
        raise ValueError(f"{_show(value)} is out of range for {field_type} "
                         f"({cls.min}..{cls.max})")
    return value


def _text_int(field_type: str) -> Reader:
    def read(text: str) -> int:
        return _checked_int(_whole(text, field_type), field_type)
    return read


def _float_text(text: str, field_type: str) -> float:
    # float() also takes '1_000' and surrounding blanks; only the documented forms are taken
    body = text.strip()
    try:
        if "_" in body:
            raise ValueError
        return float(body)
    except ValueError:
        raise ValueError(f"{_show(text)} is not a number; {_expected(field_type)}") from None


def _text_float64(text: str) -> float:
    return _float_text(text, "float64")


def _text_float32(text: str) -> Float32:
    return Float32(_float_text(text, "float32"))


def _text_decimal(text: str) -> decimal.Decimal:
    body = text.strip()
    try:
        if "_" in body or not body:
            raise decimal.InvalidOperation
        return decimal.Decimal(body)
    except decimal.InvalidOperation:
        raise ValueError(f"{_show(text)} is not a decimal number; {_expected('decimal')}"
                         ) from None


def _text_uuid(text: str) -> uuid.UUID:
    body = text.strip()
    if not _UUID_TEXT.match(body):
        raise ValueError(f"{_show(text)} is not a UUID; {_expected('uuid')}")
    return uuid.UUID(body)


def _aware(value: dt.datetime) -> dt.datetime:
    # an instant without an offset is UTC, as SQLite's date and time functions read it
    return value.replace(tzinfo=dt.UTC) if value.utcoffset() is None else value


def _text_timestamp(text: str) -> dt.datetime:
    try:
        return _aware(dt.datetime.fromisoformat(text.strip()))
    except ValueError:
        raise ValueError(f"{_show(text)} is not an ISO 8601 timestamp; "
                         f"{_expected('timestamp')}") from None


def _micros(sign: str, whole_seconds: int, frac: str | None) -> int:
    """Microseconds of ``sign whole_seconds.frac``, floored: digits past the sixth only
    matter to a negative value, which they push one microsecond lower."""
    digits = frac or ""
    magnitude = whole_seconds * 1_000_000 + int(digits[:6].ljust(6, "0"))
    if sign != "-":
        return magnitude
    return -magnitude - (1 if digits[6:].strip("0") else 0)


def _text_duration(text: str) -> dt.timedelta:
    body = text.strip()
    iso = _ISO_DURATION.match(body)
    parts: dict[str, str | None] | None = None
    if iso is not None and any(iso.group(g) for g in ("weeks", "days", "hours", "minutes",
                                                       "seconds")) \
            and not body.upper().endswith("T"):
        parts = iso.groupdict()
    clock = _CLOCK_DURATION.match(body) if parts is None else None
    if clock is not None:
        parts = clock.groupdict()
    if parts is None:
        raise ValueError(f"{_show(text)} is not a duration; {_expected('duration')}")

    found = parts

    def number(name: str) -> int:
        return int(found.get(name) or 0)

    seconds = ((((number("weeks") * 7 + number("days")) * 24 + number("hours")) * 60
                + number("minutes")) * 60 + number("seconds"))
    try:
        return dt.timedelta(microseconds=_micros(parts["sign"] or "", seconds, parts["frac"]))
    except OverflowError:
        raise ValueError(f"{_show(text)} is beyond the range of a duration "
                         "(±999999999 days)") from None


def _text_tuple(text: str) -> Any:
    raise ValueError("a tuple field is not readable from text; use JSON Lines")


_TEXT_READERS: Final[dict[str, Reader]] = {
    "string": _text_string,
    "bytes": _text_bytes,
    "bool": _text_bool,
    **{t: _text_int(t) for t in INT_TYPES},
    "int": _text_int("int"),
    "float64": _text_float64,
    "float32": _text_float32,
    "decimal": _text_decimal,
    "uuid": _text_uuid,
    "timestamp": _text_timestamp,
    "duration": _text_duration,
    "tuple": _text_tuple,
}


def text_reader(field_type: str) -> Reader:
    """The reader of *field_type* values written as text (see :data:`TEXT_FORMS`).

    >>> text_reader("bytes")("0x00ff"), text_reader("duration")("PT1.5S")
    (b'\\x00\\xff', datetime.timedelta(seconds=1, microseconds=500000))
    """
    return _TEXT_READERS[field_type]


# -- from Python values -----------------------------------------------------------------------


def _kind(value: Any) -> str:
    return type(value).__name__


def _refuse(value: Any, field_type: str, hint: str = "") -> ValueError:
    return ValueError(f"{_show(value)}: a value of type {_kind(value)} in a {field_type} "
                      "column" + (f" ({hint})" if hint else ""))


def _py_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        # keys of a self-describing format give strings back as bytes (skv does)
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{_show(bytes(value))}: bytes that are not UTF-8 text "
                             f"(byte {exc.start})") from None
    raise _refuse(value, "string")


def _py_bytes(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise _refuse(value, "bytes", "in SQL, CAST(column AS BLOB) turns text into bytes"
                  if isinstance(value, str) else "")


def _py_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    if isinstance(value, int) and value in (0, 1):  # SQLite stores booleans as 0 and 1
        return bool(value)
    if isinstance(value, str):
        return _text_bool(value)
    raise _refuse(value, "bool")


def _py_int(field_type: str) -> Reader:
    def read(value: Any) -> int:
        if isinstance(value, bool):
            raise _refuse(value, field_type)
        if isinstance(value, int):
            return _checked_int(int(value), field_type)
        if isinstance(value, float) and value.is_integer():  # 5.0 from a REAL column
            return _checked_int(int(value), field_type)
        if isinstance(value, decimal.Decimal) and value.is_finite() \
                and value == value.to_integral():
            if value.adjusted() >= _MAX_DIGITS:  # int() of 1E+999999 takes many seconds
                raise ValueError(f"{_show(value)}: a whole number of {value.adjusted() + 1} "
                                 "digits is too long to read" if field_type == "int" else
                                 f"{_show(value)} is out of range for {field_type}")
            return _checked_int(int(value), field_type)
        if isinstance(value, str):
            return _checked_int(_whole(value, field_type), field_type)
        raise _refuse(value, field_type, "not a whole number" if isinstance(
            value, (float, decimal.Decimal)) else "")
    return read


def _exact_float(value: Any, field_type: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool):
        try:
            as_float = float(value)
        except OverflowError:
            as_float = math.nan
        exact = value.is_nan() or decimal.Decimal(as_float) == value \
            if isinstance(value, decimal.Decimal) else as_float == value
        if not exact:
            raise ValueError(f"{_show(value)} is not exactly a {field_type}")
        return as_float
    if isinstance(value, str):
        return _float_text(value, field_type)
    raise _refuse(value, field_type)


def _py_float64(value: Any) -> float:
    return float(_exact_float(value, "float64"))


def _py_float32(value: Any) -> Float32:
    if isinstance(value, Float32):
        return value
    # an int or Decimal is taken when it is exactly a double, then rounded once to binary32
    return Float32(_exact_float(value, "float32"))


def _py_decimal(value: Any) -> decimal.Decimal:
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return decimal.Decimal(value)
    if isinstance(value, float):  # a NUMERIC column holds REAL: the number as it was written
        return decimal.Decimal(repr(value)) if math.isfinite(value) else decimal.Decimal(
            "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity"))
    if isinstance(value, str):
        return _text_decimal(value)
    raise _refuse(value, "decimal")


def _py_uuid(value: Any) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        if len(raw) != 16:
            raise ValueError(f"{_show(raw)}: {len(raw)} bytes where a UUID has 16")
        return uuid.UUID(bytes=raw)
    if isinstance(value, str):
        return _text_uuid(value)
    raise _refuse(value, "uuid")


def _py_timestamp(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return _aware(value)
    if isinstance(value, dt.date):  # a date is its midnight, UTC
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, int) and not isinstance(value, bool):  # SQLite's unixepoch()
        try:
            return _EPOCH + dt.timedelta(seconds=value)
        except OverflowError:
            raise ValueError(f"{_show(value)} seconds since 1970 is beyond the years "
                             "1..9999") from None
    if isinstance(value, str):
        return _text_timestamp(value)
    raise _refuse(value, "timestamp", "write it as ISO 8601 text or whole seconds since 1970"
                  if isinstance(value, float) else "")


def _py_duration(value: Any) -> dt.timedelta:
    if isinstance(value, dt.timedelta):
        return value
    if isinstance(value, int) and not isinstance(value, bool):  # microseconds, as JSON Lines
        try:
            return dt.timedelta(microseconds=value)
        except OverflowError:
            raise ValueError(f"{_show(value)} microseconds is beyond the range of a duration "
                             "(±999999999 days)") from None
    if isinstance(value, str):
        return _text_duration(value)
    raise _refuse(value, "duration")


def _py_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    raise _refuse(value, "tuple")


_VALUE_READERS: Final[dict[str, Reader]] = {
    "string": _py_string,
    "bytes": _py_bytes,
    "bool": _py_bool,
    **{t: _py_int(t) for t in INT_TYPES},
    "int": _py_int("int"),
    "float64": _py_float64,
    "float32": _py_float32,
    "decimal": _py_decimal,
    "uuid": _py_uuid,
    "timestamp": _py_timestamp,
    "duration": _py_duration,
    "tuple": _py_tuple,
}


def value_reader(field_type: str) -> Reader:
    """The reader of *field_type* values given as Python values: the value itself when it
    is of the field's kind, a value of another kind when it converts exactly (a whole float
    in an integer field, 0/1 in a bool field, 16 bytes in a uuid field, whole seconds since
    1970 in a timestamp field, microseconds in a duration field), and text as
    :func:`text_reader` reads it.

    >>> value_reader("int8")(5.0), value_reader("timestamp")("2024-01-31")
    (5, datetime.datetime(2024, 1, 31, 0, 0, tzinfo=datetime.timezone.utc))
    """
    return _VALUE_READERS[field_type]


# -- guessing a type --------------------------------------------------------------------------

def _bool_word(text: str) -> bool:
    # only true/false: a column of 0 and 1 is more likely a number
    if text.strip().lower() not in ("true", "false"):
        raise ValueError(text)
    return True


def _timestamp_text(text: str) -> dt.datetime:
    # a date first ('2024-...'), so that '20240131' stays a number
    if "-" not in text.strip()[1:5]:
        raise ValueError(text)
    return _text_timestamp(text)


#: the field types text may be guessed as, most specific first (every text is a string)
_TEXT_GUESSES: Final[tuple[tuple[str, Callable[[str], object]], ...]] = (
    ("bool", _bool_word),
    ("int", lambda text: _whole(text, "int")),
    ("float64", _text_float64),
    ("uuid", _text_uuid),
    ("timestamp", _timestamp_text),
    ("duration", _text_duration),
)


#: Python type -> field type, for typed sample values
_VALUE_GUESSES: Final[tuple[tuple[type, str], ...]] = (
    (bool, "bool"), (int, "int"), (Float32, "float32"), (float, "float64"),
    (decimal.Decimal, "decimal"), (str, "string"), (bytes, "bytes"), (bytearray, "bytes"),
    (uuid.UUID, "uuid"), (dt.datetime, "timestamp"), (dt.date, "timestamp"),
    (dt.timedelta, "duration"), (tuple, "tuple"), (list, "tuple"),
)


def _int_type(low: int, high: int) -> str:
    if INT_TYPES["int64"].min <= low and high <= INT_TYPES["int64"].max:
        return "int64"
    if low >= 0 and high <= INT_TYPES["uint64"].max:
        return "uint64"
    return "int"


def guess_type(values: Iterable[Any]) -> str | None:
    """The field type that reads every non-NULL value of *values*, or ``None`` (no values,
    or values of kinds no one type reads). Text is guessed from its form (``"12"`` is an
    integer); integers get int64, else uint64, else int; ints with floats, float64.

    >>> guess_type(["1", "-5", None]), guess_type(["2024-01-01T10:00:00Z"]), guess_type(["x"])
    ('int64', 'timestamp', 'string')
    >>> guess_type([1, 2.5]), guess_type([1, "x"]), guess_type([None])
    ('float64', None, None)
    """
    kinds: set[str] = set()
    texts: list[str] = []
    low = high = 0
    seen_int = False
    for value in values:
        if value is None:
            continue
        kind = next((name for cls, name in _VALUE_GUESSES if isinstance(value, cls)), None)
        if kind is None:
            return None
        if kind == "string":
            texts.append(value)
            kind = "text"
        elif kind == "int":
            low, high = (value, value) if not seen_int else (min(low, value), max(high, value))
            seen_int = True
        kinds.add(kind)
    if kinds == {"text"}:
        return _guess_text(texts)
    if kinds == {"int"}:
        return _int_type(low, high)
    if kinds and kinds <= {"int", "float64"}:
        return "float64"
    return kinds.pop() if len(kinds) == 1 else None


def _guess_text(texts: list[str]) -> str:
    for field_type, read in _TEXT_GUESSES:
        try:
            numbers = [read(text) for text in texts]
        except (ValueError, ArithmeticError):
            continue
        if field_type == "int":
            ints = [n for n in numbers if isinstance(n, int)]
            return _int_type(min(ints), max(ints))
        return field_type
    return "string"
