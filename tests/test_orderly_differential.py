"""``orderly``: the compiled module and the reference code give the same answers (issue 14).

``encode``, ``decode`` and ``prefix_range`` of a bound schema run once under each
implementation (``lexcodecs._impl.use``) on the same input, and any difference fails: in bytes,
in decoded values (types compared, floats by their bits), or in the error's class and message.
Schemas are drawn over every field kind (var and fixed ints, reserved bits, floats, decimals,
strings, fixed and variable byte arrays with a raw prefix), both orders, every declared
termination, under every ``struct_order`` and ``struct_termination``; values are valid ones and
odd ones (subclasses, bool in int fields, IntEnum, bytearray/memoryview, NaN, huge and tiny
numbers, arbitrary objects, tampered Float32s, odd Decimals); keys are valid, mutated or random
bytes. Nothing but a :class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every kind, order and option never hand over.
"""

from __future__ import annotations

import decimal
import functools
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oddities import (
    Colour,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    both,
    mutated,
    tampered_float32,
    unset_float32,
)

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codecs.orderly import OrderlyCodec
from lexcodecs.codecs.orderly.format import RESERVED_MAX, TERMINATIONS
from lexcodecs.testing import identical, keys
from lexcodecs.types import Float32, Int32

try:
    from lexcodecs.codecs.orderly import _compiled
except ImportError:  # not built: the compiled run is the reference run
    _compiled = None  # type: ignore[assignment]

CODECS = {(o, t): OrderlyCodec(struct_order=o, struct_termination=t)
          for o in ("asc", "desc") for t in TERMINATIONS}
CAPS = CODECS["asc", "AUTO"].capabilities
VAR_INTS = ("int32", "int64", "uint32", "uint64")
#: every field kind, as the subject of a schema
SUBJECTS = (*VAR_INTS, "reserved", "fixed-int", "float32", "float64", "decimal", "string",
            "bytes", "bytes-prefix", "bytes-fixed")


class MyDecimal(Decimal):
    """A Decimal whose ``__str__`` lies (oddities' MyDecimal does not: orderly reads digits)."""

    def __str__(self) -> str:
        return "7"


ODD: list[Any] = [
    None, True, False, 0, -1, 1, 2**31, -(2**31) - 1, 2**32, 2**63, -(2**63) - 1, 2**64,
    2**200, -(2**200), 10**400, MyInt(7), MyInt(-7), MyInt(2**70), Colour.RED, Colour.BIG,
    Int32(-3), 0.0, -0.0, 1.5, 0.1, math.nan, -math.nan, math.inf, -math.inf, 5e-324, 1e300,
    MyFloat(2.5), MyFloat(math.nan), Float32(0.1), Float32(-0.0), Float32(math.nan),
    tampered_float32("x"), tampered_float32(2**200), tampered_float32(-1),
    tampered_float32(0x7FC00000), unset_float32(), "", "a\x00b", "\ud800", "x" * 300,
    MyStr("hi"), b"", b"\x00\xff", b"\xff" * 300, MyBytes(b"a\x00"), bytearray(b"x\x00"),
    memoryview(b"mv\x00"), memoryview(b"abcd")[1:3], object(), Decimal("1.5"),
    Decimal("-0"), Decimal("0E+7"), Decimal("NaN"), Decimal("sNaN"), Decimal("-Infinity"),
    Decimal("1E+2147483648"), Decimal("1E+2147483649"), Decimal("1E-2147483647"),
    Decimal("1E-2147483648"), Decimal("-12.3400E-9"), Decimal("9" * 400), MyDecimal("1.5"),
    1j, [], (1,), {},
]
ODD_VALUES = st.sampled_from(ODD)


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


def draw_schema(subject: str, data: st.DataObject) -> KeySchema:
    """1..4 fields, one of kind *subject*, the others of any kind."""
    n = data.draw(st.integers(1, 4), label="fields")
    at = data.draw(st.integers(0, n - 1), label="subject at")
    fields = []
    for i in range(n):
        kind = subject if i == at else data.draw(st.sampled_from(SUBJECTS))
        fields.append(with_order(subject_field(kind, data, f"f{i}"), data, i == n - 1))
    return KeySchema.parse(", ".join(fields))


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


