"""The ``memcomparable`` format: RisingWave's serde key format (crate 0.2.0), as one table.

Theory of operation: a key is its fields' encodings back to back, with no framing between
them and no type bytes: the reader must know the schema (``decoding="schema"``). Each field is
its Rust type's serde encoding (spec §2-§5)::

    bool          00 | 01
    u8..u64,u128  big-endian                       i8..i64,i128  big-endian, sign bit flipped
    f32, f64      NaN -> canonical NaN, -0 -> +0; then sign bit 0: set it; 1: invert all
    char          code point as u32 big-endian     variant       index as one byte (<= 255)
    String/bytes  00 (empty) | 01 then 8-byte groups, each padded with 00 and followed by
                  09 (more follows) or the count of real bytes in the last group (01..08):

                  "1234567890" -> 01 | 31 32 33 34 35 36 37 38 | 09 | 39 30 00 .. 00 | 02
                                 flag  group 1                 more  last group      count
    Vec<u8> seq   (01 byte)* 00
    decimal       SQLite4's base-100 number (lexcodecs/centimal.py), NaN 24 above +inf 23,
                  the exponent always one byte (rust_decimal keeps |E| <= 15)

                  12.345 -> 18 | 19 45 64        -12.345 -> 12 | e6 ba 9b
                            E=1  d=12,34,50(last)          13-E   inverted

Two things wrap a field (``_serde.py``): its Option layers (``nullable``: ``00`` NULL, ``01``
before a value, once per layer) and its direction: a descending field is every byte of its
ascending encoding inverted, tags included, so NULL (``ff``) sorts last. Every field's encoding
is self-delimiting, so keys are prefix-free and sort field by field.

Decoding follows the crate's Deserializer: it takes what the crate takes (non-zero padding in a
last group, NaN payloads, non-minimal decimal digits: the vectors' ``decode_only``) and refuses
what it refuses; where the crate panics (a truncated key, a corrupt decimal overflowing
rust_decimal) this is a :class:`~lexcodecs.errors.DecodeError` too, and bytes left after the
last field are one ("trailing characters").

How the package is laid out: this module is the format as data. ``reference_encode.py`` and
``reference_decode.py`` write and read it in plain Python (the only code that words an error);
``_compiled.pyx`` does the same in Cython through ``_layout.pxi`` from :meth:`FieldLayout.row`
and hands anything unusual to the reference; ``codec.py`` binds a schema into layouts.
"""

from __future__ import annotations

from typing import Final

import attrs

from ...centimal import NEG_INF as NEG_INF
from ...centimal import NEG_LARGE as NEG_LARGE
from ...centimal import NEG_MEDIUM as NEG_MEDIUM
from ...centimal import NEG_SMALL as NEG_SMALL
from ...centimal import POS_INF as POS_INF
from ...centimal import POS_LARGE as POS_LARGE
from ...centimal import POS_MEDIUM as POS_MEDIUM
from ...centimal import POS_SMALL as POS_SMALL
from ...centimal import ZERO as ZERO
from ...schema import Field
from .._serde import layers_of

NAME: Final = "memcomparable"

# -- tags (spec §3, §4) ----------------------------------------------------------------------

#: Option: None, Some; bool: false, true; a sequence element follows / the sequence ends
TAG_NONE, TAG_SOME = 0x00, 0x01
FALSE, TRUE = 0x00, 0x01
SEQ_END, SEQ_ELEMENT = 0x00, 0x01
#: a byte string's flag: empty (nothing follows), non-empty (groups follow)
BYTES_EMPTY, BYTES_NONEMPTY = 0x00, 0x01
#: a group's bytes, and the marker after a group that more data follows
GROUP, MORE = 8, 0x09

# -- numbers ---------------------------------------------------------------------------------

#: the largest variant index the serializer writes (one byte; above, it panics)
VARIANT_MAX: Final = 255
#: the largest Unicode scalar value, and the surrogates a char is not
CHAR_MAX, SURROGATE_FIRST, SURROGATE_LAST = 0x10FFFF, 0xD800, 0xDFFF
#: the canonical NaNs the serializer writes for every NaN (before the order transform)
F64_NAN, F32_NAN = 0x7FF8000000000000, 0x7FC00000
#: Decimal::NaN: above Inf since 0.2.0 (0.1 wrote 06, below NegInf)
DEC_NAN = 0x24
#: the medium classes' exponents: 0..10 (E >= 11 large, E < 0 small)
DEC_MEDIUM_MAX_E = 10
#: rust_decimal::Decimal: a 96-bit mantissa and a scale of at most 28
DEC_MANTISSA_MAX: Final = 2**96 - 1
DEC_SCALE_MAX = 28

