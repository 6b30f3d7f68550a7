"""Columnar encoding (issue 17 item 3): ``encode_arrow`` is the row API, byte for byte.

The property: for every built-in codec and a spread of schemas (each Arrow-holdable field
type the codec takes, ascending and descending, NULLs first, last and natural, columns
sliced so that Arrow's offsets are not zero), the keys of ``encode_arrow(table)`` are
``[bound.encode(row) for row in rows]``, or both refuse with the same error type; with the
kernel and without it (the row API path); and ``decode_arrow`` of those keys gives the rows
``bound.decode`` gives. The other tests pin what the property cannot see: that the kernel
really writes the fixed-width batches, the integer and float edges, errors naming the row.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexcodecs import KeySchema, _impl, available_codecs, get_codec
from lexcodecs.errors import DecodeError, EncodeError, LexCodecError, SchemaError
from lexcodecs.schema import Field

pa = pytest.importorskip("pyarrow")
from lexcodecs.columnar import arrow as columnar  # noqa: E402
from lexcodecs.columnar import decode_arrow, encode_arrow, kernel_available, pieces  # noqa: E402
from lexcodecs.pieces import CodecPieces  # noqa: E402

BUILT_IN = ["fdb-tuple", "hbase-orderedbytes", "lexkey", "lexkey-legacy", "ordered-binary",
            "orderedcode", "orderly", "skv", "sqlite4"]


def _pieces(name: str) -> CodecPieces:
    """What the built-in codec *name* declares of its columnar layout."""
    declared = pieces.declared(get_codec(name))
    assert declared is not None
    return declared


#: what sqlite4 declares of its columnar layout
SQLITE4_PIECES = _pieces("sqlite4")


def _kernel_plan(name: str, schema: KeySchema, table: Any) -> Any:
    """The kernel's plan of codec *name* (its default options) for *table*'s columns."""
    codec = get_codec(name)
    return columnar._plan(codec, pieces.declared(codec, len(schema.fields)), schema,
                          columnar._columns(table, schema))


def _bits(t: str) -> int:
    return int(t.lstrip("uint"))


#: Arrow column name -> (Arrow type, values of it)
COLUMNS: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    **{t: (getattr(pa, t)(), st.integers(-(2 ** (_bits(t) - 1)), 2 ** (_bits(t) - 1) - 1))
       for t in ("int8", "int16", "int32", "int64")},
    **{t: (getattr(pa, t)(), st.integers(0, 2 ** _bits(t) - 1))
       for t in ("uint8", "uint16", "uint32", "uint64")},
    "bool": (pa.bool_(), st.booleans()),
    "float64": (pa.float64(), st.floats(width=64)),
    "float32": (pa.float32(), st.floats(width=32)),
    "string": (pa.string(), st.text(max_size=6)),
    "bytes": (pa.binary(), st.binary(max_size=6)),
    "timestamp": (pa.timestamp("us", tz="UTC"),
                  st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2200, 1, 1),
                               timezones=st.just(dt.UTC))),
    "duration": (pa.duration("us"), st.timedeltas(dt.timedelta(days=-10**5),
                                                  dt.timedelta(days=10**5))),
}
#: other Arrow types of the same fields: name -> (field type, Arrow type, values)
OTHER_ARROW: dict[str, tuple[str, Any, st.SearchStrategy[Any]]] = {
    "large_string": ("string", pa.large_string(), st.text(max_size=6)),
    "large_binary": ("bytes", pa.large_binary(), st.binary(max_size=6)),
    "timestamp_ns": ("timestamp", pa.timestamp("ns"), st.integers(-(2**63) + 1, 2**63 - 1)),
    "timestamp_s": ("timestamp", pa.timestamp("s", tz="Europe/Paris"),
                    st.integers(-(2**40), 2**40)),
    "timestamp_ms": ("timestamp", pa.timestamp("ms"), st.integers(-(2**50), 2**50)),
    "date32": ("timestamp", pa.date32(),
               st.integers(-(10**5), 10**5) | st.integers(-(4 * 10**6), 4 * 10**6)),
    "duration_ns": ("duration", pa.duration("ns"), st.integers(-(2**63) + 1, 2**63 - 1)),
    "uuid": ("uuid", pa.binary(16), st.binary(min_size=16, max_size=16)),
    "decimal": ("decimal", pa.decimal128(12, 3),
                st.decimals(-(10**6), 10**6, places=3, allow_nan=False, allow_infinity=False)),
    "dictionary": ("string", pa.dictionary(pa.int8(), pa.string()), st.text(max_size=3)),
}
#: a column into a field of another type (range refusals and conversions: the row API's)
CROSS = [("int32", "int64"), ("int64", "int32"), ("uint64", "int64"), ("int64", "uint64"),
         ("int64", "int"), ("uint64", "int"), ("int8", "uint8"), ("uint32", "int16"),
         ("float32", "float64"), ("float64", "float32"), ("int64", "float64"),
         ("bool", "int64"), ("string", "bytes"), ("bytes", "string"), ("int64", "timestamp")]


@st.composite
def cases(draw: st.DrawFn, codec_name: str
          ) -> tuple[KeySchema, Any, list[tuple[Any, ...]] | LexCodecError]:
    codec = get_codec(codec_name)
    fields, columns = [], {}
    for i in range(draw(st.integers(1, 3))):
        way = draw(st.integers(0, 5))
        if way == 0:
            arrow_name, field_type = draw(st.sampled_from(CROSS))
            kind, values = COLUMNS[arrow_name]
        elif way == 1:
            field_type, kind, values = OTHER_ARROW[draw(st.sampled_from(sorted(OTHER_ARROW)))]
        else:
            arrow_name = field_type = draw(st.sampled_from(sorted(COLUMNS)))
            kind, values = COLUMNS[arrow_name]
        field = Field(f"f{i}", field_type, draw(st.booleans()),
                      draw(st.sampled_from([None, "first", "last"])))
        for candidate in (field, Field(f"f{i}", field_type)):
            try:
                codec.bind(KeySchema((candidate,)))
            except SchemaError:
                continue
            fields.append(candidate)
            columns[candidate.name] = (kind, st.none() | values if draw(st.booleans())
                                       else values)
            break
    if not fields:  # every drawn type refused: one int64 field, which every codec takes
        fields.append(Field("f9", "int64"))
        columns["f9"] = (pa.int64(), COLUMNS["int64"][1])
    rows, skip = draw(st.integers(0, 12)), draw(st.integers(0, 9))
    # built longer and sliced: every column starts at a non-zero Arrow offset (bits too)
    data = {name: pa.array([draw(v) for _ in range(rows + skip)], kind).slice(skip)
            for name, (kind, v) in columns.items()}
    table = pa.table(data)
    schema = KeySchema(tuple(fields))
    try:
        py_values = [columnar._python_values(data[f.name], f.type) for f in fields]
    except EncodeError as exc:  # beyond Python's datetime: the conversion's own refusal
        return schema, table, exc
    return schema, table, list(zip(*py_values))


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


@pytest.mark.parametrize("codec_name", BUILT_IN)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_encode_arrow_is_the_row_api(codec_name: str, data: st.DataObject,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    schema, table, rows = data.draw(cases(codec_name))
    with monkeypatch.context() as patch:
        if data.draw(st.booleans(), label="without the kernel"):
            patch.setattr(columnar, "_kernel", None)
        try:
            bound = get_codec(codec_name).bind(schema)
        except SchemaError:  # fields each fine alone, not together (orderly's termination)
            with pytest.raises(SchemaError):
                encode_arrow(table, schema, codec_name)
            return
        try:
            if isinstance(rows, LexCodecError):
                raise rows
            expected = [bound.encode(row) for row in rows]
        except LexCodecError as exc:
            with pytest.raises(type(exc)):
                encode_arrow(table, schema, codec_name)
            return
        keys = encode_arrow(table, schema, codec_name)
        assert isinstance(keys, pa.BinaryArray)
        assert keys.to_pylist() == expected
        assert keys.null_count == 0
        if get_codec(codec_name).capabilities.decoding == "none":
            return
        try:
            decoded = [bound.decode(k) for k in expected]
        except LexCodecError:
            return
        back = decode_arrow(keys, schema, codec_name)
        assert back.column_names == [f.name for f in schema.fields]
        got = [tuple(back.column(f.name)[i].as_py() for f in schema.fields)
               for i in range(len(rows))]
        assert all(_same(x, y) for g, d in zip(got, decoded) for x, y in zip(g, d))


#: the fixed-width schemas the kernel writes for every built-in codec that has the types
FIXED = ["a:int64, b:int64", "a:int32, x:float64", "c:bool, a:int16 desc", "a:uint32, y:float32",
         "a:int64 desc nulls last, x:float64 desc", "a:int8, b:uint64, c:bool",
         "a:int, x:float64"]
#: schemas with a variable-length field the kernel writes for some codecs
VARIABLE = ["s:string, a:int64", "a:int32, bin:bytes desc", "t:timestamp, s:string desc nulls last",
            "bin:bytes, t:timestamp"]
TEXTS = ["", "a", "ü€𝄞", "tenant-07", None, "\x01\xff", "zz" * 9]
EDGE = [0, 1, -1, 127, -128, 255, -256, 2**15 - 1, -(2**15), 2**31 - 1, -(2**31),
        2**53 + 1, 2**63 - 1, -(2**63), 10**18, -(10**17), None]
FLOATS = [0.0, -0.0, 1.5, -2.25, 1e300, -1e-300, math.inf, -math.inf, None, 0.1, 5e-324,
          123456.789, 1e16, 1e-5, 3.0, -7.0, 2.0**70]


def _wrap(v: int | None, field_type: str) -> int | None:
    """*v* wrapped into an int field type's range (the edges stay edges)."""
    if v is None or field_type == "int":
        return v
    bits = _bits(field_type)
    v %= 2**bits
    if field_type == "uint64":  # 2**64 - 1 is fdb-tuple's long form, a declined row
        return min(v, 2**64 - 2)
    return v - 2**bits if not field_type.startswith("u") and v >= 2 ** (bits - 1) else v


