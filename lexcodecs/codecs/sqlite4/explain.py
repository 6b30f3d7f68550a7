"""``inspect`` for ``sqlite4``: a reference decode with an annotation sink, worded here.

Theory of operation: the reference readers report each part they read to a sink, with the
facts they found (a header byte, an exponent, centimal digits, a payload size); a descending
value is read over complemented bytes and reports to :meth:`Annotations.inverted`. This module
turns the facts into words through :data:`TEXTS` (one entry per role, ascending and descending
wording) and the decoded fields into :class:`~lexcodecs.inspection.FieldView` s. So ``inspect``
accepts exactly the keys ``decode`` accepts and refuses the others with the same error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ...codec import SchemaLike, as_key_bytes
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import FINAL_BINARY, HEADER_NAMES, NAME, TEXT

if TYPE_CHECKING:
    from .codec import Sqlite4Codec

__all__ = ["TEXTS", "Annotations", "inspect"]

_INVERTED: Final = ", inverted (descending)"


def _payload(facts: tuple[int, int]) -> str:
    header, size = facts
    if header == TEXT:
        return "UTF-8"
    if header == FINAL_BINARY:
        return "raw bytes to the end of the key"
    return f"{size} 7-bit group(s), high bit set, holding {7 * size // 8} byte(s)"


def _exponent(facts: tuple[int, int, bool]) -> str:
    e, magnitude, complemented = facts
    return f"E={e}: varint of {magnitude}" + (
        ", complemented (a larger magnitude sorts lower)" if complemented else "")


def _mantissa(facts: tuple[list[int], bool]) -> str:
    digits, negative = facts
    return (f"centimal digits {' '.join(map(str, digits))} (2d+1 each, 2d the last)"
            + (", complemented (negative)" if negative else ""))


def _terminator(header: int) -> str:
    return f"end of {'text' if header == TEXT else 'binary'}"


#: role -> (words for its facts in an ascending value, in a descending one)
TEXTS: Final[dict[str, tuple[Callable[[Any], str], Callable[[Any], str]]]] = {
    "null": (lambda _: "NULL, sorting first", lambda _: "NULL, sorting last (descending, fa)"),
    "header": (lambda h: HEADER_NAMES[h],
               lambda h: HEADER_NAMES[h] + ", descending (every byte inverted)"),
    "exponent": (_exponent, lambda f: _exponent(f) + _INVERTED),
    "mantissa": (_mantissa, lambda f: _mantissa(f) + _INVERTED),
    "payload": (_payload, lambda f: _payload(f) + _INVERTED),
    "terminator": (lambda h: "00: " + _terminator(h),
                   lambda h: "ff (00 inverted): " + _terminator(h)),
    "table": (lambda t: f"table number {t} (varint, always ascending)",
              lambda t: f"table number {t} (varint, always ascending)"),
}


class Annotations:
    """The sink of an annotated decode: the parts of the value being read, then each value
    with its span and parts (``-1``: the table number)."""

    def __init__(self, descending: bool = False, into: Annotations | None = None) -> None:
        self._words = 1 if descending else 0
        self._into = self if into is None else into
        self.parts: list[Part] = []
        self.values: list[tuple[int, int, int, Any, tuple[Part, ...]]] = []

    def part(self, start: int, end: int, role: str, facts: Any) -> None:
        self._into.parts.append(Part(start, end, role, TEXTS[role][self._words](facts)))

    def value(self, index: int, start: int, end: int, value: Any) -> None:
        into = self._into
        into.values.append((index, start, end, value, tuple(into.parts)))
        into.parts = []

    def inverted(self) -> Annotations:
        return Annotations(descending=True, into=self._into)


def inspect(codec: Sqlite4Codec, key: bytes, schema: SchemaLike | None = None) -> Inspection:
    """The key through the reference decode, each value with its parts."""
    data = as_key_bytes(NAME, key)
    parsed = None if schema is None else KeySchema.coerce(schema)
    sink = Annotations()
    if parsed is None:
        codec.decode_schemaless(data, sink)
    else:
        codec.bind(parsed).careful_decode(data, sink)
    fields = []
    notes = []
    for index, start, end, value, parts in sink.values:
        if index < 0:
            fields.append(FieldView(-1, None, start, end, value, parts, "table number"))
            notes.append("the view with index -1 is the table-number prefix, not a value")
            continue
        f = parsed.fields[index] if parsed is not None else None
        fields.append(FieldView(index, f.name if f else None, start, end, value, parts,
                                f.type if f else ""))
        if data[start] == FINAL_BINARY:
            notes.append(f"value {index} is a final binary: it runs to the end of the key, "
                         "so this key is a prefix of longer ones")
    return Inspection(NAME, data, tuple(fields), tuple(notes),
                      None if parsed is None else str(parsed))
