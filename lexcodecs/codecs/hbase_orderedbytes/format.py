"""The ``hbase-orderedbytes`` format: constants and tables, byte-identical with HBase 2.6.7.

Theory of operation: HBase's ``OrderedBytes`` (and the ``org.apache.hadoop.hbase.types`` API
on it: ``OrderedNumeric``, ``OrderedInt32``, ``OrderedString``, ``OrderedBlobVar``,
``Struct``, ...) writes every value as a header byte, which says its type and, for numbers,
its sign and magnitude class, then the value's bytes. The header order is the sort order
between types: NULL < numbers < NaN < fixed ints (by width) < fixed floats < text < blobs.
A key is the fields' encodings end to end (``api="struct"``: HBase's ``Struct``, which also
drops trailing NULLs). A descending field is its ascending encoding with every byte
inverted (XOR ``ff``), header included::

    NULL           05
    number         hdr [exponent varint] M          (variable length, SQLite4 descent)
    int8..int64    29..2c  N bytes big-endian, sign bit flipped
    float32/64     30/31   IEEE bits, order transform (negative: all bits; else sign bit)
    text           34  UTF-8 bytes  00              (U+0000 refused)
    BlobVar        37  g1|80 g2|80 ... gk           (7-bit groups, the last with bit 7 clear)
    BlobCopy       38  raw bytes to the end of the key   (desc: ~(38 raw 00), no 00 in raw)

A number (spec §4) is ``+-0.M x 100**E`` with M a base-100 fraction in [0.01, 1): each
centimal digit d is written ``2d+1`` except the last, written ``2d`` (so M ends at its first
even byte). The header splits the line into classes that sort in order::

    07 -inf | 08 ~E ~M  (E >= 11) | 13-E ~M (1 <= E <= 10) | 14 E ~M (|v| < 1) | 15 zero
    16 ~E M (|v| < 1) | 17+E M (1 <= E <= 10) | 22 E M (E >= 11) | 23 +inf | 26 NaN

E is a SQLite4 varint (complemented where a larger E must sort lower). Values are rounded
half-up to 31 significant digits first (``MathContext(31, HALF_UP)``), trailing zeros
stripped, but the class comes from the value before rounding: a value in [1 - 5E-32, 1)
rounds to 1 in the small class, with E = -1 (:data:`ONE_FROM_BELOW_E`). A double goes in as
the digits of ``Double.toString`` (JDK 19 and later: the shortest repr, Python's ``repr``,
except that Java writes at least two digits, so the subnormal ``5e-324`` is ``4.9E-324``;
JDK 18 and earlier wrote other digits for about 0.5 % of doubles, so their keys differ:
``1e23`` is ``22 0c 14`` here, ``22 0c 13 c7 .. b4`` there).

This module holds the format's numbers only; ``reference_encode.py`` / ``reference_decode.py``
are the readable encoder and decoder, ``codec.py`` binds a schema into plan data
(:class:`FieldCode`) made from these tables.
"""

from __future__ import annotations

from typing import Final

# the number's class bytes, exponent varint and mantissa tables: this format's too
from ...centimal import DIGIT_PAIR as DIGIT_PAIR
from ...centimal import EVEN_MARK as EVEN_MARK
from ...centimal import LAST as LAST
from ...centimal import MEDIUM_MAX_E as MEDIUM_MAX_E
from ...centimal import NEG_INF as NEG_INF
from ...centimal import NEG_LARGE as NEG_LARGE
from ...centimal import NEG_MEDIUM as NEG_MEDIUM
from ...centimal import NEG_SMALL as NEG_SMALL
from ...centimal import ODD as ODD
from ...centimal import PAIR_BYTES as PAIR_BYTES
from ...centimal import POS_INF as POS_INF
from ...centimal import POS_LARGE as POS_LARGE
from ...centimal import POS_MEDIUM as POS_MEDIUM
from ...centimal import POS_SMALL as POS_SMALL
from ...centimal import ZERO as ZERO

NAME: Final = "hbase-orderedbytes"

# -- header bytes (spec §2), ascending --------------------------------------------------------

