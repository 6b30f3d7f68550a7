"""The ``fdb-tuple`` codec: options, capabilities, the schemaless API and schema binding.

Theory of operation: :class:`FdbTupleCodec` is self-describing, so its main path needs no
schema: ``encode(values, prefix=b"")`` and ``decode(key, prefix=b"")`` as ``fdb.tuple.pack``
and ``unpack``. Its methods are the reference implementation (``reference_encode``,
``reference_decode``). When the compiled module is built, each instance also gets the
compiled ``encode`` and ``decode`` as instance attributes (no Python frame per call); they read
``lexcodecs._impl.current`` on every call, so ``_impl.use("reference")`` reaches the methods
below, and they hand anything they do not take as their own to those methods.

A schema binds into a plan: per field, a writer (coerce the value for the field, then write
it as the schemaless encoder does) and the type codes and range a read element must fit
(``format.FIELD_CODES``). Null is ``00`` in every field, and there is no descending order.
:class:`BoundTuple` runs the plan in Python; under the compiled implementation the bound object
is ``_compiled.BoundTuple``, built from the same plan data (``format.FIELD_KINDS`` and the
integer ranges), with this one as its reference for everything it hands over.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final, cast

from ... import _impl
from ...codec import (
    BaseCodec,
    BoundKey,
    Capabilities,
    FieldPlan,
    FloatPolicy,
    Option,
    SchemaLike,
    plain_values,
)
from ...errors import DecodeError, UnsupportedTypeError, describe_int
from ...inspection import Inspection
from ...pieces import FLAGS, WRITERS, CodecPieces, Piece, int_range
from ...schema import Field, KeySchema
from ...types import INT_TYPES
from . import explain
from . import format as _format
from .anomalies import ANOMALIES
from .format import (
    DEPTH_CEILING,
    FIELD_CODES,
    FIELD_KINDS,
    INT_LIMIT,
    MAX_DEPTH,
    NAME,
    NESTED,
    NULL,
)
from .reference_decode import READERS, as_bytes, check_prefix, decode_elements, read_nested
from .reference_encode import encode_values, field_writer
from .reference_encode import encode_with_versionstamp as _encode_with_versionstamp

__all__ = ["BoundTuple", "FdbTupleCodec", "decode", "encode", "encode_with_versionstamp",
           "prefix_range"]

#: the package name lexcodecs._impl knows the compiled module by
PACKAGE: Final = "fdb_tuple"

#: fixed-width integer field type -> (largest magnitude of a negative value, largest
#: positive value); "int" has no range of its own (the length byte bounds it)
_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    t: (-cls.min, cls.max) for t, cls in INT_TYPES.items()}


FieldCheck = Callable[[bytes, int, Any], None]


def _field_check(field_type: str) -> FieldCheck:
    """``check(key, offset, value)`` for one field: the element read at *offset* is null, or
    its code fits the field and its value the field's range; else a DecodeError."""
    codes = FIELD_CODES[field_type]
    ranged = field_type in _INT_RANGES
    neg, pos = _INT_RANGES.get(field_type, (0, 0))

    def check(data: bytes, at: int, value: Any) -> None:
        code = data[at]
        if code == NULL:
            return
        if code not in codes:
            raise DecodeError(f"type code {code:02x} does not fit the {field_type} field",
                              offset=at, found=data[at:at + 1])
        if ranged and not -neg <= value <= pos:
            raise DecodeError(f"{describe_int(value)} is out of range for {field_type}", offset=at,
                              found=data[at:at + 1], expected=f"{-neg}..{pos}")

    return check


def _field_reader(check: FieldCheck, max_depth: int = MAX_DEPTH
                  ) -> Callable[[bytes, int], tuple[Any, int]]:
    """``read(key, offset) -> (value, next_offset)`` for one field, checked by *check*."""

    def read(data: bytes, at: int) -> tuple[Any, int]:
        if at >= len(data):
            raise DecodeError("missing element", offset=at, expected="one more element")
        if data[at] == NESTED:
            value, end = read_nested(data, at, None, max_depth)
        else:
            value, end = READERS[data[at]](data, at)
        check(data, at, value)
        return value, end

    return read


