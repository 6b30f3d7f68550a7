"""The ``orderedcode`` format: Google's ``github.com/google/orderedcode``, as constants and tables.

Theory of operation: a key is its items' encodings laid end to end, with no separators and
no type bytes (the format is not self-describing: the reader must know the item types). Each
item is one of (spec ``orderedcode.md`` §2)::

    string / bytes     escaped bytes, then the terminator 00 01
                       00 -> 00 ff,  ff -> ff 00          "a\\x00b" -> 61 00 ff 62 00 01
    INFINITY           ff ff  (above every string: a string never starts ff ff)
    trailing string    the raw bytes, nothing else; only as the last item
    int64 x >= 0       k bytes: k one-bits, a zero bit, x in 7k-1 bits (big-endian)
                       +---------+---+--------------------------+
                       | 1 .. 1  | 0 |  x (7k - 1 bits)         |     k = 1..10
                       +---------+---+--------------------------+
                       0 -> 80   63 -> bf   64 -> c0 40   8192 -> e0 20 00
    int64 x < 0        the k bytes of ~x (= -x-1), every byte inverted     -1 -> 7f
    uint64             n (0..8), then x in n big-endian bytes   0 -> 00   256 -> 02 01 00
    float64            i = int64(bits); if i < 0: i = MinInt64 - i; then int64(i)

For k >= 8 the eight leading one-bits fill a whole ``ff`` byte: 8 bytes are ``ff`` then a byte
below ``80``, 9 bytes ``ff 80..bf``, 10 bytes ``ff c0`` (the only 10-byte head an int64 needs).

A descending item (Go's ``Decr``) is its ascending encoding with every byte inverted. Strings
escape both ``00`` and ``ff``, so an inverted string is still self-delimiting (it ends
``ff fe``) and inverted INFINITY is ``00 00``, below every inverted string.

Every item but the trailing string is self-delimiting, so byte order of keys is item-by-item
value order and the prefix range of P is ``[P, strinc(P))``. A key whose last field is a
trailing string is not prefix-free (``61`` is a prefix of ``61 62``), and in a *descending*
trailing field a string sorts before its own extensions (an order anomaly, declared).

Floats: -0.0 and +0.0 share the key ``80`` (-0.0 reads back as +0.0); NaN is not special, so
a positive-sign NaN sorts above +inf and a negative-sign one below -inf, payload kept: IEEE
total order with -0.0 equal to zero.

Decoding is Go's ``Parse`` (spec §6), lenient where Parse is: non-minimal int64/uint64/float64
bytes are accepted (a 10-byte int64 wraps modulo 2**64 as Go's does). Everything Parse calls
``orderedcode: corrupt input`` is a :class:`~lexcodecs.errors.DecodeError`; a whole-key decode
also refuses bytes left after the last field (``Parse`` returns them as its remainder).

How the package is laid out: this module is the format as data. ``reference_encode.py``
writes it and ``reference_decode.py`` reads it in plain Python (the executable spec, and the
only code that words an error); ``codec.py`` binds a schema into one :class:`FieldCode` per
field (plain data: a compiled module is built from the same rows) and gives the reference
readers and writers.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ...schema import Field

NAME: Final = "orderedcode"

# -- strings (spec §2) ----------------------------------------------------------------------

#: ends a string item
TERMINATOR: Final = b"\x00\x01"
#: a 00 byte inside a string
ESCAPED_00: Final = b"\x00\xff"
#: an ff byte inside a string
ESCAPED_FF: Final = b"\xff\x00"
#: the INFINITY item (ascending)
INFINITY_BYTES: Final = b"\xff\xff"
#: the bytes that start an escape; inverted, the set is the same (so one search reads both
#: directions)
ESCAPE_BYTES: Final = frozenset({0x00, 0xFF})

# -- integers (spec §3) ---------------------------------------------------------------------

INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
UINT64_MAX: Final = (1 << 64) - 1
#: the longest uint64 payload
UINT64_MAX_LEN: Final = 8
#: the largest byte after a leading ``ff`` in an int64 (``ff c0``: 10 bytes)
INT64_FF_NEXT_MAX: Final = 0xC0


class Int64Size(NamedTuple):
    """The k-byte int64 encoding: its head bits (k one-bits and a zero, in the top bits of a
    8k-bit number), and the non-negative values it holds, ``0 .. limit - 1``."""

    length: int
    head: int
    limit: int


#: k-byte sizes in increasing order: k one-bits and a zero bit, then 7k-1 bits of value
INT64_SIZES: Final[tuple[Int64Size, ...]] = tuple(
    Int64Size(k, ((1 << k) - 1) << (7 * k), 1 << (7 * k - 1)) for k in range(1, 11))


# -- fields ---------------------------------------------------------------------------------

#: field kinds: the plan data of a field (the compiled module reads the same numbers)
KIND_STRING, KIND_BYTES, KIND_INT64, KIND_UINT64, KIND_FLOAT64 = 0, 1, 2, 3, 4
KIND_TRAILING_STRING, KIND_TRAILING_BYTES = 5, 6

#: field type -> kind of an ordinary field
FIELD_KINDS: Final[dict[str, int]] = {
    "string": KIND_STRING, "bytes": KIND_BYTES, "int64": KIND_INT64,
    "uint64": KIND_UINT64, "float64": KIND_FLOAT64,
}
#: field type -> kind of a ``trailing=true`` field (Go's ``TrailingString``)
TRAILING_KINDS: Final[dict[str, int]] = {
    "string": KIND_TRAILING_STRING, "bytes": KIND_TRAILING_BYTES,
}
#: kind -> what Go calls the item, for messages and ``inspect``
KIND_NAMES: Final[dict[int, str]] = {
    KIND_STRING: "string", KIND_BYTES: "string (bytes)", KIND_INT64: "int64",
    KIND_UINT64: "uint64", KIND_FLOAT64: "float64",
    KIND_TRAILING_STRING: "TrailingString", KIND_TRAILING_BYTES: "TrailingString (bytes)",
}
#: kinds whose values are text (UTF-8 str)
TEXT_KINDS: Final = frozenset({KIND_STRING, KIND_TRAILING_STRING})
#: kinds that take INFINITY (Go's StringOrInfinity)
INFINITY_KINDS: Final = frozenset({KIND_STRING, KIND_BYTES})
#: kinds that read the rest of the key
TRAILING: Final = frozenset(TRAILING_KINDS.values())

#: the field option of a TrailingString field
OPTION_TRAILING: Final = "trailing"


class FieldCode(NamedTuple):
    """The plan data of one field: its kind and direction (``mask`` 0xff when descending)."""

    kind: int
    mask: int

    @property
    def descending(self) -> bool:
        return self.mask == 0xFF


def field_code(field: Field) -> FieldCode:
    """The plan data of a field the codec has checked."""
    table = TRAILING_KINDS if field.options.get(OPTION_TRAILING, False) else FIELD_KINDS
    return FieldCode(table[field.type], 0xFF if field.descending else 0x00)
