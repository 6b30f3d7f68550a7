"""The reference encoder of ``charwise``: readable Python, the executable spec of writing.

Theory of operation: ``charwise.encode`` of charwise 3.0.1, value type by value type, chosen
from :data:`WRITERS` by ``type(value)`` (``bool`` is not an ``int`` here). Each writer
returns the value's **text** (a ``str``, as charwise builds a JS string); the key is that
text's UTF-8, made once at the end (:func:`key_bytes`: a valid surrogate pair is one
character, a lone surrogate becomes U+FFFD, as ``Buffer.from(text)`` writes it).

Python value -> JS value: ``None`` null, :data:`~lexcodecs.types.UNDEFINED` undefined,
``bool`` boolean, ``float`` number, ``str`` string, ``tuple``/``list`` array. An ``int`` is
written as the JS number it equals when its magnitude is at most 2**53 (every such int is
exactly a double); larger ones are refused (JS has no BigInt here: charwise throws on one).
Subclasses are written as their base type's value (:func:`~lexcodecs.codec.plain_value`).
Everything else is refused as charwise refuses it (bytes and Buffers, dates, objects:
``can only encode arrays``; symbols: no codec for the type).

This is the only module that words an encoding refusal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Final

from ...errors import EncodeError, UnsupportedTypeError, with_article
from ...types import UndefinedSentinel
from .._js import FIELD_PY_TYPES as JS_FIELD_PY_TYPES
from .._js import field_value as js_field_value
from .._js import plain_js_value
from .format import (
    ARRAY,
    ESCAPE,
    ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR,
    ESCAPE_TERMINATOR,
    EXPONENT,
    EXPONENT_BIAS,
    FALSE,
    MANTISSA,
    MANTISSA_PAD,
    MAX_DEPTH,
    NAME,
    NAN_TEXT,
    NEG_INF_TEXT,
    NEGATIVE,
    NUL,
    NULL,
    POS_INF_TEXT,
    POSITIVE,
    SEPARATOR,
    STRING,
    STRING_ESCAPE,
    TERMINATOR,
    TRUE,
    ZERO_TEXT,
)
from .format import UNDEFINED as UNDEFINED_CHAR

__all__ = ["FIELD_PY_TYPES", "INT_LIMIT", "WRITERS", "encode_values", "field_value",
           "item_text", "key_bytes", "number_text", "string_text"]

#: the largest int magnitude written (as the JS number it equals): every int up to it is a
#: double exactly
INT_LIMIT: Final = 2**53

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_FLIP: Final = str.maketrans("0123456789", "9876543210")
_ITEM_ESCAPES: Final = str.maketrans({chr(ESCAPE): chr(ESCAPE) + chr(ESCAPE_ESCAPE),
                                      chr(TERMINATOR): chr(ESCAPE) + chr(ESCAPE_TERMINATOR),
                                      chr(SEPARATOR): chr(ESCAPE) + chr(ESCAPE_SEPARATOR)})
_STRING_ESCAPES: Final = str.maketrans({chr(STRING_ESCAPE): chr(STRING_ESCAPE) * 2,
                                        chr(NUL): chr(STRING_ESCAPE)})

Writer = Callable[[Any], str]


def _refuse(reason: str, value: Any, expected: str | None = None) -> EncodeError:
    return EncodeError(reason, codec=NAME, value=value, expected=expected)


# -- numbers --------------------------------------------------------------------------------


def number_text(x: float) -> str:
    """The text of the JS number *x* (see ``format``): sign letter, ``E``, exponent + 500,
    ``M``, the shortest mantissa with a ``.`` and 20 zeros; digits 9-complemented when
    negative."""
    if math.isnan(x):
        return NAN_TEXT
    if x == 0:
        return ZERO_TEXT  # -0 too
    if math.isinf(x):
        return POS_INF_TEXT if x > 0 else NEG_INF_TEXT
    _, digits, exponent = Decimal(repr(abs(x))).as_tuple()
    shown = "".join(map(str, digits)).rstrip("0")  # repr's digits: the shortest round trip
    assert isinstance(exponent, int)
    e = exponent + len(digits) - 1  # toExponential's exponent
    body = (f"{chr(EXPONENT)}{e + EXPONENT_BIAS:3d}{chr(MANTISSA)}{shown[0]}.{shown[1:]}"
            + "0" * MANTISSA_PAD)
    if x > 0:
        return chr(POSITIVE) + body
    return chr(NEGATIVE) + body.translate(_FLIP)


def _write_float(value: float) -> str:
    return number_text(value)


def _write_int(value: int) -> str:
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise _refuse("charwise writes JS numbers, and this int is beyond 2**53 (not every "
                      "such int is a double; charwise has no BigInt)", value,
                      "an int of magnitude at most 2**53, or a float")
    return number_text(float(value))


# -- strings and the rest -------------------------------------------------------------------


def string_text(value: str) -> str:
    """``J`` + the string with 01 doubled and 00 written as 01."""
    return chr(STRING) + value.translate(_STRING_ESCAPES)


def _write_none(value: None) -> str:
    return chr(NULL)


def _write_undefined(value: UndefinedSentinel) -> str:
    return chr(UNDEFINED_CHAR)


def _write_bool(value: bool) -> str:
    return chr(TRUE if value else FALSE)


#: exact Python type -> writer of its text (tuples and lists are arrays: the element walk)
WRITERS: Final[dict[type, Writer]] = {
    type(None): _write_none,
    UndefinedSentinel: _write_undefined,
    bool: _write_bool,
    float: _write_float,
    int: _write_int,
    str: string_text,
}

_REFUSED_AS_OBJECTS: Final = "can only encode arrays"


def _as_plain(value: Any) -> Any:
    """A subclass of a supported type (or a typed int, a Float32) as its base type's plain
    value; anything else refused as charwise refuses it."""
    plain = plain_js_value(value, WRITERS)
    if plain is not None:
        return plain
    raise UnsupportedTypeError(
        f"{with_article(type(value).__name__)} is not a value charwise writes (charwise "
        f"throws '{_REFUSED_AS_OBJECTS}' for objects, Dates and Buffers, and has no codec "
        "for BigInt, Symbol or functions)", codec=NAME, value=value,
        expected="None, UNDEFINED, bool, float, int, str or a tuple/list of these")


def item_text(text: str) -> str:
    """An array item's text: *text* with ``?`` ``!`` ``"`` escaped, only when it holds a
    ``!`` or a ``"`` (nested arrays are not items of this kind: they are written as they are)."""
    if chr(TERMINATOR) in text or chr(SEPARATOR) in text:
        return text.translate(_ITEM_ESCAPES)
    return text


