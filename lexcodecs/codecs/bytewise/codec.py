"""The ``bytewise`` codec: options, capabilities, the schemaless API and binding.

Theory of operation: :class:`BytewiseCodec` is self-describing and schemaless, like
``ordered-binary``. A bytewise key is one JS value: ``encode(values)`` writes ``values[0]``
bare when there is one value, and the JS array of the values otherwise (no values, or
several); ``decode(key)`` returns the key's one value as a 1-tuple (a JS array as a tuple).
The codec option ``array`` makes every key the array of its values, as level-sublevel writes
``[path, key]``: ``encode(("a", 1.0))`` is then the array ``["a", 1]`` and ``decode`` gives its
elements back (a key that is not an array is refused).

The work is done by ``reference_encode`` / ``reference_decode`` (the executable spec). When
``lexcodecs._impl.compiled("bytewise")`` gives a compiled module, its ``encode`` and
``decode`` run instead and hand anything they do not take as their own to those functions.

A schema binds into a plan: per field, its type (``reference_encode.FIELD_PY_TYPES``: string,
bytes, bool, float64, int; null in every field). :class:`BoundBytewise` checks each value
against its field, writes the key as the schemaless encoder does (the bare value for a
one-field schema without ``array``, else an array), and reads keys back by field type (an int
field's number as an int), refusing any key that does not encode back byte for byte.

The codec option ``reading`` picks how keys are read; writing is the same under both.
``"strict"`` (the default) is the above: a key decodes to the one value it was written from.
``"reference"`` reads a key as bytewise's own ``decode`` does (``lenient_decode``, spec §7),
for keys written by other code: the schemaless decode returns what the JS package returns,
and :class:`BoundBytewiseLenient` types those values by field with no write-back check. That
reader is pure Python: the compiled module is never asked to decode under it, so both
implementations give the same answer. Its capabilities trade the anomaly ``strict-decoding``
for ``reference-decoding`` (``anomalies.reading_anomalies``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

import attrs

from ... import _impl
from ...codec import Capabilities, FloatPolicy, Option, SchemaLike, _as_values, as_key_bytes
from ...errors import DecodeError, EncodeError, with_article
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece
from ...schema import Field
from .._js import JsBound, JsCodec
from . import explain
from .anomalies import ANOMALIES, reading_anomalies
from .format import ARRAY, BUFFER, END, FALSE, MAX_EXACT_INT, NAME, NULL, STRING, TRUE
from .lenient_decode import decode_value as read_as_bytewise
from .reference_decode import decode_value
from .reference_encode import FIELD_PY_TYPES, encode_values, field_value

__all__ = ["PACKAGE", "READINGS", "BoundBytewise", "BoundBytewiseLenient", "BytewiseCodec",
           "decode_key", "decode_key_array", "decode_key_lenient", "decode_key_lenient_array"]

#: the package name lexcodecs._impl knows the compiled module by
PACKAGE: Final = "bytewise"

#: the values of the codec option ``reading``, the default first
READINGS: Final = ("strict", "reference")

_ARRAY_END: Final = bytes((END,))
_UPPER: Final = b"\xff"
_NOTES: Final = ("JS values: null < false < true < numbers < Dates < Buffers < strings < "
                 "arrays < undefined; ints as the double they equal; ")


def _checked_back(data: bytes, value: Any, again: bytes | None) -> None:
    if again != data:  # the reader is strict: a safety net, never expected to fire
        raise DecodeError("the value read does not encode back to this key", codec=NAME,
                          offset=0, found=data[:16], expected="a key bytewise writes")


def decode_key(key: Any) -> tuple[Any, ...]:
    """The reference schemaless decode (option ``array`` off): the key's one value."""
    data = as_key_bytes(NAME, key)
    try:
        value = decode_value(data)
    except DecodeError as exc:
        raise exc.add_context(codec=NAME) from None
    try:
        again: bytes | None = encode_values((value,), False)
    except EncodeError:
        again = None
    _checked_back(data, value, again)
    return (value,)


