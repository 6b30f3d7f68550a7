"""The ``skv`` format: K2 SKV type-tagged keys, as constants and tables.

Theory of operation: a key is its fields' encodings laid end to end, with no separators.
Every non-NULL field is ``TYPE PAYLOAD 00 01``: one type byte (:data:`TYPE_BYTES`), the
payload, and the terminator ``00 01``. Payloads (spec §4):

* STRING ``01`` (``string`` and ``bytes`` fields): the raw bytes with every ``00`` written as
  ``00 ff``, so the first ``00 01`` ends the field and a shorter value sorts first;
* signed ints ``02``..``04``: a sign byte, then a fixed-width big-endian payload, **not
  escaped** (the rule is :class:`SignedRule`, written once here for both implementations);
* unsigned ints ``05``..``07``: big-endian in 2, 4 or 8 bytes; BOOL ``0a``: ``00`` or ``01``;
* FLOAT ``08`` / DOUBLE ``09`` (lexcodecs extension, K2 cannot read them): the IEEE order
  transform; NaN is refused and -0.0 is kept just below +0.0.

A NULL is the marker ``00 00 01`` (NULLs first) or ``ff 00 01`` (NULLs last), per field. A
descending field (lexcodecs extension) is the ones' complement of the whole ascending field,
type byte and terminator included; the NULL markers are never inverted, so ``nulls`` always
names the place in the final key order. The first byte of a field therefore says everything:
``00``/``ff`` NULL, ``01``..``0a`` an ascending type, ``f5``..``fe`` a descending one.

Every field encoding is prefix-free within its type, so byte order of keys is field-by-field
value order, a key is never a prefix of another key of its schema, and the prefix range of a
prefix P is exactly ``[P, strinc(P))`` (``[b"", ff 00 02)`` for the empty prefix).

Decoding (spec §9) is lexcodecs's own (K2 has none) and strict: fixed widths are read by type
(a payload may hold ``00 01``), every byte is checked, and every malformed key is a
:class:`~lexcodecs.errors.DecodeError` with the offset the spec gives. Keys decode without a
schema (STRING as ``bytes``, a NULL as ``None`` whose type is lost); a schema adds ``str``
versus ``bytes``, checks types, directions and NULL placements, and fixes the field count.

How the package is laid out: this module is the format as data. ``reference_encode.py``
writes it and ``reference_decode.py`` reads it in plain Python (the executable spec, and the
only code that words an error); ``_compiled.pyx`` does the same work in Cython from the same
rows (:meth:`FieldLayout.row`) and hands anything unusual to the reference code; ``codec.py``
binds a schema into one :class:`FieldLayout` per field and gives both implementations the same
layouts.
"""

from __future__ import annotations

from typing import Final

import attrs

from ...schema import Field

NAME: Final = "skv"

# -- type bytes (spec §3) -------------------------------------------------------------------

STRING, INT16, INT32, INT64 = 0x01, 0x02, 0x03, 0x04
UINT16, UINT32, UINT64 = 0x05, 0x06, 0x07
FLOAT, DOUBLE, BOOL = 0x08, 0x09, 0x0A
#: the first byte of a NULL field: NULLs first, NULLs last
NULL_FIRST_BYTE, NULL_LAST_BYTE = 0x00, 0xFF
#: the sign byte of a signed int
SIGN_NEGATIVE, SIGN_NONNEGATIVE = 0x02, 0x03

TERMINATOR: Final = b"\x00\x01"
NULL_FIRST: Final = b"\x00\x00\x01"
NULL_LAST: Final = b"\xff\x00\x01"
#: stop of the empty prefix's range: above every key, including a leading nulls-last marker
EMPTY_PREFIX_STOP: Final = b"\xff\x00\x02"

#: the ``key`` field option: which part of the K2 key a field belongs to (spec §7)
KEY_PARTITION, KEY_RANGE = "partition", "range"


# -- the signed-integer rule (spec §4), once ------------------------------------------------


@attrs.frozen
class SignedRule:
    """K2's signed int of N bits: sign byte ``02`` (negative) or ``03``, then a payload of
    N/8 bytes: ``v`` for ``v >= 0``, ``2**N - 1 + v`` for ``v < 0`` (the ones' complement of
    ``abs(v)``, which stays exact at the minimum). So both signs share payload bytes, and the
    sign byte alone orders negatives first.

    Decoding is strict, so a key has one reading: a non-negative payload is at most
    ``nonneg_max``, a negative one lies in ``neg_min..neg_max`` (``2**N - 1`` would be -0).
    """

    width: int
    bias: int           # added to a negative value: 2**N - 1
    nonneg_max: int     # 2**(N-1) - 1, the largest value
    neg_min: int        # the payload of the smallest value, -2**(N-1)
    neg_max: int        # the payload of -1

    @classmethod
    def of_width(cls, width: int) -> SignedRule:
        bits = 8 * width
        return cls(width, (1 << bits) - 1, (1 << (bits - 1)) - 1, (1 << (bits - 1)) - 1,
                   (1 << bits) - 2)

    def sign_and_payload(self, value: int) -> tuple[int, int]:
        """The sign byte and payload of *value* (already range-checked)."""
        if value < 0:
            return SIGN_NEGATIVE, self.bias + value
        return SIGN_NONNEGATIVE, value

    def value(self, sign: int, payload: int) -> int | None:
        """The value of a sign byte and payload; ``None`` when they are not canonical."""
        if sign == SIGN_NONNEGATIVE and payload <= self.nonneg_max:
            return payload
        if sign == SIGN_NEGATIVE and self.neg_min <= payload <= self.neg_max:
            return payload - self.bias
        return None


