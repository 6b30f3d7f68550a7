"""The ``ordered-binary`` codec: options, capabilities, the schemaless API and binding.

Theory of operation: :class:`OrderedBinaryCodec` is self-describing and schemaless, like
``fdb-tuple``: ``encode(values)`` writes what lmdb-js's ``toBufferKey`` writes for the JS
value (one bare value, or an array), ``decode(key)`` returns what its ``fromBufferKey`` reads
(always a tuple). The codec option ``array`` makes a single value a one-element array, as
lmdb-js writes ``[v]``: numbers in an array take 9 bytes, bare ones as few as 4.

The work is done by ``reference_encode`` / ``reference_decode`` (the executable spec). When
``lexcodecs._impl.compiled("ordered_binary")`` gives a compiled module, its ``encode`` and
``decode`` run instead and hand anything they do not take as their own to those functions.

A schema binds into a plan: per field, its type (``format.FIELD_STARTS``, and the Python
types of ``reference_encode.FIELD_PY_TYPES``). :class:`BoundOrderedBinary` checks each value
against its field, writes the key as the schemaless encoder does (an array, or the bare value
for a one-field schema without ``array``), and reads keys strictly, field by field, refusing
any key that does not encode back byte for byte. Field types: string, bytes, bool, float64,
int; null in every field; no descending order, no field options. ``tuple`` is not a field
type (nested arrays are written flat: no reader can find their end).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from ... import _impl
from ...codec import Capabilities, FloatPolicy, Option, SchemaLike, _as_values, as_key_bytes
from ...errors import DecodeError
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field
from .._js import JsBound, JsCodec
from . import explain
from .anomalies import ANOMALIES
from .format import BUFFER_SIZE, FALSE, NAME, NULL, NUMBER_WRITE, SEPARATOR, TRUE
from .reference_decode import decode_fields, decode_key
from .reference_encode import FIELD_PY_TYPES, encode_values, field_value

__all__ = ["COLUMNAR", "INT_LIMIT", "PACKAGE", "BoundOrderedBinary", "OrderedBinaryCodec",
           "bare_piece", "columnar_piece"]

#: the package name lexcodecs._impl knows the compiled module by
PACKAGE: Final = "ordered_binary"

#: the largest int magnitude that does not round to Infinity as a JS number (ordered-binary
#: refuses those: ``BigInt(Infinity)`` throws)
INT_LIMIT: Final = 2**1024 - 2**970 - 1



def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: numbers (an int as the double it equals, or
    the double nearer zero and its BigInt remainder; a float64's NaN is declined, the row
    API writes the canonical one), booleans, strings (``1b`` before an empty one or one that
    starts below U+001C; short ones with ``04`` before each byte up to ``04``) and raw
    bytes; NULL ``00``."""
    null = bytes((NULL,))
    if field.type == "int":
        return Piece(WRITERS["ordered_binary_int"], 8, null=null)
    if field.type == "float64":
        return Piece(WRITERS["ordered_binary_float"], 8, null=null)
    if field.type == "bool":
        return Piece(WRITERS["bool"], 1, bools=(FALSE, TRUE), null=null)
    if field.type == "string":
        return Piece(WRITERS["bytes"], 1, FLAGS["ordered_binary_string"], null=null)
    if field.type == "bytes":
        return Piece(WRITERS["bytes"], 0, null=null)
    return None


def bare_piece(field: Field) -> Piece | None:
    """*field*'s piece as the one value of a key, written bare: a string's, a Buffer's, a
    boolean's and NULL's bytes are those of an item; a number's are cut short (its trailing
    zero bytes dropped: the row API's)."""
    return None if field.type in ("int", "float64") else columnar_piece(field)


#: the kernel's view of the keys: values with ``00`` between them, as an array (one value
#: alone is written bare: its own pieces), no longer than lmdb-js's buffer surely takes
COLUMNAR: Final = CodecPieces(bytes((SEPARATOR,)), columnar_piece, min_fields=2,
                              one=CodecPieces(b"", bare_piece,
                                              max_key=BUFFER_SIZE - NUMBER_WRITE),
                              max_key=BUFFER_SIZE - NUMBER_WRITE)


