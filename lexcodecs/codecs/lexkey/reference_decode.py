"""The reference LexKey readers: readable Python, the executable spec of spec §6.

Theory of operation: a key is split by the schema's widths (:class:`.bound.BoundLexKey`);
each part's bytes are read by the reader of its field type, from :data:`FIELD_READERS`. A
reader refuses bytes no encoder writes (a bool other than 00/01, an integer outside its
type's range, float bits outside the literal rule's image, nanoseconds that are not whole
microseconds, invalid UTF-8) with a ``DecodeError`` at the part's first byte; the bound
reader adds the offset of the part and the field. ``inspect`` reads through the same readers.
"""

from __future__ import annotations

import datetime as _dt
import struct
import uuid
from collections.abc import Callable
from typing import Any, Final

from ...errors import DecodeError
from ...types import Float32
from .format import EPOCH, FIELD_FORMATS, GO_NAN32, GO_NAN64, int_class

__all__ = ["FIELD_READERS", "Reader", "field_reader"]

Reader = Callable[[bytes], Any]

_Q = struct.Struct(">Q")
_D = struct.Struct(">d")
_I = struct.Struct(">I")
_SIGN64: Final = 0x8000000000000000
_ALL64: Final = 0xFFFFFFFFFFFFFFFF


# -- field readers (spec §6): one part's bytes -> a value of the field's type ----------------


def _bad(reason: str, raw: bytes) -> DecodeError:
    return DecodeError(reason, offset=0, found=raw)


def _bool_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    def read(raw: bytes) -> Any:
        if raw not in (b"\x00", b"\x01"):
            raise _bad("not a bool", raw)
        return raw == b"\x01"
    return read


def _int_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    cls = int_class(field_type)
    width = FIELD_FORMATS[field_type].width(native)
    assert width is not None
    bias = 1 << (8 * width - 1) if cls.signed else 0

    def read(raw: bytes) -> Any:
        v = int.from_bytes(raw, "big") - bias
        if not cls.min <= v <= cls.max:
            raise _bad(f"{v} is out of range for {cls.type_name}", raw)
        return v
    return read


def _float64_value(raw: bytes, go_nan: bool) -> float:
    """The literal rule read back on 64 bits (spec §6)."""
    if go_nan and raw == GO_NAN64:
        return float("nan")
    k = _Q.unpack(raw)[0]
    if k == 0:
        return -0.0
    if 0x000FFFFFFFFFFFFF <= k <= 0x7FFFFFFFFFFFFFFE:
        return float(_D.unpack(_Q.pack(k ^ _ALL64))[0])
    if _SIGN64 <= k <= 0xFFF0000000000000:
        return float(_D.unpack(_Q.pack(k ^ _SIGN64))[0])
    raise _bad("no encoder writes these float bits", raw)


def _float64_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    return lambda raw: _float64_value(raw, go_nan)


def _float32_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    if not native:  # lexkey: a float64 that must be a binary32 value
        def read_wide(raw: bytes) -> Any:
            x = _float64_value(raw, go_nan)
            if not Float32.is_exact(x):
                raise _bad("not a binary32 value", _Q.pack(0) if x != x else _D.pack(x))
            return Float32(x)
        return read_wide

    def read(raw: bytes) -> Any:  # lexkey-legacy: the literal rule on 32 bits
        if go_nan and raw == GO_NAN32:
            return Float32(float("nan"))
        k = _I.unpack(raw)[0]
        if k == 0:
            return Float32.from_bits(0x80000000)
        if 0x007FFFFF <= k <= 0x7FFFFFFE:
            return Float32.from_bits(k ^ 0xFFFFFFFF)
        if 0x80000000 <= k <= 0xFF800000:
            return Float32.from_bits(k ^ 0x80000000)
        raise _bad("no encoder writes these float bits", raw)
    return read


def _ns_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    instant = field_type == "timestamp"

    def read(raw: bytes) -> Any:
        ns = int.from_bytes(raw, "big") - (1 << 63)
        if ns % 1000:
            raise _bad(f"{ns} ns is not a whole number of microseconds", raw)
        delta = _dt.timedelta(microseconds=ns // 1000)
        return EPOCH + delta if instant else delta
    return read


def _uuid_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    return lambda raw: uuid.UUID(bytes=raw)


def _string_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    def read(raw: bytes) -> Any:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # the offset is the field's first byte (spec §6); the bad bytes are shown
            raise DecodeError(f"invalid UTF-8 at byte {exc.start} of the string "
                              f"({exc.reason})", offset=0,
                              found=raw[exc.start:exc.end]) from None
    return read


def _bytes_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    return bytes


#: field type -> factory(field type, native, go_nan) -> reader of one part's bytes
FIELD_READERS: Final[dict[str, Callable[[str, bool, bool], Reader]]] = {
    "bool": _bool_reader,
    **{t: _int_reader for t in ("int8", "int16", "int32", "int64", "int", "uint8", "uint16",
                                "uint32", "uint64")},
    "float64": _float64_reader,
    "float32": _float32_reader,
    "timestamp": _ns_reader,
    "duration": _ns_reader,
    "uuid": _uuid_reader,
    "string": _string_reader,
    "bytes": _bytes_reader,
}


def field_reader(field_type: str, native: bool, go_nan: bool) -> Reader:
    """The reader of one *field_type* part in this mode."""
    return FIELD_READERS[field_type](field_type, native, go_nan)