# The number's class bytes (NEG_INF .. POS_INF, medium 0x13 - E and 0x17 + E for
# 1 <= E <= 10), its exponent varint and its mantissa are SQLite4's: lexcodecs/centimal.py.
NULL: Final = 0x05
NAN: Final = 0x26
FIXED_INT8, FIXED_INT16, FIXED_INT32, FIXED_INT64 = 0x29, 0x2A, 0x2B, 0x2C
FIXED_FLOAT32, FIXED_FLOAT64 = 0x30, 0x31
TEXT: Final = 0x34
BLOB_VAR: Final = 0x37
BLOB_COPY: Final = 0x38
#: the text terminator, and the terminator a descending BlobCopy adds before inverting
TERMINATOR: Final = 0x00

#: the medium classes hold 1 <= E <= MEDIUM_MAX_E; E = 0 (headers 13 and 17) is never written
MEDIUM_MIN_E: Final = 1

#: ascending header -> what it is, for messages and ``inspect``
HEADER_NAMES: Final[dict[int, str]] = {
    NULL: "NULL", NEG_INF: "-inf", NEG_LARGE: "negative large number",
    **{NEG_MEDIUM - e: f"negative medium number (E={e})" for e in range(1, MEDIUM_MAX_E + 1)},
    NEG_SMALL: "negative small number", ZERO: "zero", POS_SMALL: "positive small number",
    **{POS_MEDIUM + e: f"positive medium number (E={e})" for e in range(1, MEDIUM_MAX_E + 1)},
    POS_LARGE: "positive large number", POS_INF: "+inf", NAN: "NaN",
    FIXED_INT8: "int8", FIXED_INT16: "int16", FIXED_INT32: "int32", FIXED_INT64: "int64",
    FIXED_FLOAT32: "float32", FIXED_FLOAT64: "float64", TEXT: "text", BLOB_VAR: "BlobVar",
    BLOB_COPY: "BlobCopy",
}
#: every header of a number (NULL aside)
NUMBER_HEADERS: Final = frozenset(range(NEG_INF, POS_INF + 1)) - {0x13, 0x17} | {NAN}

# -- numbers (spec §4) --------------------------------------------------------------------------

#: significant decimal digits kept (``MathContext(31, HALF_UP)``)
MAX_DIGITS: Final = 31
#: the largest E either exponent form holds: Java's BigDecimal scale is an int, and HBase
#: refuses (``ArithmeticException: Overflow``) or cannot decode beyond; the encoder refuses a
#: larger E, the decoder reads none
MAX_E: Final = 2**30 - 1
#: HBase picks a number's class from the value as given but takes E from the value rounded to
#: 31 digits, E = floor(z / 2) with z = scale - precision: a value in [1 - 5E-32, 1) takes the
#: small class and rounds to 1, where z = -1, so E = -1, and ``putVaruint64`` writes that long
#: as the unsigned 2**64 - 1 (nine ff bytes), complemented for a positive value; M is 01. The
#: key: 16 00x9 02 (negative 14 ffx9 fd), which HBase decodes as 1 (-1). No other E < 0 and
#: no other 9-byte exponent is ever written.
ONE_FROM_BELOW_E: Final = -1
#: the exponent varint's value for E = -1 (``putVaruint64`` reads the long as unsigned)
U64_MASK: Final = 2**64 - 1
#: the one M after E = -1: the centimal digit 01, written 02 (inverted when negative)
ONE_FROM_BELOW_M: Final = 0x02
#: the smallest exponent of a value's last digit (``value = digits x 10**exp``): Java's
#: ``BigDecimal`` scale is at most 2**31 - 1
MIN_EXP: Final = -(2**31 - 1)
#: ints this many bits or fewer are converted through ``str()`` (under Python's 4300-digit
#: guard); up to INT_VIA_DECIMAL_BITS through ``Decimal``; larger ones are refused
INT_VIA_STR_BITS: Final = 14_000
INT_VIA_DECIMAL_BITS: Final = 34_000
#: an ``int`` field decodes integers of at most this many digits (larger: a Decimal field)
MAX_INT_DIGITS: Final = 10_000


# -- fixed-width types (spec §5) ---------------------------------------------------------------

#: field type -> (header, width in bytes, lo, hi)
FIXED_INTS: Final[dict[str, tuple[int, int, int, int]]] = {
    "int8": (FIXED_INT8, 1, -(2**7), 2**7 - 1),
    "int16": (FIXED_INT16, 2, -(2**15), 2**15 - 1),
    "int32": (FIXED_INT32, 4, -(2**31), 2**31 - 1),
    "int64": (FIXED_INT64, 8, -(2**63), 2**63 - 1),
}
#: field type -> (header, width in bytes, the canonical NaN's bits)
FIXED_FLOATS: Final[dict[str, tuple[int, int, int]]] = {
    "float32": (FIXED_FLOAT32, 4, 0x7FC00000),
    "float64": (FIXED_FLOAT64, 8, 0x7FF8000000000000),
}

