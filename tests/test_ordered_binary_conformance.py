"""The ``ordered-binary`` codec under the conformance harness (``lexcodecs.testing``).

One schema that holds every field type (string, int, bool, float64, bytes): order against
the natural-order model, round trip, prefix ranges, injectivity, the decode without a schema
and the schemaless encode (each loss of lmdb-js's reader explained by a declared round-trip
anomaly), and every declared anomaly confirmed real (its witness breaks what it says) with
no undeclared one. Every test runs on the compiled and on the reference implementation
(``impl``), under a tenth of the profile's examples (the harness is slow;
``test_ordered_binary.py`` and the differential tests draw the full count).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from lexcodecs.codecs.ordered_binary import OrderedBinaryCodec
from lexcodecs.testing import CodecConformance

pytestmark = pytest.mark.usefixtures("impl")


@pytest.fixture
def few_examples() -> Iterator[None]:
    """The harness under a tenth of the loaded profile's examples."""
    before = settings()  # the settings in force
    settings.register_profile("ordered-binary-few", parent=before,
                              max_examples=max(6, before.max_examples // 10))
    settings.load_profile("ordered-binary-few")
    try:
        yield
    finally:
        settings.register_profile("ordered-binary-restore", parent=before)
        settings.load_profile("ordered-binary-restore")


@pytest.mark.usefixtures("few_examples")
class TestOrderedBinaryConformance(CodecConformance):
    codec = OrderedBinaryCodec()
    schemas = ("s:string, n:int, b:bool, x:float64, r:bytes",)
