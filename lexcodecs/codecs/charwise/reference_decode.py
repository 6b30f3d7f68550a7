"""The reference decoder of ``charwise``: a strict reader of charwise's text, in Python.

Theory of operation: charwise's own ``decode`` is lenient (spec §5: ``""`` is ``""``,
``K`` is ``[]``, ``CC`` is false, junk numbers are NaN, escapes are undone where encode made
none). This reader is strict instead: a key is valid UTF-8 holding exactly one value's text,
and every value read encodes back to exactly the key, or the key is refused with a
:class:`DecodeError` at the byte offset of the problem. Where two values share a text (the
declared anomalies) it reads the one below:

* a top-level string's ``01 01`` is a 01 and a lone ``01`` a 00 (left to right): ``J 01 01``
  is ``"\\x01"`` (``"\\0\\0"`` writes it too); a 00 in a string's text is refused;
* an array item's ``?@`` ``??`` ``?%`` are undone only when the item, undone, holds a ``!`` or
  a ``"`` (only then did encode escape it): ``KJa?@!`` is ``["a?@"]``, ``KJa??!`` is
  ``["a!"]``;
* a number's text must be the one :func:`~.reference_encode.number_text` writes for the
  double it reads as (so ``FE  0M0`` is 0.0, never -0.0; ``DaN`` is NaN).

Arrays are read with an explicit stack, never by recursion, so a deep key costs no Python
stack; arrays deeper than :data:`~.format.MAX_DEPTH` are refused (encode refuses them too).
One pass over the text: linear in the key.

``inspect`` is this same reading with an annotation sink (a list receiving one
:class:`Element` per value read).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Final

import attrs

from ...errors import DecodeError
from ...types import UNDEFINED
from .format import (
    ARRAY,
    ESCAPE,
    ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR,
    ESCAPE_TERMINATOR,
    FALSE,
    MAX_DEPTH,
    NAME,
    NAN_TEXT,
    NEG_INF_TEXT,
    NEGATIVE,
    NUL,
    NULL,
    POS_INF_TEXT,
    SEPARATOR,
    STRING,
    STRING_ESCAPE,
    TERMINATOR,
    TRUE,
    TYPE_NAMES,
    ZERO_TEXT,
)
from .format import UNDEFINED as UNDEFINED_CHAR
from .reference_encode import number_text

__all__ = ["Element", "decode_text", "decode_value", "key_values", "read_number", "read_string",
           "typed_fields"]

_A, _B, _C, _L = chr(NULL), chr(FALSE), chr(TRUE), chr(UNDEFINED_CHAR)
_J, _K = chr(STRING), chr(ARRAY)
_SEP, _END, _ESC = chr(SEPARATOR), chr(TERMINATOR), chr(ESCAPE)
_ITEM_END: Final = re.compile(f"[{re.escape(_SEP + _END)}]")
_UNESCAPES: Final = {chr(ESCAPE_ESCAPE): _ESC, chr(ESCAPE_TERMINATOR): _END,
                     chr(ESCAPE_SEPARATOR): _SEP}
_ITEM_ESCAPE: Final = re.compile(re.escape(_ESC) + "(.?)", re.S)
_STRING_UNESCAPE: Final = re.compile(chr(STRING_ESCAPE) + "{1,2}")
_NUMBER: Final = re.compile(r"[DF]E[0-9]{3}M[0-9]\.[0-9]+\Z")
_FLIP: Final = str.maketrans("0123456789", "9876543210")
#: the longest number text charwise writes: D E ddd M d . 16 digits + 20 zeros (and slack)
_NUMBER_MAX: Final = 64
_SCALARS: Final = {_A: None, _B: False, _C: True, _L: UNDEFINED}


@attrs.define
class Element:
    """One value read, for ``inspect``: its kind (``format.TYPE_NAMES``), the character
    offsets of its text, its depth (0: the key's value) and value (arrays: ``None`` until
    closed, then the tuple)."""

    kind: str
    start: int
    end: int
    depth: int
    value: Any


class _Text:
    """The key's text, with byte offsets for errors."""

    __slots__ = ("data", "text")

    def __init__(self, data: bytes, text: str) -> None:
        self.data = data
        self.text = text

    def offset(self, at: int) -> int:
        """The byte offset of character *at*."""
        return len(self.text[:at].encode("utf-8"))

    def error(self, at: int, reason: str, expected: str, width: int = 1) -> DecodeError:
        start = self.offset(at)
        end = self.offset(min(at + width, len(self.text)))
        return DecodeError(reason, codec=NAME, offset=start, found=self.data[start:end],
                           expected=expected)


