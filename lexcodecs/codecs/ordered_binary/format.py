"""The ``ordered-binary`` format (npm ``ordered-binary`` 1.6.3, the key encoder of ``lmdb-js``).

Theory of operation: a key is one JavaScript value, or an array of values written one after
the other with a ``00`` between them (spec ``ordered-binary.md``). Nothing marks where a key
or an array starts or ends; every value says its own type in its first byte::

    bare value:    [ value ]                          no terminator
    array:         [ v1 ] 00 [ v2 ] 00 ... 00 [ vn ]  nested arrays written flat; [] is empty

    00 null     06 false     07 true     02 symbol (then its description as a string)
    08..0f negative number   10..17 non-negative number   18 -0 (the sign bit, see below)
    1b string that is empty or starts with a UTF-16 unit < 28     >= 1c other strings
    raw bytes (a Buffer): written as they are, no prefix, no escape

* **Numbers** (every JS number is a float64; ``u`` = its 64 IEEE bits): the 18 nibbles
  ``1 ‖ u ‖ 0`` when ``!(x < 0)`` (NaN and -0 included: -0 has the sign bit, so it starts
  ``18``, above every number and NaN), ``0 ‖ (u XOR 7fff…ff) ‖ 0`` when ``x < 0``. A
  non-negative number written bare (not in an array) drops zero bytes in fixed steps: 9, 8, 6
  or 4 bytes (:data:`NUMBER_LENGTHS`). Negative numbers and numbers in arrays take 9 bytes::

        1.0 bare    13 ff 00 00                    (u = 3ff0000000000000)
        1.0 in []   13 ff 00 00 00 00 00 00 00
        -1.0        0c 00 ff ff ff ff ff ff f0

* **BigInt** (a Python ``int``): ``f`` = the largest double <= n. If ``n == f`` the bytes are
  the number's. Otherwise the 9-byte form of ``f``, then the remainder ``d = n - f``: its top
  bits OR-ed into the low nibble of the 9th byte (``d >> (e - 1079)``, ``e`` the biased
  exponent of ``f``), then 7-bit groups ``80 | g`` (at least one) until ``d`` is spent.
* **Strings**: a ``1b`` first if the string is empty or its first UTF-16 unit is below 28.
  Fewer than 64 UTF-16 units: UTF-8 written unit by unit, each unit <= 4 as ``04 c``, a lone
  surrogate as its 3-byte form. 64 units or more: plain UTF-8 (``Buffer.utf8Write``): no
  escaping of ``00``..``04``, a lone surrogate as U+FFFD.
* **Limit**: ``toBufferKey`` writes into an 8 KiB buffer; a key that does not fit is refused
  (:data:`BUFFER_SIZE` and the write widths below say exactly when).

Decoding (``fromBufferKey`` → ``readKey``) goes by the first byte (:data:`CONTROL_KINDS`): a
number reads 9 bytes (fewer at the end: the missing ones read as zero); a string runs to the
first byte <= 03 (``04`` takes the next byte as a UTF-16 unit, bytes >= 80 start a UTF-8
sequence read without checks); after a value one ``00`` is skipped and any further value
makes the result an array. Bytes ``01``, ``03``..``05`` return the rest of the key as raw
bytes. The reader is lossy and never checks anything: see ``anomalies``. With a schema the
codec reads strictly instead, field by field (:data:`FIELD_STARTS`), and refuses any key that
does not encode back byte for byte.
"""

from __future__ import annotations

from typing import Final

import attrs

__all__ = [
    "BIGINT_SHIFT",
    "BOOL_WRITE",
    "BUFFER_SIZE",
    "CONTROL_KINDS",
    "ESCAPE",
    "FALSE",
    "FIELD_STARTS",
    "FIRST_PLAIN_UNIT",
    "LONG_STRING_UNITS",
    "NAME",
    "NEGATIVE_MASK",
    "NULL",
    "NUMBER_LENGTHS",
    "NUMBER_WRITE",
    "OWN_BUFFER_SIZE",
    "RAW_TOTAL_LIMIT",
    "SEPARATOR",
    "STRING_MARGIN",
    "STRING_PREFIX",
    "SYMBOL",
    "TRUE",
    "JsSymbol",
]

