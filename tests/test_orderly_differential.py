"""``orderly``: the compiled module and the reference code give the same answers (issue 14).

:class:`~lexcodecs.testing.DifferentialConformance` runs ``encode``, ``decode`` and
``prefix_range`` of a bound schema under both implementations, under every ``struct_order``
and ``struct_termination``, on valid and hostile values and keys, and checks the compiled path
is in use. What is Orderly's own is here: the schemas (every field kind -- var and fixed ints,
reserved bits, floats, decimals, strings, fixed and variable byte arrays with a raw prefix --
with every declared termination), values narrower than their type (fixed and raw-prefix byte
arrays), ``careful_decode`` beside ``decode``, Decimals written in either case of ``E``, and
the values that must be read for what they are or must hand over.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import strategies as st

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs.orderly import OrderlyCodec
from lexcodecs.codecs.orderly.format import RESERVED_MAX, TERMINATIONS
from lexcodecs.testing import DifferentialConformance, identical, keys
from lexcodecs.testing.differential import COMPARED, Operation, both
from lexcodecs.testing.hostile import Colour, MyBytes, MyInt, MyStr, tampered_float32, unset_float32
from lexcodecs.types import Float32

CODECS = {(o, t): OrderlyCodec(struct_order=o, struct_termination=t)
          for o in ("asc", "desc") for t in TERMINATIONS}
CODEC = CODECS["asc", "AUTO"]
VAR_INTS = ("int32", "int64", "uint32", "uint64")
#: every field kind, as the subject of a schema
SUBJECTS = (*VAR_INTS, "reserved", "fixed-int", "float32", "float64", "decimal", "string",
            "bytes", "bytes-prefix", "bytes-fixed")


class MyDecimal(Decimal):
    """A Decimal whose ``__str__`` lies (the shared MyDecimal does not: orderly reads digits)."""

    def __str__(self) -> str:
        return "7"


def subject_field(subject: str, data: st.DataObject, name: str) -> str:
    """The text of a field of kind *subject* (type and kind options)."""
    if subject in VAR_INTS:
        return f"{name}:{subject}"
    if subject == "reserved":
        t = data.draw(st.sampled_from(VAR_INTS), label="reserved type")
        r = data.draw(st.integers(1, RESERVED_MAX[t]), label="reserved bits")
        v = data.draw(st.integers(0, (1 << r) - 1), label="reserved value")
        return f"{name}:{t} reserved_bits={r} reserved_value={v}"
    if subject == "fixed-int":
        return f"{name}:{data.draw(st.sampled_from(VAR_INTS))} encoding=fixed"
    if subject == "bytes-prefix":
        return f"{name}:bytes prefix_length={data.draw(st.integers(1, 3))}"
    if subject == "bytes-fixed":
        return f"{name}:bytes encoding=fixed length={data.draw(st.integers(0, 4))}"
    return f"{name}:{subject}"


def with_order(text: str, data: st.DataObject, last: bool) -> str:
    """*text* with an order word and a declared termination (SHOULD_NOT on the last only)."""
    name, rest = text.split(":", 1)
    ftype, _, opts = rest.partition(" ")
    order = " desc" if data.draw(st.booleans()) else ""
    terms = ["", " termination=MUST", " termination=AUTO"] + (
        [" termination=SHOULD_NOT"] if last else [])
    term = data.draw(st.sampled_from(terms))
    return f"{name}:{ftype}{order}{' ' + opts if opts else ''}{term}"


def overrides(schema: KeySchema) -> dict[str, st.SearchStrategy[Any]]:
    """Values narrower than the type: fixed and raw-prefix byte arrays."""
    out: dict[str, st.SearchStrategy[Any]] = {}
    for f in schema.fields:
        if f.type == "bytes" and "length" in f.options:
            n = int(f.options["length"])
            out[f.name] = st.binary(min_size=n, max_size=n)
        elif f.type == "bytes" and "prefix_length" in f.options:
            out[f.name] = st.binary(min_size=int(f.options["prefix_length"]), max_size=12)
    return out


INT_EDGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1),
             "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _ints(t: str) -> list[Any]:
    lo, hi = INT_EDGES[t]
    near = [0, 1, 63, 64, -64, -65, 8191, 8192, -8193, 2**31 - 1, 2**58 - 1, -(2**58) - 1]
    return [lo, hi, hi // 3, lo // 5, *(x for x in near if lo <= x <= hi)]


#: field spec -> valid exact-type values
VALID: dict[str, list[Any]] = {
    **{t: _ints(t) for t in VAR_INTS},
    **{f"{t} reserved_bits={r} reserved_value={(1 << r) - 1}": _ints(t)
       for t in VAR_INTS for r in range(1, RESERVED_MAX[t] + 1)},
    **{f"{t} encoding=fixed": _ints(t) for t in VAR_INTS},
    "float32": [Float32(0.1), Float32(-0.0), Float32(math.inf), Float32(math.nan), -2.5, 0.0,
                math.nan, 3.4028234663852886e38, Float32.from_bits(1)],
    "float64": [0.1, -0.0, -math.inf, 5e-324, 1e308, math.nan, -math.nan],
    "decimal": [Decimal("1.5"), Decimal("-12.340"), Decimal("0"), Decimal("-0E+5"),
                Decimal("1E+2147483648"), Decimal("-1E-2147483647"), Decimal("0.000001"),
                Decimal("123456789012345678901234567890E-40"), Decimal("-" + "9" * 301),
                0, -1, 10**18, -(2**63), 2**63 - 1, 10**40, -(10**25) + 1],
    "string": ["", "acme", "a\x00b\x01\xff", "\U0010ffff" * 3, "x" * 1000],
    "bytes": [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00"), bytes(range(256))],
    "bytes prefix_length=2": [b"ab", b"\x00\x00\x01", bytearray(b"xyz"), b"\xff" * 40],
    "bytes encoding=fixed length=3": [b"abc", bytearray(b"\x00\xff\x01")],
    "bytes encoding=fixed length=0": [b""],
}


class TestOrderlyDifferential(DifferentialConformance):
    codec = CODEC
    variants = tuple(c for c in CODECS.values() if c is not CODEC)
    example_share = 0.6
    fields = SUBJECTS
    extra_odd_values = (MyDecimal("1.5"),)
    odd_keys = ("81", [0x81])
    notable_bytes = (0x00, 0x01, 0x02, 0x10, 0x11, 0x7F, 0x80, 0xEE, 0xFE, 0xFF)
    context = (("s:string", "k"), ("n:int64", -5))
    valid_values = VALID
    compared_operations = COMPARED | {"careful_decode"}

    def specs(self) -> list[str]:
        return list(VALID)

    def schemas(self, codec: Codec, subject: str) -> st.SearchStrategy[KeySchema]:
        """1..4 fields, one of kind *subject*, the others of any kind; each in either order,
        with a declared termination."""
        @st.composite
        def draw(draw: st.DrawFn) -> KeySchema:
            data = _Drawer(draw)
            n = draw(st.integers(1, 4), label="fields")
            at = draw(st.integers(0, n - 1), label="subject at")
            fields = []
            for i in range(n):
                kind = subject if i == at else draw(st.sampled_from(SUBJECTS))
                fields.append(with_order(subject_field(kind, data, f"f{i}"), data,
                                         i == n - 1))
            return KeySchema.parse(", ".join(fields))
        return draw()

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        with _impl.use("reference"):
            nullable = codec.bind(schema).nullable
        return keys(schema, codec.capabilities, overrides(schema), nullable=nullable)

    def valid_schemas(self, codec: Codec, spec: str) -> list[tuple[KeySchema, int]]:
        """Each order, each termination: after a string, and before an int64 (where the
        field may end without a terminator, it is last)."""
        ftype, _, opts = spec.partition(" ")
        out = []
        for order in ("", " desc"):
            for term in ("", "termination=MUST", "termination=SHOULD_NOT"):
                field = " ".join(p for p in (f"v:{ftype}{order}", opts, term) if p)
                out.append((KeySchema.parse(f"s:string{order}, {field}"), 1))
                if term != "termination=SHOULD_NOT":
                    out.append((KeySchema.parse(f"{field}, n:int64{order}"), 0))
        return out

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> list[Operation]:
        return [("careful_decode", lambda: codec.bind(schema).careful_decode(key))]

    def test_valid_decimals_never_hand_over_written_with_a_small_e(self) -> None:
        """``str(Decimal)`` writes ``e`` under ``capitals=0``: still the compiled path's."""
        self.require_compiled()
        with decimal.localcontext() as context:
            context.capitals = 0
            for codec in self.codecs():
                for schema, at in self.valid_schemas(codec, "decimal"):
                    for value in VALID["decimal"]:
                        row = self.context_row(schema)
                        row[at] = value
                        self.assert_stays_compiled(codec, schema, tuple(row))

    def test_careful_decode_reads_valid_keys_as_decode_does(self) -> None:
        """On the compiled path, for every valid value: ``careful_decode`` reads what
        ``decode`` reads, and that encodes back to the key."""
        self.require_compiled()
        with _impl.use("compiled"):
            for spec, values in VALID.items():
                for codec in self.codecs():
                    for schema, at in self.valid_schemas(codec, spec):
                        bound = codec.bind(schema)
                        for value in values:
                            row = self.context_row(schema)
                            row[at] = value
                            key = bound.encode(tuple(row))
                            got = bound.decode(key)
                            assert identical(bound.careful_decode(key), got), \
                                (str(schema), key.hex())
                            assert bound.encode(list(got)) == key, (str(schema), key.hex())

    def test_odd_values_and_keys_do_hand_over(self) -> None:
        self.require_compiled()
        _impl.HANDOVERS.clear()
        with _impl.use("compiled"):
            bound = CODEC.bind("n:int32")
            assert bound.encode((MyInt(1),)) == bound.encode((1,))  # handed over: same bytes
            for v in (True, 2**40):
                with pytest.raises(LexCodecError):
                    bound.encode((v,))
            with pytest.raises(LexCodecError):
                bound.decode(b"\xc0\x01")  # 1 in two bytes: not the shortest form
        assert _impl.HANDOVERS["orderly"] == 4


