"""``sqlite4`` prefix ranges against a real sorted store (spec ``sqlite4.md`` §13).

Keys go into an in-memory SQLite table with a BLOB primary key (``WITHOUT ROWID``: the table
is a B-tree ordered by the key, and SQLite compares BLOBs with ``memcmp`` and then by length,
as a sorted KV store does). A range query on ``prefix_range(prefix)`` must return exactly the
keys whose first k values equal the prefix, compared in the natural-order model with the
codec's float policy (a float counts as ``Decimal(repr(x))``), never by encoding; and
``ORDER BY k`` must be the natural order. The schemas mix text, descending ints, one decimal
field holding ints, floats and Decimals, and a last ``bytes final=true`` field, whose full-key
prefix is the key itself.
"""

from __future__ import annotations

import decimal
import math
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import KeySchema
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.testing import keys, model_equal, natural_key

D = decimal.Decimal
PLAIN = Sqlite4Codec()
TABLE10 = Sqlite4Codec(table=10)
POLICY = PLAIN.capabilities.float_policy

#: ints (small and beyond int64), floats (edges, NaN, subnormals) and Decimals in one field
MIXED = st.one_of(
    st.integers(-5, 5),
    st.integers(-(10**40), 10**40),
    st.floats(),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 0.1, 1e23, 2.5, -2.5]),
    st.builds(lambda s, d, e: D((s, tuple(d), e)), st.integers(0, 1),
              st.lists(st.integers(0, 9), min_size=1, max_size=40), st.integers(-400, 400)),
    st.sampled_from([D("NaN"), D("-Infinity"), D("Infinity"), D("0.1"), D("2.50"), D("-0"),
                     D("99999999999999991611392.5"), D("1E+23")]),
)
OVERRIDES = {"decimal": MIXED, "tenant": st.sampled_from(["", "acme", "acm", "acme\x01", "b"])}

SCHEMAS = (
    "tenant:string, ts:int desc, score:decimal, blob:bytes final=true",
    "a:string desc, b:decimal desc, c:bytes",
)
_PARSED = {text: KeySchema.parse(text) for text in SCHEMAS}
_KEYS = {text: keys(schema, PLAIN.capabilities, OVERRIDES) for text, schema in _PARSED.items()}


