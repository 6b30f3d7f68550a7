"""``orderly``: the codec object: options, capabilities, schema checks and binding.

Theory of operation: see ``format.py`` for the format. Binding a schema checks each field
against what Orderly can express (:meth:`OrderlyCodec.check_field`), then builds the struct:
:class:`~lexcodecs.codecs.orderly.bound.BoundOrderly` (the reference Python), or, when the
compiled implementation is in force (``lexcodecs._impl``), the compiled module's subclass of
it, built from the same field codecs, whose ``encode``/``decode`` run compiled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import attrs

from ... import _impl
from ...codec import BaseCodec, BoundKey, Capabilities, FieldPlan, FloatPolicy, Option, SchemaLike
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field, KeySchema
from . import explain
from . import format as _format
from .anomalies import anomalies
from .bound import BoundOrderly, field_codec
from .format import AUTO, NAME, RESERVED_MAX, SHOULD_NOT, TERMINATIONS, VARINTS


def _nonnegative_int(value: Any) -> str | None:
    return None if type(value) is int and value >= 0 else "an int >= 0"


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: the var-ints, floats (order transform + 1),
    strings (UTF-8 + 2, then ``01``, which the last non-empty ascending field leaves out:
    the codec's *tail*) and bytes (packed BCD); None for
    any other field (the row API writes it)."""
    t = field.type
    lay = _format.VARINTS.get(t)
    if lay is not None:
        flags = FLAGS["signed"] if lay.signed else 0
        piece = Piece(WRITERS["varint"], 0, flags, b"", b"", lay.lo, lay.hi,
                      layout=(lay.s, lay.d, lay.lb, lay.e, lay.max_length), null=b"\x00")
    elif t in _format.FLOATS:
        width = _format.FLOATS[t][0]
        flags = FLAGS["plus1"] | (FLAGS["float32"] if width == 4 else 0)
        piece = Piece(WRITERS["float"], width, flags, null=bytes(width))
    elif t == "string":
        piece = Piece(WRITERS["bytes"], 0, FLAGS["plus2"] | FLAGS["term_last"], b"", b"\x01",
                      null=b"\x00")
    elif t == "bytes":  # packed BCD, terminator nibbles to fill (one byte when empty)
        piece = Piece(WRITERS["bytes"], 1, FLAGS["bcd"], null=b"\x00")
    else:
        return None
    return piece.descending(field.descending)