def _write_value(value: Any, depth: int) -> str:
    writer = WRITERS.get(type(value))
    if writer is not None:
        return writer(value)
    if type(value) is not tuple and type(value) is not list:
        value = _as_plain(value)
        writer = WRITERS.get(type(value))
        if writer is not None:
            return writer(value)
    return _write_array(value, depth + 1)


def _write_array(items: Sequence[Any], depth: int) -> str:
    """``K`` + items joined by ``"`` + ``!``: a nested array as it is, other items escaped
    where they need it (:func:`item_text`)."""
    if depth > MAX_DEPTH:
        raise _refuse("arrays nest too deep", items, f"at most {MAX_DEPTH} levels of nesting")
    parts = []
    for item in items:
        text = _write_value(item, depth)
        parts.append(text if text[0] == chr(ARRAY) else item_text(text))
    return chr(ARRAY) + chr(SEPARATOR).join(parts) + chr(TERMINATOR)


def key_bytes(text: str) -> bytes:
    """The UTF-8 of the JS string *text*: a surrogate pair (two code points here) is one
    character, a lone surrogate becomes U+FFFD (``Buffer.from``)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return _LONE_SURROGATE.sub("\ufffd", paired).encode("utf-8")


def encode_text(values: Sequence[Any], array: bool) -> str:
    """The text of *values*: the one value when there is one and *array* is off, else the
    JS array of them."""
    index = 0
    try:
        if len(values) == 1 and not array:
            return _write_value(values[0], 0)
        parts = []
        for position, item in enumerate(values):
            index = position
            text = _write_value(item, 1)
            parts.append(text if text[0] == chr(ARRAY) else item_text(text))
    except EncodeError as exc:
        raise exc.add_context(codec=NAME, field=index) from None
    except RecursionError:
        raise _refuse("arrays nest too deep", values,
                      f"at most {MAX_DEPTH} levels of nesting") from None
    return chr(ARRAY) + chr(SEPARATOR).join(parts) + chr(TERMINATOR)


def encode_values(values: Sequence[Any], array: bool) -> bytes:
    """The key of *values* (see :func:`encode_text`), as UTF-8."""
    return key_bytes(encode_text(values, array))


# -- schema fields --------------------------------------------------------------------------

#: schema field type -> the exact Python types its values have (None is null in every field)
FIELD_PY_TYPES: Final = {t: kinds for t, kinds in JS_FIELD_PY_TYPES.items() if t != "bytes"}


def field_value(field_type: str, value: Any) -> Any:
    """*value* as a field of *field_type* takes it, else an UnsupportedTypeError."""
    return js_field_value(NAME, FIELD_PY_TYPES, WRITERS, field_type, value)
