"""``skv``: K2 SKV type-tagged keys, byte-identical with K2's encoder (chogori-platform).

Theory of operation: a key is its fields' encodings laid end to end, with no separators.
Every non-NULL field is ``TYPE PAYLOAD 00 01``: one type byte (:data:`TYPE_BYTES`), the
payload, and the terminator ``00 01``. Payloads (spec §4):

* STRING ``01`` (``string`` and ``bytes`` fields): the raw bytes with every ``00`` written as
  ``00 ff``, so the first ``00 01`` ends the field and a shorter value sorts first;
* signed ints ``02``..``04``: a sign byte (``02`` negative, ``03`` otherwise), then
  ``2**N - 1 + v`` (negative) or ``v`` big-endian in N/8 bytes, **not escaped**;
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

The schema splits fields into partition-key and range-key fields with the field option
``key=partition|range`` (spec §7); :meth:`SkvCodec.partition_key`,
:meth:`SkvCodec.range_key`, :meth:`SkvCodec.storage_key` (the seed's
``SCHEMA_NAME 00 01 partition range``), :meth:`SkvCodec.split_storage_key` and
:meth:`SkvCodec.encode_field` (query-predicate literals) are the helpers.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Final

from ..._bytes import invert, order_bits, strinc, unorder_bits
from ..._compile import compile_encode, compile_function, value_names
from ..._native import speedups
from ...codec import (
    Anomaly,
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    as_key_bytes,
)
from ...errors import DecodeError, EncodeError, LexCodecError, SchemaError, UnsupportedTypeError
from ...inspection import FieldView, Inspection, Part
from ...schema import Field, KeySchema
from ...types import Float32

__all__ = [
    "DESC_TYPE_BYTES",
    "EMPTY_PREFIX_STOP",
    "NULL_FIRST",
    "NULL_LAST",
    "TERMINATOR",
    "TYPE_BYTES",
    "SkvCodec",
]

NAME: Final = "skv"

# -- tables (spec §3, §4) -------------------------------------------------------------------

STRING, INT16, INT32, INT64 = 0x01, 0x02, 0x03, 0x04
UINT16, UINT32, UINT64 = 0x05, 0x06, 0x07
FLOAT, DOUBLE, BOOL = 0x08, 0x09, 0x0A
NULL_FIRST_BYTE, NULL_LAST_BYTE = 0x00, 0xFF

#: lexcodecs field type -> K2 type byte (ascending)
TYPE_BYTES: Final[dict[str, int]] = {
    "string": STRING, "bytes": STRING,
    "int16": INT16, "int32": INT32, "int64": INT64,
    "uint16": UINT16, "uint32": UINT32, "uint64": UINT64,
    "float32": FLOAT, "float64": DOUBLE,
    "bool": BOOL,
}
#: lexcodecs field type -> type byte of a descending field (the ones' complement)
DESC_TYPE_BYTES: Final[dict[str, int]] = {t: b ^ 0xFF for t, b in TYPE_BYTES.items()}

#: K2 name of each ascending type byte, for messages
TYPE_NAMES: Final[dict[int, str]] = {
    STRING: "STRING", INT16: "INT16T", INT32: "INT32T", INT64: "INT64T",
    UINT16: "UINT16T", UINT32: "UINT32T", UINT64: "UINT64T",
    FLOAT: "FLOAT", DOUBLE: "DOUBLE", BOOL: "BOOL",
}

#: signed int type byte -> payload width in bytes (after the sign byte)
SIGNED_WIDTH: Final[dict[int, int]] = {INT16: 2, INT32: 4, INT64: 8}
#: unsigned int type byte -> payload width in bytes
UNSIGNED_WIDTH: Final[dict[int, int]] = {UINT16: 2, UINT32: 4, UINT64: 8}
#: float type byte -> payload width in bytes
FLOAT_WIDTH: Final[dict[int, int]] = {FLOAT: 4, DOUBLE: 8}

SIGN_NEGATIVE, SIGN_NONNEGATIVE = 0x02, 0x03

TERMINATOR: Final = b"\x00\x01"
NULL_FIRST: Final = b"\x00\x00\x01"
NULL_LAST: Final = b"\xff\x00\x01"
#: stop of the empty prefix's range: above every key, including a leading nulls-last marker
EMPTY_PREFIX_STOP: Final = b"\xff\x00\x02"

#: the ``key`` field option: which part of the K2 key a field belongs to
KEY_PARTITION, KEY_RANGE = "partition", "range"

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")

#: inclusive value range of each integer field type
INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "int16": (-(2**15), 2**15 - 1), "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}

# -- encoding -------------------------------------------------------------------------------

Writer = Callable[[Any], bytes]


def _signed_writer(field_type: str) -> Writer:
    type_byte = TYPE_BYTES[field_type]
    width = SIGNED_WIDTH[type_byte]
    lo, hi = INT_RANGES[field_type]
    full = (1 << (8 * width)) - 1
    neg = bytes((type_byte, SIGN_NEGATIVE))
    pos = bytes((type_byte, SIGN_NONNEGATIVE))

    def write(v: Any) -> bytes:
        n = _int_value(v, field_type, lo, hi)
        if n < 0:  # 2**N - 1 + v: the ones' complement of abs(v), exact at the minimum
            return neg + (full + n).to_bytes(width, "big") + TERMINATOR
        return pos + n.to_bytes(width, "big") + TERMINATOR
    return write


def _unsigned_writer(field_type: str) -> Writer:
    type_byte = TYPE_BYTES[field_type]
    width = UNSIGNED_WIDTH[type_byte]
    lo, hi = INT_RANGES[field_type]
    head = bytes((type_byte,))

    def write(v: Any) -> bytes:
        return head + _int_value(v, field_type, lo, hi).to_bytes(width, "big") + TERMINATOR
    return write


def _int_value(v: Any, field_type: str, lo: int, hi: int) -> int:
    if type(v) is bool or not isinstance(v, int):
        raise UnsupportedTypeError(
            f"{type(v).__name__} is not an {field_type} value"
            + (" (bool is refused in integer fields)" if type(v) is bool else ""),
            value=v, expected="int")
    n = int(v)
    if not lo <= n <= hi:
        raise EncodeError(f"out of range for {field_type}", value=n, expected=f"{lo}..{hi}")
    return n


def _write_bool(v: Any) -> bytes:
    if type(v) is not bool:
        raise UnsupportedTypeError(f"{type(v).__name__} is not a bool value", value=v,
                                   expected="bool")
    return b"\x0a\x01\x00\x01" if v else b"\x0a\x00\x00\x01"


def _escape(data: bytes) -> bytes:
    return b"\x01" + data.replace(b"\x00", b"\x00\xff") + TERMINATOR


def _write_string(v: Any) -> bytes:
    if not isinstance(v, str):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a string field", value=v,
                                   expected="str (use a bytes field for bytes)")
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("lone surrogate is not encodable as UTF-8",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None
    return _escape(data)


def _write_bytes(v: Any) -> bytes:
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise UnsupportedTypeError(f"{type(v).__name__} value in a bytes field", value=v,
                                   expected="bytes (use a string field for str)")
    return _escape(bytes(v))


def _nan(v: float) -> EncodeError:
    return EncodeError("NaN is not encodable (any sign or payload)", value=v,
                       expected="a number; NaN has no place in the key order")


def _write_float64(v: Any) -> bytes:
    if isinstance(v, float):
        x = float(v)
    elif isinstance(v, int) and type(v) is not bool:
        # exact ints only: a float64 field never rounds silently
        if v.bit_length() > 1024 or int(float(v)) != v:
            raise EncodeError("integer does not convert to float64 exactly", value=v,
                              expected="an int a float64 holds exactly")
        x = float(v)
    else:
        raise UnsupportedTypeError(f"{type(v).__name__} is not a float64 value", value=v,
                                   expected="float or an exact int")
    if x != x:
        raise _nan(x)
    return b"\x09" + _Q.pack(order_bits(_Q.unpack(_D.pack(x))[0], 8)) + TERMINATOR


def _write_float32(v: Any) -> bytes:
    if isinstance(v, Float32):
        f = v
    elif isinstance(v, float):
        if v == v and not Float32.is_exact(v):
            raise EncodeError("not exactly representable in binary32 (round explicitly "
                              "with Float32)", value=v, expected="a binary32 value")
        f = Float32(v)
    elif isinstance(v, int) and type(v) is not bool:
        if v.bit_length() > 128 or int(float(v)) != v or not Float32.is_exact(float(v)):
            raise EncodeError("integer is not exactly representable in binary32", value=v,
                              expected="an int a float32 holds exactly")
        f = Float32(v)
    else:
        raise UnsupportedTypeError(f"{type(v).__name__} is not a float32 value", value=v,
                                   expected="Float32, a binary32-exact float or int")
    if f != f:
        raise _nan(float(f))
    return b"\x08" + order_bits(f.bits, 4).to_bytes(4, "big") + TERMINATOR


def _writer(field_type: str) -> Writer:
    """The ascending writer of one non-NULL value: ``TYPE PAYLOAD 00 01``."""
    if field_type in ("int16", "int32", "int64"):
        return _signed_writer(field_type)
    if field_type in ("uint16", "uint32", "uint64"):
        return _unsigned_writer(field_type)
    table: dict[str, Writer] = {
        "string": _write_string, "bytes": _write_bytes, "bool": _write_bool,
        "float32": _write_float32, "float64": _write_float64,
    }
    return table[field_type]


# -- decoding (spec §9) ---------------------------------------------------------------------


def _truncated(key: bytes, what: str) -> DecodeError:
    return DecodeError(f"truncated: {what}", offset=len(key), found=b"",
                       expected="more bytes")


def _terminator(key: bytes, at: int, desc: bool) -> int:
    """Check the terminator at *at* (``00 01``, ``ff fe`` descending); the offset after it."""
    first, second = (0xFF, 0xFE) if desc else (0x00, 0x01)
    shown = "ff fe" if desc else "00 01"
    for i, want in ((at, first), (at + 1, second)):
        if i >= len(key):
            raise _truncated(key, f"terminator {shown} incomplete")
        if key[i] != want:
            raise DecodeError("terminator expected (wrong fixed width or corrupt field)",
                              offset=i, found=key[i:i + 1], expected=shown)
    return at + 2


def _null_marker(key: bytes, pos: int) -> int:
    """*pos* holds ``00`` or ``ff``: check the ``00 01`` after it; the offset after it."""
    for i, want in ((pos + 1, 0x00), (pos + 2, 0x01)):
        if i >= len(key):
            raise _truncated(key, "NULL marker incomplete")
        if key[i] != want:
            raise DecodeError("NULL marker must be followed by 00 01", offset=i,
                              found=key[i:i + 1], expected=f"{want:02x}")
    return pos + 3


def _fixed(key: bytes, start: int, width: int, desc: bool) -> bytes:
    """*width* payload bytes at *start*, un-inverted when descending."""
    end = start + width
    if end > len(key):
        raise _truncated(key, f"{width}-byte payload incomplete")
    raw = key[start:end]
    return invert(raw) if desc else raw


def _read_string(key: bytes, pos: int, desc: bool) -> tuple[bytes, int]:
    """The unescaped STRING payload of the field at *pos* and the offset after the field."""
    esc, end_byte, literal = (0xFF, 0xFE, 0x00) if desc else (0x00, 0x01, 0xFF)
    esc_b = bytes((esc,))
    chunks: list[bytes] = []
    i = pos + 1
    n = len(key)
    while True:
        j = key.find(esc_b, i)
        if j < 0:
            raise _truncated(key, "unterminated STRING")
        if j + 1 >= n:
            raise _truncated(key, "unterminated STRING (escape byte at the end)")
        chunks.append(key[i:j])
        follow = key[j + 1]
        if follow == end_byte:
            raw = esc_b.join(chunks)
            return (invert(raw) if desc else raw), j + 2
        if follow != literal:
            raise DecodeError(f"bad escape: {esc:02x} followed by {follow:02x}", offset=j,
                              found=key[j:j + 2],
                              expected=f"{esc:02x} {end_byte:02x} (end) or "
                              f"{esc:02x} {literal:02x} (a 00 byte)")
        i = j + 2


def _read_signed(key: bytes, pos: int, t: int, desc: bool) -> tuple[int, int]:
    width = SIGNED_WIDTH[t]
    bits = 8 * width
    if pos + 1 >= len(key):
        raise _truncated(key, "sign byte missing")
    sign = key[pos + 1] ^ 0xFF if desc else key[pos + 1]
    if sign not in (SIGN_NEGATIVE, SIGN_NONNEGATIVE):
        raise DecodeError("sign byte must be 02 or 03", offset=pos + 1,
                          found=key[pos + 1:pos + 2],
                          expected="fd or fc (descending)" if desc else "02 or 03")
    p = int.from_bytes(_fixed(key, pos + 2, width, desc), "big")
    half = (1 << (bits - 1)) - 1
    full = (1 << bits) - 1
    if sign == SIGN_NONNEGATIVE:
        if p > half:
            raise DecodeError("non-canonical: non-negative sign with a payload above the "
                              "maximum", offset=pos + 2, found=key[pos + 2:pos + 2 + width],
                              expected=f"at most {half:#x}")
        value = p
    else:
        if not half <= p <= full - 1:
            raise DecodeError("non-canonical: negative sign with a payload outside the "
                              "negative range" + (" (would be -0)" if p == full else ""),
                              offset=pos + 2, found=key[pos + 2:pos + 2 + width],
                              expected=f"{half:#x}..{full - 1:#x}")
        value = p - full
    return value, _terminator(key, pos + 2 + width, desc)


def _read_float(key: bytes, pos: int, t: int, desc: bool) -> tuple[float, int]:
    width = FLOAT_WIDTH[t]
    bits = unorder_bits(int.from_bytes(_fixed(key, pos + 1, width, desc), "big"), width)
    if width == 4:
        is_nan = (bits & 0x7F800000) == 0x7F800000 and bool(bits & 0x007FFFFF)
    else:
        is_nan = (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and \
            bool(bits & 0x000FFFFFFFFFFFFF)
    if is_nan:
        raise DecodeError("payload decodes to NaN, which the encoder never writes",
                          offset=pos + 1, found=key[pos + 1:pos + 1 + width],
                          expected="a non-NaN float")
    value: float = Float32.from_bits(bits) if width == 4 else float(
        _D.unpack(_Q.pack(bits))[0])
    return value, _terminator(key, pos + 1 + width, desc)


def _read_value(key: bytes, pos: int, t: int, desc: bool) -> tuple[Any, int]:
    """The value of a non-NULL field whose (ascending) type byte *t* is at *pos*.

    STRING gives ``bytes``; the caller turns it into ``str`` for a string field.
    """
    if t == STRING:
        return _read_string(key, pos, desc)
    if t in SIGNED_WIDTH:
        return _read_signed(key, pos, t, desc)
    if t in UNSIGNED_WIDTH:
        width = UNSIGNED_WIDTH[t]
        value = int.from_bytes(_fixed(key, pos + 1, width, desc), "big")
        return value, _terminator(key, pos + 1 + width, desc)
    if t in FLOAT_WIDTH:
        return _read_float(key, pos, t, desc)
    # BOOL
    payload = _fixed(key, pos + 1, 1, desc)
    if payload not in (b"\x00", b"\x01"):
        raise DecodeError("bool payload must be 00 or 01", offset=pos + 1,
                          found=key[pos + 1:pos + 2],
                          expected="ff or fe (descending)" if desc else "00 or 01")
    return payload == b"\x01", _terminator(key, pos + 2, desc)


def _classify(key: bytes, pos: int) -> tuple[int, bool]:
    """The first byte of the field at *pos*: (ascending type byte or NULL marker, desc)."""
    if pos >= len(key):
        raise _truncated(key, "key ends before the field")
    first = key[pos]
    if first in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        return first, False
    if STRING <= first <= BOOL:
        return first, False
    if 0xFF ^ BOOL <= first <= 0xFF ^ STRING:
        return first ^ 0xFF, True
    raise DecodeError(f"type byte {first:02x} is not a key type", offset=pos,
                      found=key[pos:pos + 1],
                      expected="00/ff (NULL), 01..0a (ascending) or f5..fe (descending)")


def _read_any(key: bytes, pos: int) -> tuple[Any, int]:
    """One field without a schema: (value, next offset); NULL is None."""
    t, desc = _classify(key, pos)
    if t in (NULL_FIRST_BYTE, NULL_LAST_BYTE) and not desc:
        return None, _null_marker(key, pos)
    return _read_value(key, pos, t, desc)


def _field_reader(field: Field) -> Callable[[bytes, int], tuple[Any, int]]:
    """The strict decoder of one schema field (spec §9 "with a schema")."""
    t = TYPE_BYTES[field.type]
    desc = field.descending
    first_byte = t ^ 0xFF if desc else t
    marker = NULL_LAST_BYTE if field.effective_nulls == "last" else NULL_FIRST_BYTE
    as_text = field.type == "string"
    direction = "descending" if desc else "ascending"

    def read(key: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(key):
            raise _truncated(key, "key ends before the field")
        b = key[pos]
        if b == marker:
            return None, _null_marker(key, pos)
        if b != first_byte:
            raise DecodeError(_mismatch(b, marker, first_byte, direction, field.type),
                              offset=pos, found=key[pos:pos + 1],
                              expected=f"{first_byte:02x} ({direction} {field.type}) or "
                              f"{marker:02x} (NULL {field.effective_nulls})")
        value, end = _read_value(key, pos, t, desc)
        if as_text:
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DecodeError(f"invalid UTF-8 in a string field ({exc.reason}; use a "
                                  "bytes field)", offset=pos + 1,
                                  found=key[pos + 1:end - 2]) from None
        return value, end
    return read


def _mismatch(b: int, marker: int, first_byte: int, direction: str, field_type: str) -> str:
    if b in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        placed, want = ("first", "last") if b == NULL_FIRST_BYTE else ("last", "first")
        return f"NULL-{placed} marker in a field whose NULLs sort {want}"
    if STRING <= b <= BOOL or 0xFF ^ BOOL <= b <= 0xFF ^ STRING:
        found_desc = b > BOOL
        asc = b ^ 0xFF if found_desc else b
        found_dir = "descending" if found_desc else "ascending"
        if found_dir != direction:
            return f"{found_dir} field where the schema declares a {direction} {field_type}"
        return (f"type byte {b:02x} ({TYPE_NAMES[asc]}) where the schema declares "
                f"{field_type}")
    return f"type byte {b:02x} is not a key type"


# -- the codec ------------------------------------------------------------------------------


def _name_bytes(schema_name: Any) -> bytes:
    """A schema name as bytes (``str`` as UTF-8); a ``00`` byte is refused."""
    if isinstance(schema_name, str):
        try:
            data = schema_name.encode("utf-8")
        except UnicodeEncodeError:
            raise EncodeError("schema name is not encodable as UTF-8", codec=NAME,
                              value=schema_name, expected="a str without lone surrogates"
                              ) from None
    elif isinstance(schema_name, (bytes, bytearray, memoryview)):
        data = bytes(schema_name)
    else:
        raise UnsupportedTypeError("a schema name must be str or bytes", codec=NAME,
                                   value=schema_name, expected="str or bytes")
    if b"\x00" in data:
        raise EncodeError("schema name contains a 00 byte, the storage key separator",
                          codec=NAME, value=schema_name, expected="a name without 00/U+0000")
    return data


class SkvCodec(BaseCodec):
    """K2 SKV keys (registry name ``skv``); see the module docstring and ``specs/skv.md``."""

    name: ClassVar[str] = NAME
    FIELD_OPTIONS: ClassVar = {
        "key": Option(KEY_PARTITION, "which part of the K2 key the field belongs to: "
                      "'partition' (the default) or 'range'; range-key fields follow the "
                      "partition-key fields", choices=(KEY_PARTITION, KEY_RANGE)),
    }

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        write = _writer(field.type)
        null = NULL_LAST if field.effective_nulls == "last" else NULL_FIRST
        if field.descending:
            def encode(v: Any) -> bytes:
                return null if v is None else invert(write(v))
        else:
            def encode(v: Any) -> bytes:
                return null if v is None else write(v)
        return FieldPlan(index, field, encode, _field_reader(field))

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        parts = [f.options.get("key", KEY_PARTITION) for f in schema.fields]
        if parts[0] != KEY_PARTITION:
            raise self.refuse(0, schema.fields[0], "No partitionKeyFields defined: the first "
                              "field must be a partition-key field", "key=partition")
        seen_range = False
        for i, (f, part) in enumerate(zip(schema.fields, parts)):
            if part == KEY_RANGE:
                seen_range = True
            elif seen_range:
                raise self.refuse(i, f, "a partition-key field after a range-key field",
                                  "every key=range field after the partition-key fields")
        return BoundSkv(self, schema, plans, parts.count(KEY_PARTITION))

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    # -- schemaless decode ----------------------------------------------------------------

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """Decode from the type bytes alone (spec §9): STRING -> bytes, NULL -> None."""
        if not key:
            raise DecodeError("empty key (a key holds at least one field)", codec=NAME,
                              offset=0, found=b"", expected="a field")
        out: list[Any] = []
        pos = 0
        try:
            while pos < len(key):
                value, pos = _read_any(key, pos)
                out.append(value)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        return tuple(out)

    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's type byte, sign, payload, escapes and terminator (or NULL marker)."""
        data = as_key_bytes(NAME, key)
        parsed = None if schema is None else KeySchema.coerce(schema)
        self.decode(data, parsed)  # bytes that are not a key are refused, with the offset
        readers = ([p.decode for p in self.bind(parsed).plans] if parsed is not None
                   else None)
        fields = []
        pos = 0
        i = 0
        while pos < len(data):
            reader = readers[i] if readers is not None else _read_any
            assert reader is not None
            value, end = reader(data, pos)
            f = parsed.fields[i] if parsed is not None else None
            fields.append(FieldView(i, f.name if f else None, pos, end, value,
                                    tuple(_parts(data, pos, end)), f.type if f else ""))
            pos, i = end, i + 1
        return Inspection(NAME, data, tuple(fields), (),
                          None if parsed is None else str(parsed))

    # -- helpers (spec §7, §8) -----------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundSkv:
        bound = super().bind(schema)
        assert isinstance(bound, BoundSkv)
        return bound

    def partition_key(self, values: Sequence[Any], schema: SchemaLike) -> bytes:
        """The encoding of the partition-key fields; *values* holds every key field."""
        return self.bind(schema).partition_key(values)

    def range_key(self, values: Sequence[Any], schema: SchemaLike) -> bytes:
        """The encoding of the range-key fields (``b""`` if none); *values* holds every field."""
        return self.bind(schema).range_key(values)

    def storage_key(self, schema_name: str | bytes, values: Sequence[Any],
                    schema: SchemaLike) -> bytes:
        """``SCHEMA_NAME 00 01 partition_key range_key`` (the seed's layout)."""
        return self.bind(schema).storage_key(schema_name, values)

    def split_storage_key(self, key: bytes, schema: SchemaLike) -> tuple[bytes, bytes, bytes]:
        """``(schema_name, partition_key, range_key)`` of a storage key, checked strictly."""
        return self.bind(schema).split_storage_key(key)

    def decode_storage_key(self, key: bytes, schema: SchemaLike
                           ) -> tuple[bytes, tuple[Any, ...]]:
        """``(schema_name, values)`` of a storage key."""
        return self.bind(schema).decode_storage_key(key)

    def storage_prefix_range(self, schema_name: str | bytes, prefix: Sequence[Any],
                             schema: SchemaLike) -> tuple[bytes, bytes]:
        """``[N 00 01 P, strinc(N 00 01 P))``; the empty prefix gives ``[N 00 01, N 00 02)``."""
        return self.bind(schema).storage_prefix_range(schema_name, prefix)

    def encode_field(self, value: Any, field: Field | str) -> bytes:
        """One field's encoding (direction and NULL placement applied): a predicate literal.

        *field* is a :class:`~lexcodecs.schema.Field` or its text (``"ts:int64 desc"``).
        """
        if isinstance(field, str):
            parsed = KeySchema.parse(field)
            if len(parsed) != 1:
                raise SchemaError("encode_field takes one field", codec=NAME, value=field,
                                  expected="the text of one field")
            field = parsed.fields[0]
        if not isinstance(field, Field):
            raise SchemaError("not a Field", codec=NAME, value=field,
                              expected="a lexcodecs Field or the text of one field")
        # the key option is checked, then dropped: a lone field is its own partition key
        self.check_field(0, field, KeySchema((field,)))
        alone = Field(field.name, field.type, field.descending, field.nulls)
        return self.bind(KeySchema((alone,))).encode((value,))