def _column(name: str, field_type: str) -> Any:
    if name in "ab":
        values = EDGE if name == "a" else EDGE[::-1]
        kind = pa.int64() if field_type == "int" else getattr(pa, field_type)()
        return pa.array([_wrap(v, field_type) for v in values], kind)
    if name in ("s", "bin"):
        texts = (TEXTS * len(EDGE))[:len(EDGE)]
        if name == "s":
            return pa.array(texts, pa.string())
        return pa.array([None if t is None else t.encode() + b"\x00" for t in texts])
    if name == "t":
        return pa.array([v if v is None else v // 1000 for v in EDGE], pa.timestamp("ns"))
    if name == "c":
        return pa.array(([True, False, None] * len(EDGE))[:len(EDGE)])
    return pa.array(FLOATS, pa.float64() if name == "x" else pa.float32())


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
def test_kernel_writes_fixed_width_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edges of every writer, byte-exact, sliced and whole, written by the kernel alone:
    no batch falls back to the row API and no row is declined to it."""

    def no_fallback(*args: object) -> None:
        raise AssertionError("the whole batch took the row API")
    monkeypatch.setattr(columnar, "_row_api", no_fallback)
    declined: list[int] = []
    ways: set[str] = set()
    run_kernel = columnar._run_kernel

    def run(*args: Any) -> Any:
        result = run_kernel(*args)
        declined.extend(result.declined)
        ways.add(result.way)
        return result
    monkeypatch.setattr(columnar, "_run_kernel", run)
    checked = 0
    for name in BUILT_IN:
        for text in FIXED + VARIABLE:
            schema = KeySchema.parse(text)
            try:
                bound = get_codec(name).bind(schema)
            except SchemaError:
                continue
            table = pa.table({f.name: _column(f.name, f.type) for f in schema.fields})
            # and without the rows holding a NULL: keys of one length are written in place
            for part in (table, table.drop_null()):
                rows = list(zip(*(columnar._python_values(part.column(f.name).chunk(0), f.type)
                                  for f in schema.fields)))
                try:
                    expected = [bound.encode(row) for row in rows]
                except EncodeError:  # a NULL where the codec has none (HBase's fixed widths)
                    assert part is table, (name, text)
                    assert any(None in row for row in rows), (name, text)
                    continue
                for start in (0, 3):
                    keys = encode_arrow(part.slice(start), schema, name).to_pylist()
                    assert keys == expected[start:], (name, text, start)
                    assert declined == [], (name, text)  # every edge is the kernel's own
            checked += 1
    assert checked >= 38
    assert ways == {"in place", "number rows", "by field", "by row"}


def _short_strings() -> list[bytes]:
    """Every length 0..20, plain, with a 00 at each place, and with bytes that wrap when 2
    is added (fe, ff: orderly) or are escaped elsewhere: the edges of the kernel's word
    path for short strings (16 bytes read and written at once, a 00 found by a mask), and
    runs of 00 leading each 8 bytes or not (a big-endian integer's: ``raw_escape00`` and
    orderedcode write a word whose 00s all lead it in two stores, orderedcode when it holds
    no ff)."""
    out = []
    for n in range(21):
        out += [b"a" * n, bytes(range(0xEC, 0xEC + n)), b"\xfe\xff" * (n // 2)]
        out += [b"a" * z + b"\x00" + b"a" * (n - z - 1) for z in range(n)]
        out += [b"\x00" * z + b"a" * (n - z) for z in range(n + 1)]
        out += [(b"\x00" * z + b"a" * (8 - z)) * 2 + b"\x00" * (n % 3) for z in range(9)
                if n < 3]
        out += [b"\x00" * z + b"a" + b"\x00" + b"a" * n for z in range(8)]
        out += [b"\x00" * z + b"\xff" + b"a" * (n + 7 - z) for z in range(8)]  # ff: escaped too
    return out


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("name", BUILT_IN)
@pytest.mark.parametrize("text", ["s:bytes, a:int64", "a:int64, s:string desc", "s:string"])
def test_short_strings_are_the_row_apis(name: str, text: str) -> None:
    """Short strings and binaries of every length, a 00 at every place, the last of them at
    the end of the Arrow data buffer (each slice of the table ends there): the kernel's keys
    are the row API's, those of the reference's (the layouts' escapes are one code in both
    compiled paths), and a value the row API refuses is refused."""
    schema = KeySchema.parse(text)
    try:
        bound = get_codec(name).bind(schema)
    except SchemaError:
        return
    with _impl.use("reference"):
        reference = get_codec(name).bind(schema)
    string = schema.fields[[f.name for f in schema.fields].index("s")].type == "string"
    values = [v.decode("latin-1") if string else v for v in _short_strings()]
    rows, keys = [], []
    for v in values:
        row = tuple(v if f.name == "s" else 7 for f in schema.fields)
        try:
            keys.append(bound.encode(row))
        except EncodeError:
            with pytest.raises(EncodeError):
                reference.encode(row)
            with pytest.raises(EncodeError):
                encode_arrow(pa.table({f.name: [x] for f, x in zip(schema.fields, row)}),
                             schema, name)
            continue
        assert reference.encode(row) == keys[-1], row
        rows.append(row)
    table = pa.table({f.name: pa.array([r[j] for r in rows], pa.string() if f.type == "string"
                                       else pa.binary() if f.type == "bytes" else pa.int64())
                      for j, f in enumerate(schema.fields)})
    for start in (0, 1, len(rows) - 1):
        assert encode_arrow(table.slice(start), schema, name).to_pylist() == keys[start:]


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize(("name", "text", "nulls", "way", "plain"), [
    ("lexkey", "a:int64, b:int64", False, "in place", 0),
    ("skv", "c:bool, a:int16 desc", False, "in place", 0),
    ("lexkey-legacy", "a:uint32, y:float32", False, "in place", 0),
    ("orderly", "a:int32, x:float64", False, "number rows", 2),  # var-ints
    ("fdb-tuple", "a:int64, b:int64", False, "number rows", 2),  # lengths by value
    ("orderly", "a:int64, b:int64 desc", False, "number rows", 2),
    ("sqlite4", "a:int64, b:int32", False, "number rows", 2),
    ("fdb-tuple", "a:int64, x:float64", False, "number rows", 2),  # a float's tag
    ("orderly", "a:int64, x:float64 desc, y:float32", False, "number rows", 3),
    ("sqlite4", "a:int64, x:float64", False, "by field", 2),  # sqlite4's float: decimal
    ("sqlite4", "a:int64 desc", True, "number rows", 1),  # sqlite4's NULLs in the rows
    ("sqlite4", "a:int64, b:int32 desc", True, "number rows", 2),
    ("fdb-tuple", "a:int64, x:float64", True, "by field", 0),  # NULLs
    ("skv", "a:int64, b:int64", True, "by field", 0),  # a NULL is shorter
    ("orderly", "a:int64, b:int64 desc", True, "by field", 0),  # a descending last field
    ("orderly", "a:int64, b:int64", True, "by row", 0),  # orderly's NULL rule
    ("lexkey", "s:string, a:int64", False, "by row", 0),
    ("ordered-binary", "a:int, x:float64", False, "number rows", 2),  # JS numbers
    ("orderedcode", "a:int64, x:float64", False, "by field", 2),
])
def test_the_kernel_takes_its_fast_ways(name: str, text: str, nulls: bool, way: str,
                                        plain: int) -> None:
    """The way the benchmark's schemas take, and how many columns the loops without checks
    write (a fast way lost would show only as speed): as the kernel reports what it did."""
    schema = KeySchema.parse(text)
    table = pa.table({f.name: _column(f.name, f.type) for f in schema.fields})
    assert table.num_rows > table.drop_null().num_rows  # the edge columns hold NULLs
    part = table if nulls else table.drop_null()
    plan = _kernel_plan(name, schema, part)
    assert plan is not None
    done = columnar._run_kernel(plan, part.num_rows, _pieces(name), None)
    assert (done.way, done.plain) == (way, plain)


#: the field types of the number-rows test, in turn: orderly has no 8- or 16-bit integers
NUMBER_TYPES = {"orderly": ["int64", "float64", "uint64", "uint32", "float32"],
                "fdb-tuple": ["int64", "float64", "uint64", "int16", "float32"],
                "sqlite4": ["int64", "int32", "uint64", "int16", "uint8"]}


def _numbers(rng: random.Random, t: str, n: int) -> Any:
    """*n* random values of field type *t*: integers of every size and sign with the type's
    ends, floats of every magnitude with infinities and both zeros."""
    if t.startswith("float"):
        values = [rng.choice([-1, 1]) * rng.random() * 10.0 ** rng.randint(-30, 30)
                  for _ in range(n)]
        values[:4] = [math.inf, -math.inf, 0.0, -0.0]
        return pa.array(values, getattr(pa, t)())
    bits, signed = _bits(t), not t.startswith("u")
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    values = [rng.randint(low, high) >> rng.randrange(bits) for _ in range(n)]
    values[:2] = [low, high if t != "uint64" else high - 1]  # fdb-tuple's 2**64 - 1: below
    return pa.array(values, getattr(pa, t)())


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("name", ["fdb-tuple", "orderly", "sqlite4"])
@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_number_rows_are_the_row_apis(name: str, width: int) -> None:
    """Keys of integers whose lengths depend on the values, and of IEEE floats (not
    sqlite4's), are written a row at a time (two fields unrolled, more in a loop): the row
    API's bytes for random values of every size and sign, in both orders; a row the kernel
    declines (fdb-tuple's 2**64 - 1, a NaN) sends the batch another way, with the same
    bytes. (fdb-tuple has no descending fields.)"""
    rng = random.Random(width)
    types = NUMBER_TYPES[name][:width]
    desc = name != "fdb-tuple"
    fields = [f"f{j}:{t}{' desc' if desc and j % 2 else ''}" for j, t in enumerate(types)]
    schema = KeySchema.parse(", ".join(fields))
    table = pa.table({f"f{j}": _numbers(rng, t, 3000) for j, t in enumerate(types)})
    bound = get_codec(name).bind(schema)

    def way_and_keys(table: Any) -> tuple[Any, list[bytes]]:
        plan = _kernel_plan(name, schema, table)
        assert plan is not None
        done = columnar._run_kernel(plan, table.num_rows, _pieces(name), None)
        rows = zip(*(table.column(f.name).to_pylist() for f in schema.fields))
        assert encode_arrow(table, schema, name).to_pylist() == [bound.encode(r) for r in rows]
        return done.way, done.declined

    assert way_and_keys(table) == ("number rows", [])
    if name != "fdb-tuple":
        return
    for at, t in enumerate(types):  # one row each kind declines: the batch goes by row
        if t in ("uint64", "float64"):
            values = table.column(at).to_pylist()
            values[1500] = 2**64 - 1 if t == "uint64" else math.nan
            changed = table.set_column(at, f"f{at}", pa.array(values, getattr(pa, t)()))
            assert way_and_keys(changed) == ("by row", [1500])


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("width", [2, 3])
def test_ordered_binary_int64_rows_are_the_row_apis(width: int) -> None:
    """ordered-binary keys of int64 columns alone take a loop of their own a row at a time
    (``_ob_int64_rows``): the row API's bytes for random integers of every size and sign,
    beyond 2**53 too (a double and its BigInt remainder); a row holding the integer lmdb-js
    writes wrong (one that rounds towards zero onto a double whose low 32 bits are all ones,
    the row API's to write) is declined, and the batch goes by row with the same bytes."""
    rng = random.Random(width)
    schema = KeySchema.parse(", ".join(f"f{j}:int" for j in range(width)))
    table = pa.table({f"f{j}": _numbers(rng, "int64", 3000) for j in range(width)})
    bound = get_codec("ordered-binary").bind(schema)

    def way_and_keys(table: Any) -> tuple[Any, list[int]]:
        plan = _kernel_plan("ordered-binary", schema, table)
        assert plan is not None
        done = columnar._run_kernel(plan, table.num_rows, _pieces("ordered-binary"), None)
        rows = zip(*(table.column(f.name).to_pylist() for f in schema.fields))
        assert encode_arrow(table, schema, "ordered-binary").to_pylist() == [
            bound.encode(r) for r in rows]
        return done.way, done.declined

    assert way_and_keys(table) == ("number rows", [])
    wrong = -((2**52 + 2**32 - 1) * 4 + 1)  # rounds to -0x1.00000ffffffffp+54, towards zero
    values = table.column(width - 1).to_pylist()
    values[1500] = wrong
    changed = table.set_column(width - 1, f"f{width - 1}", pa.array(values, pa.int64()))
    assert way_and_keys(changed) == ("by row", [1500])


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("orders", ["", " desc"])
def test_sqlite4_two_int64_are_the_row_apis(orders: str) -> None:
    """sqlite4's two int64 fields, whose four 10**8 parts the kernel splits into digits in
    one step (the other widths go one value at a time): 1 to 19 digits of both signs, with
    zero, the ends, multiples of 10**16 (no digit below H) and of powers of 100 (trailing
    zero digits), each field in each order, whole and sliced."""
    rng = random.Random(64)
    specials = [0, 1, -1, 2**63 - 1, -(2**63), 10**16, -(10**16), 9 * 10**18, 10**8,
                -(10**15), 99, 100, -100, 10**16 + 1, 10**16 - 1]
    values = [*specials]
    for digits in range(1, 20):
        for zeros in range(digits):  # trailing zero digits
            d = rng.randrange(10 ** (digits - 1), 10**digits) // 10**zeros * 10**zeros
            values += [d, -d] if d < 2**63 else []
    rng.shuffle(values)
    others = values[::-1]
    for second in ("", " desc"):
        schema = KeySchema.parse(f"a:int64{orders}, b:int64{second}")
        table = pa.table({"a": pa.array(values, pa.int64()), "b": pa.array(others, pa.int64())})
        bound = get_codec("sqlite4").bind(schema)
        for part in (table, table.slice(5)):
            plan = _kernel_plan("sqlite4", schema, part)
            assert plan is not None
            done = columnar._run_kernel(plan, part.num_rows, SQLITE4_PIECES, None)
            assert (done.way, done.declined) == ("number rows", [])
            rows = zip(part.column("a").to_pylist(), part.column("b").to_pylist())
            expected = [bound.encode(row) for row in rows]
            assert encode_arrow(part, schema, "sqlite4").to_pylist() == expected, schema


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("width", [1, 2, 3, 5])
def test_sqlite4_number_rows_with_nulls_are_the_row_apis(width: int) -> None:
    """sqlite4's integers with NULLs (in every field, each order, a NULL row first, last and
    whole) are written a row at a time: the row API's bytes, the NULL piece in place."""
    rng = random.Random(100 + width)
    types = NUMBER_TYPES["sqlite4"][:width]
    fields = [f"f{j}:{t}{' desc' if j % 2 == 0 else ''}" for j, t in enumerate(types)]
    schema = KeySchema.parse(", ".join(fields))
    n = 3000
    columns = {}
    for j, t in enumerate(types):
        values = _numbers(rng, t, n).to_pylist()
        for i in [0, n - 1, 1234, *rng.sample(range(n), n // 5)]:
            values[i] = None  # rows 0, 1234 and n - 1 NULL in every field
        columns[f"f{j}"] = pa.array(values, getattr(pa, t)())
    table = pa.table(columns)
    plan = _kernel_plan("sqlite4", schema, table)
    assert plan is not None
    done = columnar._run_kernel(plan, n, SQLITE4_PIECES, None)
    assert (done.way, done.declined) == ("number rows", [])
    bound = get_codec("sqlite4").bind(schema)
    rows = zip(*(table.column(f.name).to_pylist() for f in schema.fields))
    assert encode_arrow(table, schema, "sqlite4").to_pylist() == [bound.encode(r) for r in rows]
    # a slice: the validity bits read at the column's offset
    part = table.slice(7, 2000)
    rows = zip(*(part.column(f.name).to_pylist() for f in schema.fields))
    assert encode_arrow(part, schema, "sqlite4").to_pylist() == [bound.encode(r) for r in rows]


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
def test_sqlite4_floats_of_every_length_and_exponent_are_the_row_apis() -> None:
    """sqlite4's floats, whose centimal digits the kernel takes from the shortest decimal as
    an integer (times ten when its exponent is odd): 1 to 17 digits at every parity and class
    of exponent (small, medium, large: varints of one to three bytes), subnormals, the ends,
    both signs, both orders."""
    rng = random.Random(17)
    values = [-5e-324, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1e23]
    for digits in range(1, 18):
        for exponent in range(-340, 309, 3):
            d = rng.randrange(10 ** (digits - 1), 10**digits)
            x = float(f"{d}e{exponent - digits}")
            if x and not math.isinf(x):
                values += [x, -x]
    values += [float(10**k) for k in range(23)] + [float(99 * 10**k) for k in range(20)]
    table = pa.table({"x": pa.array(values, pa.float64()),
                      "y": pa.array([1.5] * len(values), pa.float64())})
    for text in ("x:float64", "x:float64 desc", "y:float64, x:float64 desc"):
        schema = KeySchema.parse(text)
        bound = get_codec("sqlite4").bind(schema)
        rows = zip(*(table.column(f.name).to_pylist() for f in schema.fields))
        assert encode_arrow(table, schema, "sqlite4").to_pylist() == [bound.encode(r)
                                                                       for r in rows], text


def test_errors_are_the_row_apis_with_the_row() -> None:
    table = pa.table({"a": pa.array([1, 2**40, 3], pa.int64()), "x": [0.5, 1.0, math.nan]})
    for name in ("skv", "fdb-tuple", "sqlite4", "orderly"):
        with pytest.raises(EncodeError) as info:
            get_codec(name).bind(KeySchema.parse("a:int32")).encode((2**40,))
        with pytest.raises(type(info.value), match="row 1") as got:
            encode_arrow(table, "a:int32", name)
        assert got.value.codec == name
        assert got.value.field == 0
    with pytest.raises(EncodeError, match="row 2"):
        encode_arrow(table, "x:float64", "skv")  # NaN: skv refuses it
    with pytest.raises(SchemaError):
        encode_arrow(table, "missing:int64", "skv")
    with pytest.raises(SchemaError):
        encode_arrow({"a": [1]}, "a:int64", "skv")


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_column_wider_than_its_field_is_checked_without_nulls(name: str) -> None:
    """Without NULLs, an integer column takes the kernel's plain loops when none of its
    values can be out of the field's range: where some can, each is still checked (the
    row API's refusal, the row named), and the edges that fit are written alike."""
    pairs: list[tuple[str, str, int | None]] = [
        ("int64", "int32", 2**31), ("int64", "uint64", -1), ("uint64", "int64", 2**63),
        ("int32", "int16", -(2**15) - 1), ("uint32", "int32", 2**31), ("int16", "uint8", 256),
        ("int8", "uint8", -1), ("uint8", "int8", 128), ("uint16", "int16", 2**15),
        ("int16", "int8", -129), ("uint64", "uint32", 2**32), ("int8", "uint64", -128),
        ("int32", "int64", None), ("uint32", "int64", None), ("uint8", "int16", None),
        ("int8", "int16", None), ("uint16", "uint64", None), ("uint32", "uint32", None)]
    for arrow_type, field_type, outside in pairs:
        # the column first, and after a field that always fits (a key of two)
        for text in (f"a:{field_type}", f"b:int64, a:{field_type}"):
            _check_narrowing(name, text, arrow_type, field_type, outside)


def _check_narrowing(name: str, text: str, arrow_type: str, field_type: str,
                     outside: int | None) -> None:
    """*text*'s field ``a`` from an *arrow_type* column: the values that fit both as the
    row API writes them, then *outside* (unless None) refused with its row named."""
    schema = KeySchema.parse(text)
    try:
        bound = get_codec(name).bind(schema)
    except SchemaError:
        return
    inside = [0, 1, -1, 2**7 - 1, 255, 2**15 - 1, -(2**15), 2**31 - 1, -(2**31), 2**63 - 1]
    fits = [v for v in inside if _fits(v, arrow_type) and _fits(v, field_type)]
    values = fits if outside is None else [*fits, outside]
    table = pa.table({"a": pa.array(values, getattr(pa, arrow_type)()),
                      "b": pa.array([7] * len(values), pa.int64())})
    names = [f.name for f in schema.fields]
    rows = [tuple({"a": v, "b": 7}[n] for n in names) for v in fits]
    assert encode_arrow(table.slice(0, len(fits)), schema, name).to_pylist() == [
        bound.encode(row) for row in rows], text
    if outside is not None:
        with pytest.raises(EncodeError, match=f"row {len(fits)}"):
            encode_arrow(table, schema, name)


@pytest.mark.parametrize("name", BUILT_IN)
def test_nans_without_nulls_are_the_row_apis(name: str) -> None:
    """A NaN (either sign) in a column without NULLs, which the loops without checks write:
    declined to the row API, which gives its bytes or its refusal (the row named)."""
    nan, minus_nan = math.nan, struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]
    values = [1.0, -2.5, nan, minus_nan, 0.0]
    table = pa.table({"a": pa.array(range(len(values)), pa.int64()),
                      "x": pa.array(values, pa.float64()), "y": pa.array(values, pa.float32())})
    for text in ("x:float64", "a:int64, x:float64", "x:float64 desc, a:int64", "y:float32",
                 "a:int64, y:float32 desc"):
        schema = KeySchema.parse(text)
        try:
            bound = get_codec(name).bind(schema)
        except SchemaError:
            continue
        for i in range(len(values)):  # each row alone, then the table
            part = table.slice(i, 1)
            row = tuple(part.column(f.name)[0].as_py() for f in schema.fields)
            try:
                expected = bound.encode(row)
            except EncodeError:
                with pytest.raises(EncodeError, match="row 0"):
                    encode_arrow(part, schema, name)
                continue
            assert encode_arrow(part, schema, name).to_pylist() == [expected], (text, i)


def _fits(v: int, int_type: str) -> bool:
    bits = _bits(int_type)
    if int_type.startswith("u"):
        return 0 <= v < 2**bits
    return -(2 ** (bits - 1)) <= v < 2 ** (bits - 1)


def test_a_batch_past_the_binary_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past a BinaryArray's 2 GiB (here made 30 bytes), on both paths: an EncodeError."""
    table = pa.table({"a": pa.array([1, 2, 3], pa.int64())})
    monkeypatch.setattr(columnar, "_BINARY_LIMIT", 30)
    with pytest.raises(EncodeError, match="2 GiB"):
        encode_arrow(table, "a:int64", "skv")  # 3 keys of 12 bytes
    monkeypatch.setattr(columnar, "_kernel", None)
    with pytest.raises(EncodeError, match="2 GiB"):
        encode_arrow(table, "a:int64", "skv")
    assert len(encode_arrow(table.slice(1), "a:int64", "skv")) == 2


def test_batches_chunks_and_overrides() -> None:
    """A RecordBatch, a table of several chunks, NULL rows orderly declines, a NaN sqlite4
    declines and writes through the row API, an fdb-tuple 2**64 - 1: all the row API's."""
    values = [5, None, -3, None, 2**31 - 1]
    chunked = pa.Table.from_batches([
        pa.record_batch({"a": pa.array(values[:2], pa.int32()), "x": [1.5, math.nan]}),
        pa.record_batch({"a": pa.array(values[2:], pa.int32()), "x": [None, -0.0, 1e-7]}),
    ])
    for name, text in (("orderly", "a:int32, x:float64"), ("sqlite4", "a:int32 desc, x:float64"),
                       ("fdb-tuple", "a:int32, x:float64")):
        bound = get_codec(name).bind(KeySchema.parse(text))
        rows = list(zip(chunked.column("a").to_pylist(), chunked.column("x").to_pylist()))
        expected = [bound.encode(r) for r in rows]
        assert encode_arrow(chunked, text, name).to_pylist() == expected
        batch = chunked.to_batches()[1]
        assert encode_arrow(batch, text, name).to_pylist() == expected[2:]
    big = pa.table({"u": pa.array([2**64 - 1, 0, 2**64 - 2], pa.uint64())})
    bound = get_codec("fdb-tuple").bind(KeySchema.parse("u:uint64"))
    assert encode_arrow(big, "u:uint64", "fdb-tuple").to_pylist() == \
        [bound.encode((v,)) for v in big.column("u").to_pylist()]


class _Tagged(pa.ExtensionType):
    """An extension type of Python's own: pyarrow makes it unhashable (it defines ``__eq__``)."""

    def __init__(self) -> None:
        super().__init__(pa.int64(), "lexcodecs.test.tagged")

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: Any, serialized: bytes) -> _Tagged:
        return cls()


class _DoubledScalar(pa.ExtensionScalar):
    def as_py(self, **kwargs: Any) -> Any:
        value = self.value
        return None if value is None else 2 * value.as_py()


class _Doubled(_Tagged):
    """An extension type whose scalars say what they mean: twice the stored integer."""

    def __init__(self) -> None:
        pa.ExtensionType.__init__(self, pa.int64(), "lexcodecs.test.doubled")

    def __arrow_ext_scalar_class__(self) -> type:
        return _DoubledScalar


def test_the_kept_plan_follows_the_columns_types_and_nulls() -> None:
    """One schema over columns of other types, with and without NULLs, and of an unhashable
    extension type, batch after batch: each batch's keys are the row API's, and the kernel
    declines no NULL (the part of the plan kept per codec, schema, column types and NULLs
    must not serve another combination)."""
    columns = [pa.array([5, -3, 2**40], pa.int64()), pa.array([5, None, -3], pa.int64()),
               pa.array([7, -8, 9], pa.int32()), pa.array([None, 1, None], pa.int32()),
               pa.array([5, -3, 2**40], pa.int64())]
    columns.append(pa.ExtensionArray.from_storage(_Doubled(), columns[1]))
    for name in ("sqlite4", "fdb-tuple", "orderly", "skv"):
        text = "a:int64" if name == "fdb-tuple" else "a:int64 desc"  # (no descending)
        bound = get_codec(name).bind(KeySchema.parse(text))
        for column in columns:
            table = pa.table({"a": column})
            # an extension column's values are what its scalars mean, not its storage
            expected = [bound.encode((v,)) for v in column.to_pylist()]
            assert encode_arrow(table, text, name).to_pylist() == expected, (name, column.type)
            schema = KeySchema.parse(text)
            plan = _kernel_plan(name, schema, table)
            if plan is not None and kernel_available():  # NULLs by the plan's NULL bytes
                done = columnar._run_kernel(plan, 3, _pieces(name), None)
                assert done.declined == [], (name, column.type)


def test_codec_objects_options_and_plugins() -> None:
    """A Codec object; options the kernel does not write (the row API's bytes); a plugin."""
    table = pa.table({"a": pa.array([-1, 0, 7], pa.int64())})
    codec = get_codec("sqlite4", table=3)
    expected = [codec.bind(KeySchema.parse("a:int64")).encode((v,)) for v in (-1, 0, 7)]
    assert encode_arrow(table, KeySchema.parse("a:int64"), codec).to_pylist() == expected
    for name in sorted(set(available_codecs()) - set(BUILT_IN)):
        try:
            bound = get_codec(name).bind(KeySchema.parse("a:int64"))
            expected = [bound.encode((v,)) for v in (-1, 0, 7)]
        except LexCodecError:
            continue
        assert encode_arrow(table, "a:int64", name).to_pylist() == expected


@pytest.mark.skipif(not kernel_available(), reason="the kernel is not built")
def test_a_plugin_that_declares_its_layout_goes_through_the_kernel() -> None:
    """Columnar participation is the codec's declaration, a plugin's too: the toy declares
    its pieces (tests/toys.py) and the kernel writes its keys, NULLs and descending fields
    included, equal to its row API's; the same codec without the declaration takes its row
    API."""
    from toys import ToyCodec

    schema = KeySchema.parse("s:string, n:int64 desc nulls last, f:float64, b:bool")
    table = pa.table({"s": ["", "a\x00b", None, "zz"], "n": [3, None, -(2**63), 2**63 - 1],
                      "f": [0.5, -0.0, None, float("inf")], "b": [True, None, False, True]})
    toy = ToyCodec()
    bound = toy.bind(schema)
    expected = [bound.encode(tuple(row.values())) for row in table.to_pylist()]
    declared = pieces.declared(toy)
    assert declared is not None
    assert declared is toy.COLUMNAR
    plan = columnar._plan(toy, declared, schema, columnar._columns(table, schema))
    assert plan is not None  # the kernel's, not the row API's
    done = columnar._run_kernel(plan, table.num_rows, declared, None)
    assert done.declined == []
    assert encode_arrow(table, schema, toy).to_pylist() == expected

    class Undeclared(ToyCodec):
        COLUMNAR = None

    assert pieces.declared(Undeclared()) is None
    assert encode_arrow(table, schema, Undeclared()).to_pylist() == expected


def test_decode_arrow_takes_binary_kinds_and_refuses_the_rest() -> None:
    table = pa.table({"a": pa.array([3, -4], pa.int64()), "x": [0.25, None]})
    keys = encode_arrow(table, "a:int64, x:float64", "skv")
    for kind in (keys, keys.cast(pa.large_binary()), pa.chunked_array([keys[:1], keys[1:]])):
        back = decode_arrow(kind, "a:int64, x:float64", "skv")
        assert back.to_pylist() == table.to_pylist()
        assert back.schema.field("a").type == pa.int64()
    with pytest.raises(DecodeError):
        decode_arrow(pa.array([b"x", None]), "a:int64", "skv")
    with pytest.raises(DecodeError):
        decode_arrow(pa.array(["text"]), "a:int64", "skv")
    with pytest.raises(DecodeError, match="row 1"):
        decode_arrow(pa.array([keys[0].as_py(), b"\x42"]), "a:int64, x:float64", "skv")


def test_every_codec_is_covered() -> None:
    assert set(BUILT_IN) <= set(available_codecs())


def test_an_int_field_above_int64_decodes_to_uint64() -> None:
    """A uint64 column in an ``int`` field: the keys decode back to a uint64 column, not to an
    int64 that cannot hold 2**63 (found by the property test)."""
    table = pa.table({"f0": pa.array([2**63, 5, 2**64 - 1], pa.uint64())})
    for codec in ("sqlite4", "fdb-tuple"):
        back = decode_arrow(encode_arrow(table, "f0:int", codec), "f0:int", codec)
        assert back.column(0).type == pa.uint64()
        assert back.column(0).to_pylist() == [2**63, 5, 2**64 - 1]
    with pytest.raises(DecodeError, match="Arrow cannot hold"):
        decode_arrow(pa.array([get_codec("fdb-tuple").encode((2**64,), "f0:int")], pa.binary()),
                     "f0:int", "fdb-tuple")


@pytest.mark.parametrize("codec_name", BUILT_IN)
def test_batches_longer_than_the_kernels_chunk(codec_name: str) -> None:
    """2,500 rows, with and without NULLs: the field-at-a-time path writes them in chunks of
    1,024, so the second and third chunks' places in the output (and the scratch reused) are
    checked against the row API, for the whole table and for a slice of it (an Arrow
    offset)."""
    n = 2500
    ints = [(i * 2654435761) % 2**64 - 2**63 for i in range(n)]
    table = pa.table({"a": pa.array([v >> 20 for v in ints], pa.int64()),
                      "b": pa.array(ints, pa.int64()),
                      "x": pa.array([v / 7.0 for v in ints], pa.float64()),
                      "c": pa.array([v & 1 == 1 for v in ints], pa.bool_()),
                      # NULLs in every chunk: the column loops write them (their row index
                      # counts from the chunk's start)
                      "n": pa.array([None if v % 5 == 0 else v >> 3 for v in ints], pa.int64())})
    for schema in ("a:int64, b:int64 desc", "x:float64, a:int64", "c:bool, b:int64",
                   "n:int64 desc", "n:int64, a:int64 desc"):
        try:
            bound = get_codec(codec_name).bind(schema)
        except SchemaError:
            continue
        for part in (table, table.slice(700, 1900)):
            names = [f.name for f in KeySchema.parse(schema).fields]
            rows = list(zip(*(part.column(name).to_pylist() for name in names)))
            try:
                expected = [bound.encode(row) for row in rows]
            except EncodeError as exc:  # a NULL where the codec has none: refused alike
                reason = str(exc.reason)
            else:
                assert encode_arrow(part, schema, codec_name).to_pylist() == expected
                continue
            with pytest.raises(EncodeError) as info:
                encode_arrow(part, schema, codec_name)
            assert str(info.value.reason).startswith(reason)


# -- extension types (issue 30, item 9) -------------------------------------------------------


def _bool8(values: list[int | None]) -> Any:
    return pa.ExtensionArray.from_storage(pa.bool8(), pa.array(values, pa.int8()))


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "row API"])
@pytest.mark.parametrize("name", ["fdb-tuple", "lexkey", "skv", "ordered-binary"])
def test_a_bool8_column_is_its_booleans(monkeypatch: pytest.MonkeyPatch, kernel: bool,
                                        name: str) -> None:
    """``pa.bool8()`` over int8 is booleans (any non-zero byte true): a bool field takes it,
    through the kernel too; an int8 field refuses it as it refuses a bool column -- the
    storage's integers were written before."""
    if kernel and not kernel_available():
        pytest.skip("the columnar kernel is not built")
    if not kernel:
        monkeypatch.setattr(columnar, "_kernel", None)
    column = _bool8([1, 0, None, 2, -1, 0])
    logical = [True, False, None, True, True, False]
    assert column.to_pylist() == logical
    bound = get_codec(name).bind(KeySchema.parse("b:bool"))
    table = pa.table({"b": column})
    assert encode_arrow(table, "b:bool", name).to_pylist() == [bound.encode((v,))
                                                                  for v in logical]
    schema = KeySchema.parse("b:bool")
    plan = _kernel_plan(name, schema, table)
    declared = pieces.declared(get_codec(name), 1)  # a key of one field (JS: bare)
    declares = declared is not None and declared.min_fields <= 1
    assert (plan is not None) == (kernel and declares)  # the kernel reads it
    plain = pa.table({"b": pa.array(logical, pa.bool_())})
    try:
        expected = encode_arrow(plain, "b:int8", name).to_pylist()
    except LexCodecError as exc:
        with pytest.raises(type(exc)):
            encode_arrow(table, "b:int8", name)
    else:  # pragma: no cover - no built-in codec writes a bool into an int8 field
        assert encode_arrow(table, "b:int8", name).to_pylist() == expected


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "row API"])
def test_an_extension_type_of_unknown_meaning_is_refused_by_name(
        monkeypatch: pytest.MonkeyPatch, kernel: bool) -> None:
    """A type whose scalars do not say what they mean (its own, ``arrow.json``,
    ``arrow.opaque``): its storage integers or text are not its values, so encode_arrow
    refuses it, naming the column and the type."""
    if kernel and not kernel_available():
        pytest.skip("the columnar kernel is not built")
    if not kernel:
        monkeypatch.setattr(columnar, "_kernel", None)
    storage = pa.array([5, None, -3], pa.int64())
    for column, field, kind in (
            (pa.ExtensionArray.from_storage(_Tagged(), storage), "int64",
             "lexcodecs.test.tagged"),
            (pa.ExtensionArray.from_storage(pa.opaque(pa.int64(), "t", "v"), storage),
             "int64", "arrow.opaque"),
            (pa.ExtensionArray.from_storage(pa.json_(), pa.array(['"a"', None, "1"])),
             "string", "arrow.json")):
        with pytest.raises(SchemaError) as info:
            encode_arrow(pa.table({"a": column}), f"a:{field}", "fdb-tuple")
        assert info.value.field_name == "a"
        assert f"extension type {kind!r}" in str(info.value)


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "row API"])
def test_an_extension_type_that_says_its_values_is_read_by_them(
        monkeypatch: pytest.MonkeyPatch, kernel: bool) -> None:
    if kernel and not kernel_available():
        pytest.skip("the columnar kernel is not built")
    if not kernel:
        monkeypatch.setattr(columnar, "_kernel", None)
    column = pa.ExtensionArray.from_storage(_Doubled(), pa.array([5, None, -3], pa.int64()))
    bound = get_codec("sqlite4").bind(KeySchema.parse("a:int64"))
    assert encode_arrow(pa.table({"a": column}), "a:int64", "sqlite4").to_pylist() == [
        bound.encode((v,)) for v in (10, None, -6)]


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize(("fields", "kernel"), [(1, False), (2, True), (818, True),
                                                (819, False), (820, False)])
