"""The ``skv`` codec: options, capabilities, and a schema bound into one plan.

Theory of operation: binding checks the schema once (types, the ``key`` option's partition /
range split) and turns every field into a :class:`SkvFieldPlan`: the field's
:class:`~.format.FieldLayout` (the format's data for it: type, direction, NULL marker) with the
reference encoder and decoder built from the tables of ``reference_encode.py`` and
``reference_decode.py``. The bound object, :class:`BoundSkv`, then offers four operations, and
every helper is written on them:

* ``encode(values)`` / ``decode(key)``: the whole key;
* ``encode_span(values, start, stop)``: fields ``start..stop-1`` (prefix ranges, the
  partition and range keys);
* ``decode_from(key, pos)``: every field from offset *pos* to the end, with the offset after
  each field (storage keys, whose fields follow a schema name).

Under the reference implementation the four are the ``careful_*`` methods below. Under the
compiled one (``lexcodecs._impl``) the bound object is ``_compiled.CompiledBoundSkv``, built
from the same plans: its four operations run in Cython and hand anything unusual to the
``careful_*`` methods, so both give the same bytes, values and errors.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

import attrs

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
    buffer_value,
)
from ...errors import DecodeError, EncodeError, LexCodecError, SchemaError, UnsupportedTypeError
from ...inspection import Inspection, Part
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field, KeySchema
from . import format as _format
from . import reference_decode, reference_encode
from .anomalies import ANOMALIES
from .format import (
    EMPTY_PREFIX_STOP,
    FORMATS,
    KEY_PARTITION,
    KEY_RANGE,
    NAME,
    TERMINATOR,
    FieldLayout,
)

CAPABILITIES: Final = Capabilities(
    field_types=set(FORMATS),
    decoding="self-describing",
    descending=True,
    nulls="both",
    injective=True,
    prefix_free=True,
    schemaless=False,
    float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=True,
    notes="byte-identical with K2 (chogori-platform) for string, bytes, int16..uint64, bool "
          "and NULL first/last; float32/float64 and descending fields are lexcodecs "
          "extensions that K2 cannot read",
    readers=("C++ (K2, chogori-platform: no float or descending fields)",
             "Python (lexcodecs)"),
)


@functools.lru_cache(maxsize=1024)
def _field_parts(field: Field) -> tuple[FieldLayout, Any, Any]:
    """A field's layout, encoder and decoder, made once per field (identify binds thousands
    of schemas of the same few fields)."""
    layout = FieldLayout.of(field)
    return (layout, reference_encode.field_encoder(layout),
            reference_decode.field_decoder(layout, field.type))


@attrs.frozen
class SkvFieldPlan(FieldPlan):
    """A field's plan: its layout, and the reference encoder and decoder built from it."""

    layout: FieldLayout = attrs.field(kw_only=True)


