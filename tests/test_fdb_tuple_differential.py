"""``fdb-tuple``: the compiled module and the reference code give the same answers (issue 14).

Every operation -- the schemaless ``encode``/``decode``/``prefix_range`` with and without a
prefix, ``encode_with_versionstamp``, the module-level functions, and a bound schema's
``encode``/``decode``/``prefix_range`` over every field type -- runs once under each
implementation (``lexcodecs._impl.use``) on the same input, with both ``max_u64_form``
options, and any difference fails: in bytes, in decoded values (types compared, floats and
Float32s by their bits, UUIDs and versionstamps by their fields), or in the error's class and
message. Values are valid ones and odd ones (subclasses of int/str/bytes/float/tuple, bool in
int fields, IntEnum, bytearray/memoryview, NaN, huge and tiny numbers, arbitrary objects,
fdb.tuple's and ctypes' objects, tampered UUIDs, Float32s and versionstamps); keys are valid,
mutated or random bytes. Nothing but a :class:`~lexcodecs.errors.LexCodecError` may leave
either implementation.

The last tests check that the compiled path is in use: the bound class and the instance
methods are the compiled ones, and valid exact-type values of every type never hand over.
The comparison with ``fdb.tuple`` itself is in ``test_fdb_tuple.py`` (on both
implementations).
"""

from __future__ import annotations

import collections
import ctypes
import decimal
import uuid
from typing import Any

import fdb.tuple as ft
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oddities import (
    Colour,
    Liar,
    MyBytes,
    MyFloat,
    MyInt,
    MyStr,
    both,
    pick,
    released_view,
    tampered_float32,
    tampered_uuid,
    unset_float32,
    unset_uuid,
)
from test_fdb_tuple import (
    BOUNDARY_INTS,
    floats32,
    floats64,
    ints,
    mutated_keys,
    stamps,
    texts,
    values_st,
)

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codecs import fdb_tuple
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.testing import keys
from lexcodecs.types import Float32, Versionstamp

try:
    from lexcodecs.codecs.fdb_tuple import _compiled
except ImportError:  # not built: the compiled run is the reference run
    _compiled = None  # type: ignore[assignment]

needs_compiled = pytest.mark.skipif(_compiled is None,
                                    reason="the compiled module is not built here")

CODECS = [FdbTupleCodec(), FdbTupleCodec(max_u64_form="java")]
CODEC = CODECS[0]

# -- odd values -------------------------------------------------------------------------------


class TupleSub(tuple):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        return iter(("never read",))


class ListSub(list):  # type: ignore[type-arg]
    pass


Point = collections.namedtuple("Point", "x y")


def tampered_stamp(tr: Any = b"\x01" * 10, user: Any = 0) -> Versionstamp:
    s = Versionstamp(b"\x02" * 10, 1)
    object.__setattr__(s, "tr_version", tr)
    object.__setattr__(s, "user_version", user)
    return s


ODD = [
    MyInt(-7), MyStr("a\x00b"), MyBytes(b"\x00x"), MyFloat(2.5), MyFloat("nan"),
    TupleSub((1, 2)), ListSub([1, None]), Colour.RED, Colour.HUGE, Point(1, "y"),
    bytearray(b"a\x00"), memoryview(b"\x00b"), released_view(),
    Liar(), object(), {"a": 1}, {1}, decimal.Decimal("1.5"), 1 + 2j, Float32, ...,
    ft.SingleFloat(1.5), ft.Versionstamp(b"\x03" * 10, 4), ft.Versionstamp.incomplete(2),
    ctypes.c_float(3.14), ctypes.c_double(-0.0),
    tampered_float32(0x3FC00001), tampered_float32("x"), tampered_float32(2**40),
    tampered_float32(-1), tampered_float32(0x7FC00000, float("nan")), unset_float32(),
    tampered_uuid("x"), tampered_uuid(2**200), tampered_uuid(-1), tampered_uuid(2**128),
    tampered_uuid(True), unset_uuid(),
    tampered_stamp(b"abc"), tampered_stamp("x" * 10), tampered_stamp(None, 70000),
    tampered_stamp(b"\x01" * 10, True), tampered_stamp(bytearray(10)),
    Versionstamp(), Versionstamp(None, 9), Versionstamp(b"\xff" * 10, 3),
    "\ud800", "a\udfffb", 2**2040 - 1, -(2**2040 - 1), 2**2040, -(2**2041), 2**5000,
    2**64 - 1, -(2**64 - 1), 2**64, 2**63, -(2**63), -(2**63) - 1, 5e-324, -5e-324,
    float("inf"), float("-nan"), True, False, (), [],
]

