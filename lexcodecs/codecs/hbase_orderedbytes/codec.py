"""The ``hbase-orderedbytes`` codec: options, capabilities, and a schema bound into a plan.

Theory of operation: binding checks each field (its ``encoding`` option against its type:
``numeric`` for int64/float64/float32 through ``OrderedNumeric``, ``blobvar``/``blobcopy`` for
bytes; where a BlobCopy may stand) and turns it into plan data, a :class:`FieldCode`
``(kind, descending, nullable)`` from the tables of ``format.py``, with the reference writer
and reader built from it (``reference_encode.field_writer`` /
``reference_decode.field_reader``). The bound object, :class:`BoundHBase`, writes the fields
end to end (``api="types"``: each ``DataType.encode`` in turn) or as HBase's ``Struct``
(``api="struct"``: trailing NULLs of nullable fields dropped, a missing tail read as NULL).
When ``lexcodecs._impl.compiled("hbase_orderedbytes")`` gives a compiled module, its
``CompiledBound`` is built from the same plan data; until one exists, the reference runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, NamedTuple

from ... import _impl
from ..._bytes import strinc
from ...codec import (
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    as_key_bytes,
)
from ...errors import DecodeError, LexCodecError
from ...inspection import Inspection, Part
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece, int_range
from ...schema import Field, KeySchema
from .anomalies import anomalies
from .format import (
    API_STRUCT,
    API_TYPES,
    BLOB_VAR,
    ENCODING_BLOBCOPY,
    ENCODINGS,
    FIELD_KINDS,
    FIELD_TYPES,
    FIXED_FLOATS,
    FIXED_INTS,
    KIND_BLOB_COPY,
    NAME,
    NULLABLE_KINDS,
    TERMINATOR,
    TEXT,
)
from .reference_decode import field_reader
from .reference_encode import field_writer

__all__ = ["BoundHBase", "FieldCode", "HBaseOrderedBytesCodec", "capabilities_for",
           "columnar_piece", "field_code"]

#: the package of the compiled module (``lexcodecs/codecs/hbase_orderedbytes/_compiled.pyx``)
PACKAGE: Final = "hbase_orderedbytes"


class FieldCode(NamedTuple):
    """The plan data of one field, shared by the reference tables and a compiled module."""

    kind: int
    descending: bool
    nullable: bool
    field_type: str


def field_code(field: Field) -> FieldCode:
    encoding = field.options.get("encoding")
    kind = FIELD_KINDS[(field.type, encoding if isinstance(encoding, str) else None)]
    return FieldCode(kind, field.descending, kind in NULLABLE_KINDS, field.type)


def capabilities_for(api: str) -> Capabilities:
    struct = api == API_STRUCT
    return Capabilities(
        field_types=FIELD_TYPES,
        decoding="schema",
        descending=True,
        nulls="fixed",
        injective=True,
        prefix_free=not struct,
        schemaless=False,
        float_policy=FloatPolicy(nan="highest", negative_zero="distinct", compare="repr"),
        anomalies=anomalies(api),
        int_range=None,
        text_nul=False,
        notes="byte-identical with Apache HBase 2.6.7 OrderedBytes and its types API "
              "(OrderedNumeric, OrderedInt8..64, OrderedFloat32/64, OrderedString, "
              "OrderedBlobVar, OrderedBlob" + (", Struct" if struct else "") + "); doubles in "
              "the numeric encoding as on JDK 19 and later; an ascending BlobCopy (the last "
              "field) is not prefix-free",
        readers=("Java (Apache HBase OrderedBytes / org.apache.hadoop.hbase.types)",
                 "Apache Phoenix-style readers of HBase row keys", "Python (lexcodecs)"),
    )


CAPABILITIES: Final = capabilities_for(API_TYPES)
STRUCT_CAPABILITIES: Final = capabilities_for(API_STRUCT)


class BoundHBase(BoundKey):
    """A bound ``hbase-orderedbytes`` schema, the reference implementation."""

    __slots__ = ("codes", "struct")

    def __init__(self, codec: HBaseOrderedBytesCodec, schema: KeySchema,
                 plans: Sequence[FieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self.struct = codec.options["api"] == API_STRUCT
        #: the plan data of each field (a compiled module is built from it)
        self.codes = tuple(field_code(f) for f in schema.fields)

    @property
    def nullable(self) -> tuple[bool, ...]:
        """Per field, whether it takes NULL (the fixed-width types refuse it, as HBase's)."""
        return tuple(code.nullable for code in self.codes)

    @property
    def prefix_free(self) -> bool:
        """False under Struct (a dropped NULL makes a key a prefix of others) and when the
        last field is an ascending BlobCopy (raw bytes to the end of the key)."""
        last = self.codes[-1]
        return not self.struct and not (last.kind == KIND_BLOB_COPY and not last.descending)

    def encode(self, values: Sequence[Any]) -> bytes:
        return self.careful_encode(values)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        return self.careful_decode(key)

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The fields end to end; under Struct, trailing NULLs of nullable fields dropped."""
        values = self._check_arity(values)
        end = len(values)
        if self.struct:
            while end > 0 and values[end - 1] is None and self.codes[end - 1].nullable:
                end -= 1
        out = []
        for i in range(end):
            try:
                out.append(self._encoders[i](values[i]))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return b"".join(out)

    def careful_decode(self, key: bytes, annotate: list[list[Part]] | None = None
                       ) -> tuple[Any, ...]:
        """Every field in turn (under Struct a missing tail of nullable fields is NULL);
        every byte must be read. *annotate* collects each field's parts (``inspect``)."""
        data = as_key_bytes(NAME, key)
        out: list[Any] = []
        pos = 0
        for i, plan in enumerate(self.plans):
            parts: list[Part] | None = None
            if annotate is not None:
                parts = []
                annotate.append(parts)
            if self.struct and pos == len(data) and self.codes[i].nullable:
                out.append(None)
                continue
            read = plan.decode
            assert read is not None
            try:
                value, pos = read(data, pos, parts)  # type: ignore[call-arg]
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            out.append(value)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)


    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))``. Under Struct a prefix ending in NULLs also covers its key with
        those NULLs dropped (when every later field is nullable, an extension that is NULL to
        the end is written that way), so the range starts there: exact for ascending NULLs
        (no header sorts below 05), a declared leak for descending ones."""
        values = self._check_arity(values, prefix=True)
        written = self._encode_prefix(values)
        start = written
        n = len(values)
        if self.struct and all(code.nullable for code in self.codes[n:]):
            end = n
            while end > 0 and values[end - 1] is None and self.codes[end - 1].nullable:
                end -= 1
            start = self._encode_prefix(values[:end])
        return start, strinc(written)


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel (``api="types"``, fields without options): the
    fixed-width ints (header, big-endian, sign bit flipped) and floats (header, IEEE order
    transform; a NaN is declined, the row API writes HBase's canonical one), ``int`` as the
    base-100 number of an integer (sqlite4's layout, ``lexcodecs/_centimal.pxi``), text
    (``34`` UTF-8 ``00``: a ``00`` inside is declined, the row API refuses it) and BlobVar
    bytes (``37``, 7-bit groups, the last with bit 7 clear); None for any other field. A
    NULL's bytes are the row API's (``05``, inverted when descending)."""
    t = field.type
    if t in FIXED_INTS:
        header, width, lo, hi = FIXED_INTS[t]
        piece = Piece(WRITERS["be"], width, FLAGS["signflip"], bytes((header,)), b"", lo, hi)
    elif t in FIXED_FLOATS:
        header, width, _ = FIXED_FLOATS[t]
        flags = FLAGS["float32"] if width == 4 else 0
        piece = Piece(WRITERS["float"], width, flags, bytes((header,)))
    elif t == "int":
        piece = Piece(WRITERS["centimal_int"], 0, 0, b"", b"", *int_range(t))
    elif t == "string":
        piece = Piece(WRITERS["bytes"], 0, FLAGS["refuse00"], bytes((TEXT,)),
                      bytes((TERMINATOR,)))
    elif t == "bytes":
        piece = Piece(WRITERS["bytes"], 1, FLAGS["seven_last"],
                      bytes((BLOB_VAR,)))
    else:
        return None
    return piece.descending(field.descending)


