"""The lenient decoder of ``charwise``: what charwise 3.0.1's own ``decode`` returns.

Theory of operation: the codec option ``reading="reference"`` reads keys written by code
other than lexcodecs' encoder (another charwise, a hand-rolled writer) exactly as the JS
package reads them (spec ``charwise.md`` §4-§5), rule for rule, in pure Python. It never asks
whether the text is what charwise's encoder writes for the value it returns; the strict
reader (``reference_decode``) is the one that does.

**The text.** level stores charwise's string as UTF-8; the key is read as Node's
``buffer.toString('utf8')`` reads it: each maximal ill-formed subpart is one U+FFFD, which
Python's ``"replace"`` handler matches (the vectors' ``ff`` is read as ``"\\ufffd"``, then
refused for its first character). Error offsets are byte offsets into the key, mapped back
through the replacements (:func:`_byte_offset`).

**The first character** picks the decoder; the empty text is ``""``, an unknown character
is an error (``no decoder for``):

* ``A``: exactly ``A`` is null; anything longer is read as an array that never opened, and
  JS throws ``TypeError`` (``A!``);
* ``B`` ``C``: true for exactly ``C``, false for anything else (``CC`` is false);
* ``J``: the rest of the text, as it is: charwise undoes no escape (``J 01`` is ``"\\x01"``);
* ``L``: undefined, whatever follows;
* ``D`` ``F``: a number (below); ``K``: an array (below).

**Numbers** (``codec/number.js``): ``DaN`` ``FF`` ``DD`` are NaN and the infinities. Else a
``D`` text is first flipped character by character (a digit d becomes 9 - d, a ``-`` is
dropped, a JS white space other than the space is ``Number(c)`` = 0 and so becomes ``9``).
The text after its first two characters is split on ``M``: the exponent is ``Number(part 0)
- 500``, printed as JS prints a number, and the value is ``Number(sign + part 1 + "e" +
exponent)``, part 1 being the word ``undefined`` when there is no ``M``. ``Number`` is JS's
string-to-number (:func:`js_number`: white space trimmed, ``Infinity``, ``0x`` ``0o`` ``0b``,
the empty string 0); text it cannot parse gives NaN, never an error.

**Arrays** (``codec/object.js``): ``K!`` is ``[]``; else the text is split on ``"``. Each
piece's leading ``K``s open that many arrays (each pushed into the one below it), its
trailing ``!``s close that many, and what is between, if anything, is unescaped (``?@`` ``??``
``?%``, left to right) and read by the first-character rules into the innermost open array.
Closing below the top moves the depth under zero (``K!!`` resets the outer array: undefined);
an item or an opening with no array to push into is JS's ``TypeError``. The value is the
first item of the outermost array, or undefined. Depth is tracked in a table, as JS's
``pointers`` (negative depths included), and nothing recurses: an item's text never starts
with ``K`` (its ``K``s are the openings), so it is always read as a scalar or ``A``.

Every character is looked at a bounded number of times (the split, the counts of ``K`` and
``!``, one unescape, one ``Number``), and the nested lists become tuples in one iterative
pass, so decoding is linear in the key, however deep the arrays (100,000 ``K`` are an array
nested 100,000 deep, as in JS). Every refusal is a :class:`~lexcodecs.errors.DecodeError`
naming the codec, the byte offset, the bytes found there and what was expected; the JS error
it stands for is quoted in the reason.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Final

from ...errors import DecodeError
from ...types import UNDEFINED
from .format import (
    ARRAY,
    ESCAPE,
    ESCAPE_ESCAPE,
    ESCAPE_SEPARATOR,
    ESCAPE_TERMINATOR,
    EXPONENT_BIAS,
    FALSE,
    MANTISSA,
    NAME,
    NAN_TEXT,
    NEG_INF_TEXT,
    NEGATIVE,
    NULL,
    POS_INF_TEXT,
    POSITIVE,
    SEPARATOR,
    STRING,
    TERMINATOR,
    TRUE,
)
from .format import UNDEFINED as UNDEFINED_CHAR
from .reference_decode import key_values, typed_fields

__all__ = ["decode_fields", "decode_text", "decode_value", "js_number", "js_number_text",
           "read_number"]

_A, _B, _C, _D, _F = chr(NULL), chr(FALSE), chr(TRUE), chr(NEGATIVE), chr(POSITIVE)
_J, _K, _L, _M = chr(STRING), chr(ARRAY), chr(UNDEFINED_CHAR), chr(MANTISSA)
_SEP, _END = chr(SEPARATOR), chr(TERMINATOR)
#: the characters whose decoder charwise 3.0.1 registers (index.js ``decoders``)
_FIRSTS: Final = _A + _B + _C + _D + _F + _J + _K + _L
_EMPTY_ARRAY: Final = _K + _END
_UNESCAPE: Final = re.compile(re.escape(chr(ESCAPE)) + "[" + re.escape(
    chr(ESCAPE_ESCAPE) + chr(ESCAPE_TERMINATOR) + chr(ESCAPE_SEPARATOR)) + "]")
_UNESCAPED: Final = {chr(ESCAPE) + chr(ESCAPE_ESCAPE): chr(ESCAPE),
                     chr(ESCAPE) + chr(ESCAPE_TERMINATOR): _END,
                     chr(ESCAPE) + chr(ESCAPE_SEPARATOR): _SEP}
#: how many bytes of the key an error shows
_FOUND: Final = 16

# -- JavaScript's Number(string) and String(number) ------------------------------------------

#: ECMAScript's StrWhiteSpaceChar: WhiteSpace (TAB VT FF ZWNBSP and the Zs characters) and
#: LineTerminator (LF CR LS PS), what ``Number()`` trims; spelled out, not taken from
#: ``unicodedata``, so the set does not move with Python's Unicode version
_JS_SPACE: Final = ("\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
#: StrDecimalLiteral without Infinity (ASCII digits only: ``\d`` would take other scripts'),
#: which Python's ``float`` reads the same way, correctly rounded
_DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INFINITY: Final = re.compile(r"([+-]?)Infinity")
#: NonDecimalIntegerLiteral: no sign, no separators
_RADIX: Final = re.compile(r"0(?:[xX]([0-9a-fA-F]+)|[oO]([0-7]+)|[bB]([01]+))")
_BASES: Final = (16, 8, 2)
#: flip() of number.js: a digit d is 9 - d, a "-" is dropped, and a white space other than
#: the space is Number(c) = 0, so 9; every other character stays
_FLIP: Final = {**{ord(str(d)): str(9 - d) for d in range(10)}, ord("-"): None,
                **{ord(c): "9" for c in _JS_SPACE if c != " "}}


def js_number(text: str) -> float:
    """JavaScript's ``Number(text)``: the double *text* spells, or NaN (never an error).

    >>> js_number(" 1.5e1 "), js_number(""), js_number("0x10"), js_number("-Infinity")
    (15.0, 0.0, 16.0, -inf)
    >>> js_number("1_0"), js_number("- 1"), js_number("-0x1"), js_number("inf")
    (nan, nan, nan, nan)
    """
    s = text.strip(_JS_SPACE)
    if not s:
        return 0.0
    if _DECIMAL.fullmatch(s):
        return float(s)
    m = _INFINITY.fullmatch(s)
    if m is not None:
        return -math.inf if m.group(1) == "-" else math.inf
    m = _RADIX.fullmatch(s)
    if m is None:
        return math.nan
    for base, digits in zip(_BASES, m.groups()):
        if digits is not None:
            try:
                return float(int(digits, base))  # rounded half to even, as JS rounds
            except OverflowError:  # at or above 2**1024 - 2**970: JS rounds to Infinity
                return math.inf
    return math.nan  # not reached: one of the three groups matched


def _shortest(x: float) -> tuple[str, int]:
    """The shortest digits of the positive, finite *x* (its repr's, which are JS's too) and
    n with x = 0.digits * 10**n."""
    mantissa, _, exp = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    n = len(whole) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    return stripped.rstrip("0"), n - (len(digits) - len(stripped))


def js_number_text(x: float) -> str:
    """JavaScript's ``String(x)`` (Number::toString, radix 10).

    >>> [js_number_text(v) for v in (-500.0, 1e21, 1.5e-7, 123.25, 0.000001, -0.0)]
    ['-500', '1e+21', '1.5e-7', '123.25', '0.000001', '0']
    """
    if math.isnan(x):
        return "NaN"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number_text(-x)
    if math.isinf(x):
        return "Infinity"
    digits, n = _shortest(x)
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(e)}"


# -- values ---------------------------------------------------------------------------------


def read_number(text: str) -> float:
    """``number.decode`` of the text *text* (starting ``D`` or ``F``): never an error."""
    if text == NAN_TEXT:
        return math.nan
    if text == POS_INF_TEXT:
        return math.inf
    if text == NEG_INF_TEXT:
        return -math.inf
    negative = text[0] == _D
    body = text.translate(_FLIP) if negative else text
    if len(body) > 1 and ord(body[1]) > 0xFFFF:
        # JS slices UTF-16 units: slice(2) leaves the low half of this character at the
        # start of the exponent, which Number() cannot parse: NaN all the way down
        return math.nan
    parts = body[2:].split(_M, 2)
    exponent = js_number(parts[0]) - EXPONENT_BIAS
    # no M: JS concatenates the undefined parts[1] as the word "undefined" (then NaN)
    mantissa = parts[1] if len(parts) > 1 else "undefined"
    return js_number(("-" if negative else "") + mantissa + "e" + js_number_text(exponent))


class _Key:
    """The key's bytes and its text as Node reads it, for error offsets."""

    __slots__ = ("clean", "data", "text")

    def __init__(self, data: bytes) -> None:
        self.data = data
        try:
            self.text, self.clean = data.decode("utf-8"), True
        except UnicodeDecodeError:
            self.text, self.clean = data.decode("utf-8", "replace"), False

    def error(self, at: int, width: int, reason: str, expected: str) -> DecodeError:
        """A DecodeError at character *at*, showing the bytes of *width* characters."""
        start = _byte_offset(self, at)
        end = _byte_offset(self, min(at + width, len(self.text)))
        return DecodeError(reason, codec=NAME, offset=start,
                           found=self.data[start:min(end, start + _FOUND)], expected=expected)


