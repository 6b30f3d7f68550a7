"""``tidb``: the compiled module and the reference code give the same answers.

:class:`~lexcodecs.testing.DifferentialConformance` runs a bound schema's ``encode``,
``decode`` and ``prefix_range`` (and the decode without a schema) under both implementations
on valid and hostile values and keys, for the bare codec and its framed variants (index key,
common handle, int handle), and checks the compiled path is in use. What is tidb's own is
here: decimals of a fixed shape, timestamps in other time zones, the vectors' hand-picked
keys (``decode_errors``, ``decode_only``: the value encodings the compiled path hands over),
and the values that must hand over.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
from pathlib import Path
from typing import Any, ClassVar

import pytest

from lexcodecs import DecodeError, _impl
from lexcodecs.codecs.tidb import TidbCodec
from lexcodecs.schema import Field
from lexcodecs.testing import DifferentialConformance
from lexcodecs.testing.differential import both
from lexcodecs.testing.hostile import MyInt
from lexcodecs.types import Float32

PACKAGE = "tidb"
VECTORS = Path(__file__).resolve().parent.parent / "conformance" / "vectors" / "tidb.json"
UTC = _dt.UTC
D = decimal.Decimal


def _vector_keys() -> list[bytes]:
    raw = json.loads(VECTORS.read_text(encoding="utf-8"))
    return [bytes.fromhex(e["hex"]) for section in ("decode_errors", "decode_only")
            for e in raw[section]]


#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["", "a", "\x00\x01", "abcdefgh", "abcdefghi", "é", "\U0001f600" * 40],
    "bytes": [b"", b"\x00", b"\x00\xff" * 4, b"abcdefgh", bytearray(b"x\xffy"), b"\xfe" * 300],
    "int64": [0, 1, -1, 2**63 - 1, -(2**63), 12345],
    "uint64": [0, 1, 2**63, 2**64 - 1],
    "float64": [0.0, -0.0, 1.0, -1.0, 0.1, 5e-324, -5e-324, math.inf, -math.inf, math.nan,
                -math.nan, 1.7976931348623157e308, Float32(1.5)],
    "float32": [Float32(0.0), Float32(-1.5), Float32(3.4028234663852886e38), 0.5, -0.25,
                Float32(math.inf)],
    "decimal": [D("0"), D("-0"), D("1.5"), D("-123.45"), D("1.000"), D("100"), D("1E+3"),
                D("0.000000000000000000000000000001"), D("-12345678901234567890.123456789")],
    "decimal precision=10 frac=2": [D("0"), D("1.5"), D("-99999999.99"), D("12.340"),
                                    D("-0.01")],
    "duration": [_dt.timedelta(0), _dt.timedelta(microseconds=-1),
                 _dt.timedelta(hours=838, minutes=59, seconds=59),
                 _dt.timedelta(days=-106751, seconds=85, microseconds=224193)],
    "timestamp": [_dt.datetime(1970, 1, 1, tzinfo=UTC),
                  _dt.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC),
                  _dt.datetime(1, 1, 1, tzinfo=UTC),
                  _dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                  _dt.datetime(2024, 2, 29, tzinfo=UTC)],
}


class TestTidbDifferential(DifferentialConformance):
    codec = TidbCodec()
    variants = (TidbCodec(table_id=42, index_id=7), TidbCodec(table_id=-1, handle="common"))
    fields = ("string", "bytes", "int64", "uint64", "float64", "float32", "decimal",
              "decimal precision=10 frac=2", "duration", "timestamp")
    example_share = 0.3
    extra_odd_values = (
        _dt.datetime(2000, 1, 1), _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone(
            _dt.timedelta(hours=5))), _dt.datetime(1, 1, 1, tzinfo=_dt.timezone(
                _dt.timedelta(hours=1))), _dt.date(2000, 1, 1),
        _dt.timedelta(days=999999999), D("NaN"), D("-Infinity"), D("1E+100"), D("0E+80"),
        D("1E-31"), D("1" * 82), Float32(0.1), 0.1, 2**64, -(2**63) - 1)
    odd_keys = (*_vector_keys(), b"\x06\x00\x00", b"\x06\x52\x00" + bytes(40),
                b"\x06\x02\x03\x80\x00", b"\x06\x01\x00\x7f", b"\x06\x01\x00\xff",
                b"\x04" + bytes(8), b"\x04\x19\x02\xc2\x00\x00\x00\x00\x00\x00"[:9],
                b"\x07\x80\x00\x00\x00\x00\x00\x00\x01", b"\x08\x80\x00",
                b"\x08" + b"\xff" * 10 + b"\x01", b"\x02\x7f", b"\x01" + b"\x00" * 8 + b"\xff")
    odd_key_schemas = ("x:float64, n:int64", "s:string", "d:decimal", "t:timestamp",
                       "u:uint64", "y:float32", "l:duration")
    context = (("s:string", "acme"), ("n:int64", -5))
    valid_values = VALID

    def hands_over(self, field: Field, value: Any) -> bool:
        """Decimals with more than 81 digits before the point as written (``0E+80``: the
        reference writes 0) are the reference's; so are datetimes not in ``datetime.UTC``."""
        if type(value) is D and value.is_finite():
            _, digits, exponent = value.as_tuple()
            assert isinstance(exponent, int)
            return len(digits) + max(exponent, 0) > 81 or not -81 <= exponent <= 81
        if type(value) is _dt.datetime:
            return value.tzinfo is not UTC
        return False

    def test_odd_values_do_hand_over(self) -> None:
        self.require_compiled()
        codec = self.get_codec()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            assert codec.encode((MyInt(1),), "n:int64") == codec.encode((1,), "n:int64")
            five = _dt.timezone(_dt.timedelta(hours=5))
            assert codec.encode((_dt.datetime(2000, 1, 1, 5, tzinfo=five),), "t:timestamp") \
                == codec.encode((_dt.datetime(2000, 1, 1, tzinfo=UTC),), "t:timestamp")
            assert codec.decode(bytes.fromhex("0802"), "n:int64") == (1,)
            with pytest.raises(DecodeError):
                codec.decode(bytes.fromhex("0605028001"), "d:decimal precision=5 frac=2")
        assert _impl.HANDOVERS[PACKAGE] == 4

    def test_framed_keys_agree(self) -> None:
        """Each framing on both paths, values and refusals alike."""
        for codec in (*self.codecs(), TidbCodec(table_id=5, handle="int")):
            for schema, row in (("h:int64", (7,)), ("h:int64", (None,)),
                                ("s:string, d:decimal precision=5 frac=2", ("pk", D("1.5"))),
                                ("s:string, n:int64", (None, 2))):
                key = both(lambda c=codec, s=schema, r=row: c.encode(r, s), row)
                if isinstance(key, bytes):
                    both(lambda c=codec, s=schema, k=key: c.decode(k, s), key)
                    both(lambda c=codec, k=key: c.decode(k), key)


class TestTidbIntHandleDifferential(DifferentialConformance):
    """A row key with an int handle: one int64 field, written without its flag."""

    codec = TidbCodec(table_id=5, handle="int")
    fields = ("int64",)
    max_fields = 1
    example_share = 0.3
    context = (("s:string", "acme"), ("n:int64", -5))
    odd_keys = (bytes.fromhex("7480000000000000055f728000000000000007"),
                bytes.fromhex("7480000000000000055f72800000000000000700"),
                bytes.fromhex("7480000000000000055f69800000000000000700"))
    valid_values: ClassVar = {"int64": VALID["int64"]}
