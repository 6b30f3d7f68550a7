"""The ``storekey`` format: SurrealDB's storekey crate **0.5.0** (what every SurrealDB 2.x
writes its keys with), as constants and tables.

Theory of operation: storekey 0.5 is a serde data format. A key is one serde tuple of its
fields, and a tuple is its fields written back to back: no header, no separators, no type
bytes, so the reader must know the types (a schema). Each field is written as its Rust type
says (spec ``storekey.md`` §2-§4)::

    bool            00 false, 01 true
    u8 .. u64       big-endian                                   u64 5  -> 00 00 00 00 00 00 00 05
    i8 .. i64       big-endian, sign bit flipped                 i16 -2 -> 7f fe
    f32 / f64       the bits; sign 0: sign bit set; sign 1: every bit inverted
                                                                 1.0    -> bf f0 00 00 00 00 00 00
    variant         the enum variant index, u32 big-endian       2      -> 00 00 00 02
    String          UTF-8, then 00 (no escaping)                 "a"    -> 61 00
    char            UTF-8, then 00 (U+0000 refused)              '€'    -> e2 82 ac 00
    bytes           u64 big-endian length, then the raw bytes    [1,2]  -> 00 .. 00 02 01 02
    Vec<u8> (seq)   the elements, then 01                        [5, 0] -> 05 00 01
    Option<T>       None 00; Some(x) 01 then x                   Some(5u8) -> 01 05
    Option<Option<T>>  None 00; Some(None) 01 00; Some(Some(x)) 01 01 then x

      +--------+----------------------+-----------------+------------------+
      | 01     | 61 64 69 c3 b3 73 00 | 80 00 00 07     | 00 .. 00 01  ff  |
      | Some   | "adiós" and its 00   | i32 7, sign set | bytes: len 1, ff |
      +--------+----------------------+-----------------+------------------+
        name: Option<String>,            n: i32           b: serde_bytes

There is no descending order, and NULL is Rust's ``Option`` only (the field option
``nullable``: ``true`` for ``Option<T>``, ``2`` for ``Option<Option<T>>``; NULL sorts first).
``i128``/``u128`` are refused (storekey 0.5 has none: serde's default refusal).

Where byte order is value order: bool, integers, floats under the IEEE total order (-0.0 and
+0.0 distinct, NaN payloads kept: a negative NaN below -inf, a positive one above +inf),
``Option`` (NULL first), chars, and strings without U+0000. Where it is not (spec §3, the
declared anomalies): a string holding U+0000 is written raw, so its 00 reads as the end
(collisions, no round trip, order and prefix ranges broken); bytes sort by length first; a
sequence ends at the first element byte 01, and an element 00 sorts below the end marker
(``[0]`` < ``[]``).

Decoding is ``storekey::deserialize`` (spec §6), lenient where it is: any non-zero bool byte is
true, a char field takes the first character of a longer string, a sequence may end at the end
of the input. The reference ignores bytes after the last field: ``parse`` returns them, and
``decode`` refuses them (:class:`~lexcodecs.errors.DecodeError`, "bytes left after the last
field"). Everything the reference refuses is a ``DecodeError`` with an offset.

How the package is laid out: this module is the format as data. ``reference_encode.py``
writes it and ``reference_decode.py`` reads it in plain Python (the executable spec, and the
only code that words an error); ``codec.py`` binds a schema into one :class:`FieldCode` per
field (plain data: the compiled module ``_compiled.pyx`` is built from the same rows, writes
through ``_layout.pxi``, and hands anything unusual to the reference code).
"""

from __future__ import annotations

from typing import Final, NamedTuple

NAME: Final = "storekey"

# -- tags and markers (spec §2-§4) ----------------------------------------------------------

#: an Option's tags: None, Some
OPTION_NONE, OPTION_SOME = 0x00, 0x01
#: an Option tag byte -> whether a value (or a deeper layer) follows; any other byte is refused
OPTION_TAGS: Final[dict[int, bool]] = {OPTION_NONE: False, OPTION_SOME: True}
#: bool bytes the encoder writes (the decoder reads any non-zero byte as true)
BOOL_FALSE, BOOL_TRUE = 0x00, 0x01
#: ends a string or a char
STRING_END = 0x00
#: ends a sequence (repr=seq): read where an element would start
SEQ_END = 0x01
#: the width of a bytes field's length (u64 big-endian)
LENGTH_WIDTH = 8
#: the width of an enum variant index (u32 big-endian)
VARIANT_WIDTH = 4

# -- fields ---------------------------------------------------------------------------------

#: field kinds: the plan data of a field (the compiled module reads the same numbers)
KIND_BOOL, KIND_UINT, KIND_INT, KIND_FLOAT32, KIND_FLOAT64 = 0, 1, 2, 3, 4
KIND_STRING, KIND_CHAR, KIND_BYTES, KIND_SEQ = 5, 6, 7, 8

#: field type -> (kind, width in bytes: fixed-width kinds only)
FIELD_KINDS: Final[dict[str, tuple[int, int]]] = {
    "bool": (KIND_BOOL, 1),
    "int8": (KIND_INT, 1), "int16": (KIND_INT, 2), "int32": (KIND_INT, 4),
    "int64": (KIND_INT, 8),
    "uint8": (KIND_UINT, 1), "uint16": (KIND_UINT, 2), "uint32": (KIND_UINT, 4),
    "uint64": (KIND_UINT, 8),
    "variant": (KIND_UINT, VARIANT_WIDTH),
    "float32": (KIND_FLOAT32, 4), "float64": (KIND_FLOAT64, 8),
    "string": (KIND_STRING, 0), "char": (KIND_CHAR, 0), "bytes": (KIND_BYTES, 0),
}

#: field types storekey 0.5 refuses (serde's default ``serialize_i128``/``u128``), with the
#: Rust type and the crate's words
REFUSED_TYPES: Final[dict[str, str]] = {
    "int128": "i128 is not supported", "uint128": "u128 is not supported"}

#: field type -> its Rust type, for messages and ``inspect``
RUST_TYPES: Final[dict[str, str]] = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "variant": "enum variant (u32)", "float32": "f32", "float64": "f64", "string": "String",
    "char": "char", "bytes": "serde_bytes", "bytes repr=seq": "Vec<u8>",
}

#: the ``repr`` field option's values: serde_bytes, or a plain Vec<u8> (a sequence)
REPR_BYTES, REPR_SEQ = "bytes", "seq"


class FieldCode(NamedTuple):
    """The plan data of one field: its kind, width (fixed-width kinds) and Option layers."""

    kind: int
    width: int
    layers: int

    @property
    def signed(self) -> bool:
        return self.kind == KIND_INT

    @property
    def lo(self) -> int:
        """The smallest value of an integer kind."""
        return -(1 << (8 * self.width - 1)) if self.kind == KIND_INT else 0

    @property
    def hi(self) -> int:
        """The largest value of an integer kind."""
        bits = 8 * self.width - (1 if self.kind == KIND_INT else 0)
        return (1 << bits) - 1


def field_code(field_type: str, seq: bool, layers: int) -> FieldCode:
    """The plan data of a field the codec has checked (*seq*: ``repr=seq`` on bytes)."""
    kind, width = FIELD_KINDS[field_type]
    return FieldCode(KIND_SEQ if seq else kind, width, layers)
