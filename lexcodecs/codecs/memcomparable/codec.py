"""The ``memcomparable`` codec: options, capabilities, and a schema bound into one plan.

Theory of operation: binding checks each field (its type, ``nullable``, ``repr``, order) and
turns it into a :class:`~.format.FieldLayout` -- the format's data for it: kind, width, Option
layers, direction -- with the reference encoder and decoder built from it
(``reference_encode.field_encoder`` / ``reference_decode.field_decoder``). The bound object
is :class:`BoundMemcomparable` (the reference) or, when ``lexcodecs._impl`` gives the compiled
module, its ``CompiledBoundMemcomparable``, built from the same layouts, which hands anything
it does not take as its own to the ``careful_*`` methods here for the whole key. Keys decode
only with a schema: no byte of a key says its type.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

import attrs

from ... import _impl
from ...codec import (
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    SchemaLike,
    as_key_bytes,
)
from ...errors import DecodeError, LexCodecError
from ...inspection import Inspection, Part
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field, KeySchema
from .._serde import NULLABLE, REPR, layers_of
from . import reference_decode, reference_encode
from .anomalies import ANOMALIES
from .format import FORMATS, K_BOOL, K_FLOAT32, K_FLOAT64, K_INT, K_UINT, NAME, FieldLayout

__all__ = ["CAPABILITIES", "PACKAGE", "BoundMemcomparable", "MemcomparableCodec"]

#: the package of the compiled module (``lexcodecs/codecs/memcomparable/_compiled.pyx``)
PACKAGE: Final = "memcomparable"

CAPABILITIES: Final = Capabilities(
    field_types=set(FORMATS),
    decoding="schema",
    descending=True,
    nulls="fixed",
    injective=True,
    prefix_free=True,
    schemaless=False,
    float_policy=FloatPolicy(nan="highest", negative_zero="equal"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=True,
    notes="byte-identical with RisingWave's memcomparable crate 0.2.0 (feature decimal); a "
          "field takes NULL only with nullable=true (Option<T>) or 2 (Option<Option<T>>); "
          "decimals within rust_decimal's range",
    readers=("Rust (memcomparable crate: RisingWave, GreptimeDB)", "Python (lexcodecs)"),
)


@functools.lru_cache(maxsize=1024)
def _field_parts(field: Field) -> tuple[FieldLayout, Any, Any]:
    """A field's layout, encoder and decoder, made once per field (identify binds thousands
    of schemas of the same few fields)."""
    layout = FieldLayout.of(field)
    return layout, reference_encode.field_encoder(layout), reference_decode.field_decoder(layout)


@attrs.frozen
class MemcomparableFieldPlan(FieldPlan):
    """A field's plan: its layout, and the reference encoder and decoder built from it."""

    layout: FieldLayout = attrs.field(kw_only=True)


class BoundMemcomparable(BoundKey):
    """A bound ``memcomparable`` schema, the reference implementation."""

    # slots shadowing the methods: the compiled subclass puts its own there
    __slots__ = ("_readers", "decode", "encode", "layouts", "nullable")

    def __init__(self, codec: MemcomparableCodec, schema: KeySchema,
                 plans: Sequence[MemcomparableFieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self.layouts = tuple(p.layout for p in plans)
        #: per field: whether it takes None (read by the conformance harness)
        self.nullable = tuple(layout.layers > 0 for layout in self.layouts)
        self._readers = tuple(cast(reference_decode.Reader, p.decode) for p in plans)
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, field by field, with every refusal explained."""
        return BoundKey.encode(self, values)

    def careful_decode(self, key: bytes, annotate: list[list[Part]] | None = None
                       ) -> tuple[Any, ...]:
        """The reference reading, with the field and offset of every error; *annotate*
        collects each field's parts (``inspect``)."""
        data = as_key_bytes(NAME, key)
        out = []
        pos = 0
        for i, read in enumerate(self._readers):
            parts: list[Part] | None = None
            if annotate is not None:
                parts = []
                annotate.append(parts)
            try:
                value, pos = read(data, pos, parts)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("trailing characters: bytes left after the last field",
                              codec=NAME, offset=pos, found=data[pos:], expected="end of key")
        return tuple(out)


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel, after its Option tags (``01`` per layer; a
    NULL is ``00``): the fixed-width integers big-endian (signed: sign bit flipped), the
    floats by the IEEE transform of their value (``zero_up``: -0.0 as +0.0; the kernel
    declines a NaN, which the row API writes canonical), bool, strings and serde_bytes (the
    flag and 8-byte groups of ``_layout.pxi``); None for any other field (the row API writes
    it)."""
    fmt = FORMATS[field.type]
    if field.type == "bytes" and field.options.get("repr", "bytes") != "bytes":
        return None  # a Vec<u8> as a sequence: the row API writes it
    layers = layers_of(field)
    tags = bytes((1,)) * layers
    null = bytes((0,)) if layers else None
    if fmt.kind in (K_INT, K_UINT):
        flags = FLAGS["signflip"] if fmt.kind == K_INT else 0
        piece = Piece(WRITERS["be"], fmt.width, flags, tags, b"", fmt.lo, fmt.hi, null=null)
    elif fmt.kind in (K_FLOAT32, K_FLOAT64):
        flags = FLAGS["zero_up"] | (FLAGS["float32"] if fmt.kind == K_FLOAT32 else 0)
        piece = Piece(WRITERS["float"], fmt.width, flags, tags, null=null)
    elif field.type in ("string", "bytes"):
        piece = Piece(WRITERS["bytes"], 10, FLAGS["memcomparable_bytes"], tags, null=null)
    elif fmt.kind == K_BOOL:
        piece = Piece(WRITERS["bool"], 1, 0, tags, null=null)
    else:
        return None
    return piece.descending(field.descending)


class MemcomparableCodec(BaseCodec):
    """RisingWave's memcomparable keys (registry name ``memcomparable``); see ``format.py``
    and ``docs/codecs/memcomparable.md``.

    >>> codec = MemcomparableCodec()
    >>> codec.encode((1, "abc"), "n:int32, s:string desc").hex(" ")
    '80 00 00 01 fe 9e 9d 9c ff ff ff ff ff fc'
    >>> codec.decode(bytes.fromhex("01 80 00 00 07"), "n:int32 nullable=true")
    (7,)
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece,
                                     options=frozenset({"nullable", "repr"}))
    CAPABILITIES: ClassVar[Capabilities] = CAPABILITIES
    FIELD_OPTIONS: ClassVar = {"nullable": NULLABLE, "repr": REPR}

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        super().check_field(index, field, schema)
        if field.type != "bytes" and field.options.get("repr", "bytes") != "bytes":
            raise self.refuse(index, field, "repr=seq is a bytes field's form (Vec<u8>)",
                              "repr only on a bytes field")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        layout, encode, decode = _field_parts(field)
        return MemcomparableFieldPlan(index, field, encode, decode, layout=layout)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        mc_plans = [p for p in plans if isinstance(p, MemcomparableFieldPlan)]
        assert len(mc_plans) == len(plans), "every plan comes from plan_field"
        module = _impl.compiled(PACKAGE)
        cls: type[BoundMemcomparable] = (BoundMemcomparable if module is None
                                         else module.CompiledBoundMemcomparable)
        return cls(self, schema, mc_plans)

    def bind(self, schema: SchemaLike) -> BoundMemcomparable:
        return self.bind_as(schema, BoundMemcomparable)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's Option tags, flag, groups and markers, digits (needs a schema)."""
        from .explain import inspect

        return inspect(self, key, schema)
