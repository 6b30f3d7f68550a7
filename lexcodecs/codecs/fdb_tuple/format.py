"""The FoundationDB tuple layer's format: type codes, limits and per-type tables.

Theory of operation: a key is ``prefix ‖ enc(v1) ‖ … ‖ enc(vn)``. Every element starts with a
type code that also says how long the element is, so elements are self-delimiting and keys
sort by type code first, then by value (spec ``fdb-tuple.md`` §2)::

    00 null          01 bytes      02 string     05 nested tuple (ends with a bare 00;
    0b..13 negative ints      14 zero      15..1d positive ints          null inside: 00 ff)
    20 binary32      21 binary64   26 false      27 true    30 UUID     33 versionstamp

* **Bytes and strings** (01, 02): the data with every ``00`` written as ``00 ff``, then a
  ``00``. ``ff`` never starts an element, so a ``00`` followed by ``ff`` is an escape.
* **Integers**: 14 is zero; ``14 + n`` is a positive magnitude in ``n`` (1..8) big-endian
  bytes; ``14 - n`` a negative one, written as ``2**(8n) - 1 - |v|`` (ones' complement) so
  that it sorts. 1d and 0b are the arbitrary-precision forms: a length byte (ones'
  complemented for 0b), then the magnitude, up to 255 bytes. fdb.tuple writes ±(2**64-1) in
  that long form, the Java and Go bindings in the 8-byte form (option ``max_u64_form``).
  Readers accept every form any binding writes, non-minimal ones included.
* **Floats** (20, 21): the IEEE bits big-endian; a value with the sign bit clear has it set,
  one with the sign bit set has every bit inverted. NaN payloads and -0.0 are kept.
* **UUID** (30): 16 bytes, network order. **Versionstamp** (33): 10 bytes of transaction
  version (``ff`` × 10: incomplete, filled in at commit) and a 2-byte user version.
* **Nested tuple** (05): the elements, then ``00``; a null inside is ``00 ff``. Nesting is
  limited (option ``max_depth``, :data:`MAX_DEPTH` by default) on both encode and decode.

A bound schema is a tuple-layer key whose elements are checked against their fields: each
field type takes the type codes of :data:`FIELD_CODES` (and ``00``, null, in every field);
the fixed-width integer fields check the value's range too.
"""

from __future__ import annotations

from typing import Final

from ...types import INT_TYPES

__all__ = [
    "BYTES",
    "DEPTH_CEILING",
    "DOUBLE",
    "FALSE",
    "FIELD_CODES",
    "FIELD_KINDS",
    "FIXED_LIMIT",
    "FLOAT",
    "INT_CODES",
    "INT_LIMIT",
    "INT_ZERO",
    "KIND_BOOL",
    "KIND_BYTES",
    "KIND_FLOAT32",
    "KIND_FLOAT64",
    "KIND_INT",
    "KIND_OF_CODE",
    "KIND_STRING",
    "KIND_TUPLE",
    "KIND_UUID",
    "MAX_DEPTH",
    "NAME",
    "NEG_BIG",
    "NESTED",
    "NULL",
    "POS_BIG",
    "RESERVED",
    "STRING",
    "TRUE",
    "UUID",
    "VERSIONSTAMP",
]

NAME: Final = "fdb-tuple"

# -- type codes -----------------------------------------------------------------------------

NULL, BYTES, STRING, NESTED = 0x00, 0x01, 0x02, 0x05
NEG_BIG, INT_ZERO, POS_BIG = 0x0B, 0x14, 0x1D
FLOAT, DOUBLE, FALSE, TRUE, UUID, VERSIONSTAMP = 0x20, 0x21, 0x26, 0x27, 0x30, 0x33

#: every integer code, the long forms included
INT_CODES: Final = frozenset(range(NEG_BIG, POS_BIG + 1))

# -- limits ---------------------------------------------------------------------------------

