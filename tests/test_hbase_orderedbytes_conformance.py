"""The ``hbase-orderedbytes`` codec under the conformance harness (``lexcodecs.testing``).

Both APIs (``api="types"`` and ``api="struct"``) on three schemas that together hold every
field type, encoding and direction: order against the natural-order model, round trip,
prefix ranges, injectivity, and every declared anomaly confirmed real (its witness breaks
what it says) with no undeclared one. Every test runs on the compiled and on the reference
implementation (``impl``), under a fifteenth of the profile's examples.
"""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from lexcodecs.codecs.hbase_orderedbytes import HBaseOrderedBytesCodec
from lexcodecs.testing import CodecConformance

CODEC = HBaseOrderedBytesCodec()
STRUCT = HBaseOrderedBytesCodec(api="struct")

pytestmark = [pytest.mark.usefixtures("impl"),
              pytest.mark.filterwarnings("ignore::lexcodecs._impl.CompiledUnavailableWarning")]


# -- schemas ----------------------------------------------------------------------

CONFORMANCE_SCHEMAS = [  # every type and direction, in three schemas (the harness is slow)
    "d:decimal, s:string desc, n:int desc, b:bytes",
    "a:int8, b:int16 desc, c:int32, d:int64 desc, x:float64, y:float32 desc, "
    "bl:bytes encoding=blobcopy",
    "x:float64 desc encoding=numeric, n:int64 encoding=numeric, y:float32 encoding=numeric, "
    "s:string, t:string desc, bc:bytes desc encoding=blobcopy",
]


#: a descending BlobCopy takes no 00 byte
NO_NUL_BYTES = {"bc": st.binary(max_size=12).filter(lambda b: b"\x00" not in b)}


def few_examples() -> settings:
    """The harness under a fifteenth of the loaded profile's examples (it runs the reference
    Python on every property, on both implementations; the differential tests hold the
    compiled module to the reference)."""
    active = settings()  # the loaded profile
    return settings(active, max_examples=max(4, active.max_examples // 15))


class TestHBaseConformance(CodecConformance):
    codec = CODEC
    schemas = CONFORMANCE_SCHEMAS
    value_strategies = NO_NUL_BYTES

    def property_settings(self) -> settings:
        return few_examples()


class TestHBaseStructConformance(TestHBaseConformance):
    codec = STRUCT