def test_a_declaration_holds_for_the_schemas_it_names(fields: int, kernel: bool) -> None:
    """ordered-binary's pieces hold for arrays (two fields or more: one value is written
    bare) whose keys surely fit lmdb-js's 8 KiB buffer (818 numbers of 9 bytes and their
    separators: 8,179 bytes; the last number's 12-byte store must end by 8,192, so 819
    still fit and 820 do not): any other schema is the row API's, which writes the bare
    value, the key, or refuses it."""
    codec = get_codec("ordered-binary")
    schema = KeySchema.parse(", ".join(f"f{i}:float64" for i in range(fields)))
    table = pa.table({f"f{i}": pa.array([1.5, -2.0, None]) for i in range(fields)})
    assert (_kernel_plan("ordered-binary", schema, table) is not None) == kernel
    bound = codec.bind(schema)
    rows = [tuple([v] * fields) for v in (1.5, -2.0, None)]
    try:
        expected = [bound.encode(row) for row in rows]
    except EncodeError as exc:
        reason = str(exc.reason)
    else:
        assert encode_arrow(table, schema, codec).to_pylist() == expected
        return
    assert fields >= 820
    with pytest.raises(EncodeError) as info:
        encode_arrow(table, schema, codec)
    assert str(info.value.reason).startswith(reason)


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
@pytest.mark.parametrize("name", ["bytewise", "charwise", "ordered-binary"])
@pytest.mark.parametrize(("text", "kernel"), [
    ("x:float64", True), ("a:int", True), ("c:bool", True), ("x:float64 desc", False),
    ("s:string", True), ("b:bytes", True)])
