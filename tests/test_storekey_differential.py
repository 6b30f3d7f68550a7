"""``storekey``: the compiled engine and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation of a bound schema
under both implementations on valid and hostile values and keys (as ``bytes``, ``bytearray``
or ``memoryview``), and checks the compiled path is in use. What is storekey's own is here:
the Option layers (``nullable=true`` and ``2``, ``Some(None)`` a valid value), chars, enum
variants over the whole u32 range, ``repr=seq`` sequences, strings holding U+0000 (valid
values the format writes raw), ``parse`` (the crate's ``deserialize``: the values and the bytes
left over) run beside ``decode``, and the values that must be read for what they are or must
hand over.
"""

from __future__ import annotations

import contextlib
import math
import struct
from typing import Any, ClassVar

import pytest
from hypothesis import strategies as st

from lexcodecs import KeySchema, LexCodecError, Some, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.storekey import StorekeyCodec
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import COMPARED, Operation, both
from lexcodecs.testing.hostile import Colour, Liar, MyBytes, MyFloat, MyInt, MyStr
from lexcodecs.testing.strategies import Overrides
from lexcodecs.types import Float32, Int8

CODEC = StorekeyCodec()
_D, _Q = struct.Struct(">d"), struct.Struct(">Q")


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


#: strings with U+0000 and the bytes around it: valid values, written raw
TEXT = st.text(st.sampled_from(["a", "\x00", "\x01", "é", "\U0010ffff"]), max_size=5) | \
    st.text(max_size=4)
VARIANTS = st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 255, 256, 2**32 - 1])

#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "bool": [True, False],
    "int8": [-128, 127, 0, -1],
    "int16": [-(2**15), 2**15 - 1, -2],
    "int32": [-(2**31), 2**31 - 1, 0],
    "int64": [-(2**63), 2**63 - 1, -1],
    "uint8": [0, 255],
    "uint16": [0, 65535],
    "uint32": [0, 2**32 - 1],
    "uint64": [0, 2**64 - 1, 2**63],
    "variant": [0, 2, 2**32 - 1],
    "float32": [Float32(1.0), Float32(-0.0), Float32.from_bits(0x7FA00001),
                Float32.from_bits(0xFFC00000), Float32(math.inf), 0.5, -2.0, 7, -(2**24)],
    "float64": [0.0, -0.0, 1.5, -math.inf, f64(0x7FF8000000000001), f64(0xFFF0000000000123),
                Float32(0.1), 7, -(2**53)],
    "string": ["", "acme", "a\x00b", "adiós", "\U0010ffff" * 3, "é" * 300],
    "char": ["a", "€", "\U0010ffff", "\x01"],
    "bytes": [b"", b"\x00\xff", bytearray(b"\x01\x02"), b"x" * 600],
    "bytes repr=seq": [b"", b"\x00", b"\x05\x00", bytearray(b"\xff\xfe"), b"\x02" * 300],
    "int32 nullable=true": [None, 7, -7],
    "string nullable=2": [None, Some(None), "a", ""],
    "char nullable=true": [None, "z"],
    "float32 nullable=2": [None, Some(None), Float32(2.5)],
    "bytes repr=seq nullable=2": [None, Some(None), b"", b"\x00"],
    "bytes nullable=true": [None, b"\x00"],
}


class TestStorekeyDifferential(DifferentialConformance):
    codec = CODEC
    example_share = 0.25
    fields = tuple(VALID)
    value_strategies: ClassVar[Overrides] = {"string": TEXT, "variant": VARIANTS}
    odd_keys = ("01", [0x01], b"\x02", b"\x01\x01\x00", b"\x00" * 8, b"\xff" * 9, b"\x01")
    notable_bytes = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF)
    context = (("s:string", "acme"), ("n:int64", -5))
    valid_values = VALID
    compared_operations = COMPARED | {"parse", "parse with bytes left over"}

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> list[Operation]:
        def parse(data: Any) -> Any:  # bound under the implementation in force
            return CODEC.bind(schema).parse(data)

        ops: list[Operation] = [("parse", lambda: parse(key))]
        if isinstance(key, bytes):
            tailed = key + b"\x01\x02"
            ops.append(("parse with bytes left over", lambda: parse(tailed)))
        return ops

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            bound = CODEC.bind("n:int8, s:string nullable=2")
            assert bound.encode((Colour.RED, "a")) == bound.encode((1, "a"))  # the same bytes
            assert bound.encode((Int8(1), MyStr("a"))) == bound.encode((1, "a"))
            for values in ((True, "a"), (128, "a"), (None, "a"), (1, Some(Some(None))),
                           (1, Some(7)), (1,)):
                with pytest.raises(LexCodecError):
                    bound.encode(values)
            assert bound.decode(bytearray(b"\x80\x01\x01a\x00")) == (0, "a")  # type: ignore[arg-type]
            for key in (b"\x80\x01\x01a\x00\x00", b"\x80\x01\x01a", b"\x80\x02",
                        b"\x80\x01\x01\xff\x00"):
                with pytest.raises(LexCodecError):
                    bound.decode(key)
            with contextlib.suppress(LexCodecError):
                bound.parse(memoryview(b"\x80\x00"))  # type: ignore[arg-type]
        assert _impl.HANDOVERS["storekey"] == 14


def call(method: str, arg: Any, schema: str) -> Any:
    """``CODEC.bind(schema).<method>(arg)``, bound under the implementation in force."""
    return lambda: getattr(CODEC.bind(schema), method)(arg)


def test_subclasses_are_read_for_what_they_are() -> None:
    for v, plain, schema in ((MyStr("hi"), "hi", "x:string"), (MyBytes(b"a"), b"a", "x:bytes"),
                             (MyBytes(b"a"), b"a", "x:bytes repr=seq"),
                             (MyFloat(2.5), 2.5, "x:float64"), (MyFloat(2.5), 2.5, "x:float32"),
                             (Colour.RED, 1, "x:variant"), (MyInt(-7), -7, "x:int16"),
                             (MyStr("é"), "é", "x:char nullable=true")):
        assert both(call("encode", (v,), schema)) == ("ok", CODEC.encode((plain,), schema))
    assert both(call("encode", (Liar(),), "x:int32"))[1].__name__ == "UnsupportedTypeError"


def test_a_float32_is_read_by_its_value_not_its_bits() -> None:
    """A Float32's ``bits`` slot is never trusted: the value decides, a NaN's payload too."""
    nan = Float32.from_bits(0x7F800001)  # a signalling NaN: its payload survives
    assert both(call("encode", (nan,), "x:float32")) == ("ok", bytes.fromhex("ff800001"))
    object.__setattr__(nan, "bits", 0)  # tampered: the value still says 7f800001
    assert both(call("encode", (nan,), "x:float32")) == ("ok", bytes.fromhex("ff800001"))
    assert both(call("decode", bytes.fromhex("ff800001"), "x:float32"))[1][0].bits == 0x7F800001
