"""``inspect`` for ``orderly``: a reference decode with an annotation sink, worded here.

Theory of operation: :func:`inspect` decodes the key through the reference struct
(``BoundOrderly.careful_decode``) with a sink, :class:`Annotations`. Each field codec reports
to it the parts it reads -- a var-int's header and data bytes, a decimal's exponent, digits and
terminator, a string's payload and terminator, a NULL -- with the facts it found (see
``reference_field.Sink``); this module only words them, through :data:`TEXTS` (one entry per field
codec class and role; texts give the ascending meaning, and a descending field says
"inverted"). So ``inspect`` accepts exactly the keys ``decode`` accepts, refuses the others
with the same error, and has no parser of its own. A field read as zero bytes (NULL written as
nothing, or a fixed byte array of length 0) reports no parts: its view is empty.

A note per field then tells its effective order and the termination the back-to-front rule
assigns (spec §11.3), and whether its bytes are the form written under that termination.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ...codec import as_key_bytes
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .bound import BoundOrderly
from .format import AUTO, DEC_NEG, DEC_TYPE_NAMES, MUST, NAME, SHOULD_NOT
from .reference_bytes import FixedBytes, String, VarBytes
from .reference_decimal import Decimal
from .reference_field import FieldCodec
from .reference_numbers import FixedInt, Float, VarInt

if TYPE_CHECKING:
    from ...codec import SchemaLike
    from .codec import OrderlyCodec

__all__ = ["TEXTS", "Annotations", "inspect"]

# -- the words: (field codec, facts) -> text, per field codec class and role ------------------


def _inverted(fc: FieldCodec) -> str:
    return ", inverted (descending)" if fc.mask else ""


def _reserved(fc: VarInt) -> str:
    return f", reserved bits {fc.v:0{fc.r}b} (never inverted)" if fc.r else ""


def _varint_header(fc: VarInt, facts: tuple[int, int, int, int]) -> str:
    length, h_bits, h_data, value = facts
    lay = fc.lay
    text = f"{lay.type} header: " + ("negative, " if value < 0 else "non-negative, "
                                     if lay.signed else "")
    text += f"length {length}"
    if length == 9:
        text += ", header data bits 00 (ignored in the 9-byte form)" + (
            ", quirk long-9-byte-negative-header" if value < 0 else "")
    elif h_bits:
        text += f", {h_bits} data bit(s) {h_data:0{h_bits}b}"
    else:
        text += ", no header data bits"
    if not lay.signed:
        text += ", stored + 1 (00 is NULL)"
    return text + _reserved(fc) + _inverted(fc)


def _decimal_type(fc: Decimal, stored: int) -> str:
    kind = fc.type_bits(stored)
    return f"type {DEC_TYPE_NAMES[kind]} (top bits {stored:02b}" + (
        f", {kind:02b} inverted (descending))" if fc.desc else ")")


def _decimal_how(fc: Decimal, stored: int) -> str:
    """How a signed decimal's exponent and digits are stored beyond ascending."""
    negative = fc.type_bits(stored) == DEC_NEG
    if negative and fc.desc:
        return ", complemented (negative) and inverted (descending), which cancel"
    return (", complemented (negative)" if negative else "") + _inverted(fc)


def _decimal_exponent(fc: Decimal, facts: tuple[int, int, int]) -> str:
    stored, exp, length = facts
    return (f"{_decimal_type(fc, stored)}, adjusted exponent {exp} ({length}-byte "
            f"int32-layout var-int{_decimal_how(fc, stored)})")


def _decimal_digits(fc: Decimal, facts: tuple[int, str, str]) -> str:
    stored, digits, ending = facts
    text = f"BCD digits {digits} (nibble = digit + 1{_decimal_how(fc, stored)})"
    if ending == "nibble":
        return text + "; the last low nibble 0 is the terminator"
    if ending == "end":
        quirk = " (quirk decimal-negative-prefix)" if (
            fc.type_bits(stored) == DEC_NEG and not fc.desc) else ""
        return text + f"; unterminated: ends at the end of the key{quirk}"
    return text


def _var_bytes_digits(fc: VarBytes, facts: tuple[str, str]) -> str:
    digits, ending = facts
    text = f"reversed packed BCD, 3 digits per byte: {digits}{_inverted(fc)}"
    if ending == "nibble":
        return text + "; the last low nibble 1 is the terminator"
    if ending == "end":
        return text + "; unterminated: ends at the end of the key"
    return text


def _var_bytes_terminator(fc: VarBytes, facts: str) -> str:
    if facts == "alone":
        return f"no digits: the terminator byte 11{_inverted(fc)}"
    return f"terminator nibbles 1 (even digit count){_inverted(fc)}"


Words = Callable[[Any, Any], str]

