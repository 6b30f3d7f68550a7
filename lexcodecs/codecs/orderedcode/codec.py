"""The ``orderedcode`` codec: options, capabilities, and a schema bound into one plan.

Theory of operation: binding checks the schema once (the types, ``trailing=true`` only on a
last string/bytes field) and turns every field into plan data, a
:class:`~.format.FieldCode` ``(kind, mask)``, with the reference writer and reader built from
it (``reference_encode.field_writer`` / ``reference_decode.field_reader``). The bound object,
:class:`BoundOrderedCode`, offers:

* ``encode(values)`` / ``decode(key)``: the whole key (decode refuses bytes left over);
* ``parse(key)``: Go's ``Parse``: the values and the bytes after the last field;
* ``encode_prefix(values)``: the first ``len(values)`` fields (arity checked by the caller);
* ``prefix_range(values)``: ``[P, strinc(P))``, and ``[P, P 00)`` for a prefix that ends in
  the trailing string (a whole key: its extensions are other trailing strings).

Under the reference implementation these are the ``careful_*`` methods below. When
``lexcodecs._impl.compiled("orderedcode")`` gives a compiled module, the bound object is its
``CompiledBound``, built from the same plans (``codes``), which hands anything unusual to the
``careful_*`` methods; while no module is built it returns ``None`` and the reference runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

import attrs

from ... import _impl
from ..._bytes import strinc
from ...codec import BaseCodec, BoundKey, Capabilities, FieldPlan, FloatPolicy, Option, SchemaLike
from ...errors import LexCodecError
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece, int_range
from ...schema import Field, KeySchema
from .._fields import FieldsBound
from . import reference_decode, reference_encode
from .anomalies import ANOMALIES
from .format import (
    FIELD_KINDS,
    NAME,
    OPTION_TRAILING,
    TERMINATOR,
    TRAILING,
    TRAILING_KINDS,
    FieldCode,
    field_code,
)

__all__ = ["CAPABILITIES", "PACKAGE", "BoundOrderedCode", "OrderedCodeCodec",
           "OrderedCodeFieldPlan", "columnar_piece"]

#: the package of a compiled module (``lexcodecs/codecs/orderedcode/_compiled.pyx``)
PACKAGE: Final = "orderedcode"

CAPABILITIES: Final = Capabilities(
    field_types=set(FIELD_KINDS),
    decoding="schema",
    descending=True,
    nulls="none",
    injective=True,
    prefix_free=True,
    schemaless=False,
    float_policy=FloatPolicy(nan="total", negative_zero="equal"),
    anomalies=ANOMALIES,
    int_range=None,
    text_nul=True,
    notes="byte-identical with Go's github.com/google/orderedcode (Append / Parse); not "
          "self-describing; INFINITY (lexcodecs.types) in a string or bytes field is Go's "
          "Infinity; trailing=true on the last string/bytes field is a TrailingString "
          "(such keys are not prefix-free)",
    readers=("Go (github.com/google/orderedcode)", "Python (lexcodecs)"),
)


@attrs.frozen
class OrderedCodeFieldPlan(FieldPlan):
    """A field's plan: its plan data, and the reference writer and reader built from it."""

    code: FieldCode = attrs.field(kw_only=True)