class BoundSkv(BoundKey):
    """A bound ``skv`` schema: the whole-key operations plus the K2 key helpers."""

    # slots shadowing the methods: calls reach the implementation with no frame between
    __slots__ = ("_readers", "decode", "decode_from", "encode", "encode_span", "layouts",
                 "partition_count")

    def __init__(self, codec: SkvCodec, schema: KeySchema, plans: Sequence[SkvFieldPlan],
                 partition_count: int) -> None:
        super().__init__(codec, schema, plans)
        self.partition_count = partition_count
        self.layouts = tuple(p.layout for p in plans)
        # the plans' decoders, with their optional parts sink (inspect)
        self._readers = tuple(cast(reference_decode.Reader, p.decode) for p in plans)
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]
        self.encode_span = self.careful_encode_span
        self.decode_from = self.careful_decode_from

    # -- the reference operations ------------------------------------------------------------

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing of a whole key, with every refusal explained."""
        values = self._check_arity(values)
        return self.careful_encode_span(values, 0, len(values))

    def careful_encode_span(self, values: Sequence[Any], start: int, stop: int) -> bytes:
        """Fields ``start..stop-1`` of *values* (whose arity the caller has checked)."""
        out = []
        for i in range(start, stop):
            try:
                out.append(self._encoders[i](values[i]))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return b"".join(out)

    def careful_decode(self, key: bytes) -> tuple[Any, ...]:
        """The reference reading of a whole key, with every error explained."""
        return self.careful_decode_from(as_key_bytes(self._name, key), 0)[0]

    def careful_decode_from(self, data: bytes, pos: int,
                            annotate: list[list[Part]] | None = None
                            ) -> tuple[tuple[Any, ...], tuple[int, ...]]:
        """Every field from offset *pos* to the end of *data*: the values and the offset
        after each field. *annotate* collects each field's parts (``inspect``)."""
        data = as_key_bytes(self._name, data)
        values: list[Any] = []
        ends: list[int] = []
        for i, read in enumerate(self._readers):
            parts: list[Part] | None = None
            if annotate is not None:
                parts = []
                annotate.append(parts)
            try:
                value, pos = read(data, pos, parts)
            except LexCodecError as exc:
                raise self._context(exc, i) from None
            values.append(value)
            ends.append(pos)
        if pos != len(data):
            raise DecodeError("bytes left after the last field", codec=self._name,
                              offset=pos, found=data[pos:], expected="end of key")
        return tuple(values), tuple(ends)

    # -- helpers (spec §7, §8), on the four operations ---------------------------------------

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))``; the empty prefix gives ``[b"", ff 00 02)`` (spec §8)."""
        values = self._check_arity(values, prefix=True)
        start = self.encode_span(values, 0, len(values))
        if not start:
            return b"", EMPTY_PREFIX_STOP
        return start, strinc(start)

    def _parts(self, values: Sequence[Any]) -> tuple[bytes, bytes]:
        values = self._check_arity(values)
        n = self.partition_count
        # both parts always: a key with a bad value has neither
        return self.encode_span(values, 0, n), self.encode_span(values, n, len(values))

    def partition_key(self, values: Sequence[Any]) -> bytes:
        return self._parts(values)[0]

    def range_key(self, values: Sequence[Any]) -> bytes:
        return self._parts(values)[1]

    def storage_key(self, schema_name: str | bytes, values: Sequence[Any]) -> bytes:
        return name_bytes(schema_name) + TERMINATOR + self.encode(values)

    def storage_prefix_range(self, schema_name: str | bytes, prefix: Sequence[Any]
                             ) -> tuple[bytes, bytes]:
        name = name_bytes(schema_name)
        values = self._check_arity(prefix, prefix=True)
        start = name + TERMINATOR + self.encode_span(values, 0, len(values))
        stop = strinc(start)
        assert stop is not None  # start ends in 01 or fe
        return start, stop

    def _storage_fields(self, key: Any) -> tuple[bytes, tuple[Any, ...], tuple[int, ...]]:
        """(name, values, offset where each field starts, and the end) of a storage key."""
        data = as_key_bytes(NAME, key)
        at = data.find(b"\x00")
        if at < 0:
            raise DecodeError("no 00 01 after the schema name", codec=NAME, offset=len(data),
                              found=b"", expected="SCHEMA_NAME 00 01 key")
        if at + 1 >= len(data):
            raise DecodeError("truncated: separator 00 01 incomplete", codec=NAME,
                              offset=len(data), found=b"", expected="01")
        if data[at + 1] != 0x01:
            raise DecodeError("the first 00 must be followed by 01", codec=NAME,
                              offset=at + 1, found=data[at + 1:at + 2], expected="01")
        values, ends = self.decode_from(data, at + 2)
        return data[:at], values, (at + 2, *ends)

    def split_storage_key(self, key: bytes) -> tuple[bytes, bytes, bytes]:
        data = as_key_bytes(NAME, key)
        name, _, starts = self._storage_fields(data)
        middle = starts[self.partition_count]
        return name, data[starts[0]:middle], data[middle:]

    def decode_storage_key(self, key: bytes) -> tuple[bytes, tuple[Any, ...]]:
        name, values, _ = self._storage_fields(key)
        return name, values


def name_bytes(schema_name: Any) -> bytes:
    """A schema name as bytes (``str`` as UTF-8); a ``00`` byte is refused."""
    if issubclass(type(schema_name), str):
        try:
            data = str.encode(schema_name, "utf-8")
        except UnicodeEncodeError:
            raise EncodeError("schema name is not encodable as UTF-8", codec=NAME,
                              value=schema_name, expected="a str without lone surrogates"
                              ) from None
    elif issubclass(type(schema_name), (bytes, bytearray, memoryview)):
        try:
            data = buffer_value(schema_name)  # a subclass's own bytes; not a released view
        except LexCodecError as exc:
            raise exc.add_context(codec=NAME) from None
    else:
        raise UnsupportedTypeError("a schema name must be str or bytes", codec=NAME,
                                   value=schema_name, expected="str or bytes")
    if b"\x00" in data:
        raise EncodeError("schema name contains a 00 byte, the storage key separator",
                          codec=NAME, value=schema_name, expected="a name without 00/U+0000")
    return data


def _decode_schemaless(key: bytes) -> tuple[Any, ...]:
    key = as_key_bytes(NAME, key)  # a released memoryview: a DecodeError
    try:
        return reference_decode.decode_schemaless(key)
    except LexCodecError as exc:
        raise exc.add_context(codec=NAME) from None


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: ``TYPE SIGN PAYLOAD 00 01`` for ints,
    ``01``-tagged strings and bytes with ``00`` escaped ``00 ff``, then ``00 01``; None for
    any other field (the row API writes it)."""
    fmt = _format.FORMATS.get(field.type)
    if fmt is None:
        return None
    tag, end = bytes((fmt.type_byte,)), _format.TERMINATOR
    if field.type in ("string", "bytes"):
        piece = Piece(WRITERS["bytes"], 0, FLAGS["escape00"], tag, end)
    elif fmt.signed is not None:
        piece = Piece(WRITERS["skv_int"], fmt.width, 0, tag, end, fmt.lo, fmt.hi)
    elif field.type == "bool":
        piece = Piece(WRITERS["bool"], 1, 0, tag, end)
    elif field.type in ("float32", "float64"):
        flags = FLAGS["float32"] if field.type == "float32" else 0
        piece = Piece(WRITERS["float"], fmt.width, flags, tag, end)
    else:
        piece = Piece(WRITERS["be"], fmt.width, 0, tag, end, fmt.lo, fmt.hi)
    return piece.descending(field.descending)


