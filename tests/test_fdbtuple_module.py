"""``lexcodecs.fdbtuple`` against ``fdb.tuple`` on fdb.tuple's own API (issue 16).

Every function is called the way an fdb.tuple user calls it, on both implementations (the
``impl`` fixture), next to its namesake on the same input: ``pack`` (with and without a
prefix) gives the same bytes, ``unpack`` (with ``prefix_len``) the same values, ``range`` the
same slice, ``compare`` the same sign, ``has_incomplete_versionstamp`` the same answer and
``pack_with_versionstamp`` the same bytes. Values are random nested tuples of every type
(huge ints, NaN, -0.0, binary32, UUIDs, versionstamps complete and incomplete), given to
lexcodecs both as lexcodecs objects and as fdb.tuple's own. Where fdb.tuple raises, this
module raises a ``LexCodecError``, a ``ValueError`` where fdb.tuple's is one; where it
decodes a key, fdb.tuple decodes it to the same values (this module is never laxer).
"""

from __future__ import annotations

import ctypes
import decimal
import inspect
import math
import struct
import types
import uuid
from typing import Any

import fdb.tuple as ft
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fdb_tuple import elements, floats32, floats64, ints, mutated_keys, stamps, texts, to_fdb

from lexcodecs import DecodeError, EncodeError, LexCodecError, UnsupportedTypeError, _impl
from lexcodecs import fdbtuple as lt
from lexcodecs.types import Float32, Versionstamp

pytestmark = pytest.mark.usefixtures("impl", "fdb_impl_stub")

_D = struct.Struct(">d")


def norm(v: Any) -> Any:
    """A value of either module as comparable data: floats by their bits, binary32 values
    (Float32, SingleFloat) by their bits once quieted (fdb.tuple reads a binary32 through a
    C cast, which quiets a signalling NaN), versionstamps by their fields."""
    if isinstance(v, (Float32, ft.SingleFloat)):
        f = v.value if isinstance(v, ft.SingleFloat) else float(v)
        return ("f32", Float32(f).bits)
    if isinstance(v, float):
        return ("f64", _D.pack(v))
    if isinstance(v, (Versionstamp, ft.Versionstamp)):
        return ("stamp", v.tr_version, v.user_version)
    if isinstance(v, (tuple, list)):
        return tuple(norm(x) for x in v)
    return (type(v).__name__, v)


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def fdb_outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as exc:  # fdb.tuple raises ValueError, TypeError, struct.error ...
        return "error", exc


# -- strategies ---------------------------------------------------------------------------

values_st = st.lists(elements, max_size=5).map(tuple)
prefixes = st.one_of(st.none(), st.binary(max_size=3))
incomplete = st.integers(0, 0xFFFF).map(Versionstamp.incomplete)


@st.composite
def with_stamps(draw: st.DrawFn, count: int) -> tuple[Any, ...]:
    """A tuple holding *count* incomplete versionstamps, at the top level or nested."""
    values = list(draw(values_st))
    for _ in range(count):
        stamp = draw(incomplete)
        where = draw(st.integers(0, len(values)))
        if draw(st.booleans()):
            values.insert(where, stamp)
        else:
            values.insert(where, (draw(elements), stamp))
    return tuple(values)


