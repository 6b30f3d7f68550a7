"""``skv`` prefix ranges in a real sorted store: why the range is not ``P + ff`` (spec
``skv.md`` §8, S7). The random prefix-range and order property for every codec, skv's schemas
included, is ``conformance/test_stores.py``; the stores are ``tests/stores.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from stores import assert_natural_order, encode_batch, sqlite_store

from lexcodecs import KeySchema, get_codec
from lexcodecs.codecs.skv import EMPTY_PREFIX_STOP
from lexcodecs.testing import model_equal

CODEC = get_codec("skv")
CAPS = CODEC.capabilities
POLICY = CAPS.float_policy

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
    inserted, encoded = encode_batch(CODEC, batch, schema)
    with sqlite_store(encoded) as scan:
        start, stop = CODEC.prefix_range(prefix, schema)
        assert (start.hex(), stop.hex() if stop else None) == (start_hex, stop_hex)
        null_encoded = CODEC.encode(null_key, schema)
        assert null_encoded[len(start):len(start) + 3] == b"\xff\x00\x01"
        null_row = inserted.index(null_key)

        expected = {i for i, values in enumerate(inserted)
                    if model_equal(values[:len(prefix)], prefix, schema, POLICY)}
        got = scan(start, stop)
        assert set(got) == expected
        assert null_row in got
        assert got[-1] == null_row  # nulls last: the NULL key is the last of the range
        assert_natural_order(got, inserted, schema, POLICY)

        naive = scan(start, start + b"\xff")
        assert null_row not in naive
        assert set(naive) == expected - {null_row}