@functools.cache  # made once: a new strategy is validated again on its first draw
def odd_values(field_type: str) -> st.SearchStrategy[Any]:
    odd: list[st.SearchStrategy[Any]] = [ODD_VALUES]
    if "int" in field_type:
        odd += [st.integers(), st.integers().map(MyInt), st.floats()]
    elif field_type in ("float32", "float64"):
        odd += [st.floats(), st.floats(width=32).map(Float32), st.floats().map(MyFloat),
                st.integers(0, 2**32 - 1).map(tampered_float32)]
    elif field_type == "decimal":
        odd += [st.decimals(), st.integers(), st.floats(),
                st.tuples(st.integers(-(10**30), 10**30), st.integers(-(2**32), 2**32)).map(
                    lambda p: Decimal(f"{p[0]}E{p[1]}"))]
    elif field_type == "string":
        odd += [st.text(max_size=6).map(MyStr), st.binary(max_size=4)]
    elif field_type == "bytes":
        odd += [st.binary(max_size=6).map(bytearray), st.binary(max_size=6).map(memoryview),
                st.binary(max_size=6).map(MyBytes), st.text(max_size=3)]
    return st.one_of(*odd)


def draw_codec(data: st.DataObject) -> OrderlyCodec:
    return CODECS[data.draw(st.sampled_from(sorted(CODECS)), label="codec")]


@pytest.mark.parametrize("subject", SUBJECTS)
@given(data=st.data())
def test_encode_agrees(subject: str, data: st.DataObject) -> None:
    schema = draw_schema(subject, data)
    codec = draw_codec(data)
    nullable = codec.bind(schema).nullable
    valid = keys(schema, CAPS, overrides(schema), nullable=nullable)
    values = list(data.draw(valid, label="valid values"))
    for i, f in enumerate(schema.fields):  # some fields odd
        if data.draw(st.integers(0, 3), label=f"odd {f.name}?") == 0:
            values[i] = data.draw(odd_values(f.type), label=f.name)
    given_values: Any = values if data.draw(st.booleans(), label="as list") else tuple(values)
    k = data.draw(st.integers(0, len(schema)), label="prefix length")
    both(lambda: codec.bind(schema).encode(given_values))
    both(lambda: codec.bind(schema).prefix_range(tuple(values[:k])))
    both(lambda: codec.bind(schema).encode(tuple(values[:-1])))  # wrong arity


def mutations(key: bytes) -> st.SearchStrategy[bytes]:
    return mutated(key, [0x00, 0x01, 0x02, 0x10, 0x11, 0x7F, 0x80, 0xEE, 0xFE, 0xFF], junk=30,
                   bit_flips=True)


@pytest.mark.parametrize("subject", SUBJECTS)
@given(data=st.data())
def test_decode_agrees(subject: str, data: st.DataObject) -> None:
    schema = draw_schema(subject, data)
    codec = draw_codec(data)
    nullable = codec.bind(schema).nullable
    values = data.draw(keys(schema, CAPS, overrides(schema), nullable=nullable), label="values")
    with _impl.use("reference"):
        try:
            key = codec.bind(schema).encode(values)
        except LexCodecError:  # an inexact float the strategy drew
            key = b""
    raw = data.draw(mutations(key), label="key")
    kind = data.draw(st.sampled_from([bytes, bytes, bytearray, memoryview]), label="key type")
    given_key: Any = kind(raw)
    both(lambda: codec.bind(schema).decode(given_key))


def test_odd_keys_agree() -> None:
    for key in ("81", 5, None, [0x81]):
        both(lambda key=key: CODECS["asc", "AUTO"].bind("x:int64").decode(key))


def test_tampered_float32_is_read_by_its_value() -> None:
    codec = CODECS["asc", "AUTO"]
    for schema in ("x:float32", "x:float32 desc"):
        good = both(lambda schema=schema: codec.encode((Float32(1.5),), schema))
        for bits in ("x", 2**200, -1, 0x7FC00000, 0):
            assert both(lambda bits=bits, schema=schema: codec.encode(
                (tampered_float32(bits),), schema)) == good
        refused = both(lambda schema=schema: codec.encode((unset_float32(),), schema))
        assert refused[0] == "error"
        assert "binary32" in refused[2]


def test_subclasses_are_read_for_what_they_are() -> None:
    codec = CODECS["asc", "AUTO"]
    assert both(lambda: codec.encode((MyStr("hi"),), "x:string")) == \
        ("ok", codec.encode(("hi",), "x:string"))
    assert both(lambda: codec.encode((MyBytes(b"a"),), "x:bytes")) == \
        ("ok", codec.encode((b"a",), "x:bytes"))
    assert both(lambda: codec.encode((Colour.RED,), "x:int32 encoding=fixed")) == \
        ("ok", codec.encode((1,), "x:int32 encoding=fixed"))
    assert both(lambda: codec.encode((MyDecimal("1.5"),), "x:decimal")) == \
        ("ok", codec.encode((Decimal("1.5"),), "x:decimal"))
    assert both(lambda: codec.encode((True,), "x:decimal"))[0] == "error"


