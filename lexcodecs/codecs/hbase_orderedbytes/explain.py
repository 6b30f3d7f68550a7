"""``inspect`` for ``hbase-orderedbytes``: a reference decode that annotates every span.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list
of :class:`~lexcodecs.inspection.Part`; given one, each reader appends what it read -- the
header byte, the exponent varint, the centimal digits of M, a payload, a terminator or the
NULL marker. So an inspection reads the key exactly as a decode does, raises the same
:class:`~lexcodecs.errors.DecodeError` for bytes that are not a key, and has no parser of
its own. A descending field's parts are read over inverted bytes and say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ...codec import SchemaLike, as_key_bytes
from ...errors import SchemaError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import NAME

if TYPE_CHECKING:
    from .codec import HBaseOrderedBytesCodec

__all__ = ["inspect"]


def inspect(codec: HBaseOrderedBytesCodec, key: Any, schema: SchemaLike | None = None
            ) -> Inspection:
    """Each field's parts, as the reference decode reads them (a schema is required)."""
    data = as_key_bytes(NAME, key)
    if schema is None:
        raise SchemaError("HBase OrderedBytes keys are read with a schema (the header bytes "
                          "do not say a field's Java type)", codec=NAME,
                          expected="inspect(key, schema)")
    parsed = KeySchema.coerce(schema)
    bound = codec.bind(parsed)
    annotate: list[list[Part]] = []
    values = bound.careful_decode(data, annotate)
    fields = []
    notes = []
    pos = 0
    for i, (value, parts) in enumerate(zip(values, annotate)):
        f = parsed.fields[i]
        if f.descending:
            parts = [attrs.evolve(p, text=p.text + ", inverted (descending)") for p in parts]
        start = parts[0].start if parts else pos
        end = parts[-1].end if parts else pos
        if not parts:
            notes.append(f"field {i} is not in the key: Struct dropped a trailing NULL")
        fields.append(FieldView(i, f.name, start, end, value, tuple(parts), f.type))
        pos = end
    return Inspection(NAME, data, tuple(fields), tuple(notes), str(parsed))
