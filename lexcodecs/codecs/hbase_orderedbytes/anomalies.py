"""The declared anomalies of ``hbase-orderedbytes``: where HBase's keys knowingly depart from
the values' own order, equality, prefix ranges or round trip (data read by the conformance harness,
``compare`` and the docs).

Theory of operation: the numeric encoding is lossy by design (31 significant digits, -0.0 is
zero, and a value just below 1 that rounds up to 1 keeps the small class with E = -1, next
to zero in the order); a descending BlobCopy can only end a key; and
``api="struct"`` drops trailing NULLs, so a NULL of a descending field loses its place at the
end of the order. Each quirk is an :class:`~lexcodecs.codec.Anomaly` with a witness and a
narrow explainer; which exist depends on the ``api`` option, so :func:`anomalies` builds the
tuple for one api.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from typing import Any, Final

from ..._bytes import invert
from ...codec import Anomaly
from ...errors import LexCodecError
from ...schema import KeySchema
from ...types import Float32
from .format import (
    API_STRUCT,
    ENCODING_BLOBCOPY,
    FIELD_KINDS,
    KIND_BLOB_VAR,
    NEG_SMALL,
    NUMERIC_KINDS,
    ONE_FROM_BELOW_M,
    POS_SMALL,
    U64_MASK,
)
from .reference_encode import encode_blob_var_body, encode_varint, field_writer

__all__ = ["anomalies"]


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        if x != x and y != y:
            return True
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    if (x is None) != (y is None) or (type(x) is not type(y) and not (
            isinstance(x, (int, float, decimal.Decimal))
            and isinstance(y, (int, float, decimal.Decimal)))):
        return False
    try:
        return bool(x == y)
    except Exception:
        return False


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if not _same(x, y):
            return i
    return None


def _kind(schema: KeySchema, i: int) -> int | None:
    f = schema.fields[i]
    encoding = f.options.get("encoding")
    return FIELD_KINDS.get((f.type, encoding if isinstance(encoding, str) else None))


def _field_bytes(schema: KeySchema, i: int, value: Any) -> bytes | None:
    f = schema.fields[i]
    kind = _kind(schema, i)
    if kind is None:
        return None
    try:
        return field_writer(kind, f.descending, f.type, True)(value)
    except LexCodecError:
        return None


def _numeric_same_key(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                      ) -> bool:
    """At the first field where a and b differ, a numeric field writes both the same way."""
    if schema is None:
        return False
    i = _first_difference(a, b)
    if i is None or i >= len(schema) or _kind(schema, i) not in NUMERIC_KINDS:
        return False
    x, y = _field_bytes(schema, i, a[i]), _field_bytes(schema, i, b[i])
    return x is not None and x == y


def _digits(v: Any) -> int:
    """Significant decimal digits of an int or Decimal (0 for anything else)."""
    if type(v) is int:
        return len(str(abs(v)).rstrip("0")) if v.bit_length() < 10_000 else 10_000
    if type(v) is decimal.Decimal and v.is_finite():
        return len("".join(map(str, v.as_tuple().digits)).strip("0"))
    return 0


def _rounded(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Keys equal (or a value lost) at the first difference, one value of 32+ digits."""
    if not _numeric_same_key(schema, a, b):
        return False
    i = _first_difference(a, b)
    assert i is not None
    return max(_digits(a[i]), _digits(b[i])) > 31


