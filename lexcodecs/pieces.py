"""The vocabulary in which a codec declares the columnar layout of its keys: each field's
:class:`Piece` and the codec's :class:`CodecPieces`, written by the columnar kernel's writers.

Theory of operation: for a codec that declares one (``codec.columnar()``), a key is its
fields' pieces laid end to end (with :attr:`CodecPieces.separator` between them), and a
field's piece depends on that field's value alone. Most pieces share one shape, which is why
they are data and not code:

    piece = prefix (tag bytes) ‖ body (the value, by a writer kind) ‖ suffix (terminator)
    descending: the whole piece inverted;    NULL: fixed bytes, never inverted

A built-in codec declares its pieces in its own ``codec.py`` (``columnar()``, for its default
options: any other option is the row API's), and a plugin may declare them the same way with
the writers below; :func:`lexcodecs.columnar.encode_arrow` then writes whole Arrow columns
through the kernel (``lexcodecs/columnar/_kernel.pyx``, which documents each writer), and
:func:`lexcodecs.testing.check_columnar` checks that the declaration writes the row API's
bytes. A codec that declares nothing goes through its row API, a batch at a time.

Writers with their own shape are named for their codec (fdb-tuple's variable-length ints,
orderly's var-ints, orderedcode's items, sqlite4's floats) or for the layout codecs share
(``centimal_int``: the base-100 number of an integer, sqlite4's and HBase's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs

from .schema import Field
from .types import INT_TYPES

__all__ = ["BODY_MAX", "FLAGS", "FLOAT_WRITERS", "INT64_MIN", "INT_WRITERS", "NO_LAYOUT",
           "UINT64_MAX", "WRITERS", "CodecPieces", "Piece", "int_range"]

# -- the kernel's writer kinds and flags ----------------------------------------------------
# One table: the kernel cimports these constants from ``lexcodecs/_pieces_format.pxd``, which
# the build writes from this file (``lexcodecs/_pxdgen.py``), and a declaration names them by
# the dicts below. Writers are numbered the integers first, then the floats: the kernel
# dispatches by ``<=`` on them (W_LAST_INT, W_LAST_FLOAT), never by ``==`` chains.

W_BE: Final = 1
W_SKV_INT: Final = 2
W_FDB_INT: Final = 3
W_VARINT: Final = 4
W_OC_INT: Final = 5
W_OB_INT: Final = 6
W_CENT_INT: Final = 7
W_BW_INT: Final = 8
W_CW_INT: Final = 9
W_LAST_INT: Final = W_CW_INT
W_FLOAT: Final = 10
W_OC_FLT: Final = 11
W_OB_FLT: Final = 12
W_SQ4_FLT: Final = 13
W_BW_NUM: Final = 14
W_CW_NUM: Final = 15
W_LAST_FLOAT: Final = W_CW_NUM
W_BOOL: Final = 16
W_BYTES: Final = 17

#: writer name (a declaration's) -> kind
WRITERS: Final[dict[str, int]] = {
    "be": W_BE, "skv_int": W_SKV_INT, "fdb_int": W_FDB_INT, "varint": W_VARINT,
    "orderedcode_int": W_OC_INT, "ordered_binary_int": W_OB_INT, "centimal_int": W_CENT_INT,
    "bytewise_int": W_BW_INT, "charwise_int": W_CW_INT, "float": W_FLOAT,
    "orderedcode_float": W_OC_FLT, "ordered_binary_float": W_OB_FLT,
    "sqlite4_float": W_SQ4_FLT, "bytewise_number": W_BW_NUM, "charwise_number": W_CW_NUM,
    "bool": W_BOOL, "bytes": W_BYTES,
}
INT_WRITERS: Final = frozenset(range(W_BE, W_LAST_INT + 1))
FLOAT_WRITERS: Final = frozenset(range(W_FLOAT, W_LAST_FLOAT + 1))
#: writer kind -> the most body bytes it writes (None: the piece's width): an fdb-tuple int
#: is a code and up to 8 bytes, an orderly var-int at most 9, an orderedcode int64 10, an
#: ordered-binary integer 11 (a double's 9, a BigInt remainder's 2), a bytewise number 9 (a
#: tag and a double), a centimal integer a header and 10 centimal digits, a sqlite4 float a
#: header, an exponent varint and at most 10 digits, a charwise number its width (its
#: longest text, ``format.NUMBER_MAX``); a string's
#: width is what it writes beside its data (the kernel adds the data's bytes)
BODY_MAX: Final[dict[int, int | None]] = {
    W_BE: None, W_SKV_INT: None, W_FDB_INT: 9, W_VARINT: 9, W_OC_INT: 10, W_OB_INT: 11,
    W_CENT_INT: 11, W_BW_INT: 9, W_CW_INT: None, W_FLOAT: None, W_OC_FLT: 10,
    W_OB_FLT: 9, W_SQ4_FLT: 16, W_BW_NUM: 9, W_CW_NUM: None, W_BOOL: 1,
    W_BYTES: None,
}

F_SIGNFLIP: Final = 1
F_INVERT: Final = 2
F_LITERAL: Final = 4
F_PLUS1: Final = 8
F_FLOAT32: Final = 16
F_SIGNED: Final = 32
F_ESC00: Final = 64
F_NO00: Final = 128
F_PLUS2: Final = 256
F_TERM_LAST: Final = 512
F_SEVEN: Final = 1024
F_BCD: Final = 2048
F_SEVEN_LAST: Final = 4096
F_ESCFF: Final = 8192
F_OBSTR: Final = 16384
F_ZERO_UP: Final = 32768
F_TI_GROUPS: Final = 65536
F_MC_BYTES: Final = 131072
F_SK_BYTES: Final = 262144
F_TI_TIME: Final = 524288
F_BW_TEXT: Final = 1048576
F_BW_BUFFER: Final = 2097152
F_CW_TEXT: Final = 4194304
F_CW_BARE: Final = 8388608

#: flag name (a declaration's) -> bit (the kernel's ``_kernel.pyx`` documents each)
FLAGS: Final[dict[str, int]] = {
    "signflip": F_SIGNFLIP, "invert": F_INVERT, "literal": F_LITERAL, "plus1": F_PLUS1,
    "float32": F_FLOAT32, "signed": F_SIGNED, "escape00": F_ESC00, "refuse00": F_NO00,
    "plus2": F_PLUS2, "term_last": F_TERM_LAST, "seven": F_SEVEN, "bcd": F_BCD,
    "seven_last": F_SEVEN_LAST, "escape_ff": F_ESCFF, "ordered_binary_string": F_OBSTR,
    "zero_up": F_ZERO_UP, "tidb_groups": F_TI_GROUPS, "memcomparable_bytes": F_MC_BYTES,
    "storekey_bytes": F_SK_BYTES, "tidb_time": F_TI_TIME, "bytewise_text": F_BW_TEXT,
    "bytewise_buffer": F_BW_BUFFER, "charwise_text": F_CW_TEXT, "charwise_bare": F_CW_BARE,
}

#: the longest piece the kernel writes (``MAX_PIECE``: a plan row's bound above it is refused)
MAX_PIECE: Final = 48

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


def int_range(field_type: str) -> tuple[int, int]:
    """The bounds of an int field type (any int64 or uint64 value for ``int``)."""
    cls = INT_TYPES.get(field_type)
    return (INT64_MIN, UINT64_MAX) if cls is None else (cls.min, cls.max)


@attrs.frozen
class CodecPieces:
    """A built-in codec as the kernel sees it: the bytes between two fields, each field's
    piece, whether a NULL is written only before a non-empty field (orderly's *tail* rule: a
    trailing run of ascending NULLs writes nothing, ``_rows`` in the kernel), and the
    schemas the pieces hold for (:meth:`holds`)."""

    separator: bytes
    piece: Callable[[Field], Piece | None]
    tail: bool = False
    #: the fewest fields a schema has for these pieces to hold (ordered-binary writes one
    #: value bare, not as an array: a schema of fewer fields takes the row API, or :attr:`one`)
    min_fields: int = 1
    #: the declaration of a schema of one field, where the codec writes one value another
    #: way (the JS formats: bare, not as an array), or None
    one: CodecPieces | None = None
    #: the field options the piece function reads (memcomparable's ``nullable``, say): a
    #: field with any other option takes the row API
    options: frozenset[str] = frozenset()
    #: bytes before the first field's piece and after the last's (bytewise's array of the
    #: values: ``a0`` ... ``00``), NULLs included
    key_prefix: bytes = b""
    key_suffix: bytes = b""
    #: the longest key the codec writes (ordered-binary: lmdb-js's 8 KiB buffer, less its
    #: widest store), or None: a schema whose keys may be longer takes the row API when its
    #: pieces are all of bounded length; with a string or bytes field, the kernel declines
    #: each longer key to the row API (which writes or refuses it)
    max_key: int | None = None

    def for_fields(self, count: int) -> CodecPieces:
        """The declaration a schema of *count* fields takes: :attr:`one` for one field,
        when declared, else this one."""
        return self.one if count == 1 and self.one is not None else self

    def holds(self, pieces: Sequence[Piece]) -> bool:
        """Whether these pieces (a schema's fields, in order) are the kernel's to write."""
        if len(pieces) < self.min_fields:
            return False
        if self.max_key is None or any(p.writer == WRITERS["bytes"] for p in pieces):
            return True
        longest = sum(max(p.max_length, len(p.null or b"")) for p in pieces)
        return longest + len(self.separator) * (len(pieces) - 1) <= self.max_key
