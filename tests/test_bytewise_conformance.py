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

from lexcodecs import KeySchema
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



def test_array_option_keys_go_columnar() -> None:
    """With the option ``array`` every key is an array, one value's too (level-sublevel's
    ``[path, key]``), and has a columnar declaration of its own (an item's escapes for one
    field): ``encode_arrow`` writes the row API's bytes. (The conformance class above runs
    the option off: its anomalies are the option's.)"""
    pytest.importorskip("pyarrow")
    from lexcodecs.columnar import kernel_available
    from lexcodecs.testing.checks import check_columnar

    if not kernel_available():
        pytest.skip("the columnar kernel is not built")
    codec = BytewiseCodec(array=True)
    check_columnar(codec, KeySchema.parse("s:string"),
                   [("",), ("a\x00b",), ("\x01",), (None,), ("é",)])
    check_columnar(codec, KeySchema.parse("r:bytes, x:float64, n:int"),
                   [(b"\xfe\xff\x00", -0.0, 2**53), (None, float("-inf"), None),
                    (b"", 1.5, -(2**53))])
