"""LexKey's byte format: its constants and per-type tables (spec: specs/lexkey.md).

Theory of operation: a key is its parts' encodings joined by a single ``00``, with nothing
after the last part: no type tags, no lengths, no escaping. Numbers are fixed-width and
order-preserving (sign bit flipped; floats by the Go reference's literal rule); strings and
bytes are raw. That makes keys short and comparable without decoding, at a price the
format's own spec admits and :mod:`.anomalies` declares: different values can share a key,
prefix ranges leak into siblings, -0.0 sorts below -inf, and kinds and widths do not compare
with each other.

``lexkey`` writes every integer at 64 bits (the reference since 2025-10-01); ``lexkey-legacy``
writes each typed integer (and a ``Float32``) at its native width. Decoding needs a schema
with at most one variable-length field, because nothing else in a key says where a string
ends: the fixed parts' widths, summed with the separators, leave the variable field's length.

Every field type has a *kind* (how its bytes are made) and a width per mode. The reference
code (:mod:`.reference_encode`, :mod:`.reference_decode`, :mod:`.bound`) and the compiled
module (``_compiled.pyx``) both read this table; the kinds are small ints so that a bound plan
is a C array the compiled code switches on.
"""

from __future__ import annotations

import datetime as _dt
from typing import Final, NamedTuple

from ...types import INT_TYPES, Int64, TypedInt

__all__ = [
    "EPOCH",
    "FIELD_FORMATS",
    "GO_NAN32",
    "GO_NAN64",
    "INT64_MAX",
    "INT64_MIN",
    "KIND_BOOL",
    "KIND_BYTES",
    "KIND_DURATION",
    "KIND_FLOAT32",
    "KIND_FLOAT64",
    "KIND_SIGNED",
    "KIND_STRING",
    "KIND_TIMESTAMP",
    "KIND_UNSIGNED",
    "KIND_UUID",
    "SEP",
    "US_MAX",
    "US_MIN",
    "VARIABLE",
    "WIDTHS",
    "FieldFormat",
    "int_class",
]

#: the one separator between parts; nothing follows the last part
SEP: Final = b"\x00"

#: instants are nanoseconds since this moment
EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

#: whole microseconds whose nanoseconds fit an int64 (timestamps and durations)
US_MIN: Final = -(2**63 // 1000)
US_MAX: Final = (2**63 - 1) // 1000

#: the Go reference's NaN, written without the order transform (spec §3.4; option nan='go')
GO_NAN64: Final = bytes.fromhex("7ff8000000000001")
GO_NAN32: Final = bytes.fromhex("7fc00001")

# -- kinds: how a field's bytes are made --------------------------------------------------------

KIND_BOOL: Final = 1       # 00 or 01
KIND_SIGNED: Final = 2     # two's complement, sign bit flipped, big-endian
KIND_UNSIGNED: Final = 3   # big-endian
KIND_FLOAT32: Final = 4    # binary32 by the literal rule (legacy), or widened to float64
KIND_FLOAT64: Final = 5    # binary64 by the literal rule: x < 0 inverted, else sign flipped
KIND_TIMESTAMP: Final = 6  # int64 ns since EPOCH, as KIND_SIGNED
KIND_DURATION: Final = 7   # int64 ns, as KIND_SIGNED
KIND_UUID: Final = 8       # the 16 bytes
KIND_STRING: Final = 9     # UTF-8, raw (variable length)
KIND_BYTES: Final = 10     # raw (variable length)


class FieldFormat(NamedTuple):
    """How one field type is written: its kind and its width in each mode (``None``:
    variable)."""

    kind: int
    canonical: int | None
    legacy: int | None

    def width(self, native: bool) -> int | None:
        return self.legacy if native else self.canonical


#: field type -> its format (spec §7)
FIELD_FORMATS: Final[dict[str, FieldFormat]] = {
    "bool": FieldFormat(KIND_BOOL, 1, 1),
    "int8": FieldFormat(KIND_SIGNED, 8, 1),
    "uint8": FieldFormat(KIND_UNSIGNED, 8, 1),
    "int16": FieldFormat(KIND_SIGNED, 8, 2),
    "uint16": FieldFormat(KIND_UNSIGNED, 8, 2),
    "int32": FieldFormat(KIND_SIGNED, 8, 4),
    "uint32": FieldFormat(KIND_UNSIGNED, 8, 4),
    "float32": FieldFormat(KIND_FLOAT32, 8, 4),
    "int64": FieldFormat(KIND_SIGNED, 8, 8),
    "uint64": FieldFormat(KIND_UNSIGNED, 8, 8),
    "int": FieldFormat(KIND_SIGNED, 8, 8),
    "float64": FieldFormat(KIND_FLOAT64, 8, 8),
    "timestamp": FieldFormat(KIND_TIMESTAMP, 8, 8),
    "duration": FieldFormat(KIND_DURATION, 8, 8),
    "uuid": FieldFormat(KIND_UUID, 16, 16),
    "string": FieldFormat(KIND_STRING, None, None),
    "bytes": FieldFormat(KIND_BYTES, None, None),
}

#: bytes of each fixed-width field type: (canonical, legacy)
WIDTHS: Final[dict[str, tuple[int, int]]] = {
    t: (f.canonical, f.legacy) for t, f in FIELD_FORMATS.items()
    if f.canonical is not None and f.legacy is not None
}

#: the field types with no width: a key holds at most one of them if it is to decode
VARIABLE: Final = frozenset(t for t, f in FIELD_FORMATS.items() if f.canonical is None)


def int_class(field_type: str) -> type[TypedInt]:
    """The range of an integer field type (``int`` is int64)."""
    return INT_TYPES.get(field_type, Int64)
