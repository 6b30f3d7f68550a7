"""``fdb-tuple``: the compiled module and the reference code give the same answers (issue 14).

:class:`~lexcodecs.testing.DifferentialConformance` runs every operation -- schemaless and
bound, over every field type -- under both implementations, with both ``max_u64_form``
options, on valid and hostile values and keys, and checks the compiled path is in use. What
is FoundationDB's own is here: a raw prefix on every encode, decode and ``prefix_range``, the
module-level functions, ``encode_with_versionstamp``, nested tuples as valid values,
``fdb.tuple``'s objects as hostile ones, keys at the edges of the format (nesting past the
compiled depth, non-minimal and long-form integers, escapes, bad UTF-8, incomplete stamps), and
the instance methods and values that must stay compiled or must hand over. The comparison
with ``fdb.tuple`` itself is in ``test_fdb_tuple.py`` (on both implementations).
"""

from __future__ import annotations

import collections
import uuid
from typing import Any

import fdb.tuple as ft
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fdb_tuple import BOUNDARY_INTS, floats32, floats64, ints, scalars, texts, values_st

from lexcodecs import KeySchema, LexCodecError, _impl
from lexcodecs.codec import Codec
from lexcodecs.codecs import fdb_tuple
from lexcodecs.codecs.fdb_tuple import FdbTupleCodec
from lexcodecs.schema import Field
from lexcodecs.testing import DifferentialConformance, odd_values
from lexcodecs.testing.differential import Operation, both
from lexcodecs.testing.hostile import MyInt, TupleSub, pick, tampered_float32, tampered_uuid
from lexcodecs.types import Float32, Versionstamp

CODECS = [FdbTupleCodec(), FdbTupleCodec(max_u64_form="java")]
CODEC = CODECS[0]

Point = collections.namedtuple("Point", "x y")

SCHEMAS = ("s:string, y:bytes, b:bool, n:int, d:float64, f:float32, u:uuid, t:tuple",
           "a:int8, b:int16, c:int32, d:int64, e:uint8, f:uint16, g:uint32, h:uint64",
           "n:int64", "t:tuple, s:string")

#: a field type -> the values it meets (its own, and its neighbours')
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": texts, "bytes": st.binary(max_size=6), "bool": st.booleans(), "int": ints,
    "float64": st.one_of(floats64, st.integers(-(2**60), 2**60), st.sampled_from(
        [2**53 + 1, 2**1023, 2**1024, -(2**64), 10**400])),
    "float32": st.one_of(floats32, floats64, st.integers(-(2**70), 2**70)),
    "uuid": st.uuids(), "tuple": values_st,
    **{t: st.one_of(st.sampled_from(BOUNDARY_INTS), st.integers(-(2**65), 2**65))
       for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
}
PREFIXES = st.one_of(st.just(b""), st.binary(min_size=1, max_size=3),
                     st.sampled_from([bytearray(b"p"), memoryview(b"\x00"), "p", None, 0]))

#: valid exact-type values of every type, schemaless
EVERY_TYPE = (
    None, b"", b"a\x00\xffb", "", "user", "a\x00é\U0001f600", True, False, 0, 1, -1, 255, -256,
    2**63 - 1, -(2**63), 2**63, 2**64 - 2, -(2**64 - 2), 2**64 - 1, -(2**64 - 1), 2**64,
    -(2**64), 2**2040 - 1, -(2**2040 - 1), 0.0, -0.0, 1.5, float("nan"), float("-inf"),
    5e-324, Float32(2.5), Float32.from_bits(0x7FA00001), Float32(-0.0),
    uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.uuid4(),
    Versionstamp(bytes(range(10)), 7), Versionstamp(b"\xff" * 10, 0),
    (), [], (None,), [None, (None, ())], (1, ("a", [b"b", (2.5, Float32(1.0))])),
)


#: nested tuples: the values of a tuple field
VALUE_STRATEGIES = {"tuple": values_st}