def test_one_value_bare_is_the_kernels(name: str, text: str, kernel: bool) -> None:
    """The JS formats write a key of one value bare, not as an array (each codec's
    ``bare_piece``): a number, a boolean and NULL as their bytes as an item, bytewise's
    string or Buffer as its tag and its bytes unescaped, charwise's string without the item
    escapes (``!``, ``"``, ``?`` as they are), ordered-binary's strings and Buffers as
    items; the kernel writes them. ordered-binary's bare numbers are cut short, by the row
    API; charwise has no bytes."""
    kernel = kernel and not (name == "charwise" and text == "b:bytes") and not (
        name == "ordered-binary" and text in ("x:float64", "a:int"))
    schema = KeySchema.parse(text)
    codec = get_codec(name)
    try:
        bound = codec.bind(schema)
    except SchemaError:
        assert not kernel
        return
    values = {"x": [1.5, None, -2.0, 0.0, math.inf, 5e-324], "a": [0, -7, None, 2**53],
              "c": [True, None, False], "s": ["a", "", None, "!\"\x00", "?\x01!", "é?"],
              "b": [b"", b"\x00\xff", None]}[schema.fields[0].name]
    table = pa.table({schema.fields[0].name: values})
    assert (_kernel_plan(name, schema, table) is not None) == kernel
    assert encode_arrow(table, schema, name).to_pylist() == [bound.encode((v,)) for v in values]
    assert encode_arrow(table, schema, get_codec(name, array=True)).to_pylist() == [
        get_codec(name, array=True).bind(schema).encode((v,)) for v in values]


