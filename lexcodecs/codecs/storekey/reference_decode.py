"""The reference ``storekey`` decoder: readable Python, the executable spec of reading.

Theory of operation: one reader per field kind (:data:`READERS`) reads a present value as
``storekey::deserialize`` does (spec §6), lenient where it is: any non-zero bool byte is true,
a char field takes the first character of a longer string, a sequence ends at its ``01`` or at
the end of the key. :func:`field_reader` reads the field's Option tags first. Every reader is
linear in what it reads (one search for a string's ``00`` or a sequence's ``01``), and refuses
what the crate refuses with a :class:`~lexcodecs.errors.DecodeError` carrying the offset and the
crate's own words. Writing is :mod:`.reference_encode`.

This is the only code that words a decoding error. Every reader takes an optional *parts* list:
when given, it appends a :class:`~lexcodecs.inspection.Part` for each span it reads, so
``inspect`` is a decode that annotates as it goes (``explain.py``), not a parser of its own.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final, Protocol

from ..._bytes import unorder_bits
from ...errors import DecodeError
from ...inspection import Part
from ...types import Float32
from .._serde import option_value
from .format import (
    KIND_BOOL,
    KIND_BYTES,
    KIND_CHAR,
    KIND_FLOAT32,
    KIND_FLOAT64,
    KIND_INT,
    KIND_SEQ,
    KIND_STRING,
    KIND_UINT,
    LENGTH_WIDTH,
    OPTION_TAGS,
    SEQ_END,
    STRING_END,
    FieldCode,
)

Parts = list[Part] | None


class Reader(Protocol):
    """A field's decoder: (value, offset after the field); *parts* collects spans."""

    def __call__(self, key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]: ...


_D: Final = struct.Struct(">d")
_Q: Final = struct.Struct(">Q")
_END: Final = bytes((STRING_END,))
_SEQ_END: Final = bytes((SEQ_END,))

# the crate's words for what it refuses (its Error's Display text)
EOF_FIXED: Final = "failed to fill whole buffer"
EOF_STRING: Final = "Encountered unexpected EOF when deserializing UTF8"
BAD_UTF8: Final = "Attempted to deserialize invalid UTF8"
EOF_BYTES: Final = "unexpected end of file"


def _fixed(key: bytes, pos: int, width: int, what: str) -> bytes:
    """The *width* bytes of a fixed-width value at *pos* (byteorder's ``read_exact``)."""
    end = pos + width
    if end > len(key):
        raise DecodeError(f"{EOF_FIXED}: the key ends inside {what}", offset=pos,
                          found=key[pos:], expected=f"{width} byte(s)")
    return key[pos:end]


# -- readers: storekey::deserialize (spec §6) -------------------------------------------------


def _bool_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[bool, int]:
        b = _fixed(key, pos, 1, "a bool")[0]
        if parts is not None:
            parts.append(Part(pos, pos + 1, "bool", "true" if b else "false"))
        return b != 0, pos + 1  # any non-zero byte is true, as the crate reads it
    return read


def _uint_reader(code: FieldCode) -> Reader:
    width = code.width

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
        data = _fixed(key, pos, width, f"a {8 * width}-bit integer")
        if parts is not None:
            parts.append(Part(pos, pos + width, "uint", "big-endian"))
        return int.from_bytes(data, "big"), pos + width
    return read


def _int_reader(code: FieldCode) -> Reader:
    width, bias = code.width, 1 << (8 * code.width - 1)

    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[int, int]:
        data = _fixed(key, pos, width, f"a {8 * width}-bit integer")
        if parts is not None:
            parts.append(Part(pos, pos + width, "int", "big-endian, sign bit flipped"))
        return int.from_bytes(data, "big") - bias, pos + width
    return read


def _float32_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[Float32, int]:
        bits = unorder_bits(int.from_bytes(_fixed(key, pos, 4, "an f32"), "big"), 4)
        if parts is not None:
            parts.append(Part(pos, pos + 4, "f32", "IEEE bits, order transform"))
        return Float32.from_bits(bits), pos + 4
    return read


def _float64_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[float, int]:
        bits = unorder_bits(_Q.unpack(_fixed(key, pos, 8, "an f64"))[0], 8)
        if parts is not None:
            parts.append(Part(pos, pos + 8, "f64", "IEEE bits, order transform"))
        return float(_D.unpack(_Q.pack(bits))[0]), pos + 8
    return read


