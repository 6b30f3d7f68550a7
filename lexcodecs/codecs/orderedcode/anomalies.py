"""The declared anomalies of ``orderedcode``: where its keys or its decoder (Go's ``Parse``)
knowingly depart from the values' own order and identity.

Theory of operation: one ``order`` anomaly (a descending trailing string, spec §2/§5) shown by
its witness pair; the rest are layout facts of the format and of Go's reader (``interop``:
no witness; the vectors' ``decoded`` and ``decode_only`` entries show the bytes).
"""

from __future__ import annotations

from typing import Any, Final

from ...codec import Anomaly
from ...schema import KeySchema
from .format import OPTION_TRAILING

__all__ = ["ANOMALIES"]


def _same(x: Any, y: Any) -> bool:
    return x is y or x == y or (x != x and y != y)  # NaN: the same place in the order


def _as_bytes(v: Any) -> bytes | None:
    if isinstance(v, str):
        try:
            return v.encode("utf-8")
        except UnicodeEncodeError:
            return None
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return None


def _desc_trailing_prefix(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                          ) -> bool:
    """The keys differ first in a descending trailing field, where one value is a proper
    prefix of the other."""
    if schema is None or not schema.fields:
        return False
    last = schema.fields[-1]
    n = len(schema.fields)
    if not (last.descending and last.options.get(OPTION_TRAILING, False)):
        return False
    if len(a) != n or len(b) != n or not all(_same(x, y) for x, y in zip(a[:-1], b[:-1])):
        return False
    x, y = _as_bytes(a[-1]), _as_bytes(b[-1])
    if x is None or y is None or x == y:
        return False
    return x.startswith(y) or y.startswith(x)


#: the anomalies orderedcode declares
ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("descending-trailing-string-sorts-before-extensions", "order",
            "a descending trailing string (Decr(TrailingString)) is its bytes inverted, with "
            "no terminator, so a string sorts before its own extensions although descending "
            "order puts it after them: 'ab' -> 9e 9d < 'abc' -> 9e 9d 9c",
            witness=(("abc",), ("ab",)), schema="s:string desc trailing=true",
            explains=_desc_trailing_prefix),
    Anomaly("negative-zero-is-zero", "interop",
            "float64 -0.0 is written as +0.0 (MinInt64 - MinInt64 = 0: key 80) and reads "
            "back as +0.0 (the vectors' 'decoded'); floats order as IEEE total order with "
            "-0.0 equal to zero"),
    Anomaly("parse-accepts-non-minimal-numbers", "interop",
            "decoding is Go's Parse, which does not check that an int64, uint64 or float64 "
            "is written in its shortest form: int64 c0 00 reads as 0 (80 is written), "
            "uint64 01 00 as 0 (00 is written), and a 10-byte int64 wraps modulo 2**64 "
            "(ff c0 ff ff ff ff ff ff ff ff reads as -1); such keys decode but do not "
            "re-encode to the same bytes (read from Parse's source: every 'decode_only' "
            "entry of the vectors is a minimal encoding)"),
    Anomaly("string-fields-read-utf8-only", "interop",
            "a Go string holds any bytes, but a lexcodecs string field reads UTF-8 text "
            "only: a key another writer filled with other bytes decodes through a bytes "
            "field (the same item on the wire)"),
)
