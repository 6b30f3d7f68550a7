"""``sqlite4`` keys in a real sorted store (spec ``sqlite4.md`` §13): mixed numbers in one
field, and several tables in one store. The random prefix-range and order property, sqlite4's
schemas (and ``table=10``) included, is ``conformance/test_stores.py``.

"""

from __future__ import annotations

import decimal
import math
import sqlite3
from contextlib import closing
from typing import Any

from stores import assert_natural_order, encode_batch, sqlite_store

from lexcodecs import KeySchema
from lexcodecs.codecs.sqlite4 import Sqlite4Codec
from lexcodecs.testing import natural_key

D = decimal.Decimal
PLAIN = Sqlite4Codec()
POLICY = PLAIN.capabilities.float_policy

#: the schema of the mixed-number example
SCHEMA = "tenant:string, ts:int desc, score:decimal, blob:bytes final=true"


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
    schema = KeySchema.parse(SCHEMA)
    scores = [10**30, 2.0, D("1.5"), 1, None, math.nan, -math.inf, math.inf, D("-1E+400"),
              0.1, D("0.1"), 99999999999999991611392, 1e23, D("99999999999999991611392.5"),
              -0.0, D(0)]
    batch = [("acme", 7, s, b"") for s in scores]
    batch += [("acm", 7, 1, b""), ("acmf", 7, 1, b""), ("acme\x01", 7, 1, b""),
              ("acme", 8, 1, b""), ("acme", 6, 1, b"")]
    inserted, encoded = encode_batch(PLAIN, batch, schema)
    with sqlite_store(encoded) as scan:
        start, stop = PLAIN.prefix_range(("acme", 7), schema)
        got = [_token(inserted[i][2]) for i in scan(start, stop)]
        assert got == ["NULL", "NaN", D("-Infinity"), D("-1E+400"), D(0), D("0.1"), D(1),
                       D("1.5"), D(2), D(99999999999999991611392),
                       D("99999999999999991611392.5"), D("1E+23"), D(10**30), D("Infinity")]
        start, stop = PLAIN.prefix_range(("acme",), schema)
        ts = [inserted[i][1] for i in scan(start, stop)]
        assert ts == [8] + [7] * len(got) + [6]
        every = scan(b"", None)
        assert [inserted[i][0] for i in every][:1] == ["acm"]
        assert_natural_order(every, inserted, schema, POLICY)


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
