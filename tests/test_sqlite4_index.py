"""Secondary-index keys on the SQLite4 encoding (``lexcodecs.codecs.sqlite4.index``, spec
``sqlite4.md`` §15): the seed's examples, index names and their refusals, value refusals,
``range``, ``parse_index_key`` and ``SecondaryIndex.parse``.

The order properties are checked against a natural-order model written without the codec
(:func:`model_cmp`): a ``bin`` column compares its values as bytes; an ``int`` column compares
numbers by value, a float counted as ``Decimal(repr(x))`` (spec §11), NaN lowest, then -inf,
the finite numbers, +inf; a descending column reverses its comparison; then the data key's
bytes decide (spec §15.1 "Why the order holds").
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lexcodecs import DecodeError, EncodeError, LexCodecError, SchemaError, UnsupportedTypeError
from lexcodecs.codecs.sqlite4.index import (
    COLUMN_TYPES,
    INDEX_PREFIX,
    IndexColumn,
    IndexEntry,
    SecondaryIndex,
    parse_index_key,
)

NAME = "sqlite4"
TOKENS = ("bin", "int", "-bin", "-int")

Entry = tuple[tuple[Any, ...], bytes]  # (column values, data key)


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


# -- the natural-order model (no codec) --------------------------------------------------------


def _finite_decimal(x: Any) -> Decimal | None:
    """The decimal a finite number counts as (a float as its repr), None for NaN/±inf."""
    d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x)
    return d if d.is_finite() else None


def number_key(x: Any) -> tuple[int, Decimal]:
    """NaN < -inf < finite numbers (by exact decimal value) < +inf."""
    d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x)
    if d.is_nan():
        return (0, Decimal(0))
    if d.is_infinite():
        return (1 if d.is_signed() else 3, Decimal(0))
    return (2, d)


def column_cmp(column: IndexColumn, a: Any, b: Any) -> int:
    c = cmp(bytes(a), bytes(b)) if column.type == "bin" else cmp(number_key(a), number_key(b))
    return -c if column.descending else c


def model_cmp(index: SecondaryIndex, a: Entry, b: Entry) -> int:
    for column, x, y in zip(index.columns, a[0], b[0]):
        c = column_cmp(column, x, y)
        if c:
            return c
    return cmp(a[1], b[1])


def leading_equal(index: SecondaryIndex, values: Sequence[Any], leading: Sequence[Any]) -> bool:
    return all(column_cmp(c, x, y) == 0 for c, x, y in zip(index.columns, values, leading))


def is_integral(d: Decimal) -> bool:
    _, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return zeros == len(digits) or exponent + zeros >= 0


def parsed_as_documented(got: Any, value: Any) -> bool:
    """An int column reads back ``int`` when integral, ``Decimal`` otherwise, ``float`` for
    NaN and ±inf (spec §15.1 "Parsing"), numerically equal to what was written."""
    kind, d = number_key(value)
    if kind == 0:
        return type(got) is float and math.isnan(got)
    if kind != 2:
        return type(got) is float and got == (-math.inf if kind == 1 else math.inf)
    if is_integral(d):
        return type(got) is int and got == d
    return type(got) is Decimal and got == d


def equal_forms(x: Any) -> list[Any]:
    """Numbers the model counts equal to *x*: int, float (when its repr is the value) and
    Decimal with extra trailing zeros; bytes as bytes, bytearray and memoryview."""
    if isinstance(x, (bytes, bytearray, memoryview)):
        data = bytes(x)
        return [data, bytearray(data), memoryview(data)]
    d = _finite_decimal(x)
    if d is None:
        kind = number_key(x)[0]
        if kind == 0:
            return [math.nan, Decimal("NaN")]
        return [-math.inf, Decimal("-Infinity")] if kind == 1 else [math.inf, Decimal("Inf")]
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    forms: list[Any] = [d, Decimal((sign, (*digits, 0, 0), exponent - 2))]
    if is_integral(d):
        forms.append(int(d))
    f = float(d)
    if math.isfinite(f) and Decimal(repr(f)) == d:
        forms.append(f)
    if d == 0:
        forms += [-0.0, Decimal("-0"), Decimal("0E+7")]
    return forms


# -- strategies ---------------------------------------------------------------------------------

BYTES = st.lists(st.sampled_from([0x00, 0x01, 0x2F, 0x7F, 0x80, 0xFE, 0xFF]), max_size=4).map(
    bytes)
#: a few values in several forms, so that equal column values (2, 2.0, Decimal('2.00')) meet
POOL: list[Any] = [0, 1, -1, 2, -2, 10, 99, 100, -100, 10**20, -(10**20), 2**64,
                   Decimal("0.5"), Decimal("-0.5"), Decimal("0.01"), Decimal("12.345"),
                   Decimal("1E+30"), Decimal("-1E-30"), math.nan, math.inf, -math.inf]
POOLED = st.sampled_from(POOL).flatmap(lambda v: st.sampled_from(equal_forms(v)))
DECIMALS = st.builds(
    lambda sign, coefficient, exponent: Decimal((sign, tuple(map(int, str(coefficient))),
                                                 exponent)),
    st.integers(0, 1), st.integers(0, 10**12),
    st.one_of(st.integers(-30, 30), st.integers(-700, 700)))
NUMBERS = st.one_of(
    POOLED,
    st.integers(-(10**30), 10**30),
    DECIMALS,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([math.nan, math.inf, -math.inf, Decimal("NaN"), Decimal("Infinity"),
                     Decimal("-Infinity")]),
)
DATA_KEYS = st.lists(st.sampled_from([0x00, 0x2F, 0x31, 0x32, 0xFF]), max_size=3).map(
    lambda tail: b"/" + bytes(tail))
COLUMNS = st.builds(IndexColumn, st.sampled_from(COLUMN_TYPES), st.booleans())


def values_for(column: IndexColumn) -> st.SearchStrategy[Any]:
    return BYTES if column.type == "bin" else NUMBERS


@st.composite
def indexes_with_entries(draw: Callable[..., Any], max_entries: int = 25
                         ) -> tuple[SecondaryIndex, list[Entry]]:
    columns = draw(st.lists(COLUMNS, min_size=1, max_size=3))
    index = SecondaryIndex("t", columns)
    row = st.tuples(*(values_for(c) for c in index.columns))
    entries = draw(st.lists(st.tuples(row, DATA_KEYS), min_size=1, max_size=max_entries))
    return index, entries


# -- the seed's examples (spec §15.2) -----------------------------------------------------------

NAME_BIN = SecondaryIndex("name", ["bin"])
NAME_AGE = SecondaryIndex("name_age", ["bin", "int"])
#: the seed's people: (name, age, data key)
PEOPLE = [(b"alice", 43, b"/person/0"), (b"bob", 35, b"/person/1"),
          (b"carol", 37, b"/person/2"), (b"bob", 37, b"/person/3")]


def test_seed_name_age_keys_sort_in_the_seeds_order() -> None:
    keys = {p: NAME_AGE.key(p[:2], p[2]) for p in PEOPLE}
    assert keys[(b"bob", 37, b"/person/3")] == hx(
        "2f 5f 69 2f 6e 61 6d 65 5f 61 67 65 5f 62 69 6e 5f 69 6e 74 2f b1 9b ec a0 00 18 4a"
        "2f 70 65 72 73 6f 6e 2f 33")
    ordered = sorted(PEOPLE, key=keys.__getitem__)
    assert [(name, age) for name, age, _ in ordered] == [
        (b"alice", 43), (b"bob", 35), (b"bob", 37), (b"carol", 37)]
    # the age decides between the two bobs, though bob/35's data key /person/1 is lower
    assert keys[(b"bob", 35, b"/person/1")] < keys[(b"bob", 37, b"/person/3")]
    # and the name before the age: bob/37 before carol/37, alice/43 before both
    assert keys[(b"alice", 43, b"/person/0")] < keys[(b"bob", 35, b"/person/1")]


def test_seed_name_keys_sort_by_name_and_the_data_key_breaks_ties() -> None:
    keys = [NAME_BIN.key([name], data_key) for name, _, data_key in PEOPLE]
    alice, bob1, carol, bob3 = keys
    assert alice == hx("2f 5f 69 2f 6e 61 6d 65 5f 62 69 6e 2f b0 db 8d 96 9b 94 00"
                       "2f 70 65 72 73 6f 6e 2f 30")
    assert sorted(keys) == [alice, bob1, bob3, carol]
    # the two bobs share the index key; only the data key differs
    shared = len(NAME_BIN.prefix) + len(b"\xb1\x9b\xec\xa0\x00")
    assert bob1[:shared] == bob3[:shared]
    assert bob1[shared:] == b"/person/1"
    assert bob3[shared:] == b"/person/3"
    # the same holds with the age column: equal (bob, 37) entries order by data key
    assert NAME_AGE.key([b"bob", 37], b"/person/3") < NAME_AGE.key([b"bob", 37], b"/person/4")


def test_seed_descending_timestamp_index() -> None:
    events = SecondaryIndex("events", ["-int", "bin"])
    assert events.index_name == "events_-int_bin"
    key = events.key([1387238400, b"click"], b"/event/1")
    assert key == hx("2f 5f 69 2f 65 76 65 6e 74 73 5f 2d 69 6e 74 5f 62 69 6e 2f e3 e4 50 d0 57"
                     "b1 db 8d 96 9b ac 00 2f 65 76 65 6e 74 2f 31")
    # newest first
    assert events.key([1387238401, b"click"], b"/event/2") < key
    assert events.key([1387238399, b"a"], b"/event/0") > key


def test_seed_bin_column_is_the_binary_body_without_its_type_byte() -> None:
    assert IndexColumn("bin").encode(b"foo") == hx("b3 9b ed f0 00")
    assert IndexColumn("bin", descending=True).encode(b"foo") == hx("4c 64 12 0f ff")
    assert IndexColumn("int").encode(43) == hx("18 56")


# -- index names --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "columns", "index_name"), [
    ("name", ["bin"], "name_bin"),
    ("name_age", ["bin", "int"], "name_age_bin_int"),
    ("events", ["-int", "bin"], "events_-int_bin"),
    ("usernames", ["bin"], "usernames_bin"),
    ("a_int_x", ["-bin"], "a_int_x_-bin"),  # a type token inside the name is fine
    ("a_bin_", ["int"], "a_bin__int"),  # ... and so is an empty last part
    ("_", ["bin", "bin"], "__bin_bin"),
    ("n_bin0", ["bin"], "n_bin0_bin"),
    ("bin-", ["-int", "-int", "-bin"], "bin-_-int_-int_-bin"),
    ("x-int", ["int"], "x-int_int"),
    ("naïve résumé", ["bin"], "naïve résumé_bin"),
], ids=lambda v: "_".join(v) if isinstance(v, list) else v)
def test_index_name_round_trip(name: str, columns: list[str], index_name: str) -> None:
    index = SecondaryIndex(name, columns)
    assert index.index_name == index_name
    assert index.prefix == INDEX_PREFIX + index_name.encode("utf-8") + b"/"
    assert [c.token for c in index.columns] == columns
    assert SecondaryIndex(name, [IndexColumn.parse(t) for t in columns]) == index
    back = SecondaryIndex.from_index_name(index_name)
    assert back == index
    assert back.name == name
    assert back.columns == index.columns


NAME_PARTS = st.sampled_from(["n", "x2", "_", "-", "bin", "int", "-bin", "-int", "/", "\x00",
                              "é", ".", "0"])


def legal_name(name: str) -> bool:
    """Spec §15.1: non-empty, no '/' or U+0000, last '_' part not a column type token."""
    return bool(name) and "/" not in name and "\x00" not in name and \
        name.rsplit("_", 1)[-1] not in TOKENS


@given(st.lists(NAME_PARTS, min_size=0, max_size=5).map("".join),
       st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3))
def test_index_names_are_built_or_refused_as_the_spec_says(name: str, tokens: list[str]
                                                           ) -> None:
    if not legal_name(name):
        with pytest.raises(SchemaError) as info:
            SecondaryIndex(name, tokens)
        assert info.value.codec == NAME, str(info.value)
        return
    index = SecondaryIndex(name, tokens)
    assert index.index_name == "_".join([name, *tokens])
    assert SecondaryIndex.from_index_name(index.index_name) == index


@pytest.mark.parametrize(("name", "columns"), [
    ("", ["bin"]),
    ("a/b", ["bin"]),
    ("/", ["int"]),
    ("a\x00b", ["bin"]),
    ("bin", ["bin"]),
    ("name_bin", ["int"]),  # would read back as name "name" on (bin, int)
    ("x_int", ["bin"]),
    ("x_-bin", ["bin"]),
    ("x_-int", ["bin"]),
    ("a\ud800", ["bin"]),  # not encodable as UTF-8
    ("n", []),
    ("n", "bin"),  # one string, not a list of columns
    ("n", ["float"]),
    ("n", ["bin", "BIN"]),
    ("n", ["+int"]),
    ("n", ["desc-int"]),
    ("n", [""]),
    ("n", [3]),
], ids=repr)
def test_index_refusals(name: str, columns: Any) -> None:
    with pytest.raises(SchemaError) as info:
        SecondaryIndex(name, columns)
    assert info.value.codec == NAME, str(info.value)
    assert str(info.value)


@pytest.mark.parametrize("index_name", [
    "", "name", "name_foo", "name_bin_foo", "bin", "_bin", "bin_int", "-int_-int", "a/b_bin",
    "a\x00_bin", "name_BIN",
])
def test_from_index_name_refusals(index_name: str) -> None:
    with pytest.raises(SchemaError) as info:
        SecondaryIndex.from_index_name(index_name)
    assert info.value.codec == NAME, str(info.value)


@pytest.mark.parametrize("token", ["float", "", "Int", "--int", "bin ", "int_"])
def test_unknown_column_token_is_refused(token: str) -> None:
    with pytest.raises(SchemaError) as info:
        IndexColumn.parse(token)
    assert info.value.codec == NAME, str(info.value)


def test_index_column_constructor_refuses_an_unknown_type_with_a_schema_error() -> None:
    """Library bug: ``IndexColumn("float")`` raises attrs' plain ``ValueError``; every
    refusal a user can meet is a lexcodecs error (``lexcodecs/errors.py``), and the same
    type given as a token is a ``SchemaError`` naming the codec."""
    with pytest.raises(SchemaError) as info:
        IndexColumn("float")  # type: ignore[arg-type]
    assert info.value.codec == NAME, str(info.value)


# -- value refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(("columns", "values", "error", "at"), [
    (["bin", "int"], [None, 1], EncodeError, 0),
    (["bin", "int"], [b"a", None], EncodeError, 1),
    (["-bin"], [None], EncodeError, 0),
    (["-int", "bin"], [None, b""], EncodeError, 0),
    (["bin"], ["alice"], UnsupportedTypeError, 0),
    (["int", "-bin"], [1, "a"], UnsupportedTypeError, 1),
    (["bin"], [1], UnsupportedTypeError, 0),
    (["int"], [True], UnsupportedTypeError, 0),
    (["bin", "-int"], [b"x", False], UnsupportedTypeError, 1),
    (["int"], ["1"], UnsupportedTypeError, 0),
    (["int"], [b"\x01"], UnsupportedTypeError, 0),
    (["int"], [Decimal("sNaN")], EncodeError, 0),
    (["int"], [Decimal("NaN7")], EncodeError, 0),
], ids=lambda v: v.__name__ if isinstance(v, type) else repr(v))
def test_value_refusals_name_the_codec_and_the_column(
        columns: list[str], values: list[Any], error: type[Exception], at: int) -> None:
    index = SecondaryIndex("t", columns)
    with pytest.raises(error) as info:
        index.key(values, b"/d/1")
    exc = info.value
    assert isinstance(exc, LexCodecError)
    assert exc.codec == NAME, str(exc)
    assert exc.field == at, str(exc)
    assert exc.field_type == index.columns[at].token, str(exc)
    # the same leading values are refused by range(), the same way
    with pytest.raises(error) as info:
        index.range(values[:at + 1])
    assert info.value.codec == NAME  # type: ignore[attr-defined]
    assert info.value.field == at  # type: ignore[attr-defined]


@pytest.mark.parametrize("data_key", [b"", b"person/1", "person/1", b"\x00/", "", b" /x"])
def test_data_key_must_start_with_a_slash(data_key: bytes | str) -> None:
    with pytest.raises(EncodeError) as info:
        NAME_BIN.key([b"bob"], data_key)
    assert info.value.codec == NAME, str(info.value)


@pytest.mark.parametrize("data_key", [None, 1, ["/x"], 1.5])
def test_data_key_must_be_bytes_or_str(data_key: Any) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        NAME_BIN.key([b"bob"], data_key)
    assert info.value.codec == NAME, str(info.value)


def test_data_key_str_that_is_not_utf8_encodable_is_a_typed_refusal() -> None:
    """Library bug: a ``str`` data key with a lone surrogate escapes as ``UnicodeEncodeError``
    (``_data_key`` encodes with ``"strict"`` and nothing catches it); the codec refuses the
    same text in a string field with ``EncodeError`` ("lone surrogate is not encodable as
    UTF-8") and an index name with ``SchemaError``."""
    with pytest.raises(EncodeError) as info:
        NAME_BIN.key([b"bob"], "/person/\ud800")
    assert info.value.codec == NAME, str(info.value)


def test_data_key_forms() -> None:
    key = NAME_BIN.key([b"bob"], b"/person/1")
    for data_key in ("/person/1", bytearray(b"/person/1"), memoryview(b"/person/1")):
        assert NAME_BIN.key([b"bob"], data_key) == key
    assert NAME_BIN.key([b"bob"], "/p/é") == NAME_BIN.key([b"bob"], "/p/é".encode())


@pytest.mark.parametrize("values", [[], [b"a", 1], [b"a", 1, 2]])
def test_key_needs_one_value_per_column(values: list[Any]) -> None:
    with pytest.raises(EncodeError) as info:
        NAME_BIN.key(values, b"/x")
    assert info.value.codec == NAME, str(info.value)


@pytest.mark.parametrize("leading", [[b"a", 1, 2], (b"a", 1, b"", 3), "ab", b"a"])
def test_range_refuses_more_leading_values_than_columns_or_a_non_list(leading: Any) -> None:
    with pytest.raises(EncodeError) as info:
        NAME_AGE.range(leading)
    assert info.value.codec == NAME, str(info.value)


# -- order and range (properties against the model) ---------------------------------------------


@given(indexes_with_entries())
def test_key_order_is_the_natural_order(case: tuple[SecondaryIndex, list[Entry]]) -> None:
    index, entries = case
    keys = [index.key(values, data_key) for values, data_key in entries]
    for (a, ka), (b, kb) in itertools.product(zip(entries, keys), repeat=2):
        assert cmp(ka, kb) == model_cmp(index, a, b), (a, b, ka.hex(" "), kb.hex(" "))
    by_model = sorted(entries, key=functools.cmp_to_key(lambda a, b: model_cmp(index, a, b)))
    assert sorted(keys) == [index.key(values, data_key) for values, data_key in by_model]


@given(indexes_with_entries(), st.data())
def test_range_holds_exactly_the_entries_with_equal_leading_columns(
        case: tuple[SecondaryIndex, list[Entry]], data: st.DataObject) -> None:
    index, entries = case
    n = data.draw(st.integers(0, len(index.columns)), label="leading columns")
    if data.draw(st.booleans(), label="from an entry"):
        source = data.draw(st.sampled_from(entries))[0][:n]
        # the same values in another form: 2 -> 2.0 or Decimal('2.00'), bytes -> bytearray
        leading = [data.draw(st.sampled_from(equal_forms(v))) for v in source]
    else:
        leading = [data.draw(values_for(c)) for c in index.columns[:n]]
    start, stop = index.range(leading)
    assert start.startswith(index.prefix)
    assert start < stop
    whole_start, whole_stop = index.range(())
    for values, data_key in entries:
        key = index.key(values, data_key)
        assert whole_start <= key < whole_stop
        inside = start <= key < stop
        assert inside == leading_equal(index, values, leading), (values, leading, key.hex(" "))


def test_whole_index_range_is_the_prefix_to_its_slash_plus_one() -> None:
    start, stop = NAME_AGE.range(())
    assert start == b"/_i/name_age_bin_int/"
    assert stop == b"/_i/name_age_bin_int0"
    assert NAME_AGE.range([]) == (start, stop)


#: pairs of legal indexes whose names share a prefix: keys of one never fall in the other's
#: whole-index range ("name_bin" as a NAME is refused, so "n_bin" vs "n_bin_bin" is spelled
#: SecondaryIndex("n", ["bin"]) vs SecondaryIndex("n", ["bin", "bin"]))
NEIGHBOURS = [
    (("n", ["bin"]), ("n2", ["bin"])),
    (("n", ["bin"]), ("n", ["bin", "bin"])),
    (("n", ["bin"]), ("n", ["bin", "int"])),
    (("n", ["bin"]), ("n", ["-bin"])),
    (("n", ["int"]), ("n", ["bin"])),
    (("n", ["bin"]), ("n_bin0", ["bin"])),
    (("n", ["bin"]), ("n_binx", ["bin"])),
    (("n", ["bin"]), ("n_bin_x", ["bin"])),
    (("n", ["bin"]), ("n.", ["bin"])),
    (("n", ["bin"]), ("n_", ["bin"])),
]
EXTREME_VALUES = {"bin": [b"", b"\x00", b"\xff" * 9], "int": [math.nan, -math.inf, 0, 10**40,
                                                             math.inf]}


@pytest.mark.parametrize(("a", "b"), NEIGHBOURS, ids=lambda spec: "_".join([spec[0], *spec[1]]))
def test_whole_index_range_excludes_an_index_whose_name_extends_it(
        a: tuple[str, list[str]], b: tuple[str, list[str]]) -> None:
    first, second = SecondaryIndex(*a), SecondaryIndex(*b)
    assert first.prefix != second.prefix
    for index, other in ((first, second), (second, first)):
        start, stop = index.range(())
        for values in itertools.product(*(EXTREME_VALUES[c.type] for c in index.columns)):
            for data_key in (b"/", b"/\xff\xff"):
                assert start <= index.key(values, data_key) < stop
        for values in itertools.product(*(EXTREME_VALUES[c.type] for c in other.columns)):
            for data_key in (b"/", b"/\xff\xff"):
                key = other.key(values, data_key)
                assert not start <= key < stop, (index.index_name, key)


@given(st.lists(NAME_PARTS, min_size=1, max_size=4).map("".join),
       st.lists(st.sampled_from(TOKENS), min_size=1, max_size=2),
       st.lists(NAME_PARTS, min_size=1, max_size=4).map("".join),
       st.lists(st.sampled_from(TOKENS), min_size=1, max_size=2),
       st.data())
def test_a_key_is_in_a_whole_index_range_only_for_its_own_index(
        name_a: str, tokens_a: list[str], name_b: str, tokens_b: list[str],
        data: st.DataObject) -> None:
    assume(legal_name(name_a) and legal_name(name_b))
    a, b = SecondaryIndex(name_a, tokens_a), SecondaryIndex(name_b, tokens_b)
    values = [data.draw(values_for(c)) for c in b.columns]
    key = b.key(values, data.draw(DATA_KEYS))
    start, stop = a.range(())
    assert (start <= key < stop) == (a.index_name == b.index_name)


# -- parsing ------------------------------------------------------------------------------------


@given(indexes_with_entries(max_entries=8))
def test_parse_round_trip(case: tuple[SecondaryIndex, list[Entry]]) -> None:
    index, entries = case
    for values, data_key in entries:
        key = index.key(values, data_key)
        for entry in (parse_index_key(key), parse_index_key(memoryview(key)), index.parse(key)):
            assert isinstance(entry, IndexEntry)
            assert entry.index == index
            assert type(entry.data_key) is bytes
            assert entry.data_key == data_key
            assert len(entry.values) == len(values)
            for column, got, value in zip(index.columns, entry.values, values):
                if column.type == "bin":
                    assert type(got) is bytes
                    assert got == value
                else:
                    assert parsed_as_documented(got, value), (got, value)
            # the parsed values are written back to the very same key
            assert index.key(entry.values, entry.data_key) == key


def parse_or_refuse(data: bytes) -> None:
    """*data* parses to an entry that is written back to *data*, or is refused with a
    DecodeError naming the codec at an offset inside the key; nothing else escapes."""
    refusal: DecodeError | None = None
    try:
        entry = parse_index_key(data)
    except DecodeError as exc:
        refusal = exc
    if refusal is not None:
        assert refusal.codec == NAME, str(refusal)
        assert refusal.offset is not None, str(refusal)
        assert 0 <= refusal.offset <= len(data), str(refusal)
        return
    assert entry.index.key(entry.values, entry.data_key) == data


INDEX_NAMES = st.sampled_from(["n_bin", "n_int", "n_-bin", "n_-int", "name_age_bin_int",
                               "events_-int_bin", "n", "n_foo", "_bin", "n_bin_"])


@given(st.one_of(
    st.binary(max_size=40),
    st.binary(max_size=40).map(lambda tail: INDEX_PREFIX + tail),
    st.tuples(INDEX_NAMES, st.binary(max_size=30)).map(
        lambda p: INDEX_PREFIX + p[0].encode() + b"/" + p[1]),
))
def test_parse_arbitrary_bytes(data: bytes) -> None:
    parse_or_refuse(data)


@given(indexes_with_entries(max_entries=1), st.data())
def test_parse_mutated_keys(case: tuple[SecondaryIndex, list[Entry]], data: st.DataObject
                            ) -> None:
    index, entries = case
    (values, data_key), = entries
    key = index.key(values, data_key)
    how = data.draw(st.sampled_from(["truncate", "flip", "insert"]), label="mutation")
    if how == "truncate":
        mutated = key[:data.draw(st.integers(0, len(key) - 1))]
    elif how == "flip":
        at = data.draw(st.integers(0, len(key) - 1))
        mask = data.draw(st.integers(1, 255))
        mutated = key[:at] + bytes((key[at] ^ mask,)) + key[at + 1:]
    else:
        at = data.draw(st.integers(0, len(key)))
        mutated = key[:at] + data.draw(st.binary(min_size=1, max_size=3)) + key[at:]
    parse_or_refuse(mutated)


@pytest.mark.parametrize("key", [
    NAME_AGE.key([b"carol", 37], b"/person/2"),
    SecondaryIndex("events", ["-int", "bin"]).key([1387238400, b"click"], b"/event/1"),
    SecondaryIndex("t", ["-bin", "-int"]).key([b"\xff\x00", Decimal("-1.5E-300")], b"/x"),
], ids=["name_age", "events", "desc"])
def test_every_truncation_of_a_key_parses_or_is_refused(key: bytes) -> None:
    for end in range(len(key) + 1):
        parse_or_refuse(key[:end])


@pytest.mark.parametrize(("key", "offset"), [
    (b"", 0),
    (b"/", 1),
    (b"/_x/n_bin/\x00/", 2),
    (b"/_i/n_bin", 9),  # the index name has no closing '/'
    (b"/_i/n_foo/\x00/", 4),  # no column types
    (b"/_i/\xff_bin/\x00/", 4),  # not UTF-8
    (b"/_i/_bin/\x00/", 4),  # empty NAME
    (b"/_i/n_bin/\x80\x00/x", 10),  # non-canonical binary
    (b"/_i/n_bin/\xb3\x9b\xed\xf0/x", 14),  # the '/' is not a group byte
    (b"/_i/n_bin/\x00", 11),  # no data key
    (b"/_i/n_bin/\x00x", 11),  # a data key without its '/'
    (b"/_i/n_int/", 10),  # the int column is missing
    (b"/_i/n_int/\x04/", 10),  # not a number header
    (b"/_i/n_int/\x24abc\x00/", 10),  # text where a number is
    (b"/_i/n_-int/\x18\x02/", 11),  # an ascending number in a descending column
    (b"/_i/n_int/\x16\xff\x64/", 11),  # the 2013/HBase small form of 0.5
    (b"/_i/n_int/\x22\x0a\x02/", 11),  # E = 10 in the large form (the seed's rule)
    (b"/_i/n_int/\x18\x63/", 13),  # the seed's raw 99 = 63: odd, so M runs on
])
def test_parse_refusals_at_their_offset(key: bytes, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        parse_index_key(key)
    assert info.value.codec == NAME, str(info.value)
    assert info.value.offset == offset, str(info.value)


def test_parse_column_errors_name_the_column() -> None:
    key = b"/_i/name_age_bin_int/\xb1\x9b\xec\xa0\x00\x04/person/1"
    with pytest.raises(DecodeError) as info:
        parse_index_key(key)
    assert info.value.field == 1, str(info.value)
    assert info.value.field_type == "int", str(info.value)
    assert info.value.offset == 26, str(info.value)


@pytest.mark.parametrize(("other", "values"), [
    (SecondaryIndex("name", ["int"]), [1]),
    (SecondaryIndex("name", ["-bin"]), [b"bob"]),
    (SecondaryIndex("name", ["bin", "bin"]), [b"bob", b""]),
    (SecondaryIndex("name2", ["bin"]), [b"bob"]),
    (NAME_AGE, [b"bob", 37]),
], ids=lambda v: v.index_name if isinstance(v, SecondaryIndex) else repr(v))
def test_index_parse_refuses_a_key_of_another_index(other: SecondaryIndex, values: list[Any]
                                                    ) -> None:
    key = other.key(values, b"/person/1")
    assert parse_index_key(key).index == other
    with pytest.raises(DecodeError) as info:
        NAME_BIN.parse(key)
    assert info.value.codec == NAME, str(info.value)
    assert info.value.offset == len(INDEX_PREFIX), str(info.value)


def test_index_parse_refuses_what_parse_index_key_refuses() -> None:
    with pytest.raises(DecodeError) as info:
        NAME_BIN.parse(b"/_i/name_bin/\x80\x00/person/1")
    assert info.value.codec == NAME, str(info.value)
    assert info.value.offset == 13, str(info.value)
