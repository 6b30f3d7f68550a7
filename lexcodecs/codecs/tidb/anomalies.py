"""The declared anomalies of ``tidb``: where its keys knowingly depart from the values' order.

Theory of operation: TiDB's ``EncodeFloat`` sets the sign bit when ``x >= 0`` and inverts
every bit otherwise, so -0.0 is written as +0.0 and a NaN whose sign bit is clear (``x >= 0``
is false for it) is inverted into the bytes of a positive subnormal or of 0.0 (spec §5). A
decimal without a field's (precision, frac) is written in its own shape, header first, so
such decimals sort by shape before value (spec §6, §11). Each is declared here as data, with
a witness the conformance harness checks and an ``explains`` predicate as narrow as the
anomaly; the layout facts that break no order are ``interop`` notes.
"""

from __future__ import annotations

import decimal
import math
import struct
from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema

__all__ = ["ANOMALIES"]

_D: Final = struct.Struct(">d")
#: a NaN with the sign bit clear, and the positive subnormal whose key it shares
POSITIVE_NAN: Final = _D.unpack(bytes.fromhex("7ff8000000000000"))[0]
SUBNORMAL: Final = _D.unpack(bytes.fromhex("0007ffffffffffff"))[0]


def _negative_zero(x: Any) -> bool:
    return isinstance(x, float) and x == 0.0 and _D.pack(x)[0] & 0x80 != 0


def _positive_nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x) and _D.pack(x)[0] & 0x80 == 0


def _on_either_side(test: Any) -> Any:
    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return any(test(v) for v in (*a, *b))
    return explains


def _shape(d: decimal.Decimal) -> tuple[int, int]:
    """The (precision, frac) a decimal is written in without a field's (spec §6)."""
    _, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    frac = max(0, -exponent)
    whole = len("".join(map(str, digits)).lstrip("0")) - frac + max(0, exponent)
    return max(1, max(0, whole) + frac), frac


def _unfixed_decimals_differ_in_shape(schema: KeySchema | None, a: tuple[Any, ...],
                                      b: tuple[Any, ...]) -> bool:
    """At some position both sides hold finite Decimals of different shapes, in a decimal
    field without precision/frac (or without a schema)."""
    for i, (x, y) in enumerate(zip(a, b)):
        if type(x) is not decimal.Decimal or type(y) is not decimal.Decimal:
            continue
        if not (x.is_finite() and y.is_finite()):
            continue
        if schema is not None and (i >= len(schema.fields)
                                   or "precision" in schema.fields[i].options):
            continue
        if _shape(x) != _shape(y):
            return True
    return False


ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("negative-zero", "collision",
            "-0.0 is written as +0.0 (05 80 00 00 00 00 00 00 00): EncodeFloat sets the sign "
            "bit of every x >= 0", witness=((-0.0,), (0.0,)), schema="x:float64",
            explains=_on_either_side(_negative_zero)),
    Anomaly("negative-zero-order", "order",
            "-0.0 is below +0.0 in the natural order, but both have the same key",
            witness=((-0.0,), (0.0,)), schema="x:float64",
            explains=_on_either_side(_negative_zero)),
    Anomaly("negative-zero-prefix-leak", "prefix-leak",
            "the key of (-0.0, 1.0) lies in the prefix range of (0.0,): -0.0 is written as 0.0",
            witness=((0.0,), (-0.0, 1.0)), schema="x:float64, y:float64",
            explains=_on_either_side(_negative_zero)),
    Anomaly("negative-zero-decodes-as-zero", "round-trip",
            "-0.0 decodes as 0.0 (TiDB's decoder gives 0 too)",
            witness=((-0.0,),), schema="x:float64", explains=_on_either_side(_negative_zero)),
    Anomaly("positive-nan-is-subnormal", "collision",
            "a NaN with the sign bit clear fails EncodeFloat's x >= 0, so all its bits are "
            "inverted: NaN 7ff8000000000000 and the subnormal 0007ffffffffffff are both "
            "05 80 07 ff ff ff ff ff ff (NaN 7fffffffffffffff is 0.0's key)",
            witness=((POSITIVE_NAN,), (SUBNORMAL,)), schema="x:float64",
            explains=_on_either_side(_positive_nan)),
    Anomaly("positive-nan-order", "order",
            "a positive-sign NaN sorts among the positive subnormals (or with 0.0), below "
            "+inf, where IEEE total order puts it above +inf",
            witness=((math.inf,), (POSITIVE_NAN,)), schema="x:float64",
            explains=_on_either_side(_positive_nan)),
    Anomaly("positive-nan-prefix-leak", "prefix-leak",
            "the key of (NaN, 1.0) lies in the prefix range of the subnormal it collides with",
            witness=((SUBNORMAL,), (POSITIVE_NAN, 1.0)), schema="x:float64, y:float64",
            explains=_on_either_side(_positive_nan)),
    Anomaly("positive-nan-decodes-as-subnormal", "round-trip",
            "a positive-sign NaN decodes as the subnormal (or 0.0) whose bytes it has (in a "
            "float32 field, as no float32 value: refused)",
            witness=((POSITIVE_NAN,),), schema="x:float64",
            explains=_on_either_side(_positive_nan)),
    Anomaly("decimal-header-order", "order",
            "a decimal field without precision/frac writes each value in its own shape, the "
            "(precision, frac) header first, so the shape sorts before the value: 1 "
            "(06 01 00 81) < 0.5 (06 01 01 85), 10 (06 02 00 8a) < 9.5 (06 02 01 89 05); "
            "and 1.5, 1.50 have two keys. Give the field precision and frac for numeric order",
            witness=((decimal.Decimal("0.5"),), (decimal.Decimal("1"),)), schema="d:decimal",
            explains=_unfixed_decimals_differ_in_shape),
    Anomaly("decimal-scale", "interop",
            "a decimal decodes at its header's scale: 1.5 in DECIMAL(5,2) decodes as "
            "Decimal('1.50') (the same number; TiDB gives it back so), -0 as 0"),
    Anomaly("raw-bytes-strings", "interop",
            "strings are their raw UTF-8 bytes (binary collation); TiDB with new collations "
            "(default since 6.0) writes a non-binary column's collation sort key instead, and "
            "utf8mb4_bin drops trailing spaces: lexcodecs reads and writes the binary form"),
    Anomaly("one-kind-per-column", "interop",
            "across kinds the flag decides: every uint64 (04) sorts after every int64 (03), "
            "and a timestamp shares uint64's flag; a column holds one kind in TiDB"),
    Anomaly("strict-decoding", "interop",
            "TiDB's decoder panics on a decimal body shorter than its header and accepts "
            "overlong digit words; lexcodecs refuses both with DecodeError. It reads the value "
            "encodings (08 varint, 09 uvarint, 02 compact bytes) as TiDB does, and any decimal "
            "header (the header, not the field, fixes precision and frac)"),
)
