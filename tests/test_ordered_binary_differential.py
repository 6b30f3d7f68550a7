"""``ordered-binary``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs the schemaless ``encode`` and
``decode`` (with and without the codec option ``array``) and a bound schema's ``encode``,
``decode`` and ``prefix_range`` under both implementations on valid and hostile values
(nested arrays among them) and keys, and checks the compiled path is in use. What is
lmdb-js's own is here: ``JsSymbol`` values, the hand-picked keys that reach lmdb-js's
quirks, and the values that must hand over.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from lexcodecs import DecodeError, EncodeError, _impl
from lexcodecs.codecs.ordered_binary import JsSymbol, OrderedBinaryCodec
from lexcodecs.schema import Field
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.hostile import Colour, MyInt

PACKAGE = "ordered_binary"


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00\x1b", "user-42", "é", "\u20ac\U0001f600", "y" * 70,
               "é" * 70, "a\x04b" * 10],
    "bytes": [b"", b"\x01\x02", b"abc", bytearray(b"xy")],
    "bool": [False, True],
    "float64": [0.0, -0.0, 1.0, -1.0, 0.1, -1e300, 5e-324, 2.0**60, math.inf, -math.inf,
                math.nan],
    "int": [0, 1, -1, 2**53, 2**53 + 1, -(2**53) - 1, 2**62 + 7, -(2**62) - 7, 2**63 - 1,
            -(2**63), 2**63 + 5, 2**64 - 1, 123456789012345678],
}


def _integers_of_every_length() -> list[int]:
    """Integers of every bit length 1..64, both signs where the compiled path takes them:
    random ones, and for each width of remainder a double leaves (1 to 11 bits), the
    remainders at their edges (0, 1, half, all ones) over an all-ones mantissa, where a
    rounding or a carry goes wrong."""
    rng = random.Random(53)
    values = {0, 2**64 - 1, -(2**63)}
    for length in range(1, 65):
        top = 1 << (length - 1)
        for m in [rng.randrange(top, 2 * top) for _ in range(40)]:
            values.update((m, -m))
        for bits in range(1, min(12, length)):
            high = (2 * top - 1) >> bits << bits
            for low in (0, 1, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) + 1):
                values.update((high | low, -(high | low)))
    return sorted(v for v in values if -(2**63) <= v <= 2**64 - 1)


class TestOrderedBinaryDifferential(DifferentialConformance):
    codec = OrderedBinaryCodec()
    variants = (OrderedBinaryCodec(array=True),)
    example_share = 0.3
    extra_odd_values = (JsSymbol("s"), JsSymbol("é"))
    odd_keys = (b"a", b"\x07\x00" + b"\x01" * 3, b"\x14\x3f" + bytes(7) + b"\x81" * 40,
                bytes.fromhex("13ff8000000000000080"), bytes.fromhex("070010"),
                b"\xf0\x9f\x98\x80" * 3, b"\xf0", b"a\x04",
                bytes.fromhex("147fefffffffffffff8f"), bytes.fromhex("0800000000000000008f"))
    odd_key_schemas = ("x:float64, n:int",)
    context = (("s:string", "acme"), ("n:int", -5))
    valid_values = VALID
    schemaless_values: Any = (
        "", "a\x00", "é" * 70, b"\x01\x02", bytearray(b"xy"), False, True, 0.1, -0.0,
        math.nan, 2**63 + 5, -(2**63), (1, ("a", None)), JsSymbol("s"), [b"r"], None)

    def hands_over(self, field: Field, value: Any) -> bool:
        """BigInts past 64 bits are the reference's to write."""
        return type(value) is int and not -(2**63) <= value <= 2**64 - 1

    def test_schemaless_keys_are_the_bound_keys(self) -> None:
        """lmdb-js writes a value's type into the key: a schema only checks it. On the
        compiled path, every valid value between a string and an int gives the same key
        with the schema and without."""
        self.require_compiled()
        with _impl.use("compiled"):
            for codec in self.codecs():
                for field_type, values in VALID.items():
                    bound = codec.bind(f"s:string, v:{field_type}, n:int")
                    for v in [*values, None]:
                        row = ("acme", v, -5)
                        assert codec.encode(row) == bound.encode(row), (field_type, v)

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        codec = self.get_codec()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            assert codec.encode((MyInt(1),)) == codec.encode((1,))  # 1 handed over, same bytes
            assert codec.encode(("\ud800\udc00",)) == codec.encode(("\U00010000",))  # 1
            assert codec.bind("n:int").encode((Colour.RED,)) == codec.encode((1,))  # 1
            with pytest.raises(DecodeError):
                codec.decode(bytes.fromhex("070010"))  # 1: lmdb-js's 4-byte read fails
        assert _impl.HANDOVERS[PACKAGE] == 4


    def test_integers_of_every_length_are_the_references(self) -> None:
        """The compiled integer writer (a double's bytes, or the double nearer zero and its
        BigInt remainder, worked out in integers for a positive one) against the reference's
        BigInt arithmetic, value by value; lmdb-js's refusals are the same refusals."""
        self.require_compiled()
        bound = OrderedBinaryCodec().bind("n:int")

        def key(value: int) -> bytes | str:
            try:
                return bound.encode((value,))
            except EncodeError as e:
                return f"refused: {e}"

        values = _integers_of_every_length()
        with _impl.use("reference"):
            expected = [key(v) for v in values]
        with _impl.use("compiled"):
            assert [key(v) for v in values] == expected