def test_huge_ints_refused_without_a_foreign_error() -> None:
    """An int past Python's 4,300-digit str() limit is refused with a lexcodecs error."""
    codec = CODECS["asc", "AUTO"]
    for schema in ("x:int64", "x:uint32 encoding=fixed"):
        refused = both(lambda schema=schema: codec.encode((10**5000,), schema))
        assert refused[0] == "error"


# -- the compiled path is in use ------------------------------------------------------------

needs_compiled = pytest.mark.skipif(_compiled is None, reason="the compiled module is not built")

INT_EDGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1),
             "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _ints(t: str) -> list[Any]:
    lo, hi = INT_EDGES[t]
    near = [0, 1, 63, 64, -64, -65, 8191, 8192, -8193, 2**31 - 1, 2**58 - 1, -(2**58) - 1]
    return [lo, hi, hi // 3, lo // 5, *(x for x in near if lo <= x <= hi)]


#: (field text, valid exact-type values)
VALID: list[tuple[str, list[Any]]] = [
    *[(f"v:{t}", _ints(t)) for t in VAR_INTS],
    *[(f"v:{t} reserved_bits={r} reserved_value={(1 << r) - 1}", _ints(t))
      for t in VAR_INTS for r in range(1, RESERVED_MAX[t] + 1)],
    *[(f"v:{t} encoding=fixed", _ints(t)) for t in VAR_INTS],
    ("v:float32", [Float32(0.1), Float32(-0.0), Float32(math.inf), Float32(math.nan), -2.5, 0.0,
                   math.nan, 3.4028234663852886e38, Float32.from_bits(1)]),
    ("v:float64", [0.1, -0.0, -math.inf, 5e-324, 1e308, math.nan, -math.nan]),
    ("v:decimal", [Decimal("1.5"), Decimal("-12.340"), Decimal("0"), Decimal("-0E+5"),
                   Decimal("1E+2147483648"), Decimal("-1E-2147483647"), Decimal("0.000001"),
                   Decimal("123456789012345678901234567890E-40"), Decimal("-" + "9" * 301),
                   0, -1, 10**18, -(2**63), 2**63 - 1, 10**40, -(10**25) + 1]),
    ("v:string", ["", "acme", "a\x00b\x01\xff", "\U0010ffff" * 3, "x" * 1000]),
    ("v:bytes", [b"", b"\x00", b"\xff\x00\x01", bytearray(b"ba\x00"), bytes(range(256))]),
    ("v:bytes prefix_length=2", [b"ab", b"\x00\x00\x01", bytearray(b"xyz"), b"\xff" * 40]),
    ("v:bytes encoding=fixed length=3", [b"abc", bytearray(b"\x00\xff\x01")]),
    ("v:bytes encoding=fixed length=0", [b""]),
]


@needs_compiled
@pytest.mark.parametrize(("field", "valid"), VALID, ids=[f for f, _ in VALID])
def test_valid_values_never_hand_over(field: str, valid: list[Any]) -> None:
    ftype, _, opts = field.partition(" ")
    nullable = "encoding=fixed" not in opts and "prefix_length" not in opts
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"), decimal.localcontext() as context:
        for capitals in (1, 0):  # str(Decimal) writes "E" or "e"
            context.capitals = capitals
            for codec in CODECS.values():
                for order in ("", " desc"):
                    for term in ("", " termination=MUST", " termination=SHOULD_NOT"):
                        text = f"s:string{order}, {ftype}{order} {opts}{term}"
                        bound = codec.bind(text)
                        assert type(bound) is _compiled.CompiledOrderly
                        for v in [*valid, *([None] if nullable else [])]:
                            key = bound.encode(("k", v))
                            got = bound.decode(key)
                            assert identical(bound.careful_decode(key), got)
                            assert bound.encode(list(got)) == key
                        if term != " termination=SHOULD_NOT":
                            tail = codec.bind(f"{ftype}{order} {opts}{term}, n:int64{order}")
                            for v in valid:
                                assert tail.decode(tail.encode((v, -5)))[1] == -5
    assert _impl.HANDOVERS["orderly"] == 0


@needs_compiled
def test_odd_values_and_keys_do_hand_over() -> None:
    _impl.HANDOVERS.clear()
    with _impl.use("compiled"):
        bound = CODECS["asc", "AUTO"].bind("n:int32")
        assert bound.encode((MyInt(1),)) == bound.encode((1,))  # handed over: the same bytes
        for v in (True, 2**40):
            with pytest.raises(LexCodecError):
                bound.encode((v,))
        with pytest.raises(LexCodecError):
            bound.decode(b"\xc0\x01")  # 1 in two bytes: not the shortest form
    assert _impl.HANDOVERS["orderly"] == 4
