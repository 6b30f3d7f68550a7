"""The ``sqlite4`` codec: options, capabilities, and the binding of a schema into a plan.

Theory of operation: binding checks each field (``final=true`` only on the last, ascending,
bytes field) and turns it into plan data -- ``(kind, descending, lo, hi)`` from the tables of
``format.py`` -- and a :class:`~lexcodecs.codec.FieldPlan` whose writer and reader come from
the reference tables (``reference_encode.field_writer`` / ``reference_decode.field_reader``:
NULL fixed at ``05``, a descending value complemented). The bound object is
:class:`BoundSqlite4` (the reference) or, when ``lexcodecs._impl`` gives the compiled module,
its ``CompiledBound``, built from the same plan data, which hands anything it does not take as
its own to the reference methods for the whole key. The table-number option is a varint
before the values, always ascending. Schemaless keys go the same two ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    _as_values,
    as_key_bytes,
)
from ...errors import DecodeError, EncodeError, LexCodecError
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece, int_range
from ...schema import Field, KeySchema
from ...types import INT_TYPES
from . import explain
from . import format as _format
from .anomalies import ANOMALIES
from .format import EMPTY_PREFIX_STOP, FIELD_KINDS, INT_RANGES, KIND_FINAL, NAME, VARINT_MAX
from .reference_decode import Sink, field_reader, read_any, read_varint
from .reference_encode import SCHEMALESS_WRITERS, encode_varint, field_writer, schemaless_writer_for

__all__ = ["CAPABILITIES", "BoundSqlite4", "FieldCode", "Sqlite4Codec", "field_code"]

#: the package of the compiled module (``lexcodecs/codecs/sqlite4/_compiled.pyx``)
PACKAGE: Final = "sqlite4"


class FieldCode(NamedTuple):
    """The plan data of one field, shared by the reference tables and the compiled module."""

    kind: int
    descending: bool
    lo: int | None  # the int range of a bounded int field, else None
    hi: int | None


def field_code(field: Field) -> FieldCode:
    kind = KIND_FINAL if field.options.get("final", False) else FIELD_KINDS[field.type]
    lo, hi = INT_RANGES.get(field.type, (None, None))
    return FieldCode(kind, field.descending, lo, hi)


def _check_table(value: Any) -> str | None:
    if value is None or (type(value) is int and 0 <= value <= VARINT_MAX):
        return None
    return "None or a table number 0..2^64-1 (an int)"


def _guess_table(keys: Sequence[bytes]) -> tuple[int, ...]:
    """The table number every key starts with, if they all start with the same varint (a
    guess for keys nobody documented: a key's values follow its table number)."""
    tables = set()
    for key in keys:
        try:
            tables.add(read_varint(key, 0, False, "table number")[0])
        except LexCodecError:
            return ()
        if len(tables) > 1:
            return ()
    return tuple(tables)


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: the base-100 integers and floats, text
    (``24`` UTF-8 ``00``: a ``00`` inside is declined, the row API refuses it) and bytes
    (``25``, 7-bit groups, ``00``); None for any other field (the row API writes it)."""
    t = field.type
    if t in INT_TYPES or t == "int":
        piece = Piece(WRITERS["centimal_int"], 0, 0, b"", b"", *int_range(t))
    elif t == "float64":
        piece = Piece(WRITERS["sqlite4_float"], 8)
    elif t == "string":
        piece = Piece(WRITERS["bytes"], 0, FLAGS["refuse00"], bytes((_format.TEXT,)), b"\x00")
    elif t == "bytes":
        piece = Piece(WRITERS["bytes"], 0, FLAGS["seven"], bytes((_format.BINARY,)), b"\x00")
    else:
        return None
    return piece.descending(field.descending)


class Sqlite4Codec(BaseCodec):
    """SQLite4 keys (registry name ``sqlite4``); see ``format.py`` and ``specs/sqlite4.md``.

    >>> import decimal
    >>> codec = Sqlite4Codec()
    >>> codec.encode((42, "abc", b"\\x01\\x02", decimal.Decimal("1.5"))).hex(" ")
    '18 54 24 61 62 63 00 25 80 c0 c0 00 18 03 64'
    >>> codec.decode(bytes.fromhex("18 54 db 9e 9d 9c ff"), "n:int, s:string desc")
    (42, 'abc')
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    OPTIONS: ClassVar = {
        "table": Option(None, "the table number written as a varint before the values "
                        "(None: no table number)", check=_check_table, guess=_guess_table),
    }
    FIELD_OPTIONS: ClassVar = {
        "final": Option(False, "write a bytes field as SQLite4's final binary (26, raw bytes "
                        "to the end of the key); only the last field, only ascending",
                        choices=(True, False)),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        table = self.options["table"]
        self.table_prefix: bytes = b"" if table is None else encode_varint(table)
        # the schemaless encode/decode pair of each implementation, made on first use
        self._schemaless: dict[str, Any] = {}

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        super().check_field(index, field, schema)
        if field.options.get("final", False):
            if field.type != "bytes":
                raise self.refuse(index, field, "final binary is a bytes form", "type bytes")
            if index != len(schema) - 1:
                raise self.refuse(index, field, "final binary is allowed only on the last "
                                  "field (it runs to the end of the key)", "the last field")
            if field.descending:
                raise self.refuse(index, field, "final binary cannot be descending: the "
                                  "inverted raw bytes have no terminator, so DESC 'a' (d9 9e) "
                                  "would sort before DESC 'ab' (d9 9e 9d)",
                                  "an ascending final field, or final=false")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        code = field_code(field)
        return FieldPlan(index, field, field_writer(code.kind, code.descending, field.type,
                                                    code.lo, code.hi),
                         field_reader(code.kind, code.descending, field.type, code.lo,
                                      code.hi))

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        module = _impl.compiled(PACKAGE)
        if module is not None:
            return module.CompiledBound(self, schema, plans)  # type: ignore[no-any-return]
        return BoundSqlite4(self, schema, plans)

    def bind(self, schema: SchemaLike) -> BoundSqlite4:
        return self.bind_as(schema, BoundSqlite4)

    # -- encode and decode ----------------------------------------------------------------

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        if schema is None:
            paths = self._schemaless.get(_impl.current) or self._paths()
            return paths[0](values)  # type: ignore[no-any-return]
        return self.bind(schema).encode(values)

    def decode(self, key: bytes, schema: SchemaLike | None = None) -> tuple[Any, ...]:
        if schema is None:
            paths = self._schemaless.get(_impl.current) or self._paths()
            return paths[1](key)  # type: ignore[no-any-return]
        return self.bind(schema).decode(key)

    def _paths(self) -> Any:
        """The schemaless (encode, decode) of the implementation in force, made once."""
        reference = (self.reference_encode, self.reference_decode)
        module = _impl.compiled(PACKAGE)
        paths: Any = reference
        if module is not None:
            schemaless = module.Schemaless(self.table_prefix, *reference)
            paths = (schemaless.encode, schemaless.decode)
        self._schemaless[_impl.current] = paths
        return paths

    def reference_encode(self, values: Sequence[Any]) -> bytes:
        """The reference schemaless encode (the compiled one hands its refusals here)."""
        return self.encode_schemaless(_as_values(self.name, values))

    def reference_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference schemaless decode (the compiled one hands its refusals here)."""
        return self.decode_schemaless(as_key_bytes(self.name, key))

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        """Types chosen from the values (spec §11); bytes never take the final form."""
        if not values:
            raise EncodeError("a key holds one or more values", codec=NAME, value=values,
                              expected="at least one value")
        parts = [self.table_prefix]
        for i, v in enumerate(values):
            writer = SCHEMALESS_WRITERS.get(type(v))
            try:
                if writer is None:
                    writer = schemaless_writer_for(v)
                parts.append(writer(v))
            except LexCodecError as exc:
                raise exc.add_context(codec=NAME, field=i) from None
        return b"".join(parts)

    def decode_schemaless(self, key: bytes, sink: Sink | None = None) -> tuple[Any, ...]:
        """Decode from the header bytes alone: integral numbers as int, other finite numbers
        as Decimal, NaN/infinities as float, text as str, binary as bytes."""
        key = as_key_bytes(NAME, key)  # a released memoryview: a DecodeError
        try:
            pos = self._skip_table(key, sink)
            if pos >= len(key):
                raise DecodeError("empty key: at least one value is required", offset=pos,
                                  found=b"", expected="a value")
            out: list[Any] = []
            while pos < len(key):
                value, end = read_any(key, pos, sink)
                if sink is not None:
                    sink.value(len(out), pos, end, value)
                out.append(value)
                pos = end
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        return tuple(out)

    def _skip_table(self, key: bytes, sink: Sink | None = None) -> int:
        """Check the table-number prefix; the offset of the first value."""
        prefix = self.table_prefix
        if not prefix:
            return 0
        if key.startswith(prefix):
            if sink is not None:
                table = self.options["table"]
                sink.part(0, len(prefix), "table", table)
                sink.value(-1, 0, len(prefix), table)
            return len(prefix)
        table, _ = read_varint(key, 0, False, "table number")
        raise DecodeError(f"table number {table}, expected {self.options['table']}",
                          offset=0, found=key[:len(prefix)], expected=prefix.hex(" "))

    # -- inspect and prefix ranges --------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each value's header and class, exponent, mantissa digits, payload and terminator.

        A table-number prefix is a view of its own with ``index == -1`` (not a value), so
        the views still tile the key; the values are the views with ``index >= 0``.
        """
        return explain.inspect(self, key, schema)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        if schema is None:
            values = _as_values(self.name, values)  # a subclass as its plain tuple or list
            if not values:
                return self._empty_range()
            start = self.encode_schemaless(values)
            return start, strinc(start)
        return self.bind(schema).prefix_range(values)

    def _empty_range(self) -> tuple[bytes, bytes | None]:
        if not self.table_prefix:
            return b"", EMPTY_PREFIX_STOP
        return self.table_prefix, strinc(self.table_prefix)


class BoundSqlite4(BoundKey):
    """A bound ``sqlite4`` schema, the reference implementation: the table prefix, then the
    fields' encodings, every refusal explained with its field and offset."""

    __slots__ = ("codes", "final", "table_prefix")

    def __init__(self, codec: Sqlite4Codec, schema: KeySchema, plans: Sequence[FieldPlan]
                 ) -> None:
        super().__init__(codec, schema, plans)
        self.table_prefix = codec.table_prefix
        self.final = bool(schema.fields[-1].options.get("final", False))
        #: the plan data of each field (the compiled module is built from it)
        self.codes = tuple(field_code(f) for f in schema.fields)

    @property
    def prefix_free(self) -> bool:
        """False when the last field is a final binary: ``26 01`` is a prefix of ``26 01 02``."""
        return not self.final

    def encode(self, values: Sequence[Any]) -> bytes:
        return self.careful_encode(values)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        return self.careful_decode(key)

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing, field by field, with every refusal explained."""
        return self.table_prefix + BoundKey.encode(self, values)

    def careful_decode(self, key: bytes, sink: Sink | None = None) -> tuple[Any, ...]:
        """The reference reading, with the field and offset of every error; each part and
        value reported to *sink* when one is given (``inspect``)."""
        codec = self.codec
        assert isinstance(codec, Sqlite4Codec)
        data = as_key_bytes(NAME, key)
        try:
            pos = codec._skip_table(data, sink)
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
        out = []
        for i, plan in enumerate(self.plans):
            read: Callable[..., tuple[Any, int]] | None = plan.decode
            assert read is not None
            try:
                value, end = read(data, pos) if sink is None else read(data, pos, sink)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            if sink is not None:
                sink.value(i, pos, end, value)
            out.append(value)
            pos = end
        if pos != len(data):
            raise DecodeError("trailing bytes after the last field", codec=NAME, offset=pos,
                              found=data[pos:], expected="end of key")
        return tuple(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))`` (spec §13); a prefix holding a final binary is a whole key."""
        values = self._check_arity(values, prefix=True)
        if not values:
            codec = self.codec
            assert isinstance(codec, Sqlite4Codec)
            return codec._empty_range()
        start = self.table_prefix + self._encode_prefix(values)
        if self.final and len(values) == len(self.plans):
            return start, start + b"\x00"
        return start, strinc(start)


CAPABILITIES: Final = Capabilities(
    field_types={*INT_TYPES, "int", "decimal", "float64", "string", "bytes"},
    decoding="self-describing",
    descending=True,
    nulls="fixed",
    injective=True,
    prefix_free=True,
    schemaless=True,
    float_policy=FloatPolicy(nan="lowest", negative_zero="equal", compare="repr"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=False,
    notes="byte-identical with the SQLite4 trunk key encoding (key_encoding.wiki); floats are "
          "written as the decimal of their shortest repr; keys ending in a final binary "
          "(bytes field with final=true) are not prefix-free",
    readers=("C (the SQLite4 trunk)", "The Factory's Datastore secondary indexes",
             "Python (lexcodecs)"),
)
