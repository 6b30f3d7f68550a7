"""Plugin codecs written as a plugin author would: one correct (``plug``), and a set each
broken in one way that the conformance harness must catch -- from pytest and from
``lexcodecs conformance`` with the codec installed through an entry point
(tests/test_broken_plugins.py).

The correct format, ``plug`` (a ``BaseCodec`` subclass)::

    field   := 00 (NULL: the lowest value, so NULL placement is "fixed")
             | 01 payload
    desc    := the ascending field with every byte inverted (NULL included: last)
    intN    := N/8 bytes big-endian, the sign bit flipped     uintN := N/8 bytes big-endian
    floatN  := the IEEE bits big-endian, negatives all inverted, others with the sign bit set
    bool    := 00 | 01
    string  := UTF-8 with 00 written as 00 ff, then 00 00 (bytes: the same, raw)

The broken ones each declare what ``plug`` declares, or less, and break one claim:

* :func:`wrong_byte_order` (``broken-order-T``, one per numeric type T): declares T,
  ascending and descending, and writes it little-endian (an 8-bit type has one byte, so
  there the bug is the sign bit: int8 unflipped, uint8 flipped). Round trips are exact; only
  the order is wrong. ``broken-order-uint32`` also declares bool: it is the codec of the
  issue, which ``lexcodecs conformance`` once passed after testing ``f0:bool`` alone;
* :class:`DescendingIgnored`: declares descending fields, writes them ascending;
* :class:`NullsLast`: declares ``nulls="first"``, writes NULL last;
* :class:`Unterminated`: writes strings without a terminator, declares prefix-freeness;
* :class:`LosesAField`: a plain class (no lexcodecs base, as the Codec protocol allows)
  whose decoder drops the last field;
* :class:`SchemalessMisordered`: declares schemaless encoding, and misorders its ints;
* :class:`RefusesADeclaredType`: declares uint16, and refuses to bind it.

:class:`ThirdParty` and :class:`NarrowThirdParty` are correct: installed, they are the
third-party codecs the project's own tests and docs must hold with.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import attrs

from lexcodecs import (
    BaseCodec,
    Capabilities,
    DecodeError,
    EncodeError,
    FieldPlan,
    Float32,
    FloatPolicy,
    KeySchema,
    UnsupportedTypeError,
)
from lexcodecs.schema import Field

NULL, VALUE = 0x00, 0x01
#: integer types: (bytes, signed)
INTS: dict[str, tuple[int, bool]] = {
    "int8": (1, True), "int16": (2, True), "int32": (4, True), "int64": (8, True),
    "uint8": (1, False), "uint16": (2, False), "uint32": (4, False), "uint64": (8, False),
}
#: float types: (bytes, struct format of the value, of its bits)
FLOATS: dict[str, tuple[int, str, str]] = {"float32": (4, ">f", ">I"),
                                           "float64": (8, ">d", ">Q")}
NUMERIC = (*INTS, *FLOATS)

Encoder = Callable[[Any], bytes]
Decoder = Callable[[bytes, int], tuple[Any, int]]


class Reader:
    """Bytes of one field read from *key* at *offset*, un-inverted when descending."""

    def __init__(self, key: bytes, offset: int, descending: bool) -> None:
        self.key, self.offset, self.mask = key, offset, 0xFF if descending else 0

    def take(self, n: int) -> bytes:
        if self.offset + n > len(self.key):
            raise DecodeError("the key ends inside a field", offset=len(self.key), found=b"",
                              expected=f"{n} more byte(s)")
        raw = self.key[self.offset:self.offset + n]
        self.offset += n
        return bytes(b ^ self.mask for b in raw)

    def escaped(self) -> bytes:
        out = bytearray()
        while True:
            byte = self.take(1)[0]
            if byte != 0:
                out.append(byte)
                continue
            mark = self.take(1)[0]
            if mark == 0x00:
                return bytes(out)
            if mark != 0xFF:
                raise DecodeError("bad escape", offset=self.offset - 2, found=bytes((0, mark)),
                                  expected="00 ff or 00 00")
            out.append(0)


class PlugCodec(BaseCodec):
    """The correct codec (see the module text); the broken ones override one method."""

    name: ClassVar[str] = "plug"
    # the format has every numeric type (the broken codecs declare them); the correct codec
    # claims a few, which keeps its conformance run short
    CAPABILITIES: ClassVar[Capabilities] = Capabilities(
        field_types={"string", "bytes", "bool", "int64", "uint32", "float64"},
        decoding="schema",
        descending=True,
        nulls="fixed",
        injective=True,
        prefix_free=True,
        float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
        notes="a test plugin",
    )

    # -- payloads: (value -> bytes) and (reader -> value) per type ---------------------------

    def int_bytes(self, field_type: str, value: int) -> bytes:
        width, signed = INTS[field_type]
        return (value + (1 << (8 * width - 1) if signed else 0)).to_bytes(width, "big")

    def int_value(self, field_type: str, body: bytes) -> int:
        width, signed = INTS[field_type]
        return int.from_bytes(body, "big") - ((1 << (8 * width - 1)) if signed else 0)

    def float_bytes(self, field_type: str, value: float) -> bytes:
        width, fmt, bits_fmt = FLOATS[field_type]
        bits = struct.unpack(bits_fmt, struct.pack(fmt, value))[0]
        sign = 1 << (8 * width - 1)
        ordered = bits ^ ((sign << 1) - 1) if bits & sign else bits | sign
        return int(ordered).to_bytes(width, "big")

    def float_value(self, field_type: str, body: bytes) -> float:
        width, fmt, bits_fmt = FLOATS[field_type]
        ordered = int.from_bytes(body, "big")
        sign = 1 << (8 * width - 1)
        bits = ordered ^ sign if ordered & sign else ordered ^ ((sign << 1) - 1)
        value: float = struct.unpack(fmt, struct.pack(bits_fmt, bits))[0]
        return Float32.from_bits(bits) if field_type == "float32" else value

    def text_bytes(self, raw: bytes) -> bytes:
        return raw.replace(b"\x00", b"\x00\xff") + b"\x00\x00"

    def text_value(self, reader: Reader) -> bytes:
        return reader.escaped()

    # -- NULL ------------------------------------------------------------------------------

    def null_byte(self, field: Field) -> int:
        """The NULL marker as written (after any inversion)."""
        return NULL ^ (0xFF if field.descending else 0)

    def inverts(self, field: Field) -> bool:
        """Whether the field's value bytes are inverted: descending fields."""
        return field.descending

    # -- the plan --------------------------------------------------------------------------

    def payload(self, field_type: str) -> tuple[Encoder, Callable[[Reader], Any]]:
        if field_type in INTS:
            width, signed = INTS[field_type]
            lo, hi = (-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1) if signed \
                else (0, (1 << (8 * width)) - 1)

            def enc_int(v: Any) -> bytes:
                # the real type, not isinstance: an object may lie about its __class__
                if type(v) is bool or not issubclass(type(v), int):
                    raise UnsupportedTypeError("not an int", value=v, expected="int")
                if not lo <= v <= hi:
                    raise EncodeError("out of range", value=v, expected=f"{lo}..{hi}")
                return self.int_bytes(field_type, int(v))
            return enc_int, lambda r: self.int_value(field_type, r.take(width))
        if field_type in FLOATS:
            width = FLOATS[field_type][0]

            def enc_float(v: Any) -> bytes:
                if type(v) is bool or not issubclass(type(v), (int, float)):
                    raise UnsupportedTypeError("not a float", value=v, expected="float")
                try:
                    f = float(Float32(v) if field_type == "float32" else v)
                except OverflowError:
                    raise EncodeError("too large for a float", value=v,
                                      expected=f"a {field_type}") from None
                if math.isnan(f):
                    raise EncodeError("NaN is refused", value=v, expected="a number")
                return self.float_bytes(field_type, f)
            return enc_float, lambda r: self.float_value(field_type, r.take(width))
        if field_type == "bool":
            def enc_bool(v: Any) -> bytes:
                if type(v) is not bool:
                    raise UnsupportedTypeError("not a bool", value=v, expected="bool")
                return b"\x01" if v else b"\x00"

            def dec_bool(r: Reader) -> bool:
                body = r.take(1)
                if body not in (b"\x00", b"\x01"):
                    raise DecodeError("bad bool", found=body, expected="00 or 01")
                return body == b"\x01"
            return enc_bool, dec_bool
        if field_type == "string":
            def enc_str(v: Any) -> bytes:
                if type(v) is not str:
                    raise UnsupportedTypeError("not a str", value=v, expected="str")
                try:
                    return self.text_bytes(v.encode("utf-8"))
                except UnicodeEncodeError:
                    raise EncodeError("not UTF-8", value=v, expected="no lone surrogates"
                                      ) from None

            def dec_str(r: Reader) -> str:
                raw = self.text_value(r)
                try:
                    return raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise DecodeError("invalid UTF-8", found=raw, expected="UTF-8") from None
            return enc_str, dec_str

        def enc_bytes(v: Any) -> bytes:
            if type(v) is not bytes:
                raise UnsupportedTypeError("not bytes", value=v, expected="bytes")
            return self.text_bytes(v)
        return enc_bytes, self.text_value

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        enc_payload, dec_payload = self.payload(field.type)
        null = self.null_byte(field)
        inverted = self.inverts(field)

        def encode(v: Any) -> bytes:
            if v is None:
                return bytes((null,))
            out = bytes((VALUE,)) + enc_payload(v)
            return bytes(b ^ 0xFF for b in out) if inverted else out

        def decode(key: bytes, offset: int) -> tuple[Any, int]:
            if offset >= len(key):
                raise DecodeError("the key ends before a field", offset=offset, found=b"",
                                  expected="a field")
            if key[offset] == null:
                return None, offset + 1
            reader = Reader(key, offset, inverted)
            if reader.take(1)[0] != VALUE:
                raise DecodeError("bad field header", offset=offset,
                                  found=key[offset:offset + 1], expected="NULL or a value")
            return dec_payload(reader), reader.offset

        return FieldPlan(index, field, encode, decode)