class BoundOrderedCode(FieldsBound):
    """A bound ``orderedcode`` schema, the reference implementation."""

    # slots shadowing the methods: calls reach the implementation with no frame between
    __slots__ = ("_readers", "codes", "decode", "encode", "encode_prefix", "parse", "trailing")

    def __init__(self, codec: OrderedCodeCodec, schema: KeySchema,
                 plans: Sequence[OrderedCodeFieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self.codes = tuple(p.code for p in plans)
        self.trailing = self.codes[-1].kind in TRAILING
        self._readers = tuple(cast(reference_decode.Reader, p.decode) for p in plans)
        self.encode = self.careful_encode  # type: ignore[method-assign]
        self.decode = self.careful_decode  # type: ignore[method-assign]
        self.parse = self.careful_parse
        self.encode_prefix = self.careful_encode_prefix

    @property
    def prefix_free(self) -> bool:
        """False when the last field is a trailing string: ``61`` is a prefix of ``61 62``."""
        return not self.trailing

    # -- the reference operations ------------------------------------------------------------

    def careful_encode(self, values: Sequence[Any]) -> bytes:
        """The reference writing of a whole key, with every refusal explained."""
        values = self._check_arity(values)
        out = []
        for i, (write, v) in enumerate(zip(self._encoders, values)):
            try:
                out.append(write(v))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return b"".join(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[P, strinc(P))``; a prefix holding the trailing string is a whole key:
        ``[P, P 00)``."""
        values = self._check_arity(values, prefix=True)
        start = self.encode_prefix(values)
        if self.trailing and len(values) == len(self.codes):
            return start, start + b"\x00"
        return start, strinc(start)

    def careful_encode_prefix(self, values: Sequence[Any]) -> bytes:
        """The first ``len(values)`` fields (whose arity the caller has checked)."""
        out = []
        for i, v in enumerate(values):
            try:
                out.append(self._encoders[i](v))
            except LexCodecError as exc:
                raise self._context(exc, i) from None
        return b"".join(out)


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: int64 and uint64 items, float64 (the int64 of
    its bits; a NaN is declined), string and bytes (``00`` and ``ff`` escaped, then ``00
    01``); a trailing string has an option, so the row API writes it. No NULL: a NULL is
    the row API's refusal."""
    t = field.type
    if t == "int64":
        piece = Piece(WRITERS["orderedcode_int"], 0, FLAGS["signed"], b"", b"", *int_range(t))
    elif t == "uint64":
        piece = Piece(WRITERS["orderedcode_int"], 0, 0, b"", b"", *int_range(t))
    elif t == "float64":
        piece = Piece(WRITERS["orderedcode_float"], 8)
    elif t in ("string", "bytes"):
        piece = Piece(WRITERS["bytes"], 0, FLAGS["escape_ff"], b"", TERMINATOR)
    else:
        return None
    return piece.descending(field.descending)


class OrderedCodeCodec(BaseCodec):
    """Google orderedcode keys (name ``orderedcode``); see ``format.py`` and
    ``specs/orderedcode.md``.

    Field types ``string`` (UTF-8 ``str``), ``bytes``, ``int64``, ``uint64``, ``float64``;
    ``desc`` is Go's ``Decr``; the field option ``trailing=true`` on the last string or bytes
    field is a ``TrailingString``. :data:`lexcodecs.types.INFINITY` in a string or bytes
    field is Go's ``Infinity``. No NULL, no codec options.
    """

    name: ClassVar[str] = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    CAPABILITIES: ClassVar[Capabilities] = CAPABILITIES
    FIELD_OPTIONS: ClassVar = {
        OPTION_TRAILING: Option(False, "true: the last field is a TrailingString (raw bytes, "
                                "no escaping or terminator; string or bytes only)",
                                choices=(True, False)),
    }

    def check_field(self, index: int, field: Field, schema: KeySchema) -> None:
        super().check_field(index, field, schema)
        if field.options.get(OPTION_TRAILING, False):
            if field.type not in TRAILING_KINDS:
                raise self.refuse(index, field, "a trailing string is a string or bytes field",
                                  "type string or bytes, or trailing=false")
            if index != len(schema) - 1:
                raise self.refuse(index, field, "a trailing string must be the last field "
                                  "(it runs to the end of the key)", "the last field")

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        code = field_code(field)
        return OrderedCodeFieldPlan(index, field, reference_encode.field_writer(code),
                                    reference_decode.field_reader(code), code=code)

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        ours = [p for p in plans if isinstance(p, OrderedCodeFieldPlan)]
        assert len(ours) == len(plans), "every plan comes from plan_field"
        module = _impl.compiled(PACKAGE)
        cls: type[BoundOrderedCode] = BoundOrderedCode if module is None \
            else module.CompiledBound
        return cls(self, schema, ours)

    def bind(self, schema: SchemaLike) -> BoundOrderedCode:
        return self.bind_as(schema, BoundOrderedCode)

    def parse(self, key: bytes, schema: SchemaLike) -> tuple[tuple[Any, ...], bytes]:
        """Go's ``Parse``: the values of *schema*'s fields and the bytes after them."""
        return self.bind(schema).parse(key)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each item's bytes: escapes and terminator, INFINITY, int64 length bits, uint64
        length byte, float64 as its int64."""
        from .explain import inspect

        return inspect(self, key, schema)
