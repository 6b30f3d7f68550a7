"""Every codec's keys in real sorted stores: one runner for all codecs and stores.

Random keys go into a store that sorts keys as bytes: an SQLite table with a BLOB primary
key (``WITHOUT ROWID``: a B-tree ordered by ``memcmp`` and then length) and an LMDB
environment. A range scan over ``prefix_range(prefix)`` must return exactly the keys whose
first k values equal the prefix, compared in the natural-order model (never by encoding), and
a full scan must be the natural order. Each codec gives schemas it can express without a
declared anomaly (LexKey's ambiguities and Orderly's decimal and SHOULD_NOT quirks are shown
by their own tests); a codec's store tests of its own (skv's ``P + ff`` cases, sqlite4's mixed
numbers and table numbers) stay in its test files.
"""

from __future__ import annotations

import decimal
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from stores import STORES, assert_natural_order, encode_batch, near

from lexcodecs import KeySchema, get_codec
from lexcodecs.codec import Codec
from lexcodecs.testing import keys, model_equal

D = decimal.Decimal

#: sqlite4's numbers: ints small and huge, floats with their edges, Decimals of any exponent
SQLITE4_NUMBERS = st.one_of(
    st.integers(-5, 5),
    st.integers(-(10**40), 10**40),
    st.floats(),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 0.1, 1e23, 2.5, -2.5]),
    st.builds(lambda s, d, e: D((s, tuple(d), e)), st.integers(0, 1),
              st.lists(st.integers(0, 9), min_size=1, max_size=40), st.integers(-400, 400)),
    st.sampled_from([D("NaN"), D("-Infinity"), D("Infinity"), D("0.1"), D("2.50"), D("-0"),
                     D("99999999999999991611392.5"), D("1E+23")]),
)
SQLITE4_OVERRIDES = {"decimal": SQLITE4_NUMBERS,
                     "tenant": st.sampled_from(["", "acme", "acm", "acme\x01", "b"])}

#: (codec name, codec options, schema, value strategies by field type or name, whole keys:
#: whether the prefix may be a whole key, which only formats whose range holds it allow)
CASES: tuple[tuple[str, dict[str, Any], str, dict[str, Any], bool], ...] = (
    ("fdb-tuple", {}, "tenant:string, ts:int64, id:bytes, x:float64", {}, False),
    ("fdb-tuple", {}, "id:uuid, flag:bool, n:int, f:float32", {}, False),
    ("skv", {}, "tenant:string, ts:int64 desc, id:bytes nulls last, flag:bool", {}, False),
    ("skv", {}, "a:string desc nulls first, b:string nulls last, c:int32", {}, False),
    ("skv", {}, "a:int16 desc nulls first, b:uint32, c:float64 desc, d:string desc nulls last",
     {}, False),
    ("skv", {}, "x:bytes desc nulls last, y:bytes nulls first, z:float32", {}, False),
    ("skv", {}, "p:int32 key=partition, q:uint64 desc key=range, r:bytes desc nulls first "
     "key=range", {}, False),
    ("skv", {}, "s:string nulls last", {}, False),
    ("sqlite4", {}, "tenant:string, ts:int desc, score:decimal, blob:bytes final=true",
     SQLITE4_OVERRIDES, True),
    ("sqlite4", {}, "a:string desc, b:decimal desc, c:bytes", SQLITE4_OVERRIDES, True),
    ("sqlite4", {"table": 10}, "tenant:string, ts:int desc, score:decimal, blob:bytes final=true",
     SQLITE4_OVERRIDES, True),
    ("orderly", {}, "name:string, n:int64 desc, x:float64, u:uint32 desc", {}, False),
    ("orderly", {}, "a:int32, b:string desc, c:float32", {}, False),
)

_SETUP: dict[int, tuple[Codec, KeySchema, st.SearchStrategy[tuple[Any, ...]]]] = {}