def _array_key(data: bytes) -> bytes:
    """*data*, if it is an array's key (the option ``array``), else a DecodeError."""
    if data[:1] != bytes((ARRAY,)):
        raise DecodeError("not an array: with the option array, every key is the JS array "
                          "of its values", codec=NAME, offset=0, found=data[:16],
                          expected="a0, an array")
    return data


def decode_key_array(key: Any) -> tuple[Any, ...]:
    """The reference schemaless decode with the option ``array``: the array's elements."""
    (value,) = decode_key(_array_key(as_key_bytes(NAME, key)))
    return tuple(value)


def decode_key_lenient(key: Any) -> tuple[Any, ...]:
    """The schemaless decode under ``reading="reference"`` (option ``array`` off): the one
    value bytewise's own decode reads from the key, as a 1-tuple, with no write-back."""
    data = as_key_bytes(NAME, key)
    try:
        return (read_as_bytewise(data),)
    except DecodeError as exc:
        raise exc.add_context(codec=NAME) from None


def decode_key_lenient_array(key: Any) -> tuple[Any, ...]:
    """:func:`decode_key_lenient` with the option ``array``: the array's elements (a key
    whose value is not an array is refused, as under strict reading)."""
    (value,) = decode_key_lenient(_array_key(as_key_bytes(NAME, key)))
    return tuple(value)


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------
#
# A key of several values is the JS array of them: ``a0``, each value's encoding as an array
# item, ``00`` (the declaration's key prefix and suffix). An item is its tag and body: a
# number's 8 bytes (an int's: the double it equals), a string's or Buffer's escaped bytes and
# a ``00``; NULL is the bare tag ``10``. A key of one value is that value bare, unless the
# option ``array`` makes it an array too (``bare_piece``): a number, a boolean or NULL as its
# item, a string or Buffer as its tag and its bytes as they are (no escapes, no end).

_NULL: Final = bytes((NULL,))


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece as an item of the key's array."""
    t = field.type
    if t == "float64":
        return Piece(WRITERS["bytewise_number"], 9, null=_NULL)
    if t == "int":
        return Piece(WRITERS["bytewise_int"], 9, 0, b"", b"", -MAX_EXACT_INT, MAX_EXACT_INT,
                     null=_NULL)
    if t == "bool":
        return Piece(WRITERS["bool"], 1, bools=(FALSE, TRUE), null=_NULL)
    if t == "string":
        return Piece(WRITERS["bytes"], 0, FLAGS["bytewise_text"], bytes((STRING,)),
                     bytes((END,)), null=_NULL)
    if t == "bytes":
        return Piece(WRITERS["bytes"], 0, FLAGS["bytewise_buffer"], bytes((BUFFER,)),
                     bytes((END,)), null=_NULL)
    return None


def bare_piece(field: Field) -> Piece | None:
    """*field*'s piece as the one value of a key, written bare."""
    if field.type in ("string", "bytes"):
        return Piece(WRITERS["bytes"], 0, 0, bytes((STRING if field.type == "string" else BUFFER,)),
                     null=_NULL)
    return columnar_piece(field)


#: several values (one value bare: its own pieces), and with the option ``array`` any number
_PIECES: Final = CodecPieces(b"", columnar_piece, min_fields=2,
                             one=CodecPieces(b"", bare_piece),
                             key_prefix=bytes((ARRAY,)), key_suffix=bytes((END,)))
_ARRAY_PIECES: Final = CodecPieces(b"", columnar_piece, key_prefix=bytes((ARRAY,)),
                                   key_suffix=bytes((END,)))



