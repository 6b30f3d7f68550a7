"""The ``lexkey`` and ``lexkey-legacy`` codecs: options, capabilities, binding.

Theory of operation: a codec is a width mode (``NATIVE``: typed ints and ``Float32`` at their
native widths in ``lexkey-legacy``, at 64 bits in ``lexkey``) and a NaN option. Binding a schema
checks each field against :data:`CAPABILITIES` (``BaseCodec.check_field``), then plans it from
the tables: its encoder from :data:`.reference_encode.FIELD_ENCODERS`, its layout (kind and
width from :data:`.format.FIELD_FORMATS`, the integer range, its reader from
:data:`.reference_decode.FIELD_READERS`). When ``_impl.compiled("lexkey")`` gives the compiled
module, the bound object is its ``BoundLexKey``, built from the same layout; otherwise the
reference :class:`.bound.BoundLexKey`. Schemaless encoding goes the same way, with one
encoder per codec instance and implementation. LexKey has neither descending fields nor a NULL
placement to choose: NULL is the byte ``00`` in every field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Final

import attrs

from ... import _impl
from ...codec import (
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    _as_values,
)
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece, int_range
from ...schema import Field, KeySchema
from . import explain
from . import format as _format
from .anomalies import ANOMALIES, GO_NAN_ANOMALIES, LEGACY_ANOMALIES
from .bound import BoundLexKey, FieldLayout
from .format import (
    FIELD_FORMATS,
    INT64_MAX,
    INT64_MIN,
    KIND_SIGNED,
    KIND_UNSIGNED,
    WIDTHS,
    int_class,
)
from .helpers import (
    decode_primary_key,
    from_hex,
    from_json,
    primary_key,
    range_key,
    to_hex,
    to_json,
)
from .reference_decode import field_reader
from .reference_encode import FIELD_ENCODERS, Writers, encode_schemaless

__all__ = [
    "CAPABILITIES",
    "LexKeyBase",
    "LexKeyCodec",
    "LexKeyLegacyCodec",
    "encode_first",
    "encode_last",
]

#: what both codecs claim; the anomalies grow with the width mode and the NaN option
CAPABILITIES: Final = Capabilities(
    field_types=frozenset(FIELD_FORMATS),
    decoding="schema",
    schemaless=True,
    descending=False,
    nulls="fixed",
    injective=False,
    prefix_free=False,
    float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
    anomalies=ANOMALIES,
    int_range=(INT64_MIN, INT64_MAX),
    notes="no tags, lengths or escaping: short keys, but see the declared anomalies",
    readers=("Go (fgrzl/lexkey v0.1.1 and later)", "Python (lexcodecs)"),
)

#: lexkey-legacy's readers: the Go library before its widths became canonical
LEGACY_READERS: Final = ("Go (fgrzl/lexkey before v0.1.1, e.g. v0.1.0-alpha.32)",
                         "Python (lexcodecs)")

# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def _columnar_piece(field: Field, native: bool) -> Piece | None:
    """*field*'s piece for the columnar kernel: ints big-endian at their width (canonical:
    64 bits; *native*: their own), the sign bit flipped for signed ones, floats by the
    literal rule (widened to float64 unless native), bool ``00``/``01``, timestamp and
    duration as int64 nanoseconds, strings and bytes raw; the fields apart by
    :data:`~.format.SEP`. None for any other field (the row API writes it)."""
    fmt = _format.FIELD_FORMATS.get(field.type)
    if fmt is None:
        return None
    width = fmt.width(native) or 0
    kind = fmt.kind
    if kind in (_format.KIND_SIGNED, _format.KIND_UNSIGNED) and field.type != "int":
        flip = FLAGS["signflip"] if kind == _format.KIND_SIGNED else 0
        return Piece(WRITERS["be"], width, flip, b"", b"", *int_range(field.type))
    if kind == _format.KIND_SIGNED:  # int: an int64
        return Piece(WRITERS["be"], 8, FLAGS["signflip"], b"", b"", INT64_MIN, INT64_MAX)
    if kind in (_format.KIND_FLOAT32, _format.KIND_FLOAT64):
        narrow = FLAGS["float32"] if width == 4 else 0
        return Piece(WRITERS["float"], width, FLAGS["literal"] | narrow)
    if kind == _format.KIND_BOOL:
        return Piece(WRITERS["bool"], 1)
    if kind in (_format.KIND_TIMESTAMP, _format.KIND_DURATION):
        return Piece(WRITERS["be"], 8, FLAGS["signflip"], b"", b"", INT64_MIN, INT64_MAX,
                     time=True)
    if kind in (_format.KIND_STRING, _format.KIND_BYTES):
        return Piece(WRITERS["bytes"])
    return None


def columnar_piece(field: Field) -> Piece | None:
    """``lexkey``'s piece of *field* (canonical widths)."""
    return _columnar_piece(field, native=False)


def columnar_piece_native(field: Field) -> Piece | None:
    """``lexkey-legacy``'s piece of *field* (native widths)."""
    return _columnar_piece(field, native=True)


