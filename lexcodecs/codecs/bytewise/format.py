"""The ``bytewise`` format (npm ``bytewise`` 1.1.0 / ``bytewise-core`` 1.2.3, LevelDB keys).

Theory of operation: a key is exactly one JavaScript value (spec ``bytewise.md``). Every value,
at every depth, starts with a one-byte type tag (:data:`TAGS`), so keys decode without a
schema; the first byte alone orders the types::

    10 null   20 false   21 true   40 -Infinity   41 number < 0   42 number >= 0   43 Infinity
    51 Date before 1970   52 Date from 1970   60 Buffer   70 string   a0 array   f0 undefined

* **Numbers** (every JS number is a double; ``B(x)`` its 8 big-endian IEEE bytes):
  ``42 ‖ B(x)`` for ``x >= 0`` (``-0`` is written as ``+0``), ``41 ‖ NOT B(-x)`` for
  ``x < 0``; ``±Infinity`` are the bare tags ``43`` / ``40``; NaN is refused::

        1.0    42 3f f0 00 00 00 00 00 00
        -1.0   41 c0 0f ff ff ff ff ff ff

* **Dates** are their milliseconds since the epoch (a whole number), written like a number
  under the tags ``52`` (``ms >= 0``) and ``51`` (``ms < 0``).
* **Strings and Buffers**: at top level ``70 ‖ UTF-8`` / ``60 ‖ bytes``, raw, with no
  terminator. Inside an array the body is escaped (:data:`STRING_ESCAPES`,
  :data:`BUFFER_ESCAPES`: ``00 -> 01 01``, ``01 -> 01 02``, and for Buffers ``fe -> fe fd``,
  ``ff -> fe fe``) and ended by a ``00``.
* **Arrays**: ``a0``, each element's encoding, then ``00`` (below every tag, so a shorter
  array sorts first). Nullary elements are their tag; numbers and Dates their nine bytes.

How the package is laid out: ``reference_encode`` / ``reference_decode`` are the readable
Python (the executable spec, and the only code that words an error); ``_compiled.pyx`` writes
and reads the same bytes for the exact Python types it takes and hands the rest over. The
decoder is strict by default: a key decodes to the value whose encoding it is, or raises
DecodeError; the codec option ``reading="reference"`` reads as bytewise's own lenient decoder
does (``lenient_decode``: see ``anomalies`` and the docs page).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ARRAY",
    "BODY_SIZE",
    "BUFFER",
    "BUFFER_ESCAPES",
    "DATE_NEG",
    "DATE_POS",
    "END",
    "ESCAPE_HIGH",
    "ESCAPE_LOW",
    "FALSE",
    "MAX_DEPTH",
    "MAX_EXACT_INT",
    "NAME",
    "NEG_INF",
    "NULL",
    "NUMBER_NEG",
    "NUMBER_POS",
    "POS_INF",
    "STRING",
    "STRING_ESCAPES",
    "TAGS",
    "TRUE",
    "UNDEFINED",
]

NAME: Final = "bytewise"

# -- type tags ------------------------------------------------------------------------------

NULL: Final = 0x10
FALSE: Final = 0x20
TRUE: Final = 0x21
NEG_INF: Final = 0x40
NUMBER_NEG: Final = 0x41
NUMBER_POS: Final = 0x42
POS_INF: Final = 0x43
DATE_NEG: Final = 0x51
DATE_POS: Final = 0x52
BUFFER: Final = 0x60
STRING: Final = 0x70
ARRAY: Final = 0xA0
UNDEFINED: Final = 0xF0
#: the end byte of an array and the terminator of a string or Buffer inside one
END: Final = 0x00

#: tag -> the kind of value it starts (the one table the readers dispatch on)
TAGS: Final[dict[int, str]] = {
    NULL: "null",
    FALSE: "false",
    TRUE: "true",
    NEG_INF: "-inf",
    NUMBER_NEG: "negative",
    NUMBER_POS: "number",
    POS_INF: "inf",
    DATE_NEG: "date-negative",
    DATE_POS: "date",
    BUFFER: "buffer",
    STRING: "string",
    ARRAY: "array",
    UNDEFINED: "undefined",
}

#: the bytes after a number or Date tag: the double's 8 big-endian bytes
BODY_SIZE: Final = 8

# -- escaping inside arrays -----------------------------------------------------------------

#: the escape byte for 00 and 01 (``01 01`` is 00, ``01 02`` is 01)
ESCAPE_LOW: Final = 0x01
#: the escape byte for fe and ff in Buffers (``fe fd`` is fe, ``fe fe`` is ff)
ESCAPE_HIGH: Final = 0xFE

#: (byte, its escaped form) for a string element, applied in this order
STRING_ESCAPES: Final[tuple[tuple[bytes, bytes], ...]] = (
    (b"\x01", b"\x01\x02"),
    (b"\x00", b"\x01\x01"),
)
#: (byte, its escaped form) for a Buffer element, applied in this order (fe before ff, 01
#: before 00: an escape's own bytes are never escaped again)
BUFFER_ESCAPES: Final[tuple[tuple[bytes, bytes], ...]] = (
    (b"\xfe", b"\xfe\xfd"),
    (b"\xff", b"\xfe\xfe"),
    *STRING_ESCAPES,
)

# -- limits of lexcodecs --------------------------------------------------------------------

#: how deep arrays may nest, on encode and on decode (bytewise's own recursion has no limit
#: and overflows the stack on an unterminated array; the vectors nest 51 deep)
MAX_DEPTH: Final = 256
#: every int of magnitude up to this is a double; beyond it only some are (those are written
#: as the number too, the others refused)
MAX_EXACT_INT: Final = 2**53