odd = pick(ODD)
scalars = st.one_of(
    st.none(), st.binary(max_size=8), texts, ints, st.booleans(), floats64, floats32,
    st.uuids(), stamps, odd)


def _nested(depth: int) -> st.SearchStrategy[Any]:
    if depth == 0:
        return scalars
    inner = _nested(depth - 1)
    return st.one_of(scalars, st.lists(inner, max_size=3).map(tuple),
                     st.lists(inner, max_size=3))


elements = _nested(2)
odd_values = st.one_of(
    st.lists(elements, max_size=5).map(tuple),
    st.lists(elements, max_size=5),
    st.lists(elements, max_size=3).map(TupleSub),
    odd,  # not a sequence at all, mostly
)
prefixes = st.one_of(st.just(b""), st.binary(min_size=1, max_size=3),
                     st.sampled_from([bytearray(b"p"), memoryview(b"\x00"), "p", None, 0]))

# -- schemaless -------------------------------------------------------------------------------


@given(st.lists(odd_values, min_size=1, max_size=4), prefixes)
def test_schemaless_encode(batch: list[Any], prefix: Any) -> None:
    for values in batch:
        for codec in CODECS:
            both(lambda c=codec, v=values: c.encode(v))
            both(lambda c=codec, v=values: c.encode(v, prefix=prefix))
            both(lambda c=codec, v=values: c.prefix_range(v, prefix=prefix))
        both(lambda v=values: fdb_tuple.encode(v, prefix=prefix))
        both(lambda v=values: fdb_tuple.prefix_range(v))


@given(st.lists(odd_values, min_size=1, max_size=4), st.sampled_from([b"", b"p\x00"]),
       st.data())
def test_encode_with_versionstamp(batch: list[Any], prefix: bytes, data: st.DataObject
                                  ) -> None:
    for values in batch:
        if isinstance(values, (tuple, list)):
            where = data.draw(st.integers(0, len(values)))
            stamp = Versionstamp(None, data.draw(st.integers(0, 3)))
            nest = data.draw(st.sampled_from([lambda s: s, lambda s: (s,), lambda s: [1, s]]))
            values = (*values[:where], nest(stamp), *values[where:])
        for codec in CODECS:
            both(lambda c=codec, v=values: c.encode_with_versionstamp(v, prefix=prefix))
        both(lambda v=values: fdb_tuple.encode_with_versionstamp(v))


def _keys() -> st.SearchStrategy[bytes]:
    valid = values_st.map(CODEC.encode)
    return st.one_of(valid, mutated_keys(valid), st.binary(max_size=40))


SCHEMAS = [KeySchema.parse(t) for t in (
    "s:string, y:bytes, b:bool, n:int, d:float64, f:float32, u:uuid, t:tuple",
    "a:int8, b:int16, c:int32, d:int64, e:uint8, f:uint16, g:uint32, h:uint64",
    "n:int64",
    "t:tuple, s:string",
)]


@given(st.lists(_keys(), min_size=1, max_size=4), st.integers(0, 3))
def test_decode(batch: list[bytes], cut: int) -> None:
    for key in batch:
        for codec in CODECS:
            both(lambda c=codec, k=key: c.decode(k))
            both(lambda c=codec, k=key: c.decode(k, prefix=k[:cut]))
        both(lambda k=key: CODEC.decode(b"\xfe" + k, prefix=b"\xfe"))
        both(lambda k=key: CODEC.decode(k, prefix=b"\xfe"))
        both(lambda k=key: CODEC.decode(bytearray(k)))
        both(lambda k=key: fdb_tuple.decode(k))
        for schema in SCHEMAS:
            both(lambda k=key, s=schema: CODEC.decode(k, s))
            both(lambda k=key, s=schema: CODEC.decode(b"pp" + k, s, prefix=b"pp"))


