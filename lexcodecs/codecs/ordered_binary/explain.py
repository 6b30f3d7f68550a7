"""``inspect`` for ``ordered-binary``: the reference decode with an annotation sink.

Theory of operation: :func:`~.reference_decode.decode_key` takes an optional list that
receives one :class:`~.reference_decode.Element` per value it reads (its kind, first byte,
end and value), so an inspection reads a key exactly as a decode does and raises the same
:class:`~lexcodecs.errors.DecodeError`. Each value becomes a field of the breakdown: its first
byte and what it says, the rest of its bytes, and the ``00`` separator after it. A note says
when re-encoding the values read gives other bytes, that is when lmdb-js's reader normalised
the key (see the codec's anomalies).

>>> from lexcodecs.codecs.ordered_binary import OrderedBinaryCodec
>>> view = OrderedBinaryCodec().inspect(bytes.fromhex("610013ff00000000000000"))
>>> [(p.role, p.text) for p in view.fields[1].parts]  # doctest: +NORMALIZE_WHITESPACE
[('type', '13: non-negative number (9 bytes in an array, fewer bare)'),
 ('payload', '1.0: the IEEE bits after a 1 nibble, then a 0 nibble')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError, EncodeError
from ...inspection import FieldView, Inspection, Part
from .format import NAME, STRING_PREFIX
from .reference_decode import Element, decode_key
from .reference_encode import encode_values

if TYPE_CHECKING:
    from .codec import BoundOrderedBinary, OrderedBinaryCodec

__all__ = ["inspect"]

#: kind -> what the first byte says
_KIND_TEXT: Final = {
    "null": "null",
    "false": "false",
    "true": "true",
    "symbol": "symbol: its description follows as a string",
    "raw": "not a type byte: lmdb-js returns the rest of the key as raw bytes",
    "negative": "negative number (9 bytes)",
    "number": "non-negative number (9 bytes in an array, fewer bare)",
    "string": "string",
}

#: kind -> the type shown beside a value
_KIND_TYPE: Final = {"null": "null", "false": "bool", "true": "bool", "symbol": "symbol",
                     "raw": "bytes", "negative": "number", "number": "number",
                     "string": "string"}


def _parts(data: bytes, e: Element) -> list[Part]:
    parts: list[Part] = []
    first = data[e.start:e.start + 1]
    if not first:  # the empty key, or a string read at the very end
        return [Part(e.start, e.start, "payload", "nothing left: read as the empty string")]
    head = f"{first[0]:02x}: {_KIND_TEXT[e.kind]}"
    if e.kind == "string":
        if first[0] == STRING_PREFIX:
            parts.append(Part(e.start, e.start + 1, "prefix",
                              "1b: a string that is empty or starts below U+001C"))
            if e.end > e.start + 1:
                parts.append(Part(e.start + 1, e.end, "payload", f"UTF-8 {e.value!r}"))
        else:
            parts.append(Part(e.start, e.end, "payload", f"UTF-8 {e.value!r}"))
        return parts
    if e.kind in ("null", "false", "true", "raw"):
        return [Part(e.start, e.end, "type", head)]
    parts.append(Part(e.start, e.start + 1, "type", head))
    if e.kind == "symbol":
        parts.append(Part(e.start + 1, e.end, "payload", f"description {e.value.description!r}"))
    elif type(e.value) is int:
        nine = min(e.start + 9, e.end)
        parts.append(Part(e.start + 1, nine, "payload", "the largest double below the BigInt"))
        if e.end > nine:
            parts.append(Part(nine, e.end, "tail",
                              f"= {e.value}: the remainder, 7 bits a byte"))
    else:
        how = ("the IEEE bits XOR 7fff…ff after a 0 nibble, then a 0 nibble"
               if e.kind == "negative" else "the IEEE bits after a 1 nibble, then a 0 nibble")
        parts.append(Part(e.start + 1, e.end, "payload", f"{e.value!r}: {how}"))
    return parts


def _inspect_bound(bound: BoundOrderedBinary, data: bytes) -> Inspection:
    """Under a schema: the strict bound decode, then each field's span (its bytes as the
    encoder writes them, in key order) and the separators."""
    values = bound.decode(data)
    fields = []
    at = 0
    bare = len(values) == 1 and not bound.codec.options["array"]
    for i, (f, value) in enumerate(zip(bound.schema.fields, values)):
        parts = []
        if i:
            parts.append(Part(at, at + 1, "separator", "00: between two values"))
            at += 1
        size = len(encode_values((value,), not bare))
        kind = "null" if value is None else f.type
        parts.append(Part(at, at + size, "value",
                          f"{data[at]:02x}: {_FIELD_TEXT[kind]}" if size else "no bytes"))
        fields.append(FieldView(i, f.name, parts[0].start, at + size, value, tuple(parts),
                                f.type))
        at += size
    return Inspection(NAME, data, tuple(fields), (), str(bound.schema))


#: field type (or null) -> what its first byte says, under a schema
_FIELD_TEXT: Final = {
    "null": "null",
    "string": "string (1b: empty or starting below U+001C)",
    "bytes": "raw bytes, no type byte",
    "bool": "06 false, 07 true",
    "float64": "number: 08-0f negative, 10-17 non-negative, 18 -0.0",
    "int": "number (a BigInt adds a tail of 7-bit groups)",
}


def inspect(codec: OrderedBinaryCodec, key: Any, schema: SchemaLike | None = None
            ) -> Inspection:
    """The breakdown of *key*: each value read, its bytes, the separators."""
    data = as_key_bytes(NAME, key)
    if schema is not None:
        return _inspect_bound(codec.bind(schema), data)
    elements: list[Element] = []
    try:
        values = decode_key(data, elements)
    except DecodeError as exc:
        raise exc.add_context(codec=NAME) from None
    fields = []
    for i, e in enumerate(elements):
        parts = _parts(data, e)
        following = elements[i + 1].start if i + 1 < len(elements) else len(data)
        at = e.end
        while at < following and data[at] == 0:  # readKey skips up to two 00 between values
            parts.append(Part(at, at + 1, "separator", "00: between two values"))
            at += 1
        end = max(p.end for p in parts)
        fields.append(FieldView(i, None, e.start, end, e.value, tuple(parts),
                                _KIND_TYPE[e.kind]))
    notes: list[str] = []
    try:
        again = encode_values(values, len(values) > 1)
    except EncodeError:
        again = None
    if again != data and (len(values) != 1 or encode_values(values, False) != data):
        notes.append("the values read do not encode back to these bytes: lmdb-js's reader "
                     "normalised this key (see the codec's anomalies)")
    return Inspection(NAME, data, tuple(fields), tuple(notes), None)
