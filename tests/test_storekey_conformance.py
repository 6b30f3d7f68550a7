"""The ``storekey`` codec under the conformance harness, on both implementations.

Two classes. :class:`TestStorekeyConformance` runs every check against the natural-order model
on schemas of every field type, ``nullable=true`` and ``nullable=2`` (``Some(None)`` between
NULL and the values), chars, variants, bytes and ``repr=seq`` sequences, with strings free of
U+0000 (the capabilities say ``text_nul=False``: there the format is honest); the bytes and
sequence anomalies it meets must be the declared ones. :class:`TestStorekeyStringsWithNul`
gives strings U+0000 on purpose (a strategy of its own), so that every collision, misorder,
prefix leak and failed round trip they cause must be explained by the declared string
anomalies, and by nothing broader.
"""

from __future__ import annotations

from typing import ClassVar

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from lexcodecs.codecs.storekey import StorekeyCodec
from lexcodecs.testing import CodecConformance
from lexcodecs.testing.strategies import Overrides

# every check on the compiled and on the reference implementation
pytestmark = pytest.mark.usefixtures("impl")

CODEC = StorekeyCodec()


#: storekey writes a variant index as a u32: the whole range, beyond the harness's 0..255 (the
#: range every format takes)
VARIANTS = st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 255, 256, 2**32 - 1])


class TestStorekeyConformance(CodecConformance):
    codec = CODEC
    value_strategies: ClassVar[Overrides] = {"variant": VARIANTS}
    schemas = (
        "b:bool, i8:int8, i16:int16, i32:int32, i64:int64",
        "u8:uint8, u16:uint16, u32:uint32, u64:uint64, v:variant",
        "f:float32, d:float64, n:int16",
        "s:string, c:char, t:string",
        "b:bytes, n:uint8, c:bytes",
        "q:bytes repr=seq, n:uint8, r:bytes repr=seq",
        "n:int32 nullable=true, s:string nullable=true, c:char nullable=2",
        "d:float64 nullable=2, b:bytes nullable=true, v:variant nullable=true",
        "q:bytes repr=seq nullable=2, t:bool nullable=true, f:float32 nullable=2",
    )
    examples: ClassVar[int] = 25

    def property_settings(self) -> settings:
        return settings(max_examples=self.examples)


#: strings full of U+0000 (and the bytes around it), most of them prefixes of one another
NUL_TEXT = st.text(st.sampled_from(["\x00", "a", "\x01", "é"]), max_size=4) | st.text(max_size=3)


class TestStorekeyStringsWithNul(CodecConformance):
    codec = CODEC
    schemas = (
        "s:string, t:string",
        "s:string, n:uint8, t:string nullable=true",
        "s:string nullable=2, q:bytes repr=seq",
    )
    value_strategies: ClassVar[Overrides] = {"string": NUL_TEXT}
    examples: ClassVar[int] = 40

    def property_settings(self) -> settings:
        return settings(max_examples=self.examples)


def test_strings_with_nul_are_what_the_anomalies_explain() -> None:
    """The string anomalies explain the pairs U+0000 spoils, and not the pairs it does not."""
    from lexcodecs.schema import KeySchema

    caps = CODEC.capabilities
    schema = KeySchema.parse("s:string, t:string")
    spoiled = (("a", "z"), ("a\x00", ""))  # 'a' then 00: 61 00 7a 00 > 61 00 00 00
    assert CODEC.encode(spoiled[0], schema) > CODEC.encode(spoiled[1], schema)
    assert caps.explained(("order",), schema, *spoiled) is not None
    assert caps.explained(("collision",), schema, ("a\x00b", ""), ("a", "b\x00")) is not None
    # a U+0000 after the first difference, or in an earlier equal field, explains nothing
    assert caps.explained(("order", "collision"), schema, ("a", "x\x00"), ("b", "y")) is None
    assert caps.explained(("order", "collision"), schema, ("a\x00", "a"), ("a\x00", "b")) \
        is None
    assert caps.explained(("round-trip",), schema, ("a", "b"), ()) is None