class OrderlyCodec(BaseCodec):
    """Orderly row keys (registry name ``orderly``); see the module docstring and
    ``specs/orderly.md``.

    >>> codec = OrderlyCodec()
    >>> schema = "id:int64, name:string, score:float32"
    >>> codec.encode((1, "ab", 1.0), schema).hex(" ")
    '81 63 64 01 bf 80 00 01'
    >>> codec.decode(bytes.fromhex("81636401bf800001"), schema)
    (1, 'ab', Float32(1.0))
    >>> codec.skip(bytes.fromhex("81636401bf800001"), schema, 1, 1)
    4
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece, tail=True)
    OPTIONS: ClassVar = {
        "struct_order": Option("asc", "'desc' flips every field's order (Java "
                               "StructRowKey.setOrder)", choices=("asc", "desc")),
        "struct_termination": Option(AUTO, "the struct's termination: AUTO, MUST or "
                                     "SHOULD_NOT (spec §11.3)", choices=TERMINATIONS),
    }
    FIELD_OPTIONS: ClassVar = {
        "termination": Option(AUTO, "AUTO, MUST or SHOULD_NOT (SHOULD_NOT on the last field "
                              "only)", choices=TERMINATIONS),
        "encoding": Option("var", "var or fixed: int32/int64/uint32/uint64 and bytes",
                           choices=("var", "fixed")),
        "length": Option(None, "the length of a fixed byte array", check=_nonnegative_int),
        "prefix_length": Option(0, "raw bytes before the BCD of a variable byte array",
                                check=_nonnegative_int),
        "reserved_bits": Option(0, "var-int header bits kept for reserved_value",
                                check=_nonnegative_int),
        "reserved_value": Option(0, "the value of the reserved bits", check=_nonnegative_int),
    }

    #: schemas the conformance matrix runs besides its own: the reserved header bits, whose
    #: values it cannot choose (no choices declared); every int of the type still encodes.
    #: ``length`` and ``prefix_length`` narrow the values themselves, which the matrix's
    #: strategies do not know: tests/test_orderly_conformance.py checks them with its own
    conformance_schemas: ClassVar = (
        "f0:int64 reserved_bits=2 reserved_value=1, f1:uint32 desc reserved_bits=4 "
        "reserved_value=15",
        "f0:int32 desc reserved_bits=3 reserved_value=5, f1:uint64 reserved_bits=1 "
        "reserved_value=0",
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.struct_desc = self.options["struct_order"] == "desc"
        self._capabilities = _capabilities(self)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        if self.struct_desc and field.nulls is not None:
            # nulls names the place in the final order, which struct_order=desc flips too
            natural = "first" if field.descending else "last"
            if field.nulls != natural:
                raise self.refuse(index, field, f"NULL cannot sort {field.nulls} here: it is "
                                  "the lowest value, and struct_order=desc makes this field "
                                  f"{'ascending' if field.descending else 'descending'}",
                                  f"nulls left out (or nulls {natural})")
            field = attrs.evolve(field, nulls=None)
        super().check_field(index, field, schema)
        opts = field.options
        t = field.type
        enc = opts.get("encoding", "var")
        if "encoding" in opts and t not in VARINTS and t != "bytes":
            raise self.refuse(index, field, "encoding is an option of int32/int64/uint32/"
                              "uint64 and bytes fields only", "no encoding option")
        if t == "bytes" and enc == "fixed" and "length" not in opts:
            raise self.refuse(index, field, "a fixed byte array needs length=N", "length=N")
        if ("length" in opts or "prefix_length" in opts) and t != "bytes":
            raise self.refuse(index, field, "length and prefix_length are bytes options",
                              "a bytes field")
        if "length" in opts and enc != "fixed":
            raise self.refuse(index, field, "length is for encoding=fixed byte arrays",
                              "encoding=fixed, or prefix_length for variable ones")
        if "prefix_length" in opts and enc != "var":
            raise self.refuse(index, field, "prefix_length is for variable byte arrays",
                              "encoding=var")
        if "reserved_bits" in opts or "reserved_value" in opts:
            if t not in VARINTS or enc != "var":
                raise self.refuse(index, field, "reserved bits belong to var-int fields",
                                  "an int32/int64/uint32/uint64 var field")
            r = opts.get("reserved_bits", 0)
            v = opts.get("reserved_value", 0)
            assert isinstance(r, int)
            assert isinstance(v, int)
            if r > RESERVED_MAX[t]:
                raise self.refuse(index, field, f"reserved_bits={r} is more than {t} has",
                                  f"0..{RESERVED_MAX[t]}")
            if v >= 1 << r:
                raise self.refuse(index, field, f"reserved_value={v} does not fit in "
                                  f"{r} bit(s)", f"0..{(1 << r) - 1}")
        if opts.get("termination", AUTO) == SHOULD_NOT and index != len(schema) - 1:
            raise self.refuse(index, field, "SHOULD_NOT only on the last field (anywhere "
                              "else the key would not decode)", "AUTO or MUST")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        fc = field_codec(field, field.descending != self.struct_desc)

        def encode(v: Any) -> bytes:  # as the last field of a one-field prefix (AUTO rules)
            return fc.write_null(fc.desc) if v is None else fc.write(fc.check(v), fc.desc)
        return FieldPlan(index, field, encode, fc.read)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        compiled = _impl.compiled("orderly")
        cls: type[BoundOrderly] = BoundOrderly if compiled is None else compiled.CompiledOrderly
        return cls(self, schema, plans)

    def bind(self, schema: SchemaLike) -> BoundOrderly:
        bound = super().bind(schema)
        assert isinstance(bound, BoundOrderly)
        return bound

    # -- Orderly's RowKey operations --------------------------------------------------------

    def serialized_length(self, values: Sequence[Any], schema: SchemaLike) -> int:
        """``len(encode(values, schema))``, computed without encoding."""
        return self.bind(schema).serialized_length(values)

    def field_lengths(self, values: Sequence[Any], schema: SchemaLike) -> tuple[int, ...]:
        """Each field's length in the key (the terminations assigned back to front)."""
        return self.bind(schema).field_lengths(values)

    def skip(self, key: bytes, schema: SchemaLike, field: int, offset: int) -> int:
        """The offset where field ``field + 1`` starts, given that ``field`` starts at
        *offset*; structural checks only, no value is built."""
        return self.bind(schema).skip(key, field, offset)

    def field_offsets(self, key: bytes, schema: SchemaLike) -> tuple[int, ...]:
        """Where each field starts, and the end of the last (``n + 1`` offsets)."""
        return self.bind(schema).field_offsets(key)

    # -- inspect --------------------------------------------------------------------------

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each field's header, data, digits, terminators and NULLs, with its effective order
        and termination; empty fields (NULL written as zero bytes) have ``start == end``.

        Keys decode only with a schema: without one this raises ``NotDecodableError``.
        """
        return explain.inspect(self, key, schema)


# -- capabilities (spec §13, §14.8): declared once, as data ----------------------------------


def _capabilities(codec: OrderlyCodec) -> Capabilities:
    return Capabilities(
        field_types={"int32", "int64", "uint32", "uint64", "float32", "float64", "decimal",
                     "string", "bytes"},
        decoding="schema",
        descending=True,
        nulls="fixed",
        injective=True,
        prefix_free=False,
        schemaless=False,
        float_policy=FloatPolicy(nan="highest", negative_zero="distinct"),
        anomalies=anomalies(codec),
        text_nul=True,
        notes="byte-identical with the Orderly Java library (ndimiduk/orderly d26d690, NGDATA "
              "fork byte arrays), quirks included; decodes with a schema only",
        readers=("Java (Orderly: HBase row keys)", "Python (lexcodecs)"),
    )