# -- broken: wrong byte order, one per numeric type ---------------------------------------------


def wrong_byte_order(field_type: str, *also: str) -> type[PlugCodec]:
    """A codec declaring *field_type* (and the types *also*), both directions, that writes
    *field_type* in the wrong byte order (an 8-bit type: with the sign bit handled wrongly)."""

    class WrongByteOrder(PlugCodec):
        name: ClassVar[str] = f"broken-order-{field_type}"
        CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
            PlugCodec.CAPABILITIES, field_types={field_type, *also})

        def int_bytes(self, t: str, value: int) -> bytes:
            width, signed = INTS[t]
            if width == 1:  # one byte has no order: get the sign bit wrong instead
                return ((value + (0 if signed else 0x80)) & 0xFF).to_bytes(1, "big")
            return super().int_bytes(t, value)[::-1]

        def int_value(self, t: str, body: bytes) -> int:
            width, signed = INTS[t]
            if width == 1:
                return int.from_bytes(body, "big", signed=True) if signed else body[0] ^ 0x80
            return super().int_value(t, body[::-1])

        def float_bytes(self, t: str, value: float) -> bytes:
            return super().float_bytes(t, value)[::-1]

        def float_value(self, t: str, body: bytes) -> float:
            return super().float_value(t, body[::-1])

    WrongByteOrder.__name__ = WrongByteOrder.__qualname__ = f"WrongByteOrder_{field_type}"
    return WrongByteOrder


