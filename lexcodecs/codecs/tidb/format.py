"""The ``tidb`` format: TiDB/TiKV memcomparable datum keys, byte-identical with TiDB's Go code
(``util/codec``, ``tablecodec``; spec ``tidb.md``).

Theory of operation: a key is a run of *datums* laid end to end, with no separator and no
terminator. Each datum is one flag byte naming its kind, then a payload whose bytes sort as
the values of that kind do::

    datum   = flag ‖ payload
    00                                  NULL (lowest)
    01  g1 m1 g2 m2 .. gk mk            bytes/string: 8-byte groups g, each followed by a
                                        marker m: ff for a full group (more follow), else
                                        ff - (pad bytes) for the last, padded with 00
    03  be64(x xor 2**63)               int64, sign bit flipped
    04  be64(x)                         uint64; also a packed DATETIME/TIMESTAMP (below)
    05  be64(u)                         float64 (a FLOAT widened): u = bits | 2**63 when
                                        x >= 0 (so -0.0 too), else ~bits
    06  p f body                        DECIMAL(p, f): MySQL's binary decimal (below)
    07  be64(ns xor 2**63)              TIME: int64 nanoseconds, sign bit flipped
    08 / 09 / 02                        the *value* encodings, which the decoder accepts:
                                        zigzag varint, uvarint, varint length + raw bytes

* A decimal's body: the p - f integer digits and the f fraction digits are cut into words of
  nine digits counted outward from the point (4 bytes each, big-endian); the leftover leading
  integer digits and trailing fraction digits take :data:`DIG2BYTES` bytes. A negative value
  has every byte inverted, then every value has the first byte's top bit flipped. Without a
  field's (precision, frac) the value's own shape is used (spec §6), so such decimals do not
  sort numerically: the header comes first (a declared anomaly).
* A packed time: ``((((Y*13 + M) << 5 | D) << 17 | h << 12 | m << 6 | s) << 24) | us``, the
  UTC wall clock of a TIMESTAMP (spec §7); the zero date is 0.
* Framing (codec options, spec §8): ``t`` int(table) ``_r`` int(handle) for an int handle
  (no flag byte: 19 bytes), ``t`` int(table) ``_r`` datums for a common handle, ``t``
  int(table) ``_i`` int(index) datums for an index entry; ``int(x)`` is ``be64(x xor 2**63)``.

There is no descending order and NULL is always ``00``, lowest. Decoding is strict: a
malformed datum is a DecodeError with its offset (the Go decoder's panic on a short decimal
body included), and only the value encodings the reference decoder accepts are let in.

How the package is laid out: this table; ``reference_encode.py`` / ``reference_decode.py``
(the readable code, and the only error shapers); ``codec.py`` (options, binding, framing);
``explain.py`` (``inspect``); ``anomalies.py``; ``_layout.pxi`` + ``_compiled.pyx`` (the
compiled row engine, which cimports the integers below from the generated ``_format.pxd``).
"""

from __future__ import annotations

from typing import Final

NAME: Final = "tidb"

# -- flags (spec §2) ------------------------------------------------------------------------

NIL_FLAG = 0x00
BYTES_FLAG = 0x01
COMPACT_BYTES_FLAG = 0x02
INT_FLAG = 0x03
UINT_FLAG = 0x04
FLOAT_FLAG = 0x05
DECIMAL_FLAG = 0x06
DURATION_FLAG = 0x07
VARINT_FLAG = 0x08
UVARINT_FLAG = 0x09
JSON_FLAG = 0x0A
MAX_FLAG = 0xFA

#: flag -> its name in TiDB's source, for messages and ``inspect``
FLAG_NAMES: Final[dict[int, str]] = {
    NIL_FLAG: "NilFlag (NULL)", BYTES_FLAG: "bytesFlag", COMPACT_BYTES_FLAG: "compactBytesFlag",
    INT_FLAG: "intFlag", UINT_FLAG: "uintFlag", FLOAT_FLAG: "floatFlag",
    DECIMAL_FLAG: "decimalFlag", DURATION_FLAG: "durationFlag", VARINT_FLAG: "varintFlag",
    UVARINT_FLAG: "uvarintFlag", JSON_FLAG: "jsonFlag", MAX_FLAG: "maxFlag",
}

# -- fixed-width payloads (spec §4, §5) ------------------------------------------------------