def _prefix_bytes(prefix: Any) -> bytes:
    """A ``prefix=`` argument as bytes (``None``: none), read before its truth is asked: a
    bytes subclass by its own bytes, never its ``__len__`` or ``__bool__``."""
    if type(prefix) is bytes:
        return prefix
    return b"" if prefix is None else as_bytes(prefix, "prefix")


def _plain(values: Any) -> Any:
    """A tuple or list subclass as its own elements; anything else as it is (refused later)."""
    plain = plain_values(values)
    return values if plain is None else plain


class BoundTuple(BoundKey):
    """A schema bound to the tuple layer, run by the reference code.

    ``encode`` and ``decode`` take ``prefix=`` as the schemaless methods do. A key is read
    whole first (so a malformed element is reported as such), then each element is checked
    against its field.
    """

    __slots__ = ("_checks", "_max_depth")

    def __init__(self, codec: BaseCodec, schema: KeySchema, plans: Sequence[FieldPlan]) -> None:
        super().__init__(codec, schema, plans)
        self._checks = [_field_check(f.type) for f in schema.fields]
        self._max_depth: int = codec.options["max_depth"]

    def encode(self, values: Sequence[Any], prefix: bytes = b"") -> bytes:
        key = BoundKey.encode(self, _plain(values))
        prefix = _prefix_bytes(prefix)
        return prefix + key if prefix else key

    def decode(self, key: bytes, prefix: bytes = b"") -> tuple[Any, ...]:
        data = as_bytes(key)
        prefix = _prefix_bytes(prefix)
        start = check_prefix(data, prefix) if prefix else 0
        fields = self.schema.fields
        try:
            values, offsets = decode_elements(data, start, None, self._max_depth)
        except DecodeError as exc:
            i = getattr(exc, "element", len(fields))
            if i < len(fields):
                raise self._context(exc, i) from None
            raise exc.add_context(codec=NAME) from None
        if len(values) != len(fields):
            at = len(data) if len(values) < len(fields) else offsets[len(fields)]
            raise DecodeError(f"{len(values)} element(s) for a schema of {len(fields)} "
                              "field(s)", codec=NAME, offset=at, found=data[at:at + 1],
                              expected=f"{len(fields)} elements ({self.schema})")
        for i, (check, at, value) in enumerate(zip(self._checks, offsets, values)):
            try:
                check(data, at, value)
            except DecodeError as exc:
                raise self._context(exc, i) from None
        return tuple(values)

    def prefix_range(self, values: Sequence[Any], prefix: bytes = b"") -> tuple[bytes, bytes]:
        values = self._check_arity(_plain(values), prefix=True)
        body = as_bytes(prefix, "prefix") + self._encode_prefix(values)
        return body + b"\x00", body + b"\xff"


def _depth_problem(value: Any) -> str | None:
    if type(value) is not int or not 0 <= value <= DEPTH_CEILING:
        return f"an int from 0 to {DEPTH_CEILING}"
    return None


# -- the columnar kernel's pieces (lexcodecs.pieces) -----------------------------------------


def columnar_piece(field: Field) -> Piece | None:
    """*field*'s piece for the columnar kernel: the variable-length ints, ``20``/``21``
    floats, the two bools, ``02``/``01`` strings and bytes with ``00`` escaped ``00 ff``,
    then ``00``; None for any other field (the row API writes it)."""
    t = field.type
    if t in INT_TYPES or t == "int":
        return Piece(WRITERS["fdb_int"], 0, 0, b"", b"", *int_range(t))
    if t == "bool":
        return Piece(WRITERS["bool"], 1, bools=(_format.FALSE, _format.TRUE))
    if t == "float32":
        return Piece(WRITERS["float"], 4, FLAGS["float32"], bytes((_format.FLOAT,)))
    if t == "float64":
        return Piece(WRITERS["float"], 8, 0, bytes((_format.DOUBLE,)))
    if t in ("string", "bytes"):
        tag = _format.STRING if t == "string" else _format.BYTES
        return Piece(WRITERS["bytes"], 0, FLAGS["escape00"], bytes((tag,)), b"\x00")
    return None


