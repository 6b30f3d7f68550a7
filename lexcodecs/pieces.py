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

#: the kernel's writer kinds (``W_*`` in ``_kernel.pyx``): the integers, then the floats
WRITERS: Final[dict[str, int]] = {
    "be": 1, "skv_int": 2, "fdb_int": 3, "varint": 4, "orderedcode_int": 5,
    "ordered_binary_int": 6, "centimal_int": 7, "bytewise_int": 8, "float": 9,
    "orderedcode_float": 10, "ordered_binary_float": 11, "sqlite4_float": 12,
    "bytewise_number": 13, "bool": 14, "bytes": 15,
}
INT_WRITERS: Final = frozenset({1, 2, 3, 4, 5, 6, 7, 8})
#: writer kind -> the most body bytes it writes (None: the piece's width): an fdb-tuple int
#: is a code and up to 8 bytes, an orderly var-int at most 9, an orderedcode int64 10, an
#: ordered-binary integer 11 (a double's 9, a BigInt remainder's 2), a bytewise number 9 (a
#: tag and a double), a centimal integer a header and 10 centimal digits, a sqlite4 float a
#: header, an exponent varint and at most 10 digits; a string's width is what it writes
#: beside its data (the kernel adds the data's bytes)
BODY_MAX: Final[dict[int, int | None]] = {1: None, 2: None, 3: 9, 4: 9, 5: 10, 6: 11, 7: 11,
                                          8: 9, 9: None, 10: 10, 11: 9, 12: 16, 13: 9,
                                          14: 1, 15: None}
FLOAT_WRITERS: Final = frozenset({9, 10, 11, 12, 13})

#: the kernel's flags (``F_*``)
FLAGS: Final[dict[str, int]] = {
    "signflip": 1, "invert": 2, "literal": 4, "plus1": 8, "float32": 16, "signed": 32,
    "escape00": 64, "refuse00": 128, "plus2": 256, "term_last": 512, "seven": 1024,
    "bcd": 2048, "seven_last": 4096, "escape_ff": 8192, "ordered_binary_string": 16384,
    "zero_up": 32768, "tidb_groups": 65536, "memcomparable_bytes": 131072,
    "storekey_bytes": 262144, "tidb_time": 524288, "bytewise_text": 1048576,
    "bytewise_buffer": 2097152,
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
    #: value bare, not as an array: a schema of fewer fields takes the row API)
    min_fields: int = 1
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

    def holds(self, pieces: Sequence[Piece]) -> bool:
        """Whether these pieces (a schema's fields, in order) are the kernel's to write."""
        if len(pieces) < self.min_fields:
            return False
        if self.max_key is None or any(p.writer == WRITERS["bytes"] for p in pieces):
            return True
        longest = sum(max(p.max_length, len(p.null or b"")) for p in pieces)
        return longest + len(self.separator) * (len(pieces) - 1) <= self.max_key
