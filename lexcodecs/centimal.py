"""The base-100 number of SQLite4, which HBase's ``OrderedBytes`` took over: one table for both.

Theory of operation: ``sqlite4`` (spec §5) and ``hbase-orderedbytes`` (spec §4, "SQLite4
descent") write a number as a class byte, an optional exponent varint and a base-100 mantissa,
with the same bytes::

    07 -inf | 08 ~E ~M (large) | 13-E ~M (medium) | 14 E ~M (small) | 15 zero
    16 ~E M (small) | 17+E M (medium) | 22 E M (large) | 23 +inf

``|v| = 0.d1 d2 .. dn x 100**E`` in centimal digits, each written ``2d+1`` but the last,
``2d`` (so M ends at its first even byte); a negative number complements M. E travels as
SQLite4's varint (spec §3): one byte up to 240, two up to 2287, three up to 67823, else
``f7 + size`` and the value in *size* big-endian bytes.

The two formats differ around the classes, not in them: sqlite4's medium class starts at
E = 0 and HBase's at E = 1 (:data:`MEDIUM_MIN_E` in each ``format.py``), NaN's byte, and
HBase's rounding to 31 digits. An integer's number (E >= 1) is the same bytes in both, which is
why one compiled layout (``lexcodecs/_centimal.pxi``) writes it for both codecs and for the
columnar kernel. ``setup.py`` writes this module's integers into ``_centimal_format.pxd``
(``lexcodecs/_pxdgen.py``), so the compiled code types none of them again.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DIGIT_PAIR", "EVEN_MARK", "LAST", "MEDIUM_MAX_E", "NEG_INF", "NEG_LARGE", "NEG_MEDIUM",
    "NEG_SMALL", "ODD", "PAIR_BYTES", "POS_INF", "POS_LARGE", "POS_MEDIUM", "POS_SMALL",
    "VARINT_1", "VARINT_2", "VARINT_2_FIRST", "VARINT_3", "VARINT_3_FIRST", "VARINT_LONG",
    "VARINT_MAX", "ZERO",
]

# -- class bytes, ascending -----------------------------------------------------------------

NEG_INF: Final = 0x07
NEG_LARGE: Final = 0x08
NEG_MEDIUM: Final = 0x13  # 0x13 - E
NEG_SMALL: Final = 0x14
ZERO: Final = 0x15
POS_SMALL: Final = 0x16
POS_MEDIUM: Final = 0x17  # 0x17 + E
POS_LARGE: Final = 0x22
POS_INF: Final = 0x23
#: the largest E of the medium classes
MEDIUM_MAX_E: Final = 10

# -- the exponent's varint ------------------------------------------------------------------

VARINT_MAX: Final = 2**64 - 1
#: the largest value of the one-, two- and three-byte forms
VARINT_1, VARINT_2, VARINT_3 = 240, 2287, 67823
#: the first byte of the two-byte form (plus the value's high byte), of the three-byte form,
#: and, plus the value's byte count (3..8), of the longer forms
VARINT_2_FIRST: Final = VARINT_1 + 1
VARINT_3_FIRST: Final = 249
VARINT_LONG: Final = 247

# -- the mantissa, as translate tables of the reference code --------------------------------
#
# The reference turns decimal digit strings into mantissa bytes with two C-level steps:
# ``bytes.fromhex`` reads each pair of decimal digits "ab" as the byte ``16a+b``, and
# ``translate`` maps that byte to ``2(10a+b)+1``; decoding runs the same tables backwards and
# reads the digits with ``bytes.hex``.

PAIR_BYTES: Final = [16 * (d // 10) + d % 10 for d in range(100)]


def _mantissa_tables() -> tuple[bytes, bytes]:
    odd, last = bytearray(256), bytearray(256)
    for d, h in enumerate(PAIR_BYTES):
        odd[h] = 2 * d + 1
        last[h] = 2 * d
    return bytes(odd), bytes(last)


#: digit pair byte (0xab for the digits "ab") -> M byte ``2d+1``, and the last M byte ``2d``
ODD, LAST = _mantissa_tables()
#: M byte (ascending, <= c7) -> its digit pair byte, for ``bytes.hex()``
DIGIT_PAIR: Final = bytes(PAIR_BYTES[b >> 1] if b <= 0xC7 else 0 for b in range(256))
#: even bytes -> 00, odd -> 01: ``find(0)`` on the translation is the end of an ascending M
EVEN_MARK: Final = bytes(b & 1 for b in range(256))
