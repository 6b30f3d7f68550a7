"""``skv`` prefix ranges against a real sorted store (issue 5).

Random keys go into an in-memory SQLite table with a BLOB primary key (``WITHOUT ROWID``:
the table is a B-tree ordered by the key, and SQLite compares BLOBs with ``memcmp`` and then
by length, as a sorted KV store does). A range query on ``prefix_range(prefix)`` must return
exactly the keys whose first k values equal the prefix, compared in the model (never by
encoding), and ``ORDER BY k`` must be the natural order (spec ``skv.md`` §8, S7).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexcodecs import KeySchema, get_codec
from lexcodecs.codecs.skv import EMPTY_PREFIX_STOP
from lexcodecs.testing import keys, model_equal, natural_key

CODEC = get_codec("skv")
CAPS = CODEC.capabilities
POLICY = CAPS.float_policy

SCHEMAS = (
    "tenant:string, ts:int64 desc, id:bytes nulls last, flag:bool",
    "a:string desc nulls first, b:string nulls last, c:int32",
    "a:int16 desc nulls first, b:uint32, c:float64 desc, d:string desc nulls last",
    "x:bytes desc nulls last, y:bytes nulls first, z:float32",
    "p:int32 key=partition, q:uint64 desc key=range, r:bytes desc nulls first key=range",
    "s:string nulls last",
)


def _rows(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[int]:
    return [v for (v,) in conn.execute(sql, params)]


def _store(batch: Sequence[Sequence[Any]], schema: KeySchema
           ) -> tuple[sqlite3.Connection, list[tuple[Any, ...]]]:
    """An in-memory table of *batch* (deduplicated by encoded key); v is the index into the
    returned list of inserted values."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID")
    inserted: list[tuple[Any, ...]] = []
    seen: set[bytes] = set()
    for values in batch:
        key = CODEC.encode(tuple(values), schema)
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


# schemas and key strategies are built once: building strategies is what is slow
_PARSED = {text: KeySchema.parse(text) for text in SCHEMAS}
_KEYS = {text: keys(schema, CAPS) for text, schema in _PARSED.items()}


@pytest.mark.parametrize("text", SCHEMAS)
@given(data=st.data())
def test_prefix_range_against_sqlite(text: str, data: st.DataObject) -> None:
    schema = _PARSED[text]
    key_st = _KEYS[text]
    n = len(schema)
    batch = data.draw(st.lists(key_st, min_size=1, max_size=20), label="batch")
    k = data.draw(st.integers(0, n - 1), label="k")
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
    conn, inserted = _store([*batch, *extra], schema)
    with closing(conn):
        start, stop = CODEC.prefix_range(prefix, schema)
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
        _assert_natural_order(got_rows, inserted, schema)
        _assert_natural_order(_rows(conn, "SELECT v FROM kv ORDER BY k"), inserted, schema)


# spec §8: the worked example of why "P + ff" is wrong, ascending and descending, and the
# empty prefix before a leading nulls-last field
FF_CASES = (
    pytest.param("tenant:string, id:bytes nulls last", ("acme",),
                 "0161636d650001", "0161636d650002", id="acme"),
    pytest.param("tenant:string desc, id:bytes nulls last", ("acme",),
                 "fe9e9c929afffe", "fe9e9c929affff", id="acme-desc"),
    pytest.param("tenant:string nulls last, id:bytes", (), "", EMPTY_PREFIX_STOP.hex(),
                 id="empty-prefix"),
)


@pytest.mark.parametrize(("text", "prefix", "start_hex", "stop_hex"), FF_CASES)
def test_prefix_plus_ff_would_miss_a_nulls_last_field(
        text: str, prefix: tuple[Any, ...], start_hex: str, stop_hex: str) -> None:
    schema = KeySchema.parse(text)
    null_key = (*prefix, None) if prefix else (None, b"x")
    batch = [
        null_key,                       # the next field is a NULL: its encoding starts with ff
        (*prefix, b"") if prefix else ("acme", b""),
        (*prefix, b"\xff\x00") if prefix else ("", b"\x00"),
        ("acm", None), ("acmf", b""), ("acme\x00", None), ("b", None),
        *([("acme", b"y")] if not prefix else []),
    ]
    conn, inserted = _store(batch, schema)
    with closing(conn):
        start, stop = CODEC.prefix_range(prefix, schema)
        assert (start.hex(), stop.hex() if stop else None) == (start_hex, stop_hex)
        null_encoded = CODEC.encode(null_key, schema)
        assert null_encoded[len(start):len(start) + 3] == b"\xff\x00\x01"
        null_row = inserted.index(null_key)

        expected = {i for i, values in enumerate(inserted)
                    if model_equal(values[:len(prefix)], prefix, schema, POLICY)}
        got = _range(conn, start, stop)
        assert set(got) == expected
        assert null_row in got
        assert got[-1] == null_row  # nulls last: the NULL key is the last of the range
        _assert_natural_order(got, inserted, schema)

        naive = _range(conn, start, start + b"\xff")
        assert null_row not in naive
        assert set(naive) == expected - {null_row}