def _negative_zero(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if not _numeric_same_key(schema, a, b):
        return False
    i = _first_difference(a, b)
    assert i is not None
    return any(type(v) in (float, Float32) and v == 0 and math.copysign(1.0, v) < 0
               for v in (a[i], b[i]))


_ONE_FROM_BELOW_ASC: Final = (
    bytes((POS_SMALL,)) + invert(encode_varint(U64_MASK)) + bytes((ONE_FROM_BELOW_M,)),
    bytes((NEG_SMALL,)) + encode_varint(U64_MASK) + bytes((0xFF ^ ONE_FROM_BELOW_M,)))
#: HBase's key of +-(a value in [1 - 5E-32, 1)), rounded up to 1 with E = -1
#: (format.ONE_FROM_BELOW_E): 16 00x9 02, 14 ffx9 fd, and both inverted (descending)
ONE_FROM_BELOW_KEYS: Final = frozenset(_ONE_FROM_BELOW_ASC + tuple(map(invert,
                                                                      _ONE_FROM_BELOW_ASC)))


def _one_from_below(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                    ) -> bool:
    """At the first difference, a numeric field where one of the two values writes HBase's
    key of a value below 1 rounded up to 1 (:data:`ONE_FROM_BELOW_KEYS`)."""
    if schema is None:
        return False
    i = _first_difference(a, b)
    if i is None or i >= len(schema) or _kind(schema, i) not in NUMERIC_KINDS:
        return False
    return any(_field_bytes(schema, i, v) in ONE_FROM_BELOW_KEYS for v in (a[i], b[i]))


def _blob_var_order(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """At the first difference, a BlobVar field whose bytes' order disagrees with the values':
    the body's last byte has its top bit clear, so where one body ends and the other goes on
    (``40`` against ``bf``), the one that ends sorts first whatever its bits."""
    if schema is None:
        return False
    i = _first_difference(a, b)
    if i is None or i >= len(schema) or _kind(schema, i) != KIND_BLOB_VAR:
        return False
    x, y = a[i], b[i]
    if type(x) is not bytes or type(y) is not bytes:
        return False
    return (encode_blob_var_body(x) < encode_blob_var_body(y)) != (x < y)


def _desc_blob_copy_not_last(schema: KeySchema | None, a: tuple[Any, ...],
                             b: tuple[Any, ...]) -> bool:
    if schema is None:
        return False
    return any(f.descending and f.options.get("encoding") == ENCODING_BLOBCOPY
               for f in schema.fields[:-1])


def _blob_copy_second_to_last(schema: KeySchema | None, a: tuple[Any, ...],
                              b: tuple[Any, ...]) -> bool:
    if schema is None or len(schema) < 2:
        return False
    f = schema.fields[-2]
    return not f.descending and f.options.get("encoding") == ENCODING_BLOBCOPY


def _trailing_desc_null(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                        ) -> bool:
    """One of the two keys drops a trailing NULL of a descending field (Struct)."""
    if schema is None:
        return False
    for values in (a, b):
        for i in range(len(values) - 1, -1, -1):
            if values[i] is not None:
                break
            if i < len(schema) and schema.fields[i].descending:
                return True
    return False


#: the anomalies of every api
COMMON: Final[tuple[Anomaly, ...]] = (
    Anomaly("numeric-rounds-to-31-digits", "collision",
            "the numeric encoding keeps 31 significant digits (MathContext(31, HALF_UP)): "
            "10**31 and 10**31 + 1 have the same key 22 10 14 (1E+31)",
            witness=((10**31,), (10**31 + 1,)), schema="n:int", explains=_rounded),
    Anomaly("numeric-decodes-rounded", "round-trip",
            "a number of more than 31 significant digits decodes rounded: 10**31 + 1 gives "
            "10**31 back (as HBase's decoder does)",
            witness=((10**31 + 1,),), schema="n:int", explains=_rounded),
    Anomaly("numeric-rounds-up-to-one-sorts-next-to-zero", "order",
            "HBase picks the small class (|v| < 1) before rounding to 31 digits and takes E "
            "from the rounded value: a decimal in [1 - 5E-32, 1) rounds to 1 with E = -1, "
            "which putVaruint64 writes as the unsigned 2**64 - 1, so 0.99..9 (32 nines) is "
            "16 00x9 02 and sorts below every other positive number under 1, just above zero "
            "(0.5 is 16 ff 64); a negative one, 14 ffx9 fd, sorts above every other negative "
            "number above -1, just below zero. Against 1 (18 02) and -1 (12 fd) the order "
            "holds",
            witness=((decimal.Decimal("0.5"),), (decimal.Decimal("0." + "9" * 32),)),
            schema="d:decimal", explains=_one_from_below),
    Anomaly("numeric-rounds-up-to-one-decodes-as-one", "round-trip",
            "the same keys decode as 1 and -1, as HBase's decoder reads them, and 1 writes "
            "18 02: 0.99..9 (32 nines) -> 16 00x9 02 -> Decimal('1') -> 18 02",
            witness=((decimal.Decimal("0." + "9" * 32),),), schema="d:decimal",
            explains=_one_from_below),
    Anomaly("numeric-negative-zero-is-zero", "collision",
            "the numeric encoding writes -0.0 and +0.0 as the one zero 15 (the fixed float64 "
            "keeps them apart, -0.0 just below +0.0)",
            witness=((-0.0,), (0.0,)), schema="x:float64 encoding=numeric",
            explains=_negative_zero),
    Anomaly("numeric-negative-zero-decodes-as-zero", "round-trip",
            "-0.0 written with encoding=numeric decodes as +0.0",
            witness=((-0.0,),), schema="x:float64 encoding=numeric",
            explains=_negative_zero),
    Anomaly("numeric-rounding-orders-by-later-fields", "order",
            "the same rounding seen by order: two numbers equal at 31 digits write the same "
            "bytes, so the later fields decide: (10**31, 'b') sorts after (10**31 + 1, 'a')",
            witness=((10**31, "b"), (10**31 + 1, "a")), schema="n:int, s:string",
            explains=_rounded),
    Anomaly("numeric-negative-zero-orders-by-later-fields", "order",
            "the same zero seen by order: -0.0 and +0.0 write the same 15, so the later "
            "fields decide: (-0.0, 'b') sorts after (0.0, 'a')",
            witness=((-0.0, "b"), (0.0, "a")), schema="x:float64 encoding=numeric, s:string",
            explains=_negative_zero),
    Anomaly("blobvar-final-byte-sorts-first", "order",
            "BlobVar writes 7-bit groups as 80|g and the last one with its top bit clear, so "
            "where one value's groups end and the other's go on, the one that ends sorts "
            "first whatever its bits: b'\\x00\\xff' (37 80 bf 60) sorts after b'\\x01' (37 80 40)",
            witness=((b"\x00\xff",), (b"\x01",)), schema="b:bytes",
            explains=_blob_var_order),
    Anomaly("descending-blobcopy-ends-the-key", "round-trip",
            "a descending BlobCopy that is not the last field encodes (ordered, terminated) "
            "but does not decode: HBase's decodeBlobCopy takes every remaining byte but one, "
            "and lexcodecs refuses such keys as HBase fails on them",
            witness=((b"a", "x"),), schema="b:bytes desc encoding=blobcopy, s:string",
            explains=_desc_blob_copy_not_last),
    Anomaly("fixed-widths-never-compare", "interop",
            "the fixed-width types sort by header first: every int32 (2b) sorts below every "
            "int64 (2c), every fixed int below every fixed float, so keys of one column "
            "written with two widths do not compare by value"),
    Anomaly("fixed-float-negative-zero-below-zero", "interop",
            "the fixed float32/float64 keep IEEE order: -0.0 (31 7f ff ..) sorts just below "
            "+0.0 (31 80 00 ..) and every NaN is the canonical one, above +inf; the numeric "
            "encoding of the same doubles writes both zeros as 15 (declared above)"),
    Anomaly("jdk18-double-digits", "interop",
            "a double in the numeric encoding is written with the digits of "
            "Double.toString, which changed in JDK 19 (shortest repr, as here): HBase on JDK "
            "18 or earlier wrote other digits for about 0.5 % of doubles (1e23 -> 22 0c 13 "
            "c7 .. b4 instead of 22 0c 14)"),
)

#: the anomalies only ``api="struct"`` has
STRUCT: Final[tuple[Anomaly, ...]] = (
    Anomaly("struct-drops-trailing-descending-null", "order",
            "Struct drops trailing NULLs, so a NULL of a descending field at the end of a key "
            "writes nothing and sorts first instead of last: ('a', None) -> 34 61 00 < "
            "('a', 'x') -> 34 61 00 cb 87 ff over (string, string desc)",
            witness=(("a", "x"), ("a", None)), schema="s:string, t:string desc",
            explains=_trailing_desc_null),
    Anomaly("struct-trailing-descending-null-range", "prefix-leak",
            "the same quirk seen by prefix ranges: the range of a prefix ending in a NULL of "
            "a descending field starts at the key with that NULL dropped, so it holds keys of "
            "the field's other values: prefix ('a', None) holds ('a', 'x')",
            witness=(("a", None), ("a", "x")), schema="s:string, t:string desc",
            explains=_trailing_desc_null),
    Anomaly("struct-blobcopy-second-to-last", "round-trip",
            "Struct accepts a BlobCopy as the second-to-last field (its check is i < n - 2), "
            "but the BlobCopy then reads to the end of the key: (b'a', 'x') decodes as "
            "(b'a4x\\x00', None)",
            witness=((b"a", "x"),), schema="b:bytes encoding=blobcopy, s:string",
            explains=_blob_copy_second_to_last),
)


def anomalies(api: str) -> tuple[Anomaly, ...]:
    """The anomalies of the codec with this ``api`` option."""
    return COMMON + STRUCT if api == API_STRUCT else COMMON
