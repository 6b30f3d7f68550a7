"""The ``sqlite4`` format: constants and tables, byte-identical with the 2019 trunk ``vdbecodec.c``.

Theory of operation: a key is an optional table-number varint, then one or more values laid
end to end with no separators. The first byte of a value says its type and direction
(:data:`HEADER_NAMES`): ``05`` NULL, ``06``..``23`` numbers, ``24`` text, ``25`` binary,
``26`` final binary; a descending value is the ones' complement of its whole ascending
encoding, so its first byte is in ``d9``..``fa``.

* A number is a sign/exponent class byte and a base-100 mantissa M (spec §5). Its absolute
  value is 0.d1 d2 .. dn (centimal digits, d1 and dn non-zero) x 100**E; each digit is written
  as ``2d+1`` except the last, written ``2d``, so M ends at its first even byte and needs no
  terminator. The header splits the number line into classes that sort in order: NaN ``06``,
  -inf ``07``, negative large/medium/small ``08``/``13-E``/``14``, zero ``15``, positive
  small/medium/large ``16``/``17+E``/``22``, +inf ``23``; large and small classes carry E as a
  varint, complemented where a bigger magnitude of E must sort lower; negatives complement M.
* Text is ``24`` UTF-8 ``00``; binary is ``25``, the bits in 7-bit groups with the high bit
  set, ``00``; a final binary (``26``, last ascending field only, on request) is the raw bytes
  to the end of the key.
* A varint (spec §3; the table number and the large/small exponents) is one byte up to 240,
  two up to 2287, three up to 67823, else a length byte ``f7 + size`` and the big-endian value.

Every value except a final binary is prefix-free, so byte order of keys is value-by-value order
and the prefix range of P is ``[P, strinc(P))``.

All number arithmetic is on decimal digit strings and Python ints: a value never passes through
a binary float, and no context-rounded ``Decimal`` operation is used. A float is the decimal of
its shortest repr (spec §11). Decoding (spec §5.7, §12) is lexcodecs's own (the trunk decoder
has sign bugs) and strict: only the canonical form the encoder writes decodes.

This module holds the format's numbers only. The readable encoder and decoder are in
``reference_encode.py`` / ``reference_decode.py``; the compiled module ``_compiled.pyx``
cimports these constants from the ``_format.pxd`` the build writes (and the number's from
``lexcodecs/_centimal_format.pxd``).
"""

from __future__ import annotations

from typing import Final

# the number's class bytes, exponent varint and mantissa tables: this format's too
from ...centimal import DIGIT_PAIR as DIGIT_PAIR
from ...centimal import EVEN_MARK as EVEN_MARK
from ...centimal import MEDIUM_MAX_E as MEDIUM_MAX_E
from ...centimal import NEG_INF as NEG_INF
from ...centimal import NEG_LARGE as NEG_LARGE
from ...centimal import NEG_MEDIUM as NEG_MEDIUM
from ...centimal import NEG_SMALL as NEG_SMALL
from ...centimal import PAIR_BYTES as PAIR_BYTES
from ...centimal import POS_INF as POS_INF
from ...centimal import POS_LARGE as POS_LARGE
from ...centimal import POS_MEDIUM as POS_MEDIUM
from ...centimal import POS_SMALL as POS_SMALL
from ...centimal import VARINT_1 as VARINT_1
from ...centimal import VARINT_2 as VARINT_2
from ...centimal import VARINT_2_FIRST as VARINT_2_FIRST
from ...centimal import VARINT_3 as VARINT_3
from ...centimal import VARINT_3_FIRST as VARINT_3_FIRST
from ...centimal import VARINT_LONG as VARINT_LONG
from ...centimal import VARINT_MAX as VARINT_MAX
from ...centimal import ZERO as ZERO
from ...types import INT_TYPES

NAME: Final = "sqlite4"

# -- header bytes (spec §2, §5) -------------------------------------------------------------

# The number's class bytes (NEG_INF .. POS_INF), its medium classes' largest E and its
# exponent varint are lexcodecs/centimal.py's, shared with hbase-orderedbytes.
NULL, NAN = 0x05, 0x06
TEXT, BINARY, FINAL_BINARY = 0x24, 0x25, 0x26
#: the smallest E of the medium classes (0.01 <= |v| < 1 is medium here, small in HBase)
MEDIUM_MIN_E: Final = 0
#: the first and last ascending header bytes
FIRST_ASC, LAST_ASC = NULL, FINAL_BINARY
#: the descending header bytes: every ascending one but the final binary, complemented
FIRST_DESC, LAST_DESC = 0xFF ^ BINARY, 0xFF ^ NULL

