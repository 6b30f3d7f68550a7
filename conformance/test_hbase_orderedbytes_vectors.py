"""The ``hbase-orderedbytes`` codec against ``vectors/hbase-orderedbytes.json``.

The bytes are HBase 2.6.7's own output (unmodified ``OrderedBytes`` and
``org.apache.hadoop.hbase.types`` classes on Java 17/25). Every case is a test:

* an encode case: ``encode(values, schema)`` (with the case's codec options) gives ``hex``;
  ``decode(hex)`` gives ``values``, or ``decoded`` where HBase's decoder is lossy, with types
  (a float field under Struct compares with the BigDecimal HBase's ``Struct`` gives); the
  decoded values encode to the same key again;
* an ``error`` case is refused with a lexcodecs error naming the codec and the field;
* a ``decode_error`` case encodes to ``hex`` and its decode is refused with ``DecodeError``;
* the ``jdk_dependent`` section: doubles whose JDK 19+ digits differ from JDK 17's give the
  JDK 25 bytes.

The vectors are read from ``conformance/vectors/`` (the shared copy only while that is
missing). Every test runs twice, on the compiled and on the reference implementation.
"""

from __future__ import annotations

import pytest
from test_hbase_orderedbytes import NAME, D, _codec, same, same_struct_float, vectors

from lexcodecs.codecs.hbase_orderedbytes import HBaseOrderedBytesCodec
from lexcodecs.errors import DecodeError, EncodeError, SchemaError
from lexcodecs.schema import KeySchema
from lexcodecs.testing.vectors import VectorCase, typed_values

CODEC = HBaseOrderedBytesCodec()

# every vector, byte for byte, on the compiled and on the reference implementation
pytestmark = [pytest.mark.usefixtures("impl"),
              pytest.mark.filterwarnings("ignore::lexcodecs._impl.CompiledUnavailableWarning")]


# -- cases --------------------------------------------------------------------------------------


def test_every_vector_case() -> None:
    """Every case, one test per implementation (798 test items cost more in pytest's and
    xdist's bookkeeping than the checks): each failing case is named."""
    vf = vectors()
    if vf is None:
        pytest.skip(f"no {NAME}.json vectors")
    failures = []
    for case in vf.cases:
        try:
            check_vector_case(case)
        except (Exception, pytest.fail.Exception) as exc:
            label = (case.error or case.raw.get("hex", ""))[:40]
            failures.append(f"cases[{case.index}] {label}: {type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {len(vf.cases)} failed:\n" + "\n".join(
        failures[:30])


def check_vector_case(case: VectorCase) -> None:
    assert case.schema is not None
    codec = _codec(case.options)
    if case.expects_error:
        assert case.values is not None
        with pytest.raises((EncodeError, SchemaError)) as info:
            codec.encode(case.values, case.schema)
        assert info.value.codec == NAME
        assert "field" in str(info.value) or info.value.field is not None
        return
    assert case.values is not None
    assert case.key is not None
    assert codec.encode(case.values, case.schema) == case.key
    if "decode_error" in case.raw:
        with pytest.raises(DecodeError) as dinfo:
            codec.decode(case.key, case.schema)
        assert dinfo.value.codec == NAME
        return
    want = typed_values(case.raw["decoded"]) if "decoded" in case.raw else case.values
    got = codec.decode(case.key, case.schema)
    assert len(got) == len(want)
    for g, w, f in zip(got, want, case.schema.fields):
        if case.options.get("api") == "struct" and isinstance(w, D) and \
                f.type in ("float32", "float64"):
            assert same_struct_float(g, w), (g, w)
        else:
            assert same(g, w), (g, w)
    # decoding gives values that encode to the same key again
    assert codec.encode(got, case.schema) == case.key


def test_vector_counts() -> None:
    vf = vectors()
    if vf is None:
        pytest.skip("no vectors")
    kinds = {"encode": 0, "error": 0, "decode_error": 0}
    for c in vf.cases:
        kinds["error" if c.expects_error else
              "decode_error" if "decode_error" in c.raw else "encode"] += 1
    assert sum(kinds.values()) == len(vf.cases) == 397


def test_jdk_dependent_cases_take_the_jdk19_digits() -> None:
    vf = vectors()
    if vf is None:
        pytest.skip("no vectors")
    entries = vf.section("jdk_dependent")
    assert entries
    for entry in entries:
        schema = KeySchema.from_dict({"fields": entry["fields"]})
        values = typed_values(entry["values"])
        assert CODEC.encode(values, schema).hex() == entry["hex_jdk25"]
        assert CODEC.encode(values, schema).hex() != entry["hex_jdk17"]
