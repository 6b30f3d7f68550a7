"""``inspect`` for ``orderly``: each field's header, data, digits, terminators and NULLs.

Theory of operation: :func:`inspect` reads the key field by field through the reference readers
that decode it (``reference.FieldCodec.read``), so it sees exactly the spans and values decoding
sees; then each field's span is annotated by the explainer of its codec class
(:data:`EXPLAINERS`), and a note per field tells its effective order and the termination the
back-to-front rule assigns (spec §11.3). The key was decoded first, so every span is well
formed: the explainers describe, they never check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...codec import as_key_bytes
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .bound import BoundOrderly
from .format import AUTO, DEC_NEG, DEC_TYPE_NAMES, EXPONENT, MUST, NAME, SHOULD_NOT
from .reference import FieldCodec, FixedInt, Float, VarInt, read_varint
from .reference_bytes import FixedBytes, String, VarBytes
from .reference_decimal import Decimal, decimal_parts

if TYPE_CHECKING:
    from ...codec import SchemaLike
    from .codec import OrderlyCodec

# -- the explainers, one per field codec class ----------------------------------------------
#
# The parts of one field already read (so well formed), from its codec object, its span and
# its value. Texts give the ascending meaning; a descending field says "inverted".


def _inverted(mask: int) -> str:
    return ", inverted (descending)" if mask else ""


def _varint_parts(fc: VarInt, key: bytes, pos: int, end: int, value: int | None
                  ) -> list[Part]:
    lay, r, mask = fc.lay, fc.r, fc.mask
    reserved = f", reserved bits {fc.v:0{r}b} (never inverted)" if r else ""
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL header{reserved}{_inverted(mask)}")]
    length = end - pos
    u = (key[pos] ^ mask) & (0xFF >> r)
    if not lay.signed:
        u -= 1
    h_bits = lay.s - r if length == 1 else lay.d - r if length == 2 else lay.e - r
    text = f"{lay.type} header: " + ("negative, " if value < 0 else "non-negative, "
                                     if lay.signed else "")
    text += f"length {length}"
    if length == 9:
        text += ", header data bits 00 (ignored in the 9-byte form)" + (
            ", quirk long-9-byte-negative-header" if value < 0 else "")
    elif h_bits:
        text += f", {h_bits} data bit(s) {u & ((1 << h_bits) - 1):0{h_bits}b}"
    else:
        text += ", no header data bits"
    if not lay.signed:
        text += ", stored + 1 (00 is NULL)"
    parts = [Part(pos, pos + 1, "header", text + reserved + _inverted(mask))]
    if length > 1:
        parts.append(Part(pos + 1, end, "data", f"{length - 1} data byte(s), big-endian "
                          f"after the header data bits: {value}{_inverted(mask)}"))
    return parts


def _decimal_parts(fc: Decimal, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    stored = key[pos] >> 6
    kind = stored ^ (3 if fc.desc else 0)
    type_text = f"type {DEC_TYPE_NAMES[kind]} (top bits {stored:02b}" + (
        f", {kind:02b} inverted (descending))" if fc.desc else ")")
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL: {type_text}, NULL exponent header")]
    parts_of = decimal_parts(value)
    if parts_of is None:
        return [Part(pos, pos + 1, "type", f"zero: {type_text}, no exponent, no digits")]
    m = fc.mask ^ (0xFF if kind == DEC_NEG else 0)
    exp, at = read_varint(key, pos, EXPONENT, m, 2, stored)
    how = (", complemented (negative)" if kind == DEC_NEG else "") + _inverted(fc.mask)
    if kind == DEC_NEG and fc.desc:
        how = ", complemented (negative) and inverted (descending), which cancel"
    parts = [Part(pos, at, "exponent", f"{type_text}, adjusted exponent {exp} "
                  f"({at - pos}-byte int32-layout var-int{how})")]
    digits = parts_of[1]
    n = len(digits)
    digit_bytes = (n + 1) // 2
    text = f"BCD digits {digits} (nibble = digit + 1{how})"
    if end - at == digit_bytes + 1:
        parts.append(Part(at, at + digit_bytes, "digits", text))
        parts.append(Part(at + digit_bytes, end, "terminator",
                          f"terminator nibbles 0 (even digit count){how}"))
    elif n % 2:
        parts.append(Part(at, end, "digits", text + "; the last low nibble 0 is the "
                          "terminator"))
    else:
        quirk = " (quirk decimal-negative-prefix)" if kind == DEC_NEG and not fc.desc else ""
        parts.append(Part(at, end, "digits", text + "; unterminated: ends at the end of the "
                          f"key{quirk}"))
    return parts


def _string_parts(fc: String, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    inv = _inverted(fc.mask)
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL (00){inv}")]
    if value == "":
        return [Part(pos, end, "terminator", f"the empty string: the terminator 01 alone{inv}")]
    if key[end - 1] ^ fc.mask == 1:
        return [Part(pos, end - 1, "payload", f"UTF-8 bytes + 2{inv}"),
                Part(end - 1, end, "terminator", f"01: end of string{inv}")]
    return [Part(pos, end, "payload", f"UTF-8 bytes + 2{inv}; unterminated: ends at the end "
                 "of the key")]


def _var_bytes_parts(fc: VarBytes, key: bytes, pos: int, end: int, value: Any
                     ) -> list[Part]:
    inv = _inverted(fc.mask)
    if value is None:
        return [Part(pos, pos + 1, "null", f"NULL (00){inv}; Java writes it but cannot read "
                     "it back")]
    parts = []
    start = pos + fc.p
    if fc.p:
        parts.append(Part(pos, start, "prefix", f"{fc.p} raw byte(s){inv}"))
    digits = "".join(f"{b:03d}" for b in value[fc.p:])
    d = len(digits)
    if not d:
        return [*parts, Part(start, end, "terminator", f"no digits: the terminator byte 11{inv}")]
    digit_bytes = (d + 1) // 2
    text = f"reversed packed BCD, 3 digits per byte: {digits}{inv}"
    if end - start == digit_bytes + 1:
        parts += [Part(start, start + digit_bytes, "digits", text),
                  Part(start + digit_bytes, end, "terminator",
                       f"terminator nibbles 1 (even digit count){inv}")]
    elif d % 2:
        parts.append(Part(start, end, "digits", text + "; the last low nibble 1 is the "
                          "terminator"))
    else:
        parts.append(Part(start, end, "digits", text + "; unterminated: ends at the end of "
                          "the key"))
    return parts


def _fixed_int_parts(fc: FixedInt, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    how = ", sign bit flipped" if fc.lo < 0 else ""
    return [Part(pos, end, "data", f"fixed {fc.field.type}: {fc.width} bytes big-endian"
                 f"{how}{_inverted(fc.mask)}")]


def _float_parts(fc: Float, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    inv = _inverted(fc.mask)
    if value is None:
        return [Part(pos, end, "null", f"NULL: all {fc.width} bytes 00 (the transformed "
                     f"value 0){inv}")]
    nan = "; NaN, written as the canonical NaN" if value != value else ""
    return [Part(pos, end, "data", f"IEEE {fc.field.type} bits, order transform (sign "
                 f"bit flipped, or every bit for negatives) plus one{nan}{inv}")]


def _fixed_bytes_parts(fc: FixedBytes, key: bytes, pos: int, end: int, value: Any
                       ) -> list[Part]:
    return [Part(pos, end, "payload", f"{fc.n} raw byte(s), fixed length{_inverted(fc.mask)}")]


#: the explainer of each field codec class: (codec, key, start, end, value) -> parts
EXPLAINERS: dict[type[FieldCodec], Callable[[Any, bytes, int, int, Any], list[Part]]] = {
    VarInt: _varint_parts, FixedInt: _fixed_int_parts, Float: _float_parts,
    Decimal: _decimal_parts, String: _string_parts, FixedBytes: _fixed_bytes_parts,
    VarBytes: _var_bytes_parts,
}


def field_parts(fc: FieldCodec, key: bytes, pos: int, end: int, value: Any) -> list[Part]:
    """The parts of the field ``key[pos:end]`` read by *fc* as *value*."""
    if end == pos:
        return []
    return EXPLAINERS[type(fc)](fc, key, pos, end, value)


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
    codec.decode(data, parsed)  # refuses non-keys (and a missing schema) as decode does
    assert parsed is not None
    bound = codec.bind(parsed)
    spans: list[tuple[int, int]] = []
    values: list[Any] = []
    pos = 0
    for fc in bound.codecs:
        value, end = fc.read(data, pos)
        spans.append((pos, end))
        values.append(value)
        pos = end
    fields = tuple(
        FieldView(i, f.name, start, end, v, tuple(field_parts(fc, data, start, end, v)), f.type)
        for i, (f, fc, (start, end), v) in enumerate(
            zip(parsed.fields, bound.codecs, spans, values)))
    notes = _termination_notes(bound, data, spans, values)
    notes.append("t: whether a field writes the bytes needed only when something may "
                 "follow it (NULL bytes, terminators)")
    return Inspection(NAME, data, fields, tuple(notes), str(parsed))