class BoundBytewise(JsBound):
    """A schema bound to bytewise: the key bytewise writes for the values, checked by field
    type first (``None`` is null in every field; a ``bool`` is not an ``int``).

    Decoding reads the key's value, takes its fields (the bare value of a one-field schema
    without ``array``, else the array's elements), types each by its field, and refuses a
    key that does not encode back byte for byte.
    """

    __slots__ = ()
    NAME = NAME
    check_value = staticmethod(field_value)
    write = staticmethod(encode_values)

    def decode(self, key: bytes) -> tuple[Any, ...]:
        data = as_key_bytes(NAME, key)
        (value,) = decode_key(data)
        return self._take_fields(data, value, _typed)

    # not "_fields": pydoc takes an object with that attribute for a namedtuple and then
    # shows every private name in help()
    def _take_fields(self, data: bytes, value: Any, typed: Callable[[str, Any], Any]
                     ) -> tuple[Any, ...]:
        """The schema's values in the key's decoded *value* (the bare value of a one-field
        schema without ``array``, else the array's elements), each as *typed* takes it into
        its field; a DecodeError where the key is not of the schema."""
        if self._array:
            if type(value) is not tuple or len(value) != len(self._types):
                raise DecodeError(f"not an array of {len(self._types)} values: not a key of "
                                  f"the schema {self.schema}", codec=NAME, offset=0,
                                  found=data[:16], expected=f"a key of ({self.schema})")
            items: tuple[Any, ...] = value
        else:
            items = (value,)
        out = []
        for i, (field_type, item) in enumerate(zip(self._types, items)):
            field_value_ = typed(field_type, item)
            if field_value_ is _WRONG:
                f = self.schema.fields[i]
                raise DecodeError(f"value {i} is {with_article(type(item).__name__)}, not a "
                                  f"value of {with_article(field_type)} field", codec=NAME,
                                  offset=0, found=data[:16], expected=f"a key of ({self.schema})",
                                  field=i, field_name=f.name, field_type=f.type)
            out.append(field_value_)
        return tuple(out)

    def prefix_range(self, values: Sequence[Any]) -> tuple[bytes, bytes | None]:
        """The array prefix range (see the codec's); a one-field bare schema: the key of the
        one value alone (``[key, key 00)``), or every key for no values."""
        checked = self._checked(self._check_arity(values, prefix=True))
        if not checked:
            return b"", None
        if not self._array:
            key = encode_values(checked, False)
            return key, key + _ARRAY_END
        body = encode_values(checked, True)[:-1]
        return body, body + _UPPER


class BoundBytewiseLenient(BoundBytewise):
    """A schema bound under ``reading="reference"``: written as :class:`BoundBytewise`
    writes it; read as bytewise's own decode reads the key, then each value typed by its
    field (an ``int`` field's number as an ``int`` when it is an integral double within
    +-2**53; ``None`` in every field), with no write-back check. Pure Python by design: the
    compiled bound class is never used, so both implementations read alike."""

    __slots__ = ()

    def decode(self, key: bytes) -> tuple[Any, ...]:
        data = as_key_bytes(NAME, key)
        (value,) = decode_key_lenient(data)
        return self._take_fields(data, value, _typed_lenient)