# one name per type, for the entry points (tests/test_broken_plugins.py)
BrokenOrderInt8 = wrong_byte_order("int8")
BrokenOrderInt16 = wrong_byte_order("int16")
BrokenOrderInt32 = wrong_byte_order("int32")
BrokenOrderInt64 = wrong_byte_order("int64")
BrokenOrderUInt8 = wrong_byte_order("uint8")
BrokenOrderUInt16 = wrong_byte_order("uint16")
BrokenOrderUInt32 = wrong_byte_order("uint32", "bool")  # the codec of the issue
BrokenOrderUInt64 = wrong_byte_order("uint64")
BrokenOrderFloat32 = wrong_byte_order("float32")
BrokenOrderFloat64 = wrong_byte_order("float64")


# -- broken: one claim each ---------------------------------------------------------------------


class DescendingIgnored(PlugCodec):
    """Declares descending fields, and writes them ascending."""

    name: ClassVar[str] = "broken-desc"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"int64", "string"})

    def inverts(self, field: Field) -> bool:
        return False  # NULL is still inverted: last when descending, as declared


class NullsLast(PlugCodec):
    """Declares ``nulls="first"``, and writes NULL after every value (ff, never inverted)."""

    name: ClassVar[str] = "broken-nulls"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"int32", "string"}, nulls="first")

    def null_byte(self, field: Field) -> int:
        return 0xFF


class Unterminated(PlugCodec):
    """Writes strings as their bare UTF-8 (no terminator), and declares prefix-freeness."""

    name: ClassVar[str] = "broken-prefix"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"string"}, descending=False)

    def text_bytes(self, raw: bytes) -> bytes:
        return raw

    def text_value(self, reader: Reader) -> bytes:
        return reader.take(len(reader.key) - reader.offset)  # the rest of the key