#: field spec -> valid exact-type values, which must stay on the compiled path
VALID: dict[str, list[Any]] = {
    "string": ["a\x00", "", "user", "a\x00é\U0001f600"],
    "bytes": [b"\x00", b"", b"a\x00\xffb"],
    "bool": [True, False],
    "int8": [-128, 127], "int16": [2**15 - 1, -1], "int32": [-(2**31), 0],
    "int64": [-(2**63), 2**63 - 1], "uint8": [255, 0], "uint16": [0, 1],
    "uint32": [2**32 - 1, 2], "uint64": [2**64 - 1, 2**63],
    "int": [2**2040 - 1, -(2**2040 - 1), -(2**64 - 1), 0],
    "float32": [Float32(1.5), 0.1, 2**24 + 1, float("nan"), -7, Float32(-1.0)],
    "float64": [2.5, 3, -(2**53), 0.0],
    "uuid": [uuid.UUID(int=9)],
    "tuple": [(1, None, [b"x"]), [], (1, ("a", [b"b", (2.5, Float32(1.0))]))],
}


class TestFdbTupleDifferential(DifferentialConformance):
    codec = CODEC
    variants = (CODECS[1],)
    example_share = 0.5
    extra_odd_values = (Point(1, "y"), ft.SingleFloat(1.5), ft.Versionstamp(b"\x03" * 10, 4),
                        ft.Versionstamp.incomplete(2))
    odd_keys = tuple(bytes.fromhex(k) for k in (
        "05" * 70 + "00" * 70, "05" * 3000, "05" * 64 + "00" * 64, "1501" + "0500ff" * 100,
        "1cffffffffffffffff", "0bf70000000000000000", "160001", "1d00", "0bff", "1d0101",
        "0bfefe", "1d09" + "01" + "00" * 8, "0bf6" + "fe" + "ff" * 8, "1dff" + "ff" * 255,
        "0b00" + "00" * 255, "0200ff00ff00", "02c300", "02eda08000",
        "33" + "ff" * 10 + "0005", "207fc00001", "20ffffffff", "2100", "00ff",
        "1d08ffffffffffffffff", "33" + "ff" * 10 + "0001"))
    odd_key_schemas = SCHEMAS
    value_strategies = VALUE_STRATEGIES
    valid_values = VALID
    schemaless_values = EVERY_TYPE

    def valid_keys(self, codec: Codec, schema: KeySchema) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(st.one_of(st.none(), FIELD_VALUES[f.type], FIELD_VALUES[f.type],
                                     scalars) for f in schema.fields))

    def hands_over(self, field: Field, value: Any) -> bool:
        """A float32 field leaves an int past 64 bits to the reference."""
        return field.type == "float32" and type(value) is int and \
            not -(2**63) <= value < 2**63

    def extra_encode_operations(self, codec: Codec, schema: KeySchema, values: Any, k: int,
                                data: st.DataObject | None = None) -> list[Operation]:
        """With a raw prefix (drawn: bytes, or not bytes at all), and the module's
        functions."""
        p = b"p" if data is None else data.draw(PREFIXES, label="prefix")
        head = values[:k] if isinstance(values, (tuple, list)) else values
        return [
            ("encode(values, schema, prefix)", lambda: codec.encode(values, schema, prefix=p)),
            ("bind(schema).encode(values, prefix)",
             lambda: codec.bind(schema).encode(values, p)),
            ("prefix_range(values, schema, prefix)",
             lambda: codec.prefix_range(head, schema, prefix=p)),
            ("encode(values, prefix)", lambda: codec.encode(values, prefix=p)),
            ("prefix_range(values, prefix)", lambda: codec.prefix_range(values, prefix=p)),
            ("fdb_tuple.encode", lambda: fdb_tuple.encode(values, prefix=p)),
            ("fdb_tuple.prefix_range", lambda: fdb_tuple.prefix_range(values)),
        ]

    def extra_decode_operations(self, codec: Codec, schema: KeySchema, key: Any,
                                data: st.DataObject | None = None) -> list[Operation]:
        """Behind a raw prefix (the right one and a wrong one), and the module's decode."""
        ops: list[Operation] = [("fdb_tuple.decode", lambda: fdb_tuple.decode(key))]
        if isinstance(key, bytes):
            cut = 1 if data is None else data.draw(st.integers(0, 3), label="prefix length")
            ops += [
                ("decode(key, prefix=key[:cut])", lambda: codec.decode(key, prefix=key[:cut])),
                ("decode(fe + key, prefix=fe)",
                 lambda: codec.decode(b"\xfe" + key, prefix=b"\xfe")),
                ("decode(key, prefix=fe)", lambda: codec.decode(key, prefix=b"\xfe")),
                ("decode(pp + key, schema, prefix=pp)",
                 lambda: codec.decode(b"pp" + key, schema, prefix=b"pp")),
                ("bind(schema).decode(q + key, q)",
                 lambda: codec.bind(schema).decode(b"q" + key, b"q")),
            ]
        return ops

    def test_instance_methods_are_compiled(self) -> None:
        module = self.require_compiled()
        with _impl.use("compiled"):
            for codec in self.codecs():
                assert type(codec.bind("s:string, n:int64")) is module.BoundTuple
                assert type(codec.encode.__self__) is module.Schemaless  # type: ignore[attr-defined]
                assert type(codec.decode.__self__) is module.Schemaless  # type: ignore[attr-defined]
        with _impl.use("reference"):
            assert type(CODEC.bind("s:string, n:int64")) is fdb_tuple.BoundTuple

    def test_stamps_prefixes_and_nesting_never_hand_over(self) -> None:
        """Nested once more, behind a prefix, with a versionstamp to fill in, and the
        long-form integer keys: still the compiled path's."""
        self.require_compiled()
        with _impl.use("compiled"):
            _impl.HANDOVERS.clear()
            for codec in self.codecs():
                for value in EVERY_TYPE:
                    key = codec.encode(((value,),))
                    codec.decode(key)
                    codec.decode(b"p" + key, prefix=b"p")
                    assert codec.encode(((value,),), prefix=b"p") == b"p" + key
                stamped = codec.encode_with_versionstamp(("a", (1, Versionstamp(None, 3))), b"p")
                codec.decode(stamped[:-4], prefix=b"p")
                for key in ("1cffffffffffffffff", "1d08ffffffffffffffff", "160001", "0bff",
                            "1d00", "0bf6feffffffffffffffff", "33" + "ff" * 10 + "0001"):
                    codec.decode(bytes.fromhex(key))
                assert codec.decode(bytes.fromhex("1d08ffffffffffffffff"), "n:uint64") == \
                    (2**64 - 1,)
            assert _impl.HANDOVERS["fdb_tuple"] == 0

    @given(values_st)
    def test_generated_nested_values_never_hand_over(self, values: tuple[Any, ...]) -> None:
        self.require_compiled()
        for codec in self.codecs():
            self.assert_stays_compiled(codec, None, values)

    def test_odd_values_hand_over(self) -> None:
        """A subclass is written by the reference code; a tampered object and an incomplete
        stamp in a plain encode are refused by it. Each is one hand-over, as is a key out of
        a field's range."""
        self.require_compiled()
        with _impl.use("compiled"):
            _impl.HANDOVERS.clear()
            assert CODEC.encode((MyInt(1),)) == b"\x15\x01"
            for value in (tampered_uuid("x"), tampered_float32(1), Versionstamp()):
                with pytest.raises(LexCodecError):
                    CODEC.encode((value,))
            with pytest.raises(LexCodecError):
                CODEC.bind("n:int8").decode(b"\x15\x80")  # 128: out of range, refused there
            assert _impl.HANDOVERS["fdb_tuple"] == 5


#: what a caller gives encode_with_versionstamp: nested values with every odd value inside,
#: tuple subclasses, or no sequence at all
_ELEMENTS = st.recursive(
    st.one_of(scalars, pick([*odd_values(), *TestFdbTupleDifferential.extra_odd_values])),
    lambda inner: st.lists(inner, max_size=3).map(tuple) | st.lists(inner, max_size=3),
    max_leaves=8)
ODD_VALUES = st.one_of(st.lists(_ELEMENTS, max_size=5).map(tuple), st.lists(_ELEMENTS, max_size=5),
                       st.lists(_ELEMENTS, max_size=3).map(TupleSub), _ELEMENTS)


@given(st.lists(ODD_VALUES, min_size=1, max_size=4), st.sampled_from([b"", b"p\x00"]),
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