# -- per field type -------------------------------------------------------------------------


@attrs.frozen
class TypeFormat:
    """How one lexcodecs field type is written: its K2 type byte, name and payload.

    ``width`` is the fixed payload width in bytes (after the sign byte of a signed int), or
    ``0`` for STRING's escaped payload; ``lo..hi`` is an integer type's value range.
    """

    field_type: str
    type_byte: int
    k2_name: str
    width: int = 0
    lo: int = 0
    hi: int = 0
    signed: SignedRule | None = None


def _signed(name: str, byte: int, k2: str, width: int) -> TypeFormat:
    half = 1 << (8 * width - 1)
    return TypeFormat(name, byte, k2, width, -half, half - 1, SignedRule.of_width(width))


def _unsigned(name: str, byte: int, k2: str, width: int) -> TypeFormat:
    return TypeFormat(name, byte, k2, width, 0, (1 << (8 * width)) - 1)


#: lexcodecs field type -> its format
FORMATS: Final[dict[str, TypeFormat]] = {f.field_type: f for f in (
    TypeFormat("string", STRING, "STRING"),
    TypeFormat("bytes", STRING, "STRING"),
    _signed("int16", INT16, "INT16T", 2),
    _signed("int32", INT32, "INT32T", 4),
    _signed("int64", INT64, "INT64T", 8),
    _unsigned("uint16", UINT16, "UINT16T", 2),
    _unsigned("uint32", UINT32, "UINT32T", 4),
    _unsigned("uint64", UINT64, "UINT64T", 8),
    TypeFormat("float32", FLOAT, "FLOAT", 4),
    TypeFormat("float64", DOUBLE, "DOUBLE", 8),
    TypeFormat("bool", BOOL, "BOOL", 1),
)}

#: type byte -> the format a key is read as without a schema (STRING as bytes)
FORMAT_OF_BYTE: Final[dict[int, TypeFormat]] = {
    f.type_byte: f for f in FORMATS.values() if f.field_type != "string"}

#: lexcodecs field type -> K2 type byte (ascending)
TYPE_BYTES: Final[dict[str, int]] = {t: f.type_byte for t, f in FORMATS.items()}
#: lexcodecs field type -> type byte of a descending field (the ones' complement)
DESC_TYPE_BYTES: Final[dict[str, int]] = {t: b ^ 0xFF for t, b in TYPE_BYTES.items()}
#: K2 name of each ascending type byte, for messages
TYPE_NAMES: Final[dict[int, str]] = {b: f.k2_name for b, f in FORMAT_OF_BYTE.items()}


# -- per schema field -----------------------------------------------------------------------


@attrs.frozen
class FieldLayout:
    """One bound schema field, as both implementations read it.

    Descending is one strategy everywhere: write the field ascending, then invert it (the
    readers see every byte through ``mask``). NULL placement is one byte: the marker's first.
    """

    fmt: TypeFormat
    descending: bool
    null_byte: int
    text: bool  # a string field (STRING read back as str)

    @classmethod
    def of(cls, field: Field) -> FieldLayout:
        null = NULL_LAST_BYTE if field.effective_nulls == "last" else NULL_FIRST_BYTE
        return cls(FORMATS[field.type], field.descending, null, field.type == "string")

    @property
    def mask(self) -> int:
        """``0xff`` for a descending field, ``0`` for an ascending one."""
        return 0xFF if self.descending else 0x00

    @property
    def first_byte(self) -> int:
        """The first byte of a non-NULL value of this field."""
        return self.fmt.type_byte ^ self.mask

    @property
    def null_marker(self) -> bytes:
        return NULL_LAST if self.null_byte == NULL_LAST_BYTE else NULL_FIRST

    def row(self) -> tuple[int, ...]:
        """The field as plain ints, the compiled module's plan (its ``FieldSpec`` order)."""
        f = self.fmt
        rule = f.signed or SignedRule(0, 0, 0, 0, 0)
        return (f.type_byte, int(self.text), self.mask, self.null_byte, f.width, f.lo, f.hi,
                rule.bias, rule.nonneg_max, rule.neg_min, rule.neg_max)
