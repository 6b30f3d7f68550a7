"""``inspect`` for ``skv``: a decode that annotates every span it reads.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list of
:class:`~lexcodecs.inspection.Part`; given one, each reader appends what it read -- the type
byte (and direction), the sign byte, payload chunks and ``00 ff`` escapes, the terminator or
the NULL marker. So an inspection reads the key exactly as a decode does, raises the same
:class:`~lexcodecs.errors.DecodeError` for bytes that are not a key, and has no parser of its
own.

>>> from lexcodecs import get_codec
>>> view = get_codec("skv").inspect(bytes.fromhex("0202fffd0001"))
>>> [(p.role, p.text) for p in view.fields[0].parts]  # doctest: +NORMALIZE_WHITESPACE
[('type', 'INT16T'), ('sign', 'negative'), ('payload', "two's complement + 2**N - 1"),
 ('terminator', 'end of field')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import SchemaLike, as_key_bytes
from ...errors import LexCodecError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from . import reference_decode
from .format import NAME

if TYPE_CHECKING:
    from .codec import SkvCodec


def inspect(codec: SkvCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """Each field's type byte, sign, payload, escapes and terminator (or NULL marker)."""
    data = as_key_bytes(NAME, key)
    parsed = None if schema is None else KeySchema.coerce(schema)
    annotate: list[list[Part]] = []
    if parsed is None:
        try:
            values = reference_decode.decode_schemaless(data, annotate)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
    else:
        values = codec.bind(parsed).careful_decode_from(data, 0, annotate)[0]
    fields = []
    for i, (value, parts) in enumerate(zip(values, annotate)):
        f = parsed.fields[i] if parsed is not None else None
        fields.append(FieldView(i, f.name if f else None, parts[0].start, parts[-1].end,
                                value, tuple(parts), f.type if f else ""))
    return Inspection(NAME, data, tuple(fields), (), None if parsed is None else str(parsed))