def _rows(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[int]:
    return [v for (v,) in conn.execute(sql, params)]


def _store(codec: Sqlite4Codec, batch: Sequence[Sequence[Any]], schema: KeySchema
           ) -> tuple[sqlite3.Connection, list[tuple[Any, ...]]]:
    """An in-memory table of *batch* (deduplicated by encoded key); v indexes the returned
    list of inserted values."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID")
    inserted: list[tuple[Any, ...]] = []
    seen: set[bytes] = set()
    for values in batch:
        key = codec.encode(tuple(values), schema)
        if key in seen:
            continue
        seen.add(key)
        conn.execute("INSERT INTO kv (k, v) VALUES (?, ?)", (key, len(inserted)))
        inserted.append(tuple(values))
    return conn, inserted


def _range(conn: sqlite3.Connection, start: bytes, stop: bytes | None) -> list[int]:
    if stop is None:
        return _rows(conn, "SELECT v FROM kv WHERE k >= ? ORDER BY k", (start,))
    return _rows(conn, "SELECT v FROM kv WHERE k >= ? AND k < ? ORDER BY k", (start, stop))


def _assert_natural_order(rows: Sequence[int], inserted: Sequence[tuple[Any, ...]],
                          schema: KeySchema) -> None:
    got = [natural_key(inserted[i], schema, POLICY) for i in rows]
    for i, (a, b) in enumerate(pairwise(got)):
        assert a < b, (f"store order is not the natural order at row {i}: "
                       f"{inserted[rows[i]]!r} then {inserted[rows[i + 1]]!r}")


def _near(value: Any) -> list[Any]:
    """Values right next to *value* in its own order."""
    if isinstance(value, str):
        return [value + "\x01", value + "\U0010ffff", value[:-1]]
    if isinstance(value, bytes):
        return [value + b"\x00", value + b"\xff", value[:-1]]
    if isinstance(value, int):
        return [value - 1, value + 1]
    return []


@pytest.mark.parametrize("codec", [PLAIN, TABLE10], ids=["plain", "table10"])
@pytest.mark.parametrize("text", SCHEMAS)
@given(data=st.data())
def test_prefix_range_against_sqlite(codec: Sqlite4Codec, text: str,
                                     data: st.DataObject) -> None:
    schema = _PARSED[text]
    key_st = _KEYS[text]
    n = len(schema)
    batch = data.draw(st.lists(key_st, min_size=1, max_size=20), label="batch")
    # k = n is a whole key: with a final binary last, the range holds that key alone
    k = data.draw(st.integers(0, n), label="k")
    source = data.draw(st.sampled_from(["inserted", "fresh"]), label="prefix from")
    if source == "inserted":
        prefix = tuple(data.draw(st.sampled_from(batch), label="prefix key")[:k])
    else:
        prefix = tuple(data.draw(key_st, label="prefix key")[:k])
    # random keys seldom share a prefix: add keys that extend it, and near misses that differ
    # from it in one field (the ones a sloppy range takes in by mistake)
    extra: list[tuple[Any, ...]] = []
    for values in batch[:8]:
        extra.append(prefix + tuple(values[k:]))
        for j in range(k):
            extra.append((*prefix[:j], values[j], *prefix[j + 1:], *values[k:]))
    # and values one step away from the prefix's own (a blob one byte longer is outside the
    # range of a whole key ending in a final binary; "acme" + "\x01" is outside "acme")
    for values in batch[:3]:
        for j in range(k):
            for near in _near(prefix[j]):
                extra.append((*prefix[:j], near, *prefix[j + 1:], *values[k:]))
    conn, inserted = _store(codec, [*batch, *extra], schema)
    with closing(conn):
        start, stop = codec.prefix_range(prefix, schema)
        got_rows = _range(conn, start, stop)
        expected = {i for i, values in enumerate(inserted)
                    if model_equal(values[:k], prefix, schema, POLICY)}
        got = set(got_rows)
        assert len(got) == len(got_rows)
        missing = sorted(expected - got)
        leaked = sorted(got - expected)
        where = f"prefix {prefix!r} range [{start.hex()}, {stop.hex() if stop else None})"
        assert not missing, f"{where} misses {[inserted[i] for i in missing]!r}"
        assert not leaked, f"{where} leaks {[inserted[i] for i in leaked]!r}"
        if k == n and schema.fields[-1].options.get("final", False):
            assert len(got_rows) == 1
        _assert_natural_order(got_rows, inserted, schema)
        _assert_natural_order(_rows(conn, "SELECT v FROM kv ORDER BY k"), inserted, schema)


def _token(score: Any) -> Any:
    """A score as the model sees it: NULL, NaN, or an exact Decimal (a float by its repr)."""
    if score is None:
        return "NULL"
    if isinstance(score, float):
        return "NaN" if math.isnan(score) else D(repr(score))
    return "NaN" if isinstance(score, D) and score.is_nan() else D(score)


def test_mixed_numbers_in_one_field_scan_in_numeric_order() -> None:
    """The issue's example in a store: ints, Decimals and floats of one tenant come back in
    numeric order (a float as its repr decimal); 0.1 and Decimal('0.1'), -0.0 and
    Decimal(0) are one row each; a prefix scan of the tenant holds all of its scores, and
    the descending ts orders 8 before 7 before 6."""
    schema = KeySchema.parse(SCHEMAS[0])
    scores = [10**30, 2.0, D("1.5"), 1, None, math.nan, -math.inf, math.inf, D("-1E+400"),
              0.1, D("0.1"), 99999999999999991611392, 1e23, D("99999999999999991611392.5"),
              -0.0, D(0)]
    batch = [("acme", 7, s, b"") for s in scores]
    batch += [("acm", 7, 1, b""), ("acmf", 7, 1, b""), ("acme\x01", 7, 1, b""),
              ("acme", 8, 1, b""), ("acme", 6, 1, b"")]
    conn, inserted = _store(PLAIN, batch, schema)
    with closing(conn):
        start, stop = PLAIN.prefix_range(("acme", 7), schema)
        got = [_token(inserted[i][2]) for i in _range(conn, start, stop)]
        assert got == ["NULL", "NaN", D("-Infinity"), D("-1E+400"), D(0), D("0.1"), D(1),
                       D("1.5"), D(2), D(99999999999999991611392),
                       D("99999999999999991611392.5"), D("1E+23"), D(10**30), D("Infinity")]
        start, stop = PLAIN.prefix_range(("acme",), schema)
        ts = [inserted[i][1] for i in _range(conn, start, stop)]
        assert ts == [8] + [7] * len(got) + [6]
        every = _rows(conn, "SELECT v FROM kv ORDER BY k")
        assert [inserted[i][0] for i in every][:1] == ["acm"]
        _assert_natural_order(every, inserted, schema)


def test_tables_do_not_interleave() -> None:
    """Keys of several tables in one store: each table's empty-prefix range holds exactly
    its own keys, in natural order; the last table's range has no stop."""
    schema = KeySchema.parse("a:string desc, b:decimal")
    values = [("", 1), ("z", None), ("\U0010ffff", math.inf), (None, D("NaN")), ("m", -7.5)]
    tables = [0, 10, 240, 241, 2**64 - 2, 2**64 - 1]
    conn = sqlite3.connect(":memory:")
    with closing(conn):
        conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, t TEXT, v INTEGER) WITHOUT ROWID")
        for t in tables:
            codec = Sqlite4Codec(table=t)
            for i, row in enumerate(values):
                conn.execute("INSERT INTO kv VALUES (?, ?, ?)",
                             (codec.encode(row, schema), str(t), i))
        for t in tables:
            start, stop = Sqlite4Codec(table=t).prefix_range((), schema)
            sql = "SELECT t, v FROM kv WHERE k >= ?" + (" AND k < ?" if stop else "")
            got = list(conn.execute(sql + " ORDER BY k", (start, stop) if stop else (start,)))
            assert {tt for tt, _ in got} == {str(t)}
            order = [values[v] for _, v in got]
            assert order == sorted(values, key=lambda r: natural_key(r, schema, POLICY))
        assert Sqlite4Codec(table=2**64 - 1).prefix_range((), schema)[1] is None
