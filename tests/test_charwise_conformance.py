"""The ``charwise`` codec under the conformance harness (``lexcodecs.testing``).

One schema that holds every field type (string, int, bool, float64), with and without the
option ``array``, under each ``reading`` (strict, and charwise's own reading, whose losses
are the anomalies that option declares): order against the natural-order model, round trip,
prefix ranges, injectivity, the decode without a schema and the schemaless encode (each loss
explained by a declared anomaly), and every declared anomaly confirmed real (its witness
breaks what it says) with no undeclared one. Every test runs on the compiled and on the reference
implementation (``impl``), under a tenth of the profile's examples (the harness is slow;
``test_charwise.py`` and the differential tests draw the full count).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import settings

from lexcodecs.codecs.charwise import CharwiseCodec
from lexcodecs.columnar import kernel_available
from lexcodecs.schema import KeySchema
from lexcodecs.testing import CodecConformance
from lexcodecs.testing.checks import check_columnar

pa = pytest.importorskip("pyarrow")

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
    """``array=True``: one value is an array item too (its string escapes and terminator
    order are the item's anomalies), several values never one array value."""

    codec = CharwiseCodec(array=True)
    schemas = ("x:float64, s:string", "s:string")


class TestCharwiseReferenceReadingConformance(TestCharwiseConformance):
    """``reading="reference"``: keys read as charwise's own decode reads them (strings keep
    their escapes, array items lose theirs), each loss a declared anomaly of that option."""

    codec = CharwiseCodec(reading="reference")
    schemas = ("s:string, n:int, b:bool, x:float64", "s:string")


class TestCharwiseReferenceReadingArrayConformance(TestCharwiseConformance):
    codec = CharwiseCodec(reading="reference", array=True)
    schemas = ("x:float64, s:string", "s:string")


def _kernel_run(codec: CharwiseCodec, schema: str, columns: dict[str, Any]) -> Any:
    """What the columnar kernel did with these columns: the declined rows, the way, the
    columns its loops without checks wrote."""
    from lexcodecs.columnar import arrow as columnar
    from lexcodecs.columnar import pieces

    table, bound = pa.table(columns), KeySchema.parse(schema)
    declared = pieces.declared(codec)
    assert declared is not None
    plan = columnar._plan(codec, declared, bound, columnar._columns(table, bound))
    assert plan is not None  # the kernel's, not the row API's
    return columnar._run_kernel(plan, table.num_rows, declared, None)


def test_columnar_keys_of_every_piece() -> None:
    """The columnar kernel's charwise pieces against the row API, on the values where its
    layout branches: a string's item escapes (only with a ``!`` or ``"``: ``?`` alone stays),
    ``00``/``01``, the number texts of zero, -0, the infinities, the extreme exponents,
    negative numbers (9-complemented), ints at +-2**53 and with trailing zeros, NULL in every
    field. The kernel writes every row but the NaNs' (``DaN``: the row API's); numbers
    without NULLs go a row at a time. With and without ``array``."""
    if not kernel_available():
        pytest.skip("the columnar kernel does not run here (not built, or the reference in force)")
    strings = ["", "a!", 'a"', "a?", "?!\"", "a?%", "\x00", "\x01", "\x00\x01!", "é", "plain",
               None]
    numbers = [0.0, -0.0, 1.0, -1.0, 0.5, -0.72, 1e-05, -1e-05, 5e-324, -5e-324,
               1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf,
               math.nan, 949939434.0, 0.1, -123.456e-300, None]
    ints = [0, 1, -1, 10, -10, 2**53, -(2**53), 10**15, -(10**15), 949939434, 123000, None]
    rows = [(strings[i % len(strings)], numbers[i % len(numbers)], ints[i % len(ints)],
             [True, False, None][i % 3]) for i in range(3 * len(numbers))]
    text = "s:string, x:float64, n:int, b:bool"
    columns = {"s": [r[0] for r in rows], "x": [r[1] for r in rows],
               "n": pa.array([r[2] for r in rows], pa.int64()), "b": [r[3] for r in rows]}
    for codec in (CharwiseCodec(), CharwiseCodec(array=True)):
        check_columnar(codec, KeySchema.parse(text), rows)
        done = _kernel_run(codec, text, columns)
        assert done.declined == [i for i, r in enumerate(rows) if r[1] != r[1]]
    plain = [(n, x) for n, x in zip([n for n in ints if n is not None] * 2, numbers)
             if x is not None and x == x]
    check_columnar(CharwiseCodec(), KeySchema.parse("n:int, x:float64"), plain)
    done = _kernel_run(CharwiseCodec(), "n:int, x:float64",
                       {"n": pa.array([n for n, _ in plain], pa.int64()),
                        "x": [x for _, x in plain]})
    # a row at a time, the array's K and !, the " between the numbers written in place
    assert (done.declined, done.way, done.plain) == ([], "number rows", 2)
    # with a NaN that way declines the batch, and row by row the NaN's row is declined
    done = _kernel_run(CharwiseCodec(), "n:int, x:float64",
                       {"n": pa.array([n for n, _ in plain], pa.int64()),
                        "x": [math.nan, *(x for _, x in plain[1:])]})
    assert (done.declined, done.way) == ([0], "by row")
    check_columnar(CharwiseCodec(array=True), KeySchema.parse("s:string"),
                   [(s,) for s in strings])
