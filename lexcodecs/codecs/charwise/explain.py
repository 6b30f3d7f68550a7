"""``inspect`` for ``charwise``: the reference decode with an annotation sink.

Theory of operation: :func:`~.reference_decode.decode_text` takes an optional list that
receives one :class:`~.reference_decode.Element` per value it reads (its kind, the character
offsets of its text, its depth), so an inspection reads a key exactly as a decode does and
raises the same :class:`~lexcodecs.errors.DecodeError`. Each value of the key (the one value,
or each item of the top-level array) becomes a field of the breakdown: its type character and
what it says, then its text.

>>> from lexcodecs.codecs.charwise import CharwiseCodec
>>> view = CharwiseCodec().inspect(b'KJa"C!')
>>> [(p.role, p.text) for p in view.fields[0].parts]
[('type', "J: string 'a'")]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError
from ...inspection import FieldView, Inspection, Part
from .format import NAME
from .reference_decode import Element, decode_text

if TYPE_CHECKING:
    from .codec import CharwiseCodec

__all__ = ["inspect"]

#: kind -> the type shown beside a value
_KIND_TYPE: Final = {"null": "null", "false": "bool", "true": "bool", "number": "number",
                     "string": "string", "array": "array", "undefined": "undefined"}


def _byte(text: str, at: int) -> int:
    return len(text[:at].encode("utf-8"))


def _field(index: int, text: str, e: Element, name: str | None = None,
           field_type: str | None = None) -> FieldView:
    start, end = _byte(text, e.start), _byte(text, e.end)
    first = text[e.start]
    parts = (Part(start, end, "type", f"{first}: {e.kind} {e.value!r}"),)
    return FieldView(index, name, start, end, e.value, parts, field_type or _KIND_TYPE[e.kind])


def inspect(codec: CharwiseCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """The breakdown of *key*: its value, or the items of its top-level array (with a
    schema of one field and the option ``array`` off: the array as one value)."""
    data = as_key_bytes(NAME, key)
    bound = codec.bind(schema) if schema is not None else None
    if bound is not None:
        bound.decode(data)  # strict: refuses what the schema does not take
    elements: list[Element] = []
    try:
        decode_text(data, elements)
    except DecodeError as exc:
        raise exc.add_context(codec=NAME) from None
    text = data.decode("utf-8")
    items = [e for e in elements if e.depth == 0]
    top = items[0]
    array = top.kind == "array" and (bound is None or len(bound.schema) != 1
                                     or codec.options["array"])
    if array:
        items = [e for e in elements if e.depth == 1]
    fields = []
    for i, e in enumerate(items):
        f = bound.schema.fields[i] if bound is not None and i < len(bound.schema) else None
        fields.append(_field(i, text, e, f.name if f else None, f.type if f else None))
    notes = ("an array of " + str(len(items)) + " items: K, the items joined by \", then !",
             ) if array else ()
    return Inspection(NAME, data, tuple(fields), notes,
                      str(bound.schema) if bound is not None else None)
