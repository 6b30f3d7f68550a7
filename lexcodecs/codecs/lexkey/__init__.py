"""``lexkey`` and ``lexkey-legacy``: LexKey, byte-identical with the Go reference.

Theory of operation: a key is its parts' encodings joined by a single ``00``, with nothing
after the last part: no type tags, no lengths, no escaping. Numbers are fixed-width and
order-preserving (sign bit flipped; floats by the Go reference's literal rule); strings and
bytes are raw. That makes keys short and comparable without decoding, at a price the
format's own spec admits and :data:`ANOMALIES` declares: different values can share a key,
prefix ranges leak into siblings, -0.0 sorts below -inf, and kinds and widths do not compare
with each other.

``lexkey`` writes every integer at 64 bits (the reference since 2025-10-01); ``lexkey-legacy``
writes each typed integer (and a ``Float32``) at its native width. Encoding dispatches on
``type(value)`` through :meth:`_LexKey.writers`; decoding needs a schema with at most one
variable-length field, because nothing else in a key says where a string ends.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import struct
import uuid
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

from ..._compile import compile_encode, value_names
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
from ...errors import DecodeError, EncodeError, NotDecodableError, UnsupportedTypeError
from ...inspection import FieldView, Inspection, Part
from ...schema import Field, KeySchema
from ...types import (
    END,
    INT_TYPES,
    EndSentinel,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    TypedInt,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
)

__all__ = [
    "LexKeyCodec",
    "LexKeyLegacyCodec",
    "decode_primary_key",
    "encode_first",
    "encode_last",
    "from_hex",
    "from_json",
    "primary_key",
    "range_key",
    "to_hex",
    "to_json",
]

SEP: Final = b"\x00"
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_US: Final = _dt.timedelta(microseconds=1)
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_Q = struct.Struct(">Q")
_D = struct.Struct(">d")
_I = struct.Struct(">I")
_F = struct.Struct(">f")

#: the Go reference's NaN, written without the order transform (spec §3.4)
GO_NAN64: Final = bytes.fromhex("7ff8000000000001")
GO_NAN32: Final = bytes.fromhex("7fc00001")

#: bytes of each fixed-width field type: (canonical, legacy)
WIDTHS: Final[dict[str, tuple[int, int]]] = {
    "bool": (1, 1),
    "int8": (8, 1), "uint8": (8, 1), "int16": (8, 2), "uint16": (8, 2),
    "int32": (8, 4), "uint32": (8, 4), "float32": (8, 4),
    "int64": (8, 8), "uint64": (8, 8), "int": (8, 8), "float64": (8, 8),
    "timestamp": (8, 8), "duration": (8, 8), "uuid": (16, 16),
}
VARIABLE: Final = frozenset({"string", "bytes"})


# -- numbers ---------------------------------------------------------------------------------


def _signed(v: int, width: int) -> bytes:
    """Two's complement at *width* bytes with the sign bit flipped."""
    bits = 8 * width
    return ((v + (1 << (bits - 1))) & ((1 << bits) - 1)).to_bytes(width, "big")


def _unsigned(v: int, width: int) -> bytes:
    return v.to_bytes(width, "big")


def _float64_bits(x: float) -> bytes:
    bits = _Q.unpack(_D.pack(x))[0]
    # the literal rule: x < 0 is false for -0.0, which therefore gets only its sign bit
    # flipped and becomes 00..00, the smallest key (a declared anomaly)
    return _Q.pack(bits ^ 0xFFFFFFFFFFFFFFFF if x < 0 else bits ^ 0x8000000000000000)


def _float32_bits(bits: int, negative: bool) -> bytes:
    return _I.pack(bits ^ 0xFFFFFFFF if negative else bits ^ 0x80000000)


def _int64(v: int) -> bytes:
    if not _I64_MIN <= v <= _I64_MAX:
        hint = "; use UInt64 for 2**63..2**64-1" if 2**63 <= v < 2**64 else ""
        raise EncodeError(f"a plain int is int64{hint}", value=v,
                          expected=f"{_I64_MIN}..{_I64_MAX}")
    return _signed(v, 8)


