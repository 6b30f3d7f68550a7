"""``orderedcode``: the compiled engine and the reference code give the same answers.

Every operation of a bound schema -- ``encode``, ``decode``, ``parse`` (Go's ``Parse``: the
values and the bytes left over) and ``prefix_range`` -- runs once under each implementation
(``oddities.both``, which switches ``lexcodecs._impl`` itself, so these tests do not take the
``impl`` fixture) on the same input, and any difference fails: in bytes, in decoded values
(types compared, floats by their bits) or in the error's class and message. Schemas are drawn
over every field kind (string, bytes, int64, uint64, float64, the trailing string and bytes),
both orders; values are valid ones (INFINITY in string and bytes fields) and odd ones
(subclasses, bool, IntEnum, bytearray/memoryview, None, INFINITY where Go has none, NaN
payloads, huge ints, ints a float64 does not hold, lone surrogates, arbitrary objects); keys
are valid, mutated or random bytes, as ``bytes``, ``bytearray`` or ``memoryview``. Nothing but
a :class:`~lexcodecs.errors.LexCodecError` may leave either implementation.

The last tests check the compiled path is in use: the bound class is the compiled one, and
valid exact-type values of every kind and order never hand over.
"""

from __future__ import annotations

import contextlib
import math
import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    both,
    mutated,
    pick,
    released_view,
)

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codecs.orderedcode import OrderedCodeCodec
from lexcodecs.types import INFINITY, Float32, Int64

try:
    from lexcodecs.codecs.orderedcode import _compiled
except ImportError:  # not built: there is no compiled run to compare
    _compiled = None  # type: ignore[assignment]

CODEC = OrderedCodeCodec()
I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_D, _Q = struct.Struct(">d"), struct.Struct(">Q")

#: the subjects: a field type, and whether it is a trailing string
SUBJECTS = ["string", "bytes", "int64", "uint64", "float64", "string trailing=true",
            "bytes trailing=true"]


