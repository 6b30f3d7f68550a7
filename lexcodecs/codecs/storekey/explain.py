"""``inspect`` for ``storekey``: a decode that annotates every span it reads.

Theory of operation: the reference readers (``reference_decode.py``) take an optional list of
:class:`~lexcodecs.inspection.Part`; given one, each reader appends what it read -- Option tags
(``some``/``none``), a fixed-width value, a string's text and ``00``, a bytes field's length and
payload, a sequence's elements and ``01``. So an inspection reads the key exactly as a decode
does and raises the same :class:`~lexcodecs.errors.DecodeError` for bytes that are not a key
(bytes left over included). The format is not self-describing, so a schema is required.

>>> from lexcodecs import _impl
>>> from lexcodecs.codecs.storekey import StorekeyCodec
>>> for name in _impl.IMPLEMENTATIONS:  # the same parts on both implementations
...     with _impl.use(name):
...         view = StorekeyCodec().inspect(bytes.fromhex("01 61 00 80 00 00 07"),
...                                        "s:string nullable=true, n:int32")
...     print(name, [(p.role, p.text) for p in view.fields[0].parts])
compiled [('some', 'Some'), ('text', 'UTF-8'), ('terminator', 'end of string')]
reference [('some', 'Some'), ('text', 'UTF-8'), ('terminator', 'end of string')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...codec import SchemaLike, as_key_bytes
from ...errors import DecodeError, NotDecodableError
from ...inspection import FieldView, Inspection, Part
from ...schema import KeySchema
from .format import NAME, RUST_TYPES

if TYPE_CHECKING:
    from .codec import StorekeyCodec


def rust_type(field_type: str, seq: bool, layers: int) -> str:
    """The Rust type a field stands for: ``Option<Option<i32>>``, ``Vec<u8>``."""
    name = RUST_TYPES["bytes repr=seq" if seq else field_type]
    for _ in range(layers):
        name = f"Option<{name}>"
    return name


def inspect(codec: StorekeyCodec, key: Any, schema: SchemaLike | None = None) -> Inspection:
    """Each field's tags and bytes, annotated; the key must decode whole under *schema*."""
    data = as_key_bytes(NAME, key)
    if schema is None:
        raise NotDecodableError("storekey keys are not self-describing: inspect needs the "
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
    for i, (value, end, parts) in enumerate(zip(values, ends, annotate)):
        f = parsed.fields[i]
        code = bound.codes[i]
        described = rust_type(f.type, f.options.get("repr") == "seq", code.layers)
        fields.append(FieldView(i, f.name, start, end, value, tuple(parts),
                                f"{f.type} ({described})"))
        start = end
    return Inspection(NAME, data, tuple(fields), (), str(parsed))