#: ascending header byte -> what it is, for messages and ``inspect``
HEADER_NAMES: Final[dict[int, str]] = {
    NULL: "NULL", NAN: "NaN", NEG_INF: "-inf", NEG_LARGE: "negative large number",
    **{NEG_MEDIUM - e: f"negative medium number (E={e})" for e in range(MEDIUM_MAX_E + 1)},
    NEG_SMALL: "negative small number", ZERO: "zero", POS_SMALL: "positive small number",
    **{POS_MEDIUM + e: f"positive medium number (E={e})" for e in range(MEDIUM_MAX_E + 1)},
    POS_LARGE: "positive large number", POS_INF: "+inf", TEXT: "text", BINARY: "binary",
    FINAL_BINARY: "final binary",
}
#: the one-byte numbers: header -> the name the decoders use for it
SPECIAL_NUMBERS: Final[dict[int, str]] = {NAN: "nan", NEG_INF: "-inf", ZERO: "zero",
                                          POS_INF: "inf"}

#: stop of the empty prefix's range without a table: every value starts at most at fa
EMPTY_PREFIX_STOP: Final = b"\xfb"

#: the decimal digits of an int this codec writes or reads back as ``int``; Python itself
#: guards int <-> str at 4300 digits, because the conversion is quadratic
MAX_INT_DIGITS: Final = 10_000
#: ints up to this many bits are written through ``str()`` (under Python's 4300-digit guard);
#: up to INT_VIA_DECIMAL_BITS through ``Decimal`` (linear); beyond, refused unread
INT_VIA_STR_BITS: Final = 14_000
INT_VIA_DECIMAL_BITS: Final = 34_000
#: decoded digit strings up to this length become ints through ``int(str)``, longer ones
#: through ``Decimal`` (``int(str)`` is quadratic)
INT_FROM_STR_DIGITS: Final = 4000

# -- field kinds: the plan's code for each schema field ------------------------------------
#
# A bound schema is a list of (kind, descending, lo, hi): the reference picks its writer and
# reader from tables keyed by kind, the compiled module switches on the same numbers.

KIND_INT, KIND_FLOAT64, KIND_DECIMAL, KIND_STRING, KIND_BYTES, KIND_FINAL = range(6)
#: schema field type -> kind (a bytes field with ``final=true`` is KIND_FINAL)
FIELD_KINDS: Final[dict[str, int]] = {
    **dict.fromkeys(INT_TYPES, KIND_INT), "int": KIND_INT, "float64": KIND_FLOAT64,
    "decimal": KIND_DECIMAL, "string": KIND_STRING, "bytes": KIND_BYTES,
}
#: schema field type -> the (lo, hi) an int field holds; ``int`` is unbounded
INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    name: (cls.min, cls.max) for name, cls in INT_TYPES.items()}
#: kind -> the ascending headers a field of that kind reads (NULL aside)
KIND_HEADERS: Final[dict[int, frozenset[int]]] = {
    **dict.fromkeys((KIND_INT, KIND_FLOAT64, KIND_DECIMAL), frozenset(range(NAN, POS_INF + 1))),
    KIND_STRING: frozenset({TEXT}), KIND_BYTES: frozenset({BINARY}),
    KIND_FINAL: frozenset({FINAL_BINARY}),
}

# -- translate tables of the reference code -------------------------------------------------
#
# The reference turns decimal digit strings into mantissa bytes with two C-level steps:
# ``bytes.fromhex`` reads each pair of decimal digits "ab" as the byte ``16a+b``, and
# ``translate`` maps that byte to ``2(10a+b)+1``; decoding runs the same tables backwards and
# reads the digits with ``bytes.hex``.

def _mantissa_tables() -> tuple[bytes, bytes, list[bytes], list[bytes]]:
    odd, neg_odd = bytearray(256), bytearray(256)
    last, neg_last = [b""] * 256, [b""] * 256
    for d, h in enumerate(PAIR_BYTES):
        odd[h] = 2 * d + 1
        neg_odd[h] = 0xFF ^ (2 * d + 1)
        last[h] = bytes((2 * d,))
        neg_last[h] = bytes((0xFF ^ (2 * d),))
    return bytes(odd), bytes(neg_odd), last, neg_last


#: digit pair byte -> M byte of a digit that is not the last (``2d+1``), and complemented;
#: digit pair byte -> the last M byte (``2d``), and complemented
ODD, NEG_ODD, LAST, NEG_LAST = _mantissa_tables()
#: bytes below 80 -> 00, the others -> 01: ``find(0)`` is the end of a binary's groups
GROUP_MARK: Final = bytes(b >> 7 for b in range(256))
LOW7: Final = bytes(b & 0x7F for b in range(256))
#: the header byte of each medium class, positive and negative
MEDIUM_POS: Final = [bytes((POS_MEDIUM + e,)) for e in range(MEDIUM_MAX_E + 1)]
MEDIUM_NEG: Final = [bytes((NEG_MEDIUM - e,)) for e in range(MEDIUM_MAX_E + 1)]
#: 100**E of the medium classes
POW100: Final = [100**k for k in range(MEDIUM_MAX_E + 1)]

# three masks per 7-byte chunk spread 56 bits into 8 bytes of 7 bits (and back)
SPREAD_28: Final = (0xFFFFFFF << 28, 0xFFFFFFF)
SPREAD_14: Final = (0x0FFFC0000FFFC000, 0x00003FFF00003FFF)
SPREAD_7: Final = (0x3F803F803F803F80, 0x007F007F007F007F)
HIGH_BITS: Final = 0x8080808080808080
