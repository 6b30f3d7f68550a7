"""Toy codecs for testing the foundation: one correct, five deliberately broken.

The correct ``toy`` codec is a small K2-like format, simple enough to trust by reading:

    field   := NULL_FIRST | NULL_LAST | value | ~value   (~: ones' complement, descending)
    value   := 02 payload
    payload := int64: 8 bytes big-endian, sign bit flipped
             | float64: IEEE bits in sortable form (lexcodecs._bytes.order_bits)
             | bool: 00 / 01
             | string, bytes: data with 00 -> 00 ff, then 00 01
    NULL_FIRST := 01   NULL_LAST := fe    (never inverted)

Each broken codec changes one thing, and the conformance check named in its docstring must
catch it.

The toy declares its columnar layout as a plugin would (``COLUMNAR``, in the vocabulary of
:mod:`lexcodecs.pieces`): every field is ``02`` and the kernel's big-endian, float, bool or
escaped-bytes writer, so :func:`lexcodecs.columnar.encode_arrow` writes it through the kernel.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from lexcodecs import (
    BaseCodec,
    Capabilities,
    DecodeError,
    EncodeError,
    FieldPlan,
    FloatPolicy,
    KeySchema,
    UnsupportedTypeError,
)
from lexcodecs._bytes import escape_nul, invert, order_bits, strinc, unorder_bits
from lexcodecs.pieces import FLAGS, WRITERS, CodecPieces, Piece
from lexcodecs.schema import Field

NULL_FIRST, VALUE, NULL_LAST = b"\x01", b"\x02", b"\xfe"
_Q = struct.Struct(">Q")
_D = struct.Struct(">d")

Encoder = Callable[[Any], bytes]
Decoder = Callable[[bytes, int], tuple[Any, int]]


def _need(key: bytes, offset: int, n: int) -> None:
    if offset + n > len(key):
        raise DecodeError("key ends inside a field", offset=len(key), found=b"",
                          expected=f"{n} more byte(s)")


def _enc_int(v: Any) -> bytes:
    # by the real type: an object can lie to isinstance about its class
    if type(v) is bool or not issubclass(type(v), int):
        raise UnsupportedTypeError("not an int", value=v, expected="int")
    if not -(1 << 63) <= v < (1 << 63):
        raise EncodeError("out of range", value=v, expected="-2**63..2**63-1")
    return (v + (1 << 63)).to_bytes(8, "big")


def _dec_int(body: bytes) -> int:
    return int.from_bytes(body, "big") - (1 << 63)


def _enc_float(v: Any) -> bytes:
    if type(v) is not float and not isinstance(v, float):
        raise UnsupportedTypeError("not a float", value=v, expected="float")
    return _Q.pack(order_bits(_Q.unpack(_D.pack(v))[0], 8))


def _dec_float(body: bytes) -> float:
    return float(_D.unpack(_Q.pack(unorder_bits(_Q.unpack(body)[0], 8)))[0])


def _enc_bool(v: Any) -> bytes:
    if type(v) is not bool:
        raise UnsupportedTypeError("not a bool", value=v, expected="bool")
    return b"\x01" if v else b"\x00"


def _dec_bool(body: bytes) -> bool:
    if body not in (b"\x00", b"\x01"):
        raise DecodeError("bad bool", found=body, expected="00 or 01")
    return body == b"\x01"


#: the toy's fields as the columnar kernel writes them (a NULL's bytes: the row API's)
TOY_PIECES: dict[str, Piece] = {
    "int64": Piece(WRITERS["be"], 8, FLAGS["signflip"], VALUE, lo=-(1 << 63), hi=(1 << 63) - 1),
    "float64": Piece(WRITERS["float"], 8, 0, VALUE),
    "bool": Piece(WRITERS["bool"], 1, 0, VALUE),
    "string": Piece(WRITERS["bytes"], 0, FLAGS["escape00"], VALUE, b"\x00\x01"),
    "bytes": Piece(WRITERS["bytes"], 0, FLAGS["escape00"], VALUE, b"\x00\x01"),
}


def toy_piece(field: Field) -> Piece | None:
    piece = TOY_PIECES.get(field.type)
    return None if piece is None else piece.descending(field.descending)


class ToyCodec(BaseCodec):
    """The correct toy codec (see the module docstring)."""

    name = "toy"
    COLUMNAR: ClassVar[CodecPieces | None] = CodecPieces(b"", toy_piece)
    CAPABILITIES = Capabilities(
        field_types={"string", "bytes", "bool", "int64", "float64"},
        decoding="schema",
        descending=True,
        nulls="both",
        injective=True,
        prefix_free=True,
        float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
        notes="test codec",
    )

    # fixed-width payloads: (width, encode, decode)
    FIXED: ClassVar[dict[str, tuple[int, Encoder, Callable[[bytes], Any]]]] = {
        "int64": (8, _enc_int, _dec_int),
        "float64": (8, _enc_float, _dec_float),
        "bool": (1, _enc_bool, _dec_bool),
    }

    def encode_text(self, v: Any) -> bytes:
        if type(v) is not str:
            raise UnsupportedTypeError("not a str", value=v, expected="str")
        try:
            return escape_nul(v.encode("utf-8")) + b"\x00\x01"
        except UnicodeEncodeError:
            raise EncodeError("not encodable as UTF-8", value=v,
                              expected="a str without lone surrogates") from None

    def encode_blob(self, v: Any) -> bytes:
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise UnsupportedTypeError("not bytes", value=v, expected="bytes")
        return escape_nul(bytes(v)) + b"\x00\x01"

    def read_escaped(self, key: bytes, offset: int) -> tuple[bytes, int]:
        out = []
        pos = offset
        while True:
            nul = key.find(b"\x00", pos)
            if nul < 0 or nul + 1 >= len(key):
                raise DecodeError("string has no terminator", offset=len(key), found=b"",
                                  expected="00 01")
            out.append(key[pos:nul])
            nxt = key[nul + 1]
            if nxt == 0x01:
                return b"\x00".join(out), nul + 2
            if nxt != 0xFF:
                raise DecodeError("bad escape", offset=nul, found=key[nul:nul + 2],
                                  expected="00 ff or 00 01")
            pos = nul + 2

    def decode_text(self, body: bytes) -> str:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError("invalid UTF-8", found=body[exc.start:exc.end],
                              expected="UTF-8") from None

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        null = NULL_FIRST if field.effective_nulls == "first" else NULL_LAST
        desc = field.descending
        fixed = self.FIXED.get(field.type)
        if fixed is not None:
            width, enc_body, dec_body = fixed
        elif field.type == "string":
            enc_body = self.encode_text
        else:
            enc_body = self.encode_blob

        def encode(v: Any) -> bytes:
            if v is None:
                return null
            out = VALUE + enc_body(v)
            return invert(out) if desc else out

        def decode(key: bytes, offset: int) -> tuple[Any, int]:
            _need(key, offset, 1)
            head = key[offset:offset + 1]
            if head == null:
                return None, offset + 1
            if head != (invert(VALUE) if desc else VALUE):
                raise DecodeError("bad field header", offset=offset, found=head,
                                  expected=f"{null.hex()} or a value")
            start = offset + 1
            if fixed is not None:
                _need(key, start, width)
                body = key[start:start + width]
                body = invert(body) if desc else body
                return dec_body(body), start + width
            if desc:
                # find the inverted terminator: invert the rest, then read as ascending
                raw, end = self.read_escaped(invert(key[start:]), 0)
                end += start
            else:
                raw, end = self.read_escaped(key, start)
            value: Any = self.decode_text(raw) if field.type == "string" else raw
            return value, end

        return FieldPlan(index, field, encode, decode)


def _twos_complement(v: Any) -> bytes:
    _enc_int(v)  # same checks as the correct codec
    return int(v).to_bytes(8, "big", signed=True)


def _from_twos_complement(body: bytes) -> int:
    return int.from_bytes(body, "big", signed=True)


class NegativesFirstBroken(ToyCodec):
    """Writes int64 as plain two's complement: negatives sort after positives. Caught by
    the order check."""

    name = "toy-negatives"
    FIXED: ClassVar = {**ToyCodec.FIXED, "int64": (8, _twos_complement, _from_twos_complement)}
    COLUMNAR = None  # its int64 is not the toy's piece


def _squash_zero(v: Any) -> bytes:
    if isinstance(v, float) and v == 0.0:
        v = 0.0  # -0.0 collides with +0.0, though the policy says they are distinct
    return _enc_float(v)


class CollidingBroken(ToyCodec):
    """Writes -0.0 like +0.0 while claiming they are distinct. Caught by the injectivity check.
    """

    name = "toy-colliding"
    FIXED: ClassVar = {**ToyCodec.FIXED, "float64": (8, _squash_zero, _dec_float)}
    COLUMNAR = None  # its float64 is not the toy's piece


class LossyBroken(ToyCodec):
    """Decodes strings with trailing whitespace stripped. Caught by the round-trip check."""

    name = "toy-lossy"

    def decode_text(self, body: bytes) -> str:
        return super().decode_text(body).rstrip()


class IndexErrorBroken(ToyCodec):
    """Reads fixed-width payloads without checking the length of the key: junk raises
    ``struct.error``/``IndexError``. Caught by the junk-decoding check."""

    name = "toy-fragile"

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        plan = super().plan_field(index, field, schema)
        good = plan.decode
        assert good is not None

        def decode(key: bytes, offset: int) -> tuple[Any, int]:
            key[offset]  # IndexError on a key that ends here
            return good(key, offset)

        return FieldPlan(index, field, plan.encode, decode)


class WideRangeBroken(ToyCodec):
    """``prefix_range`` covers every key that shares all but the last prefix field. Caught by
    the prefix-range check."""

    name = "toy-wide-range"

    def prefix_range(self, values: Sequence[Any], schema: Any = None
                     ) -> tuple[bytes, bytes | None]:
        bound = self.bind(schema)
        start, stop = bound.prefix_range(values)
        if values:
            shorter, _ = bound.prefix_range(list(values)[:-1])
            return start, strinc(shorter)
        return start, stop


BROKEN = (NegativesFirstBroken, CollidingBroken, LossyBroken, IndexErrorBroken,
          WideRangeBroken)

__all__ = ["BROKEN", "CollidingBroken", "IndexErrorBroken", "LossyBroken",
           "NegativesFirstBroken", "ToyCodec", "WideRangeBroken"]


def _short_terminator(field: Field) -> Piece | None:
    piece = TOY_PIECES.get(field.type)
    if piece is not None and field.type in ("string", "bytes"):
        piece = Piece(WRITERS["bytes"], 0, FLAGS["escape00"], VALUE, b"\x00")
    return None if piece is None else piece.descending(field.descending)


class ColumnarBroken(ToyCodec):
    """Declares its strings and bytes ending in ``00`` where the row API writes ``00 01``:
    the kernel writes other keys than the row API. Caught by the columnar check."""

    name = "toy-columnar"
    COLUMNAR = CodecPieces(b"", _short_terminator)
