"""The Arrow side of the columnar kernel's plan: how it reads a column's buffers, and which
piece a field gets.

Theory of operation: a codec declares how the kernel writes its keys (``codec.columnar()``,
in the vocabulary of :mod:`lexcodecs.pieces`: each field's piece, the separator, the tail
rule); a built-in codec declares it in its own ``codec.py``, and a plugin may too. This module
holds what the kernel reads (:data:`SOURCES`: an Arrow type's buffers, ``_kernel.pyx``'s
``S_*``), :func:`piece_of` (a field's piece, kept per declaration and field; a field with
options always goes through the row API) and :func:`null_bytes` (a NULL's bytes: the
piece's own when the codec tables them, else what the row API writes for a NULL in that field
alone, asked once per batch).

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
orderedcode     int64 (k one-bits, a zero, the value), uint64 (length, big-endian),
                float64 (the int64 of its bits), string and bytes (``00`` and ``ff``
                escaped, then ``00 01``)
ordered-binary  arrays of two values or more, no longer than lmdb-js's buffer: ``int`` (the
                double it equals, or the double nearer zero and the BigInt remainder),
                float64 (``1 ‖ u ‖ 0``), bool (``06``/``07``), string (``1b`` prefix, short
                ones ``04``-escaped), bytes (raw)
hbase-          int8..64 (``29``..``2c``, sign bit flipped), float32/64 (``30``/``31``),
orderedbytes    ``int`` (sqlite4's base-100 integer), string (``34`` UTF-8 ``00``),
                bytes (BlobVar: ``37``, 7-bit groups, the last with bit 7 clear)
==============  ====================================================================
"""

from __future__ import annotations

import functools
from typing import Final

from ..codec import Codec
from ..errors import LexCodecError
from ..pieces import CodecPieces, Piece
from ..schema import Field, KeySchema

__all__ = ["SOURCES", "declared", "null_bytes", "piece_of"]

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


def declared(codec: Codec, fields: int = 0) -> CodecPieces | None:
    """What *codec* declares of its columnar layout (``codec.columnar()``), for a schema of
    *fields* fields when given (:meth:`~lexcodecs.pieces.CodecPieces.for_fields`), or None:
    it declares nothing (a plugin need not), or not for its options, or the declaration is
    not a :class:`~lexcodecs.pieces.CodecPieces`."""
    columnar = getattr(codec, "columnar", None)
    if columnar is None:
        return None
    pieces = columnar()
    if not isinstance(pieces, CodecPieces):
        return None
    return pieces.for_fields(fields) if fields else pieces


@functools.cache
def piece_of(pieces: CodecPieces, field: Field) -> Piece | None:
    """*field*'s piece under the declaration *pieces*, or None (a field option the
    declaration does not name, ``CodecPieces.options``: always the row API). Kept per
    (declaration, field): ``encode_arrow`` asks for each field on each call."""
    if any(name not in pieces.options for name in field.options):
        return None
    piece = pieces.piece(field)
    return piece if isinstance(piece, Piece) else None


def null_bytes(codec: Codec, field: Field, piece: Piece) -> bytes | None:
    """A NULL's bytes in *field*: the piece's own, else what the row API writes for a NULL
    in *field* alone (None: it refuses one, and a row holding one is declined)."""
    if piece.null is not None:
        return piece.null
    try:
        return codec.bind(KeySchema((field,))).encode((None,))
    except LexCodecError:  # the field refuses NULL: the row API words it, row by row
        return None