def _utf8_width(ch: str) -> int:
    c = ord(ch)
    return 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4


def _ill_formed_width(data: bytes, pos: int) -> int:
    """The bytes one U+FFFD replaced at *pos*: the maximal subpart of a UTF-8 sequence
    starting there (Unicode §3.9, as Node and Python's ``"replace"`` take it)."""
    lead = data[pos]
    if 0xC2 <= lead <= 0xDF:
        need, low, high = 1, 0x80, 0xBF
    elif lead == 0xE0:
        need, low, high = 2, 0xA0, 0xBF
    elif lead == 0xED:
        need, low, high = 2, 0x80, 0x9F
    elif 0xE1 <= lead <= 0xEF:
        need, low, high = 2, 0x80, 0xBF
    elif lead == 0xF0:
        need, low, high = 3, 0x90, 0xBF
    elif 0xF1 <= lead <= 0xF3:
        need, low, high = 3, 0x80, 0xBF
    elif lead == 0xF4:
        need, low, high = 3, 0x80, 0x8F
    else:
        return 1
    width = 1
    while width <= need and pos + width < len(data) and low <= data[pos + width] <= high:
        width += 1
        low, high = 0x80, 0xBF
    return min(width, need)


def _byte_offset(key: _Key, at: int) -> int:
    """The byte offset of character *at* of the key's text (on the error path only)."""
    if key.clean:
        return len(key.text[:at].encode("utf-8"))
    pos = 0
    for ch in key.text[:at]:
        if ch != "\ufffd" or key.data.startswith(b"\xef\xbf\xbd", pos):
            pos += _utf8_width(ch)
        else:  # a replacement: the ill-formed bytes it stands for
            pos += _ill_formed_width(key.data, pos)
    return pos