class LosesAField:
    """A plain class (the Codec protocol, no lexcodecs base): ``plug``'s keys, with a decoder
    that drops the last field."""

    name = "broken-decode"

    def __init__(self) -> None:
        self._plug = _LosesAFieldFormat()

    @property
    def capabilities(self) -> Capabilities:
        return self._plug.capabilities

    def encode(self, values: Sequence[Any], schema: Any = None) -> bytes:
        return self._plug.encode(values, schema)

    def decode(self, key: bytes, schema: Any = None) -> tuple[Any, ...]:
        return self._plug.decode(key, schema)[:-1]

    def prefix_range(self, values: Sequence[Any], schema: Any = None
                     ) -> tuple[bytes, bytes | None]:
        return self._plug.prefix_range(values, schema)

    def bind(self, schema: Any) -> Any:
        return _LossyBound(self._plug.bind(schema))

    def config(self) -> dict[str, Any]:
        return {"name": self.name}


class _LosesAFieldFormat(PlugCodec):
    name: ClassVar[str] = "broken-decode"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"int64", "string"})


class _LossyBound:
    def __init__(self, bound: Any) -> None:
        self.schema: KeySchema = bound.schema
        self._bound = bound

    def encode(self, values: Sequence[Any]) -> bytes:
        return bytes(self._bound.encode(values))

    def decode(self, key: bytes) -> tuple[Any, ...]:
        return tuple(self._bound.decode(key))[:-1]

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        start, stop = self._bound.prefix_range(values)
        return start, stop


class SchemalessMisordered(PlugCodec):
    """Declares schemaless encoding, and writes the ints it is given without a schema
    little-endian (with a schema they are right)."""

    name: ClassVar[str] = "broken-schemaless"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"int64", "string"}, schemaless=True)

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        out = []
        for v in values:
            if v is None:
                out.append(bytes((NULL,)))
            elif type(v) is str:
                out.append(self.encode((v,), "v:string"))
            elif type(v) is int and -(2**63) <= v < 2**63:
                out.append(bytes((VALUE,)) + self.int_bytes("int64", v)[::-1])
            else:
                raise UnsupportedTypeError("not a str or an int64", value=v,
                                           expected="str, int or None")
        return b"".join(out)


class RefusesADeclaredType(PlugCodec):
    """Declares uint16, and refuses to bind it."""

    name: ClassVar[str] = "broken-bind"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"string", "uint16"}, descending=False)

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        if field.type == "uint16":
            raise self.refuse(index, field, "uint16 is not done yet")
        super().check_field(index, field, schema)


# -- correct: the third-party codecs the project's own tests and docs must live with ----------


class ThirdParty(PlugCodec):
    """``plug`` under another name."""

    name: ClassVar[str] = "thirdparty"


class NarrowThirdParty(PlugCodec):
    """A correct codec of uint32 and bool only: no schema of the project's tests fits it."""

    name: ClassVar[str] = "thirdparty-narrow"
    CAPABILITIES: ClassVar[Capabilities] = attrs.evolve(
        PlugCodec.CAPABILITIES, field_types={"uint32", "bool"})


#: name -> (factory, what must catch it: a column of the matrix, or "bind")
BROKEN: dict[str, tuple[Callable[[], Any], str]] = {
    **{cls.name: (cls, "order") for cls in (
        BrokenOrderInt8, BrokenOrderInt16, BrokenOrderInt32, BrokenOrderInt64,
        BrokenOrderUInt8, BrokenOrderUInt16, BrokenOrderUInt32, BrokenOrderUInt64,
        BrokenOrderFloat32, BrokenOrderFloat64)},
    DescendingIgnored.name: (DescendingIgnored, "descending"),
    NullsLast.name: (NullsLast, "null_placement"),
    Unterminated.name: (Unterminated, "prefix_free"),
    LosesAField.name: (LosesAField, "round_trip"),
    SchemalessMisordered.name: (SchemalessMisordered, "schemaless"),
    RefusesADeclaredType.name: (RefusesADeclaredType, "bind"),
}

#: the entry points of a distribution of this module: codec name -> "module:attribute"
ENTRY_POINTS: dict[str, str] = {
    obj.name: f"{__name__}:{attr}" for attr, obj in list(globals().items())
    if isinstance(obj, type) and obj.__module__ == __name__ and not attr.startswith("_")
    and isinstance(getattr(obj, "name", None), str)}
