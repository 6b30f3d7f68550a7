"""The ``storekey`` codec: options, capabilities, and a schema bound into one plan.

Theory of operation: binding checks the schema once (the types, 128-bit integers refused as
storekey 0.5 refuses them, ``repr`` on bytes only, no descending field) and turns every field
into plan data, a :class:`~.format.FieldCode` ``(kind, width, layers)``, with the reference
writer and reader built from it (``reference_encode.field_writer`` /
``reference_decode.field_reader``). The bound object, :class:`BoundStorekey`, offers:

* ``encode(values)`` / ``decode(key)``: the whole key (decode refuses bytes left over);
* ``parse(key)``: ``storekey::deserialize``: the values and the bytes after the last field
  (which the crate ignores);
* ``encode_prefix(values)``: the first ``len(values)`` fields (arity checked by the caller);
* ``prefix_range(values)``: ``[P, strinc(P))``.

Its ``nullable`` (per field: whether it is an ``Option``) tells the conformance harness where
NULL goes. Under the reference implementation the operations are the ``careful_*`` methods
below. When ``lexcodecs._impl.compiled("storekey")`` gives a compiled module, the bound object
is its ``CompiledBound``, built from the same plans (``codes``), which hands anything unusual
to the ``careful_*`` methods.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

import attrs

from ... import _impl
from ..._bytes import strinc
from ...codec import BaseCodec, BoundKey, Capabilities, FieldPlan, FloatPolicy, SchemaLike
from ...errors import LexCodecError, SchemaError
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field, KeySchema
from .._fields import FieldsBound
from .._serde import NULLABLE, REPR, layers_of
from . import reference_decode, reference_encode
from .anomalies import ANOMALIES
from .format import (
    FIELD_KINDS,
    KIND_BOOL,
    KIND_FLOAT32,
    KIND_FLOAT64,
    KIND_INT,
    KIND_SEQ,
    KIND_STRING,
    KIND_UINT,
    NAME,
    REFUSED_TYPES,
    REPR_BYTES,
    REPR_SEQ,
    FieldCode,
    field_code,
)

__all__ = ["CAPABILITIES", "PACKAGE", "BoundStorekey", "StorekeyCodec", "StorekeyFieldPlan",
           "columnar_piece"]

#: the package of the compiled module (``lexcodecs/codecs/storekey/_compiled.pyx``)
PACKAGE: Final = "storekey"

CAPABILITIES: Final = Capabilities(
    field_types=set(FIELD_KINDS),
    decoding="schema",
    descending=False,
    nulls="first",
    injective=False,
    prefix_free=False,
    schemaless=False,
    float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=False,
    notes="byte-identical with SurrealDB's storekey 0.5.0 (serialize / deserialize), what "
          "SurrealDB 2.x writes; not self-describing; NULL only in nullable=true|2 fields "
          "(Rust Option); strings holding U+0000 are written raw and do not round-trip; "
          "no 128-bit integers and no descending order (storekey 0.7+ is another format)",
    readers=("Rust (storekey 0.5: SurrealDB 2.x)", "Python (lexcodecs)"),
)


@functools.lru_cache(maxsize=1024)
def _field_parts(field: Field) -> tuple[Any, Any, Any]:
    """A field's code, writer and reader, made once per field (identify binds thousands of
    schemas of the same few fields)."""
    code = field_code(field.type, field.options.get("repr") == REPR_SEQ, layers_of(field))
    return (code, reference_encode.field_writer(code, field.type),
            reference_decode.field_reader(code))


@attrs.frozen
class StorekeyFieldPlan(FieldPlan):
    """A field's plan: its plan data, and the reference writer and reader built from it."""

    code: FieldCode = attrs.field(kw_only=True)


