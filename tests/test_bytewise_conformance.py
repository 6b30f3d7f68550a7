"""The ``bytewise`` codec under the conformance harness (``lexcodecs.testing``).

A schema that holds every field type (string, int, bool, float64, bytes) written as an array,
and one-field schemas written bare: order against the natural-order model, round trip,
prefix ranges, injectivity, the decode without a schema and the schemaless encode (each
difference explained by a declared anomaly), and every declared anomaly confirmed real (its
witness breaks what it says) with no undeclared one. Every test runs on the compiled and on
the reference implementation (``impl``), under a tenth of the profile's examples (the harness
is slow; ``test_bytewise.py`` and the differential tests draw the full count).

The same harness runs on the option ``reading="reference"`` (keys read as bytewise's own
decode reads them, pure Python): its capabilities drop ``strict-decoding`` for
``reference-decoding``, and nothing else may change, since the keys it writes are the same.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from lexcodecs import KeySchema
from lexcodecs.codecs.bytewise import BytewiseCodec
from lexcodecs.errors import EncodeError
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


class TestBytewiseArrayConformance(CodecConformance):
    """The option ``array=True``: every key the JS array of its values (level-sublevel's
    ``[path, key]``), so the anomalies of several values against one array value are not
    declared there (and the harness confirms every one that is)."""

    codec = BytewiseCodec(array=True)
    schemas = ("x:float64, s:string", "s:string", "n:int, r:bytes")

    def property_settings(self) -> settings:
        return few_examples()


class TestBytewiseReferenceReadingConformance(CodecConformance):
    """The option ``reading="reference"``, under the same schemas and checks."""

    codec = BytewiseCodec(reading="reference")
    schemas = TestBytewiseConformance.schemas

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
        pytest.skip("the columnar kernel does not run here (not built, or the reference in force)")
    codec = BytewiseCodec(array=True)
    check_columnar(codec, KeySchema.parse("s:string"),
                   [("",), ("a\x00b",), ("\x01",), (None,), ("é",)])
    check_columnar(codec, KeySchema.parse("r:bytes, x:float64, n:int"),
                   [(b"\xfe\xff\x00", -0.0, 2**53), (None, float("-inf"), None),
                    (b"", 1.5, -(2**53))])


def test_numbers_go_a_row_at_a_time() -> None:
    """Keys of numbers alone, without NULLs, are written a row at a time (the array's a0 and
    00 in place, no scratch), the row API's bytes; an int beyond 2**53 or a NaN declines
    that way, and the row is the row API's (its refusal, its canonical NaN)."""
    pa = pytest.importorskip("pyarrow")
    from lexcodecs.columnar import arrow as columnar
    from lexcodecs.columnar import encode_arrow, kernel_available, pieces
    from lexcodecs.testing.checks import check_columnar

    if not kernel_available():
        pytest.skip("the columnar kernel does not run here (not built, or the reference in force)")
    ints = [0, 1, -1, 2**53, -(2**53), 10**15, 12345]
    floats = [0.0, -0.0, 1.5, -2.5, float("inf"), float("-inf"), 5e-324]
    schema = KeySchema.parse("n:int, x:float64, m:int")
    for codec in (BytewiseCodec(), BytewiseCodec(array=True)):
        rows = list(zip(ints, floats, reversed(ints)))
        check_columnar(codec, schema, rows)
        table = pa.table({"n": pa.array(ints, pa.int64()), "x": floats,
                          "m": pa.array(ints[::-1], pa.int64())})
        declared = pieces.declared(codec)
        assert declared is not None
        plan = columnar._plan(codec, declared, schema, columnar._columns(table, schema))
        assert plan is not None
        done = columnar._run_kernel(plan, table.num_rows, declared, None)
        assert (done.declined, done.way) == ([], "number rows")
        wide = table.set_column(0, "n", pa.array([2**53 + 1, *ints[1:]], pa.int64()))
        with pytest.raises(EncodeError):  # the row API's refusal, for row 0
            encode_arrow(wide, schema, codec)


def test_reading_is_an_option_of_reading_only() -> None:
    """``reading`` changes how keys are read, never the bytes written (``Option.reading``):
    the columnar pieces hold under either value, and ``identify``, which asks what wrote the
    keys, does not try ``reading="reference"`` (each try costs a search, for the same keys)."""
    from lexcodecs import get_codec
    from lexcodecs.codecs.charwise import CharwiseCodec
    from lexcodecs.columnar import pieces
    from lexcodecs.identification import codec_variants

    for cls in (BytewiseCodec, CharwiseCodec):
        assert cls.OPTIONS["reading"].reading
        for array in (False, True):
            assert pieces.declared(cls(array=array, reading="reference")) is \
                pieces.declared(cls(array=array))
        name = cls.name
        variants = codec_variants(name, get_codec(name), [b"\x10"])
        assert variants, name  # array=True is tried
        assert all(v.options["reading"] == "strict" for v in variants), name
