"""The ``charwise`` codec under the conformance harness (``lexcodecs.testing``).

One schema that holds every field type (string, int, bool, float64), with and without the
option ``array``: order against the natural-order model, round trip, prefix ranges,
injectivity, the decode without a schema and the schemaless encode (each loss explained by a
declared anomaly), and every declared anomaly confirmed real (its witness breaks what it
says) with no undeclared one. Every test runs on the compiled and on the reference
implementation (``impl``), under a tenth of the profile's examples (the harness is slow;
``test_charwise.py`` and the differential tests draw the full count).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from lexcodecs.codecs.charwise import CharwiseCodec
from lexcodecs.testing import CodecConformance

pytestmark = pytest.mark.usefixtures("impl")


def few_examples() -> settings:
    """The harness under a tenth of the loaded profile's examples."""
    active = settings()  # the loaded profile
    return settings(active, max_examples=max(6, active.max_examples // 10))


class TestCharwiseConformance(CodecConformance):
    codec = CharwiseCodec()
    schemas = ("s:string, n:int, b:bool, x:float64", "s:string")

    def property_settings(self) -> settings:
        return few_examples()


class TestCharwiseArrayConformance(TestCharwiseConformance):
    codec = CharwiseCodec(array=True)
    schemas = ("x:float64, s:string",)