def _ns(delta: _dt.timedelta, what: str, value: Any) -> bytes:
    ns = (delta // _US) * 1000  # exact integers, never a float
    if not _I64_MIN <= ns <= _I64_MAX:
        raise EncodeError(f"{what} outside the int64 nanosecond range", value=value,
                          expected="1677-09-21T00:12:43.145225Z..2262-04-11T23:47:16.854775Z"
                          if what == "instant" else "a duration within ±2**63 ns")
    return _signed(ns, 8)


def _instant(v: _dt.datetime) -> bytes:
    if v.utcoffset() is None:
        raise EncodeError("naive datetime refused", value=v,
                          expected="a timezone-aware datetime")
    return _ns(v - _EPOCH, "instant", v)


def _duration(v: _dt.timedelta) -> bytes:
    return _ns(v, "duration", v)


def _text(v: str) -> bytes:
    try:
        return v.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError("string is not valid UTF-8 (lone surrogate)",
                          value=v[exc.start:exc.end],
                          expected="a str without lone surrogates") from None


# -- helpers on encoded keys (spec §4) --------------------------------------------------------

_HEX: Final = re.compile(r"(?:[0-9a-fA-F]{2})*\Z")


def _key(v: Any, what: str) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise UnsupportedTypeError(f"{what} must be bytes", codec="lexkey", value=v,
                               expected="bytes")


def encode_first(values: Sequence[Any]) -> bytes:
    """``lexkey`` ``encode(values) + 00`` (canonical widths)."""
    return _CANONICAL.encode_first(values)


def encode_last(values: Sequence[Any]) -> bytes:
    """``lexkey`` ``encode(values) + ff`` (canonical widths)."""
    return _CANONICAL.encode_last(values)


def primary_key(partition: bytes, row: bytes) -> bytes:
    """``partition + 00 + row``."""
    return _key(partition, "partition") + b"\x00" + _key(row, "row")


def decode_primary_key(key: bytes) -> tuple[bytes, bytes]:
    """Split at the first ``00``: ``(partition, row)``; either may be empty."""
    data = _key(key, "key")
    at = data.find(b"\x00")
    if at < 0:
        raise DecodeError("missing separator", codec="lexkey", offset=len(data),
                          found=b"", expected="a 00 between partition and row")
    return data[:at], data[at + 1:]


def range_key(partition: bytes, start: bytes, end: bytes, with_partition: bool = True
              ) -> tuple[bytes, bytes]:
    """``[lower, upper)`` of rows ``start``..``end`` (spec §4); it leaks, as the seed's does."""
    p = _key(partition, "partition") if with_partition else b""
    start, end = _key(start, "start"), _key(end, "end")
    lower = p + b"\x00" + start
    upper = p + b"\x00" + end + b"\xff" if end else p + b"\xff"
    return lower, upper


def to_hex(key: bytes) -> str:
    """Lowercase hex, no ``0x``; ``""`` for the empty key."""
    return _key(key, "key").hex()


def from_hex(text: str) -> bytes:
    """Strict hex (either case): odd length, spaces or ``0x`` are DecodeErrors."""
    if not isinstance(text, str):
        raise DecodeError("hex text must be a str", codec="lexkey", offset=0,
                          expected="a str of hex digits")
    if not _HEX.match(text):
        bad = next((i for i, c in enumerate(text) if c not in "0123456789abcdefABCDEF"),
                   len(text))
        raise DecodeError("not hex" if bad < len(text) else "odd number of hex digits",
                          codec="lexkey", offset=bad,
                          found=text[bad:bad + 1].encode(), expected="pairs of hex digits")
    return bytes.fromhex(text)


def to_json(key: bytes) -> str:
    """The key as a JSON string of hex: ``'"68656c6c6f"'``."""
    return '"' + to_hex(key) + '"'


def from_json(text: str) -> bytes:
    """JSON ``null`` is the empty key; a JSON string is hex; anything else is refused."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise DecodeError(f"not JSON ({exc})", codec="lexkey", offset=0,
                          expected="a JSON string of hex, or null") from None
    if value is None:
        return b""
    if not isinstance(value, str):
        raise DecodeError(f"JSON {type(value).__name__} is not a key", codec="lexkey",
                          offset=0, expected="a JSON string of hex, or null")
    return from_hex(value)


Writer = Callable[[Any], bytes]


class _LexKey(BaseCodec):
    """Shared by both width modes; ``NATIVE`` says which."""

    NATIVE: ClassVar[bool] = False
    OPTIONS: ClassVar = {
        "nan": Option("error", "'error' refuses NaN (the seed's rule); 'go' writes the Go "
                      "reference's fixed NaN bytes", choices=("error", "go")),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._go_nan = self.options["nan"] == "go"
        self._writers = self.writers()
        self._caps = _capabilities(self)

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    # -- value writers -----------------------------------------------------------------------

    def _float(self, v: float) -> bytes:
        if v != v:
            if self._go_nan:
                return GO_NAN64
            raise EncodeError("NaN is not encodable", value=v,
                              expected="a number (or the codec option nan='go')")
        return _float64_bits(v)

    def _float32(self, v: Float32) -> bytes:
        if not self.NATIVE:
            return self._float(float(v))  # widening to float64 is exact
        if v != v:
            if self._go_nan:
                return GO_NAN32
            raise EncodeError("NaN is not encodable", value=v,
                              expected="a number (or the codec option nan='go')")
        return _float32_bits(v.bits, v < 0)

    def writers(self) -> dict[type, Writer]:
        """Exact type -> writer of one part (spec §2)."""

        def typed(cls: type[TypedInt]) -> Writer:
            width = cls.bits // 8 if self.NATIVE else 8
            write = _signed if cls.signed else _unsigned
            return lambda v: write(int(v), width)

        table: dict[type, Writer] = {
            type(None): lambda v: b"\x00",
            EndSentinel: lambda v: b"\xff",
            bool: lambda v: b"\x01" if v else b"\x00",
            int: _int64,
            float: self._float,
            Float32: self._float32,
            str: _text,
            bytes: bytes,
            bytearray: bytes,
            memoryview: bytes,
            uuid.UUID: lambda v: v.bytes,
            _dt.datetime: _instant,
            _dt.timedelta: _duration,
        }
        for cls in (Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64):
            table[cls] = typed(cls)
        return table

    def _part(self, v: Any) -> bytes:
        writer = self._writers.get(type(v))
        if writer is None:
            writer = self._subclass_writer(v)
        return writer(v)

    def _subclass_writer(self, v: Any) -> Writer:
        for kind, writer in (
            (bool, self._writers[bool]), (TypedInt, None), (int, _int64),
            (Float32, self._float32), (float, self._float), (str, _text),
            ((bytes, bytearray, memoryview), bytes), (uuid.UUID, lambda x: x.bytes),
            (_dt.datetime, _instant), (_dt.timedelta, _duration),
        ):
            if isinstance(v, kind):
                if writer is None:  # a subclass of a typed wrapper: its wrapper's width
                    for cls in type(v).__mro__:
                        if cls in self._writers and issubclass(cls, TypedInt):
                            return self._writers[cls]
                    continue
                return writer
        raise UnsupportedTypeError(f"{type(v).__name__} has no LexKey encoding", value=v,
                                   expected="None, END, bool, int, a lexcodecs int type, "
                                   "float, Float32, str, bytes, UUID, aware datetime or "
                                   "timedelta")

    # -- schemaless API -----------------------------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        if not values:
            raise EncodeError("a key needs at least one part", codec=self.name,
                              value=tuple(values), expected="one or more values")
        parts = []
        for i, v in enumerate(values):
            try:
                parts.append(self._part(v))
            except (EncodeError, UnsupportedTypeError) as exc:
                raise exc.add_context(codec=self.name, field=i) from None
        return SEP.join(parts)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        """``[encode_first(values), encode_last(values))``, the format's own prefix scan.

        It leaks: a sibling whose string part merely starts with the prefix's last string
        falls inside (a declared anomaly). The empty prefix covers every key.
        """
        if schema is not None:
            return self.bind(schema).prefix_range(values)
        if not values:
            return b"", None
        return self.encode_first(values), self.encode_last(values)

    # -- helpers (spec §4) -------------------------------------------------------------------

    def encode_first(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        """``encode(values) + 00``: the first key that extends *values*."""
        return self.encode(values, schema) + b"\x00"

    def encode_last(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        """``encode(values) + ff``: above every key that extends *values*."""
        return self.encode(values, schema) + b"\xff"

    # the helpers on encoded keys do not depend on the width mode
    primary_key = staticmethod(primary_key)
    decode_primary_key = staticmethod(decode_primary_key)
    range_key = staticmethod(range_key)
    to_hex = staticmethod(to_hex)
    from_hex = staticmethod(from_hex)
    to_json = staticmethod(to_json)
    from_json = staticmethod(from_json)

    # -- schemas -----------------------------------------------------------------------------

    def width(self, field_type: str) -> int | None:
        w = WIDTHS.get(field_type)
        return None if w is None else w[1 if self.NATIVE else 0]

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        t = field.type
        if t in INT_TYPES or t == "int":
            cls = INT_TYPES.get(t, Int64)
            write = self._writers[cls]

            def coerce(v: Any) -> Any:
                if type(v) is bool or not isinstance(v, int):
                    raise UnsupportedTypeError(f"{type(v).__name__} in an integer field",
                                               value=v, expected="int")
                return cls(v)
        elif t == "float32":
            write = self._float32

            def coerce(v: Any) -> Any:
                if type(v) is bool or not isinstance(v, (int, float)):
                    raise UnsupportedTypeError(f"{type(v).__name__} in a float32 field",
                                               value=v, expected="Float32, float or int")
                return v if type(v) is Float32 else Float32(v)
        elif t == "float64":
            write = self._float

            def coerce(v: Any) -> Any:
                if isinstance(v, float):
                    return float(v)
                if type(v) is not bool and isinstance(v, int):
                    if abs(v) < 2**1024 and int(float(v)) == v:
                        return float(v)
                    raise EncodeError("integer does not convert to float64 exactly",
                                      value=v, expected="an int a float64 holds exactly")
                raise UnsupportedTypeError(f"{type(v).__name__} in a float64 field", value=v,
                                           expected="float, Float32 or an exact int")
        else:
            kinds: dict[str, tuple[Any, Writer, str]] = {
                "string": (str, _text, "str"),
                "bytes": ((bytes, bytearray, memoryview), bytes, "bytes"),
                "bool": (bool, self._writers[bool], "bool"),
                "uuid": (uuid.UUID, lambda x: x.bytes, "uuid.UUID"),
                "timestamp": (_dt.datetime, _instant, "an aware datetime"),
                "duration": (_dt.timedelta, _duration, "timedelta"),
            }
            kind, write, expected = kinds[t]

            def coerce(v: Any) -> Any:
                if not isinstance(v, kind) or (t != "bool" and isinstance(v, bool)) or (
                        t == "bool" and type(v) is not bool):
                    raise UnsupportedTypeError(f"{type(v).__name__} in a {t} field", value=v,
                                               expected=expected)
                return v

        def encode(v: Any) -> bytes:
            return b"\x00" if v is None else write(coerce(v))

        return FieldPlan(index, field, encode, None)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        return _BoundLexKey(self, schema, plans)

    # -- inspect -----------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """How *schema* reads the key: each part's bytes and type, the ``00`` separators, and
        notes on what the bytes alone do not say (a ``00`` inside a string looks like a
        separator, fixed-width parts carry no type). Without a schema nothing decodes: the
        key is shown as one raw part, with notes on what can and cannot be told.
        """
        data = as_key_bytes(self.name, key)
        if schema is None:
            return _inspect_schemaless(self, data)
        parsed = KeySchema.coerce(schema)
        self.decode(data, parsed)  # NotDecodableError, or a DecodeError with the offset
        bound = self.bind(parsed)
        assert isinstance(bound, _BoundLexKey)
        n = len(parsed)
        fixed = sum(w for w in bound._widths if w is not None) + n - 1
        notes = ["LexKey has no type tags, lengths or escaping: this is how the schema reads "
                 "the key; the bytes alone do not say where its parts end or what they are"]
        fields = []
        pos = 0
        for i, (f, w, read) in enumerate(zip(parsed.fields, bound._widths, bound._readers)):
            stop = pos + (len(data) - fixed if w is None else w)
            value = read(data[pos:stop])
            parts = _part_parts(self, f, data, pos, stop, value)
            where = f"field {i} {f.name!r} ({f.type})"
            if w is None and n > 1:
                notes.append(f"{where} is {_plural(stop - pos)}: what is left of the key after "
                             f"the fixed-width parts and separators ({fixed} bytes)")
            notes += _part_notes(self, where, f, data[pos:stop], value, pos, len(data) - 1)
            if i < n - 1:
                parts.append(Part(stop, stop + 1, "separator", "00 between parts"))
                stop += 1
            fields.append(FieldView(i, f.name, pos, stop, value, tuple(parts), f.type))
            pos = stop
        return Inspection(self.name, data, tuple(fields), tuple(notes), str(parsed))


class _BoundLexKey(BoundKey):
    """Parts joined by 00; decoding by widths, with at most one variable-length field."""

    __slots__ = ("_readers", "_variable", "_widths", "encode")

    def __init__(self, codec: _LexKey, schema: KeySchema, plans: Sequence[FieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self._widths = [codec.width(f.type) for f in schema.fields]
        self._variable = [i for i, w in enumerate(self._widths) if w is None]
        self._readers = [_reader(codec, f) for f in schema.fields]
        # a slot shadowing the method: calls reach the compiled code with no frame between
        self.encode = _compile_encode(codec, schema, self.careful_encode)  # type: ignore[method-assign,assignment]

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference path: field plans, with every error explained."""
        values = self._check_arity(values)
        try:
            return SEP.join([enc(v) for enc, v in zip(self._encoders, values)])
        except (EncodeError, UnsupportedTypeError) as exc:
            raise self._locate(exc, values) from None

    def _encode_prefix(self, values: Sequence[Any]) -> bytes:
        try:
            return SEP.join([enc(v) for enc, v in zip(self._encoders, values)])
        except (EncodeError, UnsupportedTypeError) as exc:
            raise self._locate(exc, values) from None

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        values = self._check_arity(values, prefix=True)
        if not values:
            return b"", None
        body = self._encode_prefix(values)
        return body + b"\x00", body + b"\xff"

    def decode(self, key: bytes) -> tuple[Any, ...]:
        name = self._name
        if len(self._variable) > 1:
            names = ", ".join(f"{self.schema.fields[i].name!r}" for i in self._variable)
            raise NotDecodableError(
                f"fields {names} both have variable length; LexKey has no lengths, tags or "
                "escaping, so where one ends cannot be found", codec=name,
                expected="at most one string or bytes field")
        data = as_key_bytes(name, key)
        n = len(self._widths)
        fixed = sum(w for w in self._widths if w is not None) + n - 1
        if self._variable:
            var_len = len(data) - fixed
            if var_len < 0:
                raise DecodeError(f"{len(data)} bytes, fewer than the {fixed} the fixed "
                                  "parts need", codec=name, offset=len(data), found=b"")
        elif len(data) != fixed:
            raise DecodeError(f"length: {len(data)} bytes for a fixed {fixed}-byte key",
                              codec=name, offset=len(data), found=b"",
                              expected=f"{fixed} bytes")
        out = []
        pos = 0
        for i, (w, read) in enumerate(zip(self._widths, self._readers)):
            size = var_len if w is None else w
            try:
                out.append(read(data[pos:pos + size]))
            except DecodeError as exc:
                exc.offset = pos if exc.offset is None else pos + exc.offset
                raise self._context(exc, i) from None
            pos += size
            if i < n - 1:
                if data[pos] != 0:
                    raise DecodeError(f"byte {pos} must be the 00 separator", codec=name,
                                      offset=pos, found=data[pos:pos + 1], expected="00")
                pos += 1
        return tuple(out)


# -- compiled bound encode ------------------------------------------------------------------
#
# As for fdb-tuple: the field types are known once a schema is bound, so one function is
# written per schema with each field's common case inline, guarded by exact type checks.
# Anything else (a subclass, a coercion, NaN, an error) returns the careful path's answer
# for the whole key, so the compiled code accepts nothing the careful path refuses.


def _encode_src(codec: _LexKey, field: Field, v: str) -> tuple[str, str] | None:
    """(guard, expression) writing field value *v*, or None for "always careful"."""
    t = field.type
    if t in INT_TYPES or t == "int":
        cls = INT_TYPES.get(t, Int64)
        width = cls.bits // 8 if codec.NATIVE else 8
        bias = 1 << (8 * width - 1) if cls.signed else 0
        value = f"({v} + {bias})" if bias else v
        return (f"type({v}) is int and {cls.min} <= {v} <= {cls.max}",
                f'{value}.to_bytes({width}, "big")')
    if t == "string":
        return f"type({v}) is str", f'{v}.encode("utf-8")'
    if t == "bytes":
        return f"type({v}) is bytes", v
    if t == "bool":
        return f"type({v}) is bool", f'(b"\\x01" if {v} else b"\\x00")'
    if t == "uuid":
        return f"type({v}) is UUID", f'{v}.int.to_bytes(16, "big")'
    if t == "float64":
        return (f"type({v}) is float and {v} == {v}",
                f"_PACK_Q(_UNPACK_Q(_PACK_D({v}))[0] ^ (0xFFFFFFFFFFFFFFFF if {v} < 0 "
                f"else 0x8000000000000000))")
    return None


def _compile_encode(codec: _LexKey, schema: KeySchema,
                    careful: Callable[[Sequence[Any]], bytes]) -> Callable[[Sequence[Any]], bytes]:
    names, _ = value_names(len(schema))
    guards, exprs = [], []
    for name, f in zip(names, schema.fields):
        src = _encode_src(codec, f, name)
        if src is None:
            return careful
        guard, expr = src
        guards.append(f"({name} is None or {guard})")
        exprs.append(f'(b"\\x00" if {name} is None else {expr})')
    namespace = {"UUID": uuid.UUID, "_PACK_Q": _Q.pack, "_UNPACK_Q": _Q.unpack,
                 "_PACK_D": _D.pack}
    return compile_encode(f"{codec.name} bound to {schema}", guards, exprs, SEP, careful,
                          namespace)


def _reader(codec: _LexKey, field: Field) -> Callable[[bytes], Any]:
    """Read one part's bytes as a value of the field's type (spec §6)."""
    t = field.type
    native = codec.NATIVE
    go_nan = codec._go_nan

    def bad(reason: str, raw: bytes) -> DecodeError:
        return DecodeError(reason, offset=0, found=raw)

    if t == "bool":
        def read(raw: bytes) -> Any:
            if raw not in (b"\x00", b"\x01"):
                raise bad("not a bool", raw)
            return raw == b"\x01"
        return read
    if t in INT_TYPES or t == "int":
        cls = INT_TYPES.get(t, Int64)
        width = cls.bits // 8 if native else 8
        signed = cls.signed

        def read(raw: bytes) -> Any:
            k = int.from_bytes(raw, "big")
            v = k - (1 << (8 * width - 1)) if signed else k
            if not cls.min <= v <= cls.max:
                raise bad(f"{v} is out of range for {cls.type_name}", raw)
            return v
        return read
    if t == "float64" or (t == "float32" and not native):
        def read(raw: bytes) -> Any:
            k = _Q.unpack(raw)[0]
            if go_nan and raw == GO_NAN64:
                return _wrap(float("nan"))
            if k == 0:
                x = -0.0
            elif 0x000FFFFFFFFFFFFF <= k <= 0x7FFFFFFFFFFFFFFE:
                x = _D.unpack(_Q.pack(k ^ 0xFFFFFFFFFFFFFFFF))[0]
            elif 0x8000000000000000 <= k <= 0xFFF0000000000000:
                x = _D.unpack(_Q.pack(k ^ 0x8000000000000000))[0]
            else:
                raise bad("no encoder writes these float bits", raw)
            return _wrap(x)

        def _wrap(x: float) -> Any:
            if t == "float64":
                return x
            if not Float32.is_exact(x):
                raise bad("not a binary32 value", _Q.pack(0) if x != x else _D.pack(x))
            return Float32(x)
        return read
    if t == "float32":  # legacy, 32 bits
        def read(raw: bytes) -> Any:
            if go_nan and raw == GO_NAN32:
                return Float32(float("nan"))
            k = _I.unpack(raw)[0]
            if k == 0:
                return Float32.from_bits(0x80000000)
            if 0x007FFFFF <= k <= 0x7FFFFFFE:
                return Float32.from_bits(k ^ 0xFFFFFFFF)
            if 0x80000000 <= k <= 0xFF800000:
                return Float32.from_bits(k ^ 0x80000000)
            raise bad("no encoder writes these float bits", raw)
        return read
    if t in ("timestamp", "duration"):
        def read(raw: bytes) -> Any:
            ns = int.from_bytes(raw, "big") - (1 << 63)
            if ns % 1000:
                raise bad(f"{ns} ns is not a whole number of microseconds", raw)
            delta = _dt.timedelta(microseconds=ns // 1000)
            return _EPOCH + delta if t == "timestamp" else delta
        return read
    if t == "uuid":
        return lambda raw: uuid.UUID(bytes=raw)
    if t == "string":
        def read(raw: bytes) -> Any:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                # the offset is the field's first byte (spec §6); the bad bytes are shown
                raise DecodeError(f"invalid UTF-8 at byte {exc.start} of the string "
                                  f"({exc.reason})", offset=0,
                                  found=raw[exc.start:exc.end]) from None
        return read
    return bytes  # bytes


# -- inspect ---------------------------------------------------------------------------------

#: the field types shown as other readings of a fixed-width part ("int" is int64's alias)
_READINGS: Final = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32",
                    "int64", "uint64", "float64", "timestamp", "duration", "uuid")


def _plural(n: int) -> str:
    return "1 byte" if n == 1 else f"{n} bytes"


def _show(v: Any) -> str:
    if isinstance(v, _dt.datetime):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return f"timedelta({v})"
    if isinstance(v, uuid.UUID):
        return str(v)
    return repr(v)


def _readings(codec: _LexKey, raw: bytes, field: Field | None, value: Any) -> list[str]:
    """What *raw* also reads as under the other fixed-width types of its width.

    In ``lexkey`` the narrow integer types are int64/uint64 readings with a range check, so
    only the types written at their own width are tried.
    """
    out = []
    for t in _READINGS:
        if codec.width(t) != len(raw) or (not codec.NATIVE and WIDTHS[t][0] != WIDTHS[t][1]):
            continue
        if field is not None and (t == field.type or (t, field.type) == ("int64", "int")):
            continue
        try:
            other = _reader(codec, Field("x", t))(raw)
        except DecodeError:
            continue
        if field is not None and type(other) is type(value) and other == value:
            continue
        out.append(f"{t} {_show(other)}")
    return out


def _nul_offsets(raw: bytes, base: int) -> list[int]:
    return [base + j for j, b in enumerate(raw) if b == 0]


def _at(offsets: list[int]) -> str:
    """``byte 3`` or ``bytes 3, 5-10``: runs of offsets shortened."""
    runs: list[list[int]] = []
    for o in offsets:
        if runs and runs[-1][1] == o - 1:
            runs[-1][1] = o
        else:
            runs.append([o, o])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"byte {text}" if len(offsets) == 1 else f"bytes {text}"


def _part_parts(codec: _LexKey, field: Field, data: bytes, pos: int, stop: int, value: Any
                ) -> list[Part]:
    """The parts of one field's bytes ``data[pos:stop]`` (its separator is added after)."""
    t = field.type
    raw = data[pos:stop]
    if t in VARIABLE:
        if not raw:
            return [Part(pos, pos, "payload", f"empty {t}: no bytes")]
        parts = []
        at = pos
        for j in [*_nul_offsets(raw, pos), stop]:
            if j > at:
                chunk = data[at:j]
                parts.append(Part(at, j, "payload", f"{chunk!r}, raw" if t == "bytes"
                                  else f"UTF-8 {chunk.decode('utf-8')!r}, raw"))
            if j < stop:
                parts.append(Part(j, j + 1, "nul", f"a 00 of the {t}, not escaped: only the "
                                  "widths say it is no separator"))
            at = j + 1
        return parts
    width = len(raw)
    if t == "bool":
        text = "true" if value else "false (None is also written 00)"
    elif t in INT_TYPES or t == "int":
        cls = INT_TYPES.get(t, Int64)
        as_read = f"{'int' if cls.signed else 'uint'}{8 * width}"
        text = f"{value}: {as_read}" + (", sign bit flipped" if cls.signed else ", big-endian")
        if as_read != cls.type_name and t != "int":
            text += f" (canonical width; must fit {t})"
    elif t in ("float64", "float32"):
        go_nan = codec._go_nan and raw in (GO_NAN64, GO_NAN32)
        text = (f"{_show(value)}: " + ("the Go reference's NaN bytes, not transformed"
                                       if go_nan else
                                       "00…00, only the sign bit flipped (the literal rule)"
                                       if not any(raw) else
                                       f"IEEE binary{8 * width}, every bit inverted (x < 0)"
                                       if raw[0] < 0x80 else
                                       f"IEEE binary{8 * width}, sign bit flipped"))
        if t == "float32" and width == 8:
            text += " (a float32 widened to float64)"
    elif t in ("timestamp", "duration"):
        text = (f"{_show(value)}: " + ("ns since 1970-01-01 UTC" if t == "timestamp"
                                       else "ns") + " as int64, sign bit flipped")
    else:
        text = f"{value} (16 bytes)"
    return [Part(pos, stop, "payload", text)]


def _part_notes(codec: _LexKey, where: str, field: Field, raw: bytes, value: Any, pos: int,
                last: int) -> list[str]:
    """The ambiguities of one field's bytes *raw* (at *pos*; *last* is the offset of the
    key's last byte), as notes."""
    t = field.type
    notes = []
    nuls = _nul_offsets(raw, pos)
    if t in VARIABLE:
        if nuls:
            pieces: tuple[Any, ...] = tuple(raw.split(b"\x00"))
            if t == "string":
                pieces = tuple(p.decode("utf-8") for p in pieces)
            notes.append(f"{where} holds 00 at {_at(nuls)}: LexKey "
                         "does not escape it, so it looks like a separator and sorts like one "
                         f"(nul-sorts-as-separator); the same bytes are the parts {pieces!r}")
        if raw == b"\x00":
            notes.append(f"{where} is the single byte 00, which is also how None (NULL) and "
                         "False are written (not-injective)")
        return notes
    if t == "bool" and raw == b"\x00":
        notes.append(f"{where} is 00: False, and also how None (NULL) is written; a NULL reads "
                     "back as False (null-does-not-round-trip)")
    if t in ("float64", "float32") and not any(raw):
        notes.append(f"{where} is -0.0, written 00…00 by the literal rule: it sorts below -inf "
                     "(negative-zero-below-inf)")
    if raw in (GO_NAN64, GO_NAN32) and t in ("float64", "float32") and (
            len(raw) == 8 or codec.NATIVE):
        number = ("-1.1125369292535997e-308" if len(raw) == 8
                  else "the float32 with bits 803ffffe")
        notes.append(f"{where} holds {raw.hex()}, the Go reference's NaN, which is also the "
                     f"key of {number} (go-nan-collides): "
                     + ("read as NaN under nan='go'" if codec._go_nan
                        else "read as that number under the default nan='error'"))
    others = _readings(codec, raw, field, value)
    # a key's last byte is never a separator: nothing follows the last part
    nuls = [o for o in nuls if o != last]
    if others or nuls:
        text = f"{where}: no tag says its type is {t}"
        if others:
            text += (f"; as another type its {_plural(len(raw))} "
                     f"{'reads' if len(raw) == 1 else 'read'} as " + ", ".join(others))
        if nuls:
            text += (f"; read without the schema, its 00 at {_at(nuls)} could be taken for "
                     + ("a separator" if len(nuls) == 1 else "separators"))
        notes.append(text)
    return notes


def _inspect_schemaless(codec: _LexKey, data: bytes) -> Inspection:
    """Without a schema: the key as one raw part, its 00 bytes marked, and what can be told."""
    nuls = _nul_offsets(data, 0)
    parts = []
    for run in re.finditer(rb"\x00+|[^\x00]+", data):
        a, b = run.span()
        if data[a]:
            parts.append(Part(a, b, "data", "no 00: inside one part"))
            continue
        final = b == len(data)  # a key's last byte is never a separator
        if b - final > a:
            parts.append(Part(a, b - final, "separator?", "a separator, a NULL or False part, "
                              "or a 00 inside a value" if b - final - a == 1 else
                              f"{b - final - a} × 00: each a separator, a NULL or False part, "
                              "or a 00 inside a value"))
        if final:
            parts.append(Part(b - 1, b, "nul", "no separator (nothing follows the last part): "
                              "a NULL or False part, or the last byte of a value"))
    if not data:
        parts.append(Part(0, 0, "data", "empty: the key of ('',) or (b'',)"))
    notes = ["without a schema LexKey keys do not decode: they carry no type tags, lengths or "
             "escaping, so neither the number of parts nor their types can be told; the key "
             "is shown as one raw part. Inspect with a schema that has at most one string or "
             "bytes field"]
    seps = [o for o in nuls if o != len(data) - 1]  # the last byte is never a separator
    if seps:
        notes.append(f"00 at {_at(seps)}: every separator is one of "
                     f"them, so the key has at most {len(seps) + 1} parts; but any of them may "
                     "instead be a NULL or False part, or a byte of a string, bytes or number")
    if nuls:
        if nuls[0] == 0 and len(data) > 1:
            notes.append("the key starts with 00: the separator after an empty first part "
                         "('' or b''), or a NULL or False part, or the first byte of a value")
        if nuls[-1] == len(data) - 1:
            notes.append("the key ends with 00, which is no separator (nothing follows the "
                         "last part): a NULL or False last part, the last byte of a value, or "
                         "the 00 that encode_first appends")
    if data and not seps:
        notes.append("no 00 byte that can be a separator: the key is a single part")
    others = _readings(codec, data, None, None)
    if others:
        notes.append(f"as one fixed-width part, its {len(data)} bytes read as "
                     + ", ".join(others))
    return Inspection(codec.name, data, (FieldView(0, None, 0, len(data), data, tuple(parts)),),
                      tuple(notes))


def _capabilities(codec: _LexKey) -> Capabilities:
    return Capabilities(
        field_types=set(WIDTHS) | VARIABLE,
        decoding="schema",
        schemaless=True,
        descending=False,
        nulls="fixed",
        injective=False,
        prefix_free=False,
        float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
        anomalies=ANOMALIES + (LEGACY_ANOMALIES if codec.NATIVE else ())
        + (GO_NAN_ANOMALIES if codec._go_nan else ()),
        int_range=(_I64_MIN, _I64_MAX),
        notes="no tags, lengths or escaping: short keys, but see the declared anomalies",
    )


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


class LexKeyCodec(_LexKey):
    """LexKey with canonical 64-bit numeric widths (``lexkey``).

    >>> codec = LexKeyCodec()
    >>> codec.encode(("foo", 42, True)).hex()
    '666f6f00800000000000002a0001'
    >>> codec.decode(bytes.fromhex("666f6f00800000000000002a0001"), "s:string, n:int64, b:bool")
    ('foo', 42, True)
    """

    name = "lexkey"
    NATIVE = False


class LexKeyLegacyCodec(_LexKey):
    """LexKey with native widths (``lexkey-legacy``): ``Int16(123)`` is ``807b``."""

    name = "lexkey-legacy"
    NATIVE = True


_CANONICAL: Final = LexKeyCodec()
