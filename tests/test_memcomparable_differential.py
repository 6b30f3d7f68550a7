"""``memcomparable``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs a bound schema's ``encode``,
``decode`` and ``prefix_range`` under both implementations on valid and hostile values and
keys, every field type with each Option nesting and ``repr``, and checks the compiled path is
in use and that valid exact-type values never leave it. What is memcomparable's own is here:
the vectors' hand-picked keys (the crate's errors, panics and lenient readings), ``Some``
values, decimals at rust_decimal's limits, and the values that must hand over.
"""

from __future__ import annotations

import decimal
import json
import math
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError, _impl
from lexcodecs.codecs.memcomparable import MemcomparableCodec
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import both
from lexcodecs.testing.hostile import MyInt
from lexcodecs.types import Float32, Some

PACKAGE = "memcomparable"
ROOT = Path(__file__).resolve().parent.parent
#: the bundled copy of the vectors; until it exists, the shared one
VECTORS = next((p for p in (ROOT / "conformance" / "vectors" / "memcomparable.json",
                            ROOT.parent / "shared" / "vectors" / "memcomparable.json")
                if p.is_file()), None)
D = decimal.Decimal

#: decimals a rust_decimal holds, well inside its limits (the compiled path's)
RUST_DECIMALS = st.builds(lambda s, d, e: D((s, d, e)), st.integers(0, 1),
                          st.lists(st.integers(0, 9), min_size=1, max_size=20).map(tuple),
                          st.integers(-20, 8))


def _vector_keys() -> list[bytes]:
    if VECTORS is None:
        return []
    raw = json.loads(VECTORS.read_text(encoding="utf-8"))
    return [bytes.fromhex(e["hex"]) for section in ("decode_errors", "decode_only")
            for e in raw[section]]


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00\x01", "12345678", "123456789", "é", "\U0001f600" * 40],
    "bytes": [b"", b"\x00", b"\xff" * 9, bytearray(b"x\xffy"), b"\xfe" * 300],
    "bytes repr=seq": [b"", b"\x01\x02\x03", bytearray(b"\x00\xff")],
    "bool": [False, True],
    "int8": [-128, -1, 0, 127], "int16": [-(2**15), 2**15 - 1], "int32": [-5, 2**31 - 1],
    "int64": [-(2**63), 0, 2**63 - 1], "uint8": [0, 255], "uint16": [0, 65535],
    "uint32": [0, 2**32 - 1], "uint64": [0, 2**64 - 1],
    "int128": [-(2**127), -1, 0, 2**127 - 1], "uint128": [0, 2**128 - 1, 2**64],
    "float32": [Float32(0.0), Float32(-0.0), Float32(1.5), Float32(math.inf),
                Float32(math.nan), 0.5, -2.0],
    "float64": [0.0, -0.0, 1.0, -1e300, 5e-324, math.inf, -math.inf, math.nan],
    "char": ["a", "\x00", "\u20ac", "\U0010ffff"],
    "variant": [0, 1, 255],
    "decimal": [D(0), D("-0"), D("1.0"), D("12.345"), D("-12.345"), D("0.00123"),
                D(10**20), D("1E-20"), D("NaN"), D("Infinity"), D("-Infinity"),
                D("1234567.89")],
}


class TestMemcomparableDifferential(DifferentialConformance):
    codec = MemcomparableCodec()
    fields = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
              "uint64", "int128", "uint128", "float32", "float64", "string", "bytes",
              "bytes repr=seq", "char", "variant", "decimal", "int32 nullable=true",
              "string nullable=2", "decimal nullable=true")
    example_share = 0.2
    value_strategies: ClassVar = {"decimal": RUST_DECIMALS}
    extra_odd_values = (Some(None), Some(Some(None)), Some(5), 256, -1, 2**128,
                        D("79228162514264337593543950336"), D("1E-29"), D("9" * 28),
                        D("sNaN"), D("NaN1"), "ab", "\ud800", Float32.from_bits(0x7FA00001))
    odd_keys = (*_vector_keys(), b"\x22\x7f" + b"\xc7" * 40 + b"\xc6", b"\x01" * 300,
                b"\x16\x05\x03", b"\x14\xfb\x02", bytes.fromhex("1201"))
    odd_key_schemas = ("d:decimal", "s:string desc", "q:bytes repr=seq, n:int64",
                       "o:int32 nullable=2")
    context = (("s:string", "acme"), ("n:int64", -5))
    valid_values = VALID

    def test_some_values_agree(self) -> None:
        codec = self.get_codec()
        for schema in ("o:int32 nullable=2", "o:string desc nullable=2",
                       "o:decimal nullable=true"):
            for value in (None, Some(None), Some(Some(None)), Some(5), 7, "x", D(1)):
                both(partial(codec.encode, (value,), schema), (schema, value))
            for key in ("00", "0100", "0101", "0102", "01", "ff", "feff", "fe", "02"):
                both(partial(codec.decode, bytes.fromhex(key), schema), (schema, key))

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        codec = self.get_codec()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            assert codec.encode((MyInt(1),), "v:int32") == codec.encode((1,), "v:int32")  # 1
            with pytest.raises(EncodeError):
                codec.encode((256,), "v:variant")  # 1: the crate panics
            with pytest.raises(DecodeError):
                codec.decode(bytes.fromhex("0000"), "v:uint8")  # 1: trailing characters
            assert codec.decode(bytes.fromhex("1201"), "v:decimal") == (D(-127),)  # 1
        assert _impl.HANDOVERS[PACKAGE] == 4