#: (field codec class, role) -> the text of a part from its field codec and facts
TEXTS: Final[dict[tuple[type[FieldCodec], str], Words]] = {
    (VarInt, "null"): lambda fc, _: f"NULL header{_reserved(fc)}{_inverted(fc)}",
    (VarInt, "header"): _varint_header,
    (VarInt, "data"): lambda fc, f: (f"{f[0]} data byte(s), big-endian after the header data "
                                     f"bits: {f[1]}{_inverted(fc)}"),
    (FixedInt, "data"): lambda fc, _: (
        f"fixed {fc.field.type}: {fc.width} bytes big-endian"
        f"{', sign bit flipped' if fc.lo < 0 else ''}{_inverted(fc)}"),
    (Float, "null"): lambda fc, _: (f"NULL: all {fc.width} bytes 00 (the transformed value 0)"
                                    f"{_inverted(fc)}"),
    (Float, "data"): lambda fc, nan: (
        f"IEEE {fc.field.type} bits, order transform (sign bit flipped, or every bit for "
        f"negatives) plus one{'; NaN, written as the canonical NaN' if nan else ''}"
        f"{_inverted(fc)}"),
    (Decimal, "null"): lambda fc, stored: (f"NULL: {_decimal_type(fc, stored)}, NULL exponent "
                                           "header"),
    (Decimal, "type"): lambda fc, stored: (f"zero: {_decimal_type(fc, stored)}, no exponent, "
                                           "no digits"),
    (Decimal, "exponent"): _decimal_exponent,
    (Decimal, "digits"): _decimal_digits,
    (Decimal, "terminator"): lambda fc, stored: (f"terminator nibbles 0 (even digit count)"
                                                 f"{_decimal_how(fc, stored)}"),
    (String, "null"): lambda fc, _: f"NULL (00){_inverted(fc)}",
    (String, "payload"): lambda fc, terminated: f"UTF-8 bytes + 2{_inverted(fc)}" + (
        "" if terminated else "; unterminated: ends at the end of the key"),
    (String, "terminator"): lambda fc, empty: (
        f"the empty string: the terminator 01 alone{_inverted(fc)}" if empty else
        f"01: end of string{_inverted(fc)}"),
    (FixedBytes, "payload"): lambda fc, _: f"{fc.n} raw byte(s), fixed length{_inverted(fc)}",
    (VarBytes, "null"): lambda fc, _: (f"NULL (00){_inverted(fc)}; Java writes it but cannot "
                                       "read it back"),
    (VarBytes, "prefix"): lambda fc, _: f"{fc.p} raw byte(s){_inverted(fc)}",
    (VarBytes, "digits"): _var_bytes_digits,
    (VarBytes, "terminator"): _var_bytes_terminator,
}


class Annotations:
    """The sink of an annotated decode of *bound*: each field's parts, worded as the field
    codecs report them (a field codec is one field's, so it tells the field)."""

    def __init__(self, bound: BoundOrderly) -> None:
        self._field = {id(fc): i for i, fc in enumerate(bound.codecs)}
        self.parts: list[list[Part]] = [[] for _ in bound.codecs]

    def part(self, fc: FieldCodec, start: int, end: int, role: str, facts: Any = None
             ) -> None:
        text = TEXTS[type(fc), role](fc, facts)
        self.parts[self._field[id(fc)]].append(Part(start, end, role, text))


# -- the notes: each field's order and termination --------------------------------------------


def _termination_notes(bound: BoundOrderly, key: bytes, spans: Sequence[tuple[int, int]],
                       values: Sequence[Any]) -> list[str]:
    """Per field: the effective order, and the termination the back-to-front rule assigns
    (spec §11.3), with what it means for these bytes."""
    codec: OrderlyCodec = bound.codec  # type: ignore[assignment]
    struct_term = bound.struct_termination
    notes = [""] * len(spans)
    later = False  # a later field is non-empty
    for i in range(len(spans) - 1, -1, -1):
        fc = bound.codecs[i]
        f = fc.field
        start, end = spans[i]
        if bound.declared[i] == SHOULD_NOT:
            term, why = SHOULD_NOT, "declared on the field, where it always wins"
        elif later:
            term, why = MUST, "a later field is non-empty"
        else:
            term, why = struct_term, "the struct's, as no non-empty field follows"
        t = term == MUST or (term == AUTO and fc.desc)
        order = "descending, every byte inverted" + (
            " but the reserved bits" if type(fc) is VarInt and fc.r else "") \
            if fc.desc else "ascending"
        if codec.struct_desc:
            order += (f" (declared {'descending' if f.descending else 'ascending'}; "
                      "struct_order=desc flips every field)")
        label = f"field {i}" + (f" {f.name!r}" if f.name else "")
        text = f"{label}: {order}; termination {term} ({why}), so t = {str(t).lower()}"
        v = values[i]
        if start == end:
            text += ("; empty: NULL written as zero bytes" if v is None else
                     "; empty: a fixed byte array of length 0")
        else:
            expected = fc.write_null(t) if v is None else fc.write(v, t)
            if key[start:end] != expected:
                text += (f"; these bytes are the t = {str(not t).lower()} form (written under "
                         "another termination), which decoders read too")
        notes[i] = text
        later = later or end > start
    return notes


def inspect(codec: OrderlyCodec, key: bytes, schema: SchemaLike | None) -> Inspection:
    """Each field's parts, with its effective order and termination; empty fields (NULL
    written as zero bytes) have ``start == end``. Keys decode only with a schema."""
    data = as_key_bytes(NAME, key)
    parsed = None if schema is None else KeySchema.coerce(schema)
    if parsed is None:
        codec.decode(data, None)  # refuses, as decode does: keys decode only with a schema
    assert parsed is not None
    bound = codec.bind(parsed)
    sink = Annotations(bound)
    values = bound.careful_decode(data, sink)
    # the parts of a field tile its bytes, and the fields tile the key
    spans: list[tuple[int, int]] = []
    pos = 0
    for parts in sink.parts:
        spans.append((parts[0].start, parts[-1].end) if parts else (pos, pos))
        pos = spans[-1][1]
    fields = tuple(
        FieldView(i, f.name, start, end, v, tuple(parts), f.type)
        for i, (f, (start, end), v, parts) in enumerate(
            zip(parsed.fields, spans, values, sink.parts)))
    notes = _termination_notes(bound, data, spans, values)
    notes.append("t: whether a field writes the bytes needed only when something may "
                 "follow it (NULL bytes, terminators)")
    return Inspection(NAME, data, tuple(fields), tuple(notes), str(parsed))