class SkvCodec(BaseCodec):
    """K2 SKV keys (registry name ``skv``); see ``format.py`` and ``specs/skv.md``.

    The schema splits fields into partition-key and range-key fields with the field option
    ``key=partition|range`` (spec §7); :meth:`partition_key`, :meth:`range_key`,
    :meth:`storage_key` (the seed's ``SCHEMA_NAME 00 01 partition range``),
    :meth:`split_storage_key` and :meth:`encode_field` (query-predicate literals) are the
    helpers.
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    CAPABILITIES: ClassVar[Capabilities] = CAPABILITIES
    FIELD_OPTIONS: ClassVar = {
        "key": Option(KEY_PARTITION, "which part of the K2 key the field belongs to: "
                      "'partition' (the default) or 'range'; range-key fields follow the "
                      "partition-key fields", choices=(KEY_PARTITION, KEY_RANGE)),
    }

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        layout, encode, decode = _field_parts(field)
        return SkvFieldPlan(index, field, encode, decode, layout=layout)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        parts = [f.options.get("key", KEY_PARTITION) for f in schema.fields]
        if parts[0] != KEY_PARTITION:
            raise self.refuse(0, schema.fields[0], "No partitionKeyFields defined: the first "
                              "field must be a partition-key field", "key=partition")
        seen_range = False
        for i, (f, part) in enumerate(zip(schema.fields, parts)):
            if part == KEY_RANGE:
                seen_range = True
            elif seen_range:
                raise self.refuse(i, f, "a partition-key field after a range-key field",
                                  "every key=range field after the partition-key fields")
        skv_plans = [p for p in plans if isinstance(p, SkvFieldPlan)]
        assert len(skv_plans) == len(plans), "every plan comes from plan_field"
        compiled = _impl.compiled("skv")
        cls: type[BoundSkv] = BoundSkv if compiled is None else compiled.CompiledBoundSkv
        return cls(self, schema, skv_plans, parts.count(KEY_PARTITION))

    # -- schemaless decode ----------------------------------------------------------------

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """Decode from the type bytes alone (spec §9): STRING -> bytes, NULL -> None."""
        compiled = _impl.compiled("skv")
        if compiled is not None:
            return compiled.decode_schemaless(key, _decode_schemaless)  # type: ignore[no-any-return]
        return _decode_schemaless(key)

    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's type byte, sign, payload, escapes and terminator (or NULL marker)."""
        from .explain import inspect

        return inspect(self, key, schema)

    # -- helpers (spec §7, §8) -----------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundSkv:
        return self.bind_as(schema, BoundSkv)

    def partition_key(self, values: Sequence[Any], schema: SchemaLike) -> bytes:
        """The encoding of the partition-key fields; *values* holds every key field."""
        return self.bind(schema).partition_key(values)

    def range_key(self, values: Sequence[Any], schema: SchemaLike) -> bytes:
        """The encoding of the range-key fields (``b""`` if none); *values* holds every field."""
        return self.bind(schema).range_key(values)

    def storage_key(self, schema_name: str | bytes, values: Sequence[Any],
                    schema: SchemaLike) -> bytes:
        """``SCHEMA_NAME 00 01 partition_key range_key`` (the seed's layout)."""
        return self.bind(schema).storage_key(schema_name, values)

    def split_storage_key(self, key: bytes, schema: SchemaLike) -> tuple[bytes, bytes, bytes]:
        """``(schema_name, partition_key, range_key)`` of a storage key, checked strictly."""
        return self.bind(schema).split_storage_key(key)

    def decode_storage_key(self, key: bytes, schema: SchemaLike
                           ) -> tuple[bytes, tuple[Any, ...]]:
        """``(schema_name, values)`` of a storage key."""
        return self.bind(schema).decode_storage_key(key)

    def storage_prefix_range(self, schema_name: str | bytes, prefix: Sequence[Any],
                             schema: SchemaLike) -> tuple[bytes, bytes]:
        """``[N 00 01 P, strinc(N 00 01 P))``; the empty prefix gives ``[N 00 01, N 00 02)``."""
        return self.bind(schema).storage_prefix_range(schema_name, prefix)

    def encode_field(self, value: Any, field: Field | str) -> bytes:
        """One field's encoding (direction and NULL placement applied): a predicate literal.

        *field* is a :class:`~lexcodecs.schema.Field` or its text (``"ts:int64 desc"``).
        """
        if isinstance(field, str):
            parsed = KeySchema.parse(field)
            if len(parsed) != 1:
                raise SchemaError("encode_field takes one field", codec=NAME, value=field,
                                  expected="the text of one field")
            field = parsed.fields[0]
        if not isinstance(field, Field):
            raise SchemaError("not a Field", codec=NAME, value=field,
                              expected="a lexcodecs Field or the text of one field")
        # the key option is checked, then dropped: a lone field is its own partition key
        self.check_field(0, field, KeySchema((field,)))
        alone = Field(field.name, field.type, field.descending, field.nulls)
        return self.bind(KeySchema((alone,))).encode((value,))
