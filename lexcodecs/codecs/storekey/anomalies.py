"""The declared anomalies of ``storekey``: where its keys or its reader (``storekey::deserialize``)
knowingly depart from the values' own order and identity (spec §3, §6, §7).

Theory of operation: every field's bytes are prefix-free and ordered, except three layouts:

* a string is its UTF-8 and a ``00``, unescaped: a U+0000 inside reads as the end;
* a ``repr=seq`` byte vector is its elements and a ``01``, unescaped: an element ``01`` reads as
  the end, and an element ``00`` sorts below the end;
* a ``bytes`` field is its length first.

So a disagreement between two keys is born in the first field where the values differ
(fields before it write the same bytes), and only there. For a string or a sequence it is
born where one value is a proper prefix of the other and the longer one goes on with the
byte that ends the field (a string: ``00``; a sequence: ``01``, and for order also ``00``):
the end byte of the shorter then meets a byte of the longer one's content. Each ``explains``
checks exactly that at exactly that field (:func:`_born_in`); a round trip fails exactly when
some string holds U+0000 or some sequence holds a ``01``. The witnesses are the spec's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final

from ...codec import Anomaly
from ...schema import Field, KeySchema
from .format import REPR_SEQ

__all__ = ["ANOMALIES"]

_D: Final = struct.Struct(">d")

#: a field's layout for the anomalies: string, sequence, bytes, or something sound
STRING, SEQ, BYTES, SOUND = "string", "seq", "bytes", ""


def _layout(field: Field) -> str:
    if field.type == "string":
        return STRING
    if field.type == "bytes":
        return SEQ if field.options.get("repr") == REPR_SEQ else BYTES
    return SOUND


def _same(x: Any, y: Any) -> bool:
    """The same value, written the same: floats by their bits (-0.0 is not 0.0)."""
    if isinstance(x, float) and isinstance(y, float):
        return _D.pack(x) == _D.pack(y)
    return x is y or (type(x) is type(y) and bool(x == y)) or (
        isinstance(x, (bytes, bytearray, memoryview))
        and isinstance(y, (bytes, bytearray, memoryview)) and bytes(x) == bytes(y))


def _raw(v: Any) -> bytes | None:
    """A string's UTF-8 or a byte vector's bytes; None for anything else (NULL, Some)."""
    if isinstance(v, str):
        try:
            return v.encode("utf-8")
        except UnicodeEncodeError:
            return None
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    return None


def _first_difference(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]
                      ) -> tuple[str, bytes, bytes] | None:
    """(layout, a's bytes, b's bytes) of the first field where *a* and *b* differ (within the
    shorter of the two), or None."""
    if schema is None:
        return None
    for i, (x, y) in enumerate(zip(a, b)):
        if i >= len(schema.fields):
            return None
        if not _same(x, y):
            rx, ry = _raw(x), _raw(y)
            if rx is None or ry is None:
                return None
            return _layout(schema.fields[i]), rx, ry
    return None


def _born_in(layout: str, ends: frozenset[int]) -> Callable[..., bool]:
    """``explains``: the first differing field has *layout*, and the shorter value is a proper
    prefix of the longer, which goes on with one of the bytes *ends*."""
    def explains(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        found = _first_difference(schema, a, b)
        if found is None or found[0] != layout:
            return False
        short, long_ = sorted(found[1:], key=len)
        return len(short) < len(long_) and long_.startswith(short) and \
            long_[len(short)] in ends
    return explains


def _holds(layout: str, byte: int) -> Callable[..., bool]:
    """``explains`` of a round trip: some field of *layout* in the values holds *byte*."""
    def explains(schema: KeySchema | None, values: tuple[Any, ...], back: tuple[Any, ...]
                 ) -> bool:
        if schema is None:
            return False
        for f, v in zip(schema.fields, values):
            raw = _raw(v)
            if _layout(f) == layout and raw is not None and byte in raw:
                return True
        return False
    return explains


def _length_first(schema: KeySchema | None, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """The first differing field is a bytes field, its values of different lengths, and the
    shorter one the greater value: the length prefix puts it first all the same."""
    found = _first_difference(schema, a, b)
    if found is None or found[0] != BYTES:
        return False
    short, long_ = sorted(found[1:], key=len)
    return len(short) < len(long_) and short > long_


_NUL, _ONE = frozenset({0x00}), frozenset({0x01})

#: the anomalies storekey declares
ANOMALIES: Final[tuple[Anomaly, ...]] = (
    Anomaly("string-nul-collision", "collision",
            "a string is its UTF-8 and a 00 with no escaping, so a U+0000 inside it ends it "
            "early and the rest is read as the next field: ('a\\x00b', '') and ('a', "
            "'b\\x00') both write 61 00 62 00 00",
            witness=(("a\x00b", ""), ("a", "b\x00")), schema="s:string, t:string",
            explains=_born_in(STRING, _NUL)),
    Anomaly("string-nul-order", "order",
            "a string that goes on with U+0000 after another string's end sorts by the "
            "fields after it: 'a' < 'a\\x00', but ('a', 5) -> 61 00 05 sorts after "
            "('a\\x00', 0) -> 61 00 00 00",
            witness=(("a", 5), ("a\x00", 0)), schema="s:string, n:uint8",
            explains=_born_in(STRING, _NUL)),
    Anomaly("string-nul-prefix-leak", "prefix-leak",
            "prefix_range(('a',)) = [61 00, 61 01) holds ('a\\x00', ''), 61 00 00 00, which "
            "does not start with 'a' as a whole string",
            witness=(("a",), ("a\x00", "")), schema="s:string, t:string",
            explains=_born_in(STRING, _NUL)),
    Anomaly("string-nul-round-trip", "round-trip",
            "storekey::deserialize reads a string up to its first 00: 'a\\x00b' comes back "
            "as 'a' and the next fields are read from the wrong offset (('a\\x00b', 5) as "
            "('a', -503283712) and bytes left over); the vectors' 'decoded'",
            witness=(("a\x00b", 5),), schema="s:string, n:int32",
            explains=_holds(STRING, 0x00)),
    Anomaly("bytes-length-first", "order",
            "a bytes field (serde_bytes) is its u64 length, then the bytes, so a shorter "
            "value sorts first: b'\\x00\\x00' < b'\\xff', but 00..02 00 00 > 00..01 ff",
            witness=((b"\x00\x00",), (b"\xff",)), schema="b:bytes",
            explains=_length_first),
    Anomaly("seq-01-collision", "collision",
            "a Vec<u8> (repr=seq) is its elements, then 01, unescaped: an element 01 reads as "
            "the end, so ([1], []) and ([], [1]) both write 01 01 01",
            witness=((b"\x01", b""), (b"", b"\x01")), schema="a:bytes repr=seq, b:bytes repr=seq",
            explains=_born_in(SEQ, _ONE)),
    Anomaly("seq-order", "order",
            "an element 00 sorts below the end marker 01: [] < [0], but [0] -> 00 01 sorts "
            "before [] -> 01 ([5, 0] -> 05 00 01 before [5] -> 05 01); an element 01 after "
            "a shorter sequence's end sorts by the fields after it",
            witness=((b"",), (b"\x00",)), schema="s:bytes repr=seq",
            explains=_born_in(SEQ, _NUL | _ONE)),
    Anomaly("seq-01-prefix-leak", "prefix-leak",
            "prefix_range(([5],)) = [05 01, 05 02) holds ([5, 1], 7), 05 01 01 07",
            witness=((b"\x05",), (b"\x05\x01", 7)), schema="s:bytes repr=seq, n:uint8",
            explains=_born_in(SEQ, _ONE)),
    Anomaly("seq-01-round-trip", "round-trip",
            "storekey::deserialize ends a sequence at its first element 01: [5, 1] comes back "
            "as [5], and ([5, 1], 7) as ([5], 1) with a byte left over",
            witness=((b"\x05\x01",),), schema="s:bytes repr=seq",
            explains=_holds(SEQ, 0x01)),
    Anomaly("lenient-reader", "interop",
            "decoding is storekey::deserialize's: any non-zero bool byte reads as true (ff), a "
            "char field takes the first character of a longer string (61 62 00 -> 'a'), a "
            "sequence may end at the end of the key without its 01 (05 05 -> [5, 5]); such "
            "keys decode but are not what the encoder writes (the vectors' 'decode_only'). "
            "The crate ignores bytes after the last field: parse() returns them, decode() "
            "refuses them"),
    Anomaly("storekey-0.7-is-another-format", "interop",
            "lexcodecs writes storekey 0.5.0, SurrealDB 2.x's; storekey 0.7 and later "
            "(SurrealDB 3.x) is a different format with the same name: booleans 02/03, "
            "escaped strings and bytes, chars as u32, 128-bit integers"),
)