def both_forms(values: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """*values* as lexcodecs objects and as fdb.tuple's (which lexcodecs also accepts)."""
    return [values, to_fdb(values)]

# -- the API ------------------------------------------------------------------------------


FUNCTIONS = ["pack", "unpack", "range", "compare", "has_incomplete_versionstamp",
             "pack_with_versionstamp"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_same_signature_as_fdb_tuple(name: str) -> None:
    ours, theirs = inspect.signature(getattr(lt, name)), inspect.signature(getattr(ft, name))
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]


def test_public_names_of_fdb_tuple_are_here() -> None:
    """Every public function, class and type code of fdb.tuple (not the modules it imports)."""
    wanted = {n for n, v in vars(ft).items() if not n.startswith("_")
              and not isinstance(v, types.ModuleType) and n not in ("bisect_left", "int2byte")}
    assert wanted <= set(lt.__all__), wanted - set(lt.__all__)
    for name in (n for n in wanted if n.endswith(("_CODE", "_START", "_END"))):
        assert getattr(lt, name) == getattr(ft, name), name
    assert lt.SingleFloat is Float32
    assert lt.Versionstamp is Versionstamp


def test_all_is_fdb_tuples_names_and_float32() -> None:
    """``__all__`` holds what fdb.tuple has (its functions, classes and type codes) and
    lexcodecs' ``Float32``, each once and each defined."""
    public = {n for n, v in vars(ft).items() if not n.startswith("_")
              and not isinstance(v, types.ModuleType)}
    assert len(set(lt.__all__)) == len(lt.__all__)
    assert set(lt.__all__) - public == {"Float32"}
    assert all(hasattr(lt, name) for name in lt.__all__)


def test_only_the_public_names_are_offered() -> None:
    """``dir()`` (and so tab completion) and ``import *`` show the API, not the helpers the
    module imports (``Any``, ``Final``, ``Sequence``, ``operator``, the codec internals)."""
    shown = {n for n in dir(lt) if not n.startswith("__")}
    assert shown == set(lt.__all__)
    assert not {"Any", "Final", "Sequence", "operator", "FdbTupleCodec", "as_bytes"} & shown
    star: dict[str, Any] = {}
    exec("from lexcodecs.fdbtuple import *", star)
    assert set(star) - {"__builtins__"} == set(lt.__all__)

# -- differential -------------------------------------------------------------------------


@settings(max_examples=40)
@given(st.lists(values_st, min_size=1, max_size=6), prefixes)
def test_pack_range_unpack_match(batch: list[tuple[Any, ...]], prefix: bytes | None) -> None:
    for values in batch:
        want = ft.pack(to_fdb(values), prefix=prefix)
        for form in both_forms(values):
            assert lt.pack(form, prefix=prefix) == want
            assert lt.pack(form, prefix) == want
            assert lt.range(form) == ft.range(to_fdb(values))
            assert lt.has_incomplete_versionstamp(form) is False
        n = len(prefix or b"")
        back = lt.unpack(want, prefix_len=n)
        assert type(back) is tuple
        assert norm(back) == norm(ft.unpack(want, prefix_len=n))
        assert norm(lt.unpack(want, n)) == norm(values)


@settings(max_examples=25)
@given(st.lists(st.one_of(values_st, with_stamps(1)), min_size=1, max_size=4),
       st.lists(st.one_of(values_st, with_stamps(1)), min_size=1, max_size=4))
def test_compare_matches(xs: list[tuple[Any, ...]], ys: list[tuple[Any, ...]]) -> None:
    rows = list(xs)
    for a, b in zip(xs, ys):  # shared leading elements, where the order is decided late
        rows += [b, a + b, a[: len(a) // 2] + b, (*a, None), a[: len(a) // 2] + b[:1]]
    pairs = [(v, to_fdb(v)) for v in rows]
    for a, fa in pairs:
        for b, fb in pairs:
            want = ft.compare(fa, fb)
            assert lt.compare(a, b) == want, (a, b)
            assert lt.compare(fa, list(b)) == want, (a, b)


def test_compare_of_floats_and_stamps() -> None:
    values = [(math.nan,), (-math.nan,), (math.inf,), (-math.inf,), (0.0,), (-0.0,),
              (Float32(-0.0),), (Float32(math.nan),), (Versionstamp(b"\x00" * 10, 1),),
              (Versionstamp.incomplete(0),), (Versionstamp.incomplete(7),), (None,), ((None,),),
              ((),), (True,), (False,), (2**2000,), (-(2**2000),)]
    for a in values:
        for b in values:
            assert lt.compare(a, b) == ft.compare(to_fdb(a), to_fdb(b)), (a, b)


@settings(max_examples=40)
@given(with_stamps(1), prefixes)
def test_pack_with_versionstamp_matches(values: tuple[Any, ...], prefix: bytes | None) -> None:
    want = ft.pack_with_versionstamp(to_fdb(values), prefix=prefix)
    for form in both_forms(values):
        assert lt.pack_with_versionstamp(form, prefix=prefix) == want
        assert lt.has_incomplete_versionstamp(form) is True
        # a plain pack refuses the stamp where fdb.tuple does
        with pytest.raises(EncodeError):
            lt.pack(form)
    with pytest.raises(ValueError, match="Incomplete versionstamp"):
        ft.pack(to_fdb(values))


@settings(max_examples=20)
@given(st.one_of(values_st, with_stamps(2), with_stamps(3)), prefixes)
def test_pack_with_versionstamp_needs_exactly_one(values: tuple[Any, ...],
                                                  prefix: bytes | None) -> None:
    with pytest.raises(ValueError, match="incomplete versionstamp"):
        ft.pack_with_versionstamp(to_fdb(values), prefix=prefix)
    for form in both_forms(values):
        with pytest.raises(EncodeError, match="incomplete versionstamp"):
            lt.pack_with_versionstamp(form, prefix=prefix)


@settings(max_examples=60)
@given(st.one_of(st.binary(max_size=24),
                 mutated_keys(values_st.map(lambda v: ft.pack(to_fdb(v))))),
       st.integers(0, 3))
def test_unpack_never_laxer_than_fdb_tuple(key: bytes, prefix_len: int) -> None:
    """Keys random or mutated: where lexcodecs decodes, fdb.tuple decodes the same values;
    where fdb.tuple raises, lexcodecs raises a LexCodecError (and nothing else)."""
    theirs = fdb_outcome(lambda: ft.unpack(key, prefix_len))
    try:
        ours = lt.unpack(key, prefix_len)
    except LexCodecError:
        return
    assert prefix_len <= len(key)
    assert theirs[0] == "ok", f"{key.hex()}: fdb.tuple raised {theirs[1]!r}, we gave {ours!r}"
    assert norm(ours) == norm(theirs[1])

# -- refusals -----------------------------------------------------------------------------


class Unpackable:
    pass


#: (function, arguments): fdb.tuple raises on each, and so does lexcodecs
REFUSED: list[tuple[str, tuple[Any, ...]]] = [
    ("pack", ((1, {"a": 1}),)),
    ("pack", ((decimal.Decimal(1),),)),
    ("pack", ((Unpackable(),),)),
    ("pack", ((1, (2, {3})),)),
    ("pack", ((1j,),)),
    ("pack", ([1, 2],)),
    ("pack", ("ab",)),
    ("pack", (None,)),
    ("pack", ((2**2040,),)),
    ("pack", (("\ud800",),)),
    ("pack", ((1,), 0)),
    ("pack", ((1,), "ab")),
    ("pack", ((Versionstamp.incomplete(),),)),
    ("range", ([1],)),
    ("range", ((Unpackable(),),)),
    ("range", ((Versionstamp.incomplete(),),)),
    ("pack_with_versionstamp", ((1,),)),
    ("pack_with_versionstamp", ([Versionstamp.incomplete()],)),
    ("pack_with_versionstamp", ((Versionstamp.incomplete(), Versionstamp.incomplete()),)),
    ("pack_with_versionstamp", ((Versionstamp.incomplete(), {}),)),
    ("unpack", (b"\x15",)),
    ("unpack", (b"\x99",)),
    ("unpack", (b"\x21\x00\x00",)),
    ("unpack", (b"\x1d\x09\x01",)),
    ("unpack", (b"\x02\xff\x00",)),
    ("unpack", (b"\x30\x01\x02",)),
    ("unpack", (b"ab\x33\x00", 2)),
    ("unpack", ("\x15\x01",)),
    ("compare", ((Unpackable(),), (Unpackable(),))),
    ("has_incomplete_versionstamp", (5,)),
]


@pytest.mark.parametrize(("name", "args"), REFUSED)
def test_refused_where_fdb_tuple_raises(name: str, args: tuple[Any, ...]) -> None:
    fdb_args = tuple(to_fdb(a) for a in args)
    outcome, fdb_error = fdb_outcome(lambda: getattr(ft, name)(*fdb_args))
    assert outcome == "error", f"fdb.tuple.{name}{args!r} did not raise"
    with pytest.raises(LexCodecError) as info:
        getattr(lt, name)(*args)
    if isinstance(fdb_error, ValueError):  # `except ValueError` still catches ours
        assert isinstance(info.value, ValueError)
    if isinstance(fdb_error, TypeError) and "expects" not in str(fdb_error):
        assert isinstance(info.value, TypeError)


#: where fdb.tuple answers and lexcodecs refuses (docs/codecs/fdb-tuple.md lists them)
STRICTER: list[tuple[str, tuple[Any, ...], type[LexCodecError]]] = [
    ("unpack", (b"\x02abc",), DecodeError),                 # no terminator
    ("unpack", (b"\x05\x15\x01",), DecodeError),
    ("unpack", (b"\x15\x01", 3), DecodeError),               # prefix_len past the key
    ("unpack", (b"\x15\x01", -1), DecodeError),
    ("unpack", (b"\x15\x01", True), UnsupportedTypeError),
    ("compare", ((1, {}), (2, {})), UnsupportedTypeError),    # past the first difference
    ("has_incomplete_versionstamp", ("abc",), UnsupportedTypeError),
]


@pytest.mark.parametrize(("name", "args", "error"), STRICTER)
def test_stricter_than_fdb_tuple(name: str, args: tuple[Any, ...],
                                 error: type[LexCodecError]) -> None:
    assert fdb_outcome(lambda: getattr(ft, name)(*args))[0] == "ok"
    with pytest.raises(error):
        getattr(lt, name)(*args)


def test_unpack_offsets_count_from_the_key_start() -> None:
    with pytest.raises(DecodeError) as info:
        lt.unpack(b"pp\x15\x01\x99", prefix_len=2)
    assert info.value.offset == 4


def test_decoded_types_are_lexcodecs_types() -> None:
    key = ft.pack((ft.SingleFloat(1.5), ft.Versionstamp(b"\x01" * 10, 3), uuid.UUID(int=5)))
    f, stamp, u = lt.unpack(key)
    assert type(f) is Float32
    assert f == 1.5
    assert type(stamp) is Versionstamp
    assert stamp == Versionstamp(b"\x01" * 10, 3)
    assert type(u) is uuid.UUID
    assert u.int == 5
    # ctypes floats are taken as fdb.tuple takes them
    assert lt.pack((ctypes.c_float(0.5), ctypes.c_double(0.25))) == \
        ft.pack((ctypes.c_float(0.5), ctypes.c_double(0.25)))


@given(st.tuples(ints, floats64, floats32, st.uuids(), stamps, texts))
@settings(max_examples=10)
def test_compiled_path_never_hands_over(values: tuple[Any, ...]) -> None:
    """Under the compiled implementation, pack and unpack of valid values stay compiled."""
    if _impl.current != "compiled" or _impl.module("fdb_tuple") is None:
        return
    before = _impl.HANDOVERS["fdb_tuple"]
    key = lt.pack((*values, (values, None)), prefix=b"\x01")
    lt.unpack(key, prefix_len=1)
    lt.unpack(key[1:])
    assert _impl.HANDOVERS["fdb_tuple"] == before