#: largest magnitude written in the fixed 1..8-byte forms, per ``max_u64_form``
FIXED_LIMIT: Final = {"python": 2**64 - 2, "java": 2**64 - 1}
#: ±(2**2040 - 1): a 255-byte magnitude, the most a length byte can say
INT_LIMIT: Final = 2**2040 - 1

#: the default of the ``max_depth`` option: how many tuples deep a nested tuple may sit (a
#: top-level element is at depth 0, the elements of a nested tuple at depth 1). Real tuple-layer
#: keys nest a level or two (the directory and record layers use flat or once-nested keys), so
#: 64 is far above anything legitimate; it is the default depth of .NET's CBOR reader and the
#: compiled module's recursion bound (``_compiled.pyx``), so no valid key leaves the compiled
#: path; and it keeps decoded values far inside Python's recursion limit (1000), which
#: ``==``, ``repr``, ``hash`` and ``pickle`` of a nested tuple recurse against (a 200,000-deep
#: tuple crashes the interpreter on ``hash``; a 10,000-deep one raises RecursionError).
MAX_DEPTH: Final = 64
#: the largest ``max_depth`` allowed: the reference encoder recurses (two frames a level), so
#: a deeper limit would meet Python's recursion limit instead of a clear EncodeError, and
#: values this deep are still safe to compare, print, hash and pickle
DEPTH_CEILING: Final = 256

# -- per-code tables ------------------------------------------------------------------------

#: codes that are not elements, and why (the reader's error message)
RESERVED: Final = {
    0x03: "deprecated nested tuple code", 0x04: "deprecated nested tuple code",
    0x0A: "reserved type code (negative arbitrary precision)",
    0x1E: "reserved type code (positive arbitrary precision)",
    0x22: "reserved type code (80-bit float)", 0x23: "reserved type code (decimal)",
    0x24: "reserved type code (decimal)", 0x25: "deprecated true code",
    0x31: "reserved type code (64-bit identifier)",
    0x32: "reserved type code (80-bit versionstamp)",
    0x34: "reserved type code (length-prefixed bytes)",
    0x35: "reserved type code (length-prefixed bytes)",
    **{c: "user type code" for c in range(0x40, 0x50)},
    0xF0: "reserved type code (end of tuple)",
    0xFF: "ff is an escape byte, not a type code",
}

#: type code -> the kind of value it holds (an element's kind when there is no schema)
KIND_OF_CODE: Final = {
    NULL: "null", BYTES: "bytes", STRING: "string", NESTED: "tuple",
    **{c: "int" for c in INT_CODES}, FLOAT: "float32", DOUBLE: "float64", FALSE: "bool",
    TRUE: "bool", UUID: "uuid", VERSIONSTAMP: "versionstamp",
}

# -- per-field tables -----------------------------------------------------------------------

#: field type -> the type codes its elements may have (null, 00, is allowed in every field)
FIELD_CODES: Final[dict[str, frozenset[int]]] = {
    "string": frozenset({STRING}),
    "bytes": frozenset({BYTES}),
    "bool": frozenset({FALSE, TRUE}),
    **{t: INT_CODES for t in (*INT_TYPES, "int")},
    "float32": frozenset({FLOAT}),
    "float64": frozenset({DOUBLE}),
    "uuid": frozenset({UUID}),
    "tuple": frozenset({NESTED}),
}

#: a field's kind in the compiled module's plan; the integer fields share one and carry their
#: range beside it
KIND_STRING, KIND_BYTES, KIND_BOOL, KIND_INT = 1, 2, 3, 4
KIND_FLOAT32, KIND_FLOAT64, KIND_UUID, KIND_TUPLE = 5, 6, 7, 8
#: field type -> its kind
FIELD_KINDS: Final[dict[str, int]] = {
    "string": KIND_STRING, "bytes": KIND_BYTES, "bool": KIND_BOOL, "float32": KIND_FLOAT32,
    "float64": KIND_FLOAT64, "uuid": KIND_UUID, "tuple": KIND_TUPLE,
    **{t: KIND_INT for t in (*INT_TYPES, "int")},
}