@pytest.mark.parametrize("key", [
    b"\x05" * 70 + b"\x00" * 70, b"\x05" * 3000, b"\x05" * 64 + b"\x00" * 64,
    b"\x15\x01" + b"\x05\x00\xff" * 100, bytes.fromhex("1cffffffffffffffff"),
    bytes.fromhex("0bf70000000000000000"), bytes.fromhex("160001"), bytes.fromhex("1d00"),
    bytes.fromhex("0bff"), bytes.fromhex("1d0101"), bytes.fromhex("0bfefe"),
    bytes.fromhex("1d09" + "01" + "00" * 8), bytes.fromhex("0bf6" + "fe" + "ff" * 8),
    bytes.fromhex("1dff" + "ff" * 255), bytes.fromhex("0b00" + "00" * 255),
    bytes.fromhex("0200ff00ff00"), bytes.fromhex("02c300"), bytes.fromhex("02eda08000"),
    bytes.fromhex("33" + "ff" * 10 + "0005"), bytes.fromhex("207fc00001"),
    bytes.fromhex("20ffffffff"), bytes.fromhex("2100"), bytes.fromhex("00ff"),
], ids=lambda k: k.hex()[:24])
def test_decode_edge_keys(key: bytes) -> None:
    """Nesting past the compiled depth, non-minimal and long-form integers, escapes, bad
    UTF-8, incomplete stamps, NaN payloads, truncation."""
    for codec in CODECS:
        both(lambda c=codec: c.decode(key))
    for schema in SCHEMAS:
        both(lambda s=schema: CODEC.decode(key, s))

# -- bound schemas ----------------------------------------------------------------------------

FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": texts, "bytes": st.binary(max_size=6), "bool": st.booleans(), "int": ints,
    "float64": st.one_of(floats64, st.integers(-(2**60), 2**60), st.sampled_from(
        [2**53 + 1, 2**1023, 2**1024, -(2**64), 10**400])),
    "float32": st.one_of(floats32, floats64, st.integers(-(2**70), 2**70)),
    "uuid": st.uuids(), "tuple": st.lists(elements, max_size=3).map(tuple),
    **{t: st.one_of(st.sampled_from(BOUNDARY_INTS), st.integers(-(2**65), 2**65))
       for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
}


@st.composite
def bound_values(draw: st.DrawFn, schema: KeySchema) -> Any:
    values = [draw(st.one_of(st.none(), FIELD_VALUES[f.type], FIELD_VALUES[f.type], scalars))
              for f in schema.fields]
    shape = draw(st.sampled_from(["tuple", "tuple", "list", "short", "long", "sub", "odd"]))
    if shape == "list":
        return values
    if shape == "short":
        return tuple(values[:-1])
    if shape == "long":
        return (*values, 1)
    if shape == "sub":
        return TupleSub(values)
    if shape == "odd":
        return draw(odd)
    return tuple(values)


@pytest.mark.parametrize("schema", SCHEMAS, ids=str)
@given(data=st.data())
def test_bound(schema: KeySchema, data: st.DataObject) -> None:
    for _ in range(3):
        values = data.draw(bound_values(schema))
        prefix = data.draw(prefixes)
        cut = data.draw(st.integers(0, len(schema)))
        for codec in CODECS:
            got = both(lambda c=codec, v=values: c.encode(v, schema))
            both(lambda c=codec, v=values, p=prefix: c.encode(v, schema, prefix=p))
            both(lambda c=codec, v=values, p=prefix: c.bind(schema).encode(v, p))
            if isinstance(values, (tuple, list)):
                both(lambda c=codec, v=values[:cut], p=prefix: c.prefix_range(v, schema,
                                                                                prefix=p))
            if got[0] == "ok":
                key = got[1]
                for raw in (key, key[:-1], key + b"\x00", b"\x15" + key[1:]):
                    both(lambda c=codec, r=raw: c.decode(r, schema))
                    both(lambda c=codec, r=raw: c.bind(schema).decode(b"q" + r, b"q"))

# -- the compiled path is in use --------------------------------------------------------------

EVERY_TYPE = (
    None, b"", b"a\x00\xffb", "", "user", "a\x00é\U0001f600", True, False, 0, 1, -1, 255, -256,
    2**63 - 1, -(2**63), 2**63, 2**64 - 2, -(2**64 - 2), 2**64 - 1, -(2**64 - 1), 2**64,
    -(2**64), 2**2040 - 1, -(2**2040 - 1), 0.0, -0.0, 1.5, float("nan"), float("-inf"),
    5e-324, Float32(2.5), Float32.from_bits(0x7FA00001), Float32(-0.0),
    uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.uuid4(),
    Versionstamp(bytes(range(10)), 7), Versionstamp(b"\xff" * 10, 0),
    (), [], (None,), [None, (None, ())], (1, ("a", [b"b", (2.5, Float32(1.0))])),
)