def _parts(key: bytes, pos: int, end: int) -> list[Part]:
    """The parts of the field ``key[pos:end]`` (already read, so well formed)."""
    first = key[pos]
    if first in (NULL_FIRST_BYTE, NULL_LAST_BYTE):
        placed = "first" if first == NULL_FIRST_BYTE else "last"
        return [Part(pos, pos + 1, "null", f"NULL, sorting {placed}"),
                Part(pos + 1, end, "terminator", "end of field")]
    t, desc = _classify(key, pos)
    how = ", descending (every byte inverted)" if desc else ""
    parts = [Part(pos, pos + 1, "type", TYPE_NAMES[t] + how)]
    body = pos + 1
    if t in SIGNED_WIDTH:
        sign = key[body] ^ (0xFF if desc else 0)
        parts.append(Part(body, body + 1, "sign", "negative" if sign == SIGN_NEGATIVE
                          else "zero or positive"))
        body += 1
    if t == STRING:
        esc = b"\xff\x00" if desc else b"\x00\xff"
        at = body
        while True:
            j = key.find(esc, at, end - 2)
            if j < 0:
                break
            if j > at:
                parts.append(Part(at, j, "payload", "bytes"))
            parts.append(Part(j, j + 2, "escape", "a 00 byte"))
            at = j + 2
        if end - 2 > at:
            parts.append(Part(at, end - 2, "payload", "bytes"))
    else:
        meaning = {BOOL: "true" if key[body] ^ (0xFF if desc else 0) else "false",
                   FLOAT: "IEEE order transform", DOUBLE: "IEEE order transform"}.get(
            t, "big-endian value" if t in UNSIGNED_WIDTH else "two's complement + 2**N - 1"
            if key[body - 1] ^ (0xFF if desc else 0) == SIGN_NEGATIVE else "big-endian value")
        parts.append(Part(body, end - 2, "payload", meaning))
    parts.append(Part(end - 2, end, "terminator", "end of field"))
    return parts