@pytest.mark.skipif(not kernel_available(), reason="the columnar kernel is not built")
def test_a_key_longer_than_the_codecs_limit_is_the_row_apis(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a string field the kernel cannot bound a key before it writes it: it declines
    each key longer than the declaration's ``max_key`` (8,180 bytes for ordered-binary), and
    the row API writes it (8,185 bytes still fit lmdb-js's buffer) or refuses it (8,195 do
    not: the number's 12-byte store would pass 8 KiB)."""
    declined: list[int] = []
    run_kernel = columnar._run_kernel

    def run(*args: Any) -> Any:
        result = run_kernel(*args)
        declined.extend(result.declined)
        return result
    monkeypatch.setattr(columnar, "_run_kernel", run)
    codec = get_codec("ordered-binary")
    schema = "s:string, x:float64"
    bound = codec.bind(schema)
    fits = [("a" * 8000, 1.0), ("b" * 8175, 2.0), ("", -1.0)]
    table = pa.table({"s": [r[0] for r in fits], "x": [r[1] for r in fits]})
    keys = encode_arrow(table, schema, codec).to_pylist()
    assert keys == [bound.encode(r) for r in fits]
    assert [len(k) for k in keys] == [8010, 8185, 11]  # "" is 1b
    assert declined == [1]
    with pytest.raises(EncodeError) as info:
        bound.encode(("c" * 8185, 3.0))
    reason = str(info.value.reason)
    with pytest.raises(EncodeError) as info:
        encode_arrow(pa.table({"s": ["c" * 8185], "x": [3.0]}), schema, codec)
    assert str(info.value.reason).startswith(reason)
    # one string alone, bare: its own declaration has the same limit
    declined.clear()
    alone = codec.bind("s:string")
    texts = ["a" * 8000, "b" * 8185, ""]
    assert encode_arrow(pa.table({"s": texts}), "s:string", codec).to_pylist() == [
        alone.encode((t,)) for t in texts]
    assert declined == [1]
    for long in ("c" * 8190, "c" * 9000):
        try:
            expected: bytes | str = alone.encode((long,))
        except EncodeError as exc:
            expected = str(exc.reason)
        try:
            got: bytes | str = encode_arrow(pa.table({"s": [long]}), "s:string",
                                            codec).to_pylist()[0]
        except EncodeError as exc:
            got = str(exc.reason)
        assert got == expected or (isinstance(got, str) and isinstance(expected, str)
                                   and got.startswith(expected))