def read_number(item: str) -> float | None:
    """The double whose text is *item*, or None when *item* is not a number's text exactly
    as charwise writes it."""
    if item == NAN_TEXT:
        return math.nan
    if item == ZERO_TEXT:
        return 0.0
    if item == POS_INF_TEXT:
        return math.inf
    if item == NEG_INF_TEXT:
        return -math.inf
    if len(item) > _NUMBER_MAX or not _NUMBER.match(item):
        return None
    negative = item[0] == chr(NEGATIVE)
    body = item.translate(_FLIP) if negative else item
    exponent = int(body[2:5]) - 500
    value = float(f"{'-' if negative else ''}{body[6:]}e{exponent}")
    return value if number_text(value) == item else None


def read_string(text: str) -> str | None:
    """The string whose escaped form is *text* (after the ``J``): ``01 01`` a 01, a lone
    ``01`` a 00; None when *text* holds a 00 (encode never writes one)."""
    if chr(NUL) in text:
        return None
    return _STRING_UNESCAPE.sub(lambda m: chr(NUL) if len(m.group()) == 1 else
                                chr(STRING_ESCAPE), text)


def _unescape_item(item: str) -> str | None:
    """``?@`` ``??`` ``?%`` undone, or None when a ``?`` starts none of them."""
    ok = True

    def undo(m: re.Match[str]) -> str:
        nonlocal ok
        got = _UNESCAPES.get(m.group(1))
        if got is None:
            ok = False
            return ""
        return got

    out = _ITEM_ESCAPE.sub(undo, item)
    return out if ok else None


def _scalar(t: _Text, start: int, end: int, in_array: bool) -> tuple[str, Any]:
    """The value of the text ``t.text[start:end]`` (no array): (kind, value)."""
    text = t.text
    first = text[start]
    kind = TYPE_NAMES.get(ord(first))
    if kind is None or kind == "array":
        raise t.error(start, f"{first!r} starts no charwise value", "one of A B C D F J K L")
    if first in _SCALARS:
        if end != start + 1:
            raise t.error(start + 1, f"characters after {kind}",
                          "the end of the key" if not in_array else '" or ! after the item')
        return kind, _SCALARS[first]
    item = text[start:end]
    if first == _J:
        if in_array and _ESC in item:
            undone = _unescape_item(item)
            if undone is not None and (_END in undone or _SEP in undone):
                item = undone
        value = read_string(item[1:])
        if value is None:
            raise t.error(start + item.index(chr(NUL)) if chr(NUL) in text[start:end]
                          else start, "a 00 in a string's text (charwise writes it as 01)",
                          "a string's text without 00", 1)
        return kind, value
    number = read_number(item)
    if number is None:
        raise t.error(start, f"not a number as charwise writes it: {item[:48]!r}",
                      "the text charwise writes for a JS number (E, exponent + 500, M, the "
                      "shortest mantissa, 20 zeros; DaN, FF, DD, 'FE  0M0')", end - start)
    return kind, number