class BoundOrderedBinary(JsBound):
    """A schema bound to ordered-binary: the key lmdb-js writes for the values, checked by
    field type first (``None`` is null in every field; a ``bool`` is not an ``int``).

    Decoding reads the key field by field (:func:`.reference_decode.decode_fields`), then
    encodes the values again and refuses a key that does not come back byte for byte: a bound
    decode gives back exactly the values a key was written from, more exactly than lmdb-js's
    own reader (-0.0, ints that are doubles and nulls late in an array come back as written),
    or a DecodeError (keys that several value tuples share, see the anomalies, decode to the
    one the reader finds first).
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
        """``[enc 00, enc 01)`` of the prefix written as an array (see the codec's)."""
        checked = self._checked(self._check_arity(values, prefix=True))
        if not checked:
            return b"", None
        body = encode_values(checked, True)
        return body + bytes((SEPARATOR,)), body + bytes((SEPARATOR + 1,))


class OrderedBinaryCodec(JsCodec):
    """npm ``ordered-binary`` 1.6.3, the key encoding of lmdb-js.

    >>> codec = OrderedBinaryCodec()
    >>> codec.encode(("hello", 1.0, "world")).hex(" ")
    '68 65 6c 6c 6f 00 13 ff 00 00 00 00 00 00 00 00 77 6f 72 6c 64'
    >>> codec.encode((1.0,)).hex(" "), OrderedBinaryCodec(array=True).encode((1.0,)).hex(" ")
    ('13 ff 00 00', '13 ff 00 00 00 00 00 00 00')
    >>> codec.decode(bytes.fromhex("610000"))
    ('a', None)
    """

    name = NAME
    BOUND: ClassVar = BoundOrderedBinary
    PACKAGE: ClassVar = PACKAGE
    COLUMNAR: ClassVar = COLUMNAR
    OPTIONS: ClassVar = {
        "array": Option(
            False, "True: a key of one value is written as the one-element JS array [v] "
            "(numbers in an array always take 9 bytes); False: one value is written bare. "
            "Keys of several values (or none) are arrays either way",
            choices=(False, True)),
    }
    CAPABILITIES = Capabilities(
        field_types=set(FIELD_PY_TYPES),
        # keys decode without a schema to what lmdb-js's reader gives (lossy: see the
        # anomalies); a schema reads them back exactly
        decoding="self-describing",
        schemaless=True,
        descending=False,
        nulls="fixed",
        injective=False,
        prefix_free=False,
        float_policy=FloatPolicy(nan="highest", negative_zero="distinct"),
        anomalies=ANOMALIES,
        int_range=(-INT_LIMIT, INT_LIMIT),
        notes="JS values: null < false < true < numbers (ints as BigInts, by value) < "
              "strings; raw bytes untagged; keys over 8 KiB refused as lmdb-js refuses them",
        readers=("Node.js: npm ordered-binary 1.6.3, the key encoder of lmdb-js",
                 "Python (lexcodecs)"),
    )


    # -- schemaless API (the codec's own) ---------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        """The key lmdb-js writes for *values* (see the class and module docs)."""
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.encode(values, self.array, encode_values)  # type: ignore[no-any-return]
        return encode_values(values, self.array)

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """What lmdb-js reads from *key*: its values, normalised as its reader does."""
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.decode(key, _decode_key)  # type: ignore[no-any-return]
        try:
            return _decode_key(key)
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        """``[enc 00, enc 01)`` with *values* written as an array: every key of more values
        than *values* that starts with them (the key of *values* itself is not in it). The
        empty prefix gives every key: ``(b"", None)``."""
        if schema is not None:
            return self.bind(schema).prefix_range(values)
        values = _as_values(NAME, values)
        if len(values) == 0:
            return b"", None
        body = encode_values(values, True)
        return body + bytes((SEPARATOR,)), body + bytes((SEPARATOR + 1,))

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each value's first byte and what it means, its bytes, and the separators; notes
        for what lmdb-js's reader normalises."""
        return explain.inspect(self, key, schema)

    # -- schema binding ---------------------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundOrderedBinary:
        """The schema bound: values checked by field type, keys read strictly (see
        :class:`BoundOrderedBinary`)."""
        return self.bind_as(schema, BoundOrderedBinary)




def _decode_key(key: Any) -> tuple[Any, ...]:
    """The reference schemaless decode of a key given as bytes, bytearray or memoryview (a
    released memoryview: a DecodeError)."""
    return decode_key(as_key_bytes(NAME, key))