BOUND_CASES = [
    ("s:string, y:bytes, b:bool", [("a\x00", b"\x00", True), (None, None, None)]),
    ("a:int8, b:int16, c:int32, d:int64", [(-128, 2**15 - 1, -(2**31), -(2**63)),
                                            (127, -1, 0, 2**63 - 1)]),
    ("a:uint8, b:uint16, c:uint32, d:uint64", [(255, 0, 2**32 - 1, 2**64 - 1), (0, 1, 2, 2**63)]),
    ("n:int", [(2**2040 - 1,), (-(2**2040 - 1),), (-(2**64 - 1),), (0,), (None,)]),
    ("f:float32, d:float64", [(Float32(1.5), 2.5), (0.1, 3), (2**24 + 1, -(2**53)),
                              (float("nan"), Float32(-1.0)), (-7, 0.0)]),
    ("u:uuid, t:tuple", [(uuid.UUID(int=9), (1, None, [b"x"])), (None, [])]),
]


@needs_compiled
def test_compiled_is_in_use() -> None:
    with _impl.use("compiled"):
        for codec in CODECS:
            bound = codec.bind("s:string, n:int64")
            assert type(bound) is _compiled.BoundTuple
            assert type(bound).__module__.endswith("._compiled")
            assert type(codec.encode.__self__) is _compiled.Schemaless  # type: ignore[attr-defined]
            assert type(codec.decode.__self__) is _compiled.Schemaless  # type: ignore[attr-defined]
    with _impl.use("reference"):
        assert type(CODEC.bind("s:string, n:int64")) is fdb_tuple.BoundTuple


@needs_compiled
def test_valid_values_never_hand_over() -> None:
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        for codec in CODECS:
            for value in EVERY_TYPE:
                for values in ((value,), [value, value], ((value,),)):
                    key = codec.encode(values)
                    codec.decode(key)
                    codec.decode(b"p" + key, prefix=b"p")
                    assert codec.encode(values, prefix=b"p") == b"p" + key
                    codec.prefix_range(values)
            stamped = codec.encode_with_versionstamp(("a", (1, Versionstamp(None, 3))), b"p")
            codec.decode(stamped[:-4], prefix=b"p")
            for key in ("1cffffffffffffffff", "1d08ffffffffffffffff", "160001", "0bff", "1d00",
                        "0bf6feffffffffffffffff", "33" + "ff" * 10 + "0001"):
                codec.decode(bytes.fromhex(key))
            for text, rows in BOUND_CASES:
                bound = codec.bind(text)
                for row in rows:
                    key = bound.encode(row)
                    bound.decode(key)
                    bound.decode(b"p" + key, b"p")
                    bound.encode(list(row), b"p")
                    bound.prefix_range(row[:1], b"p")
            assert codec.decode(bytes.fromhex("1d08ffffffffffffffff"), "n:uint64") == (2**64 - 1,)
        assert _impl.HANDOVERS["fdb_tuple"] == 0


@needs_compiled
@given(values_st, keys(SCHEMAS[0], CODEC.capabilities,
                       {"tuple": values_st}), keys(SCHEMAS[1], CODEC.capabilities))
def test_generated_valid_values_never_hand_over(values: tuple[Any, ...], row: tuple[Any, ...],
                                                ints_row: tuple[Any, ...]) -> None:
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        for codec in CODECS:
            codec.decode(codec.encode(values))
            for schema, r in ((SCHEMAS[0], row), (SCHEMAS[1], ints_row)):
                bound = codec.bind(schema)
                bound.decode(bound.encode(r))
        assert _impl.HANDOVERS["fdb_tuple"] == 0


@needs_compiled
def test_odd_values_hand_over() -> None:
    """A subclass is written by the reference code; a tampered object and an incomplete
    stamp in a plain encode are refused by it. Each is one hand-over, as is a key out of a
    field's range."""
    with _impl.use("compiled"):
        _impl.HANDOVERS.clear()
        assert CODEC.encode((MyInt(1),)) == b"\x15\x01"
        for value in (tampered_uuid("x"), tampered_float32(1), Versionstamp()):
            with pytest.raises(LexCodecError):
                CODEC.encode((value,))
        with pytest.raises(LexCodecError):
            CODEC.bind("n:int8").decode(b"\x15\x80")  # 128: out of range, refused there
        assert _impl.HANDOVERS["fdb_tuple"] == 5
