"""The ``tidb`` codec under the conformance harness (``lexcodecs.testing``).

Schemas that together hold every field type, where tidb's order is honest: decimals with a
fixed DECIMAL(10, 2) (a decimal field without precision/frac sorts by shape first, a declared
anomaly shown in ``test_tidb.py``). Order against the natural-order model, round trip, prefix
ranges, injectivity, the decode without a schema (each difference explained by a declared
anomaly), and every declared anomaly confirmed real with no undeclared one; for bare datums,
an index key and a common-handle row key. Every test runs on the compiled and on the
reference implementation (``impl``), under a tenth of the profile's examples (the harness is
slow; the differential tests draw the full count).
"""

from __future__ import annotations

import decimal
from typing import ClassVar

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from lexcodecs.codecs.tidb import TidbCodec
from lexcodecs.testing import CodecConformance

pytestmark = pytest.mark.usefixtures("impl")

SCHEMAS = ("s:string, n:int64, u:uint64, x:float64",
           "b:bytes, y:float32, t:timestamp, l:duration",
           "d:decimal precision=10 frac=2, n:int64",
           "n:int64, u:uint64, x:float64, l:duration")

#: DECIMAL(10, 2) values: at most 8 integer digits, 2 fraction digits
DECIMAL_10_2 = st.integers(-(10**10) + 1, 10**10 - 1).map(
    lambda n: decimal.Decimal(n).scaleb(-2))


def few_examples() -> settings:
    """The harness under a tenth of the loaded profile's examples."""
    active = settings()  # the loaded profile
    return settings(active, max_examples=max(6, active.max_examples // 10))


class TestTidbConformance(CodecConformance):
    codec = TidbCodec()
    schemas = SCHEMAS
    value_strategies: ClassVar = {"d": DECIMAL_10_2}

    def property_settings(self) -> settings:
        return few_examples()


class TestTidbIndexConformance(TestTidbConformance):
    codec = TidbCodec(table_id=42, index_id=3)
    schemas = SCHEMAS[:1]


class TestTidbCommonHandleConformance(TestTidbConformance):
    codec = TidbCodec(table_id=-7, handle="common")
    schemas = ("s:string, n:int64", SCHEMAS[2])
