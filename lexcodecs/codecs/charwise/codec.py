"""The ``charwise`` codec: options, capabilities, the schemaless API and binding.

Theory of operation: :class:`CharwiseCodec` is self-describing and schemaless, like
``ordered-binary``: ``encode(values)`` writes the UTF-8 of what ``charwise.encode`` returns
for the JS value (the one value bare, or several as a JS array), ``decode(key)`` reads it
back strictly (always a tuple: ``(value,)``, the key's one value). The codec option
``array`` makes every key a JS array of the values, as ``[path, key]`` keys are, and
decode then returns the array's items.

The codec option ``reading`` picks the reader: ``"strict"`` (the default) reads a key as the
one value whose text it is and refuses text charwise never writes; ``"reference"`` reads it
as charwise's own ``decode`` does (``lenient_decode``, pure Python: the compiled module is
never asked to decode then, so both implementations give the same answer), for keys written
by other code. The keys written, prefix ranges, ``inspect`` and the columnar pieces are the
same under both; the capabilities differ only in the anomalies of the reader
(``anomalies.reading_anomalies``).

The work is done by ``reference_encode`` / ``reference_decode`` (the executable spec). When
``lexcodecs._impl.compiled("charwise")`` gives a compiled module, its ``encode`` and
``decode`` run instead and hand anything they do not take as their own to those functions.

A schema binds into a plan: per field, its type (``format.FIELD_STARTS``, and the Python
types of ``reference_encode.FIELD_PY_TYPES``). :class:`BoundCharwise` checks each value
against its field, writes the key as the schemaless encoder does (an array, or the bare
value for a one-field schema without ``array``), and reads keys field by field, refusing any
key that does not encode back byte for byte (under ``reading="reference"``:
:class:`ReferenceBoundCharwise`, which takes what charwise reads into the fields, with no
write-back check). Field types: string, bool, float64, int (a JS number that is an integer,
|n| <= 2**53); null in every field; no descending order, no field options. ``tuple`` and
undefined are schemaless only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

import attrs

from ... import _impl
from ...codec import Capabilities, FloatPolicy, Option, SchemaLike, _as_values, as_key_bytes
from ...errors import DecodeError
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field
from .._js import JsBound, JsCodec
from . import explain, lenient_decode
from .anomalies import ANOMALIES, reading_anomalies
from .format import ARRAY, FALSE, NAME, NULL, NUMBER_MAX, SEPARATOR, STRING, TERMINATOR, TRUE
from .reference_decode import decode_fields, decode_value
from .reference_encode import (
    FIELD_PY_TYPES,
    INT_LIMIT,
    encode_text,
    encode_values,
    field_value,
    key_bytes,
)

__all__ = ["PACKAGE", "READINGS", "BoundCharwise", "CharwiseCodec", "ReferenceBoundCharwise",
           "bare_piece", "columnar_piece"]

#: the package name lexcodecs._impl knows the compiled module by
PACKAGE: Final = "charwise"
#: the values of the option ``reading``: the strict reader, then charwise's own reading
READINGS: Final = ("strict", "reference")


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------
#
# A key of several values is the JS array of them: ``K``, the items joined by ``"`` (the
# separator), ``!`` (the declaration's key prefix and suffix). An item is a number's text (an
# int's: the number it equals), ``B``/``C``, or ``J`` and a string's item escapes; NULL is
# ``A``. A key of one value is that value bare, unless the option ``array`` makes it an array
# too (``bare_piece``): a number, a boolean or NULL as its item; a string without the item
# escapes (``charwise_bare``: only ``00`` and ``01`` escaped).

_NULL: Final = bytes((NULL,))


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece as an item of the key's array."""
    t = field.type
    if t == "float64":
        return Piece(WRITERS["charwise_number"], NUMBER_MAX, null=_NULL)
    if t == "int":
        return Piece(WRITERS["charwise_int"], NUMBER_MAX, 0, b"", b"", -INT_LIMIT, INT_LIMIT,
                     null=_NULL)
    if t == "bool":
        return Piece(WRITERS["bool"], 1, bools=(FALSE, TRUE), null=_NULL)
    if t == "string":
        return Piece(WRITERS["bytes"], 0, FLAGS["charwise_text"], bytes((STRING,)), null=_NULL)
    return None


def bare_piece(field: Field) -> Piece | None:
    """*field*'s piece as the one value of a key, written bare: an item's, but a string's,
    which takes no item escapes."""
    if field.type == "string":
        return Piece(WRITERS["bytes"], 0, FLAGS["charwise_text"] | FLAGS["charwise_bare"],
                     bytes((STRING,)), null=_NULL)
    return columnar_piece(field)


#: several values (one value bare: its own pieces), and with the option ``array`` any number
_PIECES: Final = CodecPieces(bytes((SEPARATOR,)), columnar_piece, min_fields=2,
                             one=CodecPieces(b"", bare_piece),
                             key_prefix=bytes((ARRAY,)), key_suffix=bytes((TERMINATOR,)))
_ARRAY_PIECES: Final = CodecPieces(bytes((SEPARATOR,)), columnar_piece,
                                   key_prefix=bytes((ARRAY,)), key_suffix=bytes((TERMINATOR,)))


class BoundCharwise(JsBound):
    """A schema bound to charwise: the key charwise writes for the values, checked by field
    type first (``None`` is null in every field; a ``bool`` is not an ``int``; an ``int``
    field's values are written as JS numbers).

    Decoding reads the key (:func:`.reference_decode.decode_fields`), then encodes the values
    again and refuses a key that does not come back byte for byte.
    """

    __slots__ = ()
    NAME = NAME
    check_value = staticmethod(field_value)
    write = staticmethod(encode_values)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        data = as_key_bytes(NAME, key)
        try:
            values = decode_fields(data, self._types, not self._array)
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None
        return self._written_back(data, values)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """``[K items ", K items #)`` of the prefix written as an array (see the codec's)."""
        checked = self._checked(self._check_arity(values, prefix=True))
        return _prefix(checked)


