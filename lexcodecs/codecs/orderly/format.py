"""The ``orderly`` format: Orderly's HBase row keys, byte-identical with the Java library.

Theory of operation: a key is an Orderly *struct*: the fields' encodings laid end to end, no
separators, no lengths. Each field type is one Java ``RowKey`` class (spec §14.2); its bytes
depend on the value, the field's *effective order* (declared, flipped by ``struct_order=desc``)
and one bit, ``t``: whether the field must write the bytes needed only when something follows
it (a NULL byte, a string terminator, ...). ``t`` comes from the field's *termination*:
``MUST`` -> true, ``SHOULD_NOT`` -> false, ``AUTO`` -> true exactly when descending (in
ascending order the end of the key is a fine terminator; in descending order it sorts at the
wrong end). The struct assigns terminations back to front (spec §11.3): the last non-empty
field gets the struct's termination, every field before it ``MUST``, and a trailing run of
empty fields disappears.

Descending is the ascending bytes XOR ``ff`` (one strategy for every type: write ascending,
invert the field), except the *reserved bits* at the top of a var-int header, which are never
inverted. ``decimal`` complements its exponent and digits for negative numbers, as part of
its ascending form. The types (spec §5-§10):

* var-ints (int32/int64/uint32/uint64, the default encoding): a header byte holding the sign,
  the length and the top data bits, then big-endian data bytes; 1..9 bytes, NULL ``00``;
* fixed ints: big-endian, sign bit flipped; no NULL;
* float32/float64: the IEEE order transform plus one, so NULL can be all zeros;
* decimal: an int32-layout var-int exponent whose two reserved bits hold the type
  (NULL/NEG/ZERO/POS), then BCD digits ``c+1`` with a zero-nibble terminator;
* string: each UTF-8 byte plus 2, terminator ``01``, NULL ``00``;
* bytes: fixed length raw, or variable-length "reversed packed BCD" (3 decimal digits per byte,
  digit nibbles 3..f, terminator nibble 1) after an optional raw prefix.

Decoding needs the schema (the format is not self-describing) and is strict: a field decodes
only when its bytes are what the encoder writes for the decoded value, terminated, or
unterminated at the end of the key. ``skip`` and ``serialized_length`` are Orderly's own
``RowKey`` operations, as public API.

How the package is laid out: this module is the format as data, the tables both
implementations read. The reference Python (the executable spec, and the only code that words
an error) is one field codec class per Java ``RowKey`` class, each writing and reading its own
type (a reader checks what it read by writing the value again), so it is split by value type,
not by direction: ``reference_field.py`` (the base class, its sink and the shared helpers),
``reference_numbers.py`` (var-ints, fixed ints, floats), ``reference_decimal.py`` (decimal)
and ``reference_bytes.py`` (strings and byte arrays). ``bound.py`` is the reference struct of
a bound schema (terminations, the ``RowKey`` operations) and ``codec.py`` binds a schema into
it. The compiled module (``_compiled.pyx``, with its writers in ``_write.pxi``, its readers in
``_read.pxi`` and the bytes of a var-int, a string and variable-length bytes in
``_layout.pxi``) does the same work in Cython and checks at import that its kind numbers are
these. ``explain.py`` words ``inspect``; ``anomalies.py`` declares the quirks.
"""

from __future__ import annotations

from typing import Final

import attrs

NAME: Final = "orderly"

AUTO, MUST, SHOULD_NOT = "AUTO", "MUST", "SHOULD_NOT"
TERMINATIONS: Final = (AUTO, MUST, SHOULD_NOT)
#: the terminations as the compiled plan numbers them
T_AUTO, T_MUST, T_SHOULD_NOT = range(3)
TERMINATION_CODES: Final = {AUTO: T_AUTO, MUST: T_MUST, SHOULD_NOT: T_SHOULD_NOT}

# -- field kinds: (field type, encoding option) -> kind -------------------------------------
#
# One number per Java RowKey class; the reference picks its field codec class by kind and the
# compiled plan switches on it.

K_VARINT, K_FIXED_INT, K_FLOAT, K_DECIMAL, K_STRING, K_FIXED_BYTES, K_VAR_BYTES = range(7)
KINDS: Final[dict[tuple[str, str], int]] = {
    **{(t, "var"): K_VARINT for t in ("int32", "int64", "uint32", "uint64")},
    **{(t, "fixed"): K_FIXED_INT for t in ("int32", "int64", "uint32", "uint64")},
    ("float32", "var"): K_FLOAT, ("float64", "var"): K_FLOAT,
    ("decimal", "var"): K_DECIMAL,
    ("string", "var"): K_STRING,
    ("bytes", "fixed"): K_FIXED_BYTES, ("bytes", "var"): K_VAR_BYTES,
}