def _text(key: bytes, pos: int, parts: Parts) -> tuple[str, int]:
    """The UTF-8 text at *pos* up to the first ``00`` (the crate's ``read_reference_until``),
    and the offset after that ``00``."""
    end = key.find(_END, pos)
    if end < 0:
        raise DecodeError(f"{EOF_STRING}: no 00 ends the string", offset=pos,
                          found=key[pos:], expected="UTF-8 text, then 00")
    try:
        text = key[pos:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"{BAD_UTF8} ({exc.reason})", offset=pos + exc.start,
                          found=key[pos + exc.start:pos + exc.end],
                          expected="UTF-8 text") from None
    if parts is not None:
        if end > pos:
            parts.append(Part(pos, end, "text", "UTF-8"))
        parts.append(Part(end, end + 1, "terminator", "end of string"))
    return text, end + 1


def _string_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[str, int]:
        return _text(key, pos, parts)
    return read


def _char_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[str, int]:
        text, end = _text(key, pos, parts)
        if not text:
            raise DecodeError(f"{BAD_UTF8}: a char field holds no character", offset=pos,
                              found=key[pos:pos + 1], expected="one UTF-8 character, then 00")
        return text[0], end  # the first character of a longer string, as the crate reads
    return read


def _bytes_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[bytes, int]:
        n = int.from_bytes(_fixed(key, pos, LENGTH_WIDTH, "the bytes' u64 length"), "big")
        start = pos + LENGTH_WIDTH
        if n > len(key) - start:
            raise DecodeError(f"{EOF_BYTES}: the bytes' length {n} runs past the key",
                              offset=pos, found=key[pos:start],
                              expected=f"at most {len(key) - start} byte(s)")
        if parts is not None:
            parts += [Part(pos, start, "length", f"{n} byte(s), u64 big-endian"),
                      Part(start, start + n, "payload", "raw bytes")]
        return key[start:start + n], start + n
    return read


def _seq_reader(code: FieldCode) -> Reader:
    def read(key: bytes, pos: int, parts: Parts = None) -> tuple[bytes, int]:
        # each element is a byte; a 01 where an element would start ends the sequence, and
        # so does the end of the key (the crate's SeqAccess takes EOF as the end)
        end = key.find(_SEQ_END, pos)
        stop = len(key) if end < 0 else end + 1
        value = key[pos:len(key) if end < 0 else end]
        if parts is not None:
            if value:
                parts.append(Part(pos, pos + len(value), "elements", f"{len(value)} u8"))
            if end >= 0:
                parts.append(Part(end, stop, "end", "end of sequence"))
        return value, stop
    return read


#: field kind -> builder of its reader of a present value
READERS: Final[dict[int, Callable[[FieldCode], Reader]]] = {
    KIND_BOOL: _bool_reader, KIND_UINT: _uint_reader, KIND_INT: _int_reader,
    KIND_FLOAT32: _float32_reader, KIND_FLOAT64: _float64_reader,
    KIND_STRING: _string_reader, KIND_CHAR: _char_reader, KIND_BYTES: _bytes_reader,
    KIND_SEQ: _seq_reader,
}


def read_tags(key: bytes, pos: int, layers: int, parts: Parts = None
              ) -> tuple[int, bool, int]:
    """A field's Option tags at *pos*: ``(ones, present, offset after them)``, ``ones`` tags
    ``01`` read before a ``00`` (then not *present*) or before the value."""
    for ones in range(layers):
        tag = _fixed(key, pos, 1, "an Option tag")[0]
        follows = OPTION_TAGS.get(tag)
        if follows is None:
            raise DecodeError(f"expected `0` or `1` for option tag - found {tag}", offset=pos,
                              found=key[pos:pos + 1], expected="00 (None) or 01 (Some)")
        if not follows:
            if parts is not None:
                parts.append(Part(pos, pos + 1, "none", "None" if not ones else
                                  f"None inside {ones} Some"))
            return ones, False, pos + 1
        if parts is not None:
            parts.append(Part(pos, pos + 1, "some", "Some"))
        pos += 1
    return layers, True, pos


def field_reader(code: FieldCode) -> Reader:
    """The decoder of one field: its Option tags, then its value."""
    read = READERS[code.kind](code)
    layers = code.layers
    if not layers:
        return read

    def optional(key: bytes, pos: int, parts: Parts = None) -> tuple[Any, int]:
        ones, present, pos = read_tags(key, pos, layers, parts)
        if not present:
            return option_value(ones), pos
        return read(key, pos, parts)
    return optional
