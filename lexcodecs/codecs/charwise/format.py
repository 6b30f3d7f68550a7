"""The ``charwise`` format (npm ``charwise`` 3.0.1, Dominic Tarr; spec ``charwise.md``).

Theory of operation: a key is **one JavaScript value written as text**, stored as the UTF-8
of that text (level keeps charwise's strings as UTF-8: the codec says ``buffer: false``).
The first character says the type, in the order of the types::

    A null      B false     C true      D negative number (and NaN)    F number >= 0
    J string    K array     L undefined

* **Numbers** (a JS number is a float64): ``x.toExponential()`` as mantissa ``m`` and
  exponent ``e`` (shortest round-trip digits), then ``F`` ``E`` (e + 500, 3 digits) ``M``
  ``m`` (a ``.`` added when it has none) and 20 zeros. A negative number is the same text
  for x (its mantissa starts ``-``), the ``-`` dropped and every digit d replaced by 9 - d,
  after a ``D``. Special texts: 0 and -0 ``FE  0M0`` (two spaces), Infinity ``FF``,
  -Infinity ``DD``, NaN ``DaN`` (between the negatives and zero)::

        1.0    FE500M1.00000000000000000000
        -1.0   DE499M8.99999999999999999999
        0.5    FE499M5.00000000000000000000

* **Strings**: ``J`` + the string with ``01`` doubled, then ``00`` written as ``01``.
* **Arrays**: ``K`` + the items joined by ``"`` + ``!`` (``[]`` is ``K!``). An item is
  null ``A``, a nested array its own ``K…!`` as it is, anything else its text, in which
  ``?`` ``!`` ``"`` become ``?@`` ``??`` ``?%`` **only when** the text holds a ``!`` or
  a ``"``.
* **undefined** ``L``; anything else (objects, Dates, Buffers, BigInt, Symbol) is refused.

Decoding here is strict by default (charwise's own decoder is lenient, spec §5): a key
decodes to the one value whose text it is, read by an iterative reader, or is refused with a
:class:`~lexcodecs.errors.DecodeError` at an offset; every value read encodes back to exactly
the key. Where two values share a text (the anomalies) the reader gives one of them. The
codec option ``reading="reference"`` reads as charwise's own decoder does
(``lenient_decode``).

How the package is laid out: this table; ``reference_encode`` / ``reference_decode`` (the
readable Python, the only code that words an error); ``lenient_decode`` (charwise's own
reading, for ``reading="reference"``); ``codec`` (options, capabilities,
schemas); ``anomalies``; ``explain`` (``inspect``); ``_compiled.pyx`` with ``_write.pxi``
and ``_read.pxi`` (the same rules in Cython; its constants come from this file through the
generated ``_format.pxd``).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ARRAY",
    "ESCAPE",
    "ESCAPE_ESCAPE",
    "ESCAPE_SEPARATOR",
    "ESCAPE_TERMINATOR",
    "EXPONENT",
    "EXPONENT_BIAS",
    "FALSE",
    "FIELD_STARTS",
    "MANTISSA",
    "MANTISSA_PAD",
    "MAX_DEPTH",
    "NAME",
    "NAN_TEXT",
    "NEGATIVE",
    "NEG_INF_TEXT",
    "NUL",
    "NULL",
    "NUMBER_MAX",
    "POSITIVE",
    "POS_INF_TEXT",
    "SEPARATOR",
    "STRING",
    "STRING_ESCAPE",
    "TERMINATOR",
    "TRUE",
    "TYPE_NAMES",
    "UNDEFINED",
    "ZERO_TEXT",
]

NAME: Final = "charwise"

# -- the first character: the type ----------------------------------------------------------

NULL: Final = 0x41        # A
FALSE: Final = 0x42       # B
TRUE: Final = 0x43        # C
NEGATIVE: Final = 0x44    # D: a negative number, -Infinity (DD) or NaN (DaN)
POSITIVE: Final = 0x46    # F: zero, a positive number, Infinity (FF)
STRING: Final = 0x4A      # J
ARRAY: Final = 0x4B       # K
UNDEFINED: Final = 0x4C   # L

#: first character -> the type it starts (the others start nothing: a DecodeError)
TYPE_NAMES: Final[dict[int, str]] = {
    NULL: "null", FALSE: "false", TRUE: "true", NEGATIVE: "number", POSITIVE: "number",
    STRING: "string", ARRAY: "array", UNDEFINED: "undefined",
}

# -- numbers --------------------------------------------------------------------------------

EXPONENT: Final = 0x45    # E
MANTISSA: Final = 0x4D    # M
#: the exponent is written as e + 500 (3 digits: e runs from -324 to 308)
EXPONENT_BIAS: Final = 500
#: zeros written after the mantissa (charwise's "+ '0'.repeat(20)")
MANTISSA_PAD: Final = 20
#: the longest number text: ``F`` ``E``, 3 exponent digits, ``M``, 17 digits and a ``.``,
#: the zeros
NUMBER_MAX: Final = 6 + 17 + 1 + MANTISSA_PAD
ZERO_TEXT: Final = "FE  0M0"
POS_INF_TEXT: Final = "FF"
NEG_INF_TEXT: Final = "DD"
NAN_TEXT: Final = "DaN"

# -- strings --------------------------------------------------------------------------------

NUL: Final = 0x00
#: a string's 01 is written 01 01, then its 00 as 01
STRING_ESCAPE: Final = 0x01

# -- arrays ---------------------------------------------------------------------------------

SEPARATOR: Final = 0x22          # "  between two items
TERMINATOR: Final = 0x21         # !  ends an array
ESCAPE: Final = 0x3F             # ?  item escapes: ?@ is ?, ?? is !, ?% is "
ESCAPE_ESCAPE: Final = 0x40      # @
ESCAPE_TERMINATOR: Final = 0x3F  # ?
ESCAPE_SEPARATOR: Final = 0x25   # %

#: how deep arrays may nest (encode refuses deeper, decode too: the reader is iterative, so
#: this bounds no stack, it keeps every key one that encodes back)
MAX_DEPTH: Final = 256

# -- schema fields --------------------------------------------------------------------------

#: schema field type -> the first characters its (non-null) values start with; null ``A``
#: is allowed in every field. An ``int`` field holds JS numbers that are integers
FIELD_STARTS: Final[dict[str, frozenset[int]]] = {
    "string": frozenset({STRING}),
    "bool": frozenset({FALSE, TRUE}),
    "float64": frozenset({NEGATIVE, POSITIVE}),
    "int": frozenset({NEGATIVE, POSITIVE}),
}