WIDTH = 8
SIGN_BIT = 1 << 63
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1

# -- bytes groups (spec §3) -----------------------------------------------------------------

GROUP_SIZE = 8
#: the marker of a full group; the last group's is MARKER - (pad bytes), f7..fe
MARKER = 0xFF
PAD = 0x00
#: the smallest marker (a group of pad bytes only)
MIN_MARKER = MARKER - GROUP_SIZE

# -- decimal (spec §6) ----------------------------------------------------------------------

DIGITS_PER_WORD = 9
WORD_SIZE = 4
#: bytes taken by 0..9 leftover digits
DIG2BYTES: Final = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
#: the oracle's largest precision (9 words of 9 digits: "Bad Number" beyond)
MAX_PRECISION = 81
#: today's TiDB caps frac at 30 (the 2018 oracle does not: the bytes would differ)
MAX_FRAC = 30
#: the top bit of a decimal body's first byte, flipped for every value
DECIMAL_SIGN = 0x80

# -- packed time (spec §7) ------------------------------------------------------------------

MICRO_BITS = 24
HMS_BITS = 17
DAY_BITS = 5
MONTHS_PER_YEAR_SLOT = 13
HOUR_SHIFT = 12
MINUTE_SHIFT = 6
#: nanoseconds in a microsecond (durations are int64 nanoseconds of whole microseconds here)
NS_PER_US = 1000

# -- framing (spec §8) ----------------------------------------------------------------------

TABLE_PREFIX = 0x74  # 't'
SEP = 0x5F  # '_'
RECORD_MARK = 0x72  # 'r'
INDEX_MARK = 0x69  # 'i'
#: 't' int(table) '_r'|'_i': the head of every framed key
HEAD_LEN = 11
#: an int-handle row key: head and the 8-byte handle
INT_HANDLE_KEY_LEN = 19
HANDLE_INT, HANDLE_COMMON = "int", "common"

# -- field kinds: the plan's code for each schema field -------------------------------------

(KIND_INT64, KIND_UINT64, KIND_FLOAT64, KIND_FLOAT32, KIND_STRING, KIND_BYTES, KIND_DECIMAL,
 KIND_DURATION, KIND_TIMESTAMP) = range(9)

#: schema field type -> kind
FIELD_KINDS: Final[dict[str, int]] = {
    "int64": KIND_INT64, "uint64": KIND_UINT64, "float64": KIND_FLOAT64,
    "float32": KIND_FLOAT32, "string": KIND_STRING, "bytes": KIND_BYTES,
    "decimal": KIND_DECIMAL, "duration": KIND_DURATION, "timestamp": KIND_TIMESTAMP,
}
#: kind -> the flag EncodeKey writes for it
KIND_FLAG: Final[dict[int, int]] = {
    KIND_INT64: INT_FLAG, KIND_UINT64: UINT_FLAG, KIND_FLOAT64: FLOAT_FLAG,
    KIND_FLOAT32: FLOAT_FLAG, KIND_STRING: BYTES_FLAG, KIND_BYTES: BYTES_FLAG,
    KIND_DECIMAL: DECIMAL_FLAG, KIND_DURATION: DURATION_FLAG, KIND_TIMESTAMP: UINT_FLAG,
}
#: kind -> every flag a field of that kind reads (NULL aside): the key form and the value
#: form the reference decoder also takes (spec §10)
KIND_FLAGS: Final[dict[int, frozenset[int]]] = {
    KIND_INT64: frozenset({INT_FLAG, VARINT_FLAG}),
    KIND_UINT64: frozenset({UINT_FLAG, UVARINT_FLAG}),
    KIND_FLOAT64: frozenset({FLOAT_FLAG}),
    KIND_FLOAT32: frozenset({FLOAT_FLAG}),
    KIND_STRING: frozenset({BYTES_FLAG, COMPACT_BYTES_FLAG}),
    KIND_BYTES: frozenset({BYTES_FLAG, COMPACT_BYTES_FLAG}),
    KIND_DECIMAL: frozenset({DECIMAL_FLAG}),
    KIND_DURATION: frozenset({DURATION_FLAG}),
    KIND_TIMESTAMP: frozenset({UINT_FLAG, UVARINT_FLAG}),
}
#: the longest varint (Go's MaxVarintLen64)
MAX_VARINT_LEN = 10