def setup(index: int) -> tuple[Codec, KeySchema, st.SearchStrategy[tuple[Any, ...]]]:
    """The codec, schema and key strategy of CASES[index], built once (strategies are slow
    to build)."""
    if index not in _SETUP:
        name, options, text, overrides, _ = CASES[index]
        codec = get_codec(name, **options)
        schema = KeySchema.parse(text)
        _SETUP[index] = (codec, schema, keys(schema, codec.capabilities, overrides))
    return _SETUP[index]


def case_id(case: tuple[str, dict[str, Any], str, dict[str, Any], bool]) -> str:
    name, options, text, _, _ = case
    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{name}{'(' + opts + ')' if opts else ''}[{text}]"


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
@given(data=st.data())
def test_prefix_range_and_order_in_a_store(index: int, data: st.DataObject,
                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each drawn batch in every store (SQLite, then LMDB): drawing it is most of the cost."""
    codec, schema, key_st = setup(index)
    whole_keys = CASES[index][4]
    n = len(schema)
    batch = data.draw(st.lists(key_st, min_size=1, max_size=20), label="batch")
    k = data.draw(st.integers(0, n if whole_keys else n - 1), label="k")
    if data.draw(st.booleans(), label="prefix from the batch"):
        prefix = tuple(data.draw(st.sampled_from(batch), label="prefix key")[:k])
    else:
        prefix = tuple(data.draw(key_st, label="prefix key")[:k])
    # random keys seldom share a prefix: add keys that extend it, near misses that differ from
    # it in one field, and values one step away from the prefix's own
    extra: list[tuple[Any, ...]] = []
    for values in batch[:8]:
        extra.append(prefix + tuple(values[k:]))
        for j in range(k):
            extra.append((*prefix[:j], values[j], *prefix[j + 1:], *values[k:]))
    for values in batch[:3]:
        for j in range(k):
            for value in near(prefix[j]):
                extra.append((*prefix[:j], value, *prefix[j + 1:], *values[k:]))
    for store in STORES:
        _check_store(store, codec, schema, [*batch, *extra], prefix, tmp_path_factory)


def _check_store(store: str, codec: Codec, schema: KeySchema, rows: list[tuple[Any, ...]],
                 prefix: tuple[Any, ...], tmp_path_factory: pytest.TempPathFactory) -> None:
    """*rows* in *store*: the range of *prefix* holds exactly the rows that extend it, and
    every scan is in the natural order."""
    k, n = len(prefix), len(schema)
    inserted, encoded = encode_batch(codec, rows, schema, allow_empty=store != "lmdb")
    start, stop = codec.prefix_range(prefix, schema)
    # a directory of its own, removed after the example: mktemp numbers its directories by
    # listing the ones made before (about 1,500 here): a sixth of this file's time, profiled
    with tempfile.TemporaryDirectory(prefix=store, dir=tmp_path_factory.getbasetemp()) as tmp, \
            STORES[store](encoded, Path(tmp)) as scan:
        got_rows = scan(start, stop)
        all_rows = scan(b"", None)
    policy = codec.capabilities.float_policy
    expected = {i for i, values in enumerate(inserted)
                if model_equal(values[:k], prefix, schema, policy)}
    got = set(got_rows)
    assert len(got) == len(got_rows)
    where = f"{store}: prefix {prefix!r} range [{start.hex()}, {stop.hex() if stop else None})"
    assert not expected - got, f"{where} misses {[inserted[i] for i in expected - got]!r}"
    assert not got - expected, f"{where} leaks {[inserted[i] for i in got - expected]!r}"
    if k == n and schema.fields[-1].options.get("final", False):
        assert len(got_rows) == 1, where  # a whole key ending in a final binary: that key alone
    try:
        assert_natural_order(got_rows, inserted, schema, policy)
        assert_natural_order(all_rows, inserted, schema, policy)
    except AssertionError as exc:
        raise AssertionError(f"{store}: {exc}") from None