# -- field kinds: the plan's code for each schema field -----------------------------------------
#
# A bound schema is a tuple of FieldCode (codec.py): the reference picks writer and reader
# from tables keyed by kind; a compiled module would switch on the same numbers.

(KIND_DECIMAL, KIND_BIGINT, KIND_NUM_INT64, KIND_NUM_FLOAT64, KIND_NUM_FLOAT32, KIND_FIXED_INT,
 KIND_FIXED_FLOAT, KIND_STRING, KIND_BLOB_VAR, KIND_BLOB_COPY) = range(10)

#: the HBase type each kind is, for messages and docs
KIND_NAMES: Final[dict[int, str]] = {
    KIND_DECIMAL: "OrderedNumeric (BigDecimal)", KIND_BIGINT: "OrderedNumeric (BigInteger)",
    KIND_NUM_INT64: "OrderedNumeric (Long)", KIND_NUM_FLOAT64: "OrderedNumeric (Double)",
    KIND_NUM_FLOAT32: "OrderedNumeric (Float)", KIND_FIXED_INT: "OrderedInt8..64",
    KIND_FIXED_FLOAT: "OrderedFloat32/64", KIND_STRING: "OrderedString",
    KIND_BLOB_VAR: "OrderedBlobVar", KIND_BLOB_COPY: "OrderedBlob (BlobCopy)",
}
#: the kinds HBase calls nullable (NULL written as 05; Struct drops them when trailing)
NULLABLE_KINDS: Final = frozenset({KIND_DECIMAL, KIND_BIGINT, KIND_NUM_INT64, KIND_NUM_FLOAT64,
                                   KIND_NUM_FLOAT32, KIND_STRING, KIND_BLOB_VAR,
                                   KIND_BLOB_COPY})
NUMERIC_KINDS: Final = frozenset({KIND_DECIMAL, KIND_BIGINT, KIND_NUM_INT64, KIND_NUM_FLOAT64,
                                  KIND_NUM_FLOAT32})

#: the ``encoding`` field option: its values, and the default of each field type
ENCODING_NUMERIC, ENCODING_BLOBVAR, ENCODING_BLOBCOPY = "numeric", "blobvar", "blobcopy"
ENCODINGS: Final = (ENCODING_NUMERIC, ENCODING_BLOBVAR, ENCODING_BLOBCOPY)
#: (field type, encoding or None) -> kind; a pair not here is refused at bind
FIELD_KINDS: Final[dict[tuple[str, str | None], int]] = {
    ("decimal", None): KIND_DECIMAL, ("decimal", ENCODING_NUMERIC): KIND_DECIMAL,
    ("int", None): KIND_BIGINT, ("int", ENCODING_NUMERIC): KIND_BIGINT,
    ("int64", ENCODING_NUMERIC): KIND_NUM_INT64,
    ("float64", ENCODING_NUMERIC): KIND_NUM_FLOAT64,
    ("float32", ENCODING_NUMERIC): KIND_NUM_FLOAT32,
    **{(t, None): KIND_FIXED_INT for t in FIXED_INTS},
    **{(t, None): KIND_FIXED_FLOAT for t in FIXED_FLOATS},
    ("string", None): KIND_STRING,
    ("bytes", None): KIND_BLOB_VAR, ("bytes", ENCODING_BLOBVAR): KIND_BLOB_VAR,
    ("bytes", ENCODING_BLOBCOPY): KIND_BLOB_COPY,
}
FIELD_TYPES: Final = frozenset(t for t, _ in FIELD_KINDS)

#: the ``api`` codec option: each field's ``DataType.encode`` in turn, or ``Struct``
API_TYPES, API_STRUCT = "types", "struct"

# -- translate tables of the reference code (the mantissa's are centimal.py's) ----------------

#: bytes with bit 7 clear -> 00: ``find(0)`` on the translation is the last BlobVar group
GROUP_MARK: Final = bytes(b >> 7 for b in range(256))
#: byte -> its 8 bits as text, and its low 7 bits as text (BlobVar groups, through strings)
BITS8: Final = tuple(format(b, "08b") for b in range(256))
BITS7: Final = tuple(format(b & 0x7F, "07b") for b in range(256))