class BytewiseCodec(JsCodec):
    """npm ``bytewise`` 1.1.0 (``bytewise-core`` 1.2.3), the LevelDB key encoding.

    >>> codec = BytewiseCodec()
    >>> codec.encode(("foo",)).hex(" "), codec.encode((1.0,)).hex(" ")
    ('70 66 6f 6f', '42 3f f0 00 00 00 00 00 00')
    >>> codec.encode((("foo", True),)).hex(" ")
    'a0 70 66 6f 6f 00 21 00'
    >>> codec.decode(bytes.fromhex("a070666f6f002100"))
    (('foo', True),)
    >>> BytewiseCodec(array=True).decode(bytes.fromhex("a070666f6f002100"))
    ('foo', True)
    """

    name = NAME
    BOUND: ClassVar = BoundBytewise
    PACKAGE: ClassVar = PACKAGE
    COLUMNAR: ClassVar = _PIECES
    ARRAY_COLUMNAR: ClassVar = _ARRAY_PIECES
    REFERENCE_BOUND: ClassVar = BoundBytewiseLenient
    OPTIONS: ClassVar = {
        "array": Option(
            False, "True: every key is the JS array of its values ([v] for one value), and "
            "decode gives the array's elements; False: a key of one value is that value, "
            "bare, and decode gives it as a 1-tuple. Keys of several values (or none) are "
            "arrays either way",
            choices=(False, True)),
        "reading": Option(
            "strict", "strict: a key decodes to the one value it was written from, bytes "
            "bytewise never writes are refused (DecodeError at an offset); reference: what "
            "bytewise's own decode returns, for keys written by other code: non-canonical "
            "bytes are read as the package reads them (spec §7)",
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
        float_policy=FloatPolicy(nan="refuse", negative_zero="distinct"),
        anomalies=ANOMALIES,
        int_range=(-MAX_EXACT_INT, MAX_EXACT_INT),
        notes=_NOTES + "strict decoding",
        readers=("Node.js: npm bytewise 1.1.0 / bytewise-core 1.2.3 (level, level-sublevel)",
                 "Python (lexcodecs)"),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # the anomalies follow the options: with array=True every key is the array of its
        # values (those of several values against one array value do not happen), and the
        # reader, not the writer, owns the decoding ones
        anomalies = reading_anomalies(self.reading, self.array)
        notes = _NOTES + ("strict decoding" if self.reading == "strict" else
                          "read as bytewise.decode reads (reading='reference')")
        self._capabilities = self.CAPABILITIES if anomalies == ANOMALIES else attrs.evolve(
            self.CAPABILITIES, anomalies=anomalies, notes=notes)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    # -- schemaless API (the codec's own) ---------------------------------------------------

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        """The key bytewise writes for *values* (see the class and module docs)."""
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.encode(values, self.array, encode_values)  # type: ignore[no-any-return]
        return encode_values(_as_values(NAME, values), self.array)

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        """The key's value as a 1-tuple (option ``array``: the array's elements)."""
        if self.reading == "reference":  # pure Python: the compiled reader is strict
            return decode_key_lenient_array(key) if self.array else decode_key_lenient(key)
        ref = decode_key_array if self.array else decode_key
        compiled = _impl.compiled(PACKAGE)
        if compiled is not None:
            return compiled.decode(key, self.array, ref)  # type: ignore[no-any-return]
        return ref(key)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None
                     ) -> tuple[bytes, bytes | None]:
        """``[P, P ff)``, ``P`` the array of *values* without its end byte: every array key
        whose first elements are *values* (the array of *values* itself included), as
        bytewise's ``sorts.array.bound`` gives. The empty prefix gives every key."""
        if schema is not None:
            return self.bind(schema).prefix_range(values)
        values = _as_values(NAME, values)
        if len(values) == 0:
            return b"", None
        body = encode_values(values, True)[:-1]
        return body, body + _UPPER

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each value's tag and what it means, its bytes, and the arrays' end bytes."""
        return explain.inspect(self, key, schema)

    # -- schema binding ---------------------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundBytewise:
        """The schema bound: values checked by field type, keys read back as the option
        ``reading`` says (strictly, or as bytewise reads them)."""
        return self.bind_as(schema, BoundBytewise)





def _typed(field_type: str, value: Any) -> Any:
    """A decoded JS value as a field of *field_type* holds it (an int field's number as an
    int), or ``_WRONG``."""
    if value is None:
        return None
    if field_type == "int":
        if type(value) is float and value.is_integer():
            return int(value)
        return _WRONG
    return value if type(value) in FIELD_PY_TYPES[field_type][:1] else _WRONG


def _typed_lenient(field_type: str, value: Any) -> Any:
    """:func:`_typed` for a value read as bytewise reads it: an int field takes a number only
    when it is an integral double within +-2**53 (what the field writes)."""
    if field_type == "int" and type(value) is float and not (
            value.is_integer() and abs(value) <= MAX_EXACT_INT):
        return _WRONG
    return _typed(field_type, value)


_WRONG: Final = object()