NAME: Final = "ordered-binary"

# -- control bytes --------------------------------------------------------------------------

NULL: Final = 0x00
SEPARATOR: Final = 0x00
SYMBOL: Final = 0x02
ESCAPE: Final = 0x04
FALSE: Final = 0x06
TRUE: Final = 0x07
#: first byte of a string that is empty or starts with a UTF-16 unit below 28
STRING_PREFIX: Final = 0x1B
#: a string whose first UTF-16 unit is at least this needs no prefix
FIRST_PLAIN_UNIT: Final = 28
#: strings of this many UTF-16 units or more are written as plain UTF-8, unescaped
LONG_STRING_UNITS: Final = 64

#: first byte -> what ``readKey`` reads there
CONTROL_KINDS: Final[tuple[str, ...]] = tuple(
    "null" if b == NULL else
    "symbol" if b == SYMBOL else
    "false" if b == FALSE else
    "true" if b == TRUE else
    "raw" if b < 0x08 else
    "negative" if b < 0x10 else
    "number" if b < 0x18 else
    "string"
    for b in range(256))

# -- numbers --------------------------------------------------------------------------------

#: XOR mask turning the IEEE bits of a negative number into its ordered form
NEGATIVE_MASK: Final = 0x7FFF_FFFF_FFFF_FFFF

#: bare non-negative numbers: (mask of the low 32 bits of ``u`` or None, mask of the high 32
#: bits, length): the first row whose masks find a set bit gives the length, else 4 bytes
NUMBER_LENGTHS: Final[tuple[tuple[int, int, int], ...]] = (
    (0x0000_000F, 0x0000_0000, 9),
    (0x000F_FFFF, 0x0000_0000, 8),
    (0xFFFF_FFFF, 0x0000_000F, 6),
)

#: a BigInt's remainder starts at bit ``e - BIGINT_SHIFT`` (``e``: biased exponent of ``f``)
BIGINT_SHIFT: Final = 1079

# -- the 8 KiB buffer -----------------------------------------------------------------------

#: ``toBufferKey`` writes a key into a buffer of this size (from its start, at worst)
BUFFER_SIZE: Final = 8192
#: a number is written with three 4-byte DataView stores (12 bytes) at its position
NUMBER_WRITE: Final = 12
#: a boolean is written with one 4-byte DataView store
BOOL_WRITE: Final = 4
#: a long string must end at least this many bytes before the end of the buffer
STRING_MARGIN: Final = 4
#: Node's ``Buffer.from`` gives a key of this size or more a buffer of its own (shorter ones
#: sit in a shared pool): the decoder's 4-byte reads past a key's end are bounded by the
#: key's length rounded up to 4 bytes below this size, by its exact length from it on
OWN_BUFFER_SIZE: Final = 4096

#: the most raw bytes one decode returns in all. A raw value in an array is *the rest of the
#: key*, and the reader goes on one byte later: ``07 00 01 01 01 …`` gives n raw values of
#: n, n-1, … bytes, a result quadratic in the key. lmdb-js's keys (8 KiB at most) stay far
#: below this (32 MiB at worst); a longer key whose result would pass it is refused, so
#: decoding stays linear in the key
RAW_TOTAL_LIMIT: Final = 64 * 2**20


# -- schema fields --------------------------------------------------------------------------

#: schema field type -> the first bytes its (non-null) values start with; null (00) is
#: allowed in every field. A bytes field takes anything (raw bytes carry no type byte).
#: ``tuple`` is not a field type: nested arrays are written flat, so no reader can find
#: their end
FIELD_STARTS: Final[dict[str, frozenset[int]]] = {
    "string": frozenset({STRING_PREFIX, *range(FIRST_PLAIN_UNIT, 256)}),
    "bytes": frozenset(range(256)),
    "bool": frozenset({FALSE, TRUE}),
    "float64": frozenset(range(0x08, 0x19)),
    "int": frozenset(range(0x08, 0x18)),
}


@attrs.frozen
class JsSymbol:
    """A JavaScript ``Symbol.for(description)``: written ``02`` + the description as a string.

    ``readKey`` returns one for a key starting ``02``; encoding one writes the same bytes.
    """

    description: str = attrs.field(validator=attrs.validators.instance_of(str))
