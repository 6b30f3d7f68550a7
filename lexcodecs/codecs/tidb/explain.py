"""``inspect`` for ``tidb``: a decode that annotates every span it reads.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list of
:class:`~lexcodecs.inspection.Part`; given one, each appends what it read: the flag byte and
its name, a bytes datum's groups and last marker, a decimal's (precision, frac) header and
body, a fixed-width payload, a varint. The head of a framed key (``t``, the table id, ``_r``
or ``_i``, the index id) is reported with the first field. So an inspection reads a key
exactly as a decode does and raises the same :class:`~lexcodecs.errors.DecodeError`.

>>> from lexcodecs.codecs.tidb import TidbCodec
>>> view = TidbCodec().inspect(bytes.fromhex("060502800132"))
>>> [(p.role, p.text) for p in view.fields[0].parts][:2]
[('flag', '06: decimalFlag'), ('header', 'precision 5, frac 2')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import SchemaLike, as_key_bytes
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import NAME

if TYPE_CHECKING:
    from .codec import TidbCodec

__all__ = ["inspect"]


def inspect(codec: TidbCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """Each field's (or, without a schema, each datum's) spans, value and parts."""
    data = as_key_bytes(NAME, key)
    parsed = None if schema is None else KeySchema.coerce(schema)
    annotate: list[list[Part]] = []
    if parsed is None:
        values = codec.decode_schemaless(data, annotate)
    else:
        values = codec.bind(parsed).careful_decode(data, annotate)
    fields = []
    for i, (value, parts) in enumerate(zip(values, annotate)):
        f = parsed.fields[i] if parsed is not None else None
        fields.append(FieldView(i, f.name if f else None, parts[0].start, parts[-1].end,
                                value, tuple(parts), f.type if f else type(value).__name__))
    notes: list[str] = []
    if codec.head:
        notes.append("a TiDB table key; TiKV stores it wrapped once more (8-byte groups and "
                     "an MVCC timestamp): lexcodecs reads the key before that wrapping")
    return Inspection(NAME, data, tuple(fields), tuple(notes),
                      None if parsed is None else str(parsed))
