"""A bound ``orderly`` schema: the Orderly struct of its fields (spec §11), in reference Python.

Theory of operation: binding picks one field codec per field (:data:`FIELD_CODECS`, by kind,
built for the field's effective order) and keeps each field's declared termination. Every
operation walks the fields; the writing ones assign terminations back to front (spec §11.3,
see :func:`terminated`). :class:`BoundOrderly` is the reference implementation of the struct and
the public ``RowKey`` operations (``serialized_length``, ``field_lengths``, ``skip``,
``field_offsets``); :meth:`BoundOrderly.careful_decode` given a sink is also the annotated read
that ``inspect`` is (``explain.py``). The compiled module's bound class is a subclass whose
``encode`` and ``decode`` run compiled and hand anything they do not take as their own to
:meth:`BoundOrderly.careful_encode` / :meth:`BoundOrderly.careful_decode`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..._bytes import strinc
from ...codec import BoundKey, FieldPlan, as_key_bytes
from ...errors import DecodeError, LexCodecError
from ...schema import Field, KeySchema
from .format import (
    AUTO,
    K_DECIMAL,
    K_FIXED_BYTES,
    K_FIXED_INT,
    K_FLOAT,
    K_STRING,
    K_VAR_BYTES,
    K_VARINT,
    KINDS,
    MUST,
    NAME,
    SHOULD_NOT,
)
from .reference_bytes import FixedBytes, String, VarBytes
from .reference_decimal import Decimal
from .reference_field import FieldCodec, Sink
from .reference_numbers import FixedInt, Float, VarInt

if TYPE_CHECKING:
    from .codec import OrderlyCodec


#: the field codec class of each field kind (format.KINDS)
FIELD_CODECS: dict[int, type[FieldCodec]] = {
    K_VARINT: VarInt, K_FIXED_INT: FixedInt, K_FLOAT: Float, K_DECIMAL: Decimal,
    K_STRING: String, K_FIXED_BYTES: FixedBytes, K_VAR_BYTES: VarBytes,
}


def field_kind(field: Field) -> int:
    return KINDS[(field.type, str(field.options.get("encoding", "var")))]


@functools.lru_cache(maxsize=1024)
def field_codec(field: Field, desc: bool) -> FieldCodec:
    """The codec of *field*, effectively descending when *desc* (made once for each: a field
    codec holds no state, and making one costs more than the bind around it)."""
    return FIELD_CODECS[field_kind(field)](field, desc)


def terminated(declared: str, struct_term: str, later: bool, desc: bool) -> bool:
    """``t`` of a field (spec §11.3): its declared termination when ``SHOULD_NOT``, else
    ``MUST`` when a *later* field is non-empty, else the struct's; then ``MUST`` -> true,
    ``AUTO`` -> true exactly when descending."""
    term = SHOULD_NOT if declared == SHOULD_NOT else MUST if later else struct_term
    return term == MUST or (term == AUTO and desc)


class BoundOrderly(BoundKey):
    """A bound ``orderly`` schema: the struct of its fields (spec §11)."""

    __slots__ = ("codecs", "declared", "decode", "encode", "nullable", "order_schema",
                 "struct_termination")

    def __init__(self, codec: OrderlyCodec, schema: KeySchema, plans: Sequence[FieldPlan]
                 ) -> None:
        super().__init__(codec, schema, plans)
        desc = codec.struct_desc
        self.codecs: tuple[FieldCodec, ...] = tuple(
            field_codec(f, f.descending != desc) for f in schema.fields)
        self.declared = tuple(str(f.options.get("termination", AUTO)) for f in schema.fields)
        self.struct_termination = str(codec.options["struct_termination"])
        #: per field: whether it takes None (read by the conformance harness)
        self.nullable = tuple(fc.nullable for fc in self.codecs)
        #: the schema whose natural order the keys follow: struct_order=desc flips every
        #: field, NULL staying the lowest value (read by the conformance harness)
        self.order_schema = schema if not desc else KeySchema(tuple(
            Field(f.name, f.type, not f.descending, None, f.options) for f in schema.fields))
        # slots shadowing the methods: the compiled subclass puts its own there
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]

    @property
    def prefix_free(self) -> bool:
        return False

    def _checked(self, values: Sequence[Any], *, prefix: bool = False) -> list[Any]:
        values = self._check_arity(values, prefix=prefix)
        out = []
        for i, (fc, v) in enumerate(zip(self.codecs, values)):
            try:
                out.append(None if v is None and fc.nullable else fc.check(v))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return out

    def _parts(self, values: list[Any], struct_term: str) -> list[bytes]:
        """Each field's bytes, terminations assigned back to front (spec §11.3)."""
        parts: list[bytes] = [b""] * len(values)
        later = False
        for i in range(len(values) - 1, -1, -1):
            fc = self.codecs[i]
            t = terminated(self.declared[i], struct_term, later, fc.desc)
            v = values[i]
            try:
                data = fc.write_null(t) if v is None else fc.write(v, t)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            parts[i] = data
            later = later or bool(data)
        return parts

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, with every refusal explained."""
        return b"".join(self._parts(self._checked(values), self.struct_termination))

    def field_lengths(self, values: Sequence[Any]) -> tuple[int, ...]:
        checked = self._checked(values)
        lengths = [0] * len(checked)
        later = False
        for i in range(len(checked) - 1, -1, -1):
            fc = self.codecs[i]
            t = terminated(self.declared[i], self.struct_termination, later, fc.desc)
            v = checked[i]
            lengths[i] = fc.null_length(t) if v is None else fc.length(v, t)
            later = later or bool(lengths[i])
        return tuple(lengths)

    def serialized_length(self, values: Sequence[Any]) -> int:
        return sum(self.field_lengths(values))

    def careful_decode(self, key: bytes, sink: Sink | None = None) -> tuple[Any, ...]:
        """The reference reading, with the field and offset of every error; each field codec
        reports the parts it reads to *sink* when one is given (``inspect``)."""
        data = as_key_bytes(NAME, key)
        out = []
        pos = 0
        for i, fc in enumerate(self.codecs):
            try:
                value, pos = fc.read(data, pos, sink)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)

    def skip(self, key: bytes, field: int, offset: int) -> int:
        data = as_key_bytes(NAME, key)
        if not 0 <= field < len(self.codecs):
            raise IndexError(f"field {field} of a schema of {len(self.codecs)} fields")
        fc = self.codecs[field]
        try:
            return fc.skip(data, offset)
        except LexCodecError as exc:
            raise self._context(exc, field) from None

    def field_offsets(self, key: bytes) -> tuple[int, ...]:
        offsets = [0]
        for i in range(len(self.codecs)):
            offsets.append(self.skip(key, i, offsets[-1]))
        return tuple(offsets)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """[the prefix as a k-field struct, strinc(the prefix with every field MUST)) (§14.9)."""
        checked = self._checked(values, prefix=True)
        if not checked:
            return b"", None
        start = b"".join(self._parts(checked, self.struct_termination))
        return start, strinc(b"".join(self._parts(checked, MUST)))
