"""``inspect`` for ``bytewise``: the reference decode with an annotation sink.

Theory of operation: :func:`~.reference_decode.decode_value` takes an optional list that
receives one :class:`~.reference_decode.Element` per value it reads (its kind, tag byte, end,
value and depth), so an inspection reads a key exactly as a decode does and raises the same
:class:`~lexcodecs.errors.DecodeError`. Each element of the key's top-level array (or the key's
one value) becomes a field of the breakdown: its tag and what it says, then its body.

>>> from lexcodecs.codecs.bytewise import BytewiseCodec
>>> view = BytewiseCodec().inspect(bytes.fromhex("a070666f6f002100"))
>>> [(p.role, p.text) for p in view.fields[0].parts]
[('type', '70: string'), ('payload', "'foo', escaped, then its 00 terminator")]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError
from ...inspection import FieldView, Inspection, Part
from .format import NAME
from .reference_decode import Element, decode_value

if TYPE_CHECKING:
    from .codec import BytewiseCodec

__all__ = ["inspect"]

#: kind -> what the tag says
_KIND_TEXT: Final = {
    "null": "null", "false": "false", "true": "true", "-inf": "-Infinity",
    "negative": "number < 0", "number": "number >= 0", "inf": "Infinity",
    "date-negative": "Date before 1970", "date": "Date from 1970", "buffer": "Buffer",
    "string": "string", "array": "array", "undefined": "undefined",
}

#: kind -> what its body is
_BODY_TEXT: Final = {
    "negative": "the complemented IEEE bytes of its magnitude",
    "number": "its IEEE bytes",
    "date-negative": "the complemented IEEE bytes of its milliseconds' magnitude",
    "date": "the IEEE bytes of its milliseconds",
}

_TYPE: Final = {"null": "null", "false": "bool", "true": "bool", "-inf": "number",
                "negative": "number", "number": "number", "inf": "number",
                "date-negative": "Date", "date": "Date", "buffer": "bytes", "string": "string",
                "array": "array", "undefined": "undefined"}


def _parts(data: bytes, e: Element, in_array: bool) -> tuple[Part, ...]:
    head = Part(e.start, e.start + 1, "type", f"{data[e.start]:02x}: {_KIND_TEXT[e.kind]}")
    if e.end == e.start + 1:
        return (head,)
    if e.kind in _BODY_TEXT:
        return head, Part(e.start + 1, e.end, "payload", f"{e.value!r}: {_BODY_TEXT[e.kind]}")
    if e.kind == "array":
        return (head, Part(e.start + 1, e.end - 1, "payload", f"{len(e.value)} elements"),
                Part(e.end - 1, e.end, "terminator", "00: the end of the array"))
    how = ", escaped, then its 00 terminator" if in_array else ", raw, to the end of the key"
    return head, Part(e.start + 1, e.end, "payload", f"{e.value!r}{how}")


def inspect(codec: BytewiseCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """The breakdown of *key*: its value, or the elements of its top-level array (under a
    schema: its fields, by name and type)."""
    data = as_key_bytes(NAME, key)
    names: list[str | None] = []
    types: list[str] = []
    text = None
    if schema is not None:
        bound = codec.bind(schema)
        values = bound.decode(data)  # refuses what the schema does not hold
        names = [f.name for f in bound.schema.fields]
        types = [f.type for f in bound.schema.fields]
        text = str(bound.schema)
    elements: list[Element] = []
    try:
        decode_value(data, elements)
    except DecodeError as exc:
        raise exc.add_context(codec=NAME) from None
    top = elements[0]
    in_array = top.kind == "array" and (schema is None or len(names) != 1
                                        or codec.options["array"])
    shown = [e for e in elements if e.depth == 1] if in_array else [top]
    notes: list[str] = []
    if in_array:
        notes.append("a0 ... 00: the key is one JS array; its elements are shown")
    fields = tuple(
        FieldView(i, names[i] if names else None, e.start, e.end,
                  values[i] if names else e.value, _parts(data, e, in_array),
                  types[i] if types else _TYPE[e.kind])
        for i, e in enumerate(shown))
    return Inspection(NAME, data, fields, tuple(notes), text)
