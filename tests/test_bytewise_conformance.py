"""The ``bytewise`` codec under the conformance harness (``lexcodecs.testing``).

A schema that holds every field type (string, int, bool, float64, bytes) written as an array,
and one-field schemas written bare: order against the natural-order model, round trip,
prefix ranges, injectivity, the decode without a schema and the schemaless encode (each
difference explained by a declared anomaly), and every declared anomaly confirmed real (its
witness breaks what it says) with no undeclared one. Every test runs on the compiled and on
the reference implementation (``impl``), under a tenth of the profile's examples (the harness
is slow; ``test_bytewise.py`` and the differential tests draw the full count).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from lexcodecs.codecs.bytewise import BytewiseCodec
from lexcodecs.testing import CodecConformance

pytestmark = pytest.mark.usefixtures("impl")


def few_examples() -> settings:
    """The harness under a tenth of the loaded profile's examples."""
    active = settings()  # the loaded profile
    return settings(active, max_examples=max(6, active.max_examples // 10))


class TestBytewiseConformance(CodecConformance):
    codec = BytewiseCodec()
    schemas = ("s:string, n:int, b:bool, x:float64, r:bytes", "s:string", "x:float64",
               "r:bytes", "n:int")

    def property_settings(self) -> settings:
        return few_examples()