class HBaseOrderedBytesCodec(BaseCodec):
    """HBase ``OrderedBytes`` row keys (name ``hbase-orderedbytes``); see ``format.py`` and
    ``specs/hbase-orderedbytes.md``.

    >>> codec = HBaseOrderedBytesCodec()
    >>> codec.encode(("user", 42), "s:string, n:int32").hex(" ")
    '34 75 73 65 72 00 2b 80 00 00 2a'
    >>> codec.decode(bytes.fromhex("1802"), "d:decimal")
    (Decimal('1'),)
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    OPTIONS: ClassVar = {
        "api": Option(API_TYPES, "'types': each field's DataType.encode written in turn; "
                      "'struct': HBase's Struct (trailing NULLs dropped, a missing tail "
                      "decodes as NULL)", choices=(API_TYPES, API_STRUCT)),
    }
    FIELD_OPTIONS: ClassVar = {
        "encoding": Option(None, "'numeric' writes int64/float64/float32 with the "
                           "variable-length numeric encoding (OrderedNumeric) instead of "
                           "the fixed width; bytes: 'blobvar' (OrderedBlobVar, the default) "
                           "or 'blobcopy' (OrderedBlob, raw bytes)", choices=ENCODINGS),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._capabilities = (STRUCT_CAPABILITIES if self.options["api"] == API_STRUCT
                              else CAPABILITIES)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        super().check_field(index, field, schema)
        encoding = field.options.get("encoding")
        if (field.type, encoding) not in FIELD_KINDS:
            allowed = sorted(str(e) for t, e in FIELD_KINDS if t == field.type and e)
            raise self.refuse(index, field, f"encoding={encoding} is not an encoding of "
                              f"{field.type}", "encoding=" + " or ".join(allowed)
                              if allowed else "no encoding option")
        if encoding != ENCODING_BLOBCOPY:
            return
        n = len(schema)
        if self.options["api"] == API_STRUCT:
            if index < n - 2:
                raise self.refuse(index, field, "Struct refuses a non-skippable field "
                                  "(OrderedBlob) before the last two", "encoding=blobvar, "
                                  "or the BlobCopy as one of the last two fields")
        elif index != n - 1 and not field.descending:
            raise self.refuse(index, field, "an ascending BlobCopy runs to the end of the "
                              "key: only the last field", "encoding=blobvar, or the last "
                              "field")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        code = field_code(field)
        return FieldPlan(index, field,
                         field_writer(code.kind, code.descending, field.type, code.nullable),
                         field_reader(code.kind, code.descending, field.type,
                                      code.nullable))  # type: ignore[arg-type]

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        module = _impl.compiled(PACKAGE)
        if module is not None:
            return module.CompiledBound(self, schema, plans)  # type: ignore[no-any-return]
        return BoundHBase(self, schema, plans)

    def bind(self, schema: SchemaLike) -> BoundHBase:
        return self.bind_as(schema, BoundHBase)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's header, exponent, mantissa, payload and terminator (or NULL)."""
        from .explain import inspect

        return inspect(self, key, schema)