def decode_text(data: bytes, sink: list[Element] | None = None) -> Any:
    """The one value of the key *data* (strictly: see the module doc)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"not UTF-8 ({exc.reason})", codec=NAME, offset=exc.start,
                          found=data[exc.start:exc.end],
                          expected="the UTF-8 of charwise's text") from None
    t = _Text(data, text)
    n = len(text)
    if n == 0:
        raise DecodeError("the empty key holds no value", codec=NAME, offset=0, found=b"",
                          expected="one of A B C D F J K L")
    stack: list[tuple[list[Any], Element | None]] = []
    at = 0
    while True:
        # one value at ``at``
        if at >= n:
            raise t.error(at, "the key ends inside an array", "an item, then \" or !")
        value: Any
        if text[at] == _K:
            if len(stack) >= MAX_DEPTH:
                raise t.error(at, "arrays nest too deep",
                              f"at most {MAX_DEPTH} levels of nesting")
            element = Element("array", at, at, len(stack), None)
            if sink is not None:
                sink.append(element)
            stack.append(([], element))
            at += 1
            if at < n and text[at] == _END:
                at += 1
                _, closed = stack.pop()
                value = ()
                if closed is not None:
                    closed.end, closed.value = at, value
            else:
                continue
        else:
            if stack:
                found = _ITEM_END.search(text, at)
                if found is None:
                    raise t.error(n, "the key ends inside an array", "\" or ! after the item")
                end = found.start()
                if end == at:
                    raise t.error(at, "an empty item", "an item before \" or !")
            else:
                end = n
            kind, value = _scalar(t, at, end, bool(stack))
            if sink is not None:
                sink.append(Element(kind, at, end, len(stack), value))
            at = end
        # after a value: the end of the key, or the array's " or !
        while True:
            if not stack:
                if at != n:
                    raise t.error(at, "characters after the key's value", "the end of the key")
                return value
            stack[-1][0].append(value)
            if at >= n:
                raise t.error(at, "the key ends inside an array", "\" or ! after the item")
            if text[at] == _SEP:
                at += 1
                break
            if text[at] != _END:
                raise t.error(at, "an array item goes on", "\" or ! after the item")
            at += 1
            items, closed = stack.pop()
            value = tuple(items)
            if closed is not None:
                closed.end, closed.value = at, value


def decode_value(data: bytes, array: bool) -> tuple[Any, ...]:
    """The values of *data*: ``(value,)``, or with *array* the elements of the array it must
    hold."""
    return key_values(data, decode_text(data), array)


def key_values(data: bytes, value: Any, array: bool) -> tuple[Any, ...]:
    """The values of the key *data* whose value (as a reader read it) is *value*: ``(value,)``,
    or with *array* the elements of the array it must be."""
    if not array:
        return (value,)
    if type(value) is not tuple:
        raise DecodeError("not an array: with the option array=True every key is a JS array",
                          codec=NAME, offset=0, found=data[:1], expected="K (an array)")
    return value


def decode_fields(data: bytes, field_types: Sequence[str], bare: bool) -> tuple[Any, ...]:
    """The values of *data* under a schema of *field_types* (*bare*: the one field is the
    key's value, not an array): read, then checked field by field (null in every field; an
    int field's number must be an integer, read as an int)."""
    return typed_fields(data, decode_value(data, not bare), field_types)


def typed_fields(data: bytes, values: tuple[Any, ...], field_types: Sequence[str]
                 ) -> tuple[Any, ...]:
    """*values*, read from the key *data*, each taken into its field of *field_types*: null
    in every field; an int field's number must be an integral double within +-2**53, read as
    an int; else the field's Python type exactly. Any other value is a DecodeError."""
    if len(values) != len(field_types):
        raise DecodeError(f"an array of {len(values)} items for {len(field_types)} fields",
                          codec=NAME, offset=0, found=data[:1],
                          expected=f"an array of {len(field_types)} items")
    out: list[Any] = []
    for i, (field_type, v) in enumerate(zip(field_types, values)):
        if v is None:
            out.append(None)
            continue
        kind = type(v)
        if field_type == "int" and kind is float and math.isfinite(v) and v.is_integer() \
                and abs(v) <= 2**53:
            out.append(int(v))
            continue
        ok = {"string": str, "bool": bool, "float64": float}.get(field_type)
        if kind is not ok:
            raise DecodeError(f"item {i} is a {type(v).__name__}, not a value of the "
                              f"{field_type} field", codec=NAME, offset=0,
                              found=data[:16], field=i, expected=f"a {field_type} value")
        out.append(v)
    return tuple(out)