class BoundStorekey(FieldsBound):
    """A bound ``storekey`` schema, the reference implementation."""

    # slots shadowing the methods: calls reach the implementation with no frame between
    __slots__ = ("_readers", "codes", "decode", "encode", "encode_prefix", "nullable", "parse")

    def __init__(self, codec: StorekeyCodec, schema: KeySchema,
                 plans: Sequence[StorekeyFieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self.codes = tuple(p.code for p in plans)
        #: per field: whether it takes None (an Option; read by the conformance harness)
        self.nullable = tuple(c.layers > 0 for c in self.codes)
        self._readers = tuple(cast(reference_decode.Reader, p.decode) for p in plans)
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]
        self.parse = self.careful_parse
        self.encode_prefix = self.careful_encode_prefix

    @property
    def prefix_free(self) -> bool:
        """False with a string or sequence field: 'a' (61 00) is a prefix of 'a\\x00'."""
        return not any(c.kind in (KIND_STRING, KIND_SEQ) for c in self.codes)

    # -- the reference operations ------------------------------------------------------------

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing of a whole key, with every refusal explained."""
        return self.careful_encode_prefix(self._check_arity(values))

    def careful_encode_prefix(self, values: Sequence[Any]) -> bytes:
        """The first ``len(values)`` fields (whose arity the caller has checked)."""
        out = []
        for i, v in enumerate(values):
            try:
                out.append(self._encoders[i](v))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return b"".join(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))``: every field ends where its own bytes say (the declared
        string and sequence anomalies aside)."""
        values = self._check_arity(values, prefix=True)
        start = self.encode_prefix(values)
        return start, strinc(start)


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel, after its Option tags (``01`` per layer; a
    NULL is ``00``): bool, integers and variants (big-endian, the sign bit flipped for
    signed ones), floats (the IEEE order transform; a NaN is declined), strings (UTF-8 and
    ``00``), serde_bytes (a u64 length, then the data: ``_layout.pxi``) and byte sequences
    (the data, then ``01``); None for chars (one character each, U+0000 refused): the row
    API writes them."""
    kind, width = FIELD_KINDS[field.type]
    layers = layers_of(field)
    tags = b"\x01" * layers
    null = b"\x00" if layers else None
    if kind == KIND_BOOL:
        return Piece(WRITERS["bool"], 1, 0, tags, null=null)
    if kind in (KIND_INT, KIND_UINT):
        code = FieldCode(kind, width, 0)
        flags = FLAGS["signflip"] if kind == KIND_INT else 0
        return Piece(WRITERS["be"], width, flags, tags, lo=code.lo, hi=code.hi, null=null)
    if kind == KIND_FLOAT32:
        return Piece(WRITERS["float"], 4, FLAGS["float32"], tags, null=null)
    if kind == KIND_FLOAT64:
        return Piece(WRITERS["float"], 8, 0, tags, null=null)
    if kind == KIND_STRING:
        return Piece(WRITERS["bytes"], 0, 0, tags, b"\x00", null=null)
    if field.type == "bytes" and field.options.get("repr", "bytes") == "seq":
        return Piece(WRITERS["bytes"], 0, 0, tags, b"\x01", null=null)
    if field.type == "bytes":
        return Piece(WRITERS["bytes"], 8, FLAGS["storekey_bytes"], tags, null=null)
    return None


class StorekeyCodec(BaseCodec):
    """SurrealDB storekey 0.5.0 keys (registry name ``storekey``); see ``format.py`` and
    ``specs/storekey.md``.

    Field types ``bool``, ``int8``..``int64``, ``uint8``..``uint64``, ``float32``,
    ``float64``, ``string``, ``char``, ``bytes`` and ``variant`` (an enum's variant index).
    Field options ``nullable`` (``true``: ``Option<T>``, ``2``: ``Option<Option<T>>``) and
    ``repr`` (``seq`` on a bytes field: a plain ``Vec<u8>``). No descending fields, no codec
    options; keys decode with a schema only.
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece,
                                     options=frozenset({"nullable", "repr"}))
    CAPABILITIES: ClassVar[Capabilities] = CAPABILITIES
    FIELD_OPTIONS: ClassVar = {"nullable": NULLABLE, "repr": REPR}

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        refused = REFUSED_TYPES.get(field.type)
        if refused is not None:
            # the crate refuses them when it writes one (serde's default); here at bind
            raise SchemaError(f"storekey 0.5 has no 128-bit integers ({refused})",
                              codec=self.name, field=index, field_name=field.name,
                              field_type=field.type, value=field.type,
                              expected="an integer of at most 64 bits (int64, uint64)")
        super().check_field(index, field, schema)
        if field.options.get("repr", REPR_BYTES) != REPR_BYTES and field.type != "bytes":
            raise self.refuse(index, field, "repr is an option of bytes fields",
                              "a bytes field, or no repr")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        code, write, read = _field_parts(field)
        return StorekeyFieldPlan(index, field, write, read, code=code)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        ours = [p for p in plans if isinstance(p, StorekeyFieldPlan)]
        assert len(ours) == len(plans), "every plan comes from plan_field"
        module = _impl.compiled(PACKAGE)
        cls: type[BoundStorekey] = BoundStorekey if module is None else module.CompiledBound
        return cls(self, schema, ours)

    def bind(self, schema: SchemaLike) -> BoundStorekey:
        return self.bind_as(schema, BoundStorekey)

    def parse(self, key: bytes, schema: SchemaLike) -> tuple[tuple[Any, ...], bytes]:
        """``storekey::deserialize``: the values of *schema*'s fields and the bytes after
        them (which the crate ignores, and :meth:`decode` refuses)."""
        return self.bind(schema).parse(key)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's Option tags and value bytes: a string's text and ``00``, a bytes
        field's length and payload, a sequence's elements and ``01``."""
        from .explain import inspect

        return inspect(self, key, schema)