class FdbTupleCodec(BaseCodec):
    """The FoundationDB tuple layer.

    >>> codec = FdbTupleCodec()
    >>> codec.encode(("user", 12345, None)).hex(" ")
    '02 75 73 65 72 00 16 30 39 00'
    >>> codec.decode(bytes.fromhex("0275736572001630390"  "0"))
    ('user', 12345, None)
    >>> [k.hex() for k in codec.prefix_range(("a",))]
    ['02610000', '026100ff']
    """

    name = NAME
    COLUMNAR: ClassVar = CodecPieces(b"", columnar_piece)
    OPTIONS: ClassVar = {
        "max_u64_form": Option(
            "python", "how ±(2**64-1) is written: 'python' as fdb.tuple (arbitrary-precision "
            "form), 'java' as the Java and Go bindings (fixed 8-byte form)",
            choices=("python", "java")),
        # 64 (format.MAX_DEPTH): real keys nest a level or two; deep enough for any of them,
        # shallow enough that a decoded value hashes, compares, prints and pickles safely
        # within Python's recursion limit, and the compiled module's own recursion bound
        "max_depth": Option(
            MAX_DEPTH, "how deep tuples may nest (a nested tuple's elements are at depth 1): "
            "deeper keys are refused on decode (DecodeError) and deeper values on encode "
            f"(EncodeError); 0 allows no nested tuple, at most {DEPTH_CEILING}",
            check=_depth_problem),
    }
    CAPABILITIES = Capabilities(
        field_types=set(FIELD_CODES),
        decoding="self-describing",
        schemaless=True,
        descending=False,
        nulls="fixed",
        injective=True,
        # not prefix-free: (b"",) is 01 00 and (b"\x00",) is 01 00 ff 00. Still unambiguous,
        # because ff never starts an element, so an element's 00 followed by ff is an escape
        prefix_free=False,
        float_policy=FloatPolicy(nan="total", negative_zero="distinct"),
        anomalies=ANOMALIES,
        int_range=(-INT_LIMIT, INT_LIMIT),
        notes="types order by type code first: every int < every Float32 < every float",
        readers=("FoundationDB's tuple layer: Python, Java, Go, Ruby", "Python (lexcodecs)"),
    )
    bound_class = BoundTuple

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._form: str = self.options["max_u64_form"]
        self.max_depth: int = self.options["max_depth"]
        # the compiled schemaless paths, as instance attributes; built whichever
        # implementation is in force now, because they check _impl.current on every call
        module = _impl.module(PACKAGE)
        if module is not None:
            fast = module.Schemaless(types.MethodType(FdbTupleCodec.encode, self),
                                     types.MethodType(FdbTupleCodec.decode, self),
                                     self._form == "java", self.max_depth)
            self.encode, self.decode = fast.encode, fast.decode  # type: ignore[method-assign]

    # -- schemaless API (the codec's own) ---------------------------------------------------

    def encode(self, values: Sequence[Any], schema: SchemaLike | None = None,
               prefix: bytes = b"") -> bytes:
        """``prefix ‖ enc(values)``, as ``fdb.tuple.pack(values, prefix=prefix)``."""
        if schema is not None:
            return self.bind(schema).encode(values, prefix)
        key = encode_values(self._values(values), self._form, self.max_depth)
        prefix = _prefix_bytes(prefix)
        return prefix + key if prefix else key

    def encode_schemaless(self, values: Sequence[Any]) -> bytes:
        return self.encode(values)

    def decode(self, key: bytes, schema: SchemaLike | None = None, prefix: bytes = b""
               ) -> tuple[Any, ...]:
        """The values of *key* (after *prefix*, which must be there)."""
        if schema is not None:
            return self.bind(schema).decode(key, prefix)
        data = as_bytes(key)
        prefix = _prefix_bytes(prefix)
        start = check_prefix(data, prefix) if prefix else 0
        try:
            return tuple(decode_elements(data, start, None, self.max_depth)[0])
        except DecodeError as exc:
            raise exc.add_context(codec=NAME) from None

    def decode_schemaless(self, key: bytes) -> tuple[Any, ...]:
        return self.decode(key)

    def prefix_range(self, values: Sequence[Any], schema: SchemaLike | None = None,
                     prefix: bytes = b"") -> tuple[bytes, bytes]:
        """``(prefix+enc+00, prefix+enc+ff)``: every key extending *values*, as
        ``fdb.tuple.range``; the key of *values* itself is not in it."""
        if schema is not None:
            return self.bind(schema).prefix_range(values, prefix)
        body = self.encode(values, prefix=prefix)
        return body + b"\x00", body + b"\xff"

    def encode_with_versionstamp(self, values: Sequence[Any], prefix: bytes = b"") -> bytes:
        """The key with one incomplete versionstamp, and its 4-byte little-endian offset.

        The offset counts from the start of the output, prefix included, to the first of the
        stamp's ten ``ff`` bytes (API version 520 and later).
        """
        module = _impl.compiled(PACKAGE)
        if module is not None:
            key: bytes | None = module.encode_with_versionstamp(
                values, prefix, self._form == "java", self.max_depth)
            if key is not None:
                return key
        return _encode_with_versionstamp(self._values(values), as_bytes(prefix, "prefix"),
                                         self._form, self.max_depth)

    def inspect(self, key: bytes, schema: SchemaLike | None = None) -> Inspection:
        """Each element's type code and what it means, its payload, length byte, ``00 ff``
        escapes and terminator; a nested tuple's elements inside its field, as ``nested``
        parts labelled with their index path (``[1][0]``). A key is inspected without its
        subspace prefix. Notes name the elements this codec would write differently.
        """
        return explain.inspect(self, key, schema)

    def _values(self, values: Any) -> Sequence[Any]:
        plain = plain_values(values)
        if plain is not None:
            return plain
        raise UnsupportedTypeError("the values of a key must be a tuple or a list",
                                   codec=NAME, value=values, expected="a tuple or list")

    # -- schema binding ---------------------------------------------------------------------

    def bind(self, schema: SchemaLike) -> BoundTuple:
        """The schema bound for this codec; its ``encode``/``decode`` take ``prefix=``."""
        return cast(BoundTuple, super().bind(schema))

    def plan_field(self, index: int, field: Field, schema: KeySchema) -> FieldPlan:
        return FieldPlan(index, field, field_writer(field.type, self._form, self.max_depth),
                         _field_reader(_field_check(field.type), self.max_depth))

    def make_bound(self, schema: KeySchema, plans: Sequence[FieldPlan]) -> BoundKey:
        reference = BoundTuple(self, schema, plans)
        module = _impl.compiled(PACKAGE)
        if module is None:
            return reference
        kinds = [FIELD_KINDS[f.type] for f in schema.fields]
        ranges = [_INT_RANGES.get(f.type) for f in schema.fields]
        # the compiled class has BoundTuple's interface; BaseCodec types its cache BoundKey
        return cast(BoundKey, module.BoundTuple(reference, kinds, ranges,
                                                self._form == "java", self.max_depth))


_DEFAULT: Final = FdbTupleCodec()


def encode(values: Sequence[Any], prefix: bytes = b"") -> bytes:
    """Module-level shortcut for ``FdbTupleCodec().encode`` (the default options)."""
    return _DEFAULT.encode(values, prefix=prefix)


def decode(key: bytes, prefix: bytes = b"") -> tuple[Any, ...]:
    """Module-level shortcut for ``FdbTupleCodec().decode``."""
    return _DEFAULT.decode(key, prefix=prefix)


def prefix_range(values: Sequence[Any], prefix: bytes = b"") -> tuple[bytes, bytes]:
    """Module-level shortcut for ``FdbTupleCodec().prefix_range``."""
    return _DEFAULT.prefix_range(values, prefix=prefix)


def encode_with_versionstamp(values: Sequence[Any], prefix: bytes = b"") -> bytes:
    """Module-level shortcut for ``FdbTupleCodec().encode_with_versionstamp``."""
    return _DEFAULT.encode_with_versionstamp(values, prefix=prefix)
