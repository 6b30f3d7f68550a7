"""The ``orderedcode`` codec under the conformance harness, on both implementations.

Schemas mix every field type and both orders; one ends in a *descending* trailing string,
whose order anomaly (a string before its own extensions) the harness must find explained by
the declared anomaly, which it also shows to be real. The
harness's value strategies know nothing of INFINITY: ``test_orderedcode.py``'s own model
orders it. Examples are few (the whole suite has a time budget); the differential and unit
tests cover each type in depth.
"""

from __future__ import annotations

from typing import ClassVar

import pytest
from hypothesis import settings

from lexcodecs.codecs.orderedcode import OrderedCodeCodec
from lexcodecs.schema import KeySchema
from lexcodecs.testing import CodecConformance

# every check on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")


class TestOrderedCodeConformance(CodecConformance):
    codec = OrderedCodeCodec()
    schemas = (
        "s:string, n:int64 desc, u:uint64, f:float64, b:bytes desc",
        "u:uint64 desc, f:float64 desc, s:string desc, t:bytes desc trailing=true",
    )
    examples: ClassVar[int] = 5

    def property_settings(self) -> settings:
        return settings(max_examples=self.examples)


def test_the_descending_trailing_anomaly_is_found_and_explained() -> None:
    codec = OrderedCodeCodec()
    (anomaly,) = [a for a in codec.capabilities.anomalies if a.kind == "order"]
    assert anomaly.schema is not None
    schema = KeySchema.parse(anomaly.schema)
    a, b = anomaly.witness
    assert codec.encode(a, schema) > codec.encode(b, schema)  # "abc" desc after "ab"
    assert codec.capabilities.explained(("order",), schema, a, b) is not None
    # a descending string that is not trailing keeps its order: nothing to explain
    plain = KeySchema.parse("s:string desc")
    assert codec.encode(a, plain) < codec.encode(b, plain)
    assert codec.capabilities.explained(("order",), plain, a, b) is None
