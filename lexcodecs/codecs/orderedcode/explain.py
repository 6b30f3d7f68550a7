"""``inspect`` for ``orderedcode``: a decode that annotates every span it reads.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list of
:class:`~lexcodecs.inspection.Part`; given one, each reader appends what it read -- string
payload chunks, ``00 ff`` / ``ff 00`` escapes and the ``00 01`` terminator, INFINITY, an
int64 with its length bits, a uint64's length byte and payload, a float64 as its int64. So an
inspection reads the key exactly as a decode does and raises the same
:class:`~lexcodecs.errors.DecodeError` for bytes that are not a key. The format is not
self-describing, so a schema is required.

>>> from lexcodecs import _impl
>>> from lexcodecs.codecs.orderedcode import OrderedCodeCodec
>>> for name in _impl.IMPLEMENTATIONS:  # the same parts on both implementations
...     with _impl.use(name):
...         view = OrderedCodeCodec().inspect(bytes.fromhex("61 00 01 c0 40"),
...                                           "s:string, n:int64")
...     print(name, [(p.role, p.text) for p in view.fields[1].parts])
compiled [('int64', '2 bytes: length bits, then value')]
reference [('int64', '2 bytes: length bits, then value')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError, NotDecodableError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import NAME
from .reference_decode import kind_name

if TYPE_CHECKING:
    from .codec import OrderedCodeCodec


def inspect(codec: OrderedCodeCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """Each field's item, annotated; the key must decode whole under *schema*."""
    data = as_key_bytes(NAME, key)
    if schema is None:
        raise NotDecodableError("orderedcode keys are not self-describing: inspect needs the "
                                "schema", codec=NAME, expected="inspect(key, schema)")
    parsed = KeySchema.coerce(schema)
    bound = codec.bind(parsed)
    annotate: list[list[Part]] = []
    values, ends = bound.read_fields(data, annotate)
    if ends[-1] != len(data):
        raise DecodeError("bytes left after the last field", codec=NAME, offset=ends[-1],
                          found=data[ends[-1]:], expected="end of key")
    fields = []
    start = 0
    for i, (value, end, parts, code) in enumerate(zip(values, ends, annotate, bound.codes)):
        f = parsed.fields[i]
        fields.append(FieldView(i, f.name, start, end, value, tuple(parts),
                                f"{f.type} ({kind_name(code)})"))
        start = end
    return Inspection(NAME, data, tuple(fields), (), str(parsed))
