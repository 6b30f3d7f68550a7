"""Each built-in codec's key fields as data, for the columnar kernel (``_kernel.pyx``).

Theory of operation: for the codecs in :data:`CODECS`, a key is its fields' pieces laid end to
end (with ``00`` between them for LexKey), and a field's piece depends on that field's value
alone. Most pieces share one shape, which is why they are data here and not code:

    piece = prefix (tag bytes) ‖ body (the value, by a writer kind) ‖ suffix (terminator)
    descending: the whole piece inverted;    NULL: fixed bytes, never inverted

:func:`piece_of` gives a field's :class:`Piece` (``None``: the kernel does not write this
field type for this codec, and the whole batch goes through the row API). The bytes of a NULL
are what the row API writes for that field alone, asked once per batch (:func:`null_bytes`),
except orderly's, which are tabled here because they depend on the fields after them: a
NULL is written only before a non-empty field (its termination rule, ``CodecPieces.tail``).

Writers with their own shape are named for their codec (fdb-tuple's variable-length ints,
orderly's var-ints, sqlite4's base-100 numbers); ``_kernel.pyx`` documents each one.

==============  ====================================================================
codec           fields the kernel writes (anything else: the row API)
==============  ====================================================================
skv             int16..64 (``TYPE SIGN PAYLOAD 00 01``), uint16..64, float32/64, bool,
                string and bytes (``01``, ``00`` escaped ``00 ff``, ``00 01``)
fdb-tuple       every int type and ``int``, float32 (``20``), float64 (``21``), bool,
                string (``02``) and bytes (``01``), ``00`` escaped ``00 ff``, then ``00``
lexkey          ints at 64 bits (sign bit flipped), floats widened, bool (``00``/``01``),
                timestamp and duration (int64 ns), string and bytes raw
lexkey-legacy   the same, ints and float32 at their native width
orderly         var-int int32/int64/uint32/uint64, float32/64 (order transform + 1),
                string (UTF-8 bytes + 2, ``01`` unless last), bytes (packed BCD)
sqlite4         every int type and ``int``, float64 (the digits of its shortest repr),
                string (``24`` UTF-8 ``00``), bytes (``25``, 7-bit groups, ``00``)
==============  ====================================================================
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

import attrs

from ..codec import Codec
from ..codecs.fdb_tuple import format as fdb
from ..codecs.lexkey import format as lexkey
from ..codecs.orderly import format as orderly
from ..codecs.skv import format as skv
from ..errors import LexCodecError
from ..schema import Field, KeySchema
from ..types import INT_TYPES

__all__ = ["CODECS", "FLAGS", "SOURCES", "WRITERS", "CodecPieces", "Piece", "null_bytes",
           "piece_of"]

#: Arrow type (``str(type)``) -> how the kernel reads its buffers (times: ``arrow.py``)
SOURCES: Final[dict[str, int]] = {
    "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6, "uint32": 7,
    "uint64": 8, "float": 9, "double": 10, "bool": 11,
    "string": 12, "binary": 12, "large_string": 13, "large_binary": 13,
}
#: the source kinds of each family: which writers a column of that kind may feed
INT_SOURCES: Final = frozenset(range(1, 9))
F32_SOURCE, F64_SOURCE, BOOL_SOURCE = 9, 10, 11
TEXT_SOURCES: Final = frozenset({12, 13})
#: a time column: int64 in its unit (timestamp, duration), int32 days (date32)
TIME64_SOURCE, TIME32_SOURCE = 14, 15

#: the kernel's writer kinds (``W_*`` in ``_kernel.pyx``)
WRITERS: Final[dict[str, int]] = {
    "be": 1, "skv_int": 2, "fdb_int": 3, "varint": 4, "sqlite4_int": 5, "float": 6,
    "sqlite4_float": 7, "bool": 8, "bytes": 9,
}
INT_WRITERS: Final = frozenset({1, 2, 3, 4, 5})
#: writer kind -> the most body bytes it writes (None: the piece's width): an fdb-tuple int
#: is a code and up to 8 bytes, an orderly var-int at most 9, a sqlite4 integer a header and
#: 10 centimal digits, a sqlite4 float a header, an exponent varint and at most 10 digits; a
#: string's width is what it writes beside its data (the kernel adds the data's bytes)
BODY_MAX: Final[dict[int, int | None]] = {1: None, 2: None, 3: 9, 4: 9, 5: 11, 6: None,
                                          7: 16, 8: 1, 9: None}
FLOAT_WRITERS: Final = frozenset({6, 7})

#: the kernel's flags (``F_*``)
FLAGS: Final[dict[str, int]] = {
    "signflip": 1, "invert": 2, "literal": 4, "plus1": 8, "float32": 16, "signed": 32,
    "escape00": 64, "refuse00": 128, "plus2": 256, "term_last": 512, "seven": 1024,
    "bcd": 2048,
}

INT64_MIN: Final = -(2**63)
UINT64_MAX: Final = 2**64 - 1
#: a var-int layout the kernel reads but an int writer does not use
NO_LAYOUT: Final = (0, 0, 0, 0, 0)


@attrs.frozen
class Piece:
    """One field's piece: ``prefix ‖ writer(value) ‖ suffix``, inverted when ``invert``.

    ``lo``/``hi`` bound an int field (a value outside is declined: the row API words the
    refusal); ``bools`` are the bytes of false and true; ``layout`` an orderly var-int's
    header bits (single, double, length-field width, extended, longest form)."""

    writer: int
    width: int = 0
    flags: int = 0
    prefix: bytes = b""
    suffix: bytes = b""
    lo: int = INT64_MIN
    hi: int = UINT64_MAX
    bools: tuple[int, int] = (0, 1)
    layout: tuple[int, int, int, int, int] = NO_LAYOUT
    #: a NULL's bytes when the codec tables them (else the row API's, asked once)
    null: bytes | None = None
    #: the value is a time (timestamp, duration): int64 nanoseconds of whole microseconds
    time: bool = False

    @property
    def max_length(self) -> int:
        """The most bytes this piece takes (the kernel sizes its buffer by it)."""
        body = BODY_MAX[self.writer]
        sign = 1 if self.writer == WRITERS["skv_int"] else 0
        return len(self.prefix) + (self.width + sign if body is None else body) + \
            len(self.suffix)

    def descending(self, yes: bool) -> Piece:
        if not yes:
            return self
        null = None if self.null is None else bytes(b ^ 0xFF for b in self.null)
        return attrs.evolve(self, flags=self.flags | FLAGS["invert"], null=null)


def _int_range(field_type: str) -> tuple[int, int]:
    cls = INT_TYPES.get(field_type)
    return (INT64_MIN, UINT64_MAX) if cls is None else (cls.min, cls.max)


# -- per codec: field -> piece ---------------------------------------------------------------


def _skv(field: Field) -> Piece | None:
    fmt = skv.FORMATS.get(field.type)
    if fmt is None:
        return None
    tag, end = bytes((fmt.type_byte,)), skv.TERMINATOR
    if field.type in ("string", "bytes"):
        piece = Piece(WRITERS["bytes"], 0, FLAGS["escape00"], tag, end)
    elif fmt.signed is not None:
        piece = Piece(WRITERS["skv_int"], fmt.width, 0, tag, end, fmt.lo, fmt.hi)
    elif field.type == "bool":
        piece = Piece(WRITERS["bool"], 1, 0, tag, end)
    elif field.type in ("float32", "float64"):
        flags = FLAGS["float32"] if field.type == "float32" else 0
        piece = Piece(WRITERS["float"], fmt.width, flags, tag, end)
    else:
        piece = Piece(WRITERS["be"], fmt.width, 0, tag, end, fmt.lo, fmt.hi)
    return piece.descending(field.descending)


def _fdb(field: Field) -> Piece | None:
    t = field.type
    if t in INT_TYPES or t == "int":
        return Piece(WRITERS["fdb_int"], 0, 0, b"", b"", *_int_range(t))
    if t == "bool":
        return Piece(WRITERS["bool"], 1, bools=(fdb.FALSE, fdb.TRUE))
    if t == "float32":
        return Piece(WRITERS["float"], 4, FLAGS["float32"], bytes((fdb.FLOAT,)))
    if t == "float64":
        return Piece(WRITERS["float"], 8, 0, bytes((fdb.DOUBLE,)))
    if t in ("string", "bytes"):
        tag = fdb.STRING if t == "string" else fdb.BYTES
        return Piece(WRITERS["bytes"], 0, FLAGS["escape00"], bytes((tag,)), b"\x00")
    return None


def _lexkey(native: bool) -> Callable[[Field], Piece | None]:
    def piece(field: Field) -> Piece | None:
        fmt = lexkey.FIELD_FORMATS.get(field.type)
        if fmt is None:
            return None
        width = fmt.width(native) or 0
        if fmt.kind in (lexkey.KIND_SIGNED, lexkey.KIND_UNSIGNED) and field.type != "int":
            flip = FLAGS["signflip"] if fmt.kind == lexkey.KIND_SIGNED else 0
            return Piece(WRITERS["be"], width, flip, b"", b"", *_int_range(field.type))
        if fmt.kind == lexkey.KIND_SIGNED:  # int: an int64
            return Piece(WRITERS["be"], 8, FLAGS["signflip"], b"", b"", INT64_MIN, 2**63 - 1)
        if fmt.kind in (lexkey.KIND_FLOAT32, lexkey.KIND_FLOAT64):
            narrow = FLAGS["float32"] if width == 4 else 0
            return Piece(WRITERS["float"], width, FLAGS["literal"] | narrow)
        if fmt.kind == lexkey.KIND_BOOL:
            return Piece(WRITERS["bool"], 1)
        if fmt.kind in (lexkey.KIND_TIMESTAMP, lexkey.KIND_DURATION):
            return Piece(WRITERS["be"], 8, FLAGS["signflip"], b"", b"", INT64_MIN, 2**63 - 1,
                         time=True)
        if fmt.kind in (lexkey.KIND_STRING, lexkey.KIND_BYTES):
            return Piece(WRITERS["bytes"])
        return None
    return piece


def _orderly(field: Field) -> Piece | None:
    t = field.type
    lay = orderly.VARINTS.get(t)
    if lay is not None:
        flags = FLAGS["signed"] if lay.signed else 0
        piece = Piece(WRITERS["varint"], 0, flags, b"", b"", lay.lo, lay.hi,
                      layout=(lay.s, lay.d, lay.lb, lay.e, lay.max_length), null=b"\x00")
    elif t in orderly.FLOATS:
        width = orderly.FLOATS[t][0]
        flags = FLAGS["plus1"] | (FLAGS["float32"] if width == 4 else 0)
        piece = Piece(WRITERS["float"], width, flags, null=bytes(width))
    elif t == "string":
        # UTF-8 + 2, then 01 -- left out by the last non-empty ascending field
        piece = Piece(WRITERS["bytes"], 0, FLAGS["plus2"] | FLAGS["term_last"], b"", b"\x01",
                      null=b"\x00")
    elif t == "bytes":  # packed BCD, terminator nibbles to fill (one byte when empty)
        piece = Piece(WRITERS["bytes"], 1, FLAGS["bcd"], null=b"\x00")
    else:
        return None
    return piece.descending(field.descending)


def _sqlite4(field: Field) -> Piece | None:
    t = field.type
    if t in INT_TYPES or t == "int":
        piece = Piece(WRITERS["sqlite4_int"], 0, 0, b"", b"", *_int_range(t))
    elif t == "float64":
        piece = Piece(WRITERS["sqlite4_float"], 8)
    elif t == "string":  # text ends at its 00: a 00 inside is refused (the row API says so)
        piece = Piece(WRITERS["bytes"], 0, FLAGS["refuse00"], b"\x24", b"\x00")
    elif t == "bytes":  # 7-bit groups, high bit set, then 00
        piece = Piece(WRITERS["bytes"], 0, FLAGS["seven"], b"\x25", b"\x00")
    else:
        return None
    return piece.descending(field.descending)


@attrs.frozen
class CodecPieces:
    """A built-in codec as the kernel sees it: the bytes between two fields, each field's
    piece, and whether a NULL is written only before a non-empty field (orderly's *tail*
    rule: a trailing run of ascending NULLs writes nothing, ``_rows`` in the kernel)."""

    separator: bytes
    piece: Callable[[Field], Piece | None]
    tail: bool = False


#: registry name -> how the kernel writes it (default options only)
CODECS: Final[dict[str, CodecPieces]] = {
    "skv": CodecPieces(b"", _skv),
    "fdb-tuple": CodecPieces(b"", _fdb),
    "lexkey": CodecPieces(lexkey.SEP, _lexkey(native=False)),
    "lexkey-legacy": CodecPieces(lexkey.SEP, _lexkey(native=True)),
    "orderly": CodecPieces(b"", _orderly, tail=True),
    "sqlite4": CodecPieces(b"", _sqlite4),
}


@functools.cache
def piece_of(name: str, field: Field) -> Piece | None:
    """*field*'s piece under codec *name*, or None (field options: always the row API).
    Kept per (codec, field): ``encode_arrow`` asks for each field on each call."""
    table = CODECS.get(name)
    if table is None or field.options:
        return None
    return table.piece(field)


def null_bytes(codec: Codec, field: Field, piece: Piece) -> bytes | None:
    """A NULL's bytes in *field*: the piece's own, else what the row API writes for a NULL
    in *field* alone (None: it refuses one, and a row holding one is declined)."""
    if piece.null is not None:
        return piece.null
    try:
        return codec.bind(KeySchema((field,))).encode((None,))
    except LexCodecError:  # the field refuses NULL: the row API words it, row by row
        return None
