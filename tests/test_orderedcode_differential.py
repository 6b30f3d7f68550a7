"""``orderedcode``: the compiled engine and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation of a bound schema
under both implementations on valid and hostile values and keys (as ``bytes``, ``bytearray``
or ``memoryview``), and checks the compiled path is in use. What is Go's ``orderedcode``'s own
is here: the trailing string and bytes fields (last only), ``INFINITY`` as a valid string and
bytes value, ``parse`` (Go's ``Parse``: the values and the bytes left over) run beside
``decode``, and the values that must be read for what they are or must hand over.
"""

from __future__ import annotations

import contextlib
import math
import struct
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.orderedcode import OrderedCodeCodec
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import COMPARED, Operation, both
from lexcodecs.testing.hostile import Colour, Liar, MyBytes, MyFloat, MyInt, MyStr
from lexcodecs.types import INFINITY, Float32, Int64

CODEC = OrderedCodeCodec()
I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_D, _Q = struct.Struct(">d"), struct.Struct(">Q")


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


TEXT = st.text(st.sampled_from(["a", "\x00", "\xff", "é", "\U0010ffff", "z"]), max_size=5) | \
    st.text(max_size=4)
BYTES = st.lists(st.sampled_from([b"\x00", b"\xff", b"\x01", b"\xfe", b"a"]), max_size=5
                 ).map(b"".join) | st.binary(max_size=6)
FLOATS = st.floats() | st.integers(0, U64_MAX).map(f64)


def valid_values(field_type: str, trailing: bool) -> st.SearchStrategy[Any]:
    """Valid values of exact types for a field (INFINITY where Go has one)."""
    if field_type == "string":
        return TEXT if trailing else TEXT | st.just(INFINITY)
    if field_type == "bytes":
        return BYTES if trailing else BYTES | st.just(INFINITY) | BYTES.map(bytearray)
    if field_type == "int64":
        return st.integers(I64_MIN, I64_MAX)
    if field_type == "uint64":
        return st.integers(0, U64_MAX)
    return FLOATS | st.integers(-(2**53), 2**53) | FLOATS.map(Float32)


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "acme", "a\x00b\xff", "\U0010ffff" * 3, "é" * 300, INFINITY],
    "bytes": [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00\xff"), b"\xff\xff",
              b"x" * 600, INFINITY],
    "int64": [0, 1, -1, 63, 64, -64, -65, 8191, 8192, I64_MAX, I64_MIN,
              *(s * (1 << b) + d for b in range(6, 63, 7) for s in (1, -1) for d in (-1, 0))],
    "uint64": [0, 1, 255, 256, U64_MAX, 1 << 63, *(1 << (8 * i) for i in range(8))],
    "float64": [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, 5e-324, -1e308, math.nan,
                f64(0xFFF0000000000123), Float32(0.1), 7, -(2**53), 2**62, -(2**63)],
    "string trailing=true": ["", "ab", "\x00\xff", "é" * 100],
    "bytes trailing=true": [b"", b"\x00\xff", bytearray(b"\xff"), b"y" * 500],
}


class TestOrderedCodeDifferential(DifferentialConformance):
    codec = CODEC
    example_share = 0.2
    fields = ("string", "bytes", "int64", "uint64", "float64", "string trailing=true",
              "bytes trailing=true")
    odd_keys = ("80", [0x80], b"\x80")
    notable_bytes = (0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xFE, 0xFF)
    context = (("s:string", "acme\x00"), ("n:int64", -5))
    valid_values = VALID
    compared_operations = COMPARED | {"parse", "parse with bytes left over"}

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(valid_values(f.type, bool(f.options.get("trailing")))
                           for f in schema.fields))

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> list[Operation]:
        ops: list[Operation] = [("parse", lambda: codec.bind(schema).parse(key))]
        if isinstance(key, bytes):
            tailed = key + b"\x01\x02"
            ops.append(("parse with bytes left over", lambda: codec.bind(schema).parse(tailed)))
        return ops

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            bound = CODEC.bind("n:int64, s:string")
            assert bound.encode((Colour.RED, "a")) == bound.encode((1, "a"))  # the same bytes
            for values in ((True, "a"), (2**63, "a"), (1, MyStr("a")), (1, None), (1,)):
                with contextlib.suppress(LexCodecError):
                    bound.encode(values)
            assert bound.decode(bytearray(b"\x81a\x00\x01")) == (1, "a")  # type: ignore[arg-type]
            for key in (b"\x81a\x00\x01\x00", b"\x81a\x00", b"\x81\xc3\x00\x01"):
                with pytest.raises(LexCodecError):
                    bound.decode(key)
        assert _impl.HANDOVERS["orderedcode"] == 10


def call(method: str, arg: Any, schema: str = "n:int64") -> Callable[[], Any]:
    """``CODEC.bind(schema).<method>(arg)``, bound under the implementation in force."""
    return lambda: getattr(CODEC.bind(schema), method)(arg)


def test_subclasses_are_read_for_what_they_are() -> None:
    for v, plain, schema in ((MyStr("hi"), "hi", "x:string"), (MyBytes(b"a"), b"a", "x:bytes"),
                             (MyFloat(2.5), 2.5, "x:float64"), (Colour.RED, 1, "x:int64"),
                             (MyInt(-7), -7, "x:uint64 desc"), (Int64(5), 5, "x:int64"),
                             (MyStr("t"), "t", "x:string trailing=true")):
        expected = None if plain == -7 else CODEC.encode((plain,), schema)
        got = both(call("encode", (v,), schema))
        assert got[0] == ("error" if expected is None else "ok")
        if expected is not None:
            assert got[1] == expected
    liar = Liar()
    assert both(call("encode", (liar,)))[1].__name__ == "UnsupportedTypeError"