class _Drawer:
    """``data.draw`` for the schema helpers, inside a composite strategy."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw


def test_tampered_float32_is_read_by_its_value() -> None:
    for schema in ("x:float32", "x:float32 desc"):
        good = both(lambda schema=schema: CODEC.encode((Float32(1.5),), schema))
        for bits in ("x", 2**200, -1, 0x7FC00000, 0):
            assert both(lambda bits=bits, schema=schema: CODEC.encode(
                (tampered_float32(bits),), schema)) == good
        refused = both(lambda schema=schema: CODEC.encode((unset_float32(),), schema))
        assert refused[0] == "error"
        assert "binary32" in refused[2]


def test_subclasses_are_read_for_what_they_are() -> None:
    assert both(lambda: CODEC.encode((MyStr("hi"),), "x:string")) == \
        ("ok", CODEC.encode(("hi",), "x:string"))
    assert both(lambda: CODEC.encode((MyBytes(b"a"),), "x:bytes")) == \
        ("ok", CODEC.encode((b"a",), "x:bytes"))
    assert both(lambda: CODEC.encode((Colour.RED,), "x:int32 encoding=fixed")) == \
        ("ok", CODEC.encode((1,), "x:int32 encoding=fixed"))
    assert both(lambda: CODEC.encode((MyDecimal("1.5"),), "x:decimal")) == \
        ("ok", CODEC.encode((Decimal("1.5"),), "x:decimal"))
    assert both(lambda: CODEC.encode((True,), "x:decimal"))[0] == "error"


def test_huge_ints_refused_without_a_foreign_error() -> None:
    """An int past Python's 4,300-digit str() limit is refused with a lexcodecs error."""
    for schema in ("x:int64", "x:uint32 encoding=fixed"):
        refused = both(lambda schema=schema: CODEC.encode((10**5000,), schema))
        assert refused[0] == "error"
