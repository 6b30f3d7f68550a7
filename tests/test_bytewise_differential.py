"""``bytewise``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs the schemaless ``encode`` and
``decode`` (with and without the codec option ``array``) and a bound schema's ``encode``,
``decode`` and ``prefix_range`` under both implementations on valid and hostile values
(nested arrays among them) and keys, and checks the compiled path is in use. What is
bytewise's own is here: ``UNDEFINED``, Dates, deep arrays, the hand-picked keys of the
vectors' ``decode_errors`` and ``decode_only``, and the values that must hand over.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from pathlib import Path
from typing import Any

import pytest

from lexcodecs import DecodeError, _impl
from lexcodecs.codecs.bytewise import BytewiseCodec
from lexcodecs.schema import Field
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import both
from lexcodecs.testing.hostile import MyInt
from lexcodecs.types import UNDEFINED

PACKAGE = "bytewise"
ROOT = Path(__file__).resolve().parent.parent
#: the bundled copy of the vectors; until it exists, the shared one
VECTORS = next((p for p in (ROOT / "conformance" / "vectors" / "bytewise.json",
                            ROOT.parent / "shared" / "vectors" / "bytewise.json")
                if p.is_file()), None)
UTC = _dt.UTC


def _vector_keys() -> list[bytes]:
    if VECTORS is None:
        return []
    raw = json.loads(VECTORS.read_text(encoding="utf-8"))
    return [bytes.fromhex(e["hex"]) for section in ("decode_errors", "decode_only", "bounds")
            for e in raw[section]]


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00\x01", "user-42", "é", "\u20ac\U0001f600", "y" * 300,
               "\ufffd\uffff"],
    "bytes": [b"", b"\x00\x01\xfe\xff", b"abc", bytearray(b"x\xffy"), b"\xfe" * 300],
    "bool": [False, True],
    "float64": [0.0, -0.0, 1.0, -1.0, 0.1, -1e300, 5e-324, -5e-324, 2.0**60, math.inf,
                -math.inf, 1.7976931348623157e308],
    "int": [0, 1, -1, 2**53, -(2**53), 12345, -12345, 2**31],
}

DEEP: Any = ()
for _ in range(60):
    DEEP = (DEEP, "x")


class TestBytewiseDifferential(DifferentialConformance):
    codec = BytewiseCodec()
    variants = (BytewiseCodec(array=True),)
    example_share = 0.3
    extra_odd_values = (UNDEFINED, _dt.datetime(2000, 1, 1, tzinfo=UTC),
                        _dt.datetime(2000, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
                        _dt.datetime(2000, 1, 1), _dt.date(2000, 1, 1), 2**53 + 1, 2**60,
                        -(2**70), 10**400, ("a", (UNDEFINED, None)), DEEP)
    odd_keys = (*_vector_keys(), b"\xa0" * 300, b"\xa0" * 300 + b"\x00" * 300,
                b"\xa0\x70\x61\x01", b"\xa0\x60\xfe\x00\x00", bytes.fromhex("52") + bytes(8))
    odd_key_schemas = ("x:float64, n:int", "s:string")
    context = (("s:string", "acme"), ("n:int", -5))
    valid_values = VALID
    schemaless_values: Any = (
        "", "a\x00", "é" * 70, b"\x01\x02", bytearray(b"xy"), False, True, 0.1, -0.0,
        math.inf, 2**53, (1.0, ("a", None)), [b"r"], None, UNDEFINED,
        _dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC), DEEP)

    def hands_over(self, field: Field, value: Any) -> bool:
        """Ints beyond 2**53 are the reference's to write (or refuse)."""
        return type(value) is int and not -(2**53) <= value <= 2**53

    def test_schemaless_keys_are_the_bound_keys(self) -> None:
        """bytewise writes a value's type into the key: a schema only checks it."""
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
            assert codec.encode((MyInt(1),)) == codec.encode((1,))  # 1 handed over
            assert codec.encode(("\ud83d\ude00",)) == codec.encode(("\U0001f600",))  # 1
            assert codec.encode((2**60,)) == codec.encode((float(2**60),))  # 1
            with pytest.raises(DecodeError):
                codec.decode(bytes.fromhex("10ff"))  # 1: bytes after null
        assert _impl.HANDOVERS[PACKAGE] == 4

    def test_dates_and_deep_arrays_agree(self) -> None:
        """Dates of every kind and arrays around the depth limit, on both paths."""
        codec = self.get_codec()
        values: list[Any] = [
            _dt.datetime(1, 1, 1, tzinfo=UTC), _dt.datetime(9999, 12, 31, 23, 59, 59, 999000,
                                                            tzinfo=UTC),
            _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone(_dt.timedelta(hours=5))),
            _dt.datetime(1970, 1, 1, tzinfo=UTC), _dt.datetime(1969, 1, 1, tzinfo=UTC)]
        for depth in (254, 255, 256, 257, 300):
            nested: Any = ()
            for _ in range(depth - 1):
                nested = (nested,)
            values.append(nested)
        for value in values:
            key = both(lambda v=value: codec.encode((v,)), value)
            if isinstance(key, bytes):
                both(lambda k=key: codec.decode(k), key)