class ReferenceBoundCharwise(BoundCharwise):
    """A schema bound under ``reading="reference"``: written as :class:`BoundCharwise`
    writes, read as charwise's own ``decode`` reads (:mod:`.lenient_decode`), then each value
    taken into its field (null in every field; an int field's number an int when it is an
    integral double within +-2**53; any other mismatch a DecodeError), with no write-back
    check. Pure Python under both implementations."""

    __slots__ = ()

    def decode(self, key: bytes) -> tuple[Any, ...]:
        data = as_key_bytes(NAME, key)
        try:
            return lenient_decode.decode_fields(data, self._types, not self._array)
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None


class CharwiseCodec(JsCodec):
    """npm ``charwise`` 3.0.1, the text key encoding of level (Secure Scuttlebutt's indexes).

    >>> codec = CharwiseCodec()
    >>> codec.encode(("hello",)), codec.encode((1.0,))
    (b'Jhello', b'FE500M1.00000000000000000000')
    >>> codec.encode(("a", None, True))
    b'KJa"A"C!'
    >>> codec.decode(b'KJa"A"C!'), CharwiseCodec(array=True).decode(b'KJa"A"C!')
    ((('a', None, True),), ('a', None, True))
    """

    name = NAME
    BOUND: ClassVar = BoundCharwise
    PACKAGE: ClassVar = PACKAGE
    COLUMNAR: ClassVar = _PIECES
    ARRAY_COLUMNAR: ClassVar = _ARRAY_PIECES
    REFERENCE_BOUND: ClassVar = ReferenceBoundCharwise
    OPTIONS: ClassVar = {
        "array": Option(
            False, "True: every key is the JS array of its values (a key of one value is "
            "[v]), and decode returns the array's items; False: a key of one value is that "
            "value, bare, and decode returns (value,). Keys of several values (or none) are "
            "arrays either way",
            choices=(False, True)),
        "reading": Option(
            "strict", "strict: a key decodes to the one value whose text it is, text charwise "
            "never writes is refused (DecodeError at an offset); reference: what charwise's "
            "own decode returns, for keys written by other code: lenient, as the package "
            "reads (spec §5)",
            choices=READINGS, reading=True),
    }
    CAPABILITIES = Capabilities(
        field_types=set(FIELD_PY_TYPES),
        decoding="self-describing",
        schemaless=True,
        descending=False,
        nulls="fixed",
        injective=False,
        prefix_free=False,
        # NaN is one value (DaN), sorting between the negatives and zero: declared as the
        # anomaly nan-between-negatives-and-zero on top of "lowest"
        float_policy=FloatPolicy(nan="lowest", negative_zero="distinct"),
        anomalies=ANOMALIES,
        int_range=(-INT_LIMIT, INT_LIMIT),
        notes="JS values as text: null < false < true < numbers (ints as the JS number) < "
              "strings < arrays < undefined; stored as UTF-8",
        readers=("Node.js: npm charwise 3.0.1 (level, Secure Scuttlebutt)",
                 "Python (lexcodecs)"),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # the anomalies follow the options: with array=True every key is the array of its
        # values (those of several values against one array value do not happen), and each
        # reader loses its own values
        anomalies = reading_anomalies(self.reading, self.array)
        self._capabilities = self.CAPABILITIES if anomalies == ANOMALIES else attrs.evolve(
            self.CAPABILITIES, anomalies=anomalies)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    # -- schemaless API (the codec's own) ---------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        """The key charwise writes for *values* (see the class and module docs)."""
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.encode(values, self.array, encode_values)  # type: ignore[no-any-return]
        return encode_values(values, self.array)

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """The values of *key*, read strictly, or with ``reading="reference"`` as charwise
        reads them (never by the compiled module)."""
        if self.reading == "reference":
            try:
                return lenient_decode.decode_value(as_key_bytes(NAME, key), self.array)
            except DecodeError as exc:
                raise exc.add_context(codec=NAME) from None
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.decode(key, self.array, _decode_key)  # type: ignore[no-any-return]
        try:
            return _decode_key(key, self.array)
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        """``[K items ", K items #)`` with *values* written as an array: every key of more
        values than *values* that starts with them (the key of *values* itself is not in
        it). The empty prefix gives every key: ``(b"", None)``."""
        if schema is not None:
            return self.bind(schema).prefix_range(values)
        values = _as_values(NAME, values)
        return _prefix(values)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each value's type character, its text, and the array separators."""
        return explain.inspect(self, key, schema)

    # -- schema binding ---------------------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundCharwise:
        """The schema bound: values checked by field type, keys read strictly (or as
        charwise reads them, with ``reading="reference"``)."""
        return self.bind_as(schema, BoundCharwise)





def _prefix(values: Sequence[Any]) -> tuple[bytes, bytes | None]:
    if len(values) == 0:
        return b"", None
    body = encode_text(values, True)[:-1]  # the array without its !
    return key_bytes(body + chr(SEPARATOR)), key_bytes(body + chr(SEPARATOR + 1))


def _decode_key(key: Any, array: bool) -> tuple[Any, ...]:
    """The reference schemaless decode of a key given as bytes, bytearray or memoryview."""
    return decode_value(as_key_bytes(NAME, key), array)