class BoundSkv(BoundKey):
    """A bound ``skv`` schema: the generic concatenation plus the K2 key helpers."""

    __slots__ = ("decode", "encode", "partition_count")

    def __init__(self, codec: SkvCodec, schema: KeySchema, plans: Sequence[FieldPlan],
                 partition_count: int) -> None:
        super().__init__(codec, schema, plans)
        self.partition_count = partition_count
        # a slot shadowing the method: calls reach the compiled code with no frame between
        decode = _compile_decode(schema, self.careful_decode)
        speedups = _speedups()
        if speedups is not None and not any(f.descending for f in schema.fields):
            # C first, for the whole key; anything unusual goes to the compiled Python
            spec = bytes(b for f in schema.fields for b in (
                TYPE_BYTES[f.type],
                NULL_LAST_BYTE if f.effective_nulls == "last" else NULL_FIRST_BYTE,
                f.type == "string"))
            decode = partial(speedups.skv_decode, spec, decode)
        self.decode = decode  # type: ignore[method-assign,assignment]
        self.encode = _compile_encode(schema, self.careful_encode)  # type: ignore[method-assign,assignment]

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, field by field, with every refusal explained."""
        return BoundKey.encode(self, values)

    def careful_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference reading, field by field, with every error explained."""
        return BoundKey.decode(self, key)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))``; the empty prefix gives ``[b"", ff 00 02)`` (spec §8)."""
        values = self._check_arity(values, prefix=True)
        start = self._encode_prefix(values)
        if not start:
            return b"", EMPTY_PREFIX_STOP
        return start, strinc(start)

    def _parts(self, values: Sequence[Any]) -> tuple[bytes, bytes]:
        values = self._check_arity(values)
        n = self.partition_count
        partition = self._encode_prefix(values[:n])
        try:
            rest = b"".join([enc(v) for enc, v in zip(self._encoders[n:], values[n:])])
        except LexCodecError as exc:
            raise self._locate(exc, values) from None
        return partition, rest

    def partition_key(self, values: Sequence[Any]) -> bytes:
        return self._parts(values)[0]

    def range_key(self, values: Sequence[Any]) -> bytes:
        return self._parts(values)[1]

    def storage_key(self, schema_name: str | bytes, values: Sequence[Any]) -> bytes:
        name = _name_bytes(schema_name)
        return name + TERMINATOR + self.encode(values)

    def storage_prefix_range(self, schema_name: str | bytes, prefix: Sequence[Any]
                             ) -> tuple[bytes, bytes]:
        name = _name_bytes(schema_name)
        values = self._check_arity(prefix, prefix=True)
        start = name + TERMINATOR + self._encode_prefix(values)
        stop = strinc(start)
        assert stop is not None  # start ends in 01 or fe
        return start, stop

    def _storage_fields(self, key: Any) -> tuple[bytes, list[Any], list[int]]:
        """(name, values, end offset of each field) of a storage key."""
        data = as_key_bytes(NAME, key)
        at = data.find(b"\x00")
        if at < 0:
            raise DecodeError("no 00 01 after the schema name", codec=NAME, offset=len(data),
                              found=b"", expected="SCHEMA_NAME 00 01 key")
        if at + 1 >= len(data):
            raise DecodeError("truncated: separator 00 01 incomplete", codec=NAME,
                              offset=len(data), found=b"", expected="01")
        if data[at + 1] != 0x01:
            raise DecodeError("the first 00 must be followed by 01", codec=NAME,
                              offset=at + 1, found=data[at + 1:at + 2], expected="01")
        pos = at + 2
        out: list[Any] = []
        ends: list[int] = []
        for i, plan in enumerate(self.plans):
            dec = plan.decode
            assert dec is not None
            try:
                value, pos = dec(data, pos)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
            ends.append(pos)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return data[:at], out, [at + 2, *ends]

    def split_storage_key(self, key: bytes) -> tuple[bytes, bytes, bytes]:
        data = as_key_bytes(NAME, key)
        name, _, ends = self._storage_fields(data)
        middle = ends[self.partition_count]
        return name, data[ends[0]:middle], data[middle:]

    def decode_storage_key(self, key: bytes) -> tuple[bytes, tuple[Any, ...]]:
        name, values, _ = self._storage_fields(key)
        return name, tuple(values)


def _interop_anomalies() -> tuple[Anomaly, ...]:
    return (
        Anomaly("k2-cannot-read-floats", "interop",
                "float32/float64 fields (types 08/09) are a lexcodecs extension: K2 throws "
                "FieldNotSupportedAsKeyException for them, so K2 cannot read such keys"),
        Anomaly("k2-cannot-read-descending", "interop",
                "descending fields (inverted type bytes f5..fe) are a lexcodecs extension: "
                "K2 stores every key field ascending and cannot read such keys"),
    )


CAPABILITIES: Final = Capabilities(
    field_types=set(TYPE_BYTES),
    decoding="self-describing",
    descending=True,
    nulls="both",
    injective=True,
    prefix_free=True,
    schemaless=False,
    float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
    anomalies=_interop_anomalies(),
    int_range=None,
    text_nul=True,
    notes="byte-identical with K2 (chogori-platform) for string, bytes, int16..uint64, bool "
          "and NULL first/last; float32/float64 and descending fields are lexcodecs "
          "extensions that K2 cannot read",
)


# -- compiled bound decode ------------------------------------------------------------------
#
# The generic decode calls two or three functions per field; on this interpreter that is
# slower than fdb.tuple.unpack. For a schema of ascending fields, one function is written per
# schema with each field's well-formed case inline. Anything it does not expect -- a
# descending field, an escaped 00, a non-canonical payload, a NaN, a truncated key -- hands
# the whole key to the careful path, which accepts exactly the same keys and explains every
# error; tests/test_skv_compiled.py holds the two to the same answers.

_NULL_SRC: Final = """\
    elif c == {marker}:
        if data[pos + 1:pos + 3] != b"\\x00\\x01":
            return careful(data)
        {v} = None
        pos += 3
    else:
        return careful(data)