def _no_decoder(key: _Key, at: int) -> DecodeError:
    first = key.text[at]
    return key.error(at, 1, f"no decoder for {first!r} (charwise throws 'Error: no decoder "
                     "for')", "one of A B C D F J K L first")


def _no_array(key: _Key, at: int, width: int, what: str) -> DecodeError:
    return key.error(at, width, f"{what} with no array open (charwise throws 'TypeError: "
                     "Cannot read properties of undefined (reading 'push')')",
                     "K opening an array before it")


def _scalar(key: _Key, text: str, at: int) -> Any:
    """``decode`` of *text* (not starting ``K``: see :func:`_array`), found at character
    *at* of the key (for errors)."""
    first = text[0]
    if first == _J:
        return text[1:]  # charwise undoes no string escape
    if first in (_D, _F):
        return read_number(text)
    if first in (_B, _C):
        return text == _C
    if first == _L:
        return UNDEFINED
    if first == _A:
        if text == _A:
            return None
        # object.decode: the first piece holds the A, and no K opened an array to push it to
        raise _no_array(key, at, len(text), "a value after null")
    if first == _K:
        return _array(key, text, at)  # top level only: an array item never starts with K
    raise _no_decoder(key, at)


def _unescape(content: str) -> str:
    if chr(ESCAPE) not in content:
        return content
    return _UNESCAPE.sub(lambda m: _UNESCAPED[m.group()], content)