# -- var-int layouts (spec §5.1) ------------------------------------------------------------


@attrs.frozen
class VarIntLayout:
    """One var-int class: header data bits in the single (``s``), double (``d``) and
    extended (``e``) forms, the extended length-field width ``lb``, the longest form."""

    type: str
    signed: bool
    s: int
    d: int
    lb: int
    e: int
    max_length: int
    lo: int
    hi: int


VARINTS: Final[dict[str, VarIntLayout]] = {
    "int64": VarIntLayout("int64", True, 6, 5, 3, 2, 9, -(2**63), 2**63 - 1),
    "int32": VarIntLayout("int32", True, 6, 5, 2, 3, 5, -(2**31), 2**31 - 1),
    "uint64": VarIntLayout("uint64", False, 7, 6, 3, 3, 9, 0, 2**64 - 1),
    "uint32": VarIntLayout("uint32", False, 7, 6, 2, 4, 5, 0, 2**32 - 1),
}
#: the decimal exponent: the int32 layout, in a 64-bit variable (spec §8.1)
EXPONENT: Final = attrs.evolve(VARINTS["int32"], type="decimal exponent",
                               lo=-(2**63), hi=2**63 - 1)
#: the most reserved bits each var-int type allows (spec §14.2)
RESERVED_MAX: Final = {"int64": 2, "int32": 3, "uint64": 3, "uint32": 4}

# -- fixed ints and floats ------------------------------------------------------------------

#: fixed ints: width in bytes and range
FIXED_INTS: Final[dict[str, tuple[int, int, int]]] = {
    "int32": (4, -(2**31), 2**31 - 1), "int64": (8, -(2**63), 2**63 - 1),
    "uint32": (4, 0, 2**32 - 1), "uint64": (8, 0, 2**64 - 1),
}
#: floats: width in bytes and the canonical NaN every NaN is written as (spec §7)
FLOATS: Final[dict[str, tuple[int, int]]] = {
    "float32": (4, 0x7FC00000), "float64": (8, 0x7FF8000000000000),
}

# -- decimal (spec §8) ----------------------------------------------------------------------

#: decimal types in the two reserved bits of the exponent (spec §8.1)
DEC_NULL, DEC_NEG, DEC_ZERO, DEC_POS = 0, 1, 2, 3
DEC_TYPE_NAMES: Final = {DEC_NULL: "NULL", DEC_NEG: "NEG", DEC_ZERO: "ZERO", DEC_POS: "POS"}
#: Python's Decimal exponent range a Java int scale can hold (2**31 with the overflow quirk)
DEC_EXP_MIN, DEC_EXP_MAX = -(2**31 - 1), 2**31
#: the longest exponent var-int the Java code writes
DEC_EXP_MAX_LENGTH: Final = 5

# -- strings (spec §9) ----------------------------------------------------------------------

#: string bytes are UTF-8 + 2, leaving 00 (NULL) and 01 (terminator)
PLUS2: Final = bytes((b + 2) & 0xFF for b in range(256))
MINUS2: Final = bytes((b - 2) & 0xFF for b in range(256))

# -- variable-length bytes (spec §10.2) -----------------------------------------------------

#: decimal digit -> nibble; nibble 1 is the terminator, 0 2 8 b d are never written
DIGIT_NIBBLE: Final = (3, 4, 5, 6, 7, 9, 0xA, 0xC, 0xE, 0xF)
VARBYTES_TERMINATOR: Final = 1
#: a byte -> its three decimal digits as nibble hex characters ("ff" -> 255 -> "591")
BYTE_NIBBLES: Final = ["".join(f"{DIGIT_NIBBLE[int(c)]:x}" for c in f"{b:03d}")
                       for b in range(256)]
#: nibble hex characters back to decimal digits; the nibbles that are not digits -> "x"
NIBBLE_TO_DIGIT: Final = str.maketrans(
    {**{c: "x" for c in "0123456789abcdef"},
     **{f"{n:x}": str(d) for d, n in enumerate(DIGIT_NIBBLE)}})