"""


def _decode_src(field: Field, v: str) -> str:
    t = TYPE_BYTES[field.type]
    marker = NULL_LAST_BYTE if field.effective_nulls == "last" else NULL_FIRST_BYTE
    null = _NULL_SRC.format(marker=marker, v=v)
    if t == STRING:
        convert = ".decode()" if field.type == "string" else ""  # UTF-8, strict
        return f"""\
    c = data[pos]
    if c == {t}:
        end = find(b"\\x00", pos + 1)
        if end < 0 or data[end + 1] != 1:
            return careful(data)
        {v} = data[pos + 1:end]{convert}
        pos = end + 2
""" + null
    if t in SIGNED_WIDTH:
        w = SIGNED_WIDTH[t]
        half, full = (1 << (8 * w - 1)) - 1, (1 << (8 * w)) - 1
        return f"""\
    c = data[pos]
    if c == {t}:
        end = pos + {2 + w}
        if data[end] or data[end + 1] != 1:
            return careful(data)
        p = from_bytes(data[pos + 2:end])
        sign = data[pos + 1]
        if sign == 3 and p <= {half}:
            {v} = p
        elif sign == 2 and {half} <= p < {full}:
            {v} = p - {full}
        else:
            return careful(data)
        pos = end + 2
""" + null
    if t in UNSIGNED_WIDTH:
        w = UNSIGNED_WIDTH[t]
        return f"""\
    c = data[pos]
    if c == {t}:
        end = pos + {1 + w}
        if data[end] or data[end + 1] != 1:
            return careful(data)
        {v} = from_bytes(data[pos + 1:end])
        pos = end + 2