class LexKeyBase(BaseCodec):
    """Shared by both width modes; ``NATIVE`` says which."""

    NATIVE: ClassVar[bool] = False
    OPTIONS: ClassVar = {
        "nan": Option("error", "'error' refuses NaN (the seed's rule); 'go' writes the Go "
                      "reference's fixed NaN bytes", choices=("error", "go")),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.go_nan: bool = self.options["nan"] == "go"
        self.writers = Writers(self.NATIVE, self.go_nan)
        self._caps = attrs.evolve(
            CAPABILITIES, anomalies=ANOMALIES + (LEGACY_ANOMALIES if self.NATIVE else ())
            + (GO_NAN_ANOMALIES if self.go_nan else ()),
            readers=LEGACY_READERS if self.NATIVE else CAPABILITIES.readers)
        # the schemaless encoder of each implementation (lexcodecs._impl), built on first use
        self._schemaless: dict[str, Callable[[Any], bytes]] = {}

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    # -- encoding ----------------------------------------------------------------------------

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        if schema is not None:
            return self.bind(schema).encode(values)
        encode = self._schemaless.get(_impl.current)
        if encode is None:
            encode = self._schemaless_encoder()
        return encode(values)

    def _schemaless_encoder(self) -> Callable[[Any], bytes]:
        compiled = _impl.compiled("lexkey")
        reference: Callable[[Any], bytes] = partial(BaseCodec.encode, self)
        encode = reference if compiled is None else compiled.SchemalessEncoder(
            self.NATIVE, self.go_nan, reference).encode
        self._schemaless[_impl.current] = encode
        return encode

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        return encode_schemaless(self.writers, self.name, values)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        """``[encode_first(values), encode_last(values))``, the format's own prefix scan.

        It leaks: a sibling whose string part merely starts with the prefix's last string
        falls inside (a declared anomaly). The empty prefix covers every key.
        """
        if schema is not None:
            return self.bind(schema).prefix_range(values)
        values = _as_values(self.name, values)  # a subclass as its plain tuple or list
        if not values:
            return b"", None
        return self.encode_first(values), self.encode_last(values)

    # -- helpers (spec §4) -------------------------------------------------------------------

    def encode_first(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        """``encode(values) + 00``: the first key that extends *values*."""
        return self.encode(values, schema) + b"\x00"

    def encode_last(self, values: Sequence[Any], schema: SchemaLike | None = None) -> bytes:
        """``encode(values) + ff``: above every key that extends *values*."""
        return self.encode(values, schema) + b"\xff"

    # the helpers on encoded keys do not depend on the width mode
    primary_key = staticmethod(primary_key)
    decode_primary_key = staticmethod(decode_primary_key)
    range_key = staticmethod(range_key)
    to_hex = staticmethod(to_hex)
    from_hex = staticmethod(from_hex)
    to_json = staticmethod(to_json)
    from_json = staticmethod(from_json)

    # -- schemas -----------------------------------------------------------------------------

    def width(self, field_type: str) -> int | None:
        w = WIDTHS.get(field_type)
        return None if w is None else w[1 if self.NATIVE else 0]

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        return FieldPlan(index, field, FIELD_ENCODERS[field.type](self.writers, field.type))

    def layout(self, field: Field) -> FieldLayout:
        """The plan data of one field: kind, width, integer range, reader."""
        fmt = FIELD_FORMATS[field.type]
        lo = hi = 0
        if fmt.kind in (KIND_SIGNED, KIND_UNSIGNED):
            cls = int_class(field.type)
            lo, hi = cls.min, cls.max
        return FieldLayout(fmt.kind, fmt.width(self.NATIVE), lo, hi,
                           field_reader(field.type, self.NATIVE, self.go_nan))

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        layout = [self.layout(f) for f in schema.fields]
        compiled = _impl.compiled("lexkey")
        if compiled is None:
            return BoundLexKey(self, schema, plans, layout)
        bound: BoundKey = compiled.BoundLexKey(self, schema, plans, layout)
        return bound

    # -- inspect -----------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """How *schema* reads the key: each part's bytes and type, the ``00`` separators, and
        notes on what the bytes alone do not say (a ``00`` inside a string looks like a
        separator, fixed-width parts carry no type). Without a schema nothing decodes: the
        key is shown as one raw part, with notes on what can and cannot be told.
        """
        return explain.inspect(self, key, schema)


class LexKeyCodec(LexKeyBase):
    """LexKey with canonical 64-bit numeric widths (``lexkey``).

    >>> codec = LexKeyCodec()
    >>> codec.encode(("foo", 42, True)).hex()
    '666f6f00800000000000002a0001'
    >>> codec.decode(bytes.fromhex("666f6f00800000000000002a0001"), "s:string, n:int64, b:bool")
    ('foo', 42, True)
    """

    name = "lexkey"
    NATIVE = False
    COLUMNAR: ClassVar = CodecPieces(_format.SEP, columnar_piece)


class LexKeyLegacyCodec(LexKeyBase):
    """LexKey with native widths (``lexkey-legacy``): ``Int16(123)`` is ``807b``."""

    name = "lexkey-legacy"
    NATIVE = True
    COLUMNAR: ClassVar = CodecPieces(_format.SEP, columnar_piece_native)


_CANONICAL: Final = LexKeyCodec()


def encode_first(values: Sequence[Any]) -> bytes:
    """``lexkey`` ``encode(values) + 00`` (canonical widths)."""
    return _CANONICAL.encode_first(values)


def encode_last(values: Sequence[Any]) -> bytes:
    """``lexkey`` ``encode(values) + ff`` (canonical widths)."""
    return _CANONICAL.encode_last(values)