def f64(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


ODD: list[Any] = [
    None, True, False, 0, -1, 1, 63, 64, -64, -65, I64_MAX, I64_MIN, I64_MAX + 1, I64_MIN - 1,
    U64_MAX, U64_MAX + 1, 2**200, -(2**200), 2**53, 2**53 + 1, -(2**53) - 1, 2**1024,
    MyInt(7), MyInt(-7), Colour.RED, Colour.HUGE, Int64(-3),
    0.0, -0.0, 1.5, math.nan, -math.nan, f64(0x7FF0000000000123), f64(0xFFF8000000000001),
    math.inf, -math.inf, 5e-324, MyFloat(2.5), MyFloat(math.nan), Float32(0.1),
    "", "a\x00b\xff", "\ud800", "\U0010ffff", MyStr("hi"),
    b"", b"\x00\xff\x01", MyBytes(b"a\x00"), bytearray(b"x\xff"), memoryview(b"mv\x00"),
    memoryview(b"abcd")[1:3], released_view(), INFINITY,
    object(), Liar(), Decimal("1.5"), 1j, [], (1,), {},
]
ODD_VALUES = pick(ODD)

TEXT = st.text(st.sampled_from(["a", "\x00", "\xff", "é", "\U0010ffff", "z"]), max_size=5) | \
    st.text(max_size=4)
BYTES = st.lists(st.sampled_from([b"\x00", b"\xff", b"\x01", b"\xfe", b"a"]), max_size=5
                 ).map(b"".join) | st.binary(max_size=6)
FLOATS = st.floats() | st.integers(0, U64_MAX).map(f64)


def valid_values(subject: str) -> st.SearchStrategy[Any]:
    """Valid values of exact types for *subject*."""
    trailing = "trailing" in subject
    base = subject.split()[0]
    if base == "string":
        return TEXT if trailing else TEXT | st.just(INFINITY)
    if base == "bytes":
        return BYTES if trailing else BYTES | st.just(INFINITY) | BYTES.map(bytearray)
    if base == "int64":
        return st.integers(I64_MIN, I64_MAX)
    if base == "uint64":
        return st.integers(0, U64_MAX)
    return FLOATS | st.integers(-(2**53), 2**53) | FLOATS.map(Float32)


def field_values(subject: str) -> st.SearchStrategy[Any]:
    """Valid values of *subject*, and odd ones of every kind."""
    valid = valid_values(subject)
    odd: list[st.SearchStrategy[Any]] = [ODD_VALUES, st.integers(), st.floats().map(MyFloat),
                                         st.text(max_size=3).map(MyStr),
                                         st.binary(max_size=4).map(memoryview)]
    return st.one_of(valid, valid, *odd)


@st.composite
def schemas(draw: st.DrawFn, subject: str) -> tuple[KeySchema, int]:
    """1..4 fields, one of them *subject* (a trailing one last), the others of any plain
    type; either order for each. The schema and the index of the subject."""
    n = draw(st.integers(1, 4))
    at = n - 1 if "trailing" in subject else draw(st.integers(0, n - 1))
    fields = []
    for i in range(n):
        text = subject if i == at else draw(st.sampled_from(SUBJECTS[:5]))
        base, _, option = text.partition(" ")
        desc = " desc" if draw(st.booleans()) else ""
        fields.append(f"f{i}:{base}{desc}{' ' + option if option else ''}")
    return KeySchema.parse(", ".join(fields)), at


def other_values(schema: KeySchema, data: st.DataObject) -> list[Any]:
    return [data.draw(valid_values(f.type + (" trailing=true" if f.options.get("trailing")
                                             else "")), label=f.name) for f in schema.fields]


@pytest.mark.parametrize("subject", SUBJECTS)
@settings(max_examples=12)
@given(data=st.data())
def test_encode_agrees(subject: str, data: st.DataObject) -> None:
    schema, at = data.draw(schemas(subject), label="schema")
    values = other_values(schema, data)
    values[at] = data.draw(field_values(subject), label="subject value")
    k = data.draw(st.integers(0, len(schema)), label="prefix length")
    given_values: Any = values if data.draw(st.booleans(), label="as list") else tuple(values)

    def bound() -> Any:
        return CODEC.bind(schema)

    both(lambda: bound().encode(given_values), given_values)
    both(lambda: bound().prefix_range(given_values[:k]), k)
    both(lambda: bound().encode(given_values[:-1]))  # wrong arity
    both(lambda: bound().encode([*given_values, 0]))


def mutations(key: bytes) -> st.SearchStrategy[bytes]:
    return mutated(key, [0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xFE, 0xFF], junk=24)


@pytest.mark.parametrize("subject", SUBJECTS)
@settings(max_examples=12)
@given(data=st.data())
def test_decode_agrees(subject: str, data: st.DataObject) -> None:
    schema, _ = data.draw(schemas(subject), label="schema")
    values = other_values(schema, data)
    with _impl.use("reference"):
        key = CODEC.bind(schema).encode(values)
    raw = data.draw(mutations(key), label="key")
    kind = data.draw(st.sampled_from([bytes, bytes, bytearray, memoryview]), label="key type")
    given_key: Any = kind(raw)

    def bound() -> Any:
        return CODEC.bind(schema)

    both(lambda: bound().decode(given_key), raw)
    both(lambda: bound().parse(given_key), raw)


def call(method: str, arg: Any, schema: str = "n:int64") -> Callable[[], Any]:
    """``CODEC.bind(schema).<method>(arg)``, bound under the implementation in force."""
    return lambda: getattr(CODEC.bind(schema), method)(arg)


def test_odd_keys_agree() -> None:
    for key in ("80", 5, None, [0x80], b"\x80", b""):
        both(call("decode", key), key)
        both(call("parse", key), key)
    for values in ((1,), [1], (), "1", None, {1}):
        both(call("encode", values), values)
        both(call("prefix_range", values), values)


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

# -- the compiled path is in use ------------------------------------------------------------


needs_compiled = pytest.mark.skipif(_compiled is None, reason="the compiled module is not built")

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


@needs_compiled
@pytest.mark.parametrize("subject", SUBJECTS)
def test_valid_values_never_hand_over(subject: str) -> None:
    _impl.HANDOVERS.clear()
    base, _, option = subject.partition(" ")
    with _impl.use("compiled"):
        for order in ("", " desc"):
            text = f"s:string{order}, n:int64{order}, v:{base}{order} {option}"
            bound = CODEC.bind(text)
            assert type(bound) is _compiled.CompiledBound
            with _impl.use("reference"):
                reference = CODEC.bind(text)
            for v in VALID[subject]:
                values = ("acme\x00", -5, v)
                key = bound.encode(values)
                assert key == reference.encode(values)
                back = bound.decode(key)
                assert back[:2] == values[:2]
                assert back[2] == v or (v != v and back[2] != back[2]) or \
                    (type(v) is int and back[2] == float(v))
                assert bound.parse(key) == (back, b"") or v != v
                assert bound.encode(list(values)) == key
                start, _ = bound.prefix_range(values[:2])
                assert key.startswith(start)
                if not option:
                    assert bound.parse(key + b"\x01\x02")[1] == b"\x01\x02"
    assert _impl.HANDOVERS["orderedcode"] == 0


@needs_compiled
def test_odd_values_do_hand_over() -> None:
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