""" + null
    if t == BOOL:
        return f"""\
    c = data[pos]
    if c == {t}:
        payload = data[pos + 1:pos + 4]
        if payload == b"\\x01\\x00\\x01":
            {v} = True
        elif payload == b"\\x00\\x00\\x01":
            {v} = False
        else:
            return careful(data)
        pos += 4
""" + null
    # DOUBLE / FLOAT: the IEEE order transform undone; a NaN is the careful path's to refuse
    w = FLOAT_WIDTH[t]
    value = ("UNPACK_D(PACK_Q(bits))[0]" if w == 8 else "from_bits(bits)")
    nan_test = ("(bits & 0x7FF0000000000000) == 0x7FF0000000000000 and "
                "bits & 0x000FFFFFFFFFFFFF" if w == 8 else
                "(bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF")
    return f"""\
    c = data[pos]
    if c == {t}:
        end = pos + {1 + w}
        if data[end] or data[end + 1] != 1:
            return careful(data)
        bits = unorder(from_bytes(data[pos + 1:end]), {w})
        if {nan_test}:
            return careful(data)
        {v} = {value}
        pos = end + 2
""" + null


def _speedups() -> Any:
    """The optional C extension, when it has this codec's functions."""
    return speedups("skv_decode")


def _compile_decode(schema: KeySchema, careful: Callable[[bytes], tuple[Any, ...]]
                    ) -> Callable[[bytes], tuple[Any, ...]]:
    if any(f.descending for f in schema.fields):
        return careful
    names, unpack = value_names(len(schema))
    lines = [
        "def decode(data):",
        "    if type(data) is not bytes:",
        "        return careful(data)",
        "    find = data.find",
        "    pos = 0",
        "    try:",
    ]
    for name, f in zip(names, schema.fields):
        lines += ["    " + line for line in _decode_src(f, name).splitlines()]
    lines += [
        "    except Exception:",
        "        return careful(data)",
        "    if pos != len(data):",
        "        return careful(data)",
        f"    return ({unpack})",
    ]
    namespace: dict[str, Any] = {
        "careful": careful, "from_bytes": int.from_bytes, "unorder": unorder_bits,
        "from_bits": Float32.from_bits, "UNPACK_D": _D.unpack, "PACK_Q": _Q.pack,
    }
    return compile_function("\n".join(lines), "decode", f"skv bound to {schema}", namespace)