def _array(key: _Key, text: str, at: int) -> Any:
    """``object.decode`` of *text* (starting ``K``, at character *at* of the key): the JS
    value as nested lists, each JS array a list (made tuples by :func:`_tuples`)."""
    if text == _EMPTY_ARRAY:
        return []
    pointers: dict[int, list[Any]] = {0: []}  # JS's pointers, negative depths included
    array: list[Any] | None = None
    depth = 0
    for piece in text.split(_SEP):
        n = len(piece)
        opened = n - len(piece.lstrip(_K))
        closed = n - len(piece.rstrip(_END))  # K and ! never overlap: both counts hold
        for j in range(depth, depth + opened):
            parent = pointers.get(j)
            if parent is None:  # a depth under zero that no closing left an array at
                raise _no_array(key, at + j - depth, 1, "an array opened")
            child: list[Any] = []
            pointers[j + 1] = child
            parent.append(child)
        if opened:
            depth += opened
            array = pointers[depth]
        content = piece[opened:n - closed]
        if content:
            if array is None:
                raise _no_array(key, at + opened, len(content), "an item")
            array.append(_scalar(key, _unescape(content), at + opened))
        if closed:
            # JS's loop runs once (it moves ``depth`` inside): it resets only the array
            # just above the new depth, which may be the outermost one (K!! is undefined)
            depth -= closed
            pointers[depth + 1] = []
            array = pointers.get(depth)
        at += n + 1
    outer = pointers[0]
    return outer[0] if outer else UNDEFINED


def _tuples(value: Any) -> Any:
    """*value* with every list (a JS array) made a tuple, without recursion."""
    if type(value) is not list:
        return value
    stack: list[tuple[list[Any], list[Any]]] = [(value, [])]
    while True:
        source, out = stack[-1]
        if len(out) < len(source):
            item = source[len(out)]
            if type(item) is list:
                stack.append((item, []))
            else:
                out.append(item)
            continue
        stack.pop()
        done = tuple(out)
        if not stack:
            return done
        stack[-1][1].append(done)


def decode_text(data: bytes) -> Any:
    """The one JS value charwise's ``decode`` returns for the key *data* (arrays as tuples,
    undefined as :data:`~lexcodecs.types.UNDEFINED`), or a DecodeError where it throws."""
    key = _Key(data)
    if not key.text:
        return ""
    return _tuples(_scalar(key, key.text, 0))


def decode_value(data: bytes, array: bool) -> tuple[Any, ...]:
    """The values of *data*: ``(value,)``, or with *array* the items of the array it must
    hold (``reference_decode.key_values``)."""
    return key_values(data, decode_text(data), array)


def decode_fields(data: bytes, field_types: Sequence[str], bare: bool) -> tuple[Any, ...]:
    """The values of *data* under a schema of *field_types* (*bare*: the one field is the
    key's value, not an array): read as charwise reads them, then each taken into its field
    (``reference_decode.typed_fields``), with no write-back check."""
    return typed_fields(data, decode_value(data, not bare), field_types)