# -- field kinds: the plan's code for each schema field --------------------------------------

K_BOOL, K_INT, K_UINT, K_INT128, K_UINT128, K_FLOAT32, K_FLOAT64 = range(7)
K_STRING, K_BYTES, K_SEQ, K_CHAR, K_VARIANT, K_DECIMAL = 7, 8, 9, 10, 11, 12


@attrs.frozen
class TypeFormat:
    """How one field type is written: its kind, fixed width (0: variable) and value range."""

    field_type: str
    kind: int
    width: int = 0
    lo: int = 0
    hi: int = 0


def _signed(name: str, width: int, kind: int = K_INT) -> TypeFormat:
    half = 1 << (8 * width - 1)
    return TypeFormat(name, kind, width, -half, half - 1)


def _unsigned(name: str, width: int, kind: int = K_UINT) -> TypeFormat:
    return TypeFormat(name, kind, width, 0, (1 << (8 * width)) - 1)


#: field type -> its format
FORMATS: Final[dict[str, TypeFormat]] = {f.field_type: f for f in (
    TypeFormat("bool", K_BOOL, 1, 0, 1),
    _signed("int8", 1), _signed("int16", 2), _signed("int32", 4), _signed("int64", 8),
    _unsigned("uint8", 1), _unsigned("uint16", 2), _unsigned("uint32", 4),
    _unsigned("uint64", 8), _signed("int128", 16, K_INT128),
    _unsigned("uint128", 16, K_UINT128),
    TypeFormat("float32", K_FLOAT32, 4), TypeFormat("float64", K_FLOAT64, 8),
    TypeFormat("string", K_STRING), TypeFormat("bytes", K_BYTES),
    TypeFormat("char", K_CHAR, 4, 0, CHAR_MAX), TypeFormat("variant", K_VARIANT, 1, 0, 255),
    TypeFormat("decimal", K_DECIMAL),
)}
#: a bytes field with ``repr=seq``: a Vec<u8> as a serde sequence
SEQ_FORMAT: Final = TypeFormat("bytes", K_SEQ)

#: decimal class byte -> what it is (``inspect``); the medium classes by their E
DECIMAL_NAMES: Final[dict[int, str]] = {
    NEG_INF: "-Infinity", NEG_LARGE: "negative, E >= 11",
    **{NEG_MEDIUM - e: f"negative, E={e}" for e in range(DEC_MEDIUM_MAX_E + 1)},
    NEG_SMALL: "negative, E < 0", ZERO: "zero", POS_SMALL: "positive, E < 0",
    **{POS_MEDIUM + e: f"positive, E={e}" for e in range(DEC_MEDIUM_MAX_E + 1)},
    POS_LARGE: "positive, E >= 11", POS_INF: "Infinity", DEC_NAN: "NaN",
}


@attrs.frozen
class FieldLayout:
    """One bound schema field, as both implementations read it: its format, its Option
    layers and its direction (descending: write ascending, then invert every byte)."""

    fmt: TypeFormat
    layers: int
    descending: bool

    @classmethod
    def of(cls, field: Field) -> FieldLayout:
        fmt = FORMATS[field.type]
        if field.type == "bytes" and field.options.get("repr", "bytes") == "seq":
            fmt = SEQ_FORMAT
        return cls(fmt, layers_of(field), field.descending)

    @property
    def mask(self) -> int:
        """``0xff`` for a descending field, ``0`` for an ascending one."""
        return 0xFF if self.descending else 0x00

    def row(self) -> tuple[int, ...]:
        """The field as plain ints, the compiled module's plan (its ``FieldSpec`` order);
        a 128-bit field's range is the compiled module's own."""
        f = self.fmt
        wide = f.kind in (K_INT128, K_UINT128)
        return (f.kind, f.width, self.mask, self.layers, 0 if wide else f.lo,
                0 if wide else f.hi)
