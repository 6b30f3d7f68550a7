"""``inspect`` for ``memcomparable``: a decode that annotates every span it reads.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list of
:class:`~lexcodecs.inspection.Part`; given one, each appends what it read -- Option tags, a
byte string's flag, groups and markers, a decimal's class, exponent and digits. So an
inspection reads the key exactly as a decode does and raises the same
:class:`~lexcodecs.errors.DecodeError`. The format does not describe itself: without a schema
there is nothing to read, and the :class:`~lexcodecs.errors.NotDecodableError` says so.

>>> from lexcodecs import get_codec
>>> view = get_codec("memcomparable").inspect(bytes.fromhex("01 01 61 62 63 00 00 00 00 00 03"),
...                                           "s:string nullable=true")
>>> [(p.role, p.text) for p in view.fields[0].parts]  # doctest: +NORMALIZE_WHITESPACE
[('tag', 'Some'), ('flag', 'non-empty'), ('group', '3 byte(s), 5 padding'),
 ('marker', 'last group: 3')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import SchemaLike, as_key_bytes
from ...errors import NotDecodableError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import NAME

if TYPE_CHECKING:
    from .codec import MemcomparableCodec


def inspect(codec: MemcomparableCodec, key: Any, schema: SchemaLike | None = None
            ) -> Inspection:
    """Each field's parts, read by the reference decoder under *schema* (required)."""
    data = as_key_bytes(NAME, key)
    if schema is None:
        raise NotDecodableError("memcomparable keys carry no types: inspect needs a schema",
                                codec=NAME, expected="inspect(key, schema)")
    parsed = KeySchema.coerce(schema)
    annotate: list[list[Part]] = []
    values = codec.bind(parsed).careful_decode(data, annotate)
    fields: list[FieldView] = []
    for i, (value, parts) in enumerate(zip(values, annotate)):
        f = parsed.fields[i]
        start = parts[0].start if parts else (fields[-1].end if fields else 0)
        end = parts[-1].end if parts else start
        fields.append(FieldView(i, f.name, start, end, value, tuple(parts), f.type))
    return Inspection(NAME, data, tuple(fields), (), str(parsed))