def _encode_src(field: Field, v: str) -> tuple[str, str]:
    """(guard, expression) writing the non-NULL value *v* of *field*, ascending."""
    t = TYPE_BYTES[field.type]
    term = 'b"\\x00\\x01"'
    if t == STRING:
        kind, data = (("str", f'{v}.encode("utf-8")') if field.type == "string"
                      else ("bytes", v))
        return (f"type({v}) is {kind}",
                f'b"\\x01" + {data}.replace(b"\\x00", b"\\x00\\xff") + {term}')
    if t in SIGNED_WIDTH:
        w = SIGNED_WIDTH[t]
        lo, hi = INT_RANGES[field.type]
        full = (1 << (8 * w)) - 1
        return (f"type({v}) is int and {lo} <= {v} <= {hi}",
                f'(bytes(({t}, 3)) + {v}.to_bytes({w}, "big") if {v} >= 0 else '
                f'bytes(({t}, 2)) + ({v} + {full}).to_bytes({w}, "big")) + {term}')
    if t in UNSIGNED_WIDTH:
        w = UNSIGNED_WIDTH[t]
        lo, hi = INT_RANGES[field.type]
        return (f"type({v}) is int and {lo} <= {v} <= {hi}",
                f'bytes(({t},)) + {v}.to_bytes({w}, "big") + {term}')
    if t == BOOL:
        return (f"type({v}) is bool",
                f'(b"\\x0a\\x01\\x00\\x01" if {v} else b"\\x0a\\x00\\x00\\x01")')
    # floats: the writers check NaN and binary32 exactness themselves
    writer = "write_float64" if t == DOUBLE else "write_float32"
    kind = "float" if t == DOUBLE else "Float32"
    return f"type({v}) is {kind}", f"{writer}({v})"


def _compile_encode(schema: KeySchema, careful: Callable[[Sequence[Any]], bytes]
                    ) -> Callable[[Sequence[Any]], bytes]:
    """One function per schema writing the usual case inline (see _compile_decode)."""
    names, _ = value_names(len(schema))
    guards, exprs = [], []
    for name, f in zip(names, schema.fields):
        guard, expr = _encode_src(f, name)
        null = NULL_LAST if f.effective_nulls == "last" else NULL_FIRST
        if f.descending:
            expr = f"invert({expr})"
        guards.append(f"({name} is None or {guard})")
        exprs.append(f"({null!r} if {name} is None else {expr})")
    namespace = {"invert": invert, "Float32": Float32, "write_float64": _write_float64,
                 "write_float32": _write_float32}
    return compile_encode(f"skv bound to {schema}", guards, exprs, b"", careful, namespace)
