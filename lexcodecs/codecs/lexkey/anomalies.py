"""LexKey's declared anomalies: where its byte order knowingly departs from the value order.

Theory of operation: LexKey writes no tags, lengths or escaping, so some different values share
a key, a 00 inside a string sorts like a separator, NULL is a short part, -0.0 sorts below
-inf, a prefix range takes in its siblings, and (without a schema) kinds and widths do not
compare. Each is declared here as data, with a witness the conformance harness checks and an
``explains`` predicate, kept as narrow as the anomaly, that tells a disagreement the harness
finds from a bug. The codec picks the tuples that apply to it (:mod:`.codec`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema
from ...types import END, Int16, Int32, UInt64

__all__ = ["ANOMALIES", "GO_NAN_ANOMALIES", "LEGACY_ANOMALIES"]

_D = struct.Struct(">d")


def _same(x: Any, y: Any) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        return _D.pack(x) == _D.pack(y)
    return bool(x == y)


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if not _same(x, y):
            return i
    return None


def _separator_like(x: Any) -> bool:
    """A part that can be read as (or across) a separator: NULL (a lone 00, shorter than
    any fixed-width part) or raw data holding 00. These are what break LexKey's order."""
    if x is None or x is END:
        return True
    if isinstance(x, str):
        return "\x00" in x
    if isinstance(x, (bytes, bytearray)):
        return b"\x00" in x
    return False


def _ambiguous(x: Any) -> bool:
    """A part that can share its bytes with another value's: the separator-like ones, and
    the other values written as 00 or as nothing (False, '', b'')."""
    return _separator_like(x) or x is False or (isinstance(x, (str, bytes)) and len(x) == 0)


def _negative_zero(x: Any) -> bool:
    return isinstance(x, float) and x == 0.0 and struct.pack(">d", x)[0] & 0x80 != 0


def _explains_collision(schema: KeySchema | None, a: tuple[Any, ...],
                        b: tuple[Any, ...]) -> bool:
    i = _first_difference(a, b)
    return i is not None and (_ambiguous(a[i]) or _ambiguous(b[i]))


def _at_first_difference(test: Callable[[Any], bool]) -> Callable[..., bool]:
    """An explainer: the pair's first differing part passes *test* on either side."""

    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        i = _first_difference(a, b)
        return i is not None and (test(a[i]) or test(b[i]))

    return explains


def _raw_with_nul(x: Any) -> bool:
    if isinstance(x, str):
        return "\x00" in x
    return isinstance(x, (bytes, bytearray)) and b"\x00" in x


def _explains_leak(schema: KeySchema | None, prefix: tuple[Any, ...],
                   values: tuple[Any, ...]) -> bool:
    i = _first_difference(prefix, values)
    if i is None:
        return False
    p, v = prefix[i], values[i]
    if _ambiguous(p) or _ambiguous(v):
        return True
    # a raw string or bytes part that merely starts with the prefix's part
    if isinstance(p, str) and isinstance(v, str):
        return v.startswith(p)
    return isinstance(p, bytes) and isinstance(v, bytes) and v.startswith(p)


ANOMALIES: tuple[Anomaly, ...] = (
    Anomaly("not-injective", "collision",
            "parts are not escaped or tagged: None, False, '' and '\\x00' all give 00, and "
            "('a\\x00', 'b') gives the same key as ('a', '\\x00b')",
            witness=(("a\x00", "b"), ("a", "\x00b")), schema="s:string, t:string",
            explains=_explains_collision),
    Anomaly("nul-sorts-as-separator", "order",
            "a 00 inside a string, or a NULL/False part (00), compares like the separator: "
            "('a\\x00\\x01', 'a') sorts below ('a', 'b')... but above as values",
            witness=(("a", "b"), ("a\x00\x01", "a")), schema="s:string, t:string",
            explains=_at_first_difference(_raw_with_nul)),
    Anomaly("null-is-a-short-part", "order",
            "NULL is one 00 byte, shorter than a fixed-width part, so what follows it "
            "decides: (None, True) sorts above (Int64.min, True)",
            witness=((None, True), (-(2**63), True)), schema="n:int64, b:bool",
            explains=_at_first_difference(lambda x: x is None or x is END)),
    Anomaly("negative-zero-below-inf", "order",
            "-0.0 gets only its sign bit flipped (00..00) and sorts below -inf",
            witness=((float("-inf"),), (-0.0,)), schema="x:float64",
            explains=_at_first_difference(_negative_zero)),
    Anomaly("null-does-not-round-trip", "round-trip",
            "NULL is written 00 with no tag: it decodes as False, '\\x00', or not at all (a "
            "fixed-width field then has the wrong length)",
            witness=((None, True),), schema="n:int64, b:bool",
            explains=lambda schema, original, decoded: any(
                v is None or v is END for v in original)),
    Anomaly("prefix-leak", "prefix-leak",
            "prefix_range(('tenant', 'users')) holds ('tenant', 'usersX', 1)",
            witness=(("tenant", "users"), ("tenant", "usersX", 1)),
            schema="t:string, u:string, n:int64", explains=_explains_leak),
)


#: kinds and widths, for keys built without a schema (a schema fixes both per field)
ANOMALIES += (
    Anomaly("kinds-do-not-compare", "order",
            "signed, unsigned and float parts are not comparable: UInt64(123) sorts below -1",
            witness=((-1,), (UInt64(123),))),
)
LEGACY_ANOMALIES: Final = (
    Anomaly("widths-do-not-compare", "order",
            "native widths are not comparable: Int32(1000) (800003e8) sorts below Int16(123) "
            "(807b)", witness=((Int16(123),), (Int32(1000),))),
)
GO_NAN_ANOMALIES: Final = (
    Anomaly("go-nan-among-negatives", "order",
            "under nan='go' every NaN is 7ff8000000000001, the key of a tiny negative number: "
            "NaN sorts between -1e-300 and -5e-324, not above +inf",
            witness=((float("inf"),), (float("nan"),))),
    Anomaly("go-nan-collides", "collision",
            "under nan='go' NaN shares its key with -1.1125369292535997e-308 (bits "
            "8007fffffffffffe), which then decodes as NaN",
            witness=((float("nan"),), (-1.1125369292535997e-308,))),
)
